/* The engine's reset, byte for byte: after a call that wrote all over its
 * memory (and grew it), an instance put back to a snapshot holds exactly
 * the snapshot's bytes, whether the kernel tracked the written pages (only
 * those are copied back) or the memory was mapped again. And fuel: a budget
 * stops a call exactly, and the SIGILL that signals it is only the guest's
 * in the module's own code. And a guest thread runs its calls itself. */
#include <dirent.h>
#include <pthread.h>

#include "harness.h"
#include "api/sandbox.h"
#include "engine/engine.h"
#include "wasm_rt/guest.h"

static const wb_runtime *py;
static char *ws;

static int setup(void **state) {
  (void)state;
  char err[256];
  py = wb_runtime_find("python");
  ws = make_dir();
  return py && ws && py->prepare(err, sizeof err) && py->base_snapshot() ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  rm_tree(ws);
  free(ws);
  return 0;
}

/* Run code in the instance with a fuel budget (0: none) and a timeout; the
 * outcome in *o. */
static void call_with(wb_instance *in, const wb_snapshot *from, bool fresh, const char *code, uint64_t fuel,
                      uint64_t timeout_ns, wb_outcome *o) {
  char err[256];
  wb_mount mounts[WB_SANDBOX_MOUNTS_MAX];
  const char *args[] = {"python"};
  wb_wasi_config wc = {.args = args,
                       .nargs = 1,
                       .mounts = mounts,
                       .nmounts = wb_sandbox_mounts(py, ws, NULL, 0, mounts),
                       .max_output = 1 << 16,
                       .max_fds = 64};
  wb_wasi *wasi = wb_wasi_new(&wc, err, sizeof err);
  assert_non_null(wasi);
  wb_call c = {.wasi = wasi, .memory_limit = 256u << 20, .timeout_ns = timeout_ns, .fuel = fuel};
  wb_job job = {.from = from, .fresh = fresh, .code = code, .code_len = strlen(code), .name = "<test>"};
  assert_true(wb_instance_call(in, &c, &job, o, err, sizeof err));
  if (o->exit_code) {
    wb_output e = wb_wasi_stderr(wasi);
    fprintf(stderr, "%.*s\n", (int)e.len, e.data);
  }
  wb_wasi_free(wasi);
}

static void call_fuel(wb_instance *in, const wb_snapshot *from, bool fresh, const char *code, uint64_t fuel,
                      wb_outcome *o) {
  call_with(in, from, fresh, code, fuel, 30ull * 1000000000ull, o);
}

/* Run code in the instance; it must succeed. */
static void call(wb_instance *in, const wb_snapshot *from, bool fresh, const char *code) {
  wb_outcome o;
  call_fuel(in, from, fresh, code, 0, &o);
  assert_int_equal(o.trap, 0);
  assert_int_equal(o.exit_code, 0);
  wb_outcome_clear(&o);
}

/* The instance's memory is exactly `snap`'s image. */
static void expect_memory_is(wb_instance *in, const wb_snapshot *snap) {
  wasm_rt_memory_t *m = wb_instance_memory(in);
  assert_int_equal(m->pages, snap->memory.pages);
  static uint8_t chunk[1 << 20];
  size_t bytes = (size_t)snap->memory.pages * 65536;
  for (size_t at = 0; at < bytes; at += sizeof chunk) {
    size_t n = bytes - at < sizeof chunk ? bytes - at : sizeof chunk;
    if (snap->memory.view) memcpy(chunk, snap->memory.view + at, n);
    else assert_int_equal(pread(snap->memory.fd, chunk, n, (off_t)(snap->memory.offset + at)), (ssize_t)n);
    if (memcmp(chunk, m->data + at, n) != 0) fail_msg("memory differs from the snapshot near byte %zu", at);
  }
}

/* A commit's way: take the writes (counted from here at once: nothing is
 * written after) into the overlay `over` and its globals; the pages taken
 * in *pages. */
