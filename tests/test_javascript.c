/* JavaScript semantics inside the sandbox: the language (ES2023) as QuickJS
 * implements it, the event loop, node-like console output, the file helpers
 * in /app, and results that carry what the guest did. */
#include "harness.h"

/* eq(actual, expected): compares JSON forms and throws with both if they differ */
#define EQ                                                                       \
  "const eq = (a, b) => { const x = JSON.stringify(a), y = JSON.stringify(b);\n" \
  "  if (x !== y) throw new Error(`${x} !== ${y}`); };\n"

/* A one-shot handle (the CLI's) prepares only the runtime of the call its
 * worker is for (src/api/worker_parent.c); a second call in the other
 * language gets a worker of its own and runs as the first did. Each
 * worker's /app is a tmpfs in its jail: nothing of it is on the host. */
static void test_one_shot_both_runtimes(void **s) {
  (void)s;
  char *home = make_dir(), *tmp = make_dir(), err[512];
  const char *tmpdir = getenv("TMPDIR");
  char *saved = tmpdir ? strdup(tmpdir) : NULL;
  assert_int_equal(setenv("TMPDIR", tmp, 1), 0);
  wasmbox_options o = {.home = home, .one_shot = true};
  wasmbox *wb = wasmbox_open(&o, err, sizeof err);
  assert_non_null(wb);
  const char *calls[][3] = {
      {"python", "open('/app/a', 'w').write('1'); print(6*7)", "42\n"},
      {"javascript", "require('fs').writeFileSync('/app/b', '2'); console.log([1, 2].map(x => x * 2).join())", "2,4\n"},
      {"python", "import json, os; print(json.dumps(os.listdir('/app')))", "[]\n"}};
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
    wasmbox_request req = {.language = calls[i][0], .code = calls[i][1]};
    wasmbox_result *r = NULL;
    assert_int_equal(wasmbox_run(wb, &req, &r, err, sizeof err), WASMBOX_OK);
    expect_status(r, WASMBOX_STATUS_OK);
    assert_string_equal(r->stdout_data, calls[i][2]);
    wasmbox_result_free(r);
    assert_int_equal(dir_entries(tmp), 0); /* nothing of its /app on the host */
  }
  wasmbox_free(wb);
  if (saved) setenv("TMPDIR", saved, 1);
  else unsetenv("TMPDIR");
  free(saved);
  rm_tree(tmp);
  free(tmp);
  rm_tree(home);
  free(home);
}

static void test_print(void **s) {
  (void)s;
  expect_js_output("console.log(6*7)", NULL, "42\n");
  /* the aliases and the library report the language */
  wasmbox_request req = {.language = "js", .code = "console.log(typeof globalThis)"};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "object\n");
  wasmbox_result_free(r);
  const char *const *langs = wasmbox_languages();
  assert_string_equal(langs[0], "python");
  assert_string_equal(langs[1], "javascript");
  assert_null(langs[2]);
}

static void test_classes(void **s) {
  (void)s;
  expect_js_output(EQ
                   "class Account {\n"
                   "  #balance = 0; static count = 0; static #secret = 'x';\n"
                   "  static { Account.ready = Account.#secret === 'x'; }\n"
                   "  constructor(owner) { this.owner = owner; Account.count++; }\n"
                   "  deposit(n) { this.#check(n); this.#balance += n; return this; }\n"
                   "  #check(n) { if (n <= 0) throw new RangeError('positive only'); }\n"
                   "  get balance() { return this.#balance; }\n"
                   "  static isAccount(o) { return #balance in o; }\n"
                   "}\n"
                   "class Savings extends Account { deposit(n) { return super.deposit(n * 2); } }\n"
                   "const a = new Savings('ann').deposit(5);\n"
                   "eq([a.balance, Account.count, Account.ready, Account.isAccount(a), Account.isAccount({})],\n"
                   "   [10, 1, true, true, false]);\n"
                   "let err; try { a.deposit(-1) } catch (e) { err = e }\n"
                   "eq([err instanceof RangeError, err.message], [true, 'positive only']);\n"
                   "eq(Object.keys(a), ['owner']);\n"
                   "console.log('ok')\n",
                   NULL, "ok\n");
}

