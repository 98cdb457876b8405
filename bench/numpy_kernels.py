#!/usr/bin/env python3
"""make bench (numpy part, issue 32): the numpy 1.19.5 built into wasmbox's
Python (imported by the base snapshot) next to the same numpy built natively
from the same patched source (the reference the goals are set against) and
Debian bookworm's numpy 1.24.2 as it ships (information only). Both native
ones run on Debian's python3.11; bench/numpy_peers.sh fetches them.

usage: numpy_kernels.py WASMBOX --numpy-ref DIR --numpy-debian DIR [--quick]

- whole process: `import numpy as np; print(np.arange(10).sum())`, fork+exec
  to exit, `wasmbox run -c` and python3.11 with each numpy, alternating.
- warm stateless call: the same code through `wasmbox mcp` (stdio, the
  client is this script), alternating with print(1) on the same server so
  that what numpy adds shows apart from the path's own cost. bench/load.c
  and warm.c run fixed code, so this is the nearest to the library without
  building anything: an upper bound of the library's latency.
- kernels: matmul 200x200 float64, sin(a)*2+a on 10^6 floats, sort of 10^6
  random floats, FFT of 2^16 points, 10^6 normals from default_rng. Each
  process times every kernel REPEAT times inside itself (perf_counter; the
  start-up is not in these numbers); ROUNDS processes per contender,
  alternating, so all see the same machine load. wasmbox's results must agree
  with the reference's (to 1e-9 relative: libm and the order of sums may
  differ in the last bits); Debian's are only compared and noted.
JSON goes to bench/results/numpy-<time>.json; bench/report.py prints it.
"""
import json
import math
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402  box_args, save, verdict

NATIVE_PY = bench.NATIVE_PY
HELLO = 'import numpy as np; print(np.arange(10).sum())'
VERSION = 'import numpy; print(numpy.__version__)'

# Each kernel returns an array; the check is an order-sensitive sample of it.
KERNELS = '''
import json, time
import numpy as np
rng = np.random.default_rng(0)
a, b = rng.random((200, 200)), rng.random((200, 200))
x = rng.random(10 ** 6)
f = rng.random(2 ** 16)
kernels = {
    'matmul 200x200': lambda: a @ b,
    'sin(a)*2+a, 1e6': lambda: np.sin(x) * 2 + x,
    'sort 1e6': lambda: np.sort(x),
    'fft 2^16': lambda: np.fft.fft(f),
    'normal 1e6, rng': lambda: np.random.default_rng(1).standard_normal(10 ** 6),
}
out = {}
for name, kernel in kernels.items():
    times = []
    for _ in range(%d):
        t = time.perf_counter()
        r = kernel()
        times.append(time.perf_counter() - t)
    out[name] = {'times': times, 'check': float(np.abs(r).ravel()[::997].sum())}
print(json.dumps(out))
'''


def contenders(wasmbox, ref, debian):
    """name -> (command that takes the code last, what goes before the code)"""
    native = [NATIVE_PY, '-I', '-c']
    return {'wasmbox': (bench.box_args(wasmbox), ''),
            'native': (native, 'import sys; sys.path.insert(0, %r)\n' % ref),
            'debian': (native, 'import sys; sys.path.insert(0, %r)\n' % debian)}


