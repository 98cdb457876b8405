#!/usr/bin/env python3
"""numpy's own test suite (1.19.5, `-m "not slow"`) inside wasmbox against
the built-in numpy, next to the same source built natively for python3.11
(numpy_native.sh), test by test, compared with numpy_expected_failures.txt.

usage: numpy_suite.py WASMBOX NUMPY_TESTS NATIVE_SITE PYTEST_SITE BUILTIN_SITE
NUMPY_TESTS: the runtime's numpy package with its tests (python.dir's
numpy-tests); NATIVE_SITE: the native build's site-packages; PYTEST_SITE:
pytest and hypothesis, Debian's, given to wasmbox with --packages;
BUILTIN_SITE: the built-in pure-Python packages (pytest needs attrs), for
the native run.

In wasmbox the tests come from a copy of NUMPY_TESTS in the workspace and
run against the numpy the sandbox has (imported by its snapshot): the guest
driver adds each of the workspace's package directories to the built-in
package's __path__, so that numpy.core.tests is found there. Fails when a
test fails in wasmbox that does not fail natively and is not listed, when a
listed one passes, or when the suite does not run.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from packages import FLAGS, judge, results, run_per_file  # noqa: E402 (the shared driver)

SELECT = ['-m', 'not slow', '-W', 'ignore::DeprecationWarning', '--continue-on-collection-errors']
# build tooling (compilers, subprocesses), not numpy at run time
IGNORE = ['numpy/distutils', 'numpy/f2py', 'numpy/random/tests/test_extending.py']
ARGS = ['numpy'] + SELECT + ['--ignore=' + i for i in IGNORE]
PATHS = '''import os, sys, importlib, types
# WASI has no ctypes. Four test modules import it at their top, and would
# not run at all (1660 tests): a stand-in lets them run; a test that uses
# ctypes fails, listed in numpy_expected_failures.txt.
class NoCtypes:
    def __init__(self, *args, **kwargs):
        raise ImportError('no ctypes in WASI (numpy_suite.py stand-in)')
stand_in = types.ModuleType('ctypes')
stand_in.__getattr__ = lambda name: NoCtypes
sys.modules.setdefault('ctypes', stand_in)
for root, dirs, files in sorted(os.walk('/app/numpy')):
    name = os.path.relpath(root, '/app').replace('/', '.')
    if '__init__.py' not in files:
        continue
    try:
        pkg = importlib.import_module(name)
    except ImportError:
        continue  # a tests package: found through its parent's path
    if root not in pkg.__path__:
        pkg.__path__.insert(0, root)
'''


def test_files(root):
    """numpy's test files under root, relative to it, minus IGNORE."""
    found = []
    for d, _, files in os.walk(os.path.join(root, 'numpy')):
        for f in files:
            rel = os.path.relpath(os.path.join(d, f), root)
            if f.startswith('test_') and f.endswith('.py') and os.path.basename(d) == 'tests' and \
                    not any(rel == i or rel.startswith(i + '/') for i in IGNORE):
                found.append(rel)
    return sorted(found)


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    wasmbox, tests, native, pytest_site, builtin = (os.path.abspath(a) for a in sys.argv[1:6])
    work = tempfile.mkdtemp(prefix='wasmbox-numpy-')
    try:
        here = os.path.join(work, 'native')
        shutil.copytree(native, here)
        env = dict(os.environ, PYTHONPATH=pytest_site + ':' + builtin, PYTHONDONTWRITEBYTECODE='1')
        subprocess.run(['/usr/bin/python3.11', '-m', 'pytest', *FLAGS, *ARGS], cwd=here, env=env,
                       capture_output=True, text=True, timeout=1800)
        nat = results(os.path.join(here, 'report.xml')) if os.path.exists(os.path.join(here, 'report.xml')) else {}
        work_box = os.path.join(work, 'box')
        shutil.copytree(os.path.join(tests, 'numpy'), os.path.join(work_box, 'numpy'))
        box, broken = run_per_file(wasmbox, work_box, pytest_site, test_files(work_box), SELECT, PATHS)
    finally:
        shutil.rmtree(work)
    judge('numpy', nat, box, broken,
          lambda nat, box, failed: sorted(t for t, v in nat.items() if v == 'passed' and t not in box),
          'do not run in wasmbox only')


if __name__ == '__main__':
    main()
