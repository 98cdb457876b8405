#!/usr/bin/env python3
"""Split one wasm2c (wabt 1.0.32) output file into files that compile in parallel.

usage: w2c_split.py MODULE.c OUTDIR CHUNK_BYTES

wasm2c writes a single .c: a prelude (macros, static inline helpers), the
function-type table, forward declarations of every function (static), data and
element segments with the init functions, the function bodies, and finally the
exports and instantiate/free. We write:
  OUTDIR/common.h    prelude + `extern` type table + non-static declarations
  OUTDIR/init.c      type table, segments, init code, exports
  OUTDIR/funcs_N.c   function bodies, about CHUNK_BYTES each
Functions lose `static` so the files can call each other; the build links them
with `ld -r` and keeps only the module's API symbols global, so nothing leaks
between modules. The split is purely textual and checked: every function body
must land in exactly one file.
"""
import os
import re
import sys

BODY = re.compile(r'^static (?:u32|u64|f32|f64|void) (w2c_\w+)\(Z_\w+_instance_t\* instance\b')
DECL = re.compile(r'^static ((?:u32|u64|f32|f64|void) w2c_\w+\(.*\);)$')


def main():
    src, outdir, chunk = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(src) as f:
        lines = f.read().split('\n')

    def find(pred, start=0, what=''):
        for i in range(start, len(lines)):
            if pred(lines[i]):
                return i
        sys.exit(f'w2c_split: cannot find {what} in {src} (is this wabt 1.0.32 output?)')

    inited = find(lambda l: l == 'static bool s_module_initialized = false;', 0, 's_module_initialized')
    types = find(lambda l: l.startswith('static u32 func_types['), inited, 'func_types')
    decl_start = find(lambda l: DECL.match(l) is not None, types, 'declarations')
    decl_end = decl_start
    while DECL.match(lines[decl_end]):
        decl_end += 1
    first_body = find(lambda l: BODY.match(l) is not None, decl_end, 'first function body')
    exports = find(lambda l: l.startswith('/* export: '), first_body, 'exports')

    header_name = os.path.basename(src)[:-2] + '.h'
    prelude = [l.replace(f'#include "{header_name}"', f'#include "../{header_name}"')
               for l in lines[:inited]]
    types_decl = lines[types].replace('static ', 'extern ', 1)
    decls = [DECL.match(l).group(1) for l in lines[decl_start:decl_end]]

    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, 'common.h'), 'w') as f:
        f.write('\n'.join(prelude) + '\n' + types_decl + '\n' + '\n'.join(decls) + '\n')

    with open(os.path.join(outdir, 'init.c'), 'w') as f:
        f.write('#include "common.h"\n')
        f.write('\n'.join(lines[inited:types]) + '\n')
        f.write(lines[types].replace('static ', '', 1) + '\n')
        f.write('\n'.join(lines[types + 1:decl_start]) + '\n')
        f.write('\n'.join(lines[decl_end:first_body]) + '\n')
        f.write('\n'.join(lines[exports:]) + '\n')

    # Function bodies: each runs from its header to the line before the next.
    starts = [i for i in range(first_body, exports) if BODY.match(lines[i])]
    starts.append(exports)
    files, current, size, bodies = [], [], 0, 0
    for a, b in zip(starts, starts[1:]):
        text = '\n'.join(lines[a:b]) + '\n'
        current.append(text[len('static '):])
        size += len(text)
        bodies += 1
        if size >= chunk:
            files.append(current)
            current, size = [], 0
    if current:
        files.append(current)
    for n, parts in enumerate(files):
        with open(os.path.join(outdir, f'funcs_{n:03d}.c'), 'w') as f:
            f.write('#include "common.h"\n\n' + ''.join(parts))
    if bodies != len(decls):
        sys.exit(f'w2c_split: {bodies} bodies for {len(decls)} declarations')
    print(f'{len(files)} function files, {bodies} functions')


if __name__ == '__main__':
    main()
