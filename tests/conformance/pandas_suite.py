#!/usr/bin/env python3
"""Subsets of pandas' own test suite (2.2.3's pandas/tests: frame, groupby,
reshape, io/parser, tseries, arithmetic, tools; `-m "not slow and not
network and not db and not single_cpu"`) inside wasmbox against the
built-in pandas, next to the same generated C built natively
(pandas_native.sh), test by test, compared with pandas_expected_failures.txt;
and each subset's ratio, the tests that pass natively that pass in wasmbox
too, which must be at least 95%.

usage: pandas_suite.py [--full | --native-only] WASMBOX PANDAS_TESTS NUMPY_SITE PANDAS_SITE PYTEST_SITE BUILTIN_SITE
PANDAS_TESTS: the runtime's pandas-tests (python.dir's: the package with its
tests); NUMPY_SITE, PANDAS_SITE: the native reference builds'
(numpy_native.sh, pandas_native.sh); PYTEST_SITE: pytest and hypothesis,
Debian's, given to wasmbox with --packages; BUILTIN_SITE: the built-in
pure-Python packages (pytz, dateutil; attrs for pytest), for the native run.

By default a few files of each subset (CI: about 5 minutes in wasmbox);
--full runs every file of the subsets (`make conformance-full`);
--native-only runs the native side alone (of either selection) and prints
its figures (WASMBOX and PANDAS_TESTS are not used).

Both sides run pytest with an ini this script writes from pandas'
pyproject.toml (PANDAS_SITE's pandas/pyproject.toml): Debian's pytest is
7.2.1 and pandas asks for 7.3.2 (minversion, which pytest reads from the ini
whatever -o says); the rest, markers, filterwarnings (pandas' warnings are
errors) and xfail_strict, as pandas has them. The native python3.11 runs
with -S: the host's dist-packages (Debian's numpy 1.24, whatever optional
pandas dependencies the machine has) are not in the sandbox either.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from packages import FLAGS, judge, passed_natively_only, results, run_files  # noqa: E402 (the shared driver)

SUBSETS = ['frame', 'groupby', 'reshape', 'io/parser', 'tseries', 'arithmetic', 'tools']
# (no tracebacks: on numpy 1.19 many tests fail on both sides, and
# formatting pandas' deep tracebacks took 25 times as long as running the
# tests; the report keeps each failure's message)
SELECT = ['-m', 'not slow and not network and not db and not single_cpu', '--continue-on-collection-errors',
          '--tb=no', '-c', 'pytest.ini']
# CI's selection: four files or fewer of each subset, its core (construction,
# indexing, arithmetic, groupby's aggregations, joins, the C parser's common
# paths, frequency inference, to_datetime), about a fifth of the subsets'
# tests that pass natively, leaving out files most of whose tests fail
# natively (numpy 1.19) and the longest parametrised grids (groupby's
# test_raises and test_groupby_dropna: 17 000 tests)
CI = {
    'frame': ['test_constructors.py', 'indexing/test_indexing.py', 'test_arithmetic.py',
              'methods/test_sort_values.py'],
    'groupby': ['test_groupby.py', 'aggregate/test_aggregate.py', 'test_apply.py', 'methods/test_quantile.py'],
    'reshape': ['concat/test_concat.py', 'merge/test_join.py', 'test_melt.py', 'test_get_dummies.py'],
    'io/parser': ['common/test_common_basic.py', 'test_header.py', 'test_na_values.py', 'test_parse_dates.py'],
    'tseries': ['frequencies/test_inference.py', 'offsets/test_common.py', 'offsets/test_month.py',
                'holiday/test_calendar.py'],
    'arithmetic': ['test_numeric.py', 'test_object.py'],
    'tools': ['test_to_datetime.py', 'test_to_numeric.py', 'test_to_timedelta.py'],
}
RATIO = 0.95
# In wasmbox the tests sit in the workspace and run against the pandas the
# sandbox has: it is imported with the workspace off the path (the copy of
# the package there has no compiled modules), then the workspace's pandas
# directory goes first on its __path__, so that pandas.tests and
# pandas.conftest are found there (the workspace holds nothing else of
# pandas' to shadow the built-in modules).
PATHS = '''import os, sys
path = sys.path[:]
sys.path[:] = [p for p in path if os.path.abspath(p or '.') != '/app']
import pandas
sys.path[:] = path
if '/app/pandas' not in pandas.__path__:
    pandas.__path__.insert(0, '/app/pandas')
'''


def ini(pyproject):
    """pytest.ini's text: pandas' [tool.pytest.ini_options] minus
    minversion and the options of pandas' own CI (addopts' capture,
    durations and report: FLAGS has ours)."""
    opts = tomllib.load(open(pyproject, 'rb'))['tool']['pytest']['ini_options']
    out = ['[pytest]', 'addopts = --strict-markers --strict-config']
    for k in ('empty_parameter_set_mark', 'xfail_strict', 'junit_family'):
        out.append('%s = %s' % (k, str(opts[k]).lower() if isinstance(opts[k], bool) else opts[k]))
    for k in ('doctest_optionflags', 'filterwarnings', 'markers'):
        out.append(k + ' =')
        out += ['    ' + v for v in opts[k]]
    return '\n'.join(out) + '\n'


def subset_files(root, subset):
    """the subset's test files under root, relative to it"""
    found = []
    for d, _, files in os.walk(os.path.join(root, 'pandas', 'tests', subset)):
        found += [os.path.relpath(os.path.join(d, f), root) for f in files
                  if f.startswith('test_') and f.endswith('.py')]
    return sorted(found)


