// make bench (code mode): one tool call made from sandboxed code, next to
// the same call made straight by a client on the official SDK, same
// upstream (server-everything's echo over stdio), same run. The guest times
// each tools.call() itself (time.perf_counter), so the figure is the round
// trip guest -> worker -> server -> upstream and back; the SDK's is
// client -> upstream and back.
//
// usage: node codemode.mjs WASMBOX [CALLS]   (JSON: bench/results/codemode-<time>.json)
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const mcp = join(here, '..', 'tests', 'mcp', 'node_modules');
const { Client } = await import(join(mcp, '@modelcontextprotocol/sdk/dist/esm/client/index.js'));
const { StdioClientTransport } = await import(join(mcp, '@modelcontextprotocol/sdk/dist/esm/client/stdio.js'));
const everything = join(mcp, '.bin', 'mcp-server-everything');
const wasmbox = process.argv[2];
const calls = Number(process.argv[3] || 200);

const p50 = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const p99 = (v) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(v.length * 0.99))];
const connect = async (command, args, env) => {
  const c = new Client({ name: 'bench', version: '1' });
  await c.connect(new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: 'ignore' }));
  return c;
};

// the same call, straight from an SDK client
const direct = await connect(everything, ['stdio']);
const sdk = [];
for (let i = 0; i < calls + 20; i++) {
  const t = performance.now();
  await direct.callTool({ name: 'echo', arguments: { message: 'x' } });
  if (i >= 20) sdk.push(performance.now() - t);
}
await direct.close();

// from code, through wasmbox mcp --upstream
const tmp = mkdtempSync(join(tmpdir(), 'wasmbox-bench-codemode-'));
writeFileSync(join(tmp, 'servers.json'), JSON.stringify({
  mcpServers: { everything: { command: everything, args: ['stdio'], allowed_tools: ['echo'] } },
}));
mkdirSync(join(tmp, 'home'));
const box = await connect(wasmbox, ['mcp', '--upstream', join(tmp, 'servers.json'), '--max-tool-calls', '100000'],
  { WASMBOX_HOME: join(tmp, 'home') });
const code = `
import json, time
from wasmbox import tools
for _ in range(20):
    tools.call('everything__echo', {'message': 'x'})
per = []
for _ in range(${calls}):
    t = time.perf_counter()
    tools.call('everything__echo', {'message': 'x'})
    per.append((time.perf_counter() - t) * 1e3)
t = time.perf_counter()
for _ in range(100):
    tools.call('everything__echo', {'message': 'x'})
print(json.dumps({'per_call_ms': per, 'hundred_ms': (time.perf_counter() - t) * 1e3}))
`;
const r = await box.callTool({ name: 'execute_code', arguments: { code, timeout_seconds: 120 } }, undefined,
  { timeout: 180000 });
await box.close();
rmSync(tmp, { recursive: true, force: true });
if (r.structuredContent.status !== 'ok') {
  console.error(r.structuredContent.stderr);
  process.exit(1);
}
const guest = JSON.parse(r.structuredContent.stdout);
const out = {
  time: new Date().toISOString(), calls,
  sdk: { p50_ms: p50(sdk), p99_ms: p99(sdk) },
  wasmbox: { p50_ms: p50(guest.per_call_ms), p99_ms: p99(guest.per_call_ms) },
  hundred_sequential_ms: guest.hundred_ms,
};
out.overhead_p50_ms = out.wasmbox.p50_ms - out.sdk.p50_ms;
const results = join(here, 'results');
mkdirSync(results, { recursive: true });
const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
writeFileSync(join(results, `codemode-${stamp}.json`), JSON.stringify(out, null, 1));
console.log(`code mode: echo via server-everything, ${calls} calls: SDK client p50 ${out.sdk.p50_ms.toFixed(3)} ms, ` +
  `from sandboxed code p50 ${out.wasmbox.p50_ms.toFixed(3)} ms (overhead ${out.overhead_p50_ms.toFixed(3)} ms); ` +
  `100 sequential calls from one execute_code: ${out.hundred_sequential_ms.toFixed(1)} ms ` +
  `(${(out.hundred_sequential_ms / 100).toFixed(3)} ms each)`);
