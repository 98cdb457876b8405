#!/usr/bin/env python3
"""fpcast.py COMPILES: make a C extension's function pointer casts safe on
WebAssembly, in place, before it is compiled (numpy.sh).

C code written for x86 and ARM often casts a function to a function
pointer type with other parameters: a getter `PyObject *f(PyObject *self)`
stored as `getter` (which takes two), a METH_NOARGS method with one. There
the extra argument is ignored; in WebAssembly `call_indirect` checks the
callee's exact type and traps ("null function or function signature
mismatch"). numpy 1.19 has some 250 such casts.

For each source in COMPILES (one compiler command a line, as numpy.sh runs
them), clang reports every cast between function types
(-Wcast-function-type-strict). A cast is harmless when both types lower to
the same WebAssembly signature (pointers, int and long are all i32); a
cast of a function to a generic `void (*)(void)` is one the code casts
back before calling; a cast to PyCFunction of a function taking two or
more parameters is how CPython's METH_KEYWORDS/METH_FASTCALL methods are
declared. Every other cast of a named function is rewritten to name a
wrapper with exactly the target type, which calls the function with the
arguments it takes:

    (getter)array_ndim_get
 -> (getter)wb_fpcast_3   where
    static PyObject *wb_fpcast_3(PyObject *a0, void *a1)
    { return (PyObject *)array_ndim_get((PyArrayObject *)a0); }

The same goes for a method table entry whose function has other
parameters than its flags make CPython pass (a METH_KEYWORDS method
declared with two): there is no cast for clang to see.

The wrapper goes just before the top-level declaration holding the cast.
A cast of a function pointer variable is left alone (the code calls it
with the type it was made for) and listed. So is a cast back from the
generic `void (*)(void)` (Cython's `(T)(void(*)(void))def->ml_meth`),
except where the same line made the generic pointer from a named function
(`(PyCFunction)(void (*)(void))f`): that pair is judged as one cast, from
f's type to the last. The check runs again
afterwards: any other cast that would trap fails the build with its place.
"""
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

WARNING = re.compile(r"^(.+?):(\d+):(\d+): warning: cast from '(.*?)'(?: \(aka '(.*?)'\))? to '(.*?)'"
                     r"(?: \(aka '(.*?)'\))? converts to incompatible function type")


def split_function_type(t):
    """'R (*)(A, B)' -> ('R', ['A', 'B'])"""
    m = re.match(r'^(.*?)\s*\(\*\)\((.*)\)$', t)
    if not m:
        return None
    params, depth, cur = [], 0, ''
    for ch in m.group(2):
        depth += ch == '('
        depth -= ch == ')'
        if ch == ',' and depth == 0:
            params.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        params.append(cur.strip())
    if params == ['void']:
        params = []
    return m.group(1).strip(), params


def wasm_type(t):
    """What a C type becomes in a WebAssembly signature on wasm32."""
    t = t.strip()
    if t == 'void':
        return ''
    if '*' in t or '(' in t or '[' in t:
        return 'i32'
    if 'long double' in t:
        return 'i64 i64'
    if 'double' in t:
        return 'f64'
    if 'float' in t and not t.startswith('npy_c'):
        return 'f32'
    if 'long long' in t or re.search(r'int64|npy_datetime|npy_timedelta', t):
        return 'i64'
    return 'i32'  # int, long, short, char, enums; structs by value go by pointer


def signature(fn):
    ret, params = fn
    return wasm_type(ret), tuple(wasm_type(p) for p in params)


def check_command(cmd):
    """The compile command as a syntax-only run reporting function casts."""
    args = shlex.split(cmd)
    i = args.index('-c')
    src = args[i + 1]
    out = [a for a in args[:i] if a != '-w'] + ['-fsyntax-only', '-Wno-everything',
                                               '-Wcast-function-type-strict', src]
    return src, out


def casts(commands, jobs):
    """Every cast clang reports, as (file, line, col, from, to); each place once."""
    def run(cmd):
        src, args = check_command(cmd)
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit('fpcast: %s does not compile:\n%s' % (src, p.stderr[-3000:]))
        return p.stderr
    seen, found = set(), []
    with ThreadPoolExecutor(jobs) as pool:
        for err in pool.map(run, commands):
            for line in err.splitlines():
                m = WARNING.match(line)
                if not m:
                    continue
                f, ln, col = os.path.realpath(m.group(1)), int(m.group(2)), int(m.group(3))
                if (f, ln, col) in seen:
                    continue
                seen.add((f, ln, col))
                found.append((f, ln, col, m.group(5) or m.group(4), m.group(7) or m.group(6)))
    return found


