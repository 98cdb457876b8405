/* The host of tests/cxx.sh: runs the C++ guest (tests/cxx/guest.cpp) as
 * runtimes/native.sh translated it, on our wasm-rt (src/wasm_rt), as the
 * engine does: a guest frame, the fuel counter set before the call and
 * read after it.
 *
 * usage: host SCENARIO [FUEL]: prints "result N, fuel used U" or
 * "trap WHAT, fuel used U" (WHAT: out of fuel for a metering trap, else
 * wasm_rt_strerror's). host threads: four threads, each with its own
 * instance, throw and catch at once; prints "threads: N wrong".
 * Its WASI is what the guest imports, writing nowhere. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxxtest.h"
#include "wasm_rt/guest.h"
#include "wasm_rt/wasm_rt_ext.h"

extern char Z_cxxtest_wb_code_start[], Z_cxxtest_wb_code_end[];
extern const int Z_cxxtest_wb_fuel_in_register;

/* the guest's stdio (libc++abi's abort messages): accepted, dropped */
u32 Z_wasi_snapshot_preview1Z_fd_close(struct Z_wasi_snapshot_preview1_instance_t *w, u32 fd) {
  (void)w, (void)fd;
  return 0;
}

u32 Z_wasi_snapshot_preview1Z_fd_seek(struct Z_wasi_snapshot_preview1_instance_t *w, u32 fd, u64 off, u32 whence,
                                      u32 out) {
  (void)w, (void)fd, (void)off, (void)whence, (void)out;
  return 70; /* ESPIPE */
}

u32 Z_wasi_snapshot_preview1Z_fd_write(struct Z_wasi_snapshot_preview1_instance_t *w, u32 fd, u32 iovs, u32 n,
                                       u32 out) {
  (void)w, (void)fd, (void)iovs, (void)n, (void)out;
  return 8; /* EBADF */
}

/* Call the export `scenario` of `inst` (or handler_entered when which < 0)
 * with a budget; returns the trap (0: none), its result in *result. */
static int call(Z_cxxtest_instance_t *inst, int which, int64_t limit, u32 *result, int64_t *used) {
  const volatile int64_t budget = limit; /* read again after a trap */
  wb_guest_frame frame;
  wb_guest_install_handlers();
  wb_guest_begin(&frame);
  frame.mem_base = inst->w2c_memory.data;
  frame.mem_reserved = WB_MEMORY_RESERVATION;
  frame.code_lo = (uintptr_t)Z_cxxtest_wb_code_start;
  frame.code_hi = (uintptr_t)Z_cxxtest_wb_code_end;
  int64_t *fuel = (int64_t *)Z_cxxtestZ_wasmbox_fuel(inst);
  *fuel = budget;
  if (Z_cxxtest_wb_fuel_in_register) frame.fuel = fuel;
  int trap = sigsetjmp(frame.jmp, 1);
  if (trap == 0) {
    frame.in_guest = 1;
    *result = which < 0 ? Z_cxxtestZ_handler_entered(inst) : Z_cxxtestZ_scenario(inst, (u32)which);
  }
  frame.in_guest = 0;
  wb_guest_end();
  if (*fuel < 0 && trap == WASM_RT_TRAP_UNREACHABLE) trap = WB_TRAP_FUEL;
  *used = *fuel < 0 ? budget : budget - *fuel;
  return trap;
}

/* A new instance, its static constructors run. */
static int start(Z_cxxtest_instance_t *inst) {
  u32 r;
  int64_t used;
  Z_cxxtest_instantiate(inst, NULL);
  if (call(inst, -1, INT64_MAX, &r, &used) != 0) return -1; /* reads a static: the memory works */
  Z_cxxtestZ__initialize(inst);
  return 0;
}

static pthread_barrier_t together;

/* A thread: its own instance, scenarios 0 and 2 in turn, once all threads
 * have theirs; the wrong results. */
static void *worker(void *arg) {
  (void)arg;
  Z_cxxtest_instance_t inst;
  intptr_t wrong = start(&inst) != 0;
  pthread_barrier_wait(&together);
  for (int i = 0; i < 30000; i++) {
    u32 r;
    int64_t used;
    int which = i % 2 ? 2 : 0;
    if (call(&inst, which, INT64_MAX, &r, &used) != 0 || r != (which ? 314u : 107u)) wrong++;
  }
  Z_cxxtest_free(&inst);
  return (void *)wrong;
}

static int threads(void) {
  pthread_t t[4];
  intptr_t wrong = 0;
  pthread_barrier_init(&together, NULL, 4);
  for (int i = 0; i < 4; i++)
    if (pthread_create(&t[i], NULL, worker, NULL) != 0) return 3;
  for (int i = 0; i < 4; i++) {
    void *w;
    pthread_join(t[i], &w);
    wrong += (intptr_t)w;
  }
  printf("threads: %ld wrong\n", (long)wrong);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  wasm_rt_init();
  Z_cxxtest_init_module();
  if (!strcmp(argv[1], "threads")) return threads();
  int which = atoi(argv[1]);
  int64_t budget = argc > 2 ? strtoll(argv[2], NULL, 10) : INT64_MAX;
  static Z_cxxtest_instance_t inst;
  if (start(&inst) != 0) return 3;
  u32 r = 0;
  int64_t used;
  int trap = call(&inst, which, budget, &r, &used);
  if (trap) printf("trap %s, fuel used %lld\n", wasm_rt_strerror((wasm_rt_trap_t)trap), (long long)used);
  else printf("result %d, fuel used %lld\n", (int)r, (long long)used);
  /* a second call after the first, whatever it did: the instance still works */
  int again = call(&inst, -1, INT64_MAX, &r, &used);
  printf("then handler_entered: %s %d\n", again ? "trap" : "result", (int)r);
  return 0;
}
