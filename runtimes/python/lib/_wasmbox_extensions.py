"""Extension modules linked into python.wasm under dotted names
(numpy.core._multiarray_umath, numpy.random._generator, ...; build.sh).

WASI has no dlopen, so they are built-in modules; CPython's BuiltinImporter
only answers for top-level names (find_spec returns None when given a
package path), so this finder, first on sys.meta_path, answers for the dotted
ones with the same loader. Their init functions run with the dotted name as
the package context, as the loader of a .so does (build.sh's glue)."""
import _imp
import sys
from importlib.machinery import BuiltinImporter, ModuleSpec


class DottedBuiltinFinder:
    @staticmethod
    def find_spec(fullname, path=None, target=None):
        if '.' in fullname and _imp.is_builtin(fullname):
            return ModuleSpec(fullname, BuiltinImporter, origin='built-in')
        return None


def install():
    sys.meta_path.insert(0, DottedBuiltinFinder)