static ssize_t take_into(wb_instance *in, wb_snapshot *over, uint32_t **pages) {
  wasm_rt_memory_t *m = wb_instance_memory(in);
  ssize_t n = wb_instance_take_written(in, pages);
  assert_true(n > 0);
  assert_true(wb_overlay_put(&over->memory, m->pages, m->data, *pages, (size_t)n));
  wb_instance_save_globals(in, over->globals);
  return n;
}

static const char *scribble =
    "import random\n"
    "junk = [random.random() for _ in range(200000)]\n"
    "blob = bytearray(range(256)) * 40000\n" /* 10 MB: the memory grows */
    "d = {str(i): i for i in range(50000)}\n";

static void reset_is_exact(bool tracked) {
  const wb_snapshot *base = py->base_snapshot();
  char err[256];
  wb_instance *in = wb_instance_new(py, err, sizeof err);
  assert_non_null(in);
  call(in, base, true, "pass");
  assert_true(wb_instance_reset(in, base, err, sizeof err));
  expect_memory_is(in, base);
  uint32_t *pages;
  ssize_t n = wb_instance_written(in, &pages);
  free(pages);
  if (tracked) assert_int_equal(n, 0); /* nothing written since the reset */
  else assert_int_equal(n, -1);
  for (int round = 0; round < 3; round++) {
    call(in, NULL, true, scribble);
    n = wb_instance_written(in, &pages);
    free(pages);
    if (tracked) assert_true(n > 100);
    assert_true(wb_instance_reset(in, base, err, sizeof err));
    expect_memory_is(in, base);
  }
  /* a session's way: save, go on from the saved state, roll back to it */
  call(in, NULL, true, "saved = list(range(1000))");
  wb_snapshot saved;
  assert_true(wb_instance_capture(in, &saved, err, sizeof err));
  assert_true(wb_instance_rebase(in, &saved, err, sizeof err));
  expect_memory_is(in, &saved);
  call(in, NULL, false,
       "saved.append(1)\n"
       "more = bytearray(5 << 20)\n");
  assert_true(wb_instance_reset(in, &saved, err, sizeof err));
  expect_memory_is(in, &saved);
  call(in, NULL, false, "assert len(saved) == 1000 and 'more' not in globals()");
  wb_snapshot_release(&saved);
  wb_instance_free(in);
  /* and as a session keeps its state in memory between calls: an overlay
   * on the base snapshot with the pages written since (without tracking,
   * all of them), which the memory goes back to and starts from */
  in = wb_instance_new(py, err, sizeof err);
  assert_non_null(in);
  call(in, base, true, "kept = bytearray(range(256)) * 20000");
  wasm_rt_memory_t *m = wb_instance_memory(in);
  n = wb_instance_written(in, &pages);
  if (n < 0) {
    n = (ssize_t)m->pages * 16;
    pages = malloc((size_t)n * sizeof *pages);
    for (ssize_t i = 0; i < n; i++) pages[i] = (uint32_t)i;
  }
  wb_snapshot over = {.runtime = py, .globals = malloc(py->globals_size() + 1)};
  assert_true(wb_overlay_new(&over.memory, &base->memory, m->pages));
  assert_true(wb_overlay_put(&over.memory, m->pages, m->data, pages, (size_t)n));
  free(pages);
  wb_instance_save_globals(in, over.globals);
  assert_true(wb_instance_rebase(in, &over, err, sizeof err));
  expect_memory_is(in, &over);
  call(in, NULL, false, "kept[:10] = b'0123456789'\nlater = 1\n");
  assert_true(wb_instance_reset(in, &over, err, sizeof err));
  expect_memory_is(in, &over);
  call(in, NULL, false, "assert kept[:3] == bytes([0, 1, 2]) and 'later' not in globals()");
  /* a commit's way (take_into), then back to the overlay */
  call(in, NULL, false, "kept[10:20] = b'abcdefghij'\n");
  if (tracked) {
    n = take_into(in, &over, &pages);
    /* the pages taken stay writable: counted again, unchanged, by the next
     * look; a write to one of them is not lost (the next take has it) */
    uint32_t *again;
    assert_int_equal(wb_instance_written(in, &again), n);
    assert_memory_equal(again, pages, (size_t)n * sizeof *pages);
    free(again);
    call(in, NULL, false, "kept[10:20] = b'ABCDEFGHIJ'\n");
    free(pages);
    take_into(in, &over, &pages);
    /* and a take now and then protects them all again: nothing is written
     * right after it */
    bool protected = false;
    for (int i = 0; i < 16 && !protected; i++) {
      call(in, NULL, false, "kept[30:32] = b'qq'\n");
      free(pages);
      take_into(in, &over, &pages);
      ssize_t left = wb_instance_written(in, &again);
      free(again);
      assert_true(left >= 0);
      protected = left == 0;
    }
    assert_true(protected);
    call(in, NULL, false, "kept[:2] = b'zz'\nlater = 2\n");
    assert_true(wb_instance_reset(in, &over, err, sizeof err));
    expect_memory_is(in, &over);
    call(in, NULL, false,
         "assert kept[:3] == bytes([0, 1, 2]) and kept[10:13] == b'ABC' and kept[30:32] == b'qq' and "
         "'later' not in globals()");
  } else {
    assert_int_equal(wb_instance_take_written(in, &pages), -1);
  }
  free(pages);
  wb_instance *other = wb_instance_new(py, err, sizeof err); /* a load's way: started from it */
  assert_non_null(other);
  call(other, &over, false, "assert len(kept) == 5120000 and kept[:3] == bytes([0, 1, 2])");
  wb_instance_free(other);
  wb_snapshot_release(&over);
  wb_instance_free(in);
}

