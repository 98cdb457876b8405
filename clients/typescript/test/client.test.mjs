// The TypeScript client against a real wasmbox ($WASMBOX_BIN): stdio and
// HTTP, runs and their limits, sessions and files, cancellation, bad input,
// the runner adapters. `npm test` after `npm run build`, with WASMBOX_BIN set.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import {
  ExecutionResult,
  JavaScriptRunner,
  PythonRunner,
  RunFailedError,
  WasmBox,
  WasmBoxError,
} from "../dist/index.js";

const BIN = process.env.WASMBOX_BIN;
assert.ok(BIN, "set WASMBOX_BIN to the wasmbox program");
const home = mkdtempSync(join(tmpdir(), "wasmbox-ts-"));
const env = { WASMBOX_HOME: home };
let box;

before(() => {
  box = new WasmBox({ env });
});
after(async () => {
  await box.close();
  rmSync(home, { recursive: true, force: true });
});

// a PNG of 1x1 pixel
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

describe("runs", () => {
  test("python: output and every field of the result", async () => {
    const r = await box.execute("import sys\nprint('out')\nprint('err', file=sys.stderr)");
    assert.ok(r instanceof ExecutionResult);
    assert.equal(r.status, "ok");
    assert.equal(r.ok, true);
    assert.equal(r.stdout, "out\n");
    assert.equal(r.stderr, "err\n");
    assert.equal(r.exitCode, 0);
    assert.equal(r.error, null);
    assert.equal(r.stdoutBytes, 4);
    assert.equal(r.stdoutTruncated, false);
    assert.ok(r.durationMs > 0 && r.fuelUsed > 0 && r.memoryPeakBytes > 0);
    assert.equal(r.sessionId, null);
    assert.deepEqual(r.filesChanged, []);
    assert.equal(r.raw.status, "ok");
    assert.equal(r.throwIfError(), r);
  });

  test("an exception is a result with its type, message and traceback", async () => {
    const r = await box.execute("def f():\n    raise ValueError('bad value')\nf()");
    assert.equal(r.status, "error");
    assert.equal(r.ok, false);
    assert.equal(r.exitCode, 1);
    assert.equal(r.error.type, "ValueError");
    assert.equal(r.error.message, "bad value");
    assert.match(r.error.traceback, /line 2, in f/);
    assert.ok(Array.isArray(r.error.guidance));
    assert.throws(() => r.throwIfError(), (e) => e instanceof RunFailedError && e.result === r && /ValueError: bad value/.test(e.message));
  });

  test("javascript, by option and by default", async () => {
    const r = await box.execute("console.log([1, 2].map((x) => x * 3).join(','))", { language: "javascript" });
    assert.equal(r.stdout, "3,6\n");
    const jsBox = new WasmBox({ env, language: "javascript" });
    try {
      assert.equal((await jsBox.execute("console.log(typeof Buffer)")).stdout, "function\n");
      assert.equal((await jsBox.execute("print(1)", { language: "python" })).stdout, "1\n");
    } finally {
      await jsBox.close();
    }
  });

  test("stdin", async () => {
    const r = await box.execute("import sys\nprint(sys.stdin.read().upper())", { stdin: "abc" });
    assert.equal(r.stdout, "ABC\n");
  });

  test("limits: timeout, memory, fuel with its analysis", async () => {
    const t = await box.execute("while True: pass", { timeoutSeconds: 0.3 });
    assert.equal(t.status, "timeout");
    assert.deepEqual(
      t.error.guidanceEntries.map((e) => [e.type, e.docs]),
      [["timeout", "docs/cli.md#guidance"]],
    );
    const m = await box.execute("x = bytearray(200 << 20)", { memoryMb: 64 });
    assert.equal(m.status, "out_of_memory");
    const f = await box.execute("while True: pass", { fuel: 1000000 });
    assert.equal(f.status, "out_of_fuel");
    assert.equal(f.fuelUsed, 1000000);
    assert.equal(f.fuelAnalysis.status, "exhausted");
    assert.equal(f.fuelAnalysis.budget, 1000000);
    assert.equal(f.fuelAnalysis.suggestedBudget, 2000000);
    const g = await box.execute("print(1)", { fuel: 1e12 });
    assert.equal(g.fuelAnalysis.status, "efficient");
    assert.equal((await box.execute("print(1)")).fuelAnalysis, null);
  });

  test("images the code writes come back as bytes", async () => {
    const r = await box.execute(`import base64\nopen('/app/dot.png', 'wb').write(base64.b64decode('${PNG}'))`);
    assert.equal(r.images.length, 1);
    assert.equal(r.images[0].mimeType, "image/png");
    assert.deepEqual(r.images[0].data, Buffer.from(PNG, "base64"));
  });

  test("a cancelled run rejects at once and the server goes on", async () => {
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(), 300);
    await assert.rejects(box.execute("while True: pass", { signal: ac.signal, timeoutSeconds: 60 }), (e) => e.name === "AbortError");
    assert.ok(Date.now() - started < 5000);
    // the server stops the run as soon as it reads the cancellation (not in
    // the order of the requests: they run in parallel)
    let cancelled = 0;
    for (let i = 0; i < 50 && !cancelled; i++) {
      cancelled = (await box.metrics()).execute_code.by_status.cancelled;
      if (!cancelled) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(cancelled, 1, "the server stopped the run");
    assert.equal((await box.execute("print(2)")).stdout, "2\n");
  });
});

