#!/usr/bin/env python3
"""OAuth tests: wasmbox serve as an OAuth 2.1 resource server (MCP
authorization), seen by a client with good and bad access tokens. The test
is its own authorization server: it makes RSA and EC keys, signs tokens by
hand (so it can also make the forgeries a JWT library refuses to make) and
serves the JWKS from a local HTTP server whose keys it rotates. Needs the
`cryptography` package (Debian: python3-cryptography). Prints "ok N - what"
/ "not ok N - what" per check and "N passed, N failed" at the end.

usage: oauth.py WASMBOX
"""
import hashlib
import hmac
import http.client
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from jose import Key, b64u, jwt  # noqa: E402
import served  # noqa: E402
from tap import check, finish, guard  # noqa: E402

W = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix='wasmbox-oauth-test-')
ENV = {k: v for k, v in os.environ.items() if not k.startswith('WASMBOX_MCP_')}
ENV['WASMBOX_HOME'] = os.path.join(TMP, 'home')
ISSUER = 'https://issuer.test.example'
RESOURCE = 'https://mcp.test.example/mcp'
METADATA_URL = 'https://mcp.test.example/.well-known/oauth-protected-resource/mcp'
SCOPE = 'mcp:tools'
PROCS = []


# ---- the authorization server's part ---------------------------------------------

def claims(**over):
    now = int(time.time())
    c = {'iss': ISSUER, 'aud': RESOURCE, 'sub': 'alice', 'exp': now + 300, 'iat': now, 'scope': 'openid ' + SCOPE}
    c.update(over)
    return {k: v for k, v in c.items() if v is not None}


def token(key, header=None, sig=None, **over):
    """A JWT signed by key (header and claims overridable); sig(data) replaces the signature."""
    h = {'alg': key.alg, 'typ': 'JWT', 'kid': key.kid}
    h.update(header or {})
    h = {k: v for k, v in h.items() if v is not None}
    return jwt(key, h, claims(**over), sig)


class Jwks:
    """The issuer's JWKS at http://127.0.0.1:PORT/jwks.json; keys can change under it."""

    def __init__(self, keys):
        self.keys, self.fetches = list(keys), 0
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                owner.fetches += 1
                body = json.dumps({'keys': [k.jwk() for k in owner.keys] + [{'kty': 'oct', 'k': 'c2VjcmV0'}]}).encode()
                self.send_response(200)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        self.httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.url = 'http://127.0.0.1:%d/jwks.json' % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


# ---- the server ----------------------------------------------------------------------

class Server(served.Server):
    def __init__(self, *args, listen='127.0.0.1:0'):
        super().__init__(W, *args, env=ENV, listen=listen)
        PROCS.append(self.proc)

    def initialize(self, bearer):
        return self.request(body={'jsonrpc': '2.0', 'id': 0, 'method': 'initialize', 'params': {
            'protocolVersion': '2025-11-25', 'capabilities': {}, 'clientInfo': {'name': 'oauth.py', 'version': '1'}}},
            bearer=bearer)

    def tools_list(self, bearer, sid):
        self.request(body={'jsonrpc': '2.0', 'method': 'notifications/initialized'}, bearer=bearer,
                     headers={'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25'})
        return self.request(body={'jsonrpc': '2.0', 'id': 1, 'method': 'tools/list'}, bearer=bearer,
                            headers={'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25'})


def challenge(r):
    return r.getheader('WWW-Authenticate') or ''


def refused(s, what, tok, status=401, error='invalid_token', reason=None, metadata=METADATA_URL):
    st, r, js = s.initialize(tok)
    ch = challenge(r)
    msg = (js or {}).get('error', {}).get('message', '')
    ok = st == status and 'resource_metadata="%s"' % metadata in ch and 'error="%s"' % error in ch
    ok = ok and 'error_description="' in ch and (reason is None or reason in ch and reason in msg)
    check('%s: %d, WWW-Authenticate %s (got %d, %r, %r)' % (what, status, error, st, ch, msg), ok)


