// The README's examples, as a user runs them: the package packed (npm pack),
// installed into a new project, each ```js block run with node and
// `wasmbox` on PATH; what a block prints must match its `// ...` comments.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const BIN = process.env.WASMBOX_BIN;
assert.ok(BIN, "set WASMBOX_BIN to the wasmbox program");
const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const tmp = mkdtempSync(join(tmpdir(), "wasmbox-readme-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

const blocks = [...readFileSync(join(pkg, "README.md"), "utf8").matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

/* `console.log(...); // expected` -> a pattern for a line of output */
function expectations(block) {
  const out = [];
  for (const line of block.split("\n")) {
    const m = /^console\.log\(.*\); \/\/ (.*)$/.exec(line);
    if (m) out.push(new RegExp(m[1].replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  }
  return out;
}

test("the README's examples run and print what they say", () => {
  assert.ok(blocks.length >= 4, "README has its examples");
  const npmEnv = { ...process.env, npm_config_loglevel: "error", npm_config_fund: "false", npm_config_audit: "false" };
  const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", tmp], { cwd: pkg, env: npmEnv })
    .toString()
    .trim()
    .split("\n")
    .pop();
  const project = join(tmp, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "user-project", private: true, type: "module" }));
  execFileSync("npm", ["install", join(tmp, tarball)], { cwd: project, env: npmEnv, stdio: "pipe" });
  const env = { ...process.env, PATH: `${dirname(BIN)}:${process.env.PATH}`, WASMBOX_HOME: join(tmp, "home") };
  delete env.WASMBOX_BIN;
  // a TypeScript user's program type-checks against the installed types
  // (and a wrong option type is caught)
  writeFileSync(
    join(project, "user.ts"),
    [
      'import { WasmBox, PythonRunner, type ExecutionResult, type RunnerResult, type Session } from "wasmbox";',
      "const box = new WasmBox({ timeoutSeconds: 5 });",
      'const r: ExecutionResult = await box.execute("print(1)", { memoryMb: 64, signal: AbortSignal.timeout(1000) });',
      "const out: string = r.stdout;",
      "const s: Session = await box.createSession({ language: 'javascript' });",
      "const files: { path: string; size: number }[] = await s.listFiles();",
      'const rr: RunnerResult = await new PythonRunner(box).execute("1");',
      "// @ts-expect-error: a timeout is a number",
      'await box.execute("1", { timeoutSeconds: "5" });',
      "console.log(out, files, rr.success);",
    ].join("\n"),
  );
  const tsc = join(pkg, "node_modules", ".bin", "tsc");
  execFileSync(
    tsc,
    ["--noEmit", "--strict", "--module", "nodenext", "--target", "es2022", "--typeRoots", join(pkg, "node_modules", "@types"), "--types", "node", "user.ts"],
    { cwd: project, env, stdio: "pipe" },
  );
  blocks.forEach((block, i) => {
    const file = join(project, `example${i}.mjs`);
    writeFileSync(file, block);
    const out = execFileSync("node", [file], { cwd: project, env, timeout: 60000 }).toString();
    for (const want of expectations(block)) assert.match(out, want, `example ${i + 1} printed:\n${out}`);
  });
});
