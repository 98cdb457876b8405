#!/usr/bin/env python3
"""wasmbox benchmarks: every figure is measured in the same run as its baseline
and printed as a ratio next to the goal the issues set.

usage: bench.py WASMBOX [--quick]

- compute suite (bench/compute/*.py): ROUNDS rounds, each starting one native
  python3.11 (Debian) process and one wasmbox process, alternately, so both
  see the same machine load; each process times REPEAT runs of the program
  with perf_counter around exec() (start-up is not in these numbers). The
  ratio is of the medians of all timings; results must be equal, or the run
  fails.
- whole process: `wasmbox run -c 'print(1)'` against `python3.11 -c 'print(1)'`,
  median and p90 of RUNS runs.
JSON goes to bench/results/python-<time>.json.
"""
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NATIVE = '/usr/bin/python3.11'

WRAPPER = '''
import time, json
code = compile(%r, %r, 'exec')
times = []
for _ in range(%d):
    g = {'__name__': '__main__'}
    t = time.perf_counter()
    exec(code, g)
    times.append(time.perf_counter() - t)
print(json.dumps({'times': times, 'result': repr(g['result'])}))
'''


def run_compute(cmd, name, src, repeat):
    code = WRAPPER % (src, name, repeat)
    p = subprocess.run(cmd + [code], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f'{name}: {" ".join(cmd[:2])} failed:\n{p.stdout}\n{p.stderr}')
    return json.loads(p.stdout.strip().splitlines()[-1])


def whole_process(cmd, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True)
        times.append(time.perf_counter() - t)
        if p.returncode != 0 or p.stdout.strip() != b'1':
            sys.exit(f'{cmd}: unexpected result {p.returncode} {p.stdout!r} {p.stderr!r}')
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.9) - 1]


def verdict(value, goal):
    return 'met' if value <= goal else 'NOT met'


def interleaved(cmds, name, src, rounds, repeat):
    times = [[] for _ in cmds]
    results = set()
    for _ in range(rounds):
        for i, cmd in enumerate(cmds):
            r = run_compute(cmd, name, src, repeat)
            times[i] += r['times']
            results.add(r['result'])
    if len(results) != 1:
        sys.exit(f'{name}: results differ between runs: {results}')
    return times


def main():
    wasmbox = os.path.abspath(sys.argv[1])
    quick = '--quick' in sys.argv
    rounds, repeat, runs = (2, 2, 10) if quick else (4, 3, 30)
    report = {'machine': os.uname().nodename, 'cpus': os.cpu_count(), 'time': time.strftime('%Y-%m-%dT%H:%M:%S'),
              'native': subprocess.run([NATIVE, '-V'], capture_output=True, text=True).stdout.strip(),
              'compute': {}, 'startup': {}}
    print(f'compute suite: {rounds} alternating rounds x {repeat} runs each, wasmbox vs {report["native"]}')
    print(f'{"benchmark":<16}{"native ms":>11}{"wasmbox ms":>12}{"ratio":>8}  spread (wasmbox min-max)')
    ratios = []
    for f in sorted(os.listdir(os.path.join(HERE, 'compute'))):
        if not f.endswith('.py'):
            continue
        name = f[:-3]
        src = open(os.path.join(HERE, 'compute', f)).read()
        nat_t, box_t = interleaved([[NATIVE, '-I', '-c'],
                                    [wasmbox, 'run', '--timeout', '300', '--memory', '1024', '-c']],
                                   name, src, rounds, repeat)
        n, b = statistics.median(nat_t), statistics.median(box_t)
        ratios.append(b / n)
        report['compute'][name] = {'native_s': nat_t, 'wasmbox_s': box_t, 'ratio': b / n}
        print(f'{name:<16}{n * 1e3:>11.1f}{b * 1e3:>12.1f}{b / n:>7.2f}x  '
              f'{min(box_t) * 1e3:.1f}-{max(box_t) * 1e3:.1f} ms')
    geo = statistics.geometric_mean(ratios)
    report['compute_geomean_ratio'] = geo
    print(f'{"geomean":<16}{"":>11}{"":>12}{geo:>7.2f}x  goal <= 1.30x: {verdict(geo, 1.30)}')

    print(f'\nwhole process, print(1): median / p90 of {runs} runs')
    box_med, box_p90 = whole_process([wasmbox, 'run', '-c', 'print(1)'], runs)
    nat_med, nat_p90 = whole_process([NATIVE, '-c', 'print(1)'], runs)
    report['startup'] = {'wasmbox_median_s': box_med, 'wasmbox_p90_s': box_p90,
                         'native_median_s': nat_med, 'native_p90_s': nat_p90}
    print(f'{"python3.11":<16}{nat_med * 1e3:>8.1f} ms  p90 {nat_p90 * 1e3:.1f} ms')
    print(f'{"wasmbox":<16}{box_med * 1e3:>8.1f} ms  p90 {box_p90 * 1e3:.1f} ms  '
          f'({box_med / nat_med:.2f}x native)  goal <= 20 ms: {verdict(box_med * 1e3, 20)}')

    out = os.path.join(HERE, 'results')
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, 'python-%s.json' % time.strftime('%Y%m%d-%H%M%S'))
    with open(path, 'w') as fh:
        json.dump(report, fh, indent=1)
    print(f'\nwritten: {os.path.relpath(path)}')


if __name__ == '__main__':
    main()
