"""A `wasmbox serve` for the HTTP tests (transport.py, oauth.py): started on
a free loopback port, its stderr kept, stopped with a check that it ended
cleanly (exit 0, no sanitizer report); request() sends one HTTP request to
it: (status, response, parsed JSON body or None)."""
import http.client
import json
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tap import check  # noqa: E402


class Server:
    def __init__(self, wasmbox, *args, env, listen='127.0.0.1:0'):
        self.proc = subprocess.Popen([wasmbox, 'serve', '--listen', listen, *args], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        self.log = []
        line = ''
        for _ in range(10):  # warnings may come first
            line = self.proc.stderr.readline().decode()
            self.log.append(line)
            if 'listening on http://' in line or not line:
                break
        if 'listening on http://' not in line:
            self.proc.kill()
            raise RuntimeError('server did not start: %r' % ''.join(self.log))
        self.port = int(line.rsplit(':', 1)[1].split('/')[0])
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.proc.stderr:
            self.log.append(line.decode(errors='replace'))

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        self.proc.terminate()
        try:
            code = self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = None
        time.sleep(0.1)
        log = ''.join(self.log)
        if 'Sanitizer' in log or code != 0:
            check('server stopped cleanly (exit %r)%s' % (code, ''.join('\n    ' + x for x in log.splitlines()[-30:])),
                  False)

    def request(self, method='POST', body=None, headers=None, timeout=30, path='/mcp', bearer=None):
        """body: a dict or list (sent as JSON) or bytes; sent with POST only."""
        c = http.client.HTTPConnection('127.0.0.1', self.port, timeout=timeout)
        h = {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream'}
        if bearer is not None:
            h['Authorization'] = 'Bearer ' + bearer
        h.update(headers or {})
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        c.request(method, path, body=body if method == 'POST' else None, headers=h)
        r = c.getresponse()
        data = r.read()
        c.close()
        try:
            js = json.loads(data) if data else None
        except ValueError:
            js = None
        return r.status, r, js
