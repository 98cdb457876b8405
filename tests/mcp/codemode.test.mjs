// Code mode against MCP servers we did not write: wasmbox mcp --upstream
// with server-everything, server-memory and server-filesystem as stdio
// upstreams and server-everything over Streamable HTTP, driven by a client
// on the official SDK. Python and JavaScript code lists, searches, calls,
// chains tools, handles errors, gets structured content, an image and a
// large result it filters down; the allowlist, the limits, a hung upstream,
// a killed one, secrets and the audit log are checked too.
//
// WASMBOX=path/to/wasmbox node --test codemode.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = (name) => join(here, 'node_modules', '.bin', name);
const W = process.env.WASMBOX;
const SECRET = 's3cr3t-env-value-4711';
const HEADER_SECRET = 'hdr-secret-0815';

let tmp, client, http, audit, files;

const freePort = () => new Promise((resolve) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
});

// An upstream that lists a tool and never answers a call of it.
const HANG = `
const rl = require('readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (l) => {
  const m = JSON.parse(l);
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion,
    capabilities: { tools: {} }, serverInfo: { name: 'hang', version: '1' } } });
  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [
    { name: 'wait', description: 'Never answers.', inputSchema: { type: 'object' } }] } });
});
`;

// An upstream that misbehaves as argv[2] says: 'dies' exits at once;
// 'garbage' writes a line that is not JSON-RPC when a tool is called;
// 'grows' adds a tool when 'grow' is called and says so (list_changed);
// 'env' answers a call with the names of its environment variables;
// 'dotted' lists tools whose names have dots.
const ODD = `
const mode = process.argv[2];
if (mode === 'dies') process.exit(3);
const rl = require('readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
let tools = [{ name: 'grow', description: 'Adds a tool.', inputSchema: { type: 'object' } },
  { name: 'x.y', description: 'Odd name.', inputSchema: { type: 'object' } },
  { name: 'x_y', description: 'Same name once mapped.', inputSchema: { type: 'object' } }];
if (mode === 'dotted') tools = ['admin.drop', 'read.file', 'list'].map((name) =>
  ({ name, description: 'Dotted.', inputSchema: { type: 'object' } }));
rl.on('line', (l) => {
  const m = JSON.parse(l);
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion,
    capabilities: { tools: { listChanged: true } }, serverInfo: { name: mode, version: '1' } } });
  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools } });
  else if (m.method === 'tools/call' && mode === 'garbage') process.stdout.write('debug: not a message\\n');
  else if (m.method === 'tools/call' && mode === 'dotted')
    send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'called ' + m.params.name }] } });
  else if (m.method === 'tools/call' && mode === 'env')
    send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: JSON.stringify(Object.keys(process.env)) }] } });
  else if (m.method === 'tools/call') {
    tools = tools.concat([{ name: 'grown', description: 'New.', inputSchema: { type: 'object' } }]);
    send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'grew' }] } });
  }
});
`;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'wasmbox-codemode-'));
  files = join(tmp, 'files');
  mkdirSync(files);
  writeFileSync(join(files, 'hello.txt'), 'hello from the host\n');
  // a large file: 20000 lines, of which the code wants 3
  writeFileSync(join(files, 'big.log'),
    Array.from({ length: 20000 }, (_, i) => (i % 7000 === 4 ? `ERROR disk ${i}` : `INFO ok ${i}`)).join('\n'));
  writeFileSync(join(tmp, 'hang.cjs'), HANG);
  writeFileSync(join(tmp, 'odd.cjs'), ODD);
  const port = await freePort();
  http = spawn(bin('mcp-server-everything'), ['streamableHttp'], { env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise((resolve, reject) => {
    http.stderr.on('data', (d) => { if (/listening/.test(String(d))) resolve(); });
    http.on('exit', () => reject(new Error('server-everything streamableHttp exited')));
  });
  const config = {
    mcpServers: {
      everything: { command: bin('mcp-server-everything'), args: ['stdio'], env: { SECRET_TOKEN: SECRET },
        allowed_tools: ['*', '!get-env', '!trigger-long-running-operation'] },
      memory: { command: bin('mcp-server-memory'), env: { MEMORY_FILE_PATH: join(tmp, 'memory.jsonl') },
        allowed_tools: ['*'], requires_approval: ['delete_entities'] },
      files: { command: bin('mcp-server-filesystem'), args: [files],
        allowed_tools: ['read_*', 'list_directory', 'write_file', '!read_media_file'] },
      web: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { 'X-Api-Key': HEADER_SECRET },
        allowed_tools: ['get-sum', 'echo'] },
      hang: { command: process.execPath, args: [join(tmp, 'hang.cjs')], allowed_tools: ['*'] },
      'not there': { command: join(tmp, 'no-such-program'), allowed_tools: ['*'] },
      dies: { command: process.execPath, args: [join(tmp, 'odd.cjs'), 'dies'], allowed_tools: ['*'] },
      garbage: { command: process.execPath, args: [join(tmp, 'odd.cjs'), 'garbage'], allowed_tools: ['*'] },
      grows: { command: process.execPath, args: [join(tmp, 'odd.cjs'), 'grows'], allowed_tools: ['*'] },
      env: { command: process.execPath, args: [join(tmp, 'odd.cjs'), 'env'], env: { OWN_VAR: '1' },
        allowed_tools: ['grow'] },
      // patterns over the upstream's own names (dots and all)
      dotted: { command: process.execPath, args: [join(tmp, 'odd.cjs'), 'dotted'],
        allowed_tools: ['*', '!admin.*'], requires_approval: ['read.*'] },
    },
  };
  writeFileSync(join(tmp, 'servers.json'), JSON.stringify(config));
  audit = join(tmp, 'audit.jsonl');
  client = new Client({ name: 'codemode-test', version: '1' });
  await client.connect(new StdioClientTransport({
    command: W,
    args: ['mcp', '--upstream', join(tmp, 'servers.json'), '--tool-audit', audit, '--max-tool-calls', '30'],
    env: { ...process.env, WASMBOX_HOME: join(tmp, 'home'), WASMBOX_MCP_TOKEN: 'server-only-4712',
      SERVER_ONLY_SECRET: 'x' },
    stderr: process.env.WASMBOX_STDERR ? 'inherit' : 'ignore', // WASMBOX_STDERR=1: see the server's log
  }));
});

