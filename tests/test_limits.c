/* Limits: memory, time, stack and output are bounded, reported with the right
 * status, and the host survives every one of them. */
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

static void test_memory_bomb_bytearray(void **s) {
  (void)s;
  wasmbox_result *r = run_py("x = bytearray(10**10)");
  expect_status(r, WASMBOX_STATUS_OUT_OF_MEMORY);
  assert_string_equal(r->error_type, "MemoryError");
  assert_true(r->guidance_len >= 1);
  wasmbox_result_free(r);
}

static void test_memory_bomb_list(void **s) {
  (void)s;
  wasmbox_request req = {.code = "x = []\nwhile True:\n    x.append('y' * 1000)\n", .memory_bytes = 64ull << 20};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OUT_OF_MEMORY);
  assert_true(r->memory_peak_bytes <= 64ull << 20);
  assert_true(r->memory_peak_bytes > 32ull << 20);
  wasmbox_result_free(r);
  /* memory is a per-call limit: a program that fits runs fine afterwards */
  expect_output("print(len(bytearray(100 << 20)))", NULL, "104857600\n");
}

static void test_memory_caught_by_program(void **s) {
  (void)s;
  wasmbox_request req = {.code = "try:\n    x = bytearray(200 << 20)\nexcept MemoryError:\n    print('caught')\n",
                         .memory_bytes = 64ull << 20};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "caught\n");
  wasmbox_result_free(r);
}

/* A failure after memory ran out is out_of_memory whatever the program made
 * of the MemoryError; its own error stays in the result. */
static void test_memory_error_turned_into_another(void **s) {
  (void)s;
  wasmbox_request req = {.code =
                             "try:\n    x = bytearray(200 << 20)\nexcept MemoryError:\n"
                             "    raise ValueError('no room for the table')\n",
                         .memory_bytes = 64ull << 20};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OUT_OF_MEMORY);
  assert_string_equal(r->error_type, "ValueError");
  assert_string_equal(r->error_message, "no room for the table");
  wasmbox_result_free(r);
  /* an error with memory to spare stays an error */
  req.code = "raise ValueError('plain')";
  r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_ERROR);
  wasmbox_result_free(r);
}

static void test_timeout_tight_loop(void **s) {
  (void)s;
  wasmbox_request req = {.code = "print('started')\nwhile True:\n    pass\n", .timeout_seconds = 1};
  double t = wb_monotonic_s();
  wasmbox_result *r = run_req(&req);
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
  /* arithmetic only: no allocation, no host call anywhere in the loop */
  wasmbox_request req = {.code = "i = 0\nwhile True:\n    i = (i + 1) & 0xff\n", .timeout_seconds = 0.3};
  double t = wb_monotonic_s();
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_TIMEOUT);
  assert_true(wb_monotonic_s() - t < 0.4);
  wasmbox_result_free(r);
}

static void test_timeout_in_sleep(void **s) {
  (void)s;
  wasmbox_request req = {.code = "import time\ntime.sleep(30)\n", .timeout_seconds = 0.5};
  double t = wb_monotonic_s();
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_TIMEOUT);
  assert_true(wb_monotonic_s() - t < 0.6);
  wasmbox_result_free(r);
}

static void test_deep_recursion(void **s) {
  (void)s;
  /* Python frames: the interpreter's own limit answers */
  wasmbox_result *r = run_py("import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return f(n + 1)\nf(0)\n");
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_string_equal(r->error_type, "RecursionError");
  wasmbox_result_free(r);
  /* recursion through C (repr of deep nesting) exhausts the stack: a crash
   * the host contains and explains */
  r = run_py("import sys\nsys.setrecursionlimit(10**6)\nl = []\nfor i in range(10**5):\n    l = [l]\nrepr(l)\n");
  expect_status(r, WASMBOX_STATUS_CRASHED);
  assert_non_null(strstr(r->error_message, "stack exhausted"));
  assert_true(r->guidance_len >= 1);
  wasmbox_result_free(r);
  expect_output("print('alive')", NULL, "alive\n");
}