static void test_async_ordering(void **s) {
  (void)s;
  /* microtasks before timers, in the order node runs them; top-level await */
  expect_js_output(
      "const log = [];\n"
      "setTimeout(() => log.push('timeout'), 0);\n"
      "Promise.resolve().then(() => log.push('micro1')).then(() => log.push('micro2'));\n"
      "queueMicrotask(() => log.push('qm'));\n"
      "(async () => { log.push('async start'); await null; log.push('after await'); })();\n"
      "log.push('sync');\n"
      "await new Promise((r) => setTimeout(r, 20));\n"
      "const results = await Promise.allSettled([Promise.reject(new Error('no')), 1]);\n"
      "log.push(results.map((r) => r.status).join('+'));\n"
      "log.push(await Promise.any([Promise.reject(1), Promise.resolve('any')]));\n"
      "const t0 = performance.now();\n"
      "const id = setInterval(() => { log.push('tick'); if (log.filter((x) => x === 'tick').length === 3)"
      " clearInterval(id); }, 5);\n"
      "await new Promise((r) => setTimeout(r, 60));\n"
      "console.log(log.join(','));\n"
      "console.log(performance.now() - t0 >= 60);\n",
      NULL,
      "async start,sync,micro1,qm,after await,micro2,timeout,rejected+fulfilled,any,tick,tick,tick\n"
      "true\n");
}

static void test_generators_iterators(void **s) {
  (void)s;
  expect_js_output(EQ
                   "function* fib() { let [a, b] = [0, 1]; for (;;) { yield a; [a, b] = [b, a + b]; } }\n"
                   "function* take(n, it) { for (const x of it) { if (n-- <= 0) return 'done'; yield x; } }\n"
                   "eq([...take(8, fib())], [0, 1, 1, 2, 3, 5, 8, 13]);\n"
                   "const g = take(1, fib()); g.next(); eq(g.next(), { value: 'done', done: true });\n"
                   "function* inner() { const x = yield 1; yield x * 2; }\n"
                   "function* outer() { yield* inner(); yield 'end'; }\n"
                   "const o = outer(); o.next(); eq([o.next(21).value, o.next().value], [42, 'end']);\n"
                   "async function* ticks() { for (let i = 0; i < 3; i++) { await null; yield i; } }\n"
                   "const got = []; for await (const t of ticks()) got.push(t);\n"
                   "eq(got, [0, 1, 2]);\n"
                   "const iterable = { *[Symbol.iterator]() { yield* 'ab'; } };\n"
                   "eq(Array.from(iterable, (c) => c.toUpperCase()), ['A', 'B']);\n"
                   "console.log('ok')\n",
                   NULL, "ok\n");
}

static void test_proxy_reflect(void **s) {
  (void)s;
  expect_js_output(
      EQ
      "const seen = [];\n"
      "const p = new Proxy({ a: 1 }, {\n"
      "  get(t, k, r) { seen.push(String(k)); return k in t ? Reflect.get(t, k, r) : `<${String(k)}>`; },\n"
      "  set(t, k, v) { t[k] = v * 10; return true; },\n"
      "  has(t, k) { return k.startsWith('x') || k in t; },\n"
      "  deleteProperty() { return false; },\n"
      "});\n"
      "p.b = 2;\n"
      "eq([p.a, p.b, p.zz, 'xy' in p, 'q' in p], [1, 20, '<zz>', true, false]);\n"
      "eq(Reflect.deleteProperty(p, 'a'), false);\n"
      "eq(Reflect.ownKeys({ b: 1, [Symbol.for('s')]: 2, 1: 0 }).map(String), ['1', 'b', 'Symbol(s)']);\n"
      "const { proxy, revoke } = Proxy.revocable({}, {}); revoke();\n"
      "let e; try { proxy.x } catch (err) { e = err.constructor.name } eq(e, 'TypeError');\n"
      "console.log('ok')\n",
      NULL, "ok\n");
}