static void test_tracked_reset_is_exact(void **s) {
  (void)s;
  reset_is_exact(true);
}

/* A pool's way: recycled after every call, the memory is the snapshot's
 * again each time, whatever the calls wrote: small calls (whose pages stay
 * writable, untracked, for the next), a large one (which protects all
 * again), over more recycles than it takes to protect all again
 * (wasm_rt.c). Pages kept writable count as written; a reset protects
 * them. */
static void test_recycle_is_exact(void **s) {
  (void)s;
  const wb_snapshot *base = py->base_snapshot();
  char err[256];
  wb_instance *in = wb_instance_new(py, err, sizeof err);
  assert_non_null(in);
  call(in, base, true, "pass");
  const char *codes[] = {"x = [i for i in range(100)]", "print(1)", "y = {'a': bytearray(9000)}", scribble,
                         "import json; json.dumps({'k': list(range(50))})"};
  bool kept_writable = false;
  for (int round = 0; round < 24; round++) {
    assert_true(wb_instance_recycle(in, base, err, sizeof err));
    expect_memory_is(in, base);
    uint32_t *pages;
    ssize_t n = wb_instance_written(in, &pages);
    free(pages);
    kept_writable = kept_writable || n > 0;
    call(in, NULL, true, codes[round % 5]);
  }
  assert_true(wb_instance_recycle(in, base, err, sizeof err));
  expect_memory_is(in, base);
  assert_true(kept_writable);
  assert_true(wb_instance_reset(in, base, err, sizeof err));
  uint32_t *pages;
  assert_int_equal(wb_instance_written(in, &pages), 0);
  free(pages);
  wb_instance_free(in);
}

/* Last: tracking stays off in this process afterwards. */
static void test_remapped_reset_is_exact(void **s) {
  (void)s;
  wb_rt_tracking_disable();
  reset_is_exact(false);
}

/* Without a budget (or with the largest, which cannot run out either) a
 * call charges what it runs and is never stopped; with one, it stops at the
 * budget, whether the counter runs out in a charge on the counter itself or
 * on a loop's copy of it (the check's ud2: wasm_rt/guest.c). */
