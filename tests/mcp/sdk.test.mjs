// A client on the official MCP TypeScript SDK (@modelcontextprotocol/sdk),
// against wasmbox mcp (stdio) and wasmbox serve (Streamable HTTP): 200 mixed
// calls on each, some concurrent, some hostile, each checked; the SDK also
// validates every structuredContent against the tool's outputSchema.
//
// usage: node --test sdk.test.mjs   (WASMBOX: the binary; default ../../build/wasmbox)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const WASMBOX = resolve(process.env.WASMBOX ?? new URL('../../build/wasmbox', import.meta.url).pathname);
const HOME = mkdtempSync(join(tmpdir(), 'wasmbox-sdk-'));
const env = { ...process.env, WASMBOX_HOME: HOME };
process.on('exit', () => rmSync(HOME, { recursive: true, force: true }));

async function startHttp() {
  const proc = spawn(WASMBOX, ['serve', '--listen', '127.0.0.1:0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const port = await new Promise((ok, fail) => {
    let buf = '';
    proc.stderr.on('data', (d) => {
      buf += d;
      const m = buf.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/);
      if (m) ok(Number(m[1]));
    });
    proc.on('exit', (c) => fail(new Error(`wasmbox serve exited ${c}: ${buf}`)));
  });
  return { proc, url: new URL(`http://127.0.0.1:${port}/mcp`) };
}

async function connect(kind) {
  const client = new Client({ name: 'wasmbox-sdk-test', version: '1.0.0' });
  if (kind === 'stdio') {
    const transport = new StdioClientTransport({ command: WASMBOX, args: ['mcp'], env, stderr: 'pipe' });
    await client.connect(transport);
    return { client, close: () => client.close() };
  }
  const server = await startHttp();
  const transport = new StreamableHTTPClientTransport(server.url);
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
      server.proc.kill('SIGTERM');
      await new Promise((ok) => server.proc.on('exit', ok));
    },
  };
}

const exec = (client, args, opts) => client.callTool({ name: 'execute_code', arguments: args }, undefined, opts);
const sc = (r) => r.structuredContent;

// One call of the mix: returns a promise that checks its own result.
function mixed(client, i, box) {
  switch (i % 10) {
    case 0:
      return exec(client, { code: `print(${i} * 3)` }).then((r) => assert.equal(sc(r).stdout, `${i * 3}\n`));
    case 1:
      return exec(client, { code: `console.log(${i} + 1)`, language: 'javascript' }).then((r) =>
        assert.equal(sc(r).stdout, `${i + 1}\n`));
    case 2: // session: state carries over
      return exec(client, { code: `n = globals().get('n', 0) + 1`, session_id: box }).then((r) =>
        assert.equal(sc(r).status, 'ok'));
    case 3: // a guest exception
      return exec(client, { code: `raise ValueError("bad ${i}")` }).then((r) => {
        assert.equal(r.isError, true);
        assert.equal(sc(r).error.type, 'ValueError');
      });
    case 4: // hostile: host files
      return exec(client, { code: `print(open('/etc/passwd').read())` }).then((r) => {
        assert.equal(r.isError, true);
        assert.doesNotMatch(sc(r).stdout, /root:/);
      });
    case 5: // hostile: network, processes
      return exec(client, { code: 'import socket; socket.create_connection(("127.0.0.1", 22))' }).then((r) =>
        assert.equal(r.isError, true));
    case 6: // hostile: output flood
      return exec(client, { code: 'import sys\nfor _ in range(300000): sys.stdout.write("x" * 100)' }).then((r) => {
        assert.equal(sc(r).stdout_truncated, true);
        assert.ok(sc(r).stdout.length <= 1 << 20);
      });
    case 7: // hostile: CPU and recursion
      return exec(client, { code: i % 20 === 7 ? 'while True: pass' : 'def f(): f()\nf()', timeout_seconds: 0.3 })
        .then((r) => {
          assert.equal(r.isError, true);
          assert.ok(['timeout', 'error', 'crashed'].includes(sc(r).status));
        });
    case 8: // invalid arguments: a tool error the model can read
      return exec(client, { code: 'print(1)', timeout_seconds: -5 }).then((r) => {
        assert.equal(r.isError, true);
        assert.match(r.content[0].text, /timeout_seconds/);
      });
    default: // an unknown tool: a protocol error
      return client.callTool({ name: `no_such_tool_${i}`, arguments: {} }).then(
        () => assert.fail('expected an error'),
        (e) => assert.equal(e.code, -32602));
  }
}