def traps(frm, to):
    """Would a call through the cast type trap?"""
    a, b = split_function_type(frm), split_function_type(to)
    if a is None or b is None:
        return True
    if to in GENERIC:
        return False  # stored generically, cast back to its type to be called
    if signature(a) == signature(b):
        return False
    if re.search(r'(struct )?_object \*\(\*\)\((struct )?_object \*, (struct )?_object \*\)$', to) and len(a[1]) >= 2:
        return False  # PyCFunction: METH_KEYWORDS / METH_FASTCALL functions take 3 or 4
    return True


def top_level_starts(text):
    """Offsets where a top-level declaration may begin: after each top-level
    ';' or '}' and after each top-level preprocessor line (comments and
    literals skipped)."""
    starts, depth, i, n, line_start = [0], 0, 0, len(text), True
    while i < n:
        c = text[i]
        if line_start and c == '#':
            while i < n and (text[i] != '\n' or text[i - 1] == '\\'):
                i += 1
            if depth == 0:  # not an #ifdef inside a table or a body
                starts.append(i + 1)
            continue
        if c == '\n':
            line_start = True
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith('//', i):
            i = text.find('\n', i)
            i = n if i < 0 else i
            continue
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            i = n if j < 0 else j + 2
            continue
        if c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            i = j + 1
            continue
        if c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                starts.append(i + 1)
        elif c == ';' and depth == 0:
            starts.append(i + 1)
        i += 1
    return starts


def wrapper(name, target, frm, to):
    (tret, tparams), (fret, fparams) = split_function_type(to), split_function_type(frm)
    if len(fparams) > len(tparams):
        return None  # the function needs arguments the caller does not pass
    params = ', '.join('%s a%d' % (p, k) for k, p in enumerate(tparams)) or 'void'
    call = '%s(%s)' % (target, ', '.join('(%s)a%d' % (p, k) for k, p in enumerate(fparams)))
    if tret == 'void':
        body = '%s;' % call
    elif fret == 'void':
        body = '%s; return 0;' % call
    else:
        body = 'return (%s)%s;' % (tret, call)
    return 'static %s %s(%s) { %s }\n' % (tret, name, params, body)


CAST = re.compile(r'\(([^()]|\([^()]*\))*\)\s*&?\s*([A-Za-z_]\w*)\b(?!\s*(\(|->|\.|\[))')


def operand(text, pos):
    """The cast at pos: its match (group 2 the name cast) and whether that
    name is a local function pointer variable rather than a function."""
    m = CAST.match(text, pos)
    variable = bool(m) and bool(re.search(r'(?m)^\s+[\w\s\*]*\b%s\s*(=|;|\[)' % re.escape(m.group(2)), text[:pos]))
    return m, variable


def is_variable_cast(f, ln, col):
    lines = open(f).read().split('\n')
    text = '\n'.join(lines)
    return operand(text, sum(len(x) + 1 for x in lines[:ln - 1]) + col - 1)[1]


GENERIC = ('void (*)(void)', 'void (*)()')


def names_function(f, ln, col):
    """Is the cast at this place one of a named function (not of a pointer
    variable or a member like def->ml_meth)?"""
    lines = open(f).read().split('\n')
    m, variable = operand('\n'.join(lines), sum(len(x) + 1 for x in lines[:ln - 1]) + col - 1)
    return bool(m) and not variable


def through_generic(found):
    """Each cast as (file, line, col, from, to), with a cast back from
    `void (*)(void)` given the type of the function the same line cast to
    it (the nearest such cast to its right); a cast back with no such
    function is of a pointer stored generically: from and to the same."""
    inner = [c for c in found if c[4] in GENERIC and names_function(*c[:3])]
    out = []
    for f, ln, col, frm, to in found:
        if frm in GENERIC:
            made = [c for c in inner if c[0] == f and c[1] == ln and c[2] > col]
            frm = min(made, key=lambda c: c[2])[3] if made else to
        out.append((f, ln, col, frm, to))
    return out


