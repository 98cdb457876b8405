#!/usr/bin/env python3
"""Bounded waits on the shared session store (docs/deploy.md "Running several
servers"), against one `wasmbox serve --store` with a short --store-timeout
and few --store-connections, and PostgreSQL from packaging/deploy/pg.sh in a
temporary directory:
- a call on a session that another call holds gives up after the timeout
  with "busy" (lock_timeout holds on every connection, not only the first);
- past --store-connections a session call fails at once, "session store
  busy: N connections in use";
- PostgreSQL paused (SIGSTOP on this test's postmaster and its backends,
  never another cluster's) for 10 s under load: stateless calls go on in
  their usual time, session calls fail within the timeout naming the
  session store, and after SIGCONT the session has its last commit and
  calls work again.
Prints "ok N - what" / "not ok N - what" and "N passed, N failed".

usage: store_faults.py WASMBOX
"""
import http.client
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import check, finish  # noqa: E402


W = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
PG = os.path.join(HERE, '..', 'packaging', 'deploy', 'pg.sh')
DIR = tempfile.mkdtemp(prefix='wasmbox-faults-')
PORT = 16400 + os.getpid() % 500 * 2
TIMEOUT = 3  # --store-timeout: replies are waited for TIMEOUT + 2 s at most
CONNS = 2    # --store-connections
PAUSE = 10
TOKEN = os.urandom(16).hex()



def post(body, sid=None, timeout=60):
    h = {'Content-Type': 'application/json', 'Accept': 'application/json', 'Authorization': 'Bearer ' + TOKEN,
         'MCP-Protocol-Version': '2025-11-25'}
    if sid:
        h['Mcp-Session-Id'] = sid
    c = http.client.HTTPConnection('127.0.0.1', PORT, timeout=timeout)
    try:
        c.request('POST', '/mcp', body=json.dumps(body).encode(), headers=h)
        r = c.getresponse()
        data = r.read()
        return r.status, dict((k.lower(), v) for k, v in r.getheaders()), json.loads(data) if data else None
    except (OSError, http.client.HTTPException, ValueError) as e:
        return 0, {}, {'transport_error': repr(e)}
    finally:
        c.close()


def initialize():
    _, h, _ = post({'jsonrpc': '2.0', 'id': 0, 'method': 'initialize', 'params': {
        'protocolVersion': '2025-11-25', 'capabilities': {}, 'clientInfo': {'name': 'faults', 'version': '1'}}})
    sid = h.get('mcp-session-id')
    post({'jsonrpc': '2.0', 'method': 'notifications/initialized'}, sid)
    return sid


def tool(sid, name, args, timeout=60):
    """(seconds taken, structuredContent, the whole answer as text)"""
    t0 = time.monotonic()
    st, _, js = post({'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call', 'params': {'name': name, 'arguments': args}},
                     sid, timeout)
    result = (js or {}).get('result') or {}
    return time.monotonic() - t0, result.get('structuredContent') if st == 200 else None, json.dumps(js)


def in_background(fn, *args):
    out = {}
    t = threading.Thread(target=lambda: out.update(r=fn(*args)))
    t.start()
    return t, out


def postgres_pids():
    """This test's postmaster (its data directory's postmaster.pid) and its children."""
    with open(os.path.join(DIR, 'pg', 'data', 'postmaster.pid')) as f:
        master = int(f.readline())
    kids = []
    for p in os.listdir('/proc'):
        if p.isdigit():
            try:
                with open('/proc/%s/stat' % p) as f:
                    if int(f.read().rsplit(')', 1)[1].split()[1]) == master:
                        kids.append(int(p))
            except (OSError, ValueError, IndexError):
                pass
    return [master] + kids