static void test_output_flood(void **s) {
  (void)s;
  long before = max_rss_kb();
  wasmbox_result *r = run_py(
      "import sys\nchunk = 'x' * (1 << 20)\nfor i in range(100):\n    sys.stdout.write(chunk)\n"
      "print('done', file=sys.stderr)\n");
  expect_status(r, WASMBOX_STATUS_OK);
  assert_true(r->stdout_truncated);
  assert_int_equal(r->stdout_len, WASMBOX_DEFAULT_MAX_OUTPUT);
  assert_int_equal(r->stdout_total, 100ull << 20);
  assert_false(r->stderr_truncated);
  assert_string_equal(r->stderr_data, "done\n");
  assert_true(r->guidance_len >= 1);
  wasmbox_result_free(r);
  /* the host kept 1 MB, not 100 */
  assert_true(max_rss_kb() - before < 48 * 1024);
}

static void test_output_limit_configurable(void **s) {
  (void)s;
  wasmbox_request req = {.code = "print('0123456789' * 3)", .max_output_bytes = 12};
  wasmbox_result *r = run_req(&req);
  assert_true(r->stdout_truncated);
  assert_int_equal(r->stdout_len, 12);
  assert_string_equal(r->stdout_data, "012345678901");
  assert_int_equal(r->stdout_total, 31);
  wasmbox_result_free(r);
}

static void test_fd_exhaustion(void **s) {
  (void)s;
  wasmbox_result *r = run_py("fs = []\nwhile True:\n    fs.append(open('/app/f%d' % len(fs), 'w'))\n");
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_string_equal(r->error_type, "OSError");
  assert_non_null(strstr(r->error_message, "No file descriptors available")); /* EMFILE */
  wasmbox_result_free(r);
}

#define DEEP_JSON \
  "import json, sys\nsys.setrecursionlimit(10**7)\nd = {}\nfor i in range(10**6):\n    d = {'a': d}\njson.dumps(d)\n"

static void test_stack_exhaustion_in_c_code(void **s) {
  (void)s;
  wasmbox_result *r = run_py(DEEP_JSON);
  expect_status(r, WASMBOX_STATUS_CRASHED);
  assert_non_null(strstr(r->error_message, "stack"));
  wasmbox_result_free(r);
}