# ---- the checks ------------------------------------------------------------------------

RSA1, EC1, RSA2, EVIL = Key('RSA', 'rsa-1'), Key('EC', 'ec-1'), Key('RSA', 'rsa-2'), Key('RSA', 'rsa-1')
STATIC = 'static-token-0123456789abcdef'


def main_server():
    jwks = Jwks([RSA1, EC1])
    tokens = os.path.join(TMP, 'tokens')
    with open(tokens, 'w') as f:
        f.write('ci %s\n' % STATIC)
    os.chmod(tokens, 0o600)
    access = os.path.join(TMP, 'access.log')
    started = time.monotonic()
    s = Server('--oauth-issuer', ISSUER, '--oauth-jwks', jwks.url, '--oauth-resource', RESOURCE,
               '--oauth-scopes', SCOPE, '--tokens', tokens, '--access-log', access, '--no-playground')
    try:
        check('the JWKS was fetched once at start (%d)' % jwks.fetches, jwks.fetches == 1)

        def valid():
            for key in (RSA1, EC1):
                st, r, js = s.initialize(token(key))
                sid = r.getheader('Mcp-Session-Id')
                check('%s token: initialize 200 with a session (%d)' % (key.alg, st),
                      st == 200 and sid and js.get('result', {}).get('serverInfo'))
                st, r, js = s.tools_list(token(key), sid)
                names = [t['name'] for t in (js or {}).get('result', {}).get('tools', [])]
                check('%s token: tools/list 200 with execute_code (%d)' % (key.alg, st),
                      st == 200 and 'execute_code' in names)
            st, _, _ = s.initialize(token(RSA1, aud=['https://other.example', RESOURCE]))
            check('aud as a list holding the resource: 200 (%d)' % st, st == 200)
            st, _, _ = s.initialize(token(RSA1, exp=int(time.time()) - 20))
            check('expired 20 s ago, inside the leeway: 200 (%d)' % st, st == 200)
            st, _, _ = s.initialize(token(RSA1, header={'typ': 'at+jwt'}, scope=None, scp=['x', SCOPE]))
            check('typ at+jwt, scopes in scp: 200 (%d)' % st, st == 200)
            st, _, _ = s.initialize(token(EC1, header={'kid': None}))
            check('no kid: the key that fits verifies it: 200 (%d)' % st, st == 200)
        guard('valid tokens', valid)

        def missing():
            st, r, js = s.initialize(None)
            ch = challenge(r)
            check('no token: 401 with resource_metadata, scope and no error (%d, %r)' % (st, ch),
                  st == 401 and ch == 'Bearer resource_metadata="%s", scope="%s"' % (METADATA_URL, SCOPE))
            st, r, _ = s.request('GET', path='/metrics')
            check('/metrics without a token: 401 with resource_metadata (%d)' % st,
                  st == 401 and 'resource_metadata=' in challenge(r))
            c = http.client.HTTPConnection('127.0.0.1', s.port, timeout=30)
            c.request('GET', '/metrics', headers={'Authorization': 'Bearer ' + token(RSA1)})
            r = c.getresponse()
            text = r.read().decode()
            c.close()
            check('/metrics with an access token: 200, OAuth clients counted as one, "oauth:*" (%d)' % r.status,
                  r.status == 200 and 'wasmbox_http_requests_total{client="oauth:*",code="200"}' in text and
                  'alice' not in text)
        guard('no token', missing)

        def bad_tokens():
            now = int(time.time())
            refused(s, 'expired', token(RSA1, exp=now - 120), reason='expired')
            refused(s, 'no exp', token(RSA1, exp=None), reason='no exp')
            refused(s, 'nbf in the future', token(RSA1, nbf=now + 600), reason='not valid yet')
            refused(s, 'wrong audience', token(RSA1, aud='https://other.example/mcp'), reason='audience')
            refused(s, 'no audience', token(RSA1, aud=None), reason='audience')
            refused(s, 'wrong issuer', token(RSA1, iss='https://evil.example'), reason='issuer')
            refused(s, 'wrong signature (another key, same kid)', token(EVIL), reason='signature')
            good = token(RSA1)
            h, p, sig = good.split('.')
            forged = b64u(json.dumps(dict(claims(), sub='admin')).encode())
            refused(s, 'payload changed after signing', '.'.join((h, forged, sig)), reason='signature')
            none_h = b64u(json.dumps({'alg': 'none', 'typ': 'JWT'}).encode())
            refused(s, 'alg none, no signature', none_h + '.' + p + '.', reason='signed JWT')
            refused(s, 'alg none with a signature', none_h + '.' + p + '.' + sig, reason='alg none')
            hs = token(RSA1, header={'alg': 'HS256'}, sig=lambda d: hmac.new(RSA1.public_pem(), d, hashlib.sha256).digest())
            refused(s, 'HS256 with the public key as its secret', hs, reason='never accepted')
            refused(s, 'crit header', token(RSA1, header={'crit': ['exp']}), reason='crit')
            refused(s, 'a sub with a space', token(RSA1, sub='a b'), reason='sub claim')
            refused(s, 'not a JWT (a wrong static token)', 'wrong-static-token-0123456789', reason='signed JWT')
            refused(s, 'longer than 8 KiB', token(RSA1, pad='x' * 9000), reason='longer than')
            dup = b64u(('{"iss":"%s","aud":"https://x","aud":"%s","sub":"a","exp":%d,"scope":"%s"}'
                        % (ISSUER, RESOURCE, now + 300, SCOPE)).encode())
            hd = b64u(json.dumps({'alg': 'RS256', 'kid': 'rsa-1'}).encode())
            refused(s, 'aud given twice', hd + '.' + dup + '.' + b64u(RSA1.sign((hd + '.' + dup).encode())),
                    reason='distinct members')
            refused(s, 'without the required scope', token(RSA1, scope='openid'), status=403,
                    error='insufficient_scope', reason='scope')
        guard('bad tokens', bad_tokens)

        def unknown_kid():
            before = jwks.fetches
            refused(s, 'unknown kid (a key not yet in the JWKS)', token(RSA2), reason='no key with its kid')
            check('an unknown kid fetched the JWKS again (%d -> %d)' % (before, jwks.fetches),
                  jwks.fetches == before + 1)
            refused(s, 'another unknown kid right after', token(Key('EC', 'ec-9')), reason='no key with its kid')
            check('...without a fetch: at most one per 10 s (%d)' % jwks.fetches, jwks.fetches == before + 1)
            refused(s, 'RS256 header on an EC key', token(EC1, header={'alg': 'RS256'}), reason='kid')
            return time.monotonic()
        # the start fetched the keys: the next fetch may come 10 s later
        time.sleep(max(0, started + 10.5 - time.monotonic()))
        fetched = [time.monotonic()]
        guard('unknown kid', lambda: fetched.__setitem__(0, unknown_kid()))

        def static_client():
            st, _, _ = s.initialize(STATIC)
            check('a --tokens client beside OAuth: 200 (%d)' % st, st == 200)
        guard('static token', static_client)

        def tenancy():
            def call(bearer, name, args):
                st, r, js = s.initialize(bearer)
                h = {'Mcp-Session-Id': r.getheader('Mcp-Session-Id') or '', 'MCP-Protocol-Version': '2025-11-25'}
                s.request(body={'jsonrpc': '2.0', 'method': 'notifications/initialized'}, bearer=bearer, headers=h)
                st, r, js = s.request(body={'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call',
                                            'params': {'name': name, 'arguments': args}}, bearer=bearer, headers=h)
                res = (js or {}).get('result') or {}
                return res.get('structuredContent'), res.get('isError'), json.dumps(res.get('content'))
            made, _, _ = call(token(EC1), 'create_session', {})
            sid = (made or {}).get('session_id', 'none')
            call(token(EC1), 'execute_code', {'session_id': sid, 'code': 'x = 7'})
            ghost = 's' + '0' * 24
            _, _, nothing = call(token(EC1, sub='mallory'), 'execute_code', {'session_id': ghost, 'code': '1'})
            _, err_m, text_m = call(token(EC1, sub='mallory'), 'execute_code', {'session_id': sid, 'code': 'print(x)'})
            _, err_c, text_c = call(STATIC, 'execute_code', {'session_id': sid, 'code': 'print(x)'})
            check('tenancy: another OAuth subject and a static client find no such session, as for one that '
                  'never was', err_m and err_c and text_m.replace(sid, ghost) == nothing == text_c.replace(sid, ghost))
            listed, _, _ = call(token(EC1, sub='mallory'), 'list_sessions', {})
            check('tenancy: ... nor list it', sid not in json.dumps(listed))
            out, _, _ = call(token(RSA1), 'execute_code', {'session_id': sid, 'code': 'print(x)'})
            check('tenancy: the subject that made it uses it, with either of its keys (%r)' % (out or {}).get('stdout'),
                  out and out['stdout'] == '7\n')
        guard('tenancy', tenancy)

        def metadata():
            for path in ('/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'):
                st, r, js = s.request('GET', path=path)
                check('GET %s without a token: 200 JSON (%d)' % (path, st),
                      st == 200 and r.getheader('Content-Type') == 'application/json')
                check('its document: resource, authorization_servers, bearer methods, scopes (%r)' % js,
                      js and js.get('resource') == RESOURCE and js.get('authorization_servers') == [ISSUER] and
                      js.get('bearer_methods_supported') == ['header'] and js.get('scopes_supported') == [SCOPE])
            st, _, _ = s.request('GET', path='/.well-known/oauth-protected-resource', headers={'Host': 'evil.example'})
            check('the metadata keeps the Host check: 403 (%d)' % st, st == 403)
            st, _, _ = s.request('POST', path='/.well-known/oauth-protected-resource', body={})
            check('the metadata is only read: POST 405 (%d)' % st, st == 405)
            st, _, _ = s.request('GET', path='/.well-known/oauth-protected-resource/other')
            check('another path under it: 404 (%d)' % st, st == 404)
        guard('metadata', metadata)

        def rotation():
            jwks.keys = [RSA2, EC1]  # rsa-1 rotated out, rsa-2 in
            wait = fetched[0] + 10.5 - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            st, _, _ = s.initialize(token(RSA2, sub='bob'))
            check('a key rotated in works after the refetch: 200 (%d)' % st, st == 200)
            refused(s, 'a key rotated out of the JWKS (after refresh)', token(RSA1), reason='no key with its kid')
            st, _, _ = s.initialize(token(EC1))
            check('the key kept still works: 200 (%d)' % st, st == 200)
        guard('rotation', rotation)

        def access_log():
            lines = []
            for _ in range(40):
                lines = [json.loads(x) for x in open(access)] if os.path.exists(access) else []
                if any(x.get('client') == 'oauth:bob' for x in lines):
                    break
                time.sleep(0.05)
            clients = {x.get('client') for x in lines}
            check('the access log names OAuth clients oauth:<sub> and static ones by name (%r)' % clients,
                  {'oauth:alice', 'oauth:bob', 'ci'} <= clients)
            check('...and refused tokens as no client', None in clients)
            text = open(access).read()
            check('no token is written to the log', STATIC not in text and 'eyJ' not in text)
        guard('access log', access_log)
    finally:
        s.stop()
        jwks.httpd.shutdown()


