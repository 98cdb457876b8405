#!/usr/bin/env python3
"""A subset of matplotlib's own test suite (3.3.4's lib/matplotlib/tests, the
files about what the runtime builds: paths, transforms, axes, images,
figures, lines, text, colours, ticks, dates, contours, triangulation and
constrained layout, PNG image comparisons by matplotlib's own compare with
its tolerances) inside wasmbox against the built-in matplotlib, next to the
same source built natively (matplotlib_native.sh), test by test, compared
with matplotlib_expected_failures.txt.

usage: matplotlib_suite.py WASMBOX MPL_TESTS NUMPY_SITE MPL_SITE PYTEST_SITE BUILTIN_SITE
MPL_TESTS: the runtime's matplotlib-tests (python.dir's: the package with
its tests and baseline images); NUMPY_SITE, MPL_SITE: the native reference
builds' (numpy_native.sh, matplotlib_native.sh); PYTEST_SITE: pytest,
Debian's, given to wasmbox with --packages; BUILTIN_SITE: the built-in
pure-Python packages (pytest needs attrs), for the native run, which takes
Pillow, kiwisolver and cycler from Debian (python3-pil, ...).

Both sides use FreeType 2.12 (Debian's; the runtime builds the same
version), not the 2.6.1 matplotlib's baseline images were drawn with, so
about 130 image comparisons with text fail natively too: a test counts
against wasmbox only when it fails or does not run there and passes
natively. Fails when such a test is not listed, when a listed one passes,
or when the suite does not run.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from packages import FLAGS, judge, passed_natively_only, results, run_files  # noqa: E402 (the shared driver)

FILES = '''test_path test_transforms test_axes test_image test_figure test_lines test_text test_colors
test_ticker test_dates test_contour test_triangulation test_constrainedlayout'''.split()
# In wasmbox the tests sit in the workspace and run against the matplotlib
# the sandbox has (imported by its snapshot): the workspace's package
# directories are added to the built-in packages' __path__, after their own,
# so that matplotlib.tests is found there and nothing else is shadowed.
#
# matplotlib's image comparison links each baseline image into
# result_images by its absolute path (a copy where os.symlink raises). WASI
# follows no absolute symlink (its target would be outside the preopened
# directory: opening one is EACCES), so every comparison would find no
# baseline: the driver writes an absolute target inside /app relative to
# the link, which WASI follows.
PATHS = '''import os, importlib
_symlink = os.symlink
def symlink(src, dst, *args, **kwargs):
    if isinstance(src, (str, os.PathLike)) and os.path.isabs(src) and os.fspath(src).startswith('/app/'):
        src = os.path.relpath(src, os.path.dirname(os.path.abspath(dst)))
    return _symlink(src, dst, *args, **kwargs)
os.symlink = symlink
for root, dirs, files in sorted(os.walk('/app/matplotlib')):
    if '__init__.py' not in files:
        continue
    pkg = importlib.import_module(os.path.relpath(root, '/app').replace('/', '.'))
    if root not in pkg.__path__:
        pkg.__path__.append(root)
'''


def copy_tests(package, dest):
    """package's tests (and its __init__.py, so that pytest names them
    matplotlib.tests.*) into dest/matplotlib."""
    os.makedirs(os.path.join(dest, 'matplotlib'))
    shutil.copy(os.path.join(package, '__init__.py'), os.path.join(dest, 'matplotlib'))
    shutil.copytree(os.path.join(package, 'tests'), os.path.join(dest, 'matplotlib', 'tests'))


# issue #34's line: the plot a user's first program draws, saved by wasmbox
# run and by the native build, must match by matplotlib's own comparison at
# its image tests' default tolerance (tol=0: the RMS of the difference)
PLOT = 'import matplotlib.pyplot as plt; plt.plot([1,2,3],[3,1,2]); plt.savefig("p.png"); print("ok")'


def compare_plot(wasmbox, work, env):
    """'' when the plot from `wasmbox run` matches the native one, else why"""
    dirs = {k: os.path.join(work, 'plot-' + k) for k in ('box', 'native')}
    for d in dirs.values():
        os.makedirs(d)
    runs = {'box': subprocess.run([wasmbox, 'run', '--workspace', dirs['box'], '-c', PLOT], capture_output=True,
                                  text=True, timeout=300),
            'native': subprocess.run(['/usr/bin/python3.11', '-c', 'import matplotlib; matplotlib.use("Agg"); ' + PLOT],
                                     cwd=dirs['native'], env=env, capture_output=True, text=True, timeout=300)}
    for k, p in runs.items():
        if p.stdout != 'ok\n':
            return 'the plot (%s) printed %r, stderr %r' % (k, p.stdout, p.stderr[-300:])
    p = subprocess.run(['/usr/bin/python3.11', '-c', 'import sys; from matplotlib.testing.compare import compare_images; '
                        'print(compare_images(sys.argv[1], sys.argv[2], tol=0))',
                        os.path.join(dirs['native'], 'p.png'), os.path.join(dirs['box'], 'p.png')],
                       env=env, capture_output=True, text=True, timeout=300)
    if p.returncode != 0 or p.stdout.strip() != 'None':
        return 'the plot differs from the native one: %s %s' % (p.stdout.strip(), p.stderr[-300:])
    print('matplotlib: the plot of `wasmbox run -c \'%s\'` matches the native one (compare_images, tol=0)' % PLOT)
    return ''


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    wasmbox, tests, numpy_site, mpl_site, pytest_site, builtin = (os.path.abspath(a) for a in sys.argv[1:7])
    paths = ['matplotlib/tests/%s.py' % f for f in FILES]
    work = tempfile.mkdtemp(prefix='wasmbox-matplotlib-')
    try:
        # natively the package itself is a copy in the working directory
        # (python -m pytest puts it first on the path): its tests are
        # imported as matplotlib.tests.*, as in wasmbox
        here = os.path.join(work, 'native')
        shutil.copytree(os.path.join(mpl_site, 'matplotlib'), os.path.join(here, 'matplotlib'))
        env = dict(os.environ, PYTHONPATH=':'.join([numpy_site, mpl_site, pytest_site, builtin]),
                   PYTHONDONTWRITEBYTECODE='1', MPLCONFIGDIR=os.path.join(work, 'mplconfig'))
        subprocess.run(['/usr/bin/python3.11', '-m', 'pytest', *FLAGS, *paths], cwd=here, env=env,
                       capture_output=True, text=True, timeout=1800)
        report = os.path.join(here, 'report.xml')
        nat = results(report) if os.path.exists(report) else {}
        work_box = os.path.join(work, 'box')
        copy_tests(os.path.join(tests, 'matplotlib'), work_box)
        # (the baseline images and the result images the comparisons write
        # need more than the default quota)
        box, broken = run_files(wasmbox, work_box, pytest_site, paths, (), PATHS, ['--quota', '1024'])
        plot = compare_plot(wasmbox, work, env)
        if plot:
            broken.append(plot)
    finally:
        shutil.rmtree(work)
    judge('matplotlib', nat, box, broken,
          passed_natively_only, 'pass natively only (skipped or not run in wasmbox)')


if __name__ == '__main__':
    main()