after(async () => {
  await client?.close();
  http?.kill();
  rmSync(tmp, { recursive: true, force: true });
});

const run = async (code, extra = {}) => {
  const r = await client.callTool({ name: 'execute_code', arguments: { code, ...extra } }, undefined,
    { timeout: 120000 });
  return r.structuredContent;
};
const py = async (code, extra) => {
  const s = await run(code, extra);
  assert.equal(s.status, 'ok', `${s.stdout}\n${s.stderr}`);
  return s.stdout;
};

test('the server offers search_tools and says how to call tools from code', async () => {
  const { tools } = await client.listTools();
  const exec = tools.find((t) => t.name === 'execute_code');
  assert.ok(tools.some((t) => t.name === 'search_tools'));
  assert.match(exec.description, /from wasmbox import tools/);
  assert.ok(exec.inputSchema.properties.allowed_tools);
});

test('search_tools finds tools progressively and names the unreachable server', async () => {
  const r = await client.callTool({ name: 'search_tools', arguments: { query: 'sum', detail: 'name' } });
  const names = r.structuredContent.tools.map((t) => t.name);
  assert.deepEqual(names.slice(0, 2).sort(), ['everything__get-sum', 'web__get-sum']);
  const down = Object.fromEntries(r.structuredContent.unavailable.map((u) => [u.server, u.error]));
  assert.deepEqual(Object.keys(down).sort(), ['dies', 'not there']);
  assert.match(down.dies, /exited with status 3/);
  assert.match(down['not there'], /cannot start/);
  const s = await client.callTool({ name: 'search_tools', arguments: { query: 'read text file', detail: 'schema',
    limit: 1 } });
  const [tool] = s.structuredContent.tools;
  assert.equal(tool.name, 'files__read_text_file');
  assert.equal(tool.inputSchema.type, 'object');
  const all = await client.callTool({ name: 'search_tools', arguments: { limit: 1000 } });
  const every = all.structuredContent.tools.map((t) => t.name);
  assert.ok(!every.includes('everything__get-env'), 'a tool the server forbids is not listed');
  assert.ok(!every.includes('files__read_media_file'));
  assert.ok(every.includes('hang__wait'));
});

