/* warm: latency of calls through the library in one long-lived process.
 *
 *   warm CALLS     prints one JSON object:
 *     stateless_p50_ms/p99_ms   print(1), a fresh copy of the base snapshot
 *     packages_p50_ms/p99_ms    the same with `import openpyxl, jinja2, yaml,
 *                               dateutil` (built-in packages)
 *     js_p50_ms/p99_ms          console.log(1), JavaScript's base snapshot
 *     js_lodash_p50_ms/p99_ms   the same with require('lodash') (preloaded)
 *     session_p50_ms/p99_ms     a small change in a session with a 50 MB heap,
 *                               including the save to disk
 *     idle_session_bytes        disk used by a session holding a few variables
 * State goes to a temporary $WASMBOX_HOME that is removed afterwards. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wasmbox.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  int i = (int)(p * n);
  return v[i < n ? i : n - 1];
}

static void run_or_die(wasmbox *wb, wasmbox_request *req) {
  wasmbox_result *r;
  char err[512];
  if (wasmbox_run(wb, req, &r, err, sizeof err) != WASMBOX_OK) {
    fprintf(stderr, "warm: %s\n", err);
    exit(1);
  }
  if (r->status != WASMBOX_STATUS_OK) {
    fprintf(stderr, "warm: %s: %s\n", wasmbox_status_name(r->status), r->stderr_data);
    exit(1);
  }
  wasmbox_result_free(r);
}

/* Times `calls` runs of req after `warm` untimed ones: p50 and p99 in ms. */
static void time_calls(wasmbox *wb, wasmbox_request *req, int warm, int calls, double *t, double *p50, double *p99) {
  for (int i = 0; i < warm; i++) run_or_die(wb, req);
  for (int i = 0; i < calls; i++) {
    double s = now_ms();
    run_or_die(wb, req);
    t[i] = now_ms() - s;
  }
  *p50 = pct(t, calls, 0.50), *p99 = pct(t, calls, 0.99);
}

int main(int argc, char **argv) {
  int calls = argc > 1 ? atoi(argv[1]) : 1000;
  char home[] = "/tmp/wasmbox-bench-XXXXXX", err[512];
  if (!mkdtemp(home)) return 1;
  wasmbox_options o = {.home = home};
  wasmbox *wb = wasmbox_open(&o, err, sizeof err);
  double *t = malloc(sizeof *t * (size_t)calls);

  double st50, st99, pk50, pk99, js[2][2];
  wasmbox_request req = {.code = "print(1)"};
  time_calls(wb, &req, 20, calls, t, &st50, &st99); /* the 20 warm the pool */
  const char *js_code[2] = {"console.log(1)", "const _ = require('lodash'); console.log(_.VERSION)"};
  for (int k = 0; k < 2; k++) {
    wasmbox_request jr = {.code = js_code[k], .language = "javascript"};
    time_calls(wb, &jr, 20, calls, t, &js[k][0], &js[k][1]);
  }
  wasmbox_request pk = {.code = "import openpyxl, jinja2, yaml, dateutil\nprint(1)"};
  time_calls(wb, &pk, 20, calls, t, &pk50, &pk99);

  char id[WASMBOX_ID_MAX];
  if (wasmbox_session_create(wb, NULL, id, err, sizeof err)) return 1;
  wasmbox_request big = {.session_id = id, .code = "heap = [bytes([i % 251]) * 1000 for i in range(50000)]\nn = 0\n"};
  run_or_die(wb, &big);
  wasmbox_request step = {.session_id = id, .code = "n += 1\nheap[n % 50000] = b'x' * 1000\n"};
  int scalls = calls / 4 > 50 ? calls / 4 : 50;
  double se50, se99;
  time_calls(wb, &step, 0, scalls, t, &se50, &se99);

  if (wasmbox_session_create(wb, NULL, id, err, sizeof err)) return 1;
  wasmbox_request small = {.session_id = id, .code = "a = 1\nb = 'text'\nc = [1, 2, 3]\nd = {'k': 'v'}\n"};
  run_or_die(wb, &small);
  wasmbox_session_info info;
  if (wasmbox_session_info_get(wb, id, &info, err, sizeof err)) return 1;

  printf(
      "{\"calls\": %d, \"stateless_p50_ms\": %.3f, \"stateless_p99_ms\": %.3f, \"packages_p50_ms\": %.3f, "
      "\"packages_p99_ms\": %.3f, \"session_calls\": %d, \"session_p50_ms\": %.3f, \"session_p99_ms\": %.3f, "
      "\"idle_session_bytes\": %llu, \"js_p50_ms\": %.3f, \"js_p99_ms\": %.3f, \"js_lodash_p50_ms\": %.3f, "
      "\"js_lodash_p99_ms\": %.3f}\n",
      calls, st50, st99, pk50, pk99, scalls, se50, se99, (unsigned long long)info.disk_bytes, js[0][0], js[0][1],
      js[1][0], js[1][1]);
  wasmbox_free(wb);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", home);
  if (system(cmd)) return 1;
  free(t);
  return 0;
}
