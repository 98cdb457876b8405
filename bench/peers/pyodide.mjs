// Pyodide (CPython compiled with Emscripten, run by V8) in node: the approach
// of code-executor-MCP, mcp-run-python and langchain-sandbox. The package is
// the exact version pinned in bench/peers/package-lock.json, installed by
// bench/run.sh; everything loads from its directory (no network).
//
//   node pyodide.mjs DIR -c CODE      a fresh process: load, run CODE, exit
//                                     (stdout is the guest's; exit status 1
//                                     when CODE raised)
//   node pyodide.mjs DIR --warm N     one process: N calls of print(1) on the
//                                     one interpreter, then N calls of a small
//                                     change to a 50 MB heap (bench/load.c's
//                                     session workload); JSON with latencies
//   node pyodide.mjs DIR --memory     Pss of this process after loading and
//                                     a few small variables (an idle session)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, mode, arg] = process.argv.slice(2);
const { loadPyodide } = await import(join(dir, 'pyodide.mjs'));

const t0 = performance.now();
const py = await loadPyodide({ indexURL: dir + '/' });
const loadMs = performance.now() - t0;

// Where print() goes: captured into an array, as a sandbox hands output back
// to its caller (wasmbox returns it in the result), or straight to stdout.
let captured = [];
py.setStdout({ batched: (s) => captured.push(s) });

function smapsKb(field) {
  const m = readFileSync('/proc/self/smaps_rollup', 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
  return Number(m[1]);
}

function timed(code, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    py.runPython(code);
    times.push(performance.now() - t);
    captured = [];
  }
  return times;
}

if (mode === '-c') {
  py.setStdout({ batched: (s) => process.stdout.write(s + '\n') });
  py.setStderr({ batched: (s) => process.stderr.write(s + '\n') });
  try {
    py.runPython(arg);
  } catch (e) {
    process.stderr.write(String(e.message) + '\n');
    process.exitCode = 1;
  }
  process.stderr.write(JSON.stringify({ pyodide_load_ms: loadMs }) + '\n');
} else if (mode === '--warm') {
  const n = Number(arg);
  timed('print(1)', 20);
  const stateless = timed('print(1)', n);
  py.runPython('heap = [bytes([i % 251]) * 1000 for i in range(50000)]\nn = 0\n');
  timed('n += 1\nheap[n % 50000] = b"x" * 1000\n', 5);
  const session = timed('n += 1\nheap[n % 50000] = b"x" * 1000\n', n);
  console.log(JSON.stringify({ load_ms: loadMs, stateless_latency_ms: stateless, session_latency_ms: session }));
} else if (mode === '--memory') {
  py.runPython("a = 1\nb = 'text'\nc = [1, 2, 3]\nd = {'k': 'v'}\n");
  console.log(JSON.stringify({ load_ms: loadMs, pss_kb: smapsKb('Pss'), rss_kb: smapsKb('Rss') }));
} else {
  throw new Error('usage: pyodide.mjs DIR -c CODE | --warm N | --memory');
}