def rewrite(found):
    """Rewrite each trapping cast of a named function; returns those left."""
    by_file, variables = {}, []
    for f, ln, col, frm, to in through_generic(found):
        if traps(frm, to):
            by_file.setdefault(f, []).append((ln, col, frm, to))
    count = 0
    for f, items in sorted(by_file.items()):
        text = open(f).read()
        lines = text.split('\n')
        offsets = [0]
        for line in lines:
            offsets.append(offsets[-1] + len(line) + 1)
        starts = top_level_starts(text)
        edits = []  # (offset, old_len, new_text) and insertions (offset, 0, text)
        for ln, col, frm, to in items:
            pos = offsets[ln - 1] + col - 1
            m, variable = operand(text, pos)
            name = m and m.group(2)
            if variable:
                variables.append('%s:%d:%d: %s' % (f, ln, col, name))
                continue
            w = name and wrapper('wb_fpcast_%d' % count, name, frm, to)
            if not w:
                continue  # the check below names it
            start = max(s for s in starts if s <= pos)
            edits.append((start, 0, w))
            edits.append((m.start(2), len(name), 'wb_fpcast_%d' % count))
            count += 1
        for off, old, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
            text = text[:off] + new + text[off + old:]
        with open(f, 'w') as fh:
            fh.write(text)
    return count, variables


# C++ converts no void * to another pointer by itself: a C++ file's method
# table wrappers pass their arguments through this, which converts to any.
CXX_ARG = ('struct wb_fpcast_arg { void *p; template <class T> operator T *() const { return (T *)p; } };\n')


def is_cxx(path):
    return path.endswith(('.cpp', '.cc', '.cxx'))


METHOD = re.compile(r'\{\s*"[^"]*"\s*,\s*\(\s*PyCFunction\s*\)\s*&?\s*([A-Za-z_]\w*)\s*,\s*([^,{}]+?)\s*,')


def parameters(text, name):
    """How many parameters the definition of function `name` in text has."""
    for m in re.finditer(r'\b%s\s*\(' % re.escape(name), text):
        depth, i, commas = 1, m.end(), 0
        while i < len(text) and depth:
            depth += text[i] == '('
            depth -= text[i] == ')'
            commas += text[i] == ',' and depth == 1
            i += 1
        if re.match(r'\s*\{', text[i:]):
            inner = text[m.end():i - 1].strip()
            return 0 if inner in ('', 'void') else commas + 1
    return None


def method_tables(paths):
    """A method table's entry is `(PyCFunction)f` whatever f's parameters:
    clang sees no cast between function types when f is declared with the
    two of PyCFunction, but CPython calls a METH_KEYWORDS method with three.
    Point each entry whose function's parameters differ from what its flags
    make CPython pass at a wrapper that takes those and passes f its own.
    Returns how many."""
    count = 0
    for f in paths:
        text = open(f).read()
        edits, starts = [], None
        for m in METHOD.finditer(text):
            name, flags = m.group(1), m.group(2)
            if 'METH_FASTCALL' in flags or name.startswith('wb_fpcast_'):
                continue
            want = 3 if 'METH_KEYWORDS' in flags else 2
            have = parameters(text, name)
            if have is None or have == want:
                continue
            starts = starts or top_level_starts(text)
            wrapper_name = 'wb_fpcast_m%d' % count
            arg = 'wb_fpcast_arg{(void *)a%d}' if is_cxx(f) else '(void *)a%d'
            args = ', '.join([arg % k for k in range(min(have, want))] + ['NULL'] * max(0, have - want))
            params = ', '.join('PyObject *a%d' % k for k in range(want))
            edits.append((max(x for x in starts if x <= m.start()), 0,
                          'static PyObject *%s(%s) { return %s(%s); }\n' % (wrapper_name, params, name, args)))
            edits.append((m.start(1), len(name), wrapper_name))
            count += 1
        if edits:
            for off, old, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
                text = text[:off] + new + text[off + old:]
            if is_cxx(f) and CXX_ARG not in text:
                text = CXX_ARG + text
            with open(f, 'w') as fh:
                fh.write(text)
    return count


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: fpcast.py COMPILES')
    commands = [c for c in open(sys.argv[1]).read().splitlines() if c.strip()]
    jobs = int(os.environ.get('WB_JOBS', os.cpu_count() or 1))
    sources = sorted({check_command(c)[0] for c in commands})
    methods = method_tables(sources)
    count, variables = rewrite(casts(commands, jobs))
    again = [c for c in through_generic(casts(commands, jobs)) if traps(c[3], c[4]) and not is_variable_cast(*c[:3])]
    if again:
        sys.exit('fpcast: %d function casts would trap on WebAssembly and could not be rewritten:\n  %s'
                 % (len(again), '\n  '.join('%s:%d:%d: %s -> %s' % c for c in again)))
    if method_tables(sources):
        sys.exit('fpcast: method table entries still call functions with other parameters than their flags say')
    print('fpcast: %d casts and %d method table entries now call wrappers of their exact type; left as they are, '
          'casts of function pointer variables (the code picks the type it calls with): %s'
          % (count, methods, ', '.join(variables) or 'none'))


if __name__ == '__main__':
    main()
