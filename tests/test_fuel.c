/* Fuel, in Python and JavaScript: the same code uses the same fuel on every
 * run (pooled or new instances, one thread or several), down to the unit: a
 * budget of exactly what a program uses lets it finish, one unit less stops
 * it with out_of_fuel; endless loops stop at their budget; programs within
 * their budget are unaffected; crashes and timeouts report the fuel used up
 * to them; session calls that run out are rolled back. */
#include <pthread.h>
#include <time.h>

#include "harness.h"
#include "util/os.h"

#define RUNS 10

typedef struct {
  const char *language, *work, *work_out, *spin, *spin_out;
} lang;

static const lang python = {
    "python",
    "import json\n"
    "d = {}\n"
    "for i in range(2000):\n"
    "    d['k%d' % i] = [i, str(i) * 3]\n"
    "s = sorted(d.items(), key=lambda kv: kv[1][1], reverse=True)\n"
    "print(len(json.dumps(s)), sum(len(v[1]) for k, v in s[:100]))\n",
    "64450 867\n",
    "print('started')\nwhile True:\n    pass\n",
    "started\n",
};

static const lang javascript = {
    "javascript",
    "const d = {};\n"
    "for (let i = 0; i < 2000; i++) d['k' + i] = [i, String(i).repeat(3)];\n"
    "const s = Object.entries(d).sort((a, b) => (a[1][1] < b[1][1] ? 1 : a[1][1] > b[1][1] ? -1 : 0));\n"
    "console.log(JSON.stringify(s).length, s.slice(0, 100).reduce((n, e) => n + e[1][1].length, 0));\n",
    "58451 867\n",
    "console.log('started');\nfor (;;) {}\n",
    "started\n",
};

static wasmbox_result *run_with(wasmbox *wb, const lang *l, const char *code, uint64_t fuel) {
  wasmbox_request req = {.language = l->language, .code = code, .fuel = fuel};
  wasmbox_result *r = NULL;
  char err[512];
  int rc = wasmbox_run(wb, &req, &r, err, sizeof err);
  if (rc != WASMBOX_OK) fail_msg("wasmbox_run: %s", err);
  return r;
}

/* Run l->work; it must finish with its output. Returns fuel_used. */
static uint64_t work_fuel(wasmbox *wb, const lang *l, uint64_t budget) {
  wasmbox_result *r = run_with(wb, l, l->work, budget);
  expect_status(r, WASMBOX_STATUS_OK);
  if (strcmp(r->stdout_data, l->work_out)) dump(r);
  assert_string_equal(r->stdout_data, l->work_out);
  uint64_t used = r->fuel_used;
  wasmbox_result_free(r);
  return used;
}

static void deterministic(const lang *l) {
  uint64_t first = work_fuel(test_wb, l, 0);
  assert_true(first > 100000); /* it did some work */
  for (int i = 1; i < RUNS; i++) {
    uint64_t used = work_fuel(test_wb, l, 0);
    if (used != first)
      fail_msg("%s run %d used %llu fuel, run 1 %llu", l->language, i + 1, (unsigned long long)used,
               (unsigned long long)first);
  }
  /* a new library: a new instance, not one from the pool */
  char err[256];
  wasmbox *other = wasmbox_new(err, sizeof err);
  assert_non_null(other);
  assert_int_equal(work_fuel(other, l, 0), first);
  wasmbox_free(other);
  /* the budget does not change what the code uses */
  assert_int_equal(work_fuel(test_wb, l, first * 3), first);
}

static void test_deterministic_python(void **s) {
  (void)s;
  deterministic(&python);
}

static void test_deterministic_javascript(void **s) {
  (void)s;
  deterministic(&javascript);
}

/* The exact amount is enough; one unit less is not, and stops the code at
 * the same point every time. */
static void exact_budget(const lang *l) {
  uint64_t used = work_fuel(test_wb, l, 0);
  assert_int_equal(work_fuel(test_wb, l, used), used);
  for (int i = 0; i < 2; i++) {
    wasmbox_result *r = run_with(test_wb, l, l->work, used - 1);
    expect_status(r, WASMBOX_STATUS_OUT_OF_FUEL);
    assert_int_equal(r->fuel_used, used - 1);
    wasmbox_result_free(r);
  }
}

static void test_exact_budget_python(void **s) {
  (void)s;
  exact_budget(&python);
}

static void test_exact_budget_javascript(void **s) {
  (void)s;
  exact_budget(&javascript);
}

/* An endless loop with a small budget ends out_of_fuel, long before the
 * timeout, keeping its output; the host is fine afterwards. */
static void endless_loop(const lang *l) {
  const uint64_t budget = 50ull * 1000 * 1000;
  double t = wb_monotonic_s();
  wasmbox_result *r = run_with(test_wb, l, l->spin, budget);
  expect_status(r, WASMBOX_STATUS_OUT_OF_FUEL);
  assert_true(wb_monotonic_s() - t < 5);
  assert_int_equal(r->fuel_used, budget);
  assert_int_equal(r->exit_code, 1);
  assert_string_equal(r->stdout_data, l->spin_out);
  assert_string_equal(r->error_type, "OutOfFuel");
  assert_non_null(strstr(r->error_message, "50000000"));
  assert_true(r->guidance_len >= 1);
  assert_non_null(strstr(r->guidance[0], "--fuel"));
  wasmbox_result_free(r);
  work_fuel(test_wb, l, 0);
}

