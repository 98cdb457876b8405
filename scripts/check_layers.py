#!/usr/bin/env python3
"""The layer map of ARCHITECTURE.md, checked on every #include "..." in src/.

    util <- wasm_rt <- wasi <- engine <- {session, jail, bindings} <- api <- {cli, mcp}

A folder may include its own headers and those of lower layers, never a
higher layer or a sibling. cli and mcp, the library's clients, include only
include/wasmbox.h, util/ and (cli) mcp/transport.h, the MCP server's entry.
And no file circles: between modules (a .c and its .h are one module; a
header without a .c, such as wasi/internal.h, stands for what it includes)
the include graph has no cycle. And one meaning per name: no two folders of
src/ hold a file of the same base name (api/tools.c beside mcp/tools.c made
a reader open both to know which was meant). Exits 1 after printing every
violation.

    check_layers.py [ROOT]    ROOT: the tree to check (default: this repository)"""
import glob
import os
import re
import sys

RANK = {"util": 0, "wasm_rt": 1, "wasi": 2, "engine": 3, "session": 4, "jail": 4, "bindings": 4,
        "api": 5, "cli": 6, "mcp": 6}
CLIENTS = {"cli", "mcp"}
CLIENT_MAY = {"cli": {"mcp/transport.h"}, "mcp": set()}

os.chdir(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
problems = []

folders_of = {}  # base name without its ending -> folders of src/ holding one
for path in sorted(glob.glob("src/*/*.[ch]") + glob.glob("src/*/*.cc")):
    folder, name = path.split("/")[1:]
    folders_of.setdefault(name.split(".")[0], set()).add(folder)
for name, folders in sorted(folders_of.items()):
    if len(folders) > 1:
        problems.append(f"{name}: a file of this name in " + ", ".join(f"src/{f}/" for f in sorted(folders)) +
                        ": one name, one meaning (rename one to say what it is)")

includes = {}  # file (relative to src) -> headers it includes (relative to src)
for path in sorted(glob.glob("src/*/*.[ch]")):
    f = path[len("src/"):]
    includes[f] = [m for m in re.findall(r'^#include "([^"]+)"', open(path).read(), re.M) if "/" in m]

for f, incs in includes.items():
    folder = f.split("/")[0]
    if folder not in RANK:
        problems.append(f"src/{f}: folder src/{folder} is not on the layer map (scripts/check_layers.py, ARCHITECTURE.md)")
        continue
    for inc in incs:
        to = inc.split("/")[0]
        if inc not in includes:
            problems.append(f'src/{f} includes "{inc}", which is not in src/')
        elif to == folder:
            continue
        elif folder in CLIENTS:
            if to != "util" and inc not in CLIENT_MAY[folder]:
                problems.append(f'src/{f} includes "{inc}": src/{folder} is a client of the library and uses only '
                                f"wasmbox.h and util/")
        elif to not in RANK or RANK[to] >= RANK[folder]:
            problems.append(f'src/{f} includes "{inc}": src/{to} is not below src/{folder}')

# modules: foo.c and foo.h are one; a header without a .c is replaced by what it includes
def module(f):
    return f.rsplit(".", 1)[0]
has_c = {module(f) for f in includes if f.endswith(".c")}
def targets(inc, seen=()):
    m = module(inc)
    if m in has_c or inc not in includes:
        return {m}
    out = set()
    for sub in includes[inc]:
        if sub not in seen:
            out |= targets(sub, seen + (inc,))
    return out
graph = {}
for f, incs in includes.items():
    if module(f) not in has_c:
        continue
    for inc in incs:
        graph.setdefault(module(f), set()).update(t for t in targets(inc) if t != module(f))

state = {}
def visit(m, stack):
    state[m] = "open"
    for n in sorted(graph.get(m, ())):
        if state.get(n) == "open":
            problems.append("modules include each other in a circle: " + " -> ".join(stack[stack.index(n):] + [n]))
        elif n not in state:
            visit(n, stack + [n])
    state[m] = "done"
for m in sorted(graph):
    if m not in state:
        visit(m, [m])

for p in problems:
    print("check-layers: " + p)
if problems:
    sys.exit(1)
print(f"check-layers: ok ({sum(len(v) for v in includes.values())} includes, {len(has_c)} modules, "
      f"{len(RANK)} folders, {len(folders_of)} names)")
