#!/usr/bin/env python3
"""MCP transport tests: wasmbox serve and wasmbox mcp as a client (or an
attacker) sees them, with nothing but the Python standard library. Prints
"ok N - what" / "not ok N - what" per check, like tests/cli.sh.

usage: transport.py WASMBOX
Every server started here listens on 127.0.0.1 only and is stopped at exit.
"""
import base64
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import served  # noqa: E402
from tap import check, finish, guard  # noqa: E402


W = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix='wasmbox-mcp-test-')
ENV = dict(os.environ, WASMBOX_HOME=os.path.join(TMP, 'home'))
for k in list(ENV):
    if k.startswith('WASMBOX_MCP_'):
        del ENV[k]
PROCS = []
META = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': {'name': 'transport.py', 'version': '1'}}




# ---- HTTP helpers -------------------------------------------------------------

class Server(served.Server):
    def __init__(self, *args, env=None):
        super().__init__(W, *args, env=env or ENV)
        PROCS.append(self.proc)

    def initialize(self, version='2025-11-25', headers=None):
        st, r, js = self.request(body={'jsonrpc': '2.0', 'id': 0, 'method': 'initialize', 'params': {
            'protocolVersion': version, 'capabilities': {}, 'clientInfo': {'name': 't', 'version': '1'}}},
            headers=headers)
        sid = r.getheader('Mcp-Session-Id')
        self.request(body={'jsonrpc': '2.0', 'method': 'notifications/initialized'},
                     headers={'Mcp-Session-Id': sid or '', 'MCP-Protocol-Version': version, **(headers or {})})
        return sid, js

    def rpc(self, sid, method, params=None, rid=1, headers=None, timeout=60):
        h = {'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25'}
        h.update(headers or {})
        msg = {'jsonrpc': '2.0', 'id': rid, 'method': method}
        if params is not None:
            msg['params'] = params
        return self.request(body=msg, headers=h, timeout=timeout)

    def tool(self, sid, name, args, rid=1, timeout=60):
        st, r, js = self.rpc(sid, 'tools/call', {'name': name, 'arguments': args}, rid, timeout=timeout)
        return js['result'] if js and 'result' in js else js

    def stateless(self, method, params=None, headers=None, meta=None):
        params = dict(params or {})
        params['_meta'] = META if meta is None else meta
        h = {'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method}
        if method == 'tools/call':
            h['Mcp-Name'] = params.get('name', '')
        h.update(headers or {})
        h = {k: v for k, v in h.items() if v is not None}
        return self.request(body={'jsonrpc': '2.0', 'id': 7, 'method': method, 'params': params}, headers=h)


def raw(port, data, read=True, timeout=10):
    s = socket.create_connection(('127.0.0.1', port), timeout=timeout)
    s.sendall(data)
    out = b''
    if read:
        try:
            while True:
                b = s.recv(65536)
                if not b:
                    break
                out += b
        except socket.timeout:
            pass
    s.close()
    return out


def error_code(js):
    return js.get('error', {}).get('code') if isinstance(js, dict) else None


# ---- HTTP: protocol ----------------------------------------------------------

def http_protocol(s):
    sid, js = s.initialize()
    check('initialize returns a session id of visible ASCII',
          sid and all(0x21 <= ord(c) <= 0x7e for c in sid) and len(sid) >= 32)
    check('initialize negotiates 2025-11-25', js['result']['protocolVersion'] == '2025-11-25')
    for v in ('2025-06-18', '2025-03-26'):
        _, js2 = s.initialize(v)
        check('an older client (%s) gets its own version' % v, js2['result']['protocolVersion'] == v)
    _, js3 = s.initialize('1999-01-01')
    check('an unknown version gets the latest one', js3['result']['protocolVersion'] == '2025-11-25')
    st, _, js = s.rpc(sid, 'tools/list')
    tools = {t['name']: t for t in js['result']['tools']}
    want = {'execute_code', 'create_session', 'destroy_session', 'fork_session', 'checkpoint_session',
            'restore_session', 'list_sessions', 'list_files', 'read_file', 'write_file', 'reset_workspace',
            'install_package', 'list_runtimes', 'get_metrics'}
    check('tools/list has every tool', set(tools) == want)
    check('every tool has inputSchema, outputSchema and annotations',
          all(t['inputSchema']['type'] == 'object' and t['outputSchema']['type'] == 'object' and 'annotations' in t
              and len(t['description']) > 40 for t in tools.values()))
    r = s.tool(sid, 'execute_code', {'code': 'print(6*7)'})
    check('execute_code prints 42', r['structuredContent']['stdout'] == '42\n' and r['isError'] is False)
    check('the text block is the same JSON as structuredContent',
          json.loads(r['content'][0]['text']) == r['structuredContent'])
    r = s.tool(sid, 'execute_code', {'code': 'console.log([1,2].map(x => x * 2))', 'language': 'javascript'})
    check('execute_code runs JavaScript', r['structuredContent']['stdout'] == '[ 2, 4 ]\n')
    r = s.tool(sid, 'execute_code', {'code': '1/0'})
    e = r['structuredContent']['error']
    check('a guest exception is isError with type and guidance',
          r['isError'] is True and e['type'] == 'ZeroDivisionError' and r['structuredContent']['status'] == 'error')
    t = time.time()
    r = s.tool(sid, 'execute_code', {'code': 'while True: pass', 'timeout_seconds': 0.5})
    check('a timeout is isError with status timeout, on time',
          r['isError'] and r['structuredContent']['status'] == 'timeout' and time.time() - t < 5)
    r = s.tool(sid, 'execute_code', {'code': 'x = bytearray(200 << 20)', 'memory_mb': 64})
    check('the memory limit is isError with status out_of_memory',
          r['isError'] and r['structuredContent']['status'] == 'out_of_memory')
    r = s.tool(sid, 'execute_code', {'code': 'while True: pass', 'fuel': 1000000})
    st = r['structuredContent']
    check('a fuel budget stops a loop: isError, out_of_fuel, fuel_used = the budget',
          r['isError'] and st['status'] == 'out_of_fuel' and st['fuel_used'] == 1000000)
    r1 = s.tool(sid, 'execute_code', {'code': 'print(sum(range(1000)))'})['structuredContent']
    r2 = s.tool(sid, 'execute_code', {'code': 'print(sum(range(1000)))'})['structuredContent']
    check('fuel_used is reported, the same on every run', r1['fuel_used'] > 0 and r1['fuel_used'] == r2['fuel_used'])
    s.tool(sid, 'execute_code', {'code': 'import os; open("secret.txt", "w").write("x"); os.makedirs("d/e")'})
    r = s.tool(sid, 'execute_code', {'code': 'import os; print(os.listdir("/app"))'})
    check('a stateless call sees nothing of the one before', r['structuredContent']['stdout'] == '[]\n')
    r = s.tool(sid, 'execute_code', {'code': 'import sys; print(sys.stdin.read()[::-1])', 'stdin': 'abc'})
    check('stdin reaches the program', r['structuredContent']['stdout'] == 'cba\n')
    for args, what in (({'code': 'print(1)', 'timeout_seconds': 'abc'}, 'timeout_seconds'),
                       ({'code': 'print(1)', 'timeout_seconds': 100000}, 'timeout_seconds'),
                       ({'code': 'print(1)', 'memory_mb': 1.5}, 'memory_mb'),
                       ({'code': 'print(1)', 'fuel': 0}, 'fuel'),
                       ({'code': 'print(1)', 'fuel': 2 ** 60}, 'fuel'),
                       ({'code': 'print(1)', 'language': 'cobol'}, 'language'),
                       ({'code': 'print(1)', 'bogus': 1}, 'bogus'),
                       ({}, 'code'),
                       ({'code': 42}, 'code')):
        r = s.tool(sid, 'execute_code', args)
        check('invalid argument %s -> isError naming it' % json.dumps(args),
              r.get('isError') is True and what in r['content'][0]['text'])
    st, _, js = s.rpc(sid, 'tools/call', {'name': 'no_such_tool', 'arguments': {}})
    check('an unknown tool is a JSON-RPC error -32602', error_code(js) == -32602)
    st, _, js = s.rpc(sid, 'tools/call', {'name': 'execute_code', 'arguments': [1]})
    check('arguments that are not an object -> -32602', error_code(js) == -32602)
    st, _, js = s.rpc(sid, 'no/such/method', rid='abc')
    check('an unknown method is -32601 with the request id', error_code(js) == -32601 and js['id'] == 'abc')
    st, _, js = s.rpc(sid, 'ping')
    check('ping answers {}', js['result'] == {})
    st, _, js = s.rpc(sid, 'logging/setLevel', {'level': 'loud'})
    check('logging/setLevel with a bad level -> -32602', error_code(js) == -32602)
    st, r, body = s.request(body=b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}',
                            headers={'Accept': 'application/json, text/event-stream'})
    check('initialize over HTTP answers JSON', st == 200 and r.getheader('Content-Type') == 'application/json')


