"""Import policy for eval harnesses (request allow_imports / deny_imports /
deny_builtins; wasmbox run --allow-imports ...). This is policy, not the
security boundary: the sandbox holds whatever the code imports.

The host wraps a call's code in run() (src/api/policy.c). run() first
checks the code statically: every import of a module the policy forbids and
every use of a denied builtin is reported with its line, as one
ImportPolicyError, before anything runs. Then it runs the code with the
policy in force at run time too: builtins.__import__ and
importlib.import_module refuse forbidden modules to the code (imports made
inside the libraries it uses are theirs: a denied module used by an allowed
package still loads), and the denied builtins raise when the code calls
them (through builtins, getattr or __builtins__ alike). The policy is lifted
when the call ends, so a session's next call has its own.

run() and the functions the code reaches it through are compiled under the
helper's file name, so tracebacks start at the code's own frames."""
import ast
import builtins
import importlib
import sys

_HELPER = '<wasmbox>'


class ImportPolicyError(ImportError):
    pass


ImportPolicyError.__module__ = 'builtins'  # reported as ImportPolicyError


def _allowed(name, allow, deny):
    top = name.partition('.')[0]
    if top in deny:
        return False
    return allow is None or top in allow


def _static_problems(tree, allow, deny, denied_builtins):
    problems = []

    def imported(name, node):
        if not _allowed(name, allow, deny):
            problems.append((node.lineno, f"import of '{name}' is not allowed"))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                imported(a.name, node)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                imported(node.module, node)
        elif isinstance(node, ast.Call):
            f = node.func
            fname = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            arg = node.args[0] if node.args else None
            if fname in ('__import__', 'import_module') and isinstance(arg, ast.Constant) \
                    and isinstance(arg.value, str):
                imported(arg.value, node)
            if fname == 'getattr' and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) \
                    and node.args[1].value in denied_builtins:
                problems.append((node.lineno, f"{node.args[1].value} is not allowed"))
        elif isinstance(node, ast.Name) and node.id in denied_builtins:
            problems.append((node.lineno, f'{node.id} is not allowed'))
        elif isinstance(node, ast.Attribute) and node.attr in denied_builtins:
            problems.append((node.lineno, f'{node.attr} is not allowed'))
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and node.slice.value in denied_builtins:
            problems.append((node.lineno, f'{node.slice.value} is not allowed'))
    return sorted(set(problems))


def _from_code(globals_):
    # the code runs in __main__; a namespace without a name is one it made
    # (exec(s, {})); libraries' modules all have theirs
    return globals_.get('__name__', '__main__') == '__main__'


def run(source, filename, allow, deny, denied_builtins):
    src = source.decode('utf-8', 'surrogateescape')
    sys.modules['_wasmbox']._sources[filename] = src  # for tracebacks
    allow = None if allow is None else frozenset(allow)
    deny, denied_builtins = frozenset(deny), frozenset(denied_builtins)
    real_compile, real_exec = compile, exec
    code = real_compile(src, filename, 'exec', ast.PyCF_ONLY_AST)
    problems = _static_problems(code, allow, deny, denied_builtins)
    if problems:
        raise ImportPolicyError('; '.join(f'line {n}: {what}' for n, what in problems))
    code = real_compile(code, filename, 'exec')
    main = sys.modules['__main__'].__dict__
    saved = {name: getattr(builtins, name) for name in ('__import__',) + tuple(denied_builtins)
             if hasattr(builtins, name)}
    real_import, real_import_module = saved['__import__'], importlib.import_module

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        g = globals if globals is not None else sys._getframe(1).f_globals
        if level == 0 and _from_code(g) and not _allowed(name, allow, deny):
            raise ImportPolicyError(f"import of '{name}' is not allowed")
        return real_import(name, globals, locals, fromlist, level)

    def guarded_import_module(name, package=None):
        if not name.startswith('.') and _from_code(sys._getframe(1).f_globals) and not _allowed(name, allow, deny):
            raise ImportPolicyError(f"import of '{name}' is not allowed")
        return real_import_module(name, package)

    def denied(name, real):
        def call(*args, **kwargs):
            if _from_code(sys._getframe(1).f_globals):
                raise ImportPolicyError(f'{name} is not allowed')
            return real(*args, **kwargs)
        call.__name__ = call.__qualname__ = name
        return call

    builtins.__import__ = guarded_import
    importlib.import_module = guarded_import_module
    for name in denied_builtins:
        if name in saved:
            setattr(builtins, name, denied(name, saved[name]))
    try:
        real_exec(code, main)
    finally:
        for name, value in saved.items():
            setattr(builtins, name, value)
        importlib.import_module = real_import_module


def _renamed(code):
    consts = tuple(_renamed(c) if isinstance(c, type(code)) else c for c in code.co_consts)
    return code.replace(co_filename=_HELPER, co_consts=consts)


for _f in (run, _static_problems, _allowed, _from_code):
    _f.__code__ = _renamed(_f.__code__)
del _f