test('Python lists, searches, calls, chains and filters', async () => {
  const out = await py(`
from wasmbox import tools, ToolError
print(tools.everything.get_sum(a=2, b=40))
print(sorted([t['name'] for t in tools.search('sum', 5)][:2]))
sc = tools.call('everything__get-structured-content', {'location': 'New York'})
print(sorted(sc))
img = tools.call('everything__get-tiny-image')
png = [x for x in img if isinstance(x, bytes)][0]
print(png[:8] == b'\\x89PNG\\r\\n\\x1a\\n')
tools.memory.create_entities(entities=[{'name': 'Ada', 'entityType': 'person', 'observations': ['wrote code']}])
found = tools.memory.search_nodes(query='Ada')
print([e['name'] for e in found['entities']])
log = tools.files.read_text_file(path='${files}/big.log')['content']  # its structuredContent
print(len(log), [l for l in log.splitlines() if l.startswith('ERROR')])
try:
    tools.files.read_text_file(path='/etc/passwd')
except ToolError as e:
    print('ToolError', 'denied' in str(e).lower() or 'outside' in str(e).lower())
print(tools.web.get_sum(a=1, b=2))
try:
    tools.everything.get_sum(a='two', b=1)
except ToolError as e:
    print(e.type, 'arguments[a]' in str(e))
`);
  const lines = out.trim().split('\n');
  assert.match(lines[0], /42/);
  assert.deepEqual(lines[1], "['everything__get-sum', 'web__get-sum']");
  assert.match(lines[2], /temperature/);
  assert.equal(lines[3], 'True');
  assert.equal(lines[4], "['Ada']");
  assert.match(lines[5], /^\d{5,} \['ERROR disk 4', 'ERROR disk 7004', 'ERROR disk 14004'\]$/);
  assert.equal(lines[6], 'ToolError True');
  assert.match(lines[7], /3/);
  assert.equal(lines[8], 'ToolArgumentError True', 'arguments are checked against the inputSchema before they leave');
});

test('JavaScript does the same with await', async () => {
  const s = await run(`
const sum = await tools.everything.getSum({a: 2, b: 3});
const echoed = await tools.call('web__echo', {message: 'over http'});
await tools.files.writeFile({path: '${files}/from-js.txt', content: 'written by js'});
const back = (await tools.files.readTextFile({path: '${files}/from-js.txt'})).content;
let err = '';
try { await tools.call('everything__get-env', {}); } catch (e) { err = e.type; }
console.log(JSON.stringify([String(sum), String(echoed), back, err]));
`, { language: 'javascript' });
  assert.equal(s.status, 'ok', s.stderr);
  const [sum, echoed, back, err] = JSON.parse(s.stdout);
  assert.match(sum, /5/);
  assert.match(echoed, /over http/);
  assert.equal(back, 'written by js');
  assert.equal(err, 'ToolNotAllowed');
});

test('a call narrows the allowlist and cannot widen it', async () => {
  const out = await py(`
from wasmbox import tools, ToolError
print(sorted({t['name'].split('__')[0] for t in tools.list()}))
for name in ('everything__echo', 'everything__get-env', 'memory__read_graph'):
    try:
        tools.call(name, {'message': 'x'})
        print(name, 'ok')
    except ToolError as e:
        print(name, e.type)
`, { allowed_tools: ['memory__*', 'everything__get-env', '!memory__delete_*'] });
  assert.equal(out, "['memory']\neverything__echo ToolNotAllowed\neverything__get-env ToolNotAllowed\n" +
    'memory__read_graph ok\n');
});

test('guest code never sees the upstreams\' secrets', async () => {
  const out = await py(`
import os, json
from wasmbox import tools
seen = json.dumps(dict(os.environ)) + json.dumps(tools.list()) + json.dumps(tools.schema('web__echo'))
print('${SECRET}' in seen, '${HEADER_SECRET}' in seen, 'SECRET_TOKEN' in seen)
`);
  assert.equal(out, 'False False False\n');
  assert.ok(!readFileSync(audit, 'utf8').includes(SECRET));
});

