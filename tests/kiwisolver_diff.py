"""Our kiwisolver (runtimes/python/kiwisolver) against Debian's
python3-kiwisolver. Builds ours natively for /usr/bin/python3.11 in
BUILD/kiwisolver (our warnings, ASan and UBSan), runs
tests/kiwisolver_cases.py under each and compares what every case saw:
exceptions by name, values within 1e-9 (the weighted error of the soft
constraints, a diagnostic, within 1e-6). Where they differ, the case still
passes if Debian's is the one in the wrong: it breaks a required constraint
that ours holds, or ours reaches as low a weighted error at every step.
Debian's aborts the process on some systems ("Dual optimize failed", an
uncaught C++ exception): those run one by one, and ours must end them with
every required constraint holding. Last, a plain build (BUILD/kiwisolver-plain)
in 64 MiB of address space must turn running out of memory into MemoryError.
Prints "ok N - case" / "not ok N - case" and a closing "N passed, N failed".

python3 tests/kiwisolver_diff.py [BUILD] [SYSTEMS_PER_FAMILY]"""
import json
import math
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build"))
systems = sys.argv[2] if len(sys.argv) > 2 else "300"
python = "/usr/bin/python3.11"
FAMILIES = ["random", "tied"]  # tests/kiwisolver_cases.py's generated systems
source = os.path.join(root, "runtimes/python/kiwisolver")


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def install_reference():
    """Debian's kiwisolver and the headers ours builds with (scripts/deps.sh has them too)."""
    sh(["bash", "-c", ". runtimes/lib.sh && wb_apt_install python3.11-dev python3-kiwisolver"], cwd=root)


def build_ours(name, flags):
    out = os.path.join(build, name)
    os.makedirs(out, exist_ok=True)
    include = subprocess.check_output([python, "-c", "import sysconfig; print(sysconfig.get_paths()['include'])"],
                                      text=True).strip()
    so = os.path.join(out, "kiwisolver.so")
    sh(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-g", "-fPIC", "-shared"] + flags +
       ["-I" + include, os.path.join(source, "module.c"), os.path.join(source, "solver.c"), "-o", so, "-lm"])
    return out


# A system whose rows grow with its size, in 64 MiB of address space (the
# plain build: ASan reserves far more): MemoryError, then the solver works.
OUT_OF_MEMORY = """
import resource
import kiwisolver as kiwi
resource.setrlimit(resource.RLIMIT_AS, (64 << 20, 64 << 20))
s = kiwi.Solver()
vs = [kiwi.Variable() for i in range(40000)]
try:
    for i in range(len(vs) - 1, 0, -1):
        s.addConstraint(vs[i] == vs[i - 1] + 1)
except MemoryError:
    s.addConstraint(vs[0] == 3)
    s.updateVariables()
    print("MemoryError", vs[0].value(), kiwi.__version__)
"""


def out_of_memory(plain_dir):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = plain_dir
    p = subprocess.run([python, "-P", "-c", OUT_OF_MEMORY], env=env, capture_output=True, text=True)
    ours = "MemoryError 3.0 1.3.1"  # (Debian's is 1.4)
    return p.returncode == 0 and p.stdout.strip() == ours, (p.stdout + p.stderr)[-2000:]