for (const kind of ['stdio', 'http']) {
  test(`${kind}: tools/list`, async () => {
    const { client, close } = await connect(kind);
    try {
      const { tools } = await client.listTools();
      assert.equal(tools.length, 14);
      for (const t of tools) {
        assert.equal(t.inputSchema.type, 'object');
        assert.equal(t.outputSchema.type, 'object');
        assert.ok(t.annotations);
      }
    } finally {
      await close();
    }
  });

  test(`${kind}: 200 mixed calls, concurrent in groups of 8`, async () => {
    const { client, close } = await connect(kind);
    try {
      const box = sc(await client.callTool({ name: 'create_session', arguments: {} })).session_id;
      let done = 0;
      for (let i = 0; i < 200; i += 8) {
        const group = [];
        for (let j = i; j < Math.min(i + 8, 200); j++) group.push(mixed(client, j, box));
        await Promise.all(group);
        done += group.length;
      }
      assert.equal(done, 200);
      const n = sc(await exec(client, { code: 'print(n)', session_id: box })).stdout;
      assert.equal(n, '20\n'); // every session call ran once, in order or not
      const m = sc(await client.callTool({ name: 'get_metrics', arguments: {} }));
      assert.ok(m.tool_calls >= 180);
    } finally {
      await close();
    }
  });

  test(`${kind}: a session flow with files`, async () => {
    const { client, close } = await connect(kind);
    try {
      const box = sc(await client.callTool({ name: 'create_session', arguments: { language: 'javascript' } })).session_id;
      await client.callTool({ name: 'write_file', arguments: { session_id: box, path: 'in.json', content: '{"a":[1,2,3]}' } });
      await exec(client, { code: 'globalThis.d = readJson("in.json"); writeJson("out.json", {sum: d.a.reduce((x, y) => x + y)})', session_id: box });
      const out = sc(await client.callTool({ name: 'read_file', arguments: { session_id: box, path: 'out.json' } }));
      assert.deepEqual(JSON.parse(out.content), { sum: 6 });
      const r = sc(await exec(client, { code: 'console.log(d.a.length)', session_id: box }));
      assert.equal(r.stdout, '3\n');
      await client.callTool({ name: 'destroy_session', arguments: { session_id: box } });
      const gone = await exec(client, { code: '1', session_id: box });
      assert.equal(gone.isError, true);
    } finally {
      await close();
    }
  });

  test(`${kind}: an aborted call is cancelled on the server`, async () => {
    const { client, close } = await connect(kind);
    try {
      const before = sc(await client.callTool({ name: 'get_metrics', arguments: {} })).execute_code.by_status.cancelled;
      const ac = new AbortController();
      const started = Date.now();
      const p = exec(client, { code: 'while True: pass', timeout_seconds: 60 }, { signal: ac.signal });
      setTimeout(() => ac.abort('test'), 500);
      await assert.rejects(p);
      let after = before;
      for (let k = 0; k < 50 && after === before; k++) {
        await new Promise((ok) => setTimeout(ok, 100));
        after = sc(await client.callTool({ name: 'get_metrics', arguments: {} })).execute_code.by_status.cancelled;
      }
      assert.equal(after, before + 1);
      assert.ok(Date.now() - started < 10000);
      const still = sc(await exec(client, { code: 'print("alive")' }));
      assert.equal(still.stdout, 'alive\n');
    } finally {
      await close();
    }
  });

  test(`${kind}: resources, prompts and completion`, async () => {
    const { client, close } = await connect(kind);
    try {
      const box = sc(await client.callTool({ name: 'create_session', arguments: {} })).session_id;
      await exec(client, { code: 'open("note.txt", "w").write("hello")', session_id: box });
      const { resources } = await client.listResources();
      const res = resources.find((x) => x.uri === `wasmbox://session/${box}/app/note.txt`);
      assert.ok(res);
      const read = await client.readResource({ uri: res.uri });
      assert.equal(read.contents[0].text, 'hello');
      const { prompts } = await client.listPrompts();
      assert.equal(prompts[0].name, 'sandbox_task');
      const c = await client.complete({ ref: { type: 'ref/resource', uri: 'wasmbox://session/{session_id}/app/{+path}' },
        argument: { name: 'session_id', value: box.slice(0, 4) } });
      assert.ok(c.completion.values.includes(box));
    } finally {
      await close();
    }
  });
}
