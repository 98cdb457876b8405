/* Limits for JavaScript: memory, time, stack and output are bounded and
 * reported with the right status, as for Python (test_limits.c), and deep
 * nesting of every kind ends as a catchable JS error, never a crash. */
#include <pthread.h>
#include <sys/resource.h>
#include <time.h>

#include "harness.h"
#include "util/os.h"

static long max_rss_kb(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

static wasmbox_result *run_js_req(const char *code, double timeout, uint64_t memory) {
  wasmbox_request req = {.language = "javascript", .code = code, .timeout_seconds = timeout, .memory_bytes = memory};
  return run_req(&req);
}

static void test_memory_bomb_buffer(void **s) {
  (void)s;
  wasmbox_result *r = run_js("const b = new ArrayBuffer(2 ** 30);");
  expect_status(r, WASMBOX_STATUS_OUT_OF_MEMORY);
  assert_string_equal(r->error_type, "InternalError");
  assert_string_equal(r->error_message, "out of memory");
  assert_true(r->guidance_len >= 1);
  wasmbox_result_free(r);
}

static void test_memory_bomb_list(void **s) {
  (void)s;
  wasmbox_result *r = run_js_req("const x = [];\nfor (;;) x.push('y'.repeat(1000) + x.length);", 0, 64ull << 20);
  expect_status(r, WASMBOX_STATUS_OUT_OF_MEMORY);
  assert_true(r->memory_peak_bytes <= 64ull << 20);
  assert_true(r->memory_peak_bytes > 32ull << 20);
  wasmbox_result_free(r);
  /* memory is a per-call limit: a program that fits runs fine afterwards */
  expect_js_output("console.log(new Uint8Array(100 << 20).length)", NULL, "104857600\n");
}

/* Memory a program freed serves its next blocks whatever their size:
 * objects, then strings, then arrays, each generation dropped, fit in 64 MB
 * (about 50 MB at the most; blocks kept by size would need 80). */
static void test_memory_freed_is_reused(void **s) {
  (void)s;
  wasmbox_result *r = run_js_req(
      "let a = []; for (let i = 0; i < 300000; i++) a.push({ x: i, y: i }); a = null;\n"
      "let b = []; for (let i = 0; i < 300000; i++) b.push('s' + i + 'abcdefghijklmnopq'); b = null;\n"
      "let c = []; for (let i = 0; i < 300000; i++) c.push([i, i, i, i, i, i]);\n"
      "console.log(c.length);",
      0, 64ull << 20);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "300000\n");
  wasmbox_result_free(r);
}

static void test_memory_caught_by_program(void **s) {
  (void)s;
  wasmbox_result *r =
      run_js_req("try { new ArrayBuffer(200 << 20) } catch (e) { console.log('caught', e.message) }", 0, 64ull << 20);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "caught out of memory\n");
  wasmbox_result_free(r);
}

/* QuickJS's parser reports running out of memory as a SyntaxError; it is
 * still out_of_memory (the engine refused the memory), and the same program
 * runs with more. */
static void test_memory_out_while_parsing(void **s) {
  (void)s;
  size_t n = 300000;
  char *code = malloc(4 * n + 1);
  assert_non_null(code);
  for (size_t i = 0; i < n; i++) memcpy(code + 4 * i, "x=1\n", 4);
  code[4 * n] = 0;
  wasmbox_result *r = run_js_req(code, 0, 16ull << 20);
  expect_status(r, WASMBOX_STATUS_OUT_OF_MEMORY);
  wasmbox_result_free(r);
  r = run_js_req(code, 0, 128ull << 20);
  expect_status(r, WASMBOX_STATUS_OK);
  wasmbox_result_free(r);
  free(code);
}

static void test_timeout_tight_loop(void **s) {
  (void)s;
  double t = wb_monotonic_s();
  wasmbox_result *r = run_js_req("console.log('started');\nfor (;;) {}", 1, 0);
  double took = wb_monotonic_s() - t;
  expect_status(r, WASMBOX_STATUS_TIMEOUT);
  assert_true(took < 1.5);
  assert_true(r->duration_ms >= 1000 && r->duration_ms < 1100);
  assert_string_equal(r->stdout_data, "started\n"); /* output before the loop is kept */
  assert_string_equal(r->error_type, "Timeout");
  wasmbox_result_free(r);
}

