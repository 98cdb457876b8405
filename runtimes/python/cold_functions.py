#!/usr/bin/env python3
"""cold_functions.py LINK_MAP FUNCTIONS COLD_PREFIX...: which functions of
python.wasm the profile-guided native build leaves out of its training.

The training (train.sh) runs CPython's own PGO set: the interpreter,
its objects and the stdlib's C modules. The data stack (numpy, Pillow,
matplotlib, FreeType, libc++) and the C libraries behind stdlib modules the
training does not import (SQLite, zlib, bz2, xz) are about two thirds of
the module's code, and their profile was all zeros: -fprofile-partial-training
compiles such code as without a profile, so instrumenting it only made the
first of the two compiles longer. runtimes/native.sh compiles the functions
listed here once, without a profile.

LINK_MAP is wasm-ld's -Map output: each function of the link with the input
it came from (CPython's own objects are ThinLTO bitcode, so they show as
LTO's output objects, under no COLD_PREFIX). FUNCTIONS is `wasm-objdump -x -j Function` of the module after
wasm-opt -g (which keeps the names and changes no code): the functions in
code-section order with their names (C++'s demangled). A function is cold when every input
that defines its name is under one of the COLD_PREFIXes; a name wasm-opt
made, or one a hot input defines too, stays hot (a missed cold function
costs compile time, a wrong one speed).

Prints the cold functions' positions in the code section (0 is the first
body), one per line, which is the order wasm2c writes the bodies in.
"""
import re
import subprocess
import sys

SECTION_LINE = re.compile(r'^\s+-\s+[0-9a-f]+\s+[0-9a-f]+ ([A-Z]+)$')
MAP_LINE = re.compile(r'^\s+-\s+[0-9a-f]+\s+[0-9a-f]+\s+(.*):\((.*)\)$')
FUNC_LINE = re.compile(r'^ - func\[(\d+)\] sig=\d+ <(.*)>$')


def origins(map_path):
    """symbol name -> the inputs defining a function of that name; C++
    names both as the map has them and demangled, as the name section has
    them (wasm-ld demangles there, with LLVM's demangler, as llvm-cxxfilt)"""
    found, in_code = {}, False
    with open(map_path) as f:
        for line in f:
            section = SECTION_LINE.match(line)
            if section:
                in_code = section.group(1) == 'CODE'
                continue
            m = MAP_LINE.match(line) if in_code else None
            if m:
                found.setdefault(m.group(2), set()).add(m.group(1))
    mangled = [name for name in found if name.startswith('_Z')]
    out = subprocess.run(['llvm-cxxfilt-19'], input='\n'.join(mangled) + '\n', capture_output=True,
                         text=True, check=True).stdout.split('\n')
    for name, plain in zip(mangled, out):
        if plain != name:
            found.setdefault(plain, set()).update(found[name])
    return found


def main():
    if len(sys.argv) < 4:
        sys.exit('usage: cold_functions.py LINK_MAP FUNCTIONS COLD_PREFIX...')
    where = origins(sys.argv[1])
    if not where:
        sys.exit('cold_functions.py: no CODE section entries in ' + sys.argv[1])
    prefixes = tuple(sys.argv[3:])
    first, cold, total = None, [], 0
    with open(sys.argv[2]) as f:
        for line in f:
            m = FUNC_LINE.match(line.rstrip('\n'))
            if not m:
                continue
            index, name = int(m.group(1)), m.group(2)
            if first is None:
                first = index
            if index != first + total:
                sys.exit(f'cold_functions.py: func[{index}] out of order in {sys.argv[2]}')
            total += 1
            inputs = where.get(name)
            if inputs and all(i.startswith(prefixes) for i in inputs):
                cold.append(index - first)
    if total == 0:
        sys.exit('cold_functions.py: no functions in ' + sys.argv[2])
    print('\n'.join(map(str, cold)))
    print(f'cold_functions.py: {len(cold)} of {total} functions cold', file=sys.stderr)


if __name__ == '__main__':
    main()