def main():
    out = subprocess.run(['bash', PG, 'start', DIR, str(PORT + 1)], capture_output=True, text=True, timeout=600)
    url = out.stdout.strip()
    check('a PostgreSQL for the test (%s)' % url, out.returncode == 0 and url.startswith('postgres://'))
    if out.returncode:
        print(out.stderr)
        return
    with open(os.path.join(DIR, 'tokens'), 'w') as f:
        f.write('agent %s\n' % TOKEN)
    os.chmod(os.path.join(DIR, 'tokens'), 0o600)
    with open(os.path.join(DIR, 'session.key'), 'wb') as f:
        f.write(os.urandom(48))
    os.chmod(os.path.join(DIR, 'session.key'), 0o600)
    server = subprocess.Popen([W, 'serve', '--listen', '127.0.0.1:%d' % PORT, '--store', url, '--tokens',
                               os.path.join(DIR, 'tokens'), '--session-key', os.path.join(DIR, 'session.key'),
                               '--store-timeout', str(TIMEOUT), '--store-connections', str(CONNS)],
                              env=dict(os.environ, WASMBOX_HOME=os.path.join(DIR, 'home')),
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline()
        check('a server with --store-timeout %d --store-connections %d (%s)' % (TIMEOUT, CONNS, line.strip()[:60]),
              'listening' in line)
        threading.Thread(target=server.stderr.read, daemon=True).start()  # its warnings, unread
        faults(initialize())
    finally:
        server.terminate()
        server.wait()


def faults(sid):
    sessions = [(tool(sid, 'create_session', {})[1] or {}).get('session_id') for _ in range(3)]
    for s in sessions:
        tool(sid, 'execute_code', {'session_id': s, 'code': 'x = 1'})

    # another call's lease: given up after the timeout (lock_timeout), on a
    # connection of its own that never ran the schema
    holder, _ = in_background(tool, sid, 'execute_code',
                              {'session_id': sessions[0], 'code': 'import time\ntime.sleep(%d)' % (TIMEOUT + 3)})
    time.sleep(1)
    took, r, text = tool(sid, 'execute_code', {'session_id': sessions[0], 'code': 'x += 1'})
    check('a call on a session another call holds gives up after --store-timeout, "busy" (%.1f s: %s)'
          % (took, text[:200]), TIMEOUT - 0.5 < took < TIMEOUT + 2 and 'is busy' in text
          and not (r and r.get('status') == 'ok'))
    holder.join()

    # the cap: every connection held by running session calls
    held = [in_background(tool, sid, 'execute_code', {'session_id': s, 'code': 'import time\ntime.sleep(3)'})[0]
            for s in sessions[:CONNS]]
    time.sleep(1)
    took, r, text = tool(sid, 'execute_code', {'session_id': sessions[2], 'code': 'x += 1'})
    check('past --store-connections a session call fails at once: "session store busy: %d connections in use" '
          '(%.2f s: %s)' % (CONNS, took, text[:160]),
          took < 1 and 'session store busy: %d connections in use' % CONNS in text)
    took, r, _ = tool(sid, 'execute_code', {'code': 'print(6 * 7)'})
    check('... while stateless calls go on (%.2f s)' % took, r and r['stdout'] == '42\n')
    for t in held:
        t.join()
    _, r, _ = tool(sid, 'execute_code', {'session_id': sessions[2], 'code': 'x += 1\nprint(x)'})
    check('... and once they end, session calls work again', r and r['stdout'] == '2\n')

    # PostgreSQL paused under load
    before = [tool(sid, 'execute_code', {'code': 'print(6 * 7)'})[0] for _ in range(10)]
    ses = sessions[1]
    _, r, _ = tool(sid, 'execute_code', {'session_id': ses, 'code': 'x = 41\nprint(x)'})
    committed = r and r['stdout'] == '41\n'
    stop = time.monotonic() + PAUSE
    stateless, failures, session_calls = [], [], []

    def stateless_load():
        while time.monotonic() < stop - 1:
            took, r, text = tool(sid, 'execute_code', {'code': 'print(6 * 7)'})
            stateless.append(took)
            if not (r and r['stdout'] == '42\n'):
                failures.append(text[:200])

    def session_load():
        while time.monotonic() < stop - TIMEOUT - 3:
            took, r, text = tool(sid, 'execute_code', {'session_id': ses, 'code': 'x += 1\nprint(x)'})
            session_calls.append((took, r and r.get('status'), text))
            time.sleep(0.2)

    pids = postgres_pids()
    for p in pids:
        os.kill(p, signal.SIGSTOP)
    try:
        load = [threading.Thread(target=stateless_load) for _ in range(3)] + [threading.Thread(target=session_load)]
        for t in load:
            t.start()
        for t in load:
            t.join()
        time.sleep(max(0, stop - time.monotonic()))
    finally:
        for p in reversed(pids):
            os.kill(p, signal.SIGCONT)
    worst = max(stateless) if stateless else 0
    check('PostgreSQL paused %d s (%d processes): %d stateless calls went on, the slowest %.2f s, median %.3f s '
          '(before: median %.3f s, slowest %.3f s)' % (PAUSE, len(pids), len(stateless), worst,
                                                     statistics.median(stateless) if stateless else 0,
                                                     statistics.median(before), max(before)),
          committed and len(stateless) >= 10 and not failures and worst < 2)
    if failures:
        print('    ' + failures[0])
    # a call waits for the store once (the reply: --store-timeout + 2 s, or a
    # connection: 5 s) after at most 1 s of the ended check; while the pool's
    # connections are all waiting, others fail at once as "busy"
    clear = [c for c in session_calls if c[1] != 'ok' and 'session store' in c[2]]
    waited = [c for c in clear if 'no answer within' in c[2]]
    check('... session calls failed within the timeout, naming the session store (%s; %d of them "busy")'
          % (', '.join('%.1f s' % c[0] for c in session_calls), len(clear) - len(waited)),
          session_calls and len(clear) == len(session_calls) and all(c[0] < TIMEOUT + 5 for c in session_calls)
          and waited)
    if waited:
        print('    ' + json.loads(waited[0][2])['result']['content'][0]['text'])
    got = None
    for _ in range(20):  # the backends of the calls given up see their clients gone
        _, r, _ = tool(sid, 'execute_code', {'session_id': ses, 'code': 'x += 1\nprint(x)'})
        if r and r['status'] == 'ok':
            got = r['stdout']
            break
        time.sleep(0.5)
    check('after SIGCONT the session has its last commit and calls work again (%r)' % got, got == '42\n')
    took, r, _ = tool(sid, 'execute_code', {'code': 'print(6 * 7)'})
    check('... stateless calls too (%.2f s)' % took, r and r['stdout'] == '42\n' and took < 2)


try:
    main()
finally:
    subprocess.run(['bash', PG, 'stop', DIR], capture_output=True, timeout=120)
    shutil.rmtree(DIR, ignore_errors=True)
finish()