def run(cmd, prefix, code):
    p = subprocess.run(cmd + [prefix + code], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit('%s failed:\n%s%s' % (cmd[0], p.stdout, p.stderr[-2000:]))
    return p.stdout.strip().splitlines()[-1]


def whole_process(cmds, runs):
    """Seconds of each run, fork+exec to exit, per contender."""
    out = {k: [] for k in cmds}
    for _ in range(runs):
        for k, (cmd, prefix) in cmds.items():
            t = time.perf_counter()
            p = subprocess.run(cmd + [prefix + HELLO], capture_output=True)
            out[k].append(time.perf_counter() - t)
            if p.returncode != 0 or p.stdout.strip() != b'45':
                sys.exit('%s: %s gave %d %r %r' % (k, HELLO, p.returncode, p.stdout, p.stderr[-500:]))
    return out


def kernels(cmds, rounds, repeat):
    """Seconds per run of each kernel, per contender; the checks."""
    code = KERNELS % repeat
    out, checks = {}, {k: [] for k in cmds}
    for _ in range(rounds):
        for k, (cmd, prefix) in cmds.items():
            for name, r in json.loads(run(cmd, prefix, code)).items():
                out.setdefault(name, {c: [] for c in cmds})[k] += r['times']
                checks[k].append((name, r['check']))
    differ = []
    for k in cmds:
        for (name, c), (_, ref) in zip(checks[k], checks['native']):
            if not math.isclose(c, ref, rel_tol=1e-9):
                if k == 'wasmbox':
                    sys.exit('%s: wasmbox gives %r, numpy 1.19.5 natively %r' % (name, c, ref))
                differ.append(name)
    return out, sorted(set(differ))


def main():
    args = sys.argv[1:]
    wasmbox = os.path.abspath(args[0])
    ref = os.path.abspath(args[args.index('--numpy-ref') + 1])
    debian = os.path.abspath(args[args.index('--numpy-debian') + 1])
    quick = '--quick' in args
    runs, calls, rounds, repeat = (10, 200, 2, 3) if quick else (30, 400, 4, 5)
    cmds = contenders(wasmbox, ref, debian)
    report = {'machine': os.uname().nodename, 'cpus': os.cpu_count(), 'time': time.strftime('%Y-%m-%dT%H:%M:%S'),
              'quick': quick, 'versions': {k: run(cmd, prefix, VERSION) for k, (cmd, prefix) in cmds.items()},
              'rounds': {'startup_runs': runs, 'warm_calls': calls, 'kernel_rounds': rounds, 'kernel_repeat': repeat}}
    v = report['versions']
    if v['wasmbox'] != v['native']:
        sys.exit('wasmbox has numpy %s, the reference %s' % (v['wasmbox'], v['native']))
    print('numpy %s: wasmbox against it natively (python3.11) and Debian\'s numpy %s' % (v['native'], v['debian']))

    report['startup'] = whole_process(cmds, runs)
    med = {k: statistics.median(t) * 1e3 for k, t in report['startup'].items()}
    print('\nwhole process, %s: median of %d runs' % (HELLO, runs))
    print('%-24s%8.1f ms' % ('python3.11, numpy ' + v['native'], med['native']))
    print('%-24s%8.1f ms' % ('python3.11, numpy ' + v['debian'], med['debian']))
    print('%-24s%8.1f ms  (%.2fx native)  goal <= 15 ms: %s' % ('wasmbox run', med['wasmbox'],
                                                                med['wasmbox'] / med['native'],
                                                                bench.verdict(med['wasmbox'], 15)))

    report['warm'] = w = bench.warm_mcp(wasmbox, HELLO, '45\n', calls, 20, 'numpy')
    n50, p50 = statistics.median(w['numpy_ms']), statistics.median(w['print1_ms'])
    print('\nwarm stateless call through wasmbox mcp (stdio), %d calls each: p50 %.3f ms, print(1) %.3f ms '
          '(%+.3f ms)  goal <= 1 ms: %s' % (calls, n50, p50, n50 - p50, bench.verdict(n50, 1)))

    report['kernels'], report['debian_results_differ'] = kernels(cmds, rounds, repeat)
    print('\nkernels: %d alternating rounds x %d runs each, ms per run (median)' % (rounds, repeat))
    print('%-18s%11s%11s%12s%8s%10s' % ('kernel', '1.19.5', v['debian'], 'wasmbox', 'ratio', 'vs ' + v['debian']))
    ratios, deb_ratios = [], []
    for name, t in report['kernels'].items():
        m = {k: statistics.median(x) * 1e3 for k, x in t.items()}
        ratios.append(m['wasmbox'] / m['native'])
        deb_ratios.append(m['wasmbox'] / m['debian'])
        print('%-18s%11.2f%11.2f%12.2f%7.2fx%9.2fx' % (name, m['native'], m['debian'], m['wasmbox'],
                                                      ratios[-1], deb_ratios[-1]))
    geo = statistics.geometric_mean(ratios)
    print('%-18s%42.2fx%9.2fx  goal <= 1.8x numpy 1.19.5 native: %s' % (
        'geomean', geo, statistics.geometric_mean(deb_ratios), bench.verdict(geo, 1.8)))
    if report['debian_results_differ']:
        print('Debian\'s numpy gives other results in: %s' % ', '.join(report['debian_results_differ']))
    bench.save(report, 'numpy')


if __name__ == '__main__':
    main()
