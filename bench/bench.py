#!/usr/bin/env python3
"""wasmbox benchmarks: every figure is measured in the same run as its baseline
and printed as a ratio next to the goal the issues set.

usage: bench.py WASMBOX [--quick] [--jsnative PATH] [--unmetered PATH] [--only python|javascript]

For each language:
- compute suite (bench/compute/*.py, bench/compute_js/*.js): ROUNDS rounds,
  each starting one native process and one wasmbox process, alternately, so
  both see the same machine load; each process times REPEAT runs of the
  program inside itself (start-up is not in these numbers). The ratio is of
  the medians of all timings; results must be equal, or the run fails.
  Python's baseline is Debian's python3.11 (exec() timed with perf_counter);
  JavaScript's is jsnative, the same QuickJS sources and guest glue built
  with gcc -O2 (bench() timed with performance.now()).
- fuel overhead (with --unmetered, which `make bench` passes): a build of
  the same modules whose counter is never charged (FUEL=counter-only) runs
  each benchmark in the same alternating rounds, and so does wasmbox with a
  fuel budget (--fuel 2^62). Both run the same metered code (one without a
  budget starts its counter at INT64_MAX). Each overhead is the ratio of its
  median to the unmetered one, goal <= 1.03 (geomean) for both (#36).
- whole process: `wasmbox run` printing one line against the native
  interpreter doing the same, median and p90 of RUNS runs.
- JavaScript also against node (when installed), a JIT: the compute suite
  and the whole process, as a reference without a goal.
JSON goes to bench/results/LANGUAGE-<time>.json.
"""
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NATIVE_PY = '/usr/bin/python3.11'

