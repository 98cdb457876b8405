#!/usr/bin/env python3
"""Run QuickJS's own tests (tests/*.js of the same source tarball) in wasmbox
and natively (jsnative: the same sources and glue built with gcc), test
function by test function, and compare with the expected-failure list
(js_expected_failures.txt: FILE:FUNCTION, then `#` and why).

usage: js_conformance.py WASMBOX RUNTIME_DIR
RUNTIME_DIR is the JavaScript recipe's output (build/javascript.dir): it holds
jsnative and tests/. Fails when a test function fails in wasmbox that is not
listed, or a file does not run.

Each file ends with top-level calls `test_x();`. Those lines are blanked (so
line numbers stay what the tests expect) and a runner is appended that calls
them one by one, records failures, and prints one JSON line once the timers
the tests set have run. qjs runs test_builtin.js with its std and os modules;
the sandbox has neither, so the runner defines the two functions the tests use:
os.setTimeout (the sandbox's setTimeout, failures charged to the test that set
it) and std.gc (a no-op: QuickJS still collects cycles on its own schedule).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = ['test_language.js', 'test_builtin.js', 'test_bigint.js', 'test_closure.js', 'test_loop.js']
CALL = re.compile(r'^(test_\w+)\(\);\s*$')

RUNNER = '''
;(async () => {
  const results = {};
  let current = null;
  const fail = (name, e) => {
    if (results[name] !== null && results[name] !== undefined) return;
    let text;
    try { text = e instanceof Error ? `${e.name}: ${e.message}` : String(e); } catch { text = '?'; }
    results[name] = text;
  };
  globalThis.std = { gc() {} };
  globalThis.os = {
    platform: 'wasi',
    setTimeout(fn, ms) {
      const owner = current;
      return setTimeout(() => { try { fn(); } catch (e) { fail(owner, e); } }, ms);
    },
  };
  for (const [name, fn] of %s) {
    current = name;
    results[name] = null;
    try { await fn(); } catch (e) { fail(name, e); }
  }
  current = null;
  setTimeout(() => console.log('\\n' + JSON.stringify(results)), 1);
})();
'''


def harness(path):
    """The test file with its trailing calls replaced by our runner."""
    lines = open(path, encoding='utf-8').read().split('\n')
    names = []
    for i, line in enumerate(lines):
        m = CALL.match(line)
        if m:
            names.append(m.group(1))
            lines[i] = ''
    if not names:
        sys.exit(f'{path}: no top-level test_*() calls found')
    table = '[' + ', '.join(f'[{json.dumps(n)}, {n}]' for n in names) + ']'
    return '\n'.join(lines) + RUNNER % table, names


def expected_failures():
    out = {}
    for line in open(os.path.join(HERE, 'js_expected_failures.txt')):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        test, _, why = line.partition('#')
        if not why.strip():
            sys.exit(f'js_expected_failures.txt: no reason given for {test.strip()}')
        out[test.strip()] = why.strip()
    return out


def last_json(text):
    for line in reversed(text.strip().splitlines()):
        if line.startswith('{'):
            return json.loads(line)
    return None


def run(cmd, cwd):
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=1200)
    return p, last_json(p.stdout)


def main():
    wasmbox, rtdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    native = os.path.join(rtdir, 'jsnative')
    expected = expected_failures()
    print(f'{"file":<18}{"native pass/fail":>18}{"wasmbox pass/fail":>20}  unexpected')
    bad = 0
    seen_expected = set()
    totals = [0, 0, 0, 0]
    with tempfile.TemporaryDirectory() as tmp:
        for f in FILES:
            src, names = harness(os.path.join(rtdir, 'tests', f))
            path = os.path.join(tmp, f)
            with open(path, 'w', encoding='utf-8') as fh:
                fh.write(src)
            _, nat = run([native, path], tmp)
            p, box = run([wasmbox, 'run', '--json', '--timeout', '600', '--memory', '1024', path], tmp)
            if box is not None:  # the result object; the test results are in its stdout
                r = box
                box = last_json(r['stdout'])
                if box is None:
                    err = r.get('error') or {}
                    print(f'  {f}: did not finish in wasmbox: {r["status"]} {err.get("type")}: {err.get("message")}')
                    print('  ' + r['stderr'][-2000:].replace('\n', '\n  '))
            if box is None or nat is None:
                print(f'{f:<18} did not run ({"native" if nat is None else "wasmbox"})')
                bad += 1
                continue
            nfail = [n for n in names if nat.get(n)]
            bfail = [n for n in names if box.get(n)]
            unexpected = [n for n in bfail if f'{f}:{n}' not in expected]
            seen_expected.update(f'{f}:{n}' for n in bfail if f'{f}:{n}' in expected)
            row = [len(names) - len(nfail), len(nfail), len(names) - len(bfail), len(bfail)]
            totals = [a + b for a, b in zip(totals, row)]
            print(f'{f:<18}{row[0]:>14}/{row[1]:<3}{row[2]:>16}/{row[3]:<3}  {len(unexpected)}')
            for n in unexpected:
                print(f'    unexpected failure: {f}:{n}: {box[n]}')
            bad += len(unexpected)
    print(f'{"total":<18}{totals[0]:>14}/{totals[1]:<3}{totals[2]:>16}/{totals[3]:<3}')
    for t in sorted(set(expected) - seen_expected):
        print(f'note: listed as expected to fail but passed: {t}')
    print(f'expected failures: {len(seen_expected)} (each with its reason in '
          'tests/conformance/js_expected_failures.txt)')
    if bad:
        print(f'javascript conformance: {bad} unexpected failure(s)')
        sys.exit(1)
    print('javascript conformance: ok')


if __name__ == '__main__':
    main()
