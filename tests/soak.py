#!/usr/bin/env python3
"""make soak: mixed and hostile traffic through `wasmbox serve` (MCP over
HTTP, stateless 2026-07-28 requests), then checks that nothing leaked.

The mix, per call, at --concurrency clients in parallel: stateless Python
and JavaScript (their output checked), calls in the client's own session
(a counter it checks), forks of that session, write_file/read_file round
trips, and about 10 % hostile: the escape corpus (tests/escape, each with
the status its header expects), infinite loops under a short timeout,
memory bombs, output floods, and clients that hang up mid-call (the server
must stop the guest). At the end, after the server has been idle:
  - every call was answered with the status it should have;
  - the server's RSS, open fds and threads are back near the baseline taken
    after warm-up, and its workers are no more than the idle pool keeps;
  - $WASMBOX_HOME holds only the sessions that are alive;
  - each session's counter equals its successful calls (no commit lost).

usage: soak.py WASMBOX [--calls N] [--concurrency C] [--seed S]
Prints progress, one summary line, and exits non-zero on any failure.
"""
import argparse
import http.client
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
META = {'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}}
# what "back to the baseline" allows: the allocator keeps some of what peaked
RSS_SLACK = 64 << 20
FD_SLACK = 4
THREAD_SLACK = 4
IDLE_MAX = 12  # idle workers the library keeps (api/worker_parent.c)
WORKER_FDS = 2  # what the library holds of each: its socket and its cancel socket (api/worker_parent.c)


def proc_status(pid):
    out = {}
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            k, _, v = line.partition(':')
            out[k] = v.strip()
    return {'rss': int(out['VmRSS'].split()[0]) * 1024, 'threads': int(out['Threads']),
            'fds': len(os.listdir('/proc/%d/fd' % pid)), 'workers': len(children(pid))}


def children(pid):
    kids = []
    for p in os.listdir('/proc'):
        if not p.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % p) as f:
                stat = f.read()
        except OSError:
            continue
        if int(stat.rsplit(')', 1)[1].split()[1]) == pid:
            kids.append(int(p))
    return kids


class Client:
    """One keep-alive connection; tool calls as 2026-07-28 requests."""

    def __init__(self, port):
        self.port = port
        self.conn = http.client.HTTPConnection('127.0.0.1', port, timeout=120)
        self.id = 0

    def call(self, tool, args):
        self.id += 1
        body = json.dumps({'jsonrpc': '2.0', 'id': self.id, 'method': 'tools/call',
                           'params': {'name': tool, 'arguments': args, '_meta': META}})
        headers = {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream',
                   'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': tool}
        for attempt in range(2):
            try:
                self.conn.request('POST', '/mcp', body, headers)
                resp = self.conn.getresponse()
                data = resp.read()
                break
            except (ConnectionError, http.client.HTTPException):
                # a keep-alive connection the server closed while idle
                self.conn.close()
                self.conn = http.client.HTTPConnection('127.0.0.1', self.port, timeout=120)
                if attempt:
                    raise
        if resp.status != 200:
            raise AssertionError('%s: HTTP %d %s' % (tool, resp.status, data[:300]))
        msg = json.loads(data)
        if 'result' not in msg:
            raise AssertionError('%s: %s' % (tool, msg))
        return msg['result']

    def hang_up(self, code):
        """Send a call and leave before its answer."""
        self.id += 1
        body = json.dumps({'jsonrpc': '2.0', 'id': self.id, 'method': 'tools/call',
                           'params': {'name': 'execute_code', 'arguments': {'code': code, 'timeout_seconds': 30},
                                      '_meta': META}}).encode()
        s = socket.create_connection(('127.0.0.1', self.port))
        s.sendall(b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n'
                  b'Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n'
                  b'Mcp-Method: tools/call\r\nMcp-Name: execute_code\r\nContent-Length: %d\r\n\r\n' % len(body) + body)
        time.sleep(0.05)
        s.close()


