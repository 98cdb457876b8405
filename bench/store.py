#!/usr/bin/env python3
"""make bench (session store part): a session call with its commit (one
small change to a 50 MB heap, bench/load.c's session workload) through the
local directory store and through PostgreSQL on loopback (packaging/deploy/pg.sh,
--store), in the same run, rounds interleaved so that both see the same
machine. Goal: PostgreSQL's p50 within 2x the local store's.

usage: store.py LOAD [CALLS]
JSON goes to bench/results/store-<time>.json.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def measure(load, calls, store):
    env = dict(os.environ, WASMBOX_STORE=store)
    p = subprocess.run([load, 'session', str(calls)], capture_output=True, text=True, env=env, timeout=600)
    if p.returncode:
        sys.exit('load session failed (%s):\n%s' % (store or 'local', p.stderr))
    return json.loads(p.stdout)['session_latency_ms']


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def main():
    load = os.path.abspath(sys.argv[1])
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    d = tempfile.mkdtemp(prefix='wasmbox-bench-store-')
    pg = os.path.join(HERE, '..', 'packaging', 'deploy', 'pg.sh')
    try:
        url = subprocess.run(['bash', pg, 'start', d, str(17400 + os.getpid() % 500)], capture_output=True,
                             text=True, check=True).stdout.strip()
        local, remote = [], []
        for _ in range(3):
            local += measure(load, calls, '')
            remote += measure(load, calls, url)
    finally:
        subprocess.run(['bash', pg, 'stop', d], capture_output=True)
        shutil.rmtree(d, ignore_errors=True)
    report = {'machine': os.uname().nodename, 'cpus': os.cpu_count(), 'time': time.strftime('%Y-%m-%dT%H:%M:%S'),
              'calls': 3 * calls, 'local_ms': local, 'postgres_ms': remote}
    ratio = pct(remote, 0.5) / pct(local, 0.5)
    print('session call with commit (50 MB heap, one change per call), %d calls each:' % (3 * calls))
    print('%-34s %9s %9s' % ('', 'p50 ms', 'p99 ms'))
    print('%-34s %9.3f %9.3f' % ('local directory store', pct(local, 0.5), pct(local, 0.99)))
    print('%-34s %9.3f %9.3f' % ('PostgreSQL on loopback (--store)', pct(remote, 0.5), pct(remote, 0.99)))
    print('goal PostgreSQL p50 <= 2x local: %s (%.2fx)' % ('met' if ratio <= 2 else 'NOT met', ratio))
    out = os.path.join(HERE, 'results')
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, 'store-%s.json' % time.strftime('%Y%m%d-%H%M%S'))
    with open(path, 'w') as fh:
        json.dump(report, fh)
    print('written: %s' % os.path.relpath(path))


if __name__ == '__main__':
    main()
