#!/usr/bin/env python3
"""Several `wasmbox serve` behind HAProxy with their sessions in PostgreSQL
(packaging/deploy/cluster.sh), as a team would run them: one MCP session and one
sandbox session used through the balancer while calls land on different
servers, each with a cache of its own; servers killed with SIGKILL in the
middle of calls, 50 times; two clients hammering one session; the database
stopped and started again under running servers. Prints "ok N - what" /
"not ok N - what" and "N passed, N failed".

usage: cluster.py WASMBOX
"""
import http.client
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jose import Key, jwt  # noqa: E402
from tap import check, finish  # noqa: E402

W = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER = os.path.join(HERE, '..', 'packaging', 'deploy', 'cluster.sh')
PG = os.path.join(HERE, '..', 'packaging', 'deploy', 'pg.sh')
DIR = tempfile.mkdtemp(prefix='wasmbox-cluster-')
PORT = 18800 + os.getpid() % 1000 * 10



def cluster(cmd):
    return subprocess.run(['bash', CLUSTER, cmd, DIR, '3', str(PORT)], capture_output=True, text=True,
                          env=dict(os.environ, WASMBOX=W), timeout=120)


TOKEN = None


def post(port, body, sid=None, timeout=60, token=None):
    """One JSON-RPC request: (HTTP status, headers by lowercase name, parsed body or None)."""
    h = {'Content-Type': 'application/json', 'Accept': 'application/json',
         'Authorization': 'Bearer ' + (token or TOKEN),
         'MCP-Protocol-Version': '2025-11-25'}
    if sid:
        h['Mcp-Session-Id'] = sid
    c = http.client.HTTPConnection('127.0.0.1', port, timeout=timeout)
    try:
        c.request('POST', '/mcp', body=json.dumps(body).encode(), headers=h)
        r = c.getresponse()
        data = r.read()
    except (OSError, http.client.HTTPException) as e:
        return 0, {}, {'transport_error': repr(e)}
    finally:
        c.close()
    try:
        js = json.loads(data) if data else None
    except ValueError:
        js = None
    return r.status, {k.lower(): v for k, v in r.getheaders()}, js  # (HAProxy lowercases names)


def initialize(port, token=None):
    st, h, js = post(port, {'jsonrpc': '2.0', 'id': 0, 'method': 'initialize', 'params': {
        'protocolVersion': '2025-11-25', 'capabilities': {}, 'clientInfo': {'name': 'cluster', 'version': '1'}}},
        token=token)
    sid = h.get('mcp-session-id')
    post(port, {'jsonrpc': '2.0', 'method': 'notifications/initialized'}, sid, token=token)
    return st, sid


def tool(port, sid, name, args, timeout=60, token=None):
    st, _, js = post(port, {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call',
                            'params': {'name': name, 'arguments': args}}, sid, timeout, token)
    result = (js or {}).get('result') or {}
    return st, result.get('structuredContent'), result.get('isError'), js


def server_pids():
    return [int(open(os.path.join(DIR, 'server%d.pid' % k)).read()) for k in (1, 2, 3)]


def psql_meta(sid):
    """The store's meta of a session, as text (mount names decoded)."""
    url = STORE.split('?')[0]
    p = subprocess.run(['psql', url, '-At', '-c', "SELECT encode(meta, 'escape') FROM wasmbox_sessions WHERE id = '%s'"
                        % sid], capture_output=True, text=True, timeout=30)
    out = []
    for line in p.stdout.splitlines():
        parts = line.split()
        if not parts:
            continue
        out.append(' '.join([parts[0]] + [bytes.fromhex(x).decode(errors='replace') if len(x) % 2 == 0 and all(
            c in '0123456789abcdef' for c in x) else x for x in parts[1:]]))
    return '; '.join(out)


def established(port):
    """Whether a TCP connection to this local port is open (from HAProxy)."""
    with open('/proc/net/tcp') as f:
        rows = [line.split() for line in f.readlines()[1:]]
    return any(int(r[1].split(':')[1], 16) == port and r[3] == '01' for r in rows)


def log_lines(k):
    try:
        with open(os.path.join(DIR, 'server%d.log' % k)) as f:
            return [json.loads(x) for x in f if x.strip()]
    except OSError:
        return []


