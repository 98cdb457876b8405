#!/usr/bin/env python3
"""The built-in packages' own test suites, from their Debian source packages,
run with pytest inside wasmbox and natively (python3.11 over the same
package trees), test by test, compared with packages_expected_failures.txt
(test id, then `#` and why it cannot pass in the sandbox).

usage: packages.py WASMBOX BUILTIN_SITE PYTEST_SITE SOURCES
BUILTIN_SITE: the image's tree (build/python-packages.dir's site-packages);
PYTEST_SITE: pytest and its dependencies, Debian's, given to wasmbox with
--packages; SOURCES: a directory holding each suite's unpacked source tree.
Fails when a test fails in wasmbox that is not listed, a listed one passes,
or a suite does not run.

Only jinja2 runs: the mirror this project builds from serves the source
packages of tabulate, python-dateutil, pyyaml, python-markdown and openpyxl
without their upstream tarballs (404), so their suites cannot be had here.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
# suite: (source tree under SOURCES, pytest arguments)
SUITES = {'jinja2': ('jinja2', ['tests'])}
FLAGS = ['-q', '-p', 'no:cacheprovider', '-p', 'no:faulthandler', '-p', 'no:logging', '--capture=sys',
         '--rootdir=.', '--junitxml=report.xml']
# WASI has no directory above the preopens: stat('/') and of anything
# outside them fails with ENOTCAPABLE, where pytest 7.2, which walks every
# parent of its arguments up to '/' (conftest files, __init__.py, the
# report's directory), expects '/' to be a directory and the rest not to
# exist. The guest driver answers stat so.
GUEST = '''import errno, os, sys, pytest
_stat = os.stat
def stat(path, *args, **kwargs):
    if os.fspath(path) in ('/', b'/'):
        return _stat('/app', *args, **kwargs)
    try:
        return _stat(path, *args, **kwargs)
    except PermissionError as e:
        if e.errno != errno.ENOTCAPABLE:
            raise
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path) from None
os.stat = stat
sys.exit(pytest.main(%r))
'''


def expected_failures(name='packages_expected_failures.txt'):
    """test id -> why, from a list beside this file (numpy_suite.py's too)."""
    out = {}
    for line in open(os.path.join(HERE, name)):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        test, _, why = line.partition('#')
        if not why.strip():
            sys.exit(f'{name}: no reason given for {test.strip()}')
        out[test.strip()] = why.strip()
    return out


def results(report):
    """test id -> passed / failed / skipped, from pytest's JUnit XML."""
    out = {}
    for case in ET.parse(report).getroot().iter('testcase'):
        tid = case.get('classname', '') + '::' + case.get('name', '')
        kinds = {child.tag for child in case}
        out[tid] = 'failed' if kinds & {'failure', 'error'} else 'skipped' if 'skipped' in kinds else 'passed'
    return out


def matches(test, entry):
    """An entry is a test id; '*' in it matches any run of characters
    (brackets are the test's parameters, not character classes)."""
    return re.fullmatch('.*'.join(re.escape(part) for part in entry.split('*')), test) is not None


def scope(test):
    """The module or class a test id (or an entry) is in: what precedes its
    '::', or for a module's own result ('::module', a collection error or
    a module-level skip), what follows it."""
    head, _, tail = test.partition('::')
    return head or tail


def run_per_file(wasmbox, workspace, pytest_site, paths, pytest_args=(), guest_prefix='', run_args=()):
    """pytest on each of paths inside wasmbox (a call a file: one that
    crashes takes only its own tests with it), the tests in workspace:
    (test id -> outcome, the files that ended without a report)."""
    box, broken = {}, []
    for i, path in enumerate(paths):
        flags = [f if not f.startswith('--junitxml') else '--junitxml=report-%d.xml' % i for f in FLAGS]
        p = subprocess.run([wasmbox, 'run', '--timeout', '600', '--memory', '2048', '--max-output', str(16 << 20),
                            *run_args, '--packages', pytest_site, '--workspace', workspace,
                            '-c', guest_prefix + GUEST % (flags + list(pytest_args) + [path])],
                           capture_output=True, text=True, timeout=900)
        report = os.path.join(workspace, 'report-%d.xml' % i)
        if os.path.exists(report):
            box.update(results(report))
        else:
            broken.append('%s (exit %d: %s)' % (path, p.returncode, p.stderr.strip().splitlines()[-1:]))
    return box, broken


def test_id(nodeid):
    """pytest's node id (path::Class::test) as its JUnit report names it."""
    path, _, rest = nodeid.partition('::')
    parts = rest.split('::')
    return '.'.join([path[:-len('.py')].replace('/', '.')] + parts[:-1]) + '::' + parts[-1]


def run_files(wasmbox, workspace, pytest_site, paths, pytest_args=(), guest_prefix='', run_args=(), crashes=10):
    """pytest on each of paths inside wasmbox, a call a file, as
    run_per_file, but a test that crashes the sandbox takes only itself:
    the call prints each test's id before running it (-v), the last one
    printed is the one that crashed, and the file runs again without it (up
    to `crashes` times a file). (test id -> outcome, a crash counted as a
    failure; the files that ended without a report.)"""
    box, broken = {}, []
    for i, path in enumerate(paths):
        crashed = []
        report = os.path.join(workspace, 'report-%d.xml' % i)
        while True:
            flags = [f if not f.startswith('--junitxml') else '--junitxml=report-%d.xml' % i
                     for f in FLAGS if f != '-q']
            flags += ['-v'] + ['--deselect=' + c for c in crashed]
            if os.path.exists(report):
                os.remove(report)  # (an earlier call's, with the same name)
            p = subprocess.run([wasmbox, 'run', '--timeout', '600', '--memory', '2048', '--max-output', str(16 << 20),
                                *run_args, '--packages', pytest_site, '--workspace', workspace,
                                '-c', guest_prefix + GUEST % (flags + list(pytest_args) + [path])],
                               capture_output=True, text=True, timeout=900)
            if os.path.exists(report):
                box.update(results(report))
                box.update((test_id(c), 'failed') for c in crashed)
                break
            # the crashed test's id (ids may hold spaces), its outcome never printed
            last = (p.stdout.strip().splitlines() or [''])[-1].strip()
            if not last.startswith(path + '::') or last in crashed or len(crashed) == crashes:
                broken.append('%s (exit %d: %s)' % (path, p.returncode, p.stderr.strip().splitlines()[-1:]))
                break
            print('    %s crashed wasmbox (%s): run again without it' % (last, p.stderr.strip().splitlines()[-1:]))
            crashed.append(last)
    return box, broken


def passed_natively_only(nat, box, failed):
    """judge's not_run for a suite whose wasmbox run skips what is not built:
    the tests that pass natively and neither pass nor fail in wasmbox."""
    return sorted(t for t, v in nat.items() if v == 'passed' and box.get(t) != 'passed' and t not in failed)


def judge(suite, nat, box, broken, not_run, not_run_words):
    """A package's own suite, test by test (numpy_suite.py, pillow_suite.py):
    nat and box map test ids to passed/failed/skipped natively and in
    wasmbox; broken, the files that ended without a report; not_run(nat,
    box, failed), the tests that pass natively only. Prints the tally and
    exits 1 when one of those or a wasmbox-only failure is not in
    SUITE_expected_failures.txt, when a listed one no longer fails (of the
    modules and classes that ran: CI runs a selection, `make conformance-full`
    all of them), or when the native run gave nothing."""
    name = suite + '_expected_failures.txt'
    expected = expected_failures(name)
    tally = lambda r: '/'.join(str(sum(v == k for v in r.values())) for k in ('passed', 'failed', 'skipped'))
    failed = sorted(t for t, v in box.items() if v == 'failed' and nat.get(t) != 'failed')
    missing = not_run(nat, box, failed)
    matched, unexpected = set(), []
    for t in failed + missing:
        hit = [e for e in expected if matches(t, e)]
        matched.update(hit)
        if not hit:
            unexpected.append(t)
    print(f'{suite}: native pass/fail/skip {tally(nat)}, wasmbox {tally(box)}; '
          f'{len(failed)} fail and {len(missing)} {not_run_words}; {len(unexpected)} unexpected')
    for t in unexpected:
        print(f'    unexpected: {t}')
    for b in broken:
        print(f'    ended without a report (its tests count as not run): {b}')
    scopes = {scope(t) for t in list(nat) + list(box)}
    stale = sorted(e for e in set(expected) - matched
                   if any(matches(t, scope(e)) or t.startswith(scope(e) + '.') for t in scopes))
    for e in stale:
        print(f'listed in {name} but none failed (remove it): {e}')
    if unexpected or stale or not nat:
        print(f'{suite} conformance: failed')
        sys.exit(1)
    print(f'{suite} conformance: ok ({len(failed) + len(missing)} expected failures, '
          f'{len(expected)} entries with their reasons in tests/conformance/{name})')


def run_native(tree, builtin, pytest_site, args):
    env = dict(os.environ, PYTHONPATH=pytest_site + ':' + builtin, PYTHONDONTWRITEBYTECODE='1')
    subprocess.run(['/usr/bin/python3.11', '-m', 'pytest', *FLAGS, *args], cwd=tree,
                   env=env, capture_output=True, text=True, timeout=1200)
    return results(os.path.join(tree, 'report.xml'))


def run_wasmbox(wasmbox, tree, pytest_site, args):
    p = subprocess.run([wasmbox, 'run', '--timeout', '900', '--memory', '2048', '--max-output', str(16 << 20),
                        '--packages', pytest_site, '--workspace', tree, '-c', GUEST % (FLAGS + args)],
                       capture_output=True, text=True, timeout=1200)
    report = os.path.join(tree, 'report.xml')
    if not os.path.exists(report):
        print('  did not finish in wasmbox (exit %d):\n  %s' % (p.returncode, p.stderr[-2000:].replace('\n', '\n  ')))
        return None
    return results(report)


def main():
    wasmbox, builtin, pytest_site, sources = (os.path.abspath(a) for a in sys.argv[1:5])
    expected = expected_failures()
    print(f'{"suite":<12}{"native pass/fail/skip":>24}{"wasmbox pass/fail/skip":>26}  unexpected')
    bad, seen = 0, set()
    for suite, (tree, args) in SUITES.items():
        counts = {}
        for where in ('native', 'wasmbox'):
            work = tempfile.mkdtemp(prefix=f'wasmbox-{suite}-')
            shutil.copytree(os.path.join(sources, tree), work, dirs_exist_ok=True)
            r = (run_native(work, builtin, pytest_site, args) if where == 'native'
                 else run_wasmbox(wasmbox, work, pytest_site, args))
            shutil.rmtree(work)
            counts[where] = r
        nat, box = counts['native'], counts['wasmbox']
        if box is None or not nat:
            print(f'{suite:<12} did not run')
            bad += 1
            continue
        failed = sorted(t for t, v in box.items() if v == 'failed' and nat.get(t) != 'failed')
        unexpected = [t for t in failed if t not in expected]
        seen.update(t for t in failed if t in expected)
        tally = lambda r: '/'.join(str(sum(v == k for v in r.values())) for k in ('passed', 'failed', 'skipped'))
        print(f'{suite:<12}{tally(nat):>24}{tally(box):>26}  {len(unexpected)}')
        for t in unexpected:
            print(f'    unexpected failure: {t}')
        bad += len(unexpected)
    for t in sorted(set(expected) - seen):
        print(f'listed as expected to fail but passed (remove it): {t}')
        bad += 1
    print(f'expected failures: {len(seen)} (each with its reason in tests/conformance/packages_expected_failures.txt)')
    if bad:
        print(f'packages conformance: {bad} problem(s)')
        sys.exit(1)
    print('packages conformance: ok')


if __name__ == '__main__':
    main()
