// /metrics of `wasmbox serve` read by a Prometheus text-format parser we did
// not write (parse-prometheus-text-format, npm), after a client on the
// official SDK made known calls: every family parses, and the counters match
// the calls made and the access log's lines.
// usage: node --test metrics.test.mjs   (WASMBOX: the binary)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

const WASMBOX = resolve(process.env.WASMBOX ?? new URL('../../build/wasmbox', import.meta.url).pathname);
const dir = mkdtempSync(join(tmpdir(), 'wasmbox-metrics-'));
const CI = 'ci-token-0123456789abcdef';
const OPS = 'ops-token-0123456789abcdef';
const tokens = join(dir, 'tokens');
writeFileSync(tokens, `ci ${CI}\nops ${OPS} rate=10/s\n`);
chmodSync(tokens, 0o600);
const accessLog = join(dir, 'access.log');
let server;
after(() => {
  server?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

test('the counters of /metrics match the calls made', async () => {
  server = spawn(WASMBOX, ['serve', '--listen', '127.0.0.1:0', '--tokens', tokens, '--access-log', accessLog], {
    env: { ...process.env, WASMBOX_HOME: join(dir, 'home') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const base = await new Promise((ok, fail) => {
    let buf = '';
    server.stderr.on('data', (d) => {
      buf += d;
      const m = buf.match(/listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp/);
      if (m) ok(m[1]);
    });
    server.on('exit', (code) => fail(new Error(`serve exited ${code}: ${buf}`)));
  });

  const client = new Client({ name: 'metrics-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${CI}` } } }),
  );
  const run = (args) => client.callTool({ name: 'execute_code', arguments: args });
  for (const code of ['print(1)', 'print(2)', 'print(3)']) await run({ code });
  await run({ code: 'raise ValueError(1)' });
  await run({ code: 'while True: pass', timeout_seconds: 0.2 });
  await run({ code: 'while True: pass', fuel: 1000000 });
  const made = await client.callTool({ name: 'create_session', arguments: {} });
  await run({ code: 'x = 1', session_id: made.structuredContent.session_id });
  await client.close();

  // the SDK's requests have all completed: their lines are in the log
  const ciLines = () =>
    readFileSync(accessLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((e) => e.client === 'ci');
  const res = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${OPS}` } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const families = parsePrometheusTextFormat(await res.text());
  const family = (name) => {
    const f = families.find((x) => x.name === name);
    assert.ok(f, `${name} is there`);
    return f;
  };
  const value = (name, labels) => {
    const m = family(name).metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v));
    return m ? Number(m.value) : 0;
  };
  for (const f of families) assert.ok(f.help && f.type, `${f.name} has HELP and TYPE`);

  assert.equal(family('wasmbox_calls_total').type, 'COUNTER');
  assert.equal(value('wasmbox_calls_total', { status: 'ok' }), 4);
  assert.equal(value('wasmbox_calls_total', { status: 'error' }), 1);
  assert.equal(value('wasmbox_calls_total', { status: 'timeout' }), 1);
  assert.equal(value('wasmbox_calls_total', { status: 'out_of_fuel' }), 1);
  assert.equal(value('wasmbox_tool_calls_total', { tool: 'execute_code' }), 7);
  assert.equal(value('wasmbox_tool_calls_total', { tool: 'create_session' }), 1);

  const h = family('wasmbox_call_duration_seconds');
  assert.equal(h.type, 'HISTOGRAM');
  const hist = h.metrics[0];
  assert.equal(Number(hist.count), 7);
  assert.ok(Number(hist.sum) >= 0.2, 'the timeout alone took 0.2 s');
  // (object keys: integer-like bounds come first, so sort them)
  const bounds = Object.keys(hist.buckets).sort((a, b) => Number(a === '+Inf' ? Infinity : a) - Number(b === '+Inf' ? Infinity : b));
  assert.equal(bounds.length, 16);
  const counts = bounds.map((b) => Number(hist.buckets[b]));
  assert.equal(Number(hist.buckets['+Inf']), 7);
  assert.deepEqual([...counts].sort((a, b) => a - b), counts, 'buckets are cumulative');
  assert.ok(Number(hist.buckets['0.1']) < 7, 'the timeout call is above 0.1 s');

  const ciRequests = family('wasmbox_http_requests_total')
    .metrics.filter((m) => m.labels.client === 'ci')
    .reduce((n, m) => n + Number(m.value), 0);
  assert.equal(ciRequests, ciLines().length, "every one of ci's requests is counted and logged");
  assert.ok(ciRequests >= 9, 'initialize, 8 calls, ...');
  assert.equal(value('wasmbox_sessions', {}), 1);
  assert.equal(value('wasmbox_http_in_flight', { client: 'ops' }), 1, 'the scrape itself');
  assert.equal(family('wasmbox_workers').type, 'GAUGE');
  assert.equal(value('wasmbox_build_info', { version: '0.1.0' }), 1);
});
