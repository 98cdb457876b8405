/* libFuzzer: tools/wasm_fuel, the metering pass, on arbitrary valid modules.
 * binaryen's `wasm-opt --translate-to-fuzz` turns the input's bytes into a
 * valid module (with the features our guests use); the pass runs in this
 * process (its main and exit renamed by the build: a refusal returns here).
 * Half the inputs also merge data segments (--merge-data).
 * Properties: the pass either refuses or writes a module that wabt's
 * wasm-validate accepts and whose exports, run by wabt's wasm-interp with
 * every import logged, print exactly what the original's print (with a
 * budget that cannot run out, metering changes no result). Leak checking
 * is off (fuzz_wasm_fuel.options): a refusal leaves the pass's memory
 * behind, as its exit would. */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/os.h"

int wasm_fuel_main(int argc, char **argv);
_Noreturn void wasm_fuel_exit(int status);

static char dir[64], seed[96], mod[96], out[96];
static jmp_buf refused;

_Noreturn void wasm_fuel_exit(int status) { longjmp(refused, status ? status : 1); }

static void check(int ok, const char *what) {
  if (ok) return;
  fprintf(stderr, "fuzz_wasm_fuel: %s (the module is %s, metered %s)\n", what, mod, out);
  abort();
}

static void cleanup(void) { wb_remove_tree(dir); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  snprintf(dir, sizeof dir, "/tmp/wasmbox-fuzz-fuel-%d", (int)getpid());
  snprintf(seed, sizeof seed, "%s/seed.bin", dir);
  snprintf(mod, sizeof mod, "%s/module.wasm", dir);
  snprintf(out, sizeof out, "%s/metered.wasm", dir);
  wb_remove_tree(dir);
  if (!wb_mkdirs(dir)) {
    perror(dir);
    exit(1);
  }
  atexit(cleanup);
  return 0;
}

/* Run a shell command; its output (stdout and stderr, at most cap - 1
 * bytes) into buf. Returns its exit status, -1 when it could not run.
 * (libFuzzer's -timeout alarm, SIGALRM, interrupts the reads: they go on
 * after EINTR, else a cut output would read as a different result.) */
static int run(const char *cmd, char *buf, size_t cap) {
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  size_t n = 0, k;
  char tmp[4096];
  for (;;) {
    k = fread(tmp, 1, sizeof tmp, p);
    size_t room = cap - 1 - n < k ? cap - 1 - n : k;
    memcpy(buf + n, tmp, room);
    n += room;
    if (k > 0) continue;
    if (!ferror(p) || errno != EINTR) break;
    clearerr(p);
  }
  buf[n] = 0;
  int st = pclose(p);
  return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* What the exports print, run by the reference interpreter; NULL when it
 * did not finish in time (a module may loop long before its hang limit). */
static char *exports_output(const char *path) {
  static char buf[2][1 << 16];
  static int which;
  char *b = buf[which ^= 1], cmd[256];
  snprintf(cmd, sizeof cmd, "timeout 10 wasm-interp --dummy-import-func --run-all-exports %s 2>&1", path);
  return run(cmd, b, sizeof buf[0]) == 124 ? NULL : b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 8 || size > 16384) return 0;
  FILE *f = fopen(seed, "wb");
  check(f && fwrite(data, 1, size, f) == size && fclose(f) == 0, "cannot write the seed");
  char cmd[512], msg[4096];
  snprintf(cmd, sizeof cmd,
           "wasm-opt %s --translate-to-fuzz --enable-bulk-memory --enable-sign-ext --enable-mutable-globals "
           "--enable-nontrapping-float-to-int --enable-multivalue -o %s 2>&1",
           seed, mod);
  if (run(cmd, msg, sizeof msg) != 0) return 0; /* binaryen's to make, not ours to test */
  /* half the inputs also merge data segments, as runtimes/native.sh asks,
     at a gap the input chooses */
  char gap[8];
  snprintf(gap, sizeof gap, "%u", data[1]);
  char *plain[] = {"wasm_fuel", mod, out, NULL}, *merging[] = {"wasm_fuel", "--merge-data", gap, mod, out, NULL};
  bool merge = data[0] & 1;
  if (setjmp(refused)) return 0; /* refused, with its reason on stderr: allowed */
  check(wasm_fuel_main(merge ? 5 : 3, merge ? merging : plain) == 0, "the pass returned failure without refusing");
  snprintf(cmd, sizeof cmd, "wasm-validate %s 2>&1", out);
  if (run(cmd, msg, sizeof msg) != 0) {
    fprintf(stderr, "%s", msg);
    check(0, "the metered module does not validate");
  }
  const char *want = exports_output(mod), *got = want ? exports_output(out) : NULL;
  if (!want || !got) return 0;
  if (strcmp(want, got)) fprintf(stderr, "--- original\n%s--- metered\n%s", want, got);
  check(!strcmp(want, got), "the metered module computes something else");
  return 0;
}