PY_WRAPPER = '''
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

# Each JS benchmark defines bench(); its result must be the same everywhere.
JS_WRAPPER = '''%s
;const times = [];
let result;
for (let i = 0; i < %d; i++) {
  const t = performance.now();
  result = bench();
  times.push((performance.now() - t) / 1000);
}
console.log(JSON.stringify({ times, result: String(result) }));
'''


def run_compute(cmd, name, code):
    p = subprocess.run(cmd + [code], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f'{name}: {" ".join(cmd[:2])} failed:\n{p.stdout}\n{p.stderr}')
    return json.loads(p.stdout.strip().splitlines()[-1])


def whole_process(cmd, runs, expect):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True)
        times.append(time.perf_counter() - t)
        if p.returncode != 0 or p.stdout.strip() != expect:
            sys.exit(f'{cmd}: unexpected result {p.returncode} {p.stdout!r} {p.stderr!r}')
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.9) - 1]


def verdict(value, goal):
    return 'met' if value <= goal else 'NOT met'


def interleaved(cmds, name, code, rounds):
    times = [[] for _ in cmds]
    results = set()
    for _ in range(rounds):
        for i, cmd in enumerate(cmds):
            r = run_compute(cmd, name, code)
            times[i] += r['times']
            results.add(r['result'])
    if len(results) != 1:
        sys.exit(f'{name}: results differ between runs: {results}')
    return times


FUEL_GOAL = 1.03


def compute_suite(directory, suffix, native_cmd, box_cmd, wrap, rounds, repeat, goal, unmetered_cmd=None):
    """Time every benchmark in `directory`; prints the table, returns (report, geomean, fuel geomeans): the
    fuel geomeans of calls without and with a budget, each against the unmetered build."""
    budget_cmd = box_cmd[:-1] + ['--fuel', str(1 << 62), '-c'] if unmetered_cmd else None
    fuel_head = f'{"unmetered":>11}{"fuel":>8}{"budget":>8}' if unmetered_cmd else ''
    print(f'{"benchmark":<16}{"native ms":>11}{"wasmbox ms":>12}{"ratio":>8}{fuel_head}  spread (wasmbox min-max)')
    report, ratios, fuel_ratios, budget_ratios = {}, [], [], []
    for f in sorted(os.listdir(os.path.join(HERE, directory))):
        if not f.endswith(suffix):
            continue
        name = f[:-len(suffix)]
        code = wrap(open(os.path.join(HERE, directory, f)).read(), name, repeat)
        cmds = [native_cmd, box_cmd] + ([unmetered_cmd, budget_cmd] if unmetered_cmd else [])
        timings = interleaved(cmds, name, code, rounds)
        nat_t, box_t = timings[0], timings[1]
        n, b = statistics.median(nat_t), statistics.median(box_t)
        ratios.append(b / n)
        report[name] = {'native_s': nat_t, 'wasmbox_s': box_t, 'ratio': b / n}
        fuel_cols = ''
        if unmetered_cmd:
            u, m = statistics.median(timings[2]), statistics.median(timings[3])  # unmetered, metered
            fuel_ratios.append(b / u)
            budget_ratios.append(m / u)
            report[name].update({'unmetered_s': timings[2], 'fuel_overhead_ratio': b / u,
                                 'budget_s': timings[3], 'budget_overhead_ratio': m / u})
            fuel_cols = f'{u * 1e3:>11.1f}{(b / u - 1) * 100:>+7.1f}%{(m / u - 1) * 100:>+7.1f}%'
        print(f'{name:<16}{n * 1e3:>11.1f}{b * 1e3:>12.1f}{b / n:>7.2f}x{fuel_cols}  '
              f'{min(box_t) * 1e3:.1f}-{max(box_t) * 1e3:.1f} ms')
    geo = statistics.geometric_mean(ratios)
    print(f'{"geomean":<16}{"":>11}{"":>12}{geo:>7.2f}x  goal <= {goal:.2f}x: {verdict(geo, goal)}')
    fuel_geo = budget_geo = None
    if fuel_ratios:
        fuel_geo = statistics.geometric_mean(fuel_ratios)
        budget_geo = statistics.geometric_mean(budget_ratios)
        print(f'{"fuel overhead":<16}{(fuel_geo - 1) * 100:>+30.1f}%  (no budget: counting / unmetered, geomean)  '
              f'goal <= {(FUEL_GOAL - 1) * 100:.0f}%: {verdict(fuel_geo, FUEL_GOAL)}')
        print(f'{"":<16}{(budget_geo - 1) * 100:>+30.1f}%  (a budget: metered / unmetered, geomean)  '
              f'goal <= {(FUEL_GOAL - 1) * 100:.0f}%: {verdict(budget_geo, FUEL_GOAL)}')
    return report, geo, (fuel_geo, budget_geo)


def startup(label, box_cmd, native_cmd, runs, expect, goal_ms):
    box_med, box_p90 = whole_process(box_cmd, runs, expect)
    nat_med, nat_p90 = whole_process(native_cmd, runs, expect)
    print(f'{label:<16}{nat_med * 1e3:>8.1f} ms  p90 {nat_p90 * 1e3:.1f} ms')
    print(f'{"wasmbox":<16}{box_med * 1e3:>8.1f} ms  p90 {box_p90 * 1e3:.1f} ms  '
          f'({box_med / nat_med:.2f}x native)  goal <= {goal_ms} ms: {verdict(box_med * 1e3, goal_ms)}')
    return {'wasmbox_median_s': box_med, 'wasmbox_p90_s': box_p90,
            'native_median_s': nat_med, 'native_p90_s': nat_p90}


def warm_mcp(wasmbox, code, expect, calls, warmup, name):
    """Latencies (ms) of stateless calls through `wasmbox mcp` on stdio, CODE
    (which prints EXPECT) and print(1) alternating, after WARMUP rounds that
    start the workers; and CODE's memory peaks: {NAME_ms, print1_ms,
    NAME_memory_peak_bytes} (numpy_kernels.py, matplotlib_plot.py)."""
    home = tempfile.mkdtemp(prefix='wasmbox-bench-%s-' % name)
    srv = subprocess.Popen([wasmbox, 'mcp', '--workers', '2'], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           env=dict(os.environ, WASMBOX_HOME=home))
    meta = {'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}}
    ids = itertools.count()

    def call(code, expect):
        req = json.dumps({'jsonrpc': '2.0', 'id': next(ids), 'method': 'tools/call', 'params': {
            'name': 'execute_code', 'arguments': {'code': code}, '_meta': meta}}).encode() + b'\n'
        t = time.perf_counter()
        srv.stdin.write(req)
        srv.stdin.flush()
        line = srv.stdout.readline()
        ms = (time.perf_counter() - t) * 1e3
        if not line:
            sys.exit('wasmbox mcp closed its output')
        r = json.loads(line)['result']['structuredContent']
        if r['status'] != 'ok' or r['stdout'] != expect:
            sys.exit('wasmbox mcp: %r gave %s' % (code, line[:2000]))
        return ms, r
    out = {name + '_ms': [], 'print1_ms': [], name + '_memory_peak_bytes': []}
    try:
        for _ in range(warmup):
            call(code, expect)
            call('print(1)', '1\n')
        for _ in range(calls):
            ms, r = call(code, expect)
            out[name + '_ms'].append(ms)
            out[name + '_memory_peak_bytes'].append(r['memory_peak_bytes'])
            out['print1_ms'].append(call('print(1)', '1\n')[0])
    finally:
        srv.stdin.close()
        srv.wait(timeout=60)
        shutil.rmtree(home, ignore_errors=True)
    return out


def save(report, language):
    out = os.path.join(HERE, 'results')
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, '%s-%s.json' % (language, time.strftime('%Y%m%d-%H%M%S')))
    with open(path, 'w') as fh:
        json.dump(report, fh, indent=1)
    print(f'\nwritten: {os.path.relpath(path)}')


def machine(native):
    return {'machine': os.uname().nodename, 'cpus': os.cpu_count(), 'time': time.strftime('%Y-%m-%dT%H:%M:%S'),
            'native': native, 'compute': {}, 'startup': {}}


def box_args(wasmbox, *lang):
    return [wasmbox, 'run', *lang, '--timeout', '300', '--memory', '1024', '-c'] if wasmbox else None


def python_suite(wasmbox, rounds, repeat, runs, unmetered=None):
    report = machine(subprocess.run([NATIVE_PY, '-V'], capture_output=True, text=True).stdout.strip())
    print(f'compute suite: {rounds} alternating rounds x {repeat} runs each, wasmbox vs {report["native"]}')
    report['compute'], report['compute_geomean_ratio'], fuel = compute_suite(
        'compute', '.py', [NATIVE_PY, '-I', '-c'], box_args(wasmbox),
        lambda src, name, n: PY_WRAPPER % (src, name, n), rounds, repeat, 1.30, box_args(unmetered))
    report['fuel_overhead_geomean_ratio'], report['budget_overhead_geomean_ratio'] = fuel
    print(f'\nwhole process, print(1): median / p90 of {runs} runs')
    report['startup'] = startup('python3.11', [wasmbox, 'run', '-c', 'print(1)'], [NATIVE_PY, '-c', 'print(1)'],
                                runs, b'1', 20)
    save(report, 'python')


def javascript_suite(wasmbox, jsnative, rounds, repeat, runs, unmetered=None):
    report = machine('QuickJS 2025-04-26, gcc -O2 (jsnative)')
    print(f'compute suite: {rounds} alternating rounds x {repeat} runs each, wasmbox vs {report["native"]}')
    report['compute'], report['compute_geomean_ratio'], fuel = compute_suite(
        'compute_js', '.js', [jsnative, '-c'], box_args(wasmbox, '--lang', 'javascript'),
        lambda src, name, n: JS_WRAPPER % (src, n), rounds, repeat, 1.30,
        box_args(unmetered, '--lang', 'javascript'))
    report['fuel_overhead_geomean_ratio'], report['budget_overhead_geomean_ratio'] = fuel
    print(f"\nwhole process, console.log('hi'): median / p90 of {runs} runs")
    report['startup'] = startup('jsnative', [wasmbox, 'run', '--lang', 'js', '-c', "console.log('hi')"],
                                [jsnative, '-c', "console.log('hi')"], runs, b'hi', 10)
    node = shutil.which('node')
    if node:
        version = subprocess.run([node, '--version'], capture_output=True, text=True).stdout.strip()
        print(f'\nagainst node {version} (V8, a JIT; no goal: a reference, not a peer of an interpreter)')
        report['node'] = node_table(node, report['compute'], rounds, repeat)
        med, p90 = whole_process([node, '-e', "console.log('hi')"], runs, b'hi')
        box = report['startup']['wasmbox_median_s']
        print(f'{"whole process":<16}{med * 1e3:>11.1f}{box * 1e3:>12.1f}{box / med:>7.2f}x  (p90 node {p90 * 1e3:.1f} ms)')
        report['node'].update({'version': version, 'startup_median_s': med, 'startup_p90_s': p90})
    save(report, 'javascript')


def node_table(node, compute, rounds, repeat):
    """The JS compute suite under node, next to the wasmbox medians measured above."""
    print(f'{"benchmark":<16}{"node ms":>11}{"wasmbox ms":>12}{"ratio":>8}')
    out, ratios = {}, []
    for name in sorted(compute):
        code = JS_WRAPPER % (open(os.path.join(HERE, 'compute_js', name + '.js')).read(), repeat)
        times, results = [], set()
        for _ in range(max(1, rounds // 2)):
            r = run_compute([node, '-e'], name, code)
            times += r['times']
            results.add(r['result'])
        n, b = statistics.median(times), statistics.median(compute[name]['wasmbox_s'])
        if len(results) != 1:
            sys.exit(f'{name}: node gives different results: {results}')
        ratios.append(b / n)
        out[name] = {'node_s': times, 'ratio': b / n}
        print(f'{name:<16}{n * 1e3:>11.2f}{b * 1e3:>12.1f}{b / n:>7.1f}x')
    geo = statistics.geometric_mean(ratios)
    print(f'{"geomean":<16}{"":>11}{"":>12}{geo:>7.1f}x')
    return {'compute': out, 'compute_geomean_ratio': geo}


def main():
    args = sys.argv[1:]
    wasmbox = os.path.abspath(args[0])
    quick = '--quick' in args
    only = args[args.index('--only') + 1] if '--only' in args else None
    jsnative = args[args.index('--jsnative') + 1] if '--jsnative' in args else None
    unmetered = os.path.abspath(args[args.index('--unmetered') + 1]) if '--unmetered' in args else None
    rounds, repeat, runs = (2, 2, 10) if quick else (4, 3, 30)
    if only in (None, 'python'):
        python_suite(wasmbox, rounds, repeat, runs, unmetered)
    if only in (None, 'javascript'):
        if not jsnative:
            sys.exit('the JavaScript suite needs --jsnative PATH (make bench passes it)')
        if only is None:
            print('\n' + '=' * 72 + '\nJavaScript\n')
        javascript_suite(wasmbox, os.path.abspath(jsnative), rounds, repeat, runs, unmetered)


if __name__ == '__main__':
    main()
