#!/usr/bin/env python3
"""docs.py WASMBOX [PAGE.md...]: the documents checked against the build, so
they cannot drift from the code (README.md and docs/*.md by default).

A fenced block whose info string has the word `test` is run:
  console test  `$ COMMAND` lines run in one bash (in a new directory, with
                `build/wasmbox` and `wasmbox` both this build); the lines
                after a command are its output (stdout and stderr), matched
                whole: `...` inside a line matches any text, a line of
                `...` alone any number of lines.
  python test   run by python3 with the Python client (clients/python) on
                the build's libwasmbox.so.0;
  js test       run by node (20 or later: find_node) as an ES module that imports "wasmbox", the
                TypeScript client (clients/typescript, built by make
                npm-package), with the build's wasmbox on PATH;
  c test        compiled with -Wall -Werror against include/wasmbox.h and the
                build's libwasmbox.so.0, then run.
  For python, js and c a statement followed by a comment (`# X`, `// X`)
  printed a line X (with `...` as above), in the order they appear; an
  `output` block right after the block is all it printed (matched whole).
  mcp test      `-> REQUEST` / `<- RESPONSE` lines sent to `wasmbox mcp`
                (stdio, after initialize); each response holds the shown
                keys with the shown values (`"..."` matches any value).
Every other block is checked without running it: JSON parses (an
`mcpServers` or `servers` entry that starts wasmbox gives it real options; a settings
object names real settings), Python parses. Across the pages: every
`--option` is one of wasmbox's (its commands' --help) or listed below as
another program's; every tool docs/mcp.md's tool tables name is in the
server's tools/list and every tool of tools/list is in them, and every name
shaped like a tool's (`execute_code`, `list_sessions`) anywhere is one; every relative
link resolves to a file, and an #anchor to a heading of it.

--self-test WASMBOX: a page with a wrong example of each kind must fail.
Prints "ok N - what" / "not ok N - what" and a closing count.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Options the pages show of programs other than wasmbox, with whose they are.
FOREIGN_OPTIONS = {
    "--cflags": "pkg-config", "--libs": "pkg-config", "--static": "pkg-config",
    "--only-binary": "pip download", "--platform": "pip download", "--implementation": "pip download",
    "--python-version": "pip download", "--transport": "claude mcp add", "--header": "claude mcp add",
    "--requirements": "the MCP conformance suite", "--translate-to-fuzz": "binaryen's wasm-opt",
    "--now": "systemctl enable", "--self-test": "tests/docs.py", "--merge-data": "tools/wasm_fuel",
}


# Names shaped like an MCP tool's (verb_noun, `execute_code`) that the pages use
# for other things: result fields, settings, code mode's Python builtins, an
# upstream server's tool.
NOT_TOOLS = {"allowed_tools", "discover_mcp_tools", "exit_code", "mcp_session", "no_files", "read_text_file"}
TOOL_SHAPED = r"`([a-z]+(?:_[a-z]+)*_(?:sessions?|files?|code|runtimes|metrics|package|workspace|tools|execution))\b"


def help_options(wasmbox):
    """Every --option wasmbox's commands take, by command ('' for all)."""
    by = {}
    for cmd in ("run", "session", "mcp", "serve", "doctor"):
        out = subprocess.run([wasmbox, cmd, "--help"], capture_output=True, text=True)
        by[cmd] = set(re.findall(r"--[a-z][a-z0-9-]*", out.stdout + out.stderr))
    by[""] = set().union(*by.values())
    return by


def blocks(text):
    """(info words, body, line) of each fenced block of a Markdown text."""
    out = []
    for m in re.finditer(r"^```([^\n`]*)\n(.*?)^```$", text, re.M | re.S):
        out.append((m.group(1).split(), m.group(2), text.count("\n", 0, m.start()) + 1))
    return out


def pattern(lines):
    """A regular expression for expected output lines ('...' as wildcards)."""
    parts = []
    for line in lines:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*".join(re.escape(p) for p in line.rstrip().split("...")) + r"[ \t]*\n")
    return re.compile("".join(parts))


def matches(expected_lines, actual):
    actual = "\n".join(l.rstrip() for l in actual.rstrip("\n").split("\n")) + "\n" if actual else ""
    return pattern(expected_lines).fullmatch(actual) is not None