test('a stdio upstream gets its env over a minimal environment, never the server\'s', async () => {
  const names = JSON.parse(await py("from wasmbox import tools\nimport json\nprint(json.dumps(tools.call('env__grow')))"));
  assert.ok(names.includes('OWN_VAR') && names.includes('PATH') && names.includes('HOME'), names.join(' '));
  const extra = names.filter((n) => !['OWN_VAR', 'HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'TZ']
    .includes(n));
  assert.deepEqual(extra, []);
});

test('code that floods tool calls hits the limit with a clear error', async () => {
  const out = await py(`
from wasmbox import tools, ToolError
n = 0
try:
    while True:
        tools.call('everything__echo', {'message': 'x'})
        n += 1
except ToolError as e:
    print(n, e.type, e)
`);
  assert.equal(out, '30 ToolLimitExceeded this call made its max_tool_calls (30) tool calls\n');
});

test('a hung upstream is cut off by the call\'s timeout and the server keeps serving', async () => {
  const t0 = Date.now();
  const s = await run("from wasmbox import tools\ntools.call('hang__wait')\nprint('never')\n", { timeout_seconds: 2 });
  assert.equal(s.status, 'timeout');
  assert.ok(Date.now() - t0 < 8000, `took ${Date.now() - t0} ms`);
  assert.equal(await py("from wasmbox import tools\nprint(tools.everything.echo(message='still here'))\n"),
    'Echo: still here\n');
});

test('a call stuck in an upstream holds up neither searches nor other servers; the next call of it ends at its own deadline', async () => {
  const stuck = run("from wasmbox import tools\ntools.call('hang__wait')\n", { timeout_seconds: 12 });
  await new Promise((r) => setTimeout(r, 1500)); // it is in the upstream now
  let t0 = Date.now();
  const s = await run(`from wasmbox import tools
names = [t['name'] for t in tools.search('wait never answers', 50)]
print('hang__wait' in names, tools.everything.echo(message='free'))
`, { timeout_seconds: 10 });
  const searched = Date.now() - t0;
  assert.equal(s.stdout, 'True Echo: free\n', JSON.stringify(s));
  assert.ok(searched < 4000, `search and echo took ${searched} ms`);
  t0 = Date.now();
  const second = await run("from wasmbox import tools\ntools.call('hang__wait')\nprint('never')\n", { timeout_seconds: 2 });
  const waited = Date.now() - t0;
  assert.equal(second.status, 'timeout');
  assert.ok(waited < 5000, `a second call of the hung server took ${waited} ms (its timeout: 2 s)`);
  assert.equal((await stuck).status, 'timeout');
});

test('a killed upstream is started again', async () => {
  execFileSync('pkill', ['-f', 'mcp-server-memory']);
  await new Promise((r) => setTimeout(r, 200));
  // the first request after the kill may see the connection go; within the
  // back-off the server is started again
  let out = '';
  for (let i = 0; i < 10 && !out.startsWith('ok'); i++) {
    out = (await run("from wasmbox import tools\ntools.memory.read_graph()\nprint('ok')\n")).stdout;
    if (!out.startsWith('ok')) await new Promise((r) => setTimeout(r, 500));
  }
  assert.equal(out, 'ok\n');
});

test('an upstream that writes garbage or changes its tools', async () => {
  const out = await py(`
from wasmbox import tools, ToolError
try:
    tools.call('garbage__grow')
except ToolError as e:
    print('ToolError', 'not JSON-RPC' in str(e))
print(tools.call('grows__grow'), [t['name'] for t in tools.search('', 100) if t['name'].startswith('grows__')])
`);
  // odd characters become '_'; two names that then collide are both refused
  assert.equal(out, "ToolError True\ngrew ['grows__grow', 'grows__grown']\n");
  const s = await run("from wasmbox import tools\ntools.call('grows__x_y')\n");
  assert.equal(s.status, 'error');
  assert.match(s.error.message, /ambiguous: several tools of upstream 'grows'/);
});

test('a server\'s patterns match its own tool names: exclusions and approvals hold', async () => {
  const names = await py("from wasmbox import tools\nprint([t['name'] for t in tools.search('', 100) " +
    "if t['name'].startswith('dotted__')])");
  assert.equal(names, "['dotted__read_file', 'dotted__list']\n");
  const refused = await run("from wasmbox import tools\ntools.call('dotted__admin_drop')\n");
  assert.match(refused.error.message, /not allowed/);
  assert.equal(await py("from wasmbox import tools\nprint(tools.call('dotted__list'))"), 'called list\n');
  const paused = await run("from wasmbox import tools\nprint(tools.call('dotted__read_file'))\n");
  assert.equal(paused.status, 'paused', JSON.stringify(paused));
  assert.equal(paused.pending_tool.name, 'dotted__read_file');
});

test('a call that needs approval pauses; another server process resumes it, once', async (t) => {
  const open = async () => {
    const c = new Client({ name: 'codemode-approval', version: '1' });
    await c.connect(new StdioClientTransport({
      command: W,
      args: ['mcp', '--upstream', join(tmp, 'servers.json'), '--tool-audit', audit],
      env: { ...process.env, WASMBOX_HOME: join(tmp, 'home') },
      stderr: 'ignore',
    }));
    return c;
  };
  const call = async (c, name, args) => (await c.callTool({ name, arguments: args }, undefined, { timeout: 120000 }));
  const code = `
import random
from wasmbox import tools
tools.memory.create_entities(entities=[{'name': 'Scratch', 'entityType': 'note', 'observations': ['x']}])
print('drawn', random.random())
print('deleted', tools.memory.delete_entities(entityNames=['Scratch']))
print('left', 'Scratch' in [e['name'] for e in tools.memory.read_graph()['entities']])
`;
  const creates = () => readFileSync(audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    .filter((l) => l.tool === 'memory__create_entities').length;
  const createsBefore = creates();
  const a = await open();
  let paused;
  try {
    paused = (await call(a, 'execute_code', { code })).structuredContent;
  } finally {
    await a.close(); // the server process that paused is gone
  }
  assert.equal(paused.status, 'paused', JSON.stringify(paused.error));
  assert.deepEqual(paused.pending_tool, { name: 'memory__delete_entities', arguments: { entityNames: ['Scratch'] } });
  assert.match(paused.resume_token, /^[0-9a-f]{32}$/);
  const b = await open();
  t.after(() => b.close());
  const done = (await call(b, 'resume_execution', { resume_token: paused.resume_token, approve: true }))
    .structuredContent;
  assert.equal(done.status, 'ok', done.stderr);
  assert.ok(done.stdout.startsWith(paused.stdout), 'the same values up to the pause');
  assert.match(done.stdout, /\nleft False\n$/);
  const again = await call(b, 'resume_execution', { resume_token: paused.resume_token, approve: true });
  assert.ok(again.isError);
  assert.match(again.content[0].text, /no paused run has this resume token/);
  const p2 = (await call(b, 'execute_code', { code })).structuredContent;
  const denied = (await call(b, 'resume_execution', { resume_token: p2.resume_token, approve: false,
    message: 'keep it' })).structuredContent;
  assert.equal(denied.status, 'error');
  assert.match(denied.error.message, /the call was denied: keep it/);
  const stale = await call(b, 'resume_execution', { resume_token: '0'.repeat(32), approve: true });
  assert.ok(stale.isError);
  // resuming did not make the calls before the pause again: one create per run that paused
  assert.equal(creates() - createsBefore, 2);
});

test('the audit log rotates past its size', async () => {
  const log = join(tmp, 'small-audit.jsonl');
  const c = new Client({ name: 'codemode-audit', version: '1' });
  await c.connect(new StdioClientTransport({
    command: W,
    args: ['mcp', '--upstream', join(tmp, 'servers.json'), '--tool-audit', log, '--tool-audit-max-bytes', '600'],
    env: { ...process.env, WASMBOX_HOME: join(tmp, 'home') },
    stderr: 'ignore',
  }));
  try {
    const r = await c.callTool({ name: 'execute_code', arguments: {
      code: "from wasmbox import tools\nfor i in range(12):\n    tools.call('everything__echo', {'message': str(i)})\n" } });
    assert.equal(r.structuredContent.status, 'ok');
  } finally {
    await c.close();
  }
  const now = readFileSync(log, 'utf8'), old = readFileSync(log + '.1', 'utf8');
  assert.ok(now.length <= 600 && old.length <= 600, `${now.length} and ${old.length} bytes`);
  for (const l of (old + now).trim().split('\n')) assert.equal(JSON.parse(l).tool, 'everything__echo');
});

test('a code-executor-MCP script runs unchanged', async () => {
  const out = await py(`
import asyncio
async def main():
    text = await call_mcp_tool('mcp__files__read_text_file', {'path': '${files}/hello.txt'})
    found = await discover_mcp_tools('directory')
    return text['content'].strip(), any(t['name'] == 'files__list_directory' for t in found)
print(asyncio.run(main()))
`);
  assert.equal(out, "('hello from the host', True)\n");
});

test('every tool call is in the audit log', async () => {
  const lines = readFileSync(audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(lines.length > 30);
  for (const l of lines) {
    assert.deepEqual(Object.keys(l), ['time', 'session', 'client', 'tool', 'arguments_bytes', 'arguments_sha256',
      'duration_ms', 'outcome']);
  }
  assert.ok(lines.some((l) => l.tool === 'everything__get-env' && l.outcome === 'not_allowed'));
  assert.ok(lines.some((l) => l.tool === 'everything__echo' && l.outcome === 'limit'));
  assert.ok(lines.some((l) => l.tool === 'hang__wait' && l.outcome === 'timeout'));
  assert.ok(lines.some((l) => l.tool === 'everything__get-sum' && l.outcome === 'bad_arguments'));
  const sum = lines.find((l) => l.tool === 'everything__get-sum' && l.outcome === 'ok');
  assert.match(sum.arguments_sha256, /^[0-9a-f]{64}$/);
});