def file_and_settings():
    path = os.path.join(TMP, 'jwks.json')
    with open(path, 'w') as f:
        json.dump({'keys': [EC1.jwk()]}, f)
    os.chmod(path, 0o644)
    s = Server('--oauth-issuer', ISSUER, '--oauth-jwks', path, '--oauth-resource', 'https://mcp.test.example/',
               '--oauth-claim', 'client_id')
    try:
        aud = 'https://mcp.test.example/'
        st, r, _ = s.initialize(token(EC1, aud=aud, client_id='svc-7'))
        check('JWKS from a file, identity from client_id: 200 (%d)' % st, st == 200)
        refused(s, 'no client_id claim', token(EC1, aud=aud), reason='client_id claim',
                metadata='https://mcp.test.example/.well-known/oauth-protected-resource')
        st, r, js = s.request('GET', path='/.well-known/oauth-protected-resource')
        check('a resource at / has its metadata at /.well-known/oauth-protected-resource, no scopes (%d, %r)'
              % (st, js), st == 200 and js['resource'] == 'https://mcp.test.example/' and 'scopes_supported' not in js)
        st, r, _ = s.initialize(None)
        check('...and 401s point there (%r)' % challenge(r),
              challenge(r) == 'Bearer resource_metadata="https://mcp.test.example/.well-known/oauth-protected-resource"')
    finally:
        s.stop()

    def refuses(what, args, says):
        p = subprocess.run([W, 'serve', '--listen', '127.0.0.1:0', *args], env=ENV, capture_output=True, timeout=30)
        err = p.stderr.decode()
        check('refused: %s (%d, %r)' % (what, p.returncode, err.strip()), p.returncode == 2 and says in err)
    base = ['--oauth-issuer', ISSUER, '--oauth-jwks', path, '--oauth-resource', RESOURCE]
    refuses('issuer without a resource', base[:4], 'needs oauth-resource')
    refuses('issuer without keys', base[:2] + base[4:], 'needs oauth-jwks')
    refuses('oauth settings without an issuer', base[2:], 'need oauth-issuer')
    refuses('an issuer over plain http', ['--oauth-issuer', 'http://issuer.test.example'] + base[2:], 'only on loopback')
    useless = os.path.join(TMP, 'useless.json')
    with open(useless, 'w') as f:
        json.dump({'keys': [{'kty': 'oct', 'k': 'c2VjcmV0'}, {'kty': 'RSA', 'n': 'AQAB', 'e': 'AQAB'}]}, f)
    refuses('a JWKS without a usable key', base[:2] + ['--oauth-jwks', useless] + base[4:], 'no usable key')
    os.chmod(path, 0o666)
    refuses('a JWKS file others can write', base, 'writable by others')
    os.chmod(path, 0o644)
    # OAuth is authentication: listening beyond loopback is allowed with it alone
    p = subprocess.Popen([W, 'serve', '--listen', '0.0.0.0:0', *base], env=ENV, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    PROCS.append(p)
    line = p.stderr.readline().decode()
    check('OAuth alone allows listening beyond loopback (%r)' % line, 'listening on http://0.0.0.0:' in line)
    p.terminate()
    p.wait(30)


def hung_issuer():
    """A JWKS server that accepts and never answers must not hang requests."""
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    sock.listen(16)
    url = 'http://127.0.0.1:%d/jwks.json' % sock.getsockname()[1]
    t = time.monotonic()
    s = Server('--oauth-issuer', ISSUER, '--oauth-jwks', url, '--oauth-resource', RESOURCE)
    started = time.monotonic() - t
    try:
        check('a hung JWKS server delays the start by the fetch timeout only (%.1f s)' % started, started < 9)
        check('...with a warning', any('OAuth keys not loaded yet' in x for x in s.log))
        t = time.monotonic()
        st, r, js = s.initialize(token(RSA1))
        took = time.monotonic() - t
        msg = (js or {}).get('error', {}).get('message', '')
        check('a token then gets 503 at once, saying why (%d, %.1f s, %r)' % (st, took, msg),
              st == 503 and took < 2 and "issuer's keys could not be loaded" in msg and r.getheader('Retry-After'))
    finally:
        s.stop()
        sock.close()


def main():
    try:
        guard('main server', main_server)
        guard('file and settings', file_and_settings)
        guard('hung issuer', hung_issuer)
    finally:
        for p in PROCS:
            if p.poll() is None:
                p.kill()
        shutil.rmtree(TMP, ignore_errors=True)


main()
finish()