def env_for(ctx, tmp):
    env = dict(os.environ)
    env.update(WASMBOX_HOME=os.path.join(tmp, ".home"), HOME=tmp,
               PATH=ctx["bindir"] + ":" + env.get("PATH", ""),
               WASMBOX_LIBRARY=os.path.join(ctx["build"], "libwasmbox.so.0"),
               PYTHONPATH=os.path.join(REPO, "clients", "python", "src"))
    env.pop("WASMBOX_BIN", None)
    return env


def run_console(body, ctx, tmp):
    cmds = []  # [command, [expected lines]]
    for line in body.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            cmds.append([line[2:], []])
        elif cmds:
            cmds[-1][1].append(line)
        else:
            return "output before the first command: %r" % line
    os.symlink(ctx["build"], os.path.join(tmp, "build"))
    script = "exec 2>&1\n" + "".join("echo '@@wasmbox-docs %d'\n%s\n" % (i, c) for i, (c, _) in enumerate(cmds))
    out = subprocess.run(["bash", "-c", script], cwd=tmp, env=env_for(ctx, tmp), capture_output=True,
                         text=True, timeout=120).stdout
    got = re.split(r"^@@wasmbox-docs \d+\n", out, flags=re.M)[1:]
    for (cmd, want), have in zip(cmds, got + [""] * (len(cmds) - len(got))):
        if not matches(want, have):
            return "$ %s\n  printed: %r\n  the page shows: %r" % (cmd, have[-600:], "\n".join(want)[-600:])
    return None


def expectations(body, comment):
    """What the statements of a block say they print (their trailing comments)."""
    if comment == "#":
        rx = r"^\s*print\(.*\)\s+# (.*)$"
    else:
        rx = r"^\s*(?:console\.log|printf|puts)\(.*\);\s+// (.*)$"
    return re.findall(rx, body, re.M)


def printed_in_order(wants, out):
    lines = out.split("\n")
    i = 0
    for w in wants:
        rx = pattern([w])
        while i < len(lines) and not rx.fullmatch(lines[i].rstrip() + "\n"):
            i += 1
        if i == len(lines):
            return "%r was not printed (in order); output: %r" % (w, out[-600:])
        i += 1
    return None


def node_major(node):
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout
    except OSError:
        return 0
    m = re.match(r"v(\d+)\.", out)
    return int(m.group(1)) if m else 0


def find_node(ctx):
    """A node the TypeScript client runs on (20 or later): make test-mcp's,
    the system's, or (Debian 12's is 18) the one tests/mcp pins, installed
    from npm into the build directory once. Returns (node, problem)."""
    pinned = os.path.join(ctx["build"], "docs-node", "node_modules", "node", "bin", "node")
    found = [os.path.join(REPO, "tests", "mcp", "node_modules", "node", "bin", "node"), shutil.which("node"), pinned]
    for node in found:
        if node and node_major(node) >= 20:
            return node, None
    with open(os.path.join(REPO, "tests", "mcp", "package.json")) as f:
        pkg = json.load(f)
    version = {**pkg.get("dependencies", {}), **pkg.get("devDependencies", {})}["node"]
    r = subprocess.run(["npm", "install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error", "--prefix",
                        os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(pinned)))), "node@" + version],
                       capture_output=True, text=True)
    if node_major(pinned) >= 20:
        return pinned, None
    return None, "the TypeScript client needs node 20 or later, and npm could not install node %s: %s" % (
        version, (r.stdout + r.stderr)[-600:])


def run_program(lang, body, ctx, tmp, output=None):
    env = env_for(ctx, tmp)
    if lang == "python":
        cmd = [sys.executable, "-c", body]
    elif lang == "js":
        ts = os.path.join(REPO, "clients", "typescript")
        if not os.path.isdir(os.path.join(ts, "dist")):
            return "the TypeScript client is not built (make npm-package)"
        node, problem = find_node(ctx)
        if problem:
            return problem
        os.makedirs(os.path.join(tmp, "node_modules"))
        os.symlink(ts, os.path.join(tmp, "node_modules", "wasmbox"))
        with open(os.path.join(tmp, "main.mjs"), "w") as f:
            f.write(body)
        cmd = [node, "main.mjs"]
    else:
        with open(os.path.join(tmp, "prog.c"), "w") as f:
            f.write(body)
        lib = os.path.join(ctx["build"], "libwasmbox.so.0")
        cc = subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I" + os.path.join(REPO, "include"),
                             "prog.c", lib, "-Wl,-rpath," + ctx["build"], "-o", "prog"],
                            cwd=tmp, capture_output=True, text=True)
        if cc.returncode:
            return "does not compile: " + cc.stderr[-800:]
        cmd = ["./prog"]
    try:
        r = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "did not finish within 120 s"
    if r.returncode:
        return "exit %d: %r" % (r.returncode, (r.stdout + r.stderr)[-800:])
    wants = expectations(body, "#" if lang == "python" else "//")
    if output is not None and not matches(output.rstrip("\n").split("\n"), r.stdout):
        return "printed %r\n  the output block shows %r" % (r.stdout[-600:], output[-600:])
    if not wants and output is None:
        return "the block shows no output to check"
    return printed_in_order(wants, r.stdout)