static void test_bigint(void **s) {
  (void)s;
  expect_js_output(EQ
                   "const big = 2n ** 100n;\n"
                   "eq(String(big), '1267650600228229401496703205376');\n"
                   "eq(String(big % 1000007n), String(2n ** 100n % 1000007n));\n"
                   "eq(String(-7n / 2n), '-3');\n"
                   /* the upstream bug patched at build time: asUintN of a negative value */
                   "eq(String(BigInt.asUintN(64, -1n)), '18446744073709551615');\n"
                   "eq(String(BigInt.asUintN(32, -1n)), '4294967295');\n"
                   "eq(String(BigInt.asUintN(64, -(2n ** 64n) - 1n)), '18446744073709551615');\n"
                   "eq(String(BigInt.asUintN(70, -1n)), String(2n ** 70n - 1n));\n"
                   "eq(String(BigInt.asUintN(8, 257n)), '1');\n"
                   "eq(String(BigInt.asUintN(64, 2n ** 63n)), '9223372036854775808');\n"
                   "eq(String(BigInt.asIntN(64, 2n ** 63n)), '-9223372036854775808');\n"
                   "eq(String(BigInt.asIntN(8, 255n)), '-1');\n"
                   "eq(String(BigInt.asUintN(0, -5n)), '0');\n"
                   "let e; try { 1n + 1 } catch (err) { e = err.constructor.name } eq(e, 'TypeError');\n"
                   "eq(BigInt('0x1f') === 31n && typeof 1n === 'bigint', true);\n"
                   "console.log('ok')\n",
                   NULL, "ok\n");
}

static void test_regexp(void **s) {
  (void)s;
  expect_js_output(EQ
                   "const m = /(?<y>\\d{4})-(?<m>\\d{2})/.exec('on 2024-05-17');\n"
                   "eq([m.groups.y, m.groups.m, m.index], ['2024', '05', 3]);\n"
                   "eq('$10 and $20, 30'.match(/(?<=\\$)\\d+/g), ['10', '20']);\n"
                   "eq('abc1'.match(/(?<!a)\\w(?=\\d)/)[0], 'c');\n"
                   "eq('Héllo Wörld 123'.match(/\\p{L}+/gu), ['Héllo', 'Wörld']);\n"
                   "eq(/\\p{Script=Greek}/u.test('α'), true);\n"
                   "const d = /b(?<x>c)/d.exec('abcd');\n"
                   "eq([d.indices[0], d.indices.groups.x], [[1, 3], [2, 3]]);\n"
                   "eq([...'a1b2'.matchAll(/[a-z](\\d)/g)].map((x) => x[1]), ['1', '2']);\n"
                   "eq('a-b-c'.replaceAll('-', '+'), 'a+b+c');\n"
                   "const y = /a/y; y.lastIndex = 1; eq(y.test('ba'), true);\n"
                   "eq('x'.replace(/(?<n>x)/, '[$<n>]'), '[x]');\n"
                   "console.log('ok')\n",
                   NULL, "ok\n");
}

static void test_json_collections(void **s) {
  (void)s;
  expect_js_output(
      EQ
      "const d = JSON.parse('{\"a\": [1, 2.5, null, true], \"b\": \"\\\\u00e9\", \"n\": 1e3}',\n"
      "  (k, v) => (k === 'n' ? v + 1 : v));\n"
      "eq(d, { a: [1, 2.5, null, true], b: 'é', n: 1001 });\n"
      "eq(JSON.stringify({ x: [1, { y: 2 }] }, null, 1), '{\\n \"x\": [\\n  1,\\n  {\\n   \"y\": 2\\n  }\\n ]\\n}');\n"
      "let e; try { JSON.parse('{bad') } catch (err) { e = err.constructor.name } eq(e, 'SyntaxError');\n"
      "const m = new Map([['k', 1]]); m.set({}, 2);\n"
      "const st = new Set([3, 1, 3, 2]);\n"
      "eq([m.size, m.get('k'), [...st], st.has(2)], [2, 1, [3, 1, 2], true]);\n"
      "const arr = [3, 1, 2];\n"
      "eq([arr.toSorted(), arr.toReversed(), arr.with(0, 9), arr, arr.findLast((x) => x > 1), arr.at(-1)],\n"
      "   [[1, 2, 3], [2, 1, 3], [9, 1, 2], [3, 1, 2], 2, 2]);\n"
      "eq(Object.fromEntries(Object.entries({ a: 1, b: 2 }).map(([k, v]) => [k, v * 2])), { a: 2, b: 4 });\n"
      "eq(Object.groupBy([1, 2, 3, 4], (x) => (x % 2 ? 'odd' : 'even')), { odd: [1, 3], even: [2, 4] });\n"
      "eq([[1, [2, [3]]].flat(Infinity), 'abc'.at(-1), Object.hasOwn({ q: 1 }, 'q')], [[1, 2, 3], 'c', true]);\n"
      "const wm = new WeakMap(); const key = {}; wm.set(key, 'v'); eq(wm.get(key), 'v');\n"
      "eq([1, 2, 3].reduce((a, b) => a + b) + (0.1 + 0.2).toFixed(2), '60.30');\n"
      "console.log('ok')\n",
      NULL, "ok\n");
}