static void test_budget_stops_exactly(void **s) {
  (void)s;
  char err[256];
  wb_instance *in = wb_instance_new(py, err, sizeof err);
  assert_non_null(in);
  const char *work = "x = sorted(str(i) for i in range(3000))";
  const wb_snapshot *base = py->base_snapshot();
  wb_outcome o;
  call_fuel(in, base, true, work, 0, &o);
  assert_int_equal(o.trap, 0);
  uint64_t used = o.fuel_used;
  assert_true(used > 10000);
  wb_outcome_clear(&o);
  /* each from the same state: the base snapshot */
  assert_true(wb_instance_reset(in, base, err, sizeof err));
  call_fuel(in, NULL, true, work, WASMBOX_MAX_FUEL, &o);
  assert_int_equal(o.trap, 0);
  assert_int_equal(o.fuel_used, used);
  wb_outcome_clear(&o);
  assert_true(wb_instance_reset(in, base, err, sizeof err));
  call_fuel(in, NULL, true, work, used, &o); /* exactly enough */
  assert_int_equal(o.trap, 0);
  assert_int_equal(o.fuel_used, used);
  wb_outcome_clear(&o);
  for (uint64_t budget = used - 1; budget > used / 2; budget -= used / 7) {
    assert_true(wb_instance_reset(in, base, err, sizeof err));
    call_fuel(in, NULL, true, work, budget, &o);
    assert_int_equal(o.trap, WB_TRAP_FUEL);
    assert_int_equal(o.fuel_used, budget);
    wb_outcome_clear(&o);
  }
  wb_instance_free(in);
}

static sigjmp_buf host_jump;
static volatile sig_atomic_t host_saw;
static void host_on_ill(int sig) {
  host_saw = sig;
  siglongjmp(host_jump, 1);
}

/* A ud2 anywhere else than the module's code is no fuel check: after guest
 * calls have claimed SIGILL, the host program's own handler still gets it. */
static void test_foreign_sigill_goes_to_the_host(void **s) {
  (void)s;
  struct sigaction sa = {.sa_handler = host_on_ill}, old;
  sigemptyset(&sa.sa_mask);
  assert_int_equal(sigaction(SIGILL, &sa, &old), 0);
  char err[256];
  wb_instance *in = wb_instance_new(py, err, sizeof err);
  assert_non_null(in);
  call(in, py->base_snapshot(), true, "x = 1");
  wb_outcome o;
  assert_true(wb_instance_reset(in, py->base_snapshot(), err, sizeof err));
  call_fuel(in, NULL, true, "while True: pass", 100000, &o); /* the guest's SIGILL: its own */
  assert_int_equal(o.trap, WB_TRAP_FUEL);
  wb_outcome_clear(&o);
  host_saw = 0;
  if (!sigsetjmp(host_jump, 1)) __builtin_trap();
  assert_int_equal(host_saw, SIGILL);
  wb_instance_free(in);
  sigaction(SIGILL, &old, NULL);
}

/* Reached only if the guest's fault went to the host program's handler. */
static void host_on_segv(int sig) {
  (void)sig;
  static const char m[] = "the guest's SIGSEGV reached the host program's handler\n";
  if (write(2, m, sizeof m - 1) < 0) _exit(98);
  _exit(99);
}

/* A host program that puts its own SIGSEGV handler in between calls (test
 * frameworks do, per test): the next call claims the signal back, so an
 * exhausted stack is still the call's trap, not the program's. (A worker
 * runs no such code, says so and skips the check: wb_guest_handlers_settled.) */
