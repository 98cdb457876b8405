"""Package directories besides the built-in site-packages:
- /app/.site-packages, where wasmbox_session_install (MCP install_package,
  wasmbox session install) unpacks what a session installs;
- the operator's directories of pure-Python packages or py3-none-any wheels
  that the host shows read-only at /packages/0, /packages/1, ... for a call
  (wasmbox run --packages DIR, the request's `packages`, MCP --packages).

The base snapshot is taken without them and each call may have others, so
their sys.path entries get a finder that looks at the directory again at
every import (a stat) instead of the FileFinder that importlib caches once
per path. The entries stand before site-packages: an operator's package wins
over a built-in one of the same name, unless the snapshot already imported
it. A directory's *.whl files are importable as zip archives."""
import os
import sys
import zipimport
from importlib.machinery import FileFinder, SourceFileLoader, SourcelessFileLoader, SOURCE_SUFFIXES, \
    BYTECODE_SUFFIXES

ROOT = '/packages'
COUNT = 4  # WASMBOX_MAX_PACKAGES in include/wasmbox.h
SESSION = '/app/.site-packages'
_LOADERS = ((SourceFileLoader, SOURCE_SUFFIXES), (SourcelessFileLoader, BYTECODE_SUFFIXES))


class PackagesFinder:
    def __init__(self, path):
        self.path = path
        self._key = None
        self._finders = ()

    def _current(self):
        try:
            st = os.stat(self.path)
        except OSError:
            self._key, self._finders = None, ()
            return self._finders
        key = (st.st_dev, st.st_ino, st.st_mtime_ns)
        if key != self._key:
            finders = [FileFinder(self.path, *_LOADERS)]
            for name in sorted(os.listdir(self.path)):
                if name.endswith('.whl'):
                    try:
                        finders.append(zipimport.zipimporter(os.path.join(self.path, name)))
                    except zipimport.ZipImportError:
                        pass
            self._key, self._finders = key, tuple(finders)
        return self._finders

    def find_spec(self, fullname, target=None):
        portion = None
        for finder in self._current():
            spec = finder.find_spec(fullname, target)
            if spec is None:
                continue
            if spec.loader is not None:
                return spec
            portion = portion or spec  # a namespace package: keep looking
        return portion

    def invalidate_caches(self):
        self._key = None

    def __repr__(self):
        return f'PackagesFinder({self.path!r})'


def _hook(path):
    if path == SESSION or (os.path.dirname(path) == ROOT and path[len(ROOT) + 1:].isdigit()):
        return PackagesFinder(path)
    raise ImportError('not an operator package directory')


def install():
    sys.path_hooks.insert(0, _hook)
    entries = [SESSION] + [f'{ROOT}/{i}' for i in range(COUNT)]
    site = [i for i, p in enumerate(sys.path) if p.endswith('site-packages')]
    at = site[0] if site else len(sys.path)
    sys.path[at:at] = entries