def load_corpus():
    """The escape programs whose expectations hold through MCP: options the
    server takes per call (timeout, memory), and an expected status."""
    progs = []
    d = os.path.join(HERE, 'escape')
    for name in sorted(os.listdir(d)):
        code = open(os.path.join(d, name), encoding='utf-8', errors='surrogateescape').read()
        opts = dict(re.findall(r'^(?:#|//) option (\w+) (\S+)', code, re.M))
        status = re.findall(r'^(?:#|//) expect status (\w+)', code, re.M)
        if set(opts) - {'timeout', 'memory'} or not status:
            continue
        args = {'code': code, 'language': 'javascript' if name.endswith(('.js', '.mjs')) else 'python',
                'timeout_seconds': float(opts.get('timeout', 10))}
        if 'memory' in opts:
            args['memory_mb'] = int(opts['memory'])
        progs.append((name, args, status[0]))
    return progs


class Soak:
    def __init__(self, port, corpus, seed):
        self.port = port
        self.corpus = corpus
        self.lock = threading.Lock()
        self.counts = {}
        self.failures = []
        self.sessions = {}  # session id -> successful counter calls
        self.rng = random.Random(seed)

    def note(self, kind, ok, why=''):
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            if not ok:
                self.failures.append('%s: %s' % (kind, why))

    def expect(self, kind, res, status, stdout=None):
        s = res.get('structuredContent') or {}
        ok = s.get('status') == status and (stdout is None or s.get('stdout') == stdout)
        self.note(kind, ok, 'wanted %s %r, got %s %r %s' % (status, stdout, s.get('status'), s.get('stdout'),
                                                             (s.get('error') or {}).get('message', '')[:200]))
        return ok

    def worker(self, n, calls, rng):
        c = Client(self.port)
        sid = c.call('create_session', {})['structuredContent']['session_id']
        c.call('execute_code', {'code': 'n = 0', 'session_id': sid})
        mine = 0
        with self.lock:
            self.sessions[sid] = 0
        for i in range(calls):
            r = rng.random()
            try:
                if r < 0.40:
                    k = rng.randrange(1000)
                    self.expect('stateless', c.call('execute_code', {'code': 'print(sum(range(%d)))' % k}), 'ok',
                                '%d\n' % sum(range(k)))
                elif r < 0.45:
                    self.expect('javascript', c.call('execute_code', {'code': 'console.log([1,2,3].map(x => x * %d))'
                                                                      % i, 'language': 'javascript'}),
                                'ok', '[ %d, %d, %d ]\n' % (i, 2 * i, 3 * i))
                elif r < 0.68:
                    res = c.call('execute_code', {'code': 'n += 1\nprint(n)', 'session_id': sid})
                    if self.expect('session', res, 'ok', '%d\n' % (mine + 1)):
                        mine += 1
                        with self.lock:
                            self.sessions[sid] = mine
                elif r < 0.72:
                    fork = c.call('fork_session', {'session_id': sid})['structuredContent']['session_id']
                    self.expect('fork', c.call('execute_code', {'code': 'print(n)', 'session_id': fork}), 'ok',
                                '%d\n' % mine)
                    c.call('destroy_session', {'session_id': fork})
                elif r < 0.80:
                    text = 'line %d of client %d\n' % (i, n) * rng.randrange(1, 50)
                    c.call('write_file', {'session_id': sid, 'path': 'data/f%d.txt' % (i % 5), 'content': text})
                    got = c.call('read_file', {'session_id': sid, 'path': 'data/f%d.txt' % (i % 5)})
                    self.note('files', got['structuredContent']['content'] == text, 'read back differs')
                elif r < 0.90:
                    k = rng.randrange(1000)
                    self.expect('stateless', c.call('execute_code', {'code': 'import json\nprint(json.dumps(%d))' % k}),
                                'ok', '%d\n' % k)
                else:
                    self.hostile(c, rng)
            except Exception as e:  # a dropped connection, a malformed answer: a failure, the soak goes on
                self.note('exception', False, repr(e)[:300])
                c = Client(self.port)
        # the session's state as committed: one more call must see the counter
        res = c.call('execute_code', {'code': 'print(n)', 'session_id': sid})
        self.expect('final', res, 'ok', '%d\n' % mine)

    def hostile(self, c, rng):
        r = rng.random()
        if r < 0.5:
            name, args, status = rng.choice(self.corpus)
            self.expect('escape', c.call('execute_code', args), status)
        elif r < 0.65:
            self.expect('loop', c.call('execute_code', {'code': 'while True: pass', 'timeout_seconds': 0.2}),
                        'timeout')
        elif r < 0.8:
            self.expect('bomb', c.call('execute_code', {'code': 'x = []\nwhile True: x.append(bytearray(1 << 20))',
                                                        'memory_mb': 64}), 'out_of_memory')
        elif r < 0.9:
            res = c.call('execute_code', {'code': 'while True: print("flood" * 100)', 'timeout_seconds': 0.3})
            s = res['structuredContent']
            self.note('flood', s['status'] == 'timeout' and s['stdout_truncated'], 'status %s' % s['status'])
        else:
            c.hang_up('while True: pass')
            self.note('hang_up', True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('wasmbox')
    ap.add_argument('--calls', type=int, default=100000)
    ap.add_argument('--concurrency', type=int, default=8)
    ap.add_argument('--seed', type=int, default=1)
    a = ap.parse_args()
    home = tempfile.mkdtemp(prefix='wasmbox-soak-')
    env = dict(os.environ, WASMBOX_HOME=home)
    srv = subprocess.Popen([a.wasmbox, 'serve', '--listen', '127.0.0.1:0', '--max-output', '65536'],
                           stderr=subprocess.PIPE, env=env)
    try:
        line = srv.stderr.readline().decode()
        port = int(re.search(r':(\d+)/mcp', line).group(1))
        threading.Thread(target=lambda: srv.stderr.read(), daemon=True).start()
        soak = Soak(port, load_corpus(), a.seed)
        warm = Client(port)
        for _ in range(50):
            warm.call('execute_code', {'code': 'print(1)'})
            warm.call('execute_code', {'code': 'print(1)', 'session_id': warm.call(
                'create_session', {})['structuredContent']['session_id']})
        for s in warm.call('list_sessions', {})['structuredContent']['sessions']:
            warm.call('destroy_session', {'session_id': s['session_id']})
        time.sleep(1)
        base = proc_status(srv.pid)
        t0 = time.time()
        per = a.calls // a.concurrency
        threads = [threading.Thread(target=soak.worker, args=(n, per, random.Random(a.seed * 1000 + n)))
                   for n in range(a.concurrency)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.time() - t0
        # idle: the hung-up guests are stopped, idle workers settle
        time.sleep(3)
        end = proc_status(srv.pid)
        c = Client(port)
        live = {s['session_id'] for s in c.call('list_sessions', {})['structuredContent']['sessions']}
        on_disk = {d for d in os.listdir(os.path.join(home, 'sessions')) if not d.startswith('.')}
        problems = list(soak.failures)
        if live != set(soak.sessions):
            problems.append('sessions alive %s, expected %s' % (sorted(live), sorted(soak.sessions)))
        if on_disk != live:
            problems.append('state directory holds %s, alive are %s' % (sorted(on_disk - live), sorted(live)))
        if end['rss'] > base['rss'] + RSS_SLACK:
            problems.append('RSS grew from %d to %d MB' % (base['rss'] >> 20, end['rss'] >> 20))
        # each worker is WORKER_FDS sockets here; the pool keeps up to
        # IDLE_MAX idle workers (api/worker_parent.c) for the next calls
        def besides(s):
            return s['fds'] - WORKER_FDS * s['workers']
        if besides(end) > besides(base) + FD_SLACK:
            problems.append('open fds besides the workers\' grew from %d to %d' % (besides(base), besides(end)))
        if end['threads'] > base['threads'] + THREAD_SLACK:
            problems.append('threads grew from %d to %d' % (base['threads'], end['threads']))
        if end['workers'] > IDLE_MAX:
            problems.append('%d workers left, more than the %d idle ones the pool keeps' % (end['workers'], IDLE_MAX))
        total = sum(soak.counts.values())
        summary = {'calls': total, 'wall_s': round(wall, 1), 'calls_per_s': round(total / wall, 1),
                   'kinds': soak.counts, 'baseline': base, 'end': end, 'failures': len(problems)}
        print(json.dumps(summary))
        for p in problems[:50]:
            print('FAIL', p)
        if srv.poll() is not None:
            problems.append('the server died: %d' % srv.returncode)
        return 1 if problems else 0
    finally:
        srv.send_signal(signal.SIGTERM)
        try:
            srv.wait(10)
        except subprocess.TimeoutExpired:
            srv.kill()
        subprocess.run(['rm', '-rf', home])


if __name__ == '__main__':
    sys.exit(main())