def http_bad_input(s):
    sid, _ = s.initialize()
    cases = [
        (b'{"jsonrpc": "2.0", "id": 1, "method": ', 400, -32700, 'malformed JSON'),
        (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\xff\xfe"}}', 400, -32700, 'invalid UTF-8'),
        (b'{"jsonrpc":"2.0","id":1,"method":"ping"} trailing', 400, -32700, 'trailing data'),
        (b'[' * 5000 + b']' * 5000, 400, -32700, 'nesting 5000 deep'),
        (b'{"jsonrpc":"1.0","id":1,"method":"ping"}', 400, -32600, 'jsonrpc 1.0'),
        (b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', 400, -32600, 'a batch'),
        (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', 400, -32600, 'an object id'),
        (b'{"jsonrpc":"2.0","id":1,"method":5}', 400, -32600, 'a numeric method'),
        (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}', 400, -32600, 'params as an array'),
        (b'"just a string"', 400, -32600, 'a JSON string'),
        (b'', 400, -32700, 'an empty body'),
    ]
    for body, status, code, what in cases:
        st, _, js = s.request(body=body, headers={'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25'})
        check('%s -> HTTP %d, JSON-RPC %d' % (what, status, code), st == status and error_code(js) == code)
    st, _, js = s.request(body={'jsonrpc': '2.0', 'id': 1, 'method': 'ping'}, headers={'Content-Type': 'text/plain'})
    check('a body that is not application/json -> 415', st == 415)
    st, _, js = s.request(body={'jsonrpc': '2.0', 'id': 1, 'method': 'ping'}, headers={'Accept': 'text/html'})
    check('Accept without JSON or SSE -> 406', st == 406)
    st, _, js = s.request('GET')
    check('GET /mcp -> 405 (no server stream)', st == 405)
    st, _, js = s.request('PUT', headers={})
    check('PUT -> 405', st == 405)
    c = http.client.HTTPConnection('127.0.0.1', s.port, timeout=10)
    c.request('POST', '/other', body=b'{}', headers={'Content-Type': 'application/json'})
    check('another path -> 404', c.getresponse().status == 404)
    c.close()
    st, _, js = s.rpc('0' * 32, 'tools/list')
    check('an unknown session id -> 404', st == 404)
    st, _, js = s.request(body={'jsonrpc': '2.0', 'id': 1, 'method': 'tools/list'})
    check('no session and no _meta -> 400 -32602', st == 400 and error_code(js) == -32602)
    st, _, _ = s.rpc(sid, 'ping', headers={'MCP-Protocol-Version': '1999-01-01'})
    check('an unsupported MCP-Protocol-Version header -> 400', st == 400)
    st, _, _ = s.request('DELETE', headers={'Mcp-Session-Id': sid})
    check('DELETE ends the session', st == 200)
    st, _, _ = s.rpc(sid, 'ping')
    check('the ended session -> 404', st == 404)
    st, _, _ = s.request('DELETE', headers={})
    check('DELETE without a session id -> 400', st == 400)
    # 100 MB: refused from Content-Length, and refused while streaming (chunked)
    t = time.time()
    out = raw(s.port, b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n'
                      b'Content-Length: 104857600\r\n\r\n' + b'x' * 65536)
    check('a 100 MB Content-Length -> 413 at once', out.startswith(b'HTTP/1.1 413') and time.time() - t < 5)
    sock = socket.create_connection(('127.0.0.1', s.port), timeout=20)
    sock.sendall(b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n'
                 b'Transfer-Encoding: chunked\r\n\r\n')
    chunk = b'%x\r\n%s\r\n' % (1 << 20, b'x' * (1 << 20))
    got = b''
    try:
        for _ in range(100):
            sock.sendall(chunk)
        sock.sendall(b'0\r\n\r\n')
    except (BrokenPipeError, ConnectionResetError):
        pass
    try:
        got = sock.recv(4096)
    except OSError:
        pass
    sock.close()
    check('a 100 MB chunked body -> 413', got.startswith(b'HTTP/1.1 413'))
    sid2, js = s.initialize()
    check('the server still serves after all that', js and js['result']['protocolVersion'] == '2025-11-25' and s.alive())


def playground_http(s):
    """The playground's files on a server with a token (the page itself is
    tested in Chromium by playground.test.mjs, make test-mcp)."""
    def get(path, method='GET', headers=None):
        c = http.client.HTTPConnection('127.0.0.1', s.port, timeout=10)
        c.request(method, path, headers=headers or {})
        r = c.getresponse()
        body = r.read()
        c.close()
        return r, body
    r, body = get('/')
    check('playground: / is served without the token, as HTML with a CSP',
          r.status == 200 and r.getheader('Content-Type') == 'text/html; charset=utf-8' and b'<title>' in body and
          "script-src 'self'" in (r.getheader('Content-Security-Policy') or ''))
    r, body = get('/playground/editor.js')
    check('playground: the editor is linked into the program', r.status == 200 and b'CodeMirror' in body[:200])
    r, body = get('/playground/app.js', 'HEAD')
    check('playground: HEAD -> 200, no body', r.status == 200 and body == b'')
    r, _ = get('/', 'POST')
    check('playground: POST -> 405 Allow: GET, HEAD', r.status == 405 and r.getheader('Allow') == 'GET, HEAD')
    r, _ = get('/', headers={'Host': 'evil.example.com'})
    check('playground: a foreign Host -> 403', r.status == 403)
    r, _ = get('/', headers={'Origin': 'http://evil.example.com'})
    check('playground: a foreign Origin -> 403', r.status == 403)
    r, _ = get('/playground/../../etc/passwd')
    check('playground: other paths -> 404', r.status == 404)


def clients_limits_logs():
    """--tokens (clients, their limits), --access-log, /metrics, /healthz."""
    d = os.path.join(TMP, 'clients')
    os.makedirs(d, exist_ok=True)

    def tokens_file(name, text, mode=0o600):
        path = os.path.join(d, name)
        with open(path, 'w') as f:
            f.write(text)
        os.chmod(path, mode)
        return path
    A, B, C = 'alice-token-0123456789', 'bob-token-0123456789ab', 'carol-token-0123456789'
    for name, text, mode, want in (
            ('open', 'alice %s\n' % A, 0o644, b'readable or writable by others'),
            ('twice', 'alice %s\nalice %s\n' % (A, B), 0o600, b':2: client \'alice\' is named twice'),
            ('same', 'alice %s\nbob %s\n' % (A, A), 0o600, b':2: client \'bob\' has the token of \'alice\''),
            ('short', '# clients\n\nalice short-token\n', 0o600, b':3: the token of \'alice\' must be 16'),
            ('name', 'al/ice %s\n' % A, 0o600, b':1: a client name is'),
            ('limit', 'alice %s speed=5\n' % A, 0o600, b"unknown setting 'speed'"),
            ('rate', 'alice %s rate=5\n' % A, 0o600, b"bad rate '5'"),
            ('zero', 'alice %s max-in-flight=0\n' % A, 0o600, b"bad max-in-flight '0'"),
            ('burst', 'alice %s burst=3\n' % A, 0o600, b'burst without a rate'),
            ('empty', '# nobody\n', 0o600, b'no client in it')):
        path = tokens_file(name, text, mode)
        p = subprocess.run([W, 'serve', '--listen', '127.0.0.1:0', '--tokens', path], capture_output=True, env=ENV,
                           timeout=30, stdin=subprocess.DEVNULL)
        check('--tokens %s: exit 2 naming the problem' % name, p.returncode == 2 and want in p.stderr)
    key = tokens_file('key.short', 'x' * 20)
    p = subprocess.run([W, 'serve', '--session-key', key], capture_output=True, env=ENV, timeout=30)
    check('--session-key with less than 32 bytes: exit 2', p.returncode == 2 and b'at least 32 bytes' in p.stderr)
    key = tokens_file('key.open', 'x' * 40, 0o644)
    p = subprocess.run([W, 'serve', '--session-key', key], capture_output=True, env=ENV, timeout=30)
    check('--session-key readable by others: exit 2', p.returncode == 2 and b'readable or writable by others' in p.stderr)
    key = tokens_file('key.good', 'k' * 40)
    fresh = os.path.join(d, 'not', 'yet', 'made')
    s = Server('--session-key', key, '--home', fresh)
    try:
        sid, _ = s.initialize() if s.alive() else (None, None)
        st = s.request('DELETE', headers={'Mcp-Session-Id': sid})[0] if sid else 0
        check('--session-key on a first start: it serves, and a DELETE is recorded in the new state directory',
              st == 200 and os.path.isfile(os.path.join(fresh, 'mcp-ended', sid)))
    finally:
        s.stop()
    p = subprocess.run([W, 'serve', '--tokens', os.path.join(d, 'missing')], capture_output=True, env=ENV, timeout=30)
    check('--tokens of a missing file: exit 2', p.returncode == 2 and b'No such file' in p.stderr)
    p = subprocess.run([W, 'serve', '--access-log', os.path.join(d, 'no', 'such', 'dir', 'log')], capture_output=True,
                       env=ENV, timeout=30)
    check('--access-log that cannot be opened: exit 2', p.returncode == 2 and b'--access-log' in p.stderr)

    path = tokens_file('ok', '# name token limits\nalice %s rate=5/s\nbob %s\ncarol %s max-in-flight=2\n' % (A, B, C))
    log = os.path.join(d, 'access.log')
    s = Server('--tokens', path, '--access-log', log, env=dict(ENV, WASMBOX_HOME=os.path.join(d, 'home')))
    sent = [0]
    lock = threading.Lock()

    def req(method, path, token=None, body=None, headers=None, timeout=30):
        h = dict(headers or {})
        if token:
            h['Authorization'] = 'Bearer ' + token
        if body is not None:
            h.setdefault('Content-Type', 'application/json')
            h.setdefault('Accept', 'application/json')
            h.setdefault('MCP-Protocol-Version', '2026-07-28')
            if isinstance(body, dict):
                h.setdefault('Mcp-Method', body['method'])
                if body['method'] == 'tools/call':
                    h.setdefault('Mcp-Name', body['params']['name'])
                body = json.dumps(body).encode()
        c = http.client.HTTPConnection('127.0.0.1', s.port, timeout=timeout)
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        data = r.read()
        c.close()
        with lock:
            sent[0] += 1
        return r.status, r, data

    def call(token, name, args):
        return req('POST', '/mcp', token, {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call',
                                           'params': {'name': name, 'arguments': args, '_meta': META}})
    ping = {'jsonrpc': '2.0', 'id': 1, 'method': 'server/discover', 'params': {'_meta': META}}
    try:
        st, r, _ = req('POST', '/mcp', None, ping)
        check('tokens: no token -> 401', st == 401)
        st, r, _ = req('POST', '/mcp', 'wrong-token-0123456789', ping)
        check('tokens: an unknown token -> 401', st == 401)
        st, r, _ = req('POST', '/mcp', B, ping)
        check("tokens: bob's token is served", st == 200)

        # a burst from alice (rate 5/s) and bob (no limit) at once
        results = {'alice': [], 'bob': []}

        def burst(who, token):
            for _ in range(20):
                st, r, data = req('POST', '/mcp', token, ping)
                results[who].append((st, r.getheader('Retry-After'), data))
        ts = [threading.Thread(target=burst, args=(w, t)) for w, t in (('alice', A), ('bob', B))]
        t0 = time.monotonic()
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        took = time.monotonic() - t0
        ok_a = sum(1 for st, _, _ in results['alice'] if st == 200)
        limited = [(ra, data) for st, ra, data in results['alice'] if st == 429]
        check('rate: alice gets her burst of 5 and what refills (%d of 20 in %.2f s)' % (ok_a, took),
              5 <= ok_a <= 5 + int(took * 5) + 1 and ok_a + len(limited) == 20)
        check('rate: the others get 429 with Retry-After and a JSON-RPC error naming the limit',
              limited and all(ra and ra.isdigit() and int(ra) >= 1 for ra, _ in limited) and
              all(b"client 'alice' is over its rate of 5 per second" in data for _, data in limited))
        check('rate: bob, unlimited, is unaffected (20 of 20)', [st for st, _, _ in results['bob']] == [200] * 20)
        time.sleep(0.5)
        st, _, _ = req('POST', '/mcp', A, ping)
        check('rate: the bucket refills (alice served after 0.5 s)', st == 200)

        # carol may have 2 requests in flight
        slow = []

        def slow_call():
            t = time.monotonic()
            st, _, data = call(C, 'execute_code', {'code': 'import time\ntime.sleep(1.5)\nprint("done")'})
            slow.append((st, time.monotonic() - t, data))
        ts = [threading.Thread(target=slow_call) for _ in range(2)]
        for t in ts:
            t.start()
        time.sleep(0.5)
        t = time.monotonic()
        st3, r3, data3 = call(C, 'execute_code', {'code': 'print(3)'})
        quick = time.monotonic() - t
        st_b, _, _ = call(B, 'execute_code', {'code': 'print(1)'})
        for t in ts:
            t.join()
        check('in flight: the third of carol\'s calls -> 429 at once (%.2f s), Retry-After: 1' % quick,
              st3 == 429 and quick < 1 and r3.getheader('Retry-After') == '1' and b'max-in-flight=2' in data3)
        check('in flight: her two calls run to the end', sorted(x[0] for x in slow) == [200, 200] and
              all(b'done' in x[2] for x in slow))
        check('in flight: bob is unaffected meanwhile', st_b == 200)
        st, _, _ = call(C, 'execute_code', {'code': 'print(4)'})
        check('in flight: carol is served again once they ended', st == 200)

        # a session call, for the log
        st, _, data = call(B, 'create_session', {})
        sid = json.loads(data)['result']['structuredContent']['session_id'] if st == 200 else None
        st, _, _ = call(B, 'execute_code', {'code': 'x = 1', 'session_id': sid})
        check('a session call is served', st == 200 and sid)
        st, _, _ = call(B, 'execute_code', {'code': 'while True: pass', 'timeout_seconds': 0.2})

        st, r, data = req('GET', '/healthz')
        health = json.loads(data) if st == 200 else {}
        check('/healthz: 200 without a token, status ok', st == 200 and health.get('status') == 'ok' and
              r.getheader('Content-Type') == 'application/json')
        st, _, _ = req('POST', '/healthz', body=b'{}')
        check('/healthz: POST -> 405', st == 405)
        st, _, _ = req('GET', '/healthz', headers={'Host': 'evil.example.com'})
        check('/healthz: a foreign Host -> 403', st == 403)
        st, _, _ = req('GET', '/metrics')
        check('/metrics: no token -> 401', st == 401)
        st, r, text = req('GET', '/metrics', B)
        text = text.decode()
        check('/metrics: served as Prometheus text', st == 200 and
              r.getheader('Content-Type', '').startswith('text/plain; version=0.0.4'))
        lines = [x for x in text.splitlines() if x and not x.startswith('#')]

        def value(series):
            return next((float(x.rsplit(' ', 1)[1]) for x in lines if x.rsplit(' ', 1)[0] == series), None)
        n429 = sum(1 for st, _, _ in results['alice'] if st == 429)
        check('/metrics: alice\'s 429s counted (%s)' % value('wasmbox_http_requests_total{client="alice",code="429"}'),
              value('wasmbox_http_requests_total{client="alice",code="429"}') == n429 and
              value('wasmbox_http_limited_total{client="alice",limit="rate"}') == n429)
        check('/metrics: carol\'s in-flight refusal counted',
              value('wasmbox_http_limited_total{client="carol",limit="in_flight"}') == 1)
        check('/metrics: calls by status', value('wasmbox_calls_total{status="ok"}') == 5 and
              value('wasmbox_calls_total{status="timeout"}') == 1)
        check('/metrics: the latency histogram counts every call',
              value('wasmbox_call_duration_seconds_count') == 6 and
              value('wasmbox_call_duration_seconds_bucket{le="+Inf"}') == 6)
        check('/metrics: workers, sessions, build (%s)' % [x for x in lines if 'workers' in x or 'sessions' in x],
              value('wasmbox_sessions') == 1 and
              value('wasmbox_workers{state="busy"}') == 0 and (value('wasmbox_workers{state="idle"}') or 0) >= 1 and
              value('wasmbox_build_info{version="0.1.0"}') == 1)
        total_before = sent[0]
        # every request leaves one line, once it has completed
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with open(log) as f:
                entries = [json.loads(x) for x in f]
            if len(entries) >= total_before:
                break
            time.sleep(0.1)
        check('access log: one JSON line per request (%d lines, %d requests)' % (len(entries), total_before),
              len(entries) == total_before)
        keys = {'time', 'client', 'method', 'path', 'status', 'rpc', 'tool', 'mcp_session', 'session', 'result',
                'duration_ms', 'fuel', 'bytes_in', 'bytes_out'}
        check('access log: every line has every field', all(set(e) == keys for e in entries))
        check('access log: refusals are logged with their client and status',
              sum(1 for e in entries if e['client'] == 'alice' and e['status'] == 429) == n429 and
              sum(1 for e in entries if e['client'] is None and e['status'] == 401) == 3)
        ex = [e for e in entries if e['tool'] == 'execute_code' and e['status'] == 200]
        check('access log: executions with tool, result and fuel',
              any(e['result'] == 'ok' and e['fuel'] > 0 and e['client'] == 'carol' for e in ex) and
              any(e['result'] == 'timeout' for e in ex))
        check('access log: the session of a session call',
              any(e['session'] == sid and e['rpc'] == 'tools/call' for e in ex))
        check('access log: /healthz and /metrics too',
              any(e['path'] == '/healthz' and e['status'] == 200 for e in entries) and
              any(e['path'] == '/metrics' and e['client'] == 'bob' for e in entries))
        check('access log: times and sizes', all(e['time'].endswith('Z') and e['duration_ms'] >= 0 for e in entries)
              and all(e['bytes_out'] > 0 for e in entries if e['status'] == 200))
        check('tokens: the server survived', s.alive())
    finally:
        s.stop()
    s = Server('--token', 'single-token-0123456789', '--access-log', '-')
    try:
        st, _, _ = s.request(body=ping, headers={'Authorization': 'Bearer single-token-0123456789',
                                                 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'server/discover'})
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not any('"client":"default"' in x for x in s.log):
            time.sleep(0.1)
        check('--token is client "default"; --access-log - writes to stderr',
              st == 200 and any('"client":"default"' in x and '"status":200' in x for x in s.log))
    finally:
        s.stop()


def tenancy():
    """Clients are tenants: each sees only its own sessions and files; for
    another's, every tool answers exactly what it answers for an id that
    does not exist (no existence oracle); role=admin sees all."""
    d = os.path.join(TMP, 'tenancy')
    os.makedirs(d, exist_ok=True)
    A, B, O = 'alice-token-tenancy-0123', 'bob-token-tenancy-012345', 'ops-token-tenancy-012345'
    path = os.path.join(d, 'tokens')
    with open(path, 'w') as f:
        f.write('alice %s\nbob %s\nops %s role=admin\n' % (A, B, O))
    os.chmod(path, 0o600)
    with open(path + '-bad', 'w') as f:
        f.write('root %s role=root\n' % A)
    os.chmod(path + '-bad', 0o600)
    bad = subprocess.run([W, 'serve', '--tokens', path + '-bad'], capture_output=True, env=ENV, timeout=30)
    s = Server('--tokens', path, env=dict(ENV, WASMBOX_HOME=os.path.join(d, 'home')))

    def rpc(token, method, params):
        st, _, data = s.request(body={'jsonrpc': '2.0', 'id': 1, 'method': method,
                                      'params': dict(params, _meta=META)},
                                headers={'Authorization': 'Bearer ' + token, 'MCP-Protocol-Version': '2026-07-28',
                                         'Mcp-Method': method,
                                         **({'Mcp-Name': params['name']} if method == 'tools/call' else {})})
        return data

    def tool(token, name, args):
        r = rpc(token, 'tools/call', {'name': name, 'arguments': args})
        res = (r or {}).get('result') or {}
        return res.get('structuredContent'), res.get('isError'), json.dumps(res.get('content'))

    try:
        made, _, _ = tool(A, 'create_session', {})
        sid = made['session_id']
        tool(A, 'write_file', {'session_id': sid, 'path': 'secret.txt', 'content': 'alice only'})
        tool(A, 'execute_code', {'session_id': sid, 'code': 'x = 41'})
        listed, _, _ = tool(B, 'list_sessions', {})
        check('tenancy: bob does not see alice\'s session in list_sessions',
              sid not in json.dumps(listed))
        ghost = 's' + '0' * 24
        same = []
        for name, args in (('execute_code', {'code': 'print(x)'}), ('read_file', {'path': 'secret.txt'}),
                           ('list_files', {}), ('write_file', {'path': 'a.txt', 'content': 'b'}),
                           ('reset_workspace', {}), ('fork_session', {}), ('checkpoint_session', {}),
                           ('restore_session', {'checkpoint_id': 'c' + '0' * 24}),
                           ('install_package', {'requirement': 'six'}), ('destroy_session', {})):
            _, err1, text1 = tool(B, name, dict(args, session_id=sid))
            _, err2, text2 = tool(B, name, dict(args, session_id=ghost))
            if not (err1 and err2 and text1.replace(sid, ghost) == text2):
                print('    %s: %s | %s' % (name, text1[:200], text2[:200]))
            same.append(err1 and err2 and text1.replace(sid, ghost) == text2)
        check('tenancy: each of 10 session tools answers bob as for a session that does not exist',
              all(same) and len(same) == 10)
        r = rpc(B, 'resources/read', {'uri': 'wasmbox://session/%s/app/secret.txt' % sid})
        g = rpc(B, 'resources/read', {'uri': 'wasmbox://session/%s/app/secret.txt' % ghost})
        check('tenancy: resources/read of alice\'s file answers bob as for none',
              'error' in r and json.dumps(r['error']).replace(sid, ghost) == json.dumps(g['error']))
        r = rpc(B, 'resources/list', {})
        check('tenancy: resources/list shows bob none of alice\'s files', sid not in json.dumps(r))
        out, _, _ = tool(A, 'execute_code', {'session_id': sid, 'code': 'print(x + 1, open("secret.txt").read())'})
        check('tenancy: alice\'s session is untouched and hers (%r)' % (out and out.get('stdout')),
              out and out['stdout'] == '42 alice only\n')
        listed, _, _ = tool(O, 'list_sessions', {})
        mine = [x for x in (listed or {}).get('sessions', []) if x['session_id'] == sid]
        check('tenancy: the admin lists alice\'s session, with its owner', mine and mine[0].get('owner') == 'alice')
        out, _, _ = tool(O, 'execute_code', {'session_id': sid, 'code': 'print(x)'})
        check('tenancy: the admin may run in it', out and out['stdout'] == '41\n')
        metrics, _, _ = tool(B, 'get_metrics', {})
        check('tenancy: get_metrics counts bob\'s sessions only', metrics and metrics.get('sandbox_sessions') == 0)
    finally:
        s.stop()
    check('tenancy: a tokens file with an unknown role is refused, naming it',
          bad.returncode == 2 and b"unknown role 'root'" in bad.stderr)


def http_origin_token():
    s = Server()
    try:
        good = {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize', 'params': {
            'protocolVersion': '2025-11-25', 'capabilities': {}, 'clientInfo': {'name': 'a', 'version': '1'}}}
        st, _, _ = s.request(body=good, headers={'Origin': 'http://evil.example.com'})
        check('a foreign Origin -> 403', st == 403)
        st, _, _ = s.request(body=good, headers={'Host': 'evil.example.com'})
        check('a foreign Host (DNS rebinding) -> 403', st == 403)
        st, _, _ = s.request(body=good, headers={'Origin': 'http://localhost:3000'})
        check('a loopback Origin is accepted', st == 200)
        st, _, _ = s.request(body=good, headers={'Origin': 'http://127.0.0.1.evil.com'})
        check('a look-alike Origin -> 403', st == 403)
    finally:
        s.stop()
    s = Server('--allow-origin', 'https://app.example.com')
    try:
        st, _, _ = s.request(body=good, headers={'Origin': 'https://app.example.com'})
        check('--allow-origin admits that Origin', st == 200)
    finally:
        s.stop()
    token = 'correct-horse-battery-staple'
    for how, args, env in (('--token', ['--token', token], None),
                           ('$WASMBOX_MCP_TOKEN', [], dict(ENV, WASMBOX_MCP_TOKEN=token))):
        s = Server(*args, env=env)
        try:
            st, r, _ = s.request(body=good)
            check('%s: no token -> 401 with WWW-Authenticate' % how,
                  st == 401 and 'Bearer' in (r.getheader('WWW-Authenticate') or ''))
            st, _, _ = s.request(body=good, headers={'Authorization': 'Bearer wrong-token-wrong-token'})
            check('%s: a wrong token -> 401' % how, st == 401)
            st, _, _ = s.request(body=good, headers={'Authorization': 'Bearer ' + token})
            check('%s: the right token is served' % how, st == 200)
            if how == '--token':
                playground_http(s)
        finally:
            s.stop()
    s = Server('--no-playground')
    try:
        c = http.client.HTTPConnection('127.0.0.1', s.port, timeout=10)
        c.request('GET', '/')
        check('--no-playground: / -> 404', c.getresponse().status == 404)
        c.close()
    finally:
        s.stop()
    p = subprocess.run([W, 'serve', '--listen', '0.0.0.0:0'], capture_output=True, env=ENV, timeout=30)
    check('listening beyond loopback without a token is refused', p.returncode == 2 and b'--token' in p.stderr)
    p = subprocess.run([W, 'serve', '--token', 'short'], capture_output=True, env=ENV, timeout=30)
    check('a token shorter than 16 characters is refused', p.returncode == 2)
    # loopback without a token is refused once the operator's tools or a
    # shared store are behind the port, unless the operator says so
    up = os.path.join(TMP, 'no-upstreams.json')
    with open(up, 'w') as f:
        f.write('{"mcpServers": {}}')
    p = subprocess.run([W, 'serve', '--listen', '127.0.0.1:0', '--upstream', up], capture_output=True, env=ENV,
                       timeout=30)
    check('--upstream on loopback without a token is refused, saying why and naming --allow-anonymous (%r)'
          % p.stderr[-200:], p.returncode == 2 and b'upstream tools' in p.stderr and b'--allow-anonymous' in p.stderr)
    p = subprocess.run([W, 'serve', '--listen', '127.0.0.1:0'], capture_output=True, timeout=30,
                       env=dict(ENV, WASMBOX_STORE='postgres://wasmbox@127.0.0.1:1/none'))
    check('a shared store ($WASMBOX_STORE) on loopback without a token is refused',
          p.returncode == 2 and b'shared session store' in p.stderr)
    s = Server('--upstream', up, '--allow-anonymous')  # raises unless it listens
    check('... and served with --allow-anonymous', s.alive())
    s.stop()


def http_stop_at_start():
    """A stop signal that comes while the server still warms its workers up
    (a thread of its own) must reach the thread that waits for it."""
    codes = []
    for _ in range(3):
        s = Server()
        s.proc.terminate()
        try:
            codes.append(s.proc.wait(30))
        except subprocess.TimeoutExpired:
            codes.append(None)
    check('SIGTERM right after start, while workers warm up, stops cleanly (exits %r)' % codes, codes == [0, 0, 0])


def http_slow_clients():
    s = Server('--idle-timeout', '1', '--request-timeout', '2')
    try:
        socks = []
        for _ in range(8):  # slowloris: headers that never end
            k = socket.create_connection(('127.0.0.1', s.port), timeout=10)
            k.sendall(b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ')
            socks.append(k)
        sid, js = s.initialize()
        r = s.tool(sid, 'execute_code', {'code': 'print(1)'})
        check('slowloris connections do not block other clients', r['structuredContent']['stdout'] == '1\n')
        time.sleep(2.5)
        closed = 0
        for k in socks:
            try:
                closed += k.recv(10) == b''
            except OSError:
                closed += 1
            k.close()
        check('silent half-sent requests are closed after --idle-timeout', closed == len(socks))
        k = socket.create_connection(('127.0.0.1', s.port), timeout=10)
        k.sendall(b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n')
        t = time.time()
        cut = None
        for _ in range(20):  # a byte every 0.3 s: never idle, never done
            try:
                k.sendall(b' ')
                if k.recv(1, socket.MSG_DONTWAIT) == b'':
                    cut = time.time() - t
                    break
            except BlockingIOError:
                pass
            except OSError:
                cut = time.time() - t
                break
            time.sleep(0.3)
        k.close()
        check('a body trickled slower than --request-timeout is cut off', cut is not None and cut < 4)
        check('the server is still alive', s.alive() and s.initialize()[1] is not None)
    finally:
        s.stop()


def http_stateless(s):
    st, _, js = s.stateless('server/discover')
    res = js['result']
    check('2026: server/discover lists versions and capabilities',
          st == 200 and '2026-07-28' in res['supportedVersions'] and 'tools' in res['capabilities']
          and res['resultType'] == 'complete')
    st, _, js = s.stateless('tools/list')
    check('2026: tools/list carries resultType, ttlMs and cacheScope',
          len(js['result']['tools']) == 14 and js['result']['cacheScope'] == 'public' and 'ttlMs' in js['result'])
    st, _, js = s.stateless('tools/call', {'name': 'execute_code', 'arguments': {'code': 'print(2**10)'}})
    check('2026: a stateless execute_code', js['result']['structuredContent']['stdout'] == '1024\n')
    st, _, js = s.stateless('tools/list', meta={})
    check('2026: _meta without a version -> 400 -32602', st == 400 and error_code(js) == -32602)
    st, _, js = s.stateless('tools/list', meta={'io.modelcontextprotocol/protocolVersion': '2026-07-28'})
    check('2026: _meta without clientCapabilities -> 400 -32602', st == 400 and error_code(js) == -32602)
    st, _, js = s.stateless('tools/list', headers={'MCP-Protocol-Version': '2025-11-25'})
    check('2026: header and _meta versions differ -> 400 -32020', st == 400 and error_code(js) == -32020)
    st, _, js = s.stateless('tools/list', headers={'MCP-Protocol-Version': None})
    check('2026: no MCP-Protocol-Version header -> 400 -32020', st == 400 and error_code(js) == -32020)
    m = dict(META, **{'io.modelcontextprotocol/protocolVersion': '2099-01-01'})
    st, _, js = s.stateless('tools/list', meta=m, headers={'MCP-Protocol-Version': '2099-01-01'})
    check('2026: an unknown version -> 400 -32022 with supported and requested',
          st == 400 and error_code(js) == -32022 and js['error']['data']['requested'] == '2099-01-01'
          and '2026-07-28' in js['error']['data']['supported'])
    st, _, js = s.stateless('tools/list', headers={'Mcp-Method': 'prompts/list'})
    check('2026: Mcp-Method unlike the body -> 400 -32020', st == 400 and error_code(js) == -32020)
    st, _, js = s.stateless('tools/call', {'name': 'list_runtimes', 'arguments': {}}, headers={'Mcp-Name': 'other'})
    check('2026: Mcp-Name unlike params.name -> 400 -32020', st == 400 and error_code(js) == -32020)
    for method in ('initialize', 'ping', 'logging/setLevel', 'no/such'):
        st, _, js = s.stateless(method)
        check('2026: %s -> 404 -32601' % method, st == 404 and error_code(js) == -32601 and js['id'] == 7)
    st, _, js = s.stateless('resources/read', {'uri': 'file:///etc/passwd'}, headers={'Mcp-Name': 'file:///etc/passwd'})
    check('2026: reading an unknown resource -> -32602 naming the uri',
          error_code(js) == -32602 and js['error']['data']['uri'] == 'file:///etc/passwd')


def http_concurrency_and_cancel(s):
    sid, _ = s.initialize()
    slow = {}

    def run_slow():
        t = time.time()
        slow['r'] = s.tool(sid, 'execute_code', {'code': 'import time; time.sleep(3); print("slow")'}, rid=100)
        slow['t'] = time.time() - t
    th = threading.Thread(target=run_slow)
    th.start()
    time.sleep(0.3)
    t = time.time()
    fast = [s.tool(sid, 'execute_code', {'code': 'print(%d)' % i}, rid=200 + i) for i in range(5)]
    fast_t = time.time() - t
    th.join()
    check('five fast calls finish while a slow one runs',
          fast_t < 2.5 and all(f['structuredContent']['stdout'] == '%d\n' % i for i, f in enumerate(fast)))
    check('the slow call finishes too', slow['r']['structuredContent']['stdout'] == 'slow\n')
    # notifications/cancelled stops the running guest; no JSON-RPC response follows
    res = {}

    def run_loop():
        t = time.time()
        res['st'], _, res['js'] = s.rpc(sid, 'tools/call', {'name': 'execute_code', 'arguments': {
            'code': 'while True: pass', 'timeout_seconds': 60}}, rid='loop-1', timeout=90)
        res['t'] = time.time() - t
    th = threading.Thread(target=run_loop)
    th.start()
    time.sleep(0.5)
    st, _, _ = s.request(body={'jsonrpc': '2.0', 'method': 'notifications/cancelled',
                               'params': {'requestId': 'loop-1', 'reason': 'test'}},
                         headers={'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25'})
    th.join(30)
    check('notifications/cancelled is accepted (202)', st == 202)
    check('the cancelled call stops at once and sends no JSON-RPC response',
          res.get('t', 99) < 5 and res.get('js') is None and res.get('st') == 204)
    # a client that hangs up mid-call has its call cancelled
    msg = json.dumps({'jsonrpc': '2.0', 'id': 9, 'method': 'tools/call', 'params': {
        'name': 'execute_code', 'arguments': {'code': 'while True: pass', 'timeout_seconds': 60}}}).encode()
    k = socket.create_connection(('127.0.0.1', s.port), timeout=10)
    k.sendall(b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nMcp-Session-Id: ' +
              sid.encode() + b'\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: %d\r\n\r\n' % len(msg) + msg)
    time.sleep(0.5)
    k.close()
    cancelled = 0
    for _ in range(50):
        m = s.tool(sid, 'get_metrics', {})['structuredContent']
        cancelled = m['execute_code']['by_status']['cancelled']
        if cancelled >= 2:
            break
        time.sleep(0.1)
    check('a client that disconnects has its call cancelled', cancelled >= 2)


def http_sessions_files(s):
    sid, _ = s.initialize()
    r = s.tool(sid, 'create_session', {'language': 'python'})
    box = r['structuredContent']['session_id']
    check('create_session returns an id', r['isError'] is False and box)
    s.tool(sid, 'execute_code', {'code': 'x = 41', 'session_id': box})
    r = s.tool(sid, 'execute_code', {'code': 'x += 1; print(x)', 'session_id': box})
    check('a session keeps variables', r['structuredContent']['stdout'] == '42\n' and
          r['structuredContent']['session_id'] == box)
    r = s.tool(sid, 'write_file', {'session_id': box, 'path': 'data/in.csv', 'content': 'a,b\n1,2\n'})
    check('write_file', r['structuredContent']['size'] == 8)
    r = s.tool(sid, 'execute_code', {'code': 'import csv; print(list(csv.reader(open("data/in.csv"))))',
                                     'session_id': box})
    check('the code reads the written file', r['structuredContent']['stdout'] == "[['a', 'b'], ['1', '2']]\n")
    r = s.tool(sid, 'list_files', {'session_id': box, 'recursive': True})
    check('list_files', any(e['path'] == '/app/data/in.csv' and e['type'] == 'file'
                            for e in r['structuredContent']['entries']))
    r = s.tool(sid, 'read_file', {'session_id': box, 'path': '/app/data/in.csv'})
    check('read_file utf-8', r['structuredContent']['content'] == 'a,b\n1,2\n')
    s.tool(sid, 'write_file', {'session_id': box, 'path': 'b.bin', 'content': base64.b64encode(b'\x00\xff\x10').decode(),
                               'encoding': 'base64'})
    r = s.tool(sid, 'read_file', {'session_id': box, 'path': 'b.bin'})
    check('read_file of binary as utf-8 -> isError pointing to base64',
          r['isError'] and 'base64' in r['content'][0]['text'])
    r = s.tool(sid, 'read_file', {'session_id': box, 'path': 'b.bin', 'encoding': 'base64'})
    check('read_file base64 round-trips', base64.b64decode(r['structuredContent']['content']) == b'\x00\xff\x10')
    r = s.tool(sid, 'write_file', {'session_id': box, 'path': 'x', 'content': '@@@', 'encoding': 'base64'})
    check('write_file with bad base64 -> isError', r['isError'])
    r = s.tool(sid, 'read_file', {'session_id': box, 'path': '../../etc/passwd'})
    check('read_file outside /app -> isError', r['isError'])
    cp = s.tool(sid, 'checkpoint_session', {'session_id': box})['structuredContent']['checkpoint_id']
    s.tool(sid, 'execute_code', {'code': 'x = 0', 'session_id': box})
    r = s.tool(sid, 'restore_session', {'session_id': box, 'checkpoint_id': cp})
    r = s.tool(sid, 'execute_code', {'code': 'print(x)', 'session_id': box})
    check('checkpoint and restore', r['structuredContent']['stdout'] == '42\n')
    fork = s.tool(sid, 'fork_session', {'session_id': box})['structuredContent']['session_id']
    s.tool(sid, 'execute_code', {'code': 'x = -1', 'session_id': fork})
    r = s.tool(sid, 'execute_code', {'code': 'print(x)', 'session_id': box})
    check('a fork evolves apart', r['structuredContent']['stdout'] == '42\n')
    r = s.tool(sid, 'list_sessions', {})
    ids = [x['session_id'] for x in r['structuredContent']['sessions']]
    check('list_sessions shows both', box in ids and fork in ids)
    r = s.tool(sid, 'reset_workspace', {'session_id': box})
    r = s.tool(sid, 'list_files', {'session_id': box})
    check('reset_workspace empties /app', r['structuredContent']['entries'] == [])
    r = s.tool(sid, 'execute_code', {'code': 'print(1)', 'session_id': 'nope'})
    check('an unknown session -> isError that says what to do', r['isError'] and 'create_session' in r['content'][0]['text'])
    # images: inline when small, a resource link when large
    png = ('import base64; open("dot.png", "wb").write(base64.b64decode('
           '"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="))')
    r = s.tool(sid, 'execute_code', {'code': png})
    imgs = [c for c in r['content'] if c['type'] == 'image']
    check('a PNG the code writes comes back as image content', imgs and imgs[0]['mimeType'] == 'image/png')
    r = s.tool(sid, 'execute_code', {'code': 'open("big.png", "wb").write(b"\\x89PNG" + bytes(3 << 20))',
                                     'session_id': box})
    links = [c for c in r['content'] if c['type'] == 'resource_link']
    check('a large image comes back as a resource link, not base64 text',
          links and links[0]['uri'].endswith('/app/big.png') and all(len(c.get('text', '')) < 100000 for c in r['content']))
    st, _, js = s.rpc(sid, 'resources/read', {'uri': links[0]['uri']})
    check('resources/read returns the linked image', js['result']['contents'][0]['mimeType'] == 'image/png')
    st, _, js = s.rpc(sid, 'resources/list')
    check('resources/list shows session files', any(x['uri'] == links[0]['uri'] for x in js['result']['resources']))
    # plots: plt.show() saves each figure as a PNG that comes back as an image block
    r = s.tool(sid, 'execute_code', {'code': 'import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [3, 1, 2])\nplt.show()'})
    imgs = [c for c in r['content'] if c['type'] == 'image']
    shown = base64.b64decode(imgs[0]['data']) if imgs else b''
    check('plt.show() comes back as an image block: a 640x480 PNG',
          shown[:8] == b'\x89PNG\r\n\x1a\n' and int.from_bytes(shown[16:20], 'big') == 640 and
          int.from_bytes(shown[20:24], 'big') == 480 and imgs[0]['mimeType'] == 'image/png')
    s.tool(sid, 'execute_code', {'code': 'import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([1, 2], [2, 1])',
                                 'session_id': box})
    r = s.tool(sid, 'execute_code', {'code': 'ax.plot([1, 2], [1, 2]); print(len(ax.lines)); plt.show()', 'session_id': box})
    check('a session draws on one figure over two calls, then shows it',
          r['structuredContent']['stdout'] == '2\n' and any(c['type'] == 'image' for c in r['content']))
    st, _, js = s.rpc(sid, 'completion/complete', {'ref': {'type': 'ref/prompt', 'name': 'sandbox_task'},
                                                   'argument': {'name': 'language', 'value': 'ja'}})
    check('completion/complete suggests javascript', js['result']['completion']['values'] == ['javascript'])
    st, _, js = s.rpc(sid, 'prompts/get', {'name': 'sandbox_task', 'arguments': {'task': 'sum 1..10'}})
    check('prompts/get sandbox_task', 'sum 1..10' in js['result']['messages'][0]['content']['text'])
    st, _, js = s.rpc(sid, 'prompts/get', {'name': 'sandbox_task', 'arguments': {}})
    check('prompts/get without its required argument -> -32602', error_code(js) == -32602)
    r = s.tool(sid, 'list_runtimes', {})
    rt = {x['language']: x for x in r['structuredContent']['runtimes']}
    check('list_runtimes names versions and modules',
          rt['python']['version'].startswith('3.11') and 'json' in rt['python']['modules'] and
          'numpy' not in rt['python']['modules'] and r['structuredContent']['limits']['max_timeout_seconds'] == 300)
    pk = {p['name']: p for p in rt['python']['packages']}
    check('list_runtimes lists the built-in packages with versions and import names',
          pk['openpyxl']['version'] == '3.0.9' and pk['PyYAML']['import'] == ['yaml'] and
          pk['beautifulsoup4']['from'] == 'built-in' and len(pk) >= 30)
    check('list_runtimes lists numpy, built into the interpreter',
          pk['numpy']['version'] == '1.19.5' and pk['numpy']['import'] == ['numpy'] and pk['numpy']['from'] == 'built-in')
    check('list_runtimes lists Pillow, built into the interpreter, imported as PIL',
          pk['Pillow']['version'] == '9.4.0' and pk['Pillow']['import'] == ['PIL'] and pk['Pillow']['from'] == 'built-in')
    box = s.tool(sid, 'create_session', {})['structuredContent']['session_id']
    ins = s.tool(sid, 'install_package', {'session_id': box, 'requirement': 'tabulate'})
    check('install_package without an index configured says so',
          ins['isError'] and 'no package index is configured' in ins['content'][0]['text'])
    s.tool(sid, 'destroy_session', {'session_id': box})
    ex = s.tool(sid, 'execute_code', {'code': 'import yaml, tabulate\nprint(tabulate.tabulate(yaml.safe_load("[[1, 2]]")))'})
    check('execute_code imports built-in packages', ex['structuredContent']['stdout'] == '-  -\n1  2\n-  -\n')
    check('list_runtimes gives max_fuel exactly (2^53, not a double rounded to 15 digits)',
          r['structuredContent']['limits']['max_fuel'] == 2**53)
    st, _, js = s.rpc(sid, 'tools/list', {})
    ex = [t for t in js['result']['tools'] if t['name'] == 'execute_code'][0]
    check("execute_code's schema gives the fuel maximum exactly", ex['inputSchema']['properties']['fuel']['maximum'] == 2**53)
    r = s.tool(sid, 'get_metrics', {})
    check('get_metrics counts calls', r['structuredContent']['tool_calls'] > 10 and
          r['structuredContent']['execute_code']['p50_ms'] > 0)
    r = s.tool(sid, 'destroy_session', {'session_id': fork})
    r = s.tool(sid, 'execute_code', {'code': 'print(1)', 'session_id': fork})
    check('destroy_session removes it', r['isError'])


def external_and_config():
    d = os.path.join(TMP, 'ext')
    os.makedirs(os.path.join(d, 'dir'), exist_ok=True)
    open(os.path.join(d, 'one.txt'), 'w').write('one')
    open(os.path.join(d, 'dir', 'two.txt'), 'w').write('two')
    s = Server('--external-files', os.path.join(d, 'one.txt'), os.path.join(d, 'dir'))
    try:
        sid, _ = s.initialize()
        r = s.tool(sid, 'execute_code', {'code': 'print(open("/external/one.txt").read(), open("/external/dir/two.txt").read())'})
        check('--external-files are readable at /external', r['structuredContent']['stdout'] == 'one two\n')
        r = s.tool(sid, 'execute_code', {'code': 'open("/external/one.txt", "w")'})
        check('/external is read-only', r['isError'])
        box = s.tool(sid, 'create_session', {})['structuredContent']
        r = s.tool(sid, 'execute_code', {'code': 'print(open("/external/one.txt").read())', 'session_id': box['session_id']})
        check('sessions see /external too', box['external'] == '/external' and r['structuredContent']['stdout'] == 'one\n')
        r = s.tool(sid, 'list_runtimes', {})
        check('list_runtimes lists /external', '/external/one.txt' in r['structuredContent']['external'])
    finally:
        s.stop()
    pkgs = os.path.join(TMP, 'pkgs')
    os.makedirs(os.path.join(pkgs, 'mypkg'), exist_ok=True)
    open(os.path.join(pkgs, 'mypkg', '__init__.py'), 'w').write('ANSWER = 42\n')
    s = Server('--packages', pkgs)
    try:
        sid, _ = s.initialize()
        r = s.tool(sid, 'execute_code', {'code': 'import mypkg; print(mypkg.ANSWER)'})
        check('--packages: stateless Python calls import them', r['structuredContent']['stdout'] == '42\n')
        box = s.tool(sid, 'create_session', {})['structuredContent']
        r = s.tool(sid, 'execute_code', {'code': 'import mypkg; print(mypkg.ANSWER)', 'session_id': box['session_id']})
        check('--packages: sessions import them', r['structuredContent']['stdout'] == '42\n')
        r = s.tool(sid, 'execute_code', {'code': 'console.log(1)', 'language': 'javascript'})
        check('--packages: JavaScript calls still run', r['structuredContent']['stdout'] == '1\n')
        rt = {x['language']: x for x in s.tool(sid, 'list_runtimes', {})['structuredContent']['runtimes']}
        check('--packages: list_runtimes lists them',
              {'name': 'mypkg', 'version': '', 'import': ['mypkg'], 'from': '/packages/0'} in rt['python']['packages'])
    finally:
        s.stop()
    wh = os.path.join(TMP, 'wheelhouse')
    os.makedirs(wh, exist_ok=True)
    with zipfile.ZipFile(os.path.join(wh, 'hello_wheel-0.1-py3-none-any.whl'), 'w') as z:
        z.writestr('hello_wheel.py', 'GREETING = "hi"\n')
        z.writestr('hello_wheel-0.1.dist-info/METADATA', 'Metadata-Version: 2.1\nName: hello-wheel\nVersion: 0.1\n')
        z.writestr('hello_wheel-0.1.dist-info/WHEEL', 'Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n')
        z.writestr('hello_wheel-0.1.dist-info/RECORD', '')
    s = Server('--wheelhouse', wh)
    try:
        sid, _ = s.initialize()
        box = s.tool(sid, 'create_session', {})['structuredContent']['session_id']
        r = s.tool(sid, 'install_package', {'session_id': box, 'requirement': 'hello-wheel'})
        check('install_package installs from the wheelhouse',
              not r['isError'] and r['structuredContent']['installed'] == [{'name': 'hello_wheel', 'version': '0.1'}])
        r = s.tool(sid, 'execute_code', {'code': 'import hello_wheel; print(hello_wheel.GREETING)', 'session_id': box})
        check('install_package: the session imports it', r['structuredContent']['stdout'] == 'hi\n')
        r = s.tool(sid, 'execute_code', {'code': 'import not_here_yet', 'session_id': box})
        check('a missing module, with an index configured: guidance says how to install it',
              any('install_package(session_id="%s", requirement="not_here_yet")' % box in g
                  for g in r['structuredContent']['error']['guidance']))
        r = s.tool(sid, 'execute_code', {'code': 'import pyyaml'})
        check('... but not for a wrong name of a built-in package',
              not any('install_package' in g for g in r['structuredContent']['error']['guidance']))
        r = s.tool(sid, 'install_package', {'session_id': box, 'requirement': 'file:///etc/passwd'})
        check('install_package refuses a path or URL', r['isError'] and 'refused' in r['content'][0]['text'])
    finally:
        s.stop()
    s = Server('--deny-imports', 'socket', '--deny-builtins', 'eval')
    try:
        sid, _ = s.initialize()
        r = s.tool(sid, 'execute_code', {'code': 'print(1)\nimport socket'})
        check('--deny-imports: refused before the code runs, as ImportPolicyError',
              r['isError'] and r['structuredContent']['error']['type'] == 'ImportPolicyError' and
              r['structuredContent']['stdout'] == '')
        r = s.tool(sid, 'execute_code', {'code': 'print(eval("1"))'})
        check('--deny-builtins: eval refused', r['isError'] and 'eval is not allowed' in
              r['structuredContent']['error']['message'])
        js = s.tool(sid, 'create_session', {'language': 'javascript'})['structuredContent']['session_id']
        r = s.tool(sid, 'execute_code', {'code': 'console.log(eval("2"))', 'session_id': js})
        check('the import policy leaves JavaScript sessions alone', r['structuredContent']['stdout'] == '2\n')
    finally:
        s.stop()
    p = subprocess.run([W, 'serve', '--packages', os.path.join(TMP, 'nonexistent')], capture_output=True, env=ENV,
                       timeout=30)
    check('--packages with a missing directory -> exit 2', p.returncode == 2 and b'not a directory' in p.stderr)
    os.symlink('/etc/passwd', os.path.join(d, 'link'))
    p = subprocess.run([W, 'serve', '--external-files', os.path.join(d, 'link')], capture_output=True, env=ENV, timeout=30)
    check('a symlink in --external-files is refused', p.returncode == 2 and b'symlink' in p.stderr)
    os.symlink('/etc', os.path.join(d, 'dir', 'escape'))
    p = subprocess.run([W, 'serve', '--external-files', os.path.join(d, 'dir')], capture_output=True, env=ENV, timeout=30)
    check('a symlink inside an --external-files directory is refused', p.returncode == 2 and b'symlink' in p.stderr)
    p = subprocess.run([W, 'serve', '--external-files', os.path.join(d, 'one.txt'), '--external-max-bytes', '2'],
                       capture_output=True, env=ENV, timeout=30)
    check('--external-max-bytes is enforced', p.returncode == 2 and b'external-max-bytes' in p.stderr)
    cfg = os.path.join(TMP, 'cfg.json')
    json.dump({'timeout': 5, 'max-timeout': 20, 'memory': 128, 'fuel': 5000000}, open(cfg, 'w'))
    s = Server('--config', cfg, env=dict(ENV, WASMBOX_MCP_MAX_MEMORY='512'))
    try:
        sid, _ = s.initialize()
        lim = s.tool(sid, 'list_runtimes', {})['structuredContent']['limits']
        check('config file and environment set the limits',
              lim['default_timeout_seconds'] == 5 and lim['max_timeout_seconds'] == 20 and
              lim['default_memory_mb'] == 128 and lim['max_memory_mb'] == 512 and lim['default_fuel'] == 5000000)
        r = s.tool(sid, 'execute_code', {'code': 'while True: pass'})
        check('the configured fuel budget applies to calls that name none',
              r['structuredContent']['status'] == 'out_of_fuel' and r['structuredContent']['fuel_used'] == 5000000)
        r = s.tool(sid, 'execute_code', {'code': 'print(1)', 'timeout_seconds': 30})
        check('a timeout above max-timeout -> isError', r['isError'] and 'timeout_seconds' in r['content'][0]['text'])
    finally:
        s.stop()
    json.dump({'no_such_setting': 1}, open(cfg, 'w'))
    p = subprocess.run([W, 'mcp', '--config', cfg], capture_output=True, env=ENV, timeout=30, stdin=subprocess.DEVNULL)
    check('an unknown config key -> exit 2 naming it', p.returncode == 2 and b'no_such_setting' in p.stderr)
    p = subprocess.run([W, 'mcp', '--timeout', '-1'], capture_output=True, env=ENV, timeout=30, stdin=subprocess.DEVNULL)
    check('a bad flag value -> exit 2', p.returncode == 2)
    p = subprocess.run([W, 'mcp', '--help'], capture_output=True, env=ENV, timeout=30)
    check('wasmbox mcp --help documents the settings',
          p.returncode == 0 and all(o in p.stdout for o in (b'--external-files', b'--config', b'--max-timeout', b'WASMBOX_MCP_')))
    p = subprocess.run([W, 'serve', '--help'], capture_output=True, env=ENV, timeout=30)
    check('wasmbox serve --help documents --listen and --token',
          p.returncode == 0 and b'--listen' in p.stdout and b'--token' in p.stdout)
    check('serve --help shows flags without a value bare (no "(null)")',
          b'--approve-destructive ' in p.stdout and b'(null)' not in p.stdout)


# ---- stdio --------------------------------------------------------------------

FAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1'  # Debian's faketime


def http_clock_jumps():
    """The wall clock set back a day, then forward two hours, under a running
    server (libfaketime in the server process; the monotonic clock is left
    alone, as NTP leaves it): timeouts, sessions, the choice of which MCP
    session to forget and the uptime follow real time, not the wall clock."""
    stamp = os.path.join(TMP, 'faketime')
    with open(stamp, 'w') as f:
        f.write('+0\n')
    env = dict(ENV, LD_PRELOAD=FAKETIME, FAKETIME_TIMESTAMP_FILE=stamp, FAKETIME_NO_CACHE='1',
               DONT_FAKE_MONOTONIC='1', WASMBOX_HOME=os.path.join(TMP, 'clock-home'))
    # (under ASan, the preloaded library comes before its runtime: allowed here)
    env['ASAN_OPTIONS'] = ':'.join(x for x in (ENV.get('ASAN_OPTIONS'), 'verify_asan_link_order=0') if x)
    s = Server('--max-sessions', '2', env=env)
    try:
        a, _ = s.initialize()
        box = s.tool(a, 'create_session', {})['structuredContent']['session_id']
        s.tool(a, 'execute_code', {'code': 'n = 1', 'session_id': box})
        b, _ = s.initialize()
        with open(stamp, 'w') as f:
            f.write('-1d\n')
        r = s.tool(a, 'execute_code', {'code': 'n += 1; print(n)', 'session_id': box})
        check('clock set back a day: the session goes on', r['structuredContent']['stdout'] == '2\n')
        r = s.tool(a, 'get_metrics', {})
        check('clock set back: the uptime is real time', 0 <= r['structuredContent']['uptime_seconds'] < 600)
        # a third MCP session: the least recently used (b, not a) is forgotten
        s.initialize()
        st, _, _ = s.rpc(a, 'ping')
        st_b, _, _ = s.rpc(b, 'ping')
        check('clock set back: the MCP session used last is kept, the older one goes', st == 200 and st_b == 404)
        t = time.monotonic()
        r = s.tool(a, 'execute_code', {'code': 'while True: pass', 'timeout_seconds': 1})
        took = time.monotonic() - t
        check('clock set back: a timeout is 1 s of real time (%.2f s)' % took,
              r['structuredContent']['status'] == 'timeout' and 0.9 < took < 5)
        with open(stamp, 'w') as f:
            f.write('+2h\n')
        r = s.tool(a, 'execute_code', {'code': 'n += 1; print(n)', 'session_id': box})
        check('clock set forward: the session goes on', r['structuredContent']['stdout'] == '3\n')
        fork = s.tool(a, 'fork_session', {'session_id': box})['structuredContent']['session_id']
        r = s.tool(a, 'execute_code', {'code': 'print(n)', 'session_id': fork})
        check('clock set forward: a fork has the state', r['structuredContent']['stdout'] == '3\n')
        t = time.monotonic()
        r = s.tool(a, 'execute_code', {'code': 'import time; time.sleep(0.5); print("slept")', 'timeout_seconds': 5})
        took = time.monotonic() - t
        check('clock set forward: a sleep is real time (%.2f s)' % took,
              r['structuredContent']['stdout'] == 'slept\n' and 0.4 < took < 4)
        ids = [x['session_id'] for x in s.tool(a, 'list_sessions', {})['structuredContent']['sessions']]
        check('clock set forward by less than the TTL: no session expired', box in ids and fork in ids)
        check('server survived the clock jumps', s.alive())
    finally:
        s.stop()


class Stdio:
    def __init__(self, *args):
        self.p = subprocess.Popen([W, 'mcp', *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=ENV)
        PROCS.append(self.p)

    def send(self, obj):
        self.p.stdin.write(obj if isinstance(obj, bytes) else json.dumps(obj).encode() + b'\n')
        self.p.stdin.flush()

    def recv(self):
        line = self.p.stdout.readline()
        return json.loads(line) if line else None


def stdio_tests():
    c = Stdio('--max-request-bytes', '4096')
    c.send({'jsonrpc': '2.0', 'id': 1, 'method': 'initialize', 'params': {
        'protocolVersion': '2025-11-25', 'capabilities': {}, 'clientInfo': {'name': 't', 'version': '1'}}})
    check('stdio: initialize', c.recv()['result']['protocolVersion'] == '2025-11-25')
    c.send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})
    c.send(b'{not json\n')
    check('stdio: malformed JSON -> -32700, id null', (lambda r: error_code(r) == -32700 and r['id'] is None)(c.recv()))
    c.send(b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"s":"\xc3\x28"}}\n')
    check('stdio: invalid UTF-8 -> -32700', error_code(c.recv()) == -32700)
    c.send(b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"s":"' + b'x' * 10000 + b'"}}\n')
    check('stdio: a line over --max-request-bytes -> error', error_code(c.recv()) == -32700)
    c.send({'jsonrpc': '2.0', 'id': 4, 'method': 'ping'})
    check('stdio: still serving after that', c.recv()['result'] == {})
    c.send({'jsonrpc': '2.0', 'id': 5, 'method': 'logging/setLevel', 'params': {'level': 'info'}})
    c.recv()
    c.send({'jsonrpc': '2.0', 'id': 6, 'method': 'tools/call', 'params': {'name': 'execute_code', 'arguments': {
        'code': 'import time; time.sleep(1.5); print("slow")'}}})
    c.send({'jsonrpc': '2.0', 'id': 7, 'method': 'tools/call', 'params': {'name': 'execute_code', 'arguments': {
        'code': 'print("fast")'}}})
    got = [c.recv() for _ in range(4)]
    ids = [g.get('id') for g in got if 'id' in g]
    logs = [g for g in got if g.get('method') == 'notifications/message']
    check('stdio: a fast call is answered while a slow one runs', ids == [7, 6])
    check('stdio: logging/setLevel brings notifications/message before the response', len(logs) == 2)
    c.send({'jsonrpc': '2.0', 'id': 'spin', 'method': 'tools/call', 'params': {'name': 'execute_code', 'arguments': {
        'code': 'while True: pass', 'timeout_seconds': 60}}})
    time.sleep(0.5)
    t = time.time()
    c.send({'jsonrpc': '2.0', 'method': 'notifications/cancelled', 'params': {'requestId': 'spin'}})
    c.send({'jsonrpc': '2.0', 'id': 8, 'method': 'tools/call', 'params': {'name': 'get_metrics', 'arguments': {}}})
    r = c.recv()
    while r.get('method'):
        r = c.recv()
    time.sleep(0.3)
    c.send({'jsonrpc': '2.0', 'id': 9, 'method': 'tools/call', 'params': {'name': 'get_metrics', 'arguments': {}}})
    r = c.recv()
    while r.get('method'):
        r = c.recv()
    check('stdio: notifications/cancelled stops the call and no response comes for it',
          r['id'] == 9 and r['result']['structuredContent']['execute_code']['by_status']['cancelled'] == 1 and
          time.time() - t < 5)
    c.send({'jsonrpc': '2.0', 'id': 10, 'method': 'tools/call', 'params': {'name': 'execute_code', 'arguments': {
        'code': 'import time; time.sleep(0.5); print("done")'}}})
    c.p.stdin.close()
    rest = c.p.stdout.read().decode().splitlines()
    answered = [json.loads(x) for x in rest]
    check('stdio: at end of input, pending calls are answered, then exit 0',
          any(a.get('id') == 10 for a in answered) and c.p.wait(10) == 0)
    err = c.p.stderr.read().decode()
    check('stdio: stdout carried only JSON-RPC lines', all(a.get('jsonrpc') == '2.0' for a in answered))
    check('stdio: no sanitizer report', 'Sanitizer' not in err)
    c = Stdio('--workers', '1')  # one worker: the second call waits in the queue
    c.send({'jsonrpc': '2.0', 'id': 'busy', 'method': 'tools/call', 'params': {'name': 'execute_code', 'arguments': {
        'code': 'import time; time.sleep(1); print("busy")'}}})
    c.send({'jsonrpc': '2.0', 'id': 'queued', 'method': 'tools/call', 'params': {'name': 'execute_code', 'arguments': {
        'code': 'print("should not run")'}}})
    c.send({'jsonrpc': '2.0', 'method': 'notifications/cancelled', 'params': {'requestId': 'queued'}})
    c.send({'jsonrpc': '2.0', 'id': 'after', 'method': 'ping'})
    c.p.stdin.close()
    ids = [json.loads(x).get('id') for x in c.p.stdout.read().decode().splitlines()]
    check('stdio: a request cancelled while still queued is dropped, unanswered', sorted(ids) == ['after', 'busy'])
    c.p.wait(10)
    c = Stdio()
    c.send({'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call', 'params': {
        'name': 'execute_code', 'arguments': {'code': 'print(3)'},
        '_meta': META}})
    r = c.recv()
    check('stdio: a 2026-07-28 stateless request', r['result']['structuredContent']['stdout'] == '3\n' and
          r['result']['resultType'] == 'complete')
    c.p.stdin.close()
    check('stdio: exit 0 at end of input', c.p.wait(10) == 0)
    del err


def scratch_of_killed_server():
    """A server killed without its cleanup leaves its scratch directory; the
    next server to start removes it (its lock is free), never a live one's.
    The page at / is announced when the server starts."""
    tmp = os.path.join(TMP, 'scratch-tmp')
    os.makedirs(tmp, exist_ok=True)
    env = dict(ENV, TMPDIR=tmp)
    a = Server(env=env)
    page = 'a page to try it at http://127.0.0.1:%d/' % a.port
    for _ in range(100):  # the line after "listening on", read by the log's thread
        if any(page in x for x in a.log):
            break
        time.sleep(0.05)
    check('serve says where its page is', any(page in x for x in a.log))
    first = set(os.listdir(tmp))
    b = Server(env=env)
    both = set(os.listdir(tmp))
    check('two live servers keep their scratch directories (%r)' % sorted(both), len(first) == 1 and first < both)
    a.proc.kill()
    a.proc.wait(30)
    # without .lock: left by a server killed as it removed its directory
    # (builds that removed the lock first) when older than 10 minutes, a
    # server's about to take its lock when new
    old, new = os.path.join(tmp, 'wasmbox-mcp-unlocked'), os.path.join(tmp, 'wasmbox-mcp-starting')
    for d in (old, new):
        os.makedirs(os.path.join(d, 'wXXXXXX'))
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    c = Server(env=env)
    left = set(os.listdir(tmp))
    check('a killed server\'s scratch directory is removed by the next to start (%r)' % sorted(left),
          not (first & left) and (both - first) <= left and len(left - {'wasmbox-mcp-starting'}) == 2)
    check('  ... and an old one without its lock, never a new one', not os.path.exists(old) and os.path.isdir(new))
    shutil.rmtree(new)
    b.stop()
    c.stop()
    check('servers stopped by SIGTERM leave nothing (%r)' % os.listdir(tmp), os.listdir(tmp) == [])


def main():
    s = Server()
    try:
        guard('HTTP protocol', lambda: http_protocol(s))
        guard('HTTP bad input', lambda: http_bad_input(s))
        guard('HTTP 2026-07-28', lambda: http_stateless(s))
        guard('HTTP concurrency and cancellation', lambda: http_concurrency_and_cancel(s))
        guard('HTTP sessions and files', lambda: http_sessions_files(s))
        check('HTTP server survived every test', s.alive())
    finally:
        s.stop()
    guard('stop at start', http_stop_at_start)
    guard('scratch of a killed server', scratch_of_killed_server)
    guard('Origin and token', http_origin_token)
    guard('clients, limits, logs, metrics', clients_limits_logs)
    guard('tenancy', tenancy)
    guard('slow clients', http_slow_clients)
    guard('clock jumps', http_clock_jumps)
    guard('external files and config', external_and_config)
    guard('stdio', stdio_tests)


try:
    main()
finally:
    for p in PROCS:
        if p.poll() is None:
            p.kill()
    shutil.rmtree(TMP, ignore_errors=True)
finish()
