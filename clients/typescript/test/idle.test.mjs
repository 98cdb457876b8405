// A program that never calls close() still ends: the started `wasmbox mcp`
// holds node's event loop only while a request is pending. Each program
// runs as a child node, importing "wasmbox" as a user does, and must exit
// on its own within a bound. `npm test` after `npm run build`, with
// WASMBOX_BIN set.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const BIN = process.env.WASMBOX_BIN;
assert.ok(BIN, "set WASMBOX_BIN to the wasmbox program");
const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const tmp = mkdtempSync(join(tmpdir(), "wasmbox-idle-"));
after(() => rmSync(tmp, { recursive: true, force: true }));
// a project with this package installed (a link, as `npm link` makes)
mkdirSync(join(tmp, "node_modules"));
symlinkSync(pkg, join(tmp, "node_modules", "wasmbox"));
writeFileSync(join(tmp, "package.json"), JSON.stringify({ name: "user-project", private: true, type: "module" }));
const env = { ...process.env, PATH: `${dirname(BIN)}:${process.env.PATH}`, WASMBOX_HOME: join(tmp, "home") };
delete env.WASMBOX_BIN;

const BOUND_MS = 30_000;

/* runs `source` as a program; its exit code and output, or a failure when it
 * is still running after BOUND_MS (then it is killed) */
function runProgram(name, source) {
  const file = join(tmp, `${name}.mjs`);
  writeFileSync(file, source);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd: tmp, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${name} still running after ${BOUND_MS} ms; it printed ${JSON.stringify(stdout)}`));
    }, BOUND_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test("the README's three-line example prints 42 and exits without close()", async () => {
  const readme = readFileSync(join(pkg, "..", "..", "README.md"), "utf8");
  const block = [...readme.matchAll(/```js[^\n]*\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes('from "wasmbox"'));
  assert.ok(block, "README.md has a js example importing wasmbox");
  assert.ok(!block.includes("close()"), "the example is the one without close()");
  const r = await runProgram("readme", block);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "42"); // print() ends a line, and console.log another
});

test("an idle box between calls lets node end; the next call wakes it", async () => {
  const r = await runProgram(
    "idle",
    [
      'import { WasmBox } from "wasmbox";',
      "const box = new WasmBox();",
      'console.log((await box.execute("print(1)")).stdout.trim());',
      "await new Promise((done) => setTimeout(done, 300));",
      'console.log((await box.execute("print(2)")).stdout.trim());',
    ].join("\n"),
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "1\n2\n");
});

test("a pending call keeps node running though nothing awaits it", async () => {
  const r = await runProgram(
    "pending",
    [
      'import { WasmBox } from "wasmbox";',
      "const box = new WasmBox();",
      'box.execute("import time\\ntime.sleep(1)\\nprint(3)").then((r) => console.log(r.stdout.trim()));',
    ].join("\n"),
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "3\n");
});

test("a session used without close() ends too", async () => {
  const r = await runProgram(
    "session",
    [
      'import { WasmBox } from "wasmbox";',
      "const s = await new WasmBox().createSession();",
      'await s.execute("x = 4");',
      'console.log((await s.execute("print(x)")).stdout.trim());',
    ].join("\n"),
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "4\n");
});