def serve(k, *extra):
    """A server at PORT + k with state directory homeK, on the cluster's store, tokens and session key."""
    p = subprocess.Popen([W, 'serve', '--listen', '127.0.0.1:%d' % (PORT + k), '--store', STORE, '--tokens',
                          os.path.join(DIR, 'tokens'), '--session-key', os.path.join(DIR, 'session.key'), *extra],
                         env=dict(os.environ, WASMBOX_HOME=os.path.join(DIR, 'home%d' % k)),
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    p.stderr.readline()  # "listening on ..."
    return p


def restart(k):
    """Server k again, as cluster.sh started it."""
    p = serve(k, '--access-log', os.path.join(DIR, 'server%d.log' % k))
    with open(os.path.join(DIR, 'server%d.pid' % k), 'w') as f:
        f.write(str(p.pid))
    return p


STORE = None

# An upstream MCP server (stdio) with one tool, "drop", that the servers'
# configuration makes wait for approval.
UPSTREAM = r"""
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if 'id' not in m:
        continue
    if m['method'] == 'initialize':
        r = {'protocolVersion': m['params']['protocolVersion'], 'capabilities': {'tools': {}},
             'serverInfo': {'name': 'ops', 'version': '1'}}
    elif m['method'] == 'tools/list':
        r = {'tools': [{'name': 'drop', 'description': 'Drops.', 'inputSchema': {'type': 'object'}}]}
    elif m['method'] == 'tools/call':
        r = {'content': [{'type': 'text', 'text': 'dropped'}]}
    else:
        r = {}
    print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': r}), flush=True)
"""


def main():
    global TOKEN, STORE
    # three clients: agent, a rival tenant and an operator
    rival, ops = os.urandom(16).hex(), os.urandom(16).hex()
    with open(os.path.join(DIR, 'tokens'), 'w') as f:
        f.write('agent %s\nrival %s\nops %s role=admin\n' % (os.urandom(16).hex(), rival, ops))
    os.chmod(os.path.join(DIR, 'tokens'), 0o600)
    out = cluster('start')
    check('make cluster: three servers and HAProxy start (%s)' % out.stdout.strip()[:80], out.returncode == 0)
    if out.returncode:
        print(out.stdout, out.stderr)
        return
    TOKEN = open(os.path.join(DIR, 'tokens')).read().split()[1]
    STORE = open(os.path.join(DIR, 'store')).read().strip()

    st, sid = initialize(PORT)
    check('an MCP session through the balancer: a signed id', st == 200 and sid and len(sid) == 56)
    st, made, _, _ = tool(PORT, sid, 'create_session', {})
    ses = (made or {}).get('session_id')
    check('a sandbox session made through the balancer', st == 200 and ses)
    oks = 0
    tool(PORT, sid, 'execute_code', {'session_id': ses, 'code': 'counter = 0\nopen("/app/log.txt", "w").write("")'})
    for i in range(12):
        st, r, _, _js = tool(PORT, sid, 'execute_code', {
            'session_id': ses, 'code': 'counter += 1\nopen("/app/log.txt", "a").write("%d\\n")\nprint(counter)' % i})
        oks += bool(st == 200 and r and r['status'] == 'ok' and r['stdout'] == '%d\n' % (i + 1))
        if not (r and r['status'] == 'ok'):
            print('    call %d: %r' % (i, _js))
    check('12 calls in a row keep the state: counter and file (%d of 12 right)' % oks, oks == 12)
    served = [k for k in (1, 2, 3) if any(e.get('mcp_session') == sid and e.get('status') == 200 for e in log_lines(k))]
    check('the calls were served by more than one server (%s)' % served, len(served) >= 2)
    st, f, _, _ = tool(PORT, sid, 'read_file', {'session_id': ses, 'path': 'log.txt'})
    check('the file tools see every call\'s writes', st == 200 and f and f['content'] == ''.join('%d\n' % i for i in range(12)))
    st, fk, _, _ = tool(PORT, sid, 'fork_session', {'session_id': ses})
    st2, cp, _, _ = tool(PORT, sid, 'checkpoint_session', {'session_id': ses})
    tool(PORT, sid, 'execute_code', {'session_id': ses, 'code': 'counter = 1000'})
    st3, _, _, _ = tool(PORT, sid, 'restore_session', {'session_id': ses, 'checkpoint_id': (cp or {}).get('checkpoint_id')})
    _, r1, _, _ = tool(PORT, sid, 'execute_code', {'session_id': ses, 'code': 'print(counter)'})
    _, r2, _, _ = tool(PORT, sid, 'execute_code', {'session_id': (fk or {}).get('session_id'), 'code': 'print(counter)'})
    # tenants across servers: the owner is in the store, so a server that
    # never had the session in its cache refuses the rival as well
    rst, rsid = initialize(PORT + 3, rival)
    answers = []
    for k in (1, 2, 3):
        _, r, err, js = tool(PORT + k, rsid, 'execute_code', {'session_id': ses, 'code': 'print(counter)'},
                             token=rival)
        _, g, gerr, gjs = tool(PORT + k, rsid, 'execute_code', {'session_id': 's' + '0' * 24, 'code': '1'},
                               token=rival)
        answers.append(bool(err) and json.dumps(js['result']['content']).replace(ses, 's' + '0' * 24) ==
                       json.dumps(gjs['result']['content']))
    _, listed, _, _ = tool(PORT + 2, rsid, 'list_sessions', {}, token=rival)
    check('a rival client on each server: the session is "no session", as one that never was (%s)' % answers,
          all(answers) and ses not in json.dumps(listed))
    ost, osid = initialize(PORT + 1, ops)
    _, listed, _, _ = tool(PORT + 1, osid, 'list_sessions', {}, token=ops)
    owners = {x['session_id']: x.get('owner') for x in (listed or {}).get('sessions', [])}
    _, r, _, _ = tool(PORT + 2, osid, 'execute_code', {'session_id': ses, 'code': 'print(counter)'}, token=ops)
    check('the admin sees it with its owner, from the store (%s), and may use it' % owners.get(ses),
          owners.get(ses) == 'agent' and r and r['stdout'] == '12\n')
    check('fork, checkpoint and restore through the balancer',
          st == st2 == st3 == 200 and r1 and r1['stdout'] == '12\n' and r2 and r2['stdout'] == '12\n')

    # a server killed in the middle of a call on the session. The call either
    # committed whole or not at all - memory and files together - and the
    # next call (on another server) sees that committed state. Which of the
    # two is not always knowable to the client (the server may die after the
    # commit, before the answer): only an answer of "ok" says it committed.
    procs = {}
    tool(PORT, sid, 'execute_code', {'session_id': ses, 'code': 'kills = 0\nopen("/app/kills.txt", "w").write("")'})
    before = 0
    bad = bounced = committed_unseen = 0
    ROUNDS = 50
    for round_ in range(ROUNDS):
        k = random.randint(1, 3)
        pid = server_pids()[k - 1]
        res = {}

        def slow():
            res['r'] = tool(PORT + k, sid, 'execute_code', {
                'session_id': ses,
                'code': 'import time\ntime.sleep(0.4)\nkills += 1\nopen("/app/kills.txt", "a").write("x")\nprint(kills)'})
        t = threading.Thread(target=slow)
        t.start()
        time.sleep(random.uniform(0.05, 0.6))
        os.kill(pid, signal.SIGKILL)
        t.join()
        st, r, _, _ = res['r']
        answered_ok = st == 200 and r and r['status'] == 'ok'
        if not answered_ok and st not in (0, 502, 503):
            bad += 1
            print('    round %d: the interrupted call got %r %r' % (round_, st, r))
        # until HAProxy's health check has seen the death (0.5 s), a request
        # may still reach the dead server and get 502, a clear status
        for _ in range(10):
            st, r, _, _ = tool(PORT, sid, 'execute_code', {
                'session_id': ses, 'code': 'print(kills, len(open("/app/kills.txt").read()))'})
            if st not in (502, 503):
                break
            bounced += 1
            time.sleep(0.2)
        got = r['stdout'].split() if st == 200 and r else None
        ok = got and got[0] == got[1] and int(got[0]) in ((before + 1,) if answered_ok else (before, before + 1))
        if not ok:
            bad += 1
            print('    round %d: after killing server %d: %r %r (was %d, the call answered %s)'
                  % (round_, k, st, got, before, 'ok' if answered_ok else 'nothing'))
        else:
            committed_unseen += not answered_ok and int(got[0]) == before + 1
            before = int(got[0])
        procs[k] = restart(k)
        time.sleep(0.6)  # health checks see it again
    check('%d servers killed mid-call at random points: each call committed whole (memory and files) or not at '
          'all, an "ok" always committed, the next call (another server) saw the committed state (%d committed '
          'unanswered, %d answered 502 first)' % (ROUNDS, committed_unseen, bounced), bad == 0)

    # a server that dies after taking a call through the balancer: the client
    # gets 502 and decides; HAProxy does not replay the call on another server
    # (the code, and any tool it called, would run twice)
    tool(PORT, sid, 'execute_code', {'session_id': ses, 'code': 'runs = 0'})
    res = {}

    def slow_via_balancer():
        res['r'] = tool(PORT, sid, 'execute_code', {
            'session_id': ses, 'code': 'import time\nruns += 1\ntime.sleep(1.5)\nprint(runs)'})
    t = threading.Thread(target=slow_via_balancer)
    t.start()
    handler, seen = None, set()
    for _ in range(20):  # the server holding a connection in two polls (a health check's is brief)
        time.sleep(0.05)
        now = {k for k in (1, 2, 3) if established(PORT + k)}
        both = now & seen
        if both:
            handler = both.pop()
            break
        seen = now
    if handler:
        os.kill(server_pids()[handler - 1], signal.SIGKILL)
    t.join()
    st, r, _, _ = res['r']
    check('a server killed holding a call through the balancer: the client gets 502, no replay elsewhere '
          '(server %s, got %s %r)' % (handler, st, r and r.get('stdout')), handler and st == 502)
    if handler:
        procs[handler] = restart(handler)
        time.sleep(0.6)
    _, r, _, _ = tool(PORT, sid, 'execute_code', {'session_id': ses, 'code': 'print(runs)'})
    check('... and the interrupted call did not commit (%r)' % (r and r.get('stdout')), r and r['stdout'] == '0\n')

    # /external across servers: the store keeps the mount's name, and each
    # server mounts its own copy (two more servers, with --external-files)
    ext = os.path.join(DIR, 'ext')
    os.makedirs(ext, exist_ok=True)
    with open(os.path.join(ext, 'shared.txt'), 'w') as f:
        f.write('from the operator\n')
    # they also take OAuth access tokens: a third kind of client
    issuer, resource, key = 'https://issuer.cluster.test', 'https://mcp.cluster.test/mcp', Key('EC', 'k1')
    with open(os.path.join(DIR, 'jwks.json'), 'w') as f:
        json.dump({'keys': [key.jwk()]}, f)
    extra = [serve(k, '--external-files', os.path.join(ext, 'shared.txt'), '--oauth-issuer', issuer,
                   '--oauth-jwks', os.path.join(DIR, 'jwks.json'), '--oauth-resource', resource) for k in (7, 8)]
    now = int(time.time())
    carol = jwt(key, {'alg': 'ES256', 'typ': 'JWT', 'kid': 'k1'},
                {'iss': issuer, 'aud': resource, 'sub': 'carol', 'exp': now + 900, 'iat': now})
    _, esid = initialize(PORT + 7)
    _, made, _, _ = tool(PORT + 7, esid, 'create_session', {})
    eses = (made or {}).get('session_id')
    tool(PORT + 7, esid, 'execute_code', {'session_id': eses, 'code': 'y = open("/external/shared.txt").read()'})
    _, r8, _, _ = tool(PORT + 8, esid, 'execute_code', {'session_id': eses,
                                                          'code': 'print(y == open("/external/shared.txt").read(), y)'})
    stored = psql_meta(eses)
    check('a session with /external made on one server runs on another, which mounts its own copy (%r; the store '
          'names it: %s)' % (r8 and r8.get('stdout'), stored),
          r8 and r8['stdout'] == 'True from the operator\n\n' and 'external' in stored and
          os.path.join(DIR, 'home7') not in stored)
    # carol (OAuth) makes a session on server 7: agent (a token) finds no
    # such session on server 8, carol finds hers there, the admin sees it
    _, osid7 = initialize(PORT + 7, carol)
    _, made, _, _ = tool(PORT + 7, osid7, 'create_session', {}, token=carol)
    oses = (made or {}).get('session_id', 'none')
    tool(PORT + 7, osid7, 'execute_code', {'session_id': oses, 'code': 'z = 3'}, token=carol)
    _, asid8 = initialize(PORT + 8)
    _, _, aerr, ajs = tool(PORT + 8, asid8, 'execute_code', {'session_id': oses, 'code': 'print(z)'})
    _, _, _, gjs = tool(PORT + 8, asid8, 'execute_code', {'session_id': 's' + '0' * 24, 'code': '1'})
    _, mine, _, _ = tool(PORT + 8, osid7, 'execute_code', {'session_id': oses, 'code': 'print(z)'}, token=carol)
    _, osid8 = initialize(PORT + 8, ops)
    _, listed, _, _ = tool(PORT + 8, osid8, 'list_sessions', {}, token=ops)
    owners = {x['session_id']: x.get('owner') for x in (listed or {}).get('sessions', [])}
    check('an OAuth client\'s session, across servers: another client finds none, as for one that never was; its '
          'owner uses it (%r); the admin sees oauth:carol (%s)' % ((mine or {}).get('stdout'), owners.get(oses)),
          aerr and json.dumps(ajs['result']['content']).replace(oses, 's' + '0' * 24) ==
          json.dumps(gjs['result']['content']) and mine and mine['stdout'] == '3\n' and
          owners.get(oses) == 'oauth:carol')
    for p in extra:
        p.terminate()

    # a run paused for approval on one server; another server makes a call
    # in the session meanwhile: the resume (its server's cache still at the
    # paused generation) sees the store's newer one under the lease, and
    # refuses to go on
    up = os.path.join(DIR, 'upstream.py')
    with open(up, 'w') as f:
        f.write(UPSTREAM)
    with open(os.path.join(DIR, 'servers.json'), 'w') as f:
        json.dump({'mcpServers': {'ops': {'command': sys.executable, 'args': [up], 'allowed_tools': ['*'],
                                          'requires_approval': ['drop']}}}, f)
    coded = [serve(k, '--upstream', os.path.join(DIR, 'servers.json')) for k in (5, 6)]
    _, csid = initialize(PORT + 5)
    _, made, _, _ = tool(PORT + 5, csid, 'create_session', {})
    cses = (made or {}).get('session_id')
    tool(PORT + 5, csid, 'execute_code', {'session_id': cses, 'code': 'n = 1'})
    _, paused, _, _ = tool(PORT + 5, csid, 'execute_code', {
        'session_id': cses, 'code': 'from wasmbox import tools\nprint(tools.call("ops__drop"), n)'})
    _, other, _, _ = tool(PORT + 6, csid, 'execute_code', {'session_id': cses, 'code': 'n = 2'})
    _, resumed, rerr, rjs = tool(PORT + 5, csid, 'resume_execution',
                                 {'resume_token': (paused or {}).get('resume_token', ''), 'approve': True})
    check('a resume after another server\'s call in the session: refused from the store\'s generation, not run on '
          'a stale cache (%s; %s)' % ((paused or {}).get('status'), json.dumps(rjs)[:160]),
          paused and paused['status'] == 'paused' and other and other['status'] == 'ok' and
          'changed since the run paused' in json.dumps(rjs))
    # the paused run is in the store: another server resumes it, once, and
    # only for its owner and MCP session
    _, paused, _, _ = tool(PORT + 5, csid, 'execute_code', {
        'session_id': cses, 'code': 'from wasmbox import tools\nprint(tools.call("ops__drop"), n)'})
    token_ = (paused or {}).get('resume_token', '')
    _, rsid6 = initialize(PORT + 6, rival)
    _, _, _, rival_js = tool(PORT + 6, rsid6, 'resume_execution', {'resume_token': token_, 'approve': True},
                             token=rival)
    _, done, _, djs = tool(PORT + 6, csid, 'resume_execution', {'resume_token': token_, 'approve': True})
    _, _, _, again = tool(PORT + 5, csid, 'resume_execution', {'resume_token': token_, 'approve': True})
    check('a run paused on one server is resumed on another from the store (%r), not by another client, and '
          'once' % (done or json.dumps(djs)[:160]),
          'no paused run has this resume token' in json.dumps(rival_js) and done and done['status'] == 'ok' and
          done['stdout'] == 'dropped 2\n' and 'no paused run has this resume token' in json.dumps(again))
    for p in coded:
        p.terminate()

    # two clients hammer one session through the balancer
    tool(PORT, sid, 'execute_code', {'session_id': ses, 'code': 'hits = 0'})
    wins = [0, 0]

    def hammer(i):
        st_, sid_ = initialize(PORT)
        for _ in range(25):
            st_, r_, _, _ = tool(PORT, sid_, 'execute_code', {'session_id': ses, 'code': 'hits += 1'})
            if st_ == 200 and r_ and r_['status'] == 'ok':
                wins[i] += 1
    ts = [threading.Thread(target=hammer, args=(i,)) for i in (0, 1)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    _, r, _, _ = tool(PORT, sid, 'execute_code', {'session_id': ses, 'code': 'print(hits)'})
    check('two clients, 50 calls on one session through three servers: every call kept once (%s, %s)'
          % (sum(wins), r and r['stdout'].strip()), r and r['stdout'] == '%d\n' % sum(wins) and sum(wins) == 50)

    # an MCP session ended on one server is ended there; a forged id is refused everywhere
    st, _, js = post(PORT + 1, {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/list'}, sid[:-1] + ('0' if sid[-1] != '0' else '1'))
    check('a forged session id is refused (404)', st == 404)
    c = http.client.HTTPConnection('127.0.0.1', PORT + 2, timeout=10)
    c.request('DELETE', '/mcp', headers={'Mcp-Session-Id': sid, 'Authorization': 'Bearer ' + TOKEN})
    st_del = c.getresponse().status
    c.close()
    st, _, _ = post(PORT + 2, {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/list'}, sid)
    check('DELETE on a server that did not make the session ends it there', st_del == 200 and st == 404)
    st1, _, _ = post(PORT + 1, {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/list'}, sid)
    st3, _, _ = post(PORT + 3, {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/list'}, sid)
    st0, _, _ = post(PORT, {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/list'}, sid)
    check('... and on every other server sharing the session store (%s %s %s)' % (st1, st3, st0),
          st1 == st3 == st0 == 404)

    # the database stops under running servers: calls on sessions fail with a
    # clear error, stateless calls go on; once it is back, calls work again
    # and the session is as its last commit left it
    st, sid = initialize(PORT)
    tool(PORT, sid, 'execute_code', {'session_id': ses, 'code': 'outage = 7'})
    stop = subprocess.run(['bash', PG, 'stop', DIR], capture_output=True, text=True, timeout=60)
    st, r, err, js = tool(PORT, sid, 'execute_code', {'session_id': ses, 'code': 'outage += 1'})
    text = json.dumps(js)
    check('database down: a session call fails with a clear error naming the session store (%s)' % text[:160],
          stop.returncode == 0 and st == 200 and (err or (r and r['status'] != 'ok')) and 'session store' in text)
    st, r, _, _ = tool(PORT, sid, 'execute_code', {'code': 'print(6 * 7)'})
    check('database down: a stateless call still runs', st == 200 and r and r['stdout'] == '42\n')
    start = subprocess.run(['bash', PG, 'start', DIR, STORE.rsplit(':', 1)[1].split('/')[0]], capture_output=True,
                           text=True, timeout=60)
    outs = []
    for k in (1, 2, 3):
        st, r, _, _ = tool(PORT + k, sid, 'execute_code', {'session_id': ses, 'code': 'outage += 1\nprint(outage)'})
        outs.append(r and r['stdout'].strip())
    check('database back: every server works on the session again, from its last commit (%s)' % outs,
          start.returncode == 0 and outs == ['8', '9', '10'])
    _, info, _, _ = tool(PORT, sid, 'list_sessions', {})
    check('the session store lists the sessions made through the balancer',
          ses in json.dumps(info or {}))
    for p in procs.values():
        p.terminate()


try:
    main()
finally:
    cluster('stop')
    shutil.rmtree(DIR, ignore_errors=True)
finish()