static void test_endless_loop_python(void **s) {
  (void)s;
  endless_loop(&python);
}

static void test_endless_loop_javascript(void **s) {
  (void)s;
  endless_loop(&javascript);
  /* and in a function called from the event loop */
  wasmbox_result *r = run_with(test_wb, &javascript, "setTimeout(() => { for (;;) {} }, 0);", 1000000);
  expect_status(r, WASMBOX_STATUS_OUT_OF_FUEL);
  wasmbox_result_free(r);
}

/* More work, more fuel. */
static void test_fuel_follows_work(void **s) {
  (void)s;
  wasmbox_result *a = run_py("x = 0\nfor i in range(10000):\n    x += i\n");
  wasmbox_result *b = run_py("x = 0\nfor i in range(100000):\n    x += i\n");
  expect_status(a, WASMBOX_STATUS_OK);
  expect_status(b, WASMBOX_STATUS_OK);
  assert_true(b->fuel_used > a->fuel_used * 5);
  wasmbox_result_free(a);
  wasmbox_result_free(b);
}

/* A crash and a timeout unwind from a signal; the fuel they report is the
 * counter as the signal found it (in a register while guest code runs), so
 * a crash reports the same fuel on every run, beyond all the work before
 * it, and a timeout the fuel of the time it ran. */
#define NEST "import sys\nsys.setrecursionlimit(10**6)\nl = []\nfor i in range(10**5):\n    l = [l]\n"

static void test_fuel_at_signals(void **s) {
  (void)s;
  wasmbox_result *before = run_py(NEST);
  expect_status(before, WASMBOX_STATUS_OK);
  uint64_t first = 0;
  for (int i = 0; i < 3; i++) {
    wasmbox_result *r = run_py(NEST "repr(l)\n");
    expect_status(r, WASMBOX_STATUS_CRASHED);
    if (i == 0) first = r->fuel_used;
    assert_int_equal(r->fuel_used, first);
    wasmbox_result_free(r);
  }
  assert_true(first > before->fuel_used);
  wasmbox_result_free(before);
  const lang *langs[] = {&python, &javascript};
  for (int i = 0; i < 2; i++) {
    wasmbox_request req = {.language = langs[i]->language, .code = langs[i]->spin, .timeout_seconds = 0.3};
    wasmbox_result *r = NULL;
    char err[256];
    assert_int_equal(wasmbox_run(test_wb, &req, &r, err, sizeof err), WASMBOX_OK);
    expect_status(r, WASMBOX_STATUS_TIMEOUT);
    /* the interpreters run 10^10-10^11 units a second */
    if (r->fuel_used < 100000000)
      fail_msg("%s: 0.3 s of a loop used only %llu fuel", langs[i]->language, (unsigned long long)r->fuel_used);
    wasmbox_result_free(r);
  }
}

typedef struct {
  const lang *l;
  uint64_t used;
} par_job;

static void *par_run(void *arg) {
  par_job *j = arg;
  wasmbox_request req = {.language = j->l->language, .code = j->l->work};
  wasmbox_result *r = NULL;
  char err[256];
  if (wasmbox_run(test_wb, &req, &r, err, sizeof err) == WASMBOX_OK && r->status == WASMBOX_STATUS_OK)
    j->used = r->fuel_used;
  wasmbox_result_free(r);
  return NULL;
}

/* Calls running at once on several instances count apart. */
static void test_concurrent_calls(void **s) {
  (void)s;
  uint64_t py = work_fuel(test_wb, &python, 0), js = work_fuel(test_wb, &javascript, 0);
  par_job jobs[6];
  pthread_t t[6];
  for (int i = 0; i < 6; i++) {
    jobs[i] = (par_job){i % 2 ? &javascript : &python, 0};
    pthread_create(&t[i], NULL, par_run, &jobs[i]);
  }
  for (int i = 0; i < 6; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < 6; i++) assert_int_equal(jobs[i].used, i % 2 ? js : py);
}