static void usage_error(wasmbox_request req, const char *needle) {
  wasmbox_result *r = NULL;
  char err[512];
  assert_int_equal(wasmbox_run(test_wb, &req, &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_null(r);
  if (!strstr(err, needle)) fail_msg("error '%s' lacks '%s'", err, needle);
}

static void test_bad_requests(void **s) {
  (void)s;
  usage_error((wasmbox_request){.code = "1", .language = "cobol"}, "unknown language");
  usage_error((wasmbox_request){.code = "1", .timeout_seconds = -1}, "timeout");
  usage_error((wasmbox_request){.code = "1", .timeout_seconds = 1e9}, "timeout");
  usage_error((wasmbox_request){.code = "1", .memory_bytes = 1ull << 40}, "memory");
  usage_error((wasmbox_request){.code = "1", .memory_bytes = 1 << 20}, "memory limit of 1 MB is below");
  usage_error((wasmbox_request){.code = "1", .workspace = "/nonexistent/dir"}, "workspace");
  usage_error((wasmbox_request){.code = NULL}, "no code");
  const char *env[] = {"NOEQUALS"};
  usage_error((wasmbox_request){.code = "1", .env = env, .env_len = 1}, "NAME=value");
  /* more environment entries than a call may have: said so, not a
   * malformed request at the worker boundary */
  static const char *many[4097];
  for (size_t i = 0; i < 4097; i++) many[i] = "V=1";
  usage_error((wasmbox_request){.code = "1", .env = many, .env_len = 4097}, "at most 4096 environment entries");
  wasmbox_result *r =
      run_req(&(wasmbox_request){.code = "import os; print(len(os.environ))", .env = many, .env_len = 4096});
  expect_status(r, WASMBOX_STATUS_OK);
  wasmbox_result_free(r);
}

typedef struct {
  wasmbox_cancel *token;
  double after;
} canceller;

static void *fire_later(void *arg) {
  canceller *c = arg;
  struct timespec ts = {0, (long)(c->after * 1e9)};
  nanosleep(&ts, NULL);
  wasmbox_cancel_fire(c->token);
  return NULL;
}

static void test_cancel(void **s) {
  (void)s;
  const char *codes[] = {"while True: pass", "import time\ntime.sleep(20)", "x = 0\nwhile True:\n    x = [x]\n"};
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
    wasmbox_cancel *tok = wasmbox_cancel_new();
    canceller c = {tok, 0.2};
    pthread_t t;
    pthread_create(&t, NULL, fire_later, &c);
    wasmbox_request req = {.code = codes[i], .timeout_seconds = 20, .cancel = tok};
    double t0 = wb_monotonic_s();
    wasmbox_result *r = run_req(&req);
    double took = wb_monotonic_s() - t0;
    pthread_join(t, NULL);
    expect_status(r, WASMBOX_STATUS_CANCELLED);
    assert_true(took < 0.5);
    wasmbox_result_free(r);
    /* a fired token stops the next call before it starts */
    r = run_req(&req);
    expect_status(r, WASMBOX_STATUS_CANCELLED);
    wasmbox_result_free(r);
    wasmbox_cancel_free(tok);
  }
  /* a token that never fires changes nothing */
  wasmbox_cancel *tok = wasmbox_cancel_new();
  wasmbox_request req = {.code = "print(2)", .cancel = tok};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  wasmbox_result_free(r);
  wasmbox_cancel_free(tok);
}

typedef struct {
  const char *code;
  double timeout;
  wasmbox_status want;
  const char *out;
  bool ok;
} par_job;

static void *par_run(void *arg) {
  par_job *j = arg;
  wasmbox_request req = {.code = j->code, .timeout_seconds = j->timeout};
  wasmbox_result *r = NULL;
  char err[256];
  if (wasmbox_run(test_wb, &req, &r, err, sizeof err) != WASMBOX_OK) return NULL;
  j->ok = r->status == j->want && (!j->out || !strcmp(r->stdout_data, j->out));
  wasmbox_result_free(r);
  return NULL;
}

static void test_concurrent_calls(void **s) {
  (void)s;
  /* one library, several threads: a timeout or crash in one call does not
   * disturb the others */
  par_job jobs[] = {
      {"while True: pass", 0.5, WASMBOX_STATUS_TIMEOUT, NULL, false},
      {"print(sum(range(10**6)))", 10, WASMBOX_STATUS_OK, "499999500000\n", false},
      {DEEP_JSON, 10, WASMBOX_STATUS_CRASHED, NULL, false},
      {"import json\nprint(json.dumps([1]))", 10, WASMBOX_STATUS_OK, "[1]\n", false},
      {"1/0", 10, WASMBOX_STATUS_ERROR, NULL, false},
      {"import time\ntime.sleep(0.2)\nprint('slept')", 10, WASMBOX_STATUS_OK, "slept\n", false},
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
      cmocka_unit_test(test_memory_bomb_bytearray),
      cmocka_unit_test(test_memory_bomb_list),
      cmocka_unit_test(test_memory_caught_by_program),
      cmocka_unit_test(test_memory_error_turned_into_another),
      cmocka_unit_test(test_timeout_tight_loop),
      cmocka_unit_test(test_timeout_loop_without_calls),
      cmocka_unit_test(test_timeout_in_sleep),
      cmocka_unit_test(test_deep_recursion),
      cmocka_unit_test(test_output_flood),
      cmocka_unit_test(test_output_limit_configurable),
      cmocka_unit_test(test_fd_exhaustion),
      cmocka_unit_test(test_stack_exhaustion_in_c_code),
      cmocka_unit_test(test_bad_requests),
      cmocka_unit_test(test_concurrent_calls),
      cmocka_unit_test(test_cancel),
  };
  return RUN("limits", tests);
}
