/* pgo_train LANGUAGE HOST_DIR:GUEST_DIR PROGRAM ARG...
 *
 * The training run of a profile-guided build (runtimes/native.sh --train):
 * linked with a runtime compiled -fprofile-generate, it runs PROGRAM once
 * per ARG, each call a fresh guest with ARG in its environment as
 * WB_TRAIN_ARG and HOST_DIR mounted read-only at GUEST_DIR. Calls run in
 * this process, so the profile counters are written when it exits. Any call
 * that does not end ok fails the run: a profile of a broken build must not
 * steer the real one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "wasmbox.h"

/* PATH's bytes, NUL-terminated (code_len 0 would mean strlen), or NULL. */
static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  wb_buf b = {0};
  char chunk[1 << 16];
  for (size_t n; (n = fread(chunk, 1, sizeof chunk, f)) > 0;) wb_buf_append(&b, chunk, n);
  int failed = ferror(f);
  fclose(f);
  if (failed) {
    wb_buf_free(&b);
    return NULL;
  }
  *len = b.len;
  return wb_buf_take(&b);
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: pgo_train LANGUAGE HOST_DIR:GUEST_DIR PROGRAM ARG...\n");
    return 2;
  }
  char *colon = strchr(argv[2], ':');
  if (!colon) {
    fprintf(stderr, "pgo_train: mount '%s' is not HOST_DIR:GUEST_DIR\n", argv[2]);
    return 2;
  }
  *colon = '\0';
  wasmbox_mount mount = {.host_dir = argv[2], .guest_path = colon + 1};
  size_t code_len;
  char *code = read_file(argv[3], &code_len);
  if (!code) {
    fprintf(stderr, "pgo_train: cannot read %s: %s\n", argv[3], strerror(errno));
    return 1;
  }

  char err[512];
  wasmbox_options options = {.in_process = true};
  wasmbox *box = wasmbox_open(&options, err, sizeof err);
  if (!box) {
    fprintf(stderr, "pgo_train: %s\n", err);
    return 1;
  }
  int failures = 0;
  for (int i = 4; i < argc; i++) {
    wb_buf env = {0};
    wb_buf_printf(&env, "WB_TRAIN_ARG=%s", argv[i]);
    if (env.failed) {
      fprintf(stderr, "pgo_train: out of memory\n");
      return 1;
    }
    const char *envp[] = {env.data};
    wasmbox_request request = {.language = argv[1], .code = code, .code_len = code_len,
                               .filename = argv[3], .timeout_seconds = 600,
                               .memory_bytes = (uint64_t)1 << 30, .env = envp, .env_len = 1,
                               .mounts = &mount, .mounts_len = 1};
    wasmbox_result *result;
    int ran = wasmbox_run(box, &request, &result, err, sizeof err) == WASMBOX_OK;
    wb_buf_free(&env);
    if (!ran) {
      fprintf(stderr, "pgo_train: %s: %s\n", argv[i], err);
      failures++;
      continue;
    }
    fprintf(stderr, "pgo_train: %s: %s, %.0f ms\n", argv[i], wasmbox_status_name(result->status),
            result->duration_ms);
    if (result->status != WASMBOX_STATUS_OK) {
      /* the guest's stderr holds its traceback; a limit's status has a message */
      fprintf(stderr, "%s\n", result->stderr_len ? result->stderr_data
                               : result->error_message ? result->error_message : "");
      failures++;
    }
    wasmbox_result_free(result);
  }
  wasmbox_free(box);
  free(code);
  return failures ? 1 : 0;
}