def selection(root, full):
    """subset -> its files to run"""
    if full:
        return {s: subset_files(root, s) for s in SUBSETS}
    out = {s: ['pandas/tests/%s/%s' % (s, f) for f in CI[s]] for s in SUBSETS}
    for s, files in out.items():
        for f in files:
            if not os.path.exists(os.path.join(root, f)):
                sys.exit('pandas_suite.py: no %s (CI selection)' % f)
    return out


def run_native(here, env, subset, files):
    """pytest on the subset's files natively, in one call: (test id ->
    outcome, seconds)"""
    report = 'report-%s.xml' % subset.replace('/', '-')
    flags = [f if not f.startswith('--junitxml') else '--junitxml=' + report for f in FLAGS]
    start = time.monotonic()
    subprocess.run(['/usr/bin/python3.11', '-S', '-m', 'pytest', *flags, *SELECT, *files], cwd=here, env=env,
                   capture_output=True, text=True, timeout=7200)
    seconds = time.monotonic() - start
    path = os.path.join(here, report)
    return (results(path) if os.path.exists(path) else {}), seconds


def tally(r):
    return '/'.join(str(sum(v == k for v in r.values())) for k in ('passed', 'failed', 'skipped'))


def main():
    args = sys.argv[1:]
    full, native_only = '--full' in args, '--native-only' in args
    args = [a for a in args if a not in ('--full', '--native-only')]
    if len(args) != 6:
        sys.exit(__doc__)
    wasmbox, tests, numpy_site, pandas_site, pytest_site, builtin = (os.path.abspath(a) for a in args)
    text = ini(os.path.join(pandas_site, 'pandas', 'pyproject.toml'))
    work = tempfile.mkdtemp(prefix='wasmbox-pandas-')
    nat, box, broken, ratios = {}, {}, [], []
    try:
        # natively the package itself is a copy in the working directory
        # (python -m pytest puts it first on the path): its tests are
        # imported as pandas.tests.*, as in wasmbox
        here = os.path.join(work, 'native')
        shutil.copytree(os.path.join(pandas_site, 'pandas'), os.path.join(here, 'pandas'))
        with open(os.path.join(here, 'pytest.ini'), 'w') as f:
            f.write(text)
        env = dict(os.environ, PYTHONPATH=':'.join([numpy_site, pytest_site, builtin]), PYTHONDONTWRITEBYTECODE='1')
        chosen = selection(here, full)
        if not native_only:
            work_box = os.path.join(work, 'box')
            os.makedirs(os.path.join(work_box, 'pandas'))
            for f in ('__init__.py', 'conftest.py'):
                shutil.copy(os.path.join(tests, 'pandas', f), os.path.join(work_box, 'pandas'))
            shutil.copytree(os.path.join(tests, 'pandas', 'tests'), os.path.join(work_box, 'pandas', 'tests'))
            with open(os.path.join(work_box, 'pytest.ini'), 'w') as f:
                f.write(text)
        print(f'{"subset":<12}{"native pass/fail/skip":>24}{"s":>7}' +
              ('' if native_only else f'{"wasmbox pass/fail/skip":>26}{"s":>7}  ratio'))
        for subset in SUBSETS:
            n, n_s = run_native(here, env, subset, chosen[subset])
            nat.update(n)
            if native_only:
                print(f'{subset:<12}{tally(n):>24}{n_s:>7.0f}')
                continue
            start = time.monotonic()
            b, lost = run_files(wasmbox, work_box, pytest_site, chosen[subset], SELECT, PATHS, ['--quota', '1024'])
            b_s = time.monotonic() - start
            box.update(b)
            broken += lost
            passed = [t for t, v in n.items() if v == 'passed']
            ratio = sum(b.get(t) == 'passed' for t in passed) / len(passed) if passed else 0
            ratios.append((subset, ratio))
            print(f'{subset:<12}{tally(n):>24}{n_s:>7.0f}{tally(b):>26}{b_s:>7.0f}  {ratio:.1%}')
    finally:
        shutil.rmtree(work)
    if native_only:
        return
    low = [s for s, r in ratios if r < RATIO]
    for s in low:
        print(f'pandas: {s}: fewer than {RATIO:.0%} of the tests that pass natively pass in wasmbox')
    judge('pandas', nat, box, broken, passed_natively_only, 'pass natively only (skipped or not run in wasmbox)')
    if low:
        print('pandas conformance: failed')
        sys.exit(1)


if __name__ == '__main__':
    main()