static void test_typed_arrays(void **s) {
  (void)s;
  expect_js_output(
      EQ
      "const buf = new ArrayBuffer(16);\n"
      "const dv = new DataView(buf);\n"
      "dv.setUint32(0, 0xdeadbeef); dv.setFloat64(8, Math.PI, true);\n"
      "const u8 = new Uint8Array(buf);\n"
      "eq(Array.from(u8.subarray(0, 4)), [0xde, 0xad, 0xbe, 0xef]);\n"
      "eq(new Float64Array(buf, 8, 1)[0], Math.PI);\n"
      "const c = new Uint8ClampedArray([300, -5]); eq(Array.from(c), [255, 0]);\n"
      "const b64 = new BigInt64Array([-1n]); eq(String(new BigUint64Array(b64.buffer)[0]), '18446744073709551615');\n"
      "eq(Array.from(new Int16Array([1, 2, 3]).map((x) => x * -2)), [-2, -4, -6]);\n"
      "eq(buf.slice(0, 2).byteLength, 2);\n"
      "console.log('ok')\n",
      NULL, "ok\n");
}

static void test_date_utc(void **s) {
  (void)s;
  /* the sandbox's clock zone is UTC */
  expect_js_output(EQ
                   "const d = new Date(Date.UTC(2024, 1, 28, 12));\n"
                   "d.setUTCDate(d.getUTCDate() + 2);\n"
                   "eq(d.toISOString(), '2024-03-01T12:00:00.000Z');\n"
                   "eq(new Date(2024, 0, 1).getTimezoneOffset(), 0);\n"
                   "eq(new Date(2024, 0, 1, 9).getUTCHours(), 9);\n"
                   "eq(Date.parse('2024-01-01T00:00:00+02:00'), Date.UTC(2023, 11, 31, 22));\n"
                   "eq(new Date(0).getDay(), 4);\n"
                   "eq(Math.abs(Date.now() - new Date().getTime()) < 1000, true);\n"
                   "eq(Date.now() > Date.UTC(2024, 0, 1), true);\n"
                   "console.log('ok')\n",
                   NULL, "ok\n");
}

