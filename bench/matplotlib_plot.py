#!/usr/bin/env python3
"""make bench (matplotlib part): a small plot saved as PNG, by the matplotlib
3.3.4 built into wasmbox's Python next to the same source built natively
(tests/conformance/matplotlib_native.sh, on the reference numpy) on Debian's
python3.11.

usage: matplotlib_plot.py WASMBOX --numpy-ref DIR --mpl-ref DIR [--quick]

- whole process: PLOT, fork+exec to exit, `wasmbox run -c` and python3.11,
  alternating; each in a fresh directory (wasmbox's the workspace), which
  must hold the PNG afterwards.
- warm stateless call: PLOT through `wasmbox mcp` (stdio, this script is the
  client), alternating with print(1) on the same server, so that what the
  plot adds shows apart from the path's own cost (as numpy_kernels.py
  measures numpy's; an upper bound of the library's latency). Next to it,
  natively: PLOT timed inside one python3.11 that has imported pyplot (the
  figure closed after each), the work alone without any start-up.
JSON goes to bench/results/matplotlib-<time>.json; bench/report.py prints it.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402  box_args, save, NATIVE_PY

PLOT = "import matplotlib.pyplot as plt; plt.plot([1,2,3],[3,1,2]); plt.savefig('p.png')"
VERSION = 'import matplotlib; print(matplotlib.__version__)'
PNG = b'\x89PNG\r\n\x1a\n'
# natively, in one process: PLOT timed N times after one untimed run
NATIVE_WARM = '''import json, time
code = compile(%r, 'plot', 'exec')
import matplotlib.pyplot as plt
times = []
for i in range(%d + 1):
    t = time.perf_counter()
    exec(code, {'__name__': '__main__'})
    times.append(time.perf_counter() - t)
    plt.close('all')
print(json.dumps(times[1:]))
'''


def native_cmd(numpy_ref, mpl_ref):
    """python3.11 isolated, the reference numpy and matplotlib first on its
    path (Pillow, kiwisolver, cycler: Debian's, as the native build's)."""
    return [bench.NATIVE_PY, '-I', '-c'], 'import sys; sys.path[:0] = [%r, %r]\n' % (numpy_ref, mpl_ref)


def run(cmd, prefix, code, cwd=None, env=None):
    p = subprocess.run(cmd + [prefix + code], capture_output=True, text=True, timeout=600, cwd=cwd, env=env)
    if p.returncode != 0:
        sys.exit('%s failed:\n%s%s' % (cmd[0], p.stdout, p.stderr[-2000:]))
    return p.stdout.strip().splitlines()[-1]


def whole_process(wasmbox, native, env, runs):
    """Seconds of each run, fork+exec to exit, per contender."""
    out = {'native': [], 'wasmbox': []}
    for _ in range(runs):
        for k in ('native', 'wasmbox'):
            d = tempfile.mkdtemp(prefix='wasmbox-bench-mpl-')
            cmd = ([wasmbox, 'run', '--timeout', '300', '--memory', '1024', '--workspace', d, '-c', PLOT]
                   if k == 'wasmbox' else native[0] + [native[1] + PLOT])
            t = time.perf_counter()
            p = subprocess.run(cmd, capture_output=True, cwd=d, env=env)
            out[k].append(time.perf_counter() - t)
            png = os.path.join(d, 'p.png')
            ok = p.returncode == 0 and os.path.exists(png) and open(png, 'rb').read(8) == PNG
            shutil.rmtree(d)
            if not ok:
                sys.exit('%s: the plot gave %d, no PNG: %r' % (k, p.returncode, p.stderr[-1000:]))
    return out


def main():
    args = sys.argv[1:]
    wasmbox = os.path.abspath(args[0])
    numpy_ref = os.path.abspath(args[args.index('--numpy-ref') + 1])
    mpl_ref = os.path.abspath(args[args.index('--mpl-ref') + 1])
    quick = '--quick' in args
    runs, calls = (10, 30) if quick else (30, 100)
    native = native_cmd(numpy_ref, mpl_ref)
    # the native font cache (built at the first import) in a directory of its own
    config = tempfile.mkdtemp(prefix='wasmbox-bench-mplconfig-')
    env = dict(os.environ, MPLCONFIGDIR=config)
    try:
        report = {'machine': os.uname().nodename, 'cpus': os.cpu_count(), 'time': time.strftime('%Y-%m-%dT%H:%M:%S'),
                  'quick': quick, 'code': PLOT, 'rounds': {'startup_runs': runs, 'warm_calls': calls},
                  'versions': {'wasmbox': run(bench.box_args(wasmbox), '', VERSION),
                               'native': run(*native, VERSION, env=env)}}
        v = report['versions']
        if v['wasmbox'] != v['native']:
            sys.exit('wasmbox has matplotlib %s, the reference %s' % (v['wasmbox'], v['native']))
        print('matplotlib %s: wasmbox against it natively (python3.11), %s' % (v['native'], PLOT))
        report['startup'] = whole_process(wasmbox, native, env, runs)
        med = {k: statistics.median(t) * 1e3 for k, t in report['startup'].items()}
        print('\nwhole process: median of %d runs' % runs)
        print('%-28s%8.1f ms' % ('python3.11, matplotlib ' + v['native'], med['native']))
        print('%-28s%8.1f ms  (%.2fx native)' % ('wasmbox run', med['wasmbox'], med['wasmbox'] / med['native']))

        d = tempfile.mkdtemp(prefix='wasmbox-bench-mpl-')
        report['native_in_process_s'] = json.loads(run(*native, NATIVE_WARM % (PLOT, calls), cwd=d, env=env))
        shutil.rmtree(d)
        report['warm'] = w = bench.warm_mcp(wasmbox, PLOT, '', calls, 5, 'plot')
        n50, p50 = statistics.median(w['plot_ms']), statistics.median(w['print1_ms'])
        nat = statistics.median(report['native_in_process_s']) * 1e3
        print('\nwarm stateless call through wasmbox mcp (stdio), %d calls each: p50 %.2f ms, print(1) %.3f ms '
              '(%+.2f ms); natively in one process, pyplot imported: %.2f ms' % (calls, n50, p50, n50 - p50, nat))
        bench.save(report, 'matplotlib')
    finally:
        shutil.rmtree(config, ignore_errors=True)


if __name__ == '__main__':
    main()