def subset(want, have):
    if want == "...":
        return True
    if isinstance(want, str) and isinstance(have, str) and "..." in want:
        return matches([want], have)
    if isinstance(want, dict):
        return isinstance(have, dict) and all(k in have and subset(v, have[k]) for k, v in want.items())
    if isinstance(want, list):
        return isinstance(have, list) and len(want) == len(have) and all(map(subset, want, have))
    return want == have


class Mcp:
    """wasmbox mcp over stdio, initialized."""

    def __init__(self, ctx, tmp, args=()):
        self.p = subprocess.Popen([ctx["wasmbox"], "mcp", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, env=env_for(ctx, tmp), cwd=tmp)
        self.call({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                   "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "docs.py", "version": "1"}}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def call(self, msg):
        self.send(msg)
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("wasmbox mcp ended")
            reply = json.loads(line)
            if reply.get("id") == msg.get("id"):
                return reply

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def run_mcp(body, ctx, tmp):
    mcp = Mcp(ctx, tmp)
    try:
        pending = None
        for line in body.rstrip("\n").split("\n"):
            if line.startswith("-> "):
                msg = json.loads(line[3:])
                pending = mcp.call(msg) if "id" in msg else mcp.send(msg)
            elif line.startswith("<- "):
                want = json.loads(line[3:])
                if pending is None or not subset(want, pending):
                    return "answered %s\n  the page shows %s" % (json.dumps(pending)[:800], line[3:][:800])
            elif line.strip():
                return "a line that is neither -> nor <-: %r" % line
        return None
    finally:
        mcp.close()


def check_static_block(lang, body, ctx):
    if lang == "json":
        try:
            doc = json.loads(body)
        except ValueError as e:
            return "not JSON: %s" % e
        if "mcpServers" in doc or "servers" in doc:  # (VS Code's is "servers")
            for name, srv in doc.get("mcpServers", doc.get("servers")).items():
                if "wasmbox" in srv.get("command", ""):
                    args = srv.get("args", [])
                    if not args or args[0] not in ("mcp", "serve"):
                        return "%s does not start wasmbox mcp or serve: %s" % (name, args)
                    bad = [a for a in args if a.startswith("--") and a not in ctx["options"][args[0]]]
                    if bad:
                        return "%s: wasmbox %s has no %s" % (name, args[0], ", ".join(bad))
        elif not {"jsonrpc"} & set(doc):
            bad = ["--" + k for k in doc if "--" + k not in ctx["options"]["mcp"]]
            if bad:
                return "settings wasmbox mcp does not have: " + ", ".join(bad)
    if lang == "python":
        try:
            compile(body, "<block>", "exec")
        except SyntaxError as e:
            return "not Python: %s" % e
    return None


def slug(heading):
    """GitHub's anchor for a heading."""
    h = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", h).replace(" ", "-")


def anchors(path):
    text = re.sub(r"^```.*?^```$", "", open(path).read(), flags=re.M | re.S)
    return {slug(h) for h in re.findall(r"^#+ (.*)$", text, re.M)}


def mcp_tools(ctx, tmp):
    """The tools of tools/list, code mode's included (an upstream configured)."""
    if "tools" in ctx:
        return ctx["tools"]
    up = os.path.join(tmp, "upstream.json")
    with open(up, "w") as f:
        json.dump({"mcpServers": {"none": {"command": "/bin/false", "allowed_tools": ["*"]}}}, f)
    mcp = Mcp(ctx, tmp, ["--upstream", up])
    try:
        r = mcp.call({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        ctx["tools"] = {t["name"] for t in r["result"]["tools"]}
        return ctx["tools"]
    finally:
        mcp.close()


def documented_tools(path):
    """Tool names in the rows of a page's tables whose first header is 'tool'."""
    names, in_table = set(), False
    for line in open(path):
        if re.match(r"^\|\s*tool\s*\|", line):
            in_table = True
        elif not line.startswith("|"):
            in_table = False
        elif in_table and not line.startswith("| ---"):
            cell = line.replace("\\|", " ").split("|")[1]
            cell = re.sub(r"\([^`]*?\)", "()", cell)  # the argument lists
            names |= set(re.findall(r"`([a-z][a-z_]*)(?:\(\))?`", cell))
    return names


class Report:
    def __init__(self):
        self.n = self.failed = 0

    def check(self, what, problem):
        self.n += 1
        if problem:
            self.failed += 1
            print("not ok %d - %s\n    %s" % (self.n, what, problem.replace("\n", "\n    ")))
        else:
            print("ok %d - %s" % (self.n, what))


def check_pages(pages, ctx, report):
    work = tempfile.mkdtemp(prefix="wasmbox-docs-")
    try:
        for page in pages:
            rel = os.path.relpath(page, REPO)
            text = open(page).read()
            found = blocks(text)
            for i, (info, body, line) in enumerate(found):
                lang = info[0] if info else ""
                output = found[i + 1][1] if i + 1 < len(found) and found[i + 1][0] == ["output"] else None
                what = "%s:%d %s block" % (rel, line, " ".join(info) or "plain")
                if "test" in info:
                    tmp = os.path.join(work, "%s-%d" % (rel.replace("/", "_"), i))
                    os.makedirs(tmp)
                    try:
                        if lang == "console":
                            problem = run_console(body, ctx, tmp)
                        elif lang in ("python", "js", "c"):
                            problem = run_program(lang, body, ctx, tmp, output)
                        elif lang == "mcp":
                            problem = run_mcp(body, ctx, tmp)
                        else:
                            problem = "no way to run a %r block" % lang
                    except Exception as e:  # a crash of the example is its failure
                        problem = "%s: %s" % (type(e).__name__, e)
                    report.check(what + " runs as shown", problem)
                else:
                    problem = check_static_block(lang, body, ctx)
                    if problem:
                        report.check(what + " is valid", problem)
            # the options a page names
            unknown = sorted({o for o in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text)
                              if o not in ctx["options"][""] and o not in FOREIGN_OPTIONS and o != "--help"})
            report.check("%s names only options that exist" % rel, unknown and "unknown: " + ", ".join(unknown))
            # its relative links
            bad = []
            for target in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"^```.*?^```$", "", text, flags=re.M | re.S)):
                if re.match(r"[a-z]+:", target):
                    continue
                file, _, anchor = target.partition("#")
                path = os.path.normpath(os.path.join(os.path.dirname(page), file)) if file else page
                if not os.path.exists(path):
                    bad.append(target + " (no such file)")
                elif anchor and path.endswith(".md") and anchor not in anchors(path):
                    bad.append(target + " (no such heading)")
            report.check("%s links resolve" % rel, bad and ", ".join(bad))
            named = set(re.findall(TOOL_SHAPED, text)) - NOT_TOOLS
            if named:
                unknown = sorted(named - mcp_tools(ctx, work))
                report.check("%s names only tools the server has" % rel, unknown and "unknown: " + ", ".join(unknown))
            if os.path.basename(page) == "mcp.md":
                have, shown = mcp_tools(ctx, work), documented_tools(page)
                report.check("%s: its tool tables name the server's tools, all of them" % rel,
                             (shown != have) and "only in the page: %s; only in tools/list: %s"
                             % (sorted(shown - have), sorted(have - shown)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def context(wasmbox):
    wasmbox = os.path.abspath(wasmbox)
    build = os.path.dirname(wasmbox)
    bindir = tempfile.mkdtemp(prefix="wasmbox-docs-bin-")
    os.symlink(wasmbox, os.path.join(bindir, "wasmbox"))
    return {"wasmbox": wasmbox, "build": build, "bindir": bindir, "options": help_options(wasmbox)}


# Each a page with one wrong block or reference, which the check must catch.
BROKEN = {
    "console output": "```console test\n$ wasmbox run -c 'print(6*7)'\n43\n```\n",
    "console silence": "```console test\n$ wasmbox run -c 'print(1)'\n```\n",
    "python output": "```python test\nfrom wasmbox import Sandbox\nwith Sandbox() as sb:\n"
                     "    print(sb.run('print(6*7)').stdout)  # 41\n```\n",
    "c output": "```c test\n#include <stdio.h>\n#include <wasmbox.h>\nint main(void) {\n"
                "  printf(\"%s\\n\", wasmbox_version()); // 9.9.9\n  return 0;\n}\n```\n",
    "c that does not compile": "```c test\n#include <wasmbox.h>\nint main(void) { return wasmbox_nothing(); }"
                               " // 1\n```\n",
    "js output": "```js test\nconsole.log(6 * 7); // 41\n```\n",
    "output block": "```python test\nprint(1)\nprint(2)\n```\n\n```output\n1\n3\n```\n",
    "mcp answer": '```mcp test\n-> {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": '
                  '"execute_code", "arguments": {"code": "print(1)"}}}\n<- {"result": {"structuredContent": '
                  '{"stdout": "2\\n"}}}\n```\n',
    "option": "Run it with `wasmbox run --timeuot 3`.\n",
    "settings": '```json\n{"timeuot": 3}\n```\n',
    "client configuration": '```json\n{"mcpServers": {"w": {"command": "/x/wasmbox", "args": ["mcp", "--fule", '
                            '"9"]}}}\n```\n',
    "JSON": '```json\n{"timeout": 3,}\n```\n',
    "link": "See [the model](security.md#no-such-heading) and [this](nowhere.md).\n",
    "tool": None,  # every tool of tools/list, and one more (self_test)
    "tool name": "Call `list_session` to see them.\n",
}


# The same kinds of block, right: the check must pass them.
GOOD = """# Right

```console test
$ wasmbox run -c 'print(6*7)'
42
$ wasmbox run --timeout 1 -c 'while True: pass'; echo "exit $?"
wasmbox: timeout: ...
...
exit 3
```

```python test
from wasmbox import Sandbox
with Sandbox() as sb:
    print(sb.run('print(6*7)').stdout, end="")  # 42
```

```c test
#include <stdio.h>
#include <wasmbox.h>
int main(void) {
  printf("%s\\n", wasmbox_version()); // 0...
  return 0;
}
```

```js test
console.log(6 * 7); // 42
```

```python test
print(1)
print("a", 2)
```

```output
1
a ...
```

```mcp test
-> {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "execute_code", "arguments": {"code": "print(1)"}}}
<- {"result": {"structuredContent": {"stdout": "1\\n", "duration_ms": "..."}}}
```

```json
{"timeout": 3, "mcpServers": {"w": {"command": "/x/wasmbox", "args": ["mcp", "--fuel", "9"]}}}
```

Run it with `wasmbox run --timeout 3`; see [the model](security.md#security).
"""


def self_test(ctx):
    report = Report()
    tmp = tempfile.mkdtemp(prefix="wasmbox-docs-self-")
    try:
        open(os.path.join(tmp, "security.md"), "w").write("# Security\n")
        for what, page in BROKEN.items():
            path = os.path.join(tmp, "page.md")
            if page is None:
                path = os.path.join(tmp, "mcp.md")  # (whose tool tables are checked)
                page = "| tool | what |\n| --- | --- |\n| %s, `run_code(code)` | runs |\n" % ", ".join(
                    "`%s()`" % t for t in sorted(mcp_tools(ctx, tmp)))
            open(path, "w").write("# Broken\n\n" + page)
            out = subprocess.run([sys.executable, os.path.abspath(__file__), ctx["wasmbox"], path],
                                 capture_output=True, text=True, timeout=300)
            caught = out.returncode != 0 and "\nnot ok " in "\n" + out.stdout
            report.check("the check fails on a wrong %s" % what, not caught and out.stdout[-800:])
        path = os.path.join(tmp, "page.md")
        open(path, "w").write(GOOD)
        out = subprocess.run([sys.executable, os.path.abspath(__file__), ctx["wasmbox"], path],
                             capture_output=True, text=True, timeout=300)
        report.check("the check passes the same blocks right", out.returncode and out.stdout[-1500:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report


def main():
    args = sys.argv[1:]
    if args[:1] == ["--self-test"]:
        ctx = context(args[1])
        report = self_test(ctx)
    else:
        ctx = context(args[0])
        pages = args[1:] or [os.path.join(REPO, "README.md")] + sorted(
            os.path.join(REPO, "docs", p) for p in os.listdir(os.path.join(REPO, "docs")) if p.endswith(".md"))
        report = Report()
        check_pages(pages, ctx, report)
    shutil.rmtree(ctx["bindir"], ignore_errors=True)
    print("%d passed, %d failed" % (report.n - report.failed, report.failed))
    sys.exit(1 if report.failed else 0)


if __name__ == "__main__":
    main()