static void test_console_format(void **s) {
  (void)s;
  /* what node prints for the same values */
  expect_js_output(
      "console.log({ a: 1, b: 'two', c: [1, 2, 3], d: { e: { f: { g: 1 } } }, 'k-x': null });\n"
      "console.log([1, 2, 3, 4, 5, 6, 7]);\n"
      "console.log(new Map([['a', 1]]), new Set(['x']), [ , 1], -0, 10n, undefined, Symbol('s'));\n"
      "class Point { constructor() { this.x = 1; } }\n"
      "console.log(new Point(), Object.create(null), [function named() {}, () => {}, Point]);\n"
      "const o = { name: 'loop' }; o.self = o; console.log(o);\n"
      "console.log(\"it's\", [\"it's\"], 'a\\nb', ['a\\nb'], new Uint8Array([1, 2]), new Date(0), /x/gi);\n"
      "console.log('%s=%d %j %%', 'n', 42.5, { j: 1 }, 'rest');\n"
      "console.log(Array.from({ length: 120 }, (_, i) => i).length, [[[[1]]]], { toString() {} });\n"
      "console.log({ long: 'x'.repeat(60), other: 'y'.repeat(60) });\n",
      NULL,
      "{ a: 1, b: 'two', c: [ 1, 2, 3 ], d: { e: { f: [Object] } }, 'k-x': null }\n"
      "[\n  1, 2, 3, 4,\n  5, 6, 7\n]\n"
      "Map(1) { 'a' => 1 } Set(1) { 'x' } [ <1 empty item>, 1 ] -0 10n undefined Symbol(s)\n"
      "Point { x: 1 } [Object: null prototype] {} [ [Function: named], [Function (anonymous)], [class Point] ]\n"
      "<ref *1> { name: 'loop', self: [Circular *1] }\n"
      "it's [ \"it's\" ] a\nb [ 'a\\nb' ] Uint8Array(2) [ 1, 2 ] 1970-01-01T00:00:00.000Z /x/gi\n"
      "n=42.5 {\"j\":1} % rest\n"
      "120 [ [ [ [Array] ] ] ] { toString: [Function: toString] }\n"
      "{\n  long: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',\n"
      "  other: 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy'\n}\n");
  wasmbox_result *r = run_js("console.error('to stderr'); console.warn({ w: 1 }); console.info('info')");
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stderr_data, "to stderr\n{ w: 1 }\n");
  assert_string_equal(r->stdout_data, "info\n");
  wasmbox_result_free(r);
}

static void test_uncaught_errors(void **s) {
  (void)s;
  wasmbox_result *r = expect_js_error("function f(x) {\n  return x.y.z;\n}\nf({});\n", NULL, "TypeError");
  assert_string_equal(r->error_message, "cannot read property 'z' of undefined");
  assert_non_null(strstr(r->error_traceback, "at f (<input>:2:"));
  assert_non_null(strstr(r->stderr_data, "TypeError: cannot read property 'z' of undefined\n    at f"));
  assert_null(strstr(r->error_traceback, "<wasmbox>")); /* our prelude is not in it */
  assert_int_equal(r->exit_code, 1);
  wasmbox_result_free(r);

  r = expect_js_error("class ValidationError extends Error {}\nthrow new ValidationError('mine');", NULL,
                      "ValidationError");
  assert_string_equal(r->error_message, "mine");
  assert_non_null(strstr(r->stderr_data, "ValidationError: mine"));
  wasmbox_result_free(r);

  r = expect_js_error("let x = (1,\n", NULL, "SyntaxError");
  wasmbox_result_free(r);

  /* a thrown value that is not an Error */
  r = expect_js_error("throw { code: 42 }", NULL, "Uncaught");
  assert_string_equal(r->error_message, "{ code: 42 }");
  assert_string_equal(r->stderr_data, "Uncaught { code: 42 }\n");
  wasmbox_result_free(r);

  /* rejections nobody handles end the program, as in node */
  r = expect_js_error("Promise.reject(new RangeError('late'));\nsetTimeout(() => console.log('never'), 10);", NULL,
                      "RangeError");
  assert_string_equal(r->stdout_data, "");
  wasmbox_result_free(r);
  r = expect_js_error("async function f() { await null; throw new TypeError('after await'); }\nawait f();", NULL,
                      "TypeError");
  assert_string_equal(r->error_message, "after await");
  wasmbox_result_free(r);
  r = expect_js_error("setTimeout(() => { throw new Error('in a timer'); }, 1);", NULL, "Error");
  assert_string_equal(r->error_message, "in a timer");
  wasmbox_result_free(r);
  /* a rejection handled later in the same turn is fine */
  expect_js_output("const p = Promise.reject(new Error('x'));\np.catch(() => console.log('handled'));", NULL,
                   "handled\n");
}

