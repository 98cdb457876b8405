#!/usr/bin/env python3
"""make bench (peers part): wasmbox next to what users would pick instead,
each figure measured in rounds that alternate between the contenders, so all
see the same machine load. Contenders (see bench/README.md for what is and is
not comparable):

  native    Debian's python3.11: the speed limit
  wasmbox   build/wasmbox (CLI: one process per call) and the library
            (bench/load.c: calls in one long-lived process)
  bwrap     python3.11 inside bubblewrap, no network, read-only /usr
  node:wasi our own python.wasm run by node's WASI (V8 compiles it)
  pyodide   Pyodide in node (bench/peers/pyodide.mjs)

usage: peers.py WASMBOX --load BENCH_LOAD --python-dir DIR --pyodide DIR --jsnative PATH [--quick | --smoke]
Raw samples go to bench/results/peers-<time>.json; bench/report.py prints them.
--smoke (make test-peers, in CI): every step once with every contender, so
that a peer that stops working fails the run; no figures are kept.
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402  the compute wrapper and interleaving of bench.py

NATIVE_PY = bench.NATIVE_PY
# name shown -> what is imported: `import email` alone loads one small
# __init__; email.message is what code that handles mail starts from (it
# pulls in the header, charset, policy and utils modules)
HEAVY_MODULES = {'decimal': 'decimal', 'sqlite3': 'sqlite3', 'email': 'email.message'}
# time of one import inside the interpreter, in a fresh process or call
IMPORT_CODE = 'import time\nt = time.perf_counter()\nimport %s\nprint(time.perf_counter() - t)\n'
SMALL_VARS = "a = 1\nb = 'text'\nc = [1, 2, 3]\nd = {'k': 'v'}\n"
NATIVE_PSS = SMALL_VARS + ("import re\nprint(re.search(r'^Pss:\\s+(\\d+)', open('/proc/self/smaps_rollup').read(),"
                           " re.M).group(1))\n")


def bwrap_cmd():
    """python3.11 in a bubblewrap jail: every namespace new (so no network),
    only /usr visible and read-only, a private /tmp, empty environment."""
    return ['bwrap', '--unshare-all', '--die-with-parent', '--new-session', '--clearenv',
            '--ro-bind', '/usr', '/usr', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64',
            '--symlink', 'usr/bin', '/bin', '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp',
            '--chdir', '/tmp', NATIVE_PY, '-I', '-c']


def node():
    """node, with the flag node < 20 needs for node:wasi."""
    major = int(subprocess.run(['node', '-p', 'process.versions.node.split(".")[0]'],
                               capture_output=True, text=True).stdout.strip() or 0)
    return ['node', '--no-warnings'] + (['--experimental-wasi-unstable-preview1'] if major < 20 else [])


def contenders(wasmbox, python_dir, pyodide_dir):
    """name -> command that takes the Python code as its last argument."""
    n = node()
    return {
        'native': [NATIVE_PY, '-I', '-c'],
        'wasmbox': [wasmbox, 'run', '--timeout', '300', '--memory', '1024', '-c'],
        'bwrap': bwrap_cmd(),
        'node:wasi': n + [os.path.join(HERE, 'peers', 'nodewasi.mjs'), os.path.join(python_dir, 'python.wasm'),
                          os.path.join(python_dir, 'stdlib'), '-c'],
        'pyodide': n + [os.path.join(HERE, 'peers', 'pyodide.mjs'), pyodide_dir, '-c'],
    }


def timed_run(cmd):
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, timeout=600)
    return time.perf_counter() - t, p


def last_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        sys.exit('%s failed:\n%s%s' % (' '.join(cmd), p.stdout, p.stderr))
    return json.loads(p.stdout.strip().splitlines()[-1])


def hello(cmds, wasmbox, jsnative, runs, slow_runs):
    """Whole process print(1) (and console.log('hi') for JavaScript), seconds
    per run. Slow starters (node) get fewer runs: they take part in the first
    `slow_runs` rounds only."""
    runs_of = [(name, cmd + ['print(1)'], b'1') for name, cmd in cmds.items()]
    runs_of += [('jsnative', [jsnative, '-c', "console.log('hi')"], b'hi'),
                ('wasmbox-js', [wasmbox, 'run', '--lang', 'js', '-c', "console.log('hi')"], b'hi')]
    out = {name: [] for name, _, _ in runs_of}
    for r in range(runs):
        for name, cmd, expect in runs_of:
            if name in ('node:wasi', 'pyodide') and r >= slow_runs:
                continue
            dt, p = timed_run(cmd)
            if p.returncode != 0 or p.stdout.strip() != expect:
                sys.exit('%s: hello world gave %d %r %r' % (name, p.returncode, p.stdout, p.stderr[-500:]))
            out[name].append(dt)
    return out


def warm(load, python_dir, pyodide_dir, rounds, calls):
    """Rounds of: the library (bench/load.c: stateless calls at concurrency
    1, 2, 8, then session calls), Pyodide's and node:wasi's long-lived
    interpreters (print(1), then the same session workload)."""
    n = node()
    out = {'library': [], 'pyodide': [], 'node:wasi': []}
    for _ in range(rounds):
        out['library'].append(last_json([load, 'calls', str(calls), '1']))
        out['pyodide'].append(last_json(n + [os.path.join(HERE, 'peers', 'pyodide.mjs'), pyodide_dir,
                                              '--warm', str(calls)]))
        out['node:wasi'].append(last_json(n + [os.path.join(HERE, 'peers', 'nodewasi.mjs'),
                                                os.path.join(python_dir, 'python.wasm'),
                                                os.path.join(python_dir, 'stdlib'), '--warm', str(calls)]))
    return out


def compute(cmds, rounds, repeat):
    """bench.py's compute suite (bench/compute/*.py, same wrapper: time inside
    the interpreter, results must be equal) with every contender in each
    round. Seconds per run, per benchmark and contender."""
    out = {}
    names = list(cmds)
    for f in sorted(os.listdir(os.path.join(HERE, 'compute'))):
        if not f.endswith('.py'):
            continue
        name = f[:-3]
        code = bench.PY_WRAPPER % (open(os.path.join(HERE, 'compute', f)).read(), name, repeat)
        times = bench.interleaved([cmds[k] for k in names], name, code, rounds)
        out[name] = dict(zip(names, times))
        print('  %-16s done' % name, flush=True)
    return out


def imports(cmds, rounds):
    """Seconds of `import X` in a fresh process (or, for wasmbox, a fresh
    call from the base snapshot), or the error when X is not available."""
    out = {m: {k: [] for k in cmds} for m in HEAVY_MODULES}
    errors = {}
    for _ in range(rounds):
        for m in HEAVY_MODULES:
            for name, cmd in cmds.items():
                if (m, name) in errors:
                    continue
                _, p = timed_run(cmd + [IMPORT_CODE % HEAVY_MODULES[m]])
                if p.returncode != 0:
                    lines = p.stderr.decode(errors='replace').strip().splitlines()
                    errors[(m, name)] = next((x for x in reversed(lines) if 'Error' in x), lines[-1] if lines else '?')
                    continue
                out[m][name].append(float(p.stdout.decode().strip().splitlines()[-1]))
    for (m, name), e in errors.items():
        out[m][name] = {'error': e.strip()[:200]}
    # which of them wasmbox's base snapshot has imported already
    check = 'import sys\nprint(" ".join(m for m in %r if m in sys.modules))\n' % list(HEAVY_MODULES.values())
    p = subprocess.run(cmds['wasmbox'] + [check], capture_output=True, text=True, check=True)
    out['wasmbox_preloaded'] = p.stdout.split()
    return out


def memory(load, python_dir, pyodide_dir, repeat):
    """What an idle session keeps, and a stateless call."""
    n = node()
    out = {'wasmbox_10': [], 'wasmbox_1': [], 'pyodide': [], 'node:wasi': [], 'native': []}
    for _ in range(repeat):
        out['wasmbox_10'].append(last_json([load, 'memory', '10']))
        out['wasmbox_1'].append(last_json([load, 'memory', '1']))
        out['pyodide'].append(last_json(n + [os.path.join(HERE, 'peers', 'pyodide.mjs'), pyodide_dir, '--memory']))
        out['node:wasi'].append(last_json(n + [os.path.join(HERE, 'peers', 'nodewasi.mjs'),
                                                os.path.join(python_dir, 'python.wasm'),
                                                os.path.join(python_dir, 'stdlib'), '--memory']))
        p = subprocess.run([NATIVE_PY, '-I', '-c', NATIVE_PSS], capture_output=True, text=True, check=True)
        out['native'].append({'pss_kb': int(p.stdout.strip())})
    return out


def versions(pyodide_dir):
    def out(cmd):
        return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
    pkg = json.load(open(os.path.join(pyodide_dir, 'package.json')))
    return {'native': out([NATIVE_PY, '-V']), 'node': out(['node', '--version']),
            'pyodide': pkg['version'], 'bwrap': out(['bwrap', '--version'])}


def main():
    args = sys.argv[1:]
    wasmbox = os.path.abspath(args[0])

    def opt(name):
        return os.path.abspath(args[args.index(name) + 1])
    load, python_dir, pyodide_dir, jsnative = opt('--load'), opt('--python-dir'), opt('--pyodide'), opt('--jsnative')
    quick, smoke = '--quick' in args, '--smoke' in args
    # rounds are modest so that make bench stays well under 15 minutes on 2 cores
    if smoke:
        hello_runs, slow_runs, warm_rounds, calls, c_rounds, repeat, imp_rounds, mem = 1, 1, 1, 20, 1, 1, 1, 1
    elif quick:
        hello_runs, slow_runs, warm_rounds, calls, c_rounds, repeat, imp_rounds, mem = 10, 2, 2, 200, 2, 2, 2, 1
    else:
        hello_runs, slow_runs, warm_rounds, calls, c_rounds, repeat, imp_rounds, mem = 30, 5, 5, 400, 4, 3, 3, 3
    cmds = contenders(wasmbox, python_dir, pyodide_dir)
    report = {'machine': os.uname().nodename, 'cpus': os.cpu_count(), 'time': time.strftime('%Y-%m-%dT%H:%M:%S'),
              'loadavg_at_start': os.getloadavg(), 'quick': quick, 'versions': versions(pyodide_dir), 'rounds': {
                  'hello_runs': hello_runs, 'hello_runs_node': slow_runs, 'warm_rounds': warm_rounds,
                  'calls_per_round': calls, 'compute_rounds': c_rounds, 'compute_repeat': repeat,
                  'import_rounds': imp_rounds, 'memory_repeat': mem}}
    steps = [('hello', lambda: hello(cmds, wasmbox, jsnative, hello_runs, slow_runs)),
             ('warm', lambda: warm(load, python_dir, pyodide_dir, warm_rounds, calls)),
             ('compute', lambda: compute(cmds, c_rounds, repeat)),
             ('imports', lambda: imports(cmds, imp_rounds)),
             ('memory', lambda: memory(load, python_dir, pyodide_dir, mem))]
    for key, step in steps:
        t = time.perf_counter()
        print('peers: %s ...' % key, flush=True)
        report[key] = step()
        print('peers: %s took %.0f s' % (key, time.perf_counter() - t), flush=True)
    if smoke:
        print('peers: every contender ran every step')
        return
    out = os.path.join(HERE, 'results')
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, 'peers-%s.json' % time.strftime('%Y%m%d-%H%M%S'))
    with open(path, 'w') as fh:
        json.dump(report, fh, indent=1)
    print('written: %s' % os.path.relpath(path))


if __name__ == '__main__':
    main()
