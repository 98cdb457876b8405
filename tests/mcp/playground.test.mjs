// The playground page of `wasmbox serve`, in headless Chromium (Debian's)
// driven by puppeteer-core: type code, run it, see the output, an image, an
// error, a session and its files; what the guest prints never becomes HTML;
// the page needs the token for every call it makes. Also the page's HTTP
// rules: served without the token, with the Host and Origin checks of /mcp,
// read-only, absent under --no-playground.
// usage: node --test playground.test.mjs   (WASMBOX: the binary; CHROMIUM:
// the browser, default /usr/bin/chromium; SHOTS: where screenshots go)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import puppeteer from 'puppeteer-core';

const WASMBOX = resolve(process.env.WASMBOX ?? new URL('../../build/wasmbox', import.meta.url).pathname);
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = process.env.SHOTS ?? mkdtempSync(join(tmpdir(), 'wasmbox-shots-'));
const TOKEN = 'playground-token-0123456789';
const HOME = mkdtempSync(join(tmpdir(), 'wasmbox-playground-'));
const servers = [];
mkdirSync(SHOTS, { recursive: true });

function serve(...args) {
  const proc = spawn(WASMBOX, ['serve', '--listen', '127.0.0.1:0', ...args], {
    env: { ...process.env, WASMBOX_HOME: HOME },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  servers.push(proc);
  return new Promise((ok, fail) => {
    let buf = '';
    proc.stderr.on('data', (d) => {
      buf += d;
      const m = buf.match(/listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp/);
      if (m) ok(m[1]);
    });
    proc.on('exit', (code) => fail(new Error(`serve exited ${code}: ${buf}`)));
  });
}

/* a raw request, so that Host can be anything */
function get(base, path, { method = 'GET', headers = {} } = {}) {
  return new Promise((ok, fail) => {
    const req = request(base + path, { method, headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => ok({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

let base;
before(async () => {
  base = await serve('--token', TOKEN);
});
after(() => {
  for (const p of servers) p.kill('SIGTERM');
  rmSync(HOME, { recursive: true, force: true });
});

test('the page and its files over HTTP', async () => {
  const page = await get(base, '/');
  assert.equal(page.status, 200, 'no token needed for the page');
  assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
  assert.match(page.headers['content-security-policy'], /script-src 'self'/);
  assert.match(page.headers['content-security-policy'], /frame-ancestors 'none'/);
  assert.equal(page.headers['x-content-type-options'], 'nosniff');
  assert.match(page.body, /<title>wasmbox playground<\/title>/);
  const editor = await get(base, '/playground/editor.js');
  assert.equal(editor.status, 200);
  assert.equal(editor.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.match(editor.body, /CodeMirror 5\.\d+\.\d+, MIT licence/);
  const head = await get(base, '/playground/app.css', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.body, '');
  const post = await get(base, '/', { method: 'POST' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'GET, HEAD');
  assert.equal((await get(base, '/playground/nope.js')).status, 404);
  assert.equal((await get(base, '/', { headers: { Host: 'evil.example:80' } })).status, 403, 'DNS rebinding guard');
  assert.equal((await get(base, '/', { headers: { Origin: 'http://evil.example' } })).status, 403);
  assert.equal((await get(base, '/mcp', { method: 'POST', headers: { 'Content-Type': 'application/json' } })).status, 401,
    '/mcp still needs the token');
  const off = await serve('--no-playground');
  assert.equal((await get(off, '/')).status, 404);
  assert.equal((await get(off, '/playground/editor.js')).status, 404);
});

test('in Chromium: type, run, output, image, error, session and files', async () => {
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('dialog', async (d) => {
      problems.push(`a dialog opened: ${d.message()}`);
      await d.dismiss();
    });
    await page.setViewport({ width: 1280, height: 800 });
    await page.goto(`${base}/#token=${TOKEN}`, { waitUntil: 'load' });
    await page.waitForSelector('.CodeMirror');
    assert.equal(new URL(page.url()).hash, '', 'the token left the address bar');

    const type = async (code) => {
      await page.click('.CodeMirror');
      await page.keyboard.down('Control');
      await page.keyboard.press('KeyA');
      await page.keyboard.up('Control');
      await page.keyboard.press('Backspace');
      await page.keyboard.type(code);
    };
    const setCode = (code) => page.evaluate((c) => document.querySelector('.CodeMirror').CodeMirror.setValue(c), code);
    const run = async (button = '#run') => {
      await page.click(button);
      // the run is over when the page is idle again: a session's run lists
      // its files after it shows the result (reading the list at the result
      // alone read the previous one when the machine was busy)
      await page.waitForFunction(
        () =>
          !['', 'running'].includes(document.getElementById('status').dataset.status) &&
          !document.getElementById('run').disabled,
        { timeout: 30000 },
      );
      return page.evaluate(() => {
        const text = (id) => document.getElementById(id).textContent;
        return {
          status: document.getElementById('status').dataset.status,
          line: text('status'),
          limits: text('limits'),
          stdout: text('stdout'),
          stderr: text('stderr'),
          error: document.getElementById('error').hidden ? null : text('error'),
          stdoutElements: document.getElementById('stdout').children.length,
          images: [...document.querySelectorAll('#images img')].map((i) => ({
            width: i.naturalWidth,
            src: i.src.slice(0, 26),
          })),
          files: [...document.querySelectorAll('#files li')].map((li) => li.textContent),
          session: text('session'),
        };
      });
    };
    const shot = async (name) => page.screenshot({ path: join(SHOTS, `${name}.png`) });

    await type('print(6 * 7)');
    let r = await run();
    assert.equal(r.status, 'ok');
    assert.equal(r.stdout, '42\n');
    assert.match(r.limits, /ms · [\d,]+ fuel · [\d.]+ MB peak memory/);
    await shot('1-run');

    await type('print("partial")\n1 / 0');
    r = await run();
    assert.equal(r.status, 'error');
    assert.equal(r.line, 'error (exit code 1)');
    assert.equal(r.stdout, 'partial\n');
    assert.match(r.stderr, /ZeroDivisionError/);
    assert.match(r.error, /^ZeroDivisionError: division by zero/);
    await shot('2-error');

    // what the guest prints is text; an SVG with a script is only a picture
    await setCode(
      'print("<img src=x onerror=alert(1)><b>bold</b>")\n' +
        'svg = \'<svg xmlns="http://www.w3.org/2000/svg" width="240" height="120"><rect width="240" height="120" fill="teal"/>' +
        '<script>alert(2)</script></svg>\'\n' +
        'open("/app/chart.svg", "w").write(svg)\n',
    );
    r = await run();
    assert.equal(r.status, 'ok');
    assert.equal(r.stdout, '<img src=x onerror=alert(1)><b>bold</b>\n');
    assert.equal(r.stdoutElements, 0, 'printed markup stays text');
    assert.deepEqual(r.images, [{ width: 240, src: 'data:image/svg+xml;base64,' }]);
    await shot('3-image');

    await page.select('#language', 'javascript');
    await type('console.log([1, 2, 3].map((x) => x * 2).join(" "))');
    r = await run();
    assert.equal(r.status, 'ok');
    assert.equal(r.stdout, '2 4 6\n');

    await page.select('#language', 'python');
    await type('x = 41');
    r = await run('#run-session');
    assert.equal(r.status, 'ok');
    assert.match(r.session, /^session s[0-9a-f]+ \(python\)$/);
    const session = r.session;
    await type('open("/app/note.txt", "w").write("hi"); print(x + 1)');
    r = await run('#run-session');
    assert.equal(r.stdout, '42\n');
    assert.equal(r.session, session, 'the same session');
    assert.deepEqual(r.files, ['/app/note.txt  (2 bytes)']);
    await shot('4-session');

    await page.click('#new-session');
    await page.waitForFunction(() => document.getElementById('session').textContent === 'no session');
    await type('print(x)');
    r = await run('#run-session');
    assert.equal(r.status, 'error');
    assert.match(r.error, /^NameError/);
    assert.notEqual(r.session, session, 'a new session');

    await page.keyboard.press('Escape');
    await type('print("by keyboard")');
    await page.keyboard.down('Control');
    await page.keyboard.press('Enter');
    await page.keyboard.up('Control');
    await page.waitForFunction(() => document.getElementById('stdout').textContent === 'by keyboard\n');

    assert.deepEqual(problems, [], 'no script errors, CSP refusals or dialogs');

    // without the token the page can show the editor but run nothing
    const stranger = await browser.newPage();
    await stranger.goto(`${base}/`, { waitUntil: 'load' });
    await stranger.waitForSelector('.CodeMirror');
    await stranger.click('#run');
    await stranger.waitForFunction(() => document.getElementById('status').dataset.status === 'failed');
    const line = await stranger.evaluate(() => document.getElementById('status').textContent);
    assert.match(line, /^failed: Unauthorized/);
    await stranger.screenshot({ path: join(SHOTS, '5-no-token.png') });
  } finally {
    await browser.close();
  }
});