static void test_filename_and_modules(void **s) {
  (void)s;
  wasmbox_request req = {.language = "javascript", .code = "\n\nnull.x;\n", .filename = "job.js"};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_non_null(strstr(r->error_traceback, "(job.js:3:"));
  wasmbox_result_free(r);

  /* an ES module importing another from the workspace; import.meta */
  char *dir = make_dir();
  write_file(dir, "lib.mjs", "export const twice = (x) => 2 * x;\nexport default 'lib';\n");
  wasmbox_request mod = {.language = "javascript",
                         .code =
                             "import name, { twice } from './lib.mjs';\n"
                             "const later = await import('./lib.mjs');\n"
                             "console.log(name, twice(21), later.twice(1), import.meta.main)\n",
                         .filename = "main.mjs",
                         .workspace = dir};
  r = run_req(&mod);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "lib 42 2 true\n");
  wasmbox_result_free(r);
  /* import/export in code without a .mjs name makes it a module too */
  expect_js_output("import { twice } from './lib.mjs';\nconsole.log(twice(2));", dir, "4\n");
  r = expect_js_error("import { nope } from './missing.mjs';", dir, "ReferenceError");
  assert_non_null(strstr(r->error_message, "could not load module"));
  wasmbox_result_free(r);
  rm_tree(dir);
  free(dir);
}

static void test_exit_codes(void **s) {
  (void)s;
  wasmbox_result *r = run_js("console.log('bye');\nprocess.exit(3);\nconsole.log('not reached');");
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_int_equal(r->exit_code, 3);
  assert_string_equal(r->stdout_data, "bye\n");
  wasmbox_result_free(r);

  expect_js_output("console.log('fine'); process.exit(0);", NULL, "fine\n");

  r = run_js("process.exitCode = 2; setTimeout(() => console.log('still runs'), 1);");
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_int_equal(r->exit_code, 2);
  assert_string_equal(r->stdout_data, "still runs\n");
  wasmbox_result_free(r);

  /* awaiting what can never settle ends the run, as node's exit code 13 */
  r = run_js("await new Promise(() => {});");
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_int_equal(r->exit_code, 13);
  assert_non_null(strstr(r->stderr_data, "unsettled top-level await"));
  wasmbox_result_free(r);
}

static void test_file_helpers(void **s) {
  (void)s;
  char *dir = make_dir();
  write_file(dir, "in.json", "{\"items\": [1, 2, 3]}");
  expect_js_output(EQ
                   "const data = readJson('in.json');\n"
                   "writeJson('/app/out.json', { sum: data.items.reduce((a, b) => a + b) });\n"
                   "writeText('notes.txt', 'héllo\\nworld');\n"
                   "eq(readText('/app/notes.txt').split('\\n'), ['héllo', 'world']);\n"
                   "eq(listDir(), ['in.json', 'notes.txt', 'out.json']);\n"
                   "eq(listDir('/app').length, 3);\n"
                   "let e; try { readText('missing.txt') } catch (err) { e = [err.code, err.message] }\n"
                   "eq(e, ['ENOENT', \"ENOENT: no such file or directory, open 'missing.txt'\"]);\n"
                   "try { readText('.') } catch (err) { e = err.code } eq(e, 'EISDIR');\n"
                   "try { writeJson('x.json', undefined) } catch (err) { e = err.name } eq(e, 'TypeError');\n"
                   "console.log(process.cwd())\n",
                   dir, "/app\n");
  char *out = read_file(dir, "out.json");
  assert_non_null(out);
  assert_string_equal(out, "{\n  \"sum\": 6\n}\n");
  free(out);
  /* a later call sees the files; files_changed lists what this one wrote */
  wasmbox_result *r = run_js_in("writeText('later.txt', readText('notes.txt').toUpperCase())", dir);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_int_equal(r->files_changed_len, 1);
  assert_string_equal(r->files_changed[0], "/app/later.txt");
  wasmbox_result_free(r);
  out = read_file(dir, "later.txt");
  assert_string_equal(out, "HÉLLO\nWORLD");
  free(out);
  /* helpers close what they open: many calls never run out of descriptors */
  expect_js_output(
      "for (let i = 0; i < 300; i++) writeText(`f${i}.txt`, String(i));\n"
      "let n = 0; for (let i = 0; i < 300; i++) n += Number(readText(`f${i}.txt`));\n"
      "console.log(n, listDir().length)",
      dir, "44850 304\n");
  rm_tree(dir);
  free(dir);
}