def run(env_path, family=None, seeds=None, preload=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    if env_path:
        env["PYTHONPATH"] = env_path
    if preload:
        env["LD_PRELOAD"] = preload
        # CPython's own allocations are not ours to check for leaks
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    cmd = [python, "-P", "-X", "faulthandler", os.path.join(here, "kiwisolver_cases.py")]
    cmd += [family, str(seeds.start), str(seeds.stop)] if seeds else []
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        return p.stderr
    return json.loads(p.stdout)


def run_debian(count):
    """Debian's results, and the random systems it aborted on."""
    results, aborted = run(None), []
    if isinstance(results, str):
        return results, []
    for family in FAMILIES:
        for first in range(0, count, 25):
            chunk = run(None, family, range(first, min(first + 25, count)))
            if isinstance(chunk, str):
                chunk = {}
                for seed in range(first, min(first + 25, count)):
                    one = run(None, family, range(seed, seed + 1))
                    if isinstance(one, str):
                        aborted.append("%s_%d" % (family, seed))
                    else:
                        chunk.update(one)
            chunk.pop("_module", None)
            results.update(chunk)
    return results, aborted


def objectives(observed):
    return [x[1] for x in observed if isinstance(x, list) and x[:1] == ["objective"]]


def no_worse(ours, theirs):
    """Ours reaches an objective as low as Debian's at every step."""
    a, b = objectives(ours), objectives(theirs)
    return len(a) == len(b) and len(a) > 0 and all(x <= y + 1e-6 * max(1.0, abs(y)) for x, y in zip(a, b))


def sound(observed):
    """Nothing died and every required constraint held (the integers a case records)."""
    return all(not (isinstance(x, list) and x[:1] == ["died"]) and (not isinstance(x, int) or x == 0)
               for x in observed if not isinstance(x, bool))


def same(a, b):
    if isinstance(a, list) and isinstance(b, list) and a[:1] == b[:1] == ["objective"]:
        # weights reach 1e7: values equal to 1e-13 make objectives differ in the 9th digit
        return math.isclose(a[1], b[1], rel_tol=1e-6, abs_tol=1e-6)
    if isinstance(a, float) or isinstance(b, float):
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return False
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def main():
    install_reference()
    ours_dir = build_ours("kiwisolver", ["-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
                                         "-fno-omit-frame-pointer"])
    plain_dir = build_ours("kiwisolver-plain", ["-O2"])
    libasan = subprocess.check_output(["cc", "-print-file-name=libasan.so"], text=True).strip()
    count = int(systems)
    ours = run(ours_dir, preload=libasan)
    for family in FAMILIES:
        if isinstance(ours, str):
            break
        systems_run = run(ours_dir, family, range(0, count), preload=libasan)
        ours = systems_run if isinstance(systems_run, str) else \
            dict(ours, **{k: v for k, v in systems_run.items() if k != "_module"})
    theirs, aborted = run_debian(count)
    n = passed = 0
    for who, result in [("ours", ours), ("Debian's", theirs)]:
        if isinstance(result, str):
            print("not ok 1 - %s run died:\n%s" % (who, result[-4000:]))
            print("0 passed, 1 failed")
            return 1
    n += 1
    where = [ours.pop("_module"), theirs.pop("_module")]
    if where[0].startswith(ours_dir) and not where[1].startswith(ours_dir):
        passed += 1
        print("ok %d - ours and Debian's compared (%s, %s)" % (n, where[0], where[1]))
    else:
        print("not ok %d - not ours and Debian's compared: %s" % (n, where))
    debian_wrong = debian_worse = 0
    for name in theirs:
        n += 1
        if name in ours and same(ours[name], theirs[name]):
            passed += 1
            print("ok %d - %s" % (n, name))
        elif name in ours and sound(ours[name]) and not sound(theirs[name]):
            passed += 1
            debian_wrong += 1
            print("ok %d - %s (Debian's leaves a required constraint broken; ours holds them all)" % (n, name))
        elif name in ours and sound(ours[name]) and no_worse(ours[name], theirs[name]):
            passed += 1
            debian_worse += 1
            print("ok %d - %s (values differ; ours is as optimal as Debian's at every step, or more)" % (n, name))
        else:
            mine = ours.get(name) or []
            at = next((i for i, (x, y) in enumerate(zip(mine, theirs[name])) if not same(x, y)), len(mine))
            print("not ok %d - %s (step %d differs)" % (n, name, at))
            print("#   ours:   %s" % json.dumps(mine[at:at + 3])[:2000])
            print("#   Debian: %s" % json.dumps(theirs[name][at:at + 3])[:2000])
    for name in aborted:
        n += 1
        if name in ours and sound(ours[name]):
            passed += 1
            print("ok %d - %s (Debian's aborts on it; ours holds every required constraint)" % (n, name))
        else:
            print("not ok %d - %s (Debian's aborts on it): ours %s" % (n, name, json.dumps(ours.get(name))[:2000]))
    n += 1
    ok, output = out_of_memory(plain_dir)
    passed += ok
    print("%s %d - a system too big for 64 MiB raises MemoryError, and the solver is usable after%s"
          % ("ok" if ok else "not ok", n, "" if ok else ":\n" + output))
    print("# %d systems of each family; Debian's aborts on %d, breaks a required constraint in %d, optimises less in %d"
          % (count, len(aborted), debian_wrong, debian_worse))
    print("%d passed, %d failed" % (passed, n - passed))
    return 0 if passed == n else 1


sys.exit(main())