describe("sessions", () => {
  test("state carries over; fork, checkpoint and restore", async () => {
    const s = await box.createSession();
    assert.equal(s.language, "python");
    assert.match(s.id, /^s/);
    await s.execute("counter = 1");
    const copy = await s.fork();
    assert.notEqual(copy.id, s.id);
    const saved = await s.checkpoint();
    await s.execute("counter += 10");
    assert.equal((await s.execute("print(counter)")).stdout, "11\n");
    assert.equal((await copy.execute("print(counter)")).stdout, "1\n");
    await s.restore(saved);
    assert.equal((await s.execute("print(counter)")).stdout, "1\n");
    const stopped = await s.execute("counter = 99\nwhile True: pass", { timeoutSeconds: 0.3 });
    assert.equal(stopped.status, "timeout");
    assert.equal(stopped.sessionRolledBack, true);
    assert.equal(stopped.sessionId, s.id);
    assert.equal((await s.execute("print(counter)")).stdout, "1\n");
    const raised = await s.execute("counter = 2\nraise RuntimeError('no')");
    assert.equal(raised.sessionRolledBack, false); // as in a REPL: kept up to the exception
    assert.equal((await s.execute("print(counter)")).stdout, "2\n");
    const ids = (await box.listSessions()).map((i) => i.sessionId);
    assert.ok(ids.includes(s.id) && ids.includes(copy.id));
    await copy.destroy();
    await s.destroy();
    assert.ok(!(await box.listSessions()).some((i) => i.sessionId === s.id));
  });

  test("files: text, bytes, listing, reset", async () => {
    const s = await box.createSession({ ttlSeconds: 600 });
    await s.writeFile("data/in.txt", "héllo");
    await s.writeFile("/app/raw.bin", new Uint8Array([0, 255, 1]));
    const r = await s.execute("print(open('/app/data/in.txt').read().upper())\nopen('/app/out.txt','w').write('x')");
    assert.equal(r.stdout, "HÉLLO\n");
    assert.deepEqual(r.filesChanged, ["/app/out.txt"]);
    assert.equal(await s.readFile("out.txt"), "x");
    assert.deepEqual(await s.readFileBytes("raw.bin"), Buffer.from([0, 255, 1]));
    const all = (await s.listFiles("/app", { recursive: true })).map((e) => `${e.type} ${e.path}`).sort();
    assert.deepEqual(all, ["directory /app/data", "file /app/data/in.txt", "file /app/out.txt", "file /app/raw.bin"]);
    await assert.rejects(s.readFile("../../etc/passwd"), WasmBoxError);
    await s.resetWorkspace();
    assert.deepEqual(await s.listFiles(), []);
    await s.destroy();
  });

  test("javascript sessions, and disposal", async () => {
    const s = await box.createSession({ language: "javascript" });
    assert.equal(s.language, "javascript");
    await s.execute("globalThis.n = 5");
    assert.equal((await s.execute("console.log(n * 2)")).stdout, "10\n");
    await s[Symbol.asyncDispose ?? Symbol.for("nodejs.asyncDispose")]();
    await assert.rejects(s.execute("1"), (e) => e instanceof WasmBoxError && /no session/.test(e.message));
  });

  test("a session another client made", async () => {
    const s = await box.createSession();
    await s.execute("v = 'shared'");
    const other = new WasmBox({ env });
    try {
      assert.equal((await other.session(s.id).execute("print(v)")).stdout, "shared\n");
    } finally {
      await other.close();
      await s.destroy();
    }
  });
});

