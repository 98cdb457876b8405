#!/usr/bin/env python3
"""make bench (MCP part): execute_code round trips of print(1), stateless,
through wasmbox serve (Streamable HTTP, 2026-07-28 requests) and wasmbox mcp
(stdio), at 1 and 8 calls in flight, next to the same call made straight
through the library (bench/warm.c) in the same run. The client (mcpload.c)
is C so that it costs little next to what it measures.

usage: mcp.py WASMBOX MCPLOAD WARM [CALLS]
JSON goes to bench/results/mcp-<time>.json.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, env):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0:
        sys.exit('%s failed:\n%s%s' % (' '.join(cmd), p.stdout, p.stderr))
    return json.loads(p.stdout.strip().splitlines()[-1])


PACKAGES = 'import openpyxl, jinja2, yaml, dateutil'


def native_import(build, runs=15):
    """Whole-process medians (ms) of python3.11 importing the same package
    trees the sandbox has (the build's python-packages.dir), and of `pass`."""
    site = open(os.path.join(build, 'python-packages.dir')).read().strip() + '/site-packages'
    out = {}
    for key, code in (('import_ms', 'import sys; sys.path.insert(0, %r); %s' % (site, PACKAGES)), ('pass_ms', 'pass')):
        t = []
        for _ in range(runs):
            s = time.perf_counter()
            subprocess.run(['python3.11', '-I', '-c', code], check=True)
            t.append((time.perf_counter() - s) * 1e3)
        out[key] = sorted(t)[runs // 2]
    return out


def cluster_curve(wasmbox, load, calls, env):
    """Stateless calls/s through HAProxy in front of 1, 2 and 3 servers."""
    out = {}
    for k in (1, 2, 3):
        d = tempfile.mkdtemp(prefix='wasmbox-bench-cluster-')
        port = 19800 + 10 * k
        script = os.path.join(HERE, '..', 'packaging', 'deploy', 'cluster.sh')
        subprocess.run(['bash', script, 'start', d, str(k), str(port)], env=dict(env, WASMBOX=wasmbox), check=True,
                       stdout=subprocess.DEVNULL)
        try:
            token = open(os.path.join(d, 'tokens')).read().split()[1]
            out[k] = run([load, 'http', str(port), '8', str(calls)], dict(env, MCPLOAD_TOKEN=token))
        finally:
            subprocess.run(['bash', script, 'stop', d])
            subprocess.run(['rm', '-rf', d])
    return out


def main():
    wasmbox, load, warm = (os.path.abspath(a) for a in sys.argv[1:4])
    calls = int(sys.argv[4]) if len(sys.argv) > 4 else 2000
    home = tempfile.mkdtemp(prefix='wasmbox-bench-mcp-')
    env = dict(os.environ, WASMBOX_HOME=home)
    report = {'machine': os.uname().nodename, 'cpus': os.cpu_count(), 'time': time.strftime('%Y-%m-%dT%H:%M:%S'),
              'calls': calls}
    lib = run([warm, str(calls)], env)
    report['library'] = {'p50_ms': lib['stateless_p50_ms'], 'p99_ms': lib['stateless_p99_ms'],
                         'calls_per_s': 1000 / lib['stateless_p50_ms']}
    report['packages'] = {'p50_ms': lib['packages_p50_ms'], 'p99_ms': lib['packages_p99_ms'],
                          'native': native_import(os.path.dirname(wasmbox))}
    report['javascript'] = {'p50_ms': lib['js_p50_ms'], 'p99_ms': lib['js_p99_ms'],
                            'lodash_p50_ms': lib['js_lodash_p50_ms'], 'lodash_p99_ms': lib['js_lodash_p99_ms']}
    srv = subprocess.Popen([wasmbox, 'serve', '--listen', '127.0.0.1:0'], stderr=subprocess.PIPE, env=env)
    try:
        line = srv.stderr.readline().decode()
        port = line.rsplit(':', 1)[1].split('/')[0]
        for c in (1, 8):
            report['http_c%d' % c] = run([load, 'http', port, str(c), str(calls)], env)
    finally:
        srv.terminate()
        srv.wait()
    for c in (1, 8):
        report['stdio_c%d' % c] = run([load, 'stdio', wasmbox, str(c), str(calls)], env)
    report['haproxy'] = cluster_curve(wasmbox, load, calls, env)
    subprocess.run(['rm', '-rf', home])
    print('execute_code print(1), stateless: %d calls each, %d CPUs' % (calls, os.cpu_count()))
    print('%-22s %9s %9s %10s' % ('', 'p50 ms', 'p99 ms', 'calls/s'))
    print('%-22s %9.3f %9.3f %10.0f  (one thread; calls/s = 1/p50)' % ('library', lib['stateless_p50_ms'],
                                                                lib['stateless_p99_ms'], 1000 / lib['stateless_p50_ms']))
    for k, label in (('http_c1', 'HTTP, 1 in flight'), ('http_c8', 'HTTP, 8 in flight'),
                     ('stdio_c1', 'stdio, 1 in flight'), ('stdio_c8', 'stdio, 8 in flight')):
        r = report[k]
        print('%-22s %9.3f %9.3f %10.0f' % (label, r['p50_ms'], r['p99_ms'], r['calls_per_s']))
    base = report['http_c8']['calls_per_s']
    print('through HAProxy (packaging/deploy/cluster.sh), 8 in flight: ' + ', '.join(
        '%d server%s %.0f calls/s (%.2fx one server without it)' % (k, 's' if k > 1 else '', r['calls_per_s'],
                                                                    r['calls_per_s'] / base)
        for k, r in sorted(report['haproxy'].items())))
    pk, nat = report['packages'], report['packages']['native']
    above = pk['p50_ms'] - lib['stateless_p50_ms']
    print('%-22s %9.3f %9.3f %10.0f  (%s; %+.3f ms next to print(1))' % (
        'library, packages', pk['p50_ms'], pk['p99_ms'], 1000 / pk['p50_ms'], PACKAGES, above))
    print('native python3.11 %s: %.1f ms whole process (python3.11 -c pass: %.1f ms)' % (
        PACKAGES, nat['import_ms'], nat['pass_ms']))
    print('goal packages import <= 1 ms above print(1): %s (%+.3f ms)' % ('met' if above <= 1 else 'NOT met', above))
    js = report['javascript']
    print('%-22s %9.3f %9.3f %10.0f  (console.log(1))' % ('library, JavaScript', js['p50_ms'], js['p99_ms'],
                                                          1000 / js['p50_ms']))
    print('%-22s %9.3f %9.3f %10.0f  (require(\'lodash\'), preloaded)' % (
        'library, JS + lodash', js['lodash_p50_ms'], js['lodash_p99_ms'], 1000 / js['lodash_p50_ms']))
    print('goal require(\'lodash\') in a stateless call <= 1 ms: %s (%.3f ms)' % (
        'met' if js['lodash_p50_ms'] <= 1 else 'NOT met', js['lodash_p50_ms']))
    p50 = report['http_c1']['p50_ms']
    best = max(report['http_c1']['calls_per_s'], report['http_c8']['calls_per_s'])
    print('goal HTTP p50 <= 1 ms: %s (%.3f ms); goal >= 1000 calls/s: %s (%.0f)' % (
        'met' if p50 <= 1 else 'NOT met', p50, 'met' if best >= 1000 else 'NOT met', best))
    out = os.path.join(HERE, 'results')
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, 'mcp-%s.json' % time.strftime('%Y%m%d-%H%M%S'))
    with open(path, 'w') as fh:
        json.dump(report, fh, indent=1)
    print('written: %s' % os.path.relpath(path))


if __name__ == '__main__':
    main()
