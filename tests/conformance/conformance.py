#!/usr/bin/env python3
"""Run CPython test modules in wasmbox and natively; compare with the
expected-failure list (expected_failures.txt: one test id per line, then
`#` and why it cannot pass in the sandbox).

usage: conformance.py WASMBOX TESTDIR
Fails when a test fails in wasmbox that is not listed, or a module does not run.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MODULES = ['test_json', 'test_re', 'test_datetime', 'test_decimal', 'test_fractions', 'test_statistics',
           'test_collections', 'test_itertools', 'test_csv', 'test_sqlite3', 'test_zlib', 'test_base64',
           'test_textwrap', 'test_difflib', 'test_string', 'test_math',
           # asyncio without sockets or subprocesses (the event loop has no
           # self-pipe here; threads run to completion when started)
           'test_asyncio.test_locks', 'test_asyncio.test_queues', 'test_asyncio.test_futures',
           'test_asyncio.test_futures2', 'test_asyncio.test_tasks', 'test_asyncio.test_timeouts',
           'test_asyncio.test_taskgroups', 'test_asyncio.test_runners', 'test_asyncio.test_pep492',
           'test_asyncio.test_waitfor', 'test_asyncio.test_context']
# the directory holding test/ is mounted, so the package is listable in it
GUEST_DIR = '/cpython'
GUEST_SHIMS = '/conformance-shims'  # see shims/_testcapi.py
NEEDS_SHIMS = {'test_sqlite3'}


def expected_failures():
    out = {}
    for line in open(os.path.join(HERE, 'expected_failures.txt')):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        test, _, why = line.partition('#')
        if not why.strip():
            sys.exit(f'expected_failures.txt: no reason given for {test.strip()}')
        out[test.strip()] = why.strip()
    return out


def last_json(text):
    for line in reversed(text.strip().splitlines()):
        if line.startswith('{'):
            return json.loads(line)
    return None


def run_native(testdir, module):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(testdir))
    with tempfile.TemporaryDirectory() as cwd:
        # SIGINT at its default: started from a background job it is ignored, and
        # test_runners' interrupt_main() then waits forever (asyncio installs its
        # handler only over the default one)
        p = subprocess.run(['/usr/bin/python3.11', os.path.join(HERE, 'runner.py'), module],
                           capture_output=True, text=True, env=env, cwd=cwd, timeout=1200,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    return last_json(p.stdout)


def run_wasmbox(wasmbox, testdir, module):
    # the shim only where a module needs it: elsewhere tests that want the
    # real _testcapi must see it missing and skip, as they would natively
    paths = [GUEST_DIR] + ([GUEST_SHIMS] if module in NEEDS_SHIMS else [])
    code = 'import sys\nsys.path[:0] = %r\nMODULE = %r\n' % (paths, module)
    code += open(os.path.join(HERE, 'runner.py')).read()
    p = subprocess.run([wasmbox, 'run', '--json', '--timeout', '900', '--memory', '2048', '--max-output',
                        str(64 << 20), '--mount', f'{os.path.dirname(testdir)}:{GUEST_DIR}',
                        '--mount', f'{os.path.join(HERE, "shims")}:{GUEST_SHIMS}', '-c', code],
                       capture_output=True, text=True, timeout=1200)
    r = json.loads(p.stdout)
    res = last_json(r['stdout'])
    if res is None:
        err = r.get('error') or {}
        print(f'  {module}: did not finish in wasmbox: {r["status"]} {err.get("type")}: {err.get("message")}')
        print('  ' + r['stderr'][-2000:].replace('\n', '\n  '))
    return res


def main():
    wasmbox, testdir = os.path.abspath(sys.argv[1]), sys.argv[2]
    expected = expected_failures()
    print(f'{"module":<34}{"native pass/fail/skip":>24}{"wasmbox pass/fail/skip":>26}  unexpected')
    bad = 0
    seen_expected = set()
    totals = [0, 0, 0, 0, 0, 0]
    for m in MODULES:
        nat = run_native(testdir, m)
        box = run_wasmbox(wasmbox, testdir, m)
        if box is None or nat is None:
            print(f'{m:<34} did not run ({"native" if nat is None else "wasmbox"})')
            bad += 1
            continue
        unexpected = [t for t in box['failed'] if t not in expected]
        seen_expected.update(t for t in box['failed'] if t in expected)
        npass = nat['run'] - len(nat['failed']) - nat['skipped']
        bpass = box['run'] - len(box['failed']) - box['skipped']
        for i, v in enumerate([npass, len(nat['failed']), nat['skipped'], bpass, len(box['failed']), box['skipped']]):
            totals[i] += v
        print(f'{m:<34}{npass:>14}/{len(nat["failed"])}/{nat["skipped"]:<6}{bpass:>15}/{len(box["failed"])}/'
              f'{box["skipped"]:<8}  {len(unexpected)}')
        for t in unexpected:
            print(f'    unexpected failure: {t}')
        bad += len(unexpected)
    print(f'{"total":<34}{totals[0]:>14}/{totals[1]}/{totals[2]:<6}{totals[3]:>15}/{totals[4]}/{totals[5]:<8}')
    listed_in_run = {t for t in expected if any(t.startswith(f'test.{m}.') for m in MODULES)}
    for t in sorted(listed_in_run - seen_expected):
        print(f'note: listed as expected to fail but passed: {t}')
    print(f'expected failures: {len(seen_expected)} (each with its reason in tests/conformance/expected_failures.txt)')
    if bad:
        print(f'conformance: {bad} unexpected failure(s)')
        sys.exit(1)
    print('conformance: ok')


if __name__ == '__main__':
    main()