describe("bad input", () => {
  test("arguments the server refuses", async () => {
    await assert.rejects(box.execute("1", { memoryMb: 0 }), (e) => e instanceof WasmBoxError && /memory_mb/.test(e.message));
    await assert.rejects(box.execute("1", { timeoutSeconds: 10000 }), (e) => e instanceof WasmBoxError && /timeout/.test(e.message));
    await assert.rejects(box.createSession({ language: "cobol" }), (e) => e instanceof WasmBoxError && /language/.test(e.message));
    await assert.rejects(box.session("nope").fork(), (e) => e instanceof WasmBoxError && /no session nope/.test(e.message));
    await assert.rejects(box.execute(42), TypeError);
    assert.throws(() => box.session(""), TypeError);
  });

  test("no server to start, a bad url, a closed client", async () => {
    const none = new WasmBox({ command: "/nonexistent/wasmbox" });
    await assert.rejects(none.execute("1"), (e) => e instanceof WasmBoxError && /cannot start \/nonexistent\/wasmbox/.test(e.message));
    await none.close();
    assert.throws(() => new WasmBox({ url: "not a url" }), WasmBoxError);
    assert.throws(() => new WasmBox({ url: "http://127.0.0.1:1/mcp", command: "wasmbox" }), WasmBoxError);
    const unreachable = new WasmBox({ url: "http://127.0.0.1:1/mcp" });
    await assert.rejects(unreachable.execute("1"), (e) => e instanceof WasmBoxError && /cannot connect/.test(e.message));
    const closed = new WasmBox({ env });
    await closed.close();
    await assert.rejects(closed.execute("1"), (e) => e instanceof WasmBoxError && /closed/.test(e.message));
  });

  test("a server that dies mid-run: a clear error", async () => {
    // a wrapper that tells its pid, then becomes the server
    const wrapper = join(home, "wrapper.sh");
    const pidFile = join(home, "server.pid");
    writeFileSync(wrapper, `#!/bin/sh\necho $$ > '${pidFile}'\nexec '${BIN}' "$@"\n`, { mode: 0o755 });
    const victim = new WasmBox({ env, command: wrapper });
    await victim.execute("1");
    const running = victim.execute("while True: pass", { timeoutSeconds: 20 });
    setTimeout(() => process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL"), 300);
    await assert.rejects(running, (e) => e instanceof WasmBoxError && /execute_code/.test(e.message));
    await victim.close();
  });
});

describe("over HTTP", () => {
  let server;
  let url;
  const token = "t0ken-0123456789-" + process.pid;

  before(async () => {
    server = spawn(BIN, ["serve", "--listen", "127.0.0.1:0", "--token", token], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    url = await new Promise((resolve, reject) => {
      let seen = "";
      server.stderr.on("data", (d) => {
        seen += d;
        const m = /listening on (http:\/\/\S+\/mcp)/.exec(seen);
        if (m) resolve(m[1]);
      });
      server.on("exit", (c) => reject(new Error(`serve exited ${c}: ${seen}`)));
    });
  });
  after(() => server.kill("SIGTERM"));

  test("runs and sessions through a running server", async () => {
    const remote = new WasmBox({ url, token });
    try {
      assert.equal((await remote.execute("print(7 * 6)")).stdout, "42\n");
      const s = await remote.createSession();
      await s.execute("import json\nstate = {'k': 1}");
      assert.equal((await s.execute("print(json.dumps(state))")).stdout, '{"k": 1}\n');
      const local = box.session(s.id); // the same state directory
      assert.equal((await local.execute("print(state['k'])")).stdout, "1\n");
      await s.destroy();
    } finally {
      await remote.close();
    }
  });

  test("a wrong token is refused with a clear error", async () => {
    const bad = new WasmBox({ url, token: "wrong" });
    await assert.rejects(bad.execute("1"), (e) => e instanceof WasmBoxError && /401|Unauthorized/.test(e.message));
    await bad.close();
  });
});

describe("runners", () => {
  test("PythonRunner: success, error, limit", async () => {
    const runner = new PythonRunner({ env });
    try {
      const ok = await runner.execute("print(6 * 7)");
      assert.deepEqual(Object.keys(ok).sort(), ["executionTimeMs", "output", "success"]);
      assert.equal(ok.success, true);
      assert.equal(ok.output, "42\n");
      assert.equal(typeof ok.executionTimeMs, "number");
      const bad = await runner.execute("print('before')\n1 / 0");
      assert.equal(bad.success, false);
      assert.equal(bad.output, "before\n");
      assert.equal(bad.error, "ZeroDivisionError: division by zero");
      const slow = await runner.execute("while True: pass", { timeoutSeconds: 0.3 });
      assert.equal(slow.success, false);
      assert.match(slow.error, /^Timeout: /);
    } finally {
      await runner.close();
    }
  });

  test("JavaScriptRunner, sharing a WasmBox", async () => {
    const runner = new JavaScriptRunner(box);
    const r = await runner.execute("console.log(JSON.stringify({a: 1}))");
    assert.equal(r.success, true);
    assert.equal(r.output, '{"a":1}\n');
    const e = await runner.execute("throw new TypeError('nope')");
    assert.equal(e.success, false);
    assert.equal(e.error, "TypeError: nope");
    await runner.close(); // the shared box stays open
    assert.equal((await box.execute("print(1)")).stdout, "1\n");
  });
});