static void test_stdin(void **s) {
  (void)s;
  wasmbox_request req = {.language = "javascript",
                         .code =
                             "const lines = readStdin().split('\\n').filter(Boolean);\n"
                             "console.log(lines.length, lines.at(-1))",
                         .stdin_data = "one\ntwo\nthree\n",
                         .stdin_len = 14};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "3 three\n");
  wasmbox_result_free(r);
  expect_js_output("console.log(JSON.stringify(readStdin()))", NULL, "\"\"\n");
}

static void test_env_allowlist(void **s) {
  (void)s;
  setenv("WASMBOX_TEST_SECRET", "hunter2", 1);
  expect_js_output("console.log(Object.keys(process.env))", NULL, "[]\n");
  const char *env[] = {"GREETING=hi", "LANG_X=fr"};
  wasmbox_request req = {.language = "javascript",
                         .code = "console.log(process.env.GREETING, Object.keys(process.env).length)",
                         .env = env,
                         .env_len = 2};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "hi 2\n");
  wasmbox_result_free(r);
  /* the next fresh copy has none of it */
  expect_js_output("console.log(Object.keys(process.env), process.env.GREETING)", NULL, "[] undefined\n");
}

static void test_stateless(void **s) {
  (void)s;
  expect_js_output("globalThis.x = 41; writeText('f', '1'); console.log(x + 1)", NULL, "42\n");
  /* a new call starts from nothing: no variable, no file */
  expect_js_output("console.log(typeof x, listDir())", NULL, "undefined []\n");
}

static void test_random_per_call(void **s) {
  (void)s;
  /* every call starts from one snapshot: Math.random must still differ */
  char first[3][64];
  for (int i = 0; i < 3; i++) {
    wasmbox_result *r = run_js("const x = Math.random(); if (!(x >= 0 && x < 1)) throw new Error(x); console.log(x)");
    expect_status(r, WASMBOX_STATUS_OK);
    snprintf(first[i], sizeof first[i], "%s", r->stdout_data);
    wasmbox_result_free(r);
  }
  assert_string_not_equal(first[0], first[1]);
  assert_string_not_equal(first[1], first[2]);
  /* and looks uniform: the mean of 100000 draws is near 1/2 */
  expect_js_output(
      "let s = 0; for (let i = 0; i < 1e5; i++) s += Math.random();\n"
      "console.log(Math.abs(s / 1e5 - 0.5) < 0.01, Math.random.name, Math.random.length)",
      NULL, "true random 0\n");
}

static void test_json_result(void **s) {
  (void)s;
  wasmbox_result *r = run_js("console.log('a\\u0000b\"'); throw new TypeError('v')");
  char *j = wasmbox_result_json(r);
  assert_non_null(j);
  assert_non_null(strstr(j, "\"status\":\"error\""));
  assert_non_null(strstr(j, "\"stdout\":\"a\\u0000b\\\"\\n\""));
  assert_non_null(strstr(j, "\"error\":{\"type\":\"TypeError\",\"message\":\"v\""));
  free(j);
  wasmbox_result_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_print),
      cmocka_unit_test(test_classes),
      cmocka_unit_test(test_async_ordering),
      cmocka_unit_test(test_generators_iterators),
      cmocka_unit_test(test_proxy_reflect),
      cmocka_unit_test(test_bigint),
      cmocka_unit_test(test_regexp),
      cmocka_unit_test(test_json_collections),
      cmocka_unit_test(test_typed_arrays),
      cmocka_unit_test(test_date_utc),
      cmocka_unit_test(test_console_format),
      cmocka_unit_test(test_uncaught_errors),
      cmocka_unit_test(test_filename_and_modules),
      cmocka_unit_test(test_exit_codes),
      cmocka_unit_test(test_file_helpers),
      cmocka_unit_test(test_stdin),
      cmocka_unit_test(test_env_allowlist),
      cmocka_unit_test(test_stateless),
      cmocka_unit_test(test_random_per_call),
      cmocka_unit_test(test_json_result),
      cmocka_unit_test(test_one_shot_both_runtimes),
  };
  return RUN("javascript", tests);
}
