/* mksnapshot LANGUAGE OUT: take the base snapshot of a runtime.
 *
 * Starts the runtime in the sandbox's standard layout (an empty /app, the
 * runtime's images), initialises the interpreter, runs its preload code, and
 * writes memory and globals to OUT (engine/snapshot.h). The Makefile then
 * builds OUT into the binary, so every call starts from this state instead
 * of initialising an interpreter. Linked without any snapshot of its own. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/sandbox.h"
#include "engine/engine.h"
#include "engine/snapshot.h"

static int fail(const char *what, const char *why) {
  fprintf(stderr, "mksnapshot: %s: %s\n", what, why);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: mksnapshot LANGUAGE OUT\n");
    return 2;
  }
  const wb_runtime *rt = wb_runtime_find(argv[1]);
  if (!rt) return fail(argv[1], "unknown language");
  char err[512], dir[] = "/tmp/wasmbox-mksnapshot-XXXXXX";
  if (!mkdtemp(dir)) return fail("temporary workspace", "cannot create it");
  wb_instance *in = wb_instance_new(rt, err, sizeof err);
  if (!in) return fail(rt->language, err);
  wb_mount mounts[WB_SANDBOX_MOUNTS_MAX];
  wb_wasi_config wc = {.mounts = mounts, .nmounts = wb_sandbox_mounts(rt, dir, NULL, 0, mounts),
                       .max_output = 1 << 20, .max_fds = 64};
  const char *args[] = {rt->language};
  wc.args = args;
  wc.nargs = 1;
  wb_wasi *wasi = wb_wasi_new(&wc, err, sizeof err);
  if (!wasi) return fail("wasi", err);
  wb_call call = {.wasi = wasi, .memory_limit = 1ull << 30, .timeout_ns = 60ull * 1000000000ull};
  wb_job job = {.code = rt->preload, .code_len = strlen(rt->preload), .name = "<preload>"};
  wb_outcome o;
  if (!wb_instance_call(in, &call, &job, &o, err, sizeof err)) return fail(rt->language, err);
  if (o.trap || o.init_failed || o.exit_code != 0) {
    wb_output e = wb_wasi_stderr(wasi);
    fprintf(stderr, "%.*s", (int)e.len, e.data);
    return fail(rt->language, o.error_message ? o.error_message : "initialisation failed");
  }
  wb_snapshot snap;
  if (!wb_instance_capture(in, &snap, err, sizeof err)) return fail(rt->language, err);
  int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail(argv[2], "cannot create it");
  if (!wb_snapshot_write(&snap, rt->build_id, fd, err, sizeof err) || close(fd) != 0) return fail(argv[2], err);
  printf("%s: %u pages (%u MB), %u bytes of globals\n", rt->language, snap.memory.pages,
         snap.memory.pages / 16, rt->globals_size());
  wb_snapshot_release(&snap);
  wb_outcome_clear(&o);
  wb_wasi_free(wasi);
  wb_instance_free(in);
  rmdir(dir);
  return 0;
}