static void test_handlers_claimed_back(void **s) {
  (void)s;
  char err[256];
  wb_instance *in = wb_instance_new(py, err, sizeof err);
  assert_non_null(in);
  call(in, py->base_snapshot(), true, "x = 1");
  struct sigaction sa = {.sa_handler = host_on_segv}, old;
  sigemptyset(&sa.sa_mask);
  assert_int_equal(sigaction(SIGSEGV, &sa, &old), 0);
  wb_outcome o;
  assert_true(wb_instance_reset(in, py->base_snapshot(), err, sizeof err));
  call_with(in, NULL, false,
            "import sys\nsys.setrecursionlimit(10**6)\nl = []\nfor i in range(10**5):\n    l = [l]\nrepr(l)\n", 0,
            30ull * 1000000000, &o);
  assert_int_equal(o.trap, WASM_RT_TRAP_EXHAUSTION);
  wb_outcome_clear(&o);
  struct sigaction now;
  assert_int_equal(sigaction(SIGSEGV, NULL, &now), 0);
  assert_true(now.sa_handler != host_on_segv); /* ours again */
  wb_instance_free(in);
  sigaction(SIGSEGV, &old, NULL);
}

static int threads_now(void) {
  DIR *d = opendir("/proc/self/task");
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
  if (d) closedir(d);
  return n;
}

/* Run code with a timeout; the outcome's trap (the instance is then put
 * back to the base snapshot). */
static int trap_of(wb_instance *in, const char *code, uint64_t timeout_ns) {
  char err[256];
  wb_outcome o;
  call_with(in, NULL, false, code, 0, timeout_ns, &o);
  int trap = o.trap;
  wb_outcome_clear(&o);
  assert_true(wb_instance_reset(in, py->base_snapshot(), err, sizeof err));
  return trap;
}

/* The calls of a thread from wb_guest_thread_start: run in place, so no
 * thread is started for them; a fault, a timeout and an exhausted stack in
 * them still come back as traps, and the thread goes on after each. */
static void *calls_in_place(void *arg) {
  int *threads = arg;
  char err[256];
  wb_instance *in = wb_instance_new(py, err, sizeof err);
  assert_non_null(in);
  call(in, py->base_snapshot(), true, "x = 1");
  assert_int_equal(trap_of(in, "while True: pass", 50ull * 1000000), WB_TRAP_TIMEOUT);
  assert_int_equal(trap_of(in,
                           "import sys\nsys.setrecursionlimit(10**6)\nl = []\nfor i in range(10**5):\n    l = [l]\n"
                           "repr(l)\n",
                           30ull * 1000000000),
                   WASM_RT_TRAP_EXHAUSTION);
  assert_int_equal(trap_of(in, "pass", 30ull * 1000000000), 0);
  *threads = threads_now();
  wb_instance_free(in);
  return NULL;
}

static void test_guest_thread_runs_calls_in_place(void **s) {
  (void)s;
  int before = threads_now(), during = 0;
  pthread_t t;
  char err[256];
  assert_true(wb_guest_thread_start(&t, calls_in_place, &during, err, sizeof err));
  assert_int_equal(pthread_join(t, NULL), 0);
  assert_int_equal(during, before + 1); /* this one and the guest thread alone */
  /* from any other thread, the instance's own thread runs them */
  wb_instance *in = wb_instance_new(py, err, sizeof err);
  assert_non_null(in);
  call(in, py->base_snapshot(), true, "x = 1");
  assert_int_equal(threads_now(), before + 1);
  wb_instance_free(in);
  assert_int_equal(threads_now(), before);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_budget_stops_exactly),
      cmocka_unit_test(test_foreign_sigill_goes_to_the_host),
      cmocka_unit_test(test_handlers_claimed_back),
      cmocka_unit_test(test_tracked_reset_is_exact),
      cmocka_unit_test(test_recycle_is_exact),
      cmocka_unit_test(test_remapped_reset_is_exact),
      cmocka_unit_test(test_guest_thread_runs_calls_in_place),
  };
  return cmocka_run_group_tests_name("engine", tests, setup, teardown);
}