static void test_timeout_loop_without_calls(void **s) {
  (void)s;
  double t = wb_monotonic_s();
  wasmbox_result *r = run_js_req("let i = 0;\nwhile (true) i = (i + 1) & 0xff;", 0.3, 0);
  expect_status(r, WASMBOX_STATUS_TIMEOUT);
  assert_true(wb_monotonic_s() - t < 0.4);
  wasmbox_result_free(r);
}

static void test_timeout_in_sleep(void **s) {
  (void)s;
  double t = wb_monotonic_s();
  wasmbox_result *r = run_js_req("await new Promise((r) => setTimeout(r, 30000));", 0.5, 0);
  expect_status(r, WASMBOX_STATUS_TIMEOUT);
  assert_true(wb_monotonic_s() - t < 0.6);
  wasmbox_result_free(r);
  /* timers themselves wait as long as they say */
  expect_js_output(
      "const t = performance.now();\nawait new Promise((r) => setTimeout(r, 150));\n"
      "const d = performance.now() - t;\nconsole.log(d >= 149 && d < 1000);",
      NULL, "true\n");
}

/* `code` nests without end; it must throw a catchable `type` whose message
 * holds `needle`. */
static void catchable(const char *code, const char *type, const char *needle) {
  char *full;
  assert_true(asprintf(&full,
                       "try {\n%s\n} catch (e) {\n"
                       "  console.log(e.constructor.name + ': ' + e.message.split(' (')[0]);\n}\n"
                       "console.log('alive');\n",
                       code) > 0);
  char *want;
  assert_true(asprintf(&want, "%s: %s\nalive\n", type, needle) > 0);
  expect_js_output(full, NULL, want);
  free(full);
  free(want);
}

static void test_deep_recursion(void **s) {
  (void)s;
  catchable("function f(n) { return f(n + 1) + 1; }\nf(0);", "InternalError", "stack overflow");
  /* uncaught, it is an error (not out_of_memory, though the type is shared) */
  wasmbox_result *r = run_js("const f = (n) => f(n + 1) + 1;\nf(0);");
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_string_equal(r->error_type, "InternalError");
  assert_string_equal(r->error_message, "stack overflow");
  assert_true(r->guidance_len >= 1);
  assert_true(r->error_traceback && strlen(r->error_traceback) < 64 * 1024); /* frames elided */
  wasmbox_result_free(r);
  /* the recursion limit is not tiny */
  expect_js_output("let d = 0;\nfunction f(n) { d = n; f(n + 1); }\ntry { f(0) } catch {}\nconsole.log(d > 2000);",
                   NULL, "true\n");
}

static void test_deep_nesting_is_catchable(void **s) {
  (void)s;
  catchable("JSON.parse('['.repeat(100000));", "SyntaxError", "stack overflow");
  catchable("new RegExp('(?:'.repeat(100000) + 'a' + ')'.repeat(100000));", "SyntaxError", "stack overflow");
  catchable("eval('`' + '${`'.repeat(50000) + 'x' + '`}'.repeat(50000) + '`');", "SyntaxError", "stack overflow");
  catchable("eval('`' + '${1}'.repeat(100000) + '`');", "InternalError", "stack overflow");
  catchable("eval('('.repeat(100000) + '1' + ')'.repeat(100000));", "SyntaxError", "stack overflow");
  catchable("eval('-'.repeat(1000000) + '1');", "SyntaxError", "stack overflow");
  catchable("let a = []; for (let i = 0; i < 100000; i++) a = [a];\nString(a);", "InternalError", "stack overflow");
  catchable("let p = {}; for (let i = 0; i < 100000; i++) p = new Proxy(p, {});\np.x;", "InternalError",
            "stack overflow");
}

static void test_output_flood(void **s) {
  (void)s;
  long before = max_rss_kb();
  wasmbox_result *r = run_js(
      "const chunk = 'x'.repeat((1 << 20) - 1);\n"
      "for (let i = 0; i < 100; i++) console.log(chunk);\n"
      "console.error('done');");
  expect_status(r, WASMBOX_STATUS_OK);
  assert_true(r->stdout_truncated);
  assert_int_equal(r->stdout_len, WASMBOX_DEFAULT_MAX_OUTPUT);
  assert_int_equal(r->stdout_total, 100ull << 20);
  assert_false(r->stderr_truncated);
  assert_string_equal(r->stderr_data, "done\n");
  assert_true(r->guidance_len >= 1);
  wasmbox_result_free(r);
  assert_true(max_rss_kb() - before < 48 * 1024); /* the host kept 1 MB, not 100 */
}

