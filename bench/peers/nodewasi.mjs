// Our python.wasm under node's own WASI (V8 compiles the module: a JIT engine
// running the very module wasmbox translates with wasm2c). Mounts match what
// src/api/sandbox.c gives a call: /app (a temporary workspace, read-write)
// and the stdlib tree at /usr/local/lib/python3.11. There are no limits here:
// node:wasi is not a sandbox (its own docs say so), this only measures speed.
//
//   node nodewasi.mjs WASM STDLIB -c CODE     one process, one call; exit
//                                             status is the guest's
//   node nodewasi.mjs WASM STDLIB --warm N    one instance: N calls of
//                                             print(1), then N small changes
//                                             to a 50 MB heap (bench/load.c's
//                                             session workload); JSON with
//                                             latencies
//   node nodewasi.mjs WASM STDLIB --memory    Pss of this process after init
//                                             and a few small variables
import { readFileSync, mkdtempSync, rmSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WASI } from 'node:wasi';

const [wasmPath, stdlib, mode, arg] = process.argv.slice(2);
const app = mkdtempSync(join(tmpdir(), 'wasmbox-nodewasi-'));
// In --warm mode the guest's print(1) goes to /dev/null so that the terminal
// or pipe does not time our loop.
const stdout = mode === '-c' ? 1 : openSync('/dev/null', 'w');
const wasi = new WASI({
  version: 'preview1',
  args: ['python3'],
  env: {},
  // wasi-libc numbers preopens from fd 3 in this order
  preopens: { '/app': app, '/usr/local/lib/python3.11': stdlib },
  stdout,
  returnOnExit: true,
});

let instance;
const errors = [];
const text = (ptr, len) => Buffer.from(instance.exports.memory.buffer, ptr, len).toString('utf8');
const imports = {
  wasi_snapshot_preview1: wasi.wasiImport,
  // our own imports (runtimes/python/wasmbox_main.c): the guest reports an
  // uncaught exception (it has already printed the traceback); tool requests
  // (code mode) get the reply a call without tools gets
  wasmbox: {
    report_error: (t, tl, m, ml) => errors.push(`${text(t, tl)}: ${text(m, ml)}`),
    tool_request: () => NO_TOOLS.length,
    tool_reply: (p, n) => new Uint8Array(instance.exports.memory.buffer, p, n).set(NO_TOOLS.subarray(0, n)),
    // signal.alarm's timer (runtimes/python/alarm.c): node cannot interrupt
    // a running guest, so the host "could not make a timer" (EAGAIN)
    set_alarm: () => 1,
  },
};
const NO_TOOLS = Buffer.from('{"ok":false,"error":{"type":"ToolError","message":"no tools are available to this call"}}');

function call(code) {
  const { wasmbox_alloc, wasmbox_run, memory } = instance.exports;
  const src = Buffer.from(code), name = Buffer.from('<string>');
  const p = wasmbox_alloc(src.length), q = wasmbox_alloc(name.length);
  new Uint8Array(memory.buffer, p, src.length).set(src); // after both allocs: memory may grow
  new Uint8Array(memory.buffer, q, name.length).set(name);
  return wasmbox_run(p, src.length, q, name.length); // the guest frees both
}

const t0 = performance.now();
const module = await WebAssembly.compile(readFileSync(wasmPath));
// an import the module gained that this file does not define would fail in
// instantiate() with only its number: name it
for (const { module: m, name } of WebAssembly.Module.imports(module)) {
  if (m !== 'wasi_snapshot_preview1' && !(imports[m] && name in imports[m])) {
    throw new Error(`nodewasi.mjs defines no import ${m}.${name} (add it beside report_error)`);
  }
}
instance = await WebAssembly.instantiate(module, imports);
wasi.initialize(instance); // _initialize: C constructors
if (instance.exports.wasmbox_init() !== 0) throw new Error('wasmbox_init failed');
const initMs = performance.now() - t0;

let status = 0;
if (mode === '-c') {
  status = call(arg);
} else if (mode === '--warm') {
  const n = Number(arg);
  const timed = (code, k) => {
    const times = [];
    for (let i = 0; i < k; i++) {
      const t = performance.now();
      if (call(code) !== 0) throw new Error(errors.join('\n'));
      times.push(performance.now() - t);
    }
    return times;
  };
  timed('print(1)', 20);
  const stateless = timed('print(1)', n);
  call('heap = [bytes([i % 251]) * 1000 for i in range(50000)]\nn = 0\n');
  timed('n += 1\nheap[n % 50000] = b"x" * 1000\n', 5);
  const session = timed('n += 1\nheap[n % 50000] = b"x" * 1000\n', n);
  console.log(JSON.stringify({ init_ms: initMs, stateless_latency_ms: stateless, session_latency_ms: session }));
} else if (mode === '--memory') {
  call("a = 1\nb = 'text'\nc = [1, 2, 3]\nd = {'k': 'v'}\n");
  const rollup = readFileSync('/proc/self/smaps_rollup', 'utf8');
  const kb = (f) => Number(rollup.match(new RegExp(`^${f}:\\s+(\\d+) kB`, 'm'))[1]);
  console.log(JSON.stringify({ init_ms: initMs, pss_kb: kb('Pss'), rss_kb: kb('Rss') }));
} else {
  throw new Error('usage: nodewasi.mjs WASM STDLIB -c CODE | --warm N | --memory');
}
rmSync(app, { recursive: true, force: true });
process.exitCode = status;