static void test_bad_requests(void **s) {
  (void)s;
  wasmbox_request req = {.code = "1", .fuel = WASMBOX_MAX_FUEL + 1};
  wasmbox_result *r = NULL;
  char err[512];
  assert_int_equal(wasmbox_run(test_wb, &req, &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_null(r);
  assert_non_null(strstr(err, "fuel"));
  req.fuel = WASMBOX_MAX_FUEL;
  r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  wasmbox_result_free(r);
}

/* A session call that runs out of fuel leaves no trace; the next call has
 * its own budget. */
static void session_rollback(const lang *l, const char *set, const char *damage, const char *check, const char *want) {
  char *home = make_dir();
  char err[512], id[WASMBOX_ID_MAX];
  wasmbox_options o = {.home = home};
  wasmbox *wb = wasmbox_open(&o, err, sizeof err);
  assert_non_null(wb);
  wasmbox_session_options so = {.language = l->language};
  assert_int_equal(wasmbox_session_create(wb, &so, id, err, sizeof err), WASMBOX_OK);
  wasmbox_request req = {.code = set, .session_id = id};
  wasmbox_result *r = NULL;
  assert_int_equal(wasmbox_run(wb, &req, &r, err, sizeof err), WASMBOX_OK);
  expect_status(r, WASMBOX_STATUS_OK);
  wasmbox_result_free(r);
  req = (wasmbox_request){.code = damage, .session_id = id, .fuel = 20ull * 1000 * 1000};
  assert_int_equal(wasmbox_run(wb, &req, &r, err, sizeof err), WASMBOX_OK);
  expect_status(r, WASMBOX_STATUS_OUT_OF_FUEL);
  assert_true(r->session_rolled_back);
  wasmbox_result_free(r);
  req = (wasmbox_request){.code = check, .session_id = id};
  assert_int_equal(wasmbox_run(wb, &req, &r, err, sizeof err), WASMBOX_OK);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, want);
  assert_true(r->fuel_used > 0);
  wasmbox_result_free(r);
  wasmbox_free(wb);
  rm_tree(home);
  free(home);
}

static void test_session_rollback_python(void **s) {
  (void)s;
  session_rollback(&python, "x = 1\nopen('f.txt', 'w').write('v1')\n",
                   "x = 2\nopen('f.txt', 'w').write('v2')\nwhile True:\n    x += 1\n", "print(x, open('f.txt').read())",
                   "1 v1\n");
}

static void test_session_rollback_javascript(void **s) {
  (void)s;
  session_rollback(&javascript, "globalThis.x = 1; writeText('f.txt', 'v1');",
                   "x = 2; writeText('f.txt', 'v2'); for (;;) x++;", "console.log(x, readText('f.txt'))", "1 v1\n");
}

/* fuel_analysis in a budgeted call's JSON: how much of the budget the work
 * used, a status, and a suggested budget once it comes close or runs out */
static void analysis_is(uint64_t budget, const char *want) {
  wasmbox_result *r = run_with(test_wb, &python, python.work, budget);
  char *json = wasmbox_result_json(r);
  assert_non_null(json);
  const char *a = strstr(json, "\"fuel_analysis\":");
  if (!want) {
    assert_null(a);
  } else {
    if (!a || strncmp(a, want, strlen(want))) fail_msg("budget %llu: %s", (unsigned long long)budget, json);
  }
  free(json);
  wasmbox_result_free(r);
}

static void test_fuel_analysis(void **s) {
  (void)s;
  uint64_t used = work_fuel(test_wb, &python, 0);
  char want[512];
  analysis_is(0, NULL);
  snprintf(want, sizeof want,
           "\"fuel_analysis\":{\"consumed\":%llu,\"budget\":%llu,\"utilization_percent\":10,\"status\":\"efficient\","
           "\"suggested_budget\":null,\"recommendation\":null}",
           (unsigned long long)used, (unsigned long long)used * 10);
  analysis_is(used * 10, want);
  snprintf(want, sizeof want,
           "\"fuel_analysis\":{\"consumed\":%llu,\"budget\":%llu,\"utilization_percent\":", (unsigned long long)used,
           (unsigned long long)(used * 5 / 4));
  analysis_is(used * 5 / 4, want); /* 80 %: warning */
  wasmbox_result *r = run_with(test_wb, &python, python.work, used * 5 / 4);
  char *json = wasmbox_result_json(r);
  char tail[256];
  snprintf(tail, sizeof tail, "\"status\":\"warning\",\"suggested_budget\":%llu,",
           (unsigned long long)(used + used / 2));
  if (!strstr(json, tail)) fail_msg("%s", json);
  free(json);
  wasmbox_result_free(r);
  snprintf(want, sizeof want,
           "\"fuel_analysis\":{\"consumed\":%llu,\"budget\":%llu,\"utilization_percent\":100,\"status\":\"exhausted\","
           "\"suggested_budget\":%llu,\"recommendation\":\"the code used its whole budget",
           (unsigned long long)(used / 2), (unsigned long long)(used / 2), (unsigned long long)(used / 2 * 2));
  analysis_is(used / 2, want);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_deterministic_python),
      cmocka_unit_test(test_deterministic_javascript),
      cmocka_unit_test(test_fuel_analysis),
      cmocka_unit_test(test_exact_budget_python),
      cmocka_unit_test(test_exact_budget_javascript),
      cmocka_unit_test(test_endless_loop_python),
      cmocka_unit_test(test_endless_loop_javascript),
      cmocka_unit_test(test_fuel_follows_work),
      cmocka_unit_test(test_fuel_at_signals),
      cmocka_unit_test(test_concurrent_calls),
      cmocka_unit_test(test_bad_requests),
      cmocka_unit_test(test_session_rollback_python),
      cmocka_unit_test(test_session_rollback_javascript),
  };
  return RUN("fuel", tests);
}