static void test_output_limit_configurable(void **s) {
  (void)s;
  wasmbox_request req = {
      .language = "javascript", .code = "console.log('0123456789'.repeat(3))", .max_output_bytes = 12};
  wasmbox_result *r = run_req(&req);
  assert_true(r->stdout_truncated);
  assert_int_equal(r->stdout_len, 12);
  assert_string_equal(r->stdout_data, "012345678901");
  assert_int_equal(r->stdout_total, 31);
  wasmbox_result_free(r);
}

static void test_bad_requests(void **s) {
  (void)s;
  wasmbox_result *r = NULL;
  char err[512];
  wasmbox_request req = {.language = "javascript", .code = "1", .memory_bytes = 1 << 20};
  assert_int_equal(wasmbox_run(test_wb, &req, &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_null(r);
  if (!strstr(err, "memory limit of 1 MB is below")) fail_msg("error '%s'", err);
  /* the smallest limit that starts QuickJS (its snapshot, lodash and Intl
   * preloaded: 14 MB) is below Python's (26 MB) */
  r = run_js_req("console.log('small')", 0, 14ull << 20);
  expect_status(r, WASMBOX_STATUS_OK);
  wasmbox_result_free(r);
}

typedef struct {
  const char *lang, *code;
  double timeout;
  wasmbox_status want;
  const char *out;
  bool ok;
} par_job;

static void *par_run(void *arg) {
  par_job *j = arg;
  wasmbox_request req = {.language = j->lang, .code = j->code, .timeout_seconds = j->timeout};
  wasmbox_result *r = NULL;
  char err[256];
  if (wasmbox_run(test_wb, &req, &r, err, sizeof err) != WASMBOX_OK) return NULL;
  j->ok = r->status == j->want && (!j->out || !strcmp(r->stdout_data, j->out));
  wasmbox_result_free(r);
  return NULL;
}

static void test_concurrent_calls(void **s) {
  (void)s;
  /* both runtimes in one process, several threads: a timeout or error in one
   * call does not disturb the others */
  par_job jobs[] = {
      {"javascript", "for (;;) {}", 0.5, WASMBOX_STATUS_TIMEOUT, NULL, false},
      {"javascript", "let s = 0; for (let i = 0; i < 1e6; i++) s += i; console.log(s)", 10, WASMBOX_STATUS_OK,
       "499999500000\n", false},
      {"javascript", "JSON.parse('['.repeat(100000))", 10, WASMBOX_STATUS_ERROR, NULL, false},
      {"python", "import json\nprint(json.dumps([1]))", 10, WASMBOX_STATUS_OK, "[1]\n", false},
      {"javascript", "null.x", 10, WASMBOX_STATUS_ERROR, NULL, false},
      {"javascript", "await new Promise((r) => setTimeout(r, 200)); console.log('slept')", 10, WASMBOX_STATUS_OK,
       "slept\n", false},
  };
  size_t n = sizeof jobs / sizeof jobs[0];
  pthread_t t[sizeof jobs / sizeof jobs[0]];
  for (size_t i = 0; i < n; i++) pthread_create(&t[i], NULL, par_run, &jobs[i]);
  for (size_t i = 0; i < n; i++) pthread_join(t[i], NULL);
  for (size_t i = 0; i < n; i++)
    if (!jobs[i].ok) fail_msg("concurrent job %zu (%s) did not end as expected", i, jobs[i].code);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_memory_bomb_buffer),
      cmocka_unit_test(test_memory_bomb_list),
      cmocka_unit_test(test_memory_caught_by_program),
      cmocka_unit_test(test_memory_out_while_parsing),
      cmocka_unit_test(test_memory_freed_is_reused),
      cmocka_unit_test(test_timeout_tight_loop),
      cmocka_unit_test(test_timeout_loop_without_calls),
      cmocka_unit_test(test_timeout_in_sleep),
      cmocka_unit_test(test_deep_recursion),
      cmocka_unit_test(test_deep_nesting_is_catchable),
      cmocka_unit_test(test_output_flood),
      cmocka_unit_test(test_output_limit_configurable),
      cmocka_unit_test(test_bad_requests),
      cmocka_unit_test(test_concurrent_calls),
  };
  return RUN("js_limits", tests);
}
