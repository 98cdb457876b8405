/* Each request resolved once: its defaults filled in, its limits capped
 * and checked, its inputs validated, by one function that both runners
 * use (the library before it places a call, a worker for the request it
 * received), so they can never disagree on a default or a cap. */
#ifndef WASMBOX_API_RESOLVE_REQUEST_H
#define WASMBOX_API_RESOLVE_REQUEST_H

#include <stdbool.h>

#include "engine/runtime.h"
#include "wasmbox.h"

#define WB_TIMEOUT_MAX_S (24.0 * 3600)
#define WB_MEMORY_MAX (4ull << 30) /* all a 32-bit guest can address */
#define WB_OUTPUT_MAX (1ull << 30)
#define WB_CODE_MAX (64u << 20)
#define WB_FILENAME_MAX 1024
#define WB_ENV_MAX 4096 /* environment entries of a stateless call */

typedef struct {
  const wb_runtime *rt; /* NULL: a session call naming no language (the session's) */
  size_t code_len;
  double timeout_s;
  uint64_t memory;
  uint64_t fuel;
  size_t max_output;
  uint64_t quota;
} wb_resolved;

/* WASMBOX_OK with *out filled, or WASMBOX_EUSAGE with a message. Checks
 * what needs no session store: code, limits, file name, language, the
 * environment and mounts, the workspace, and which of them a session
 * call may not set. */
int wb_resolve(const wasmbox_request *req, wb_resolved *out, char *err, size_t errlen);

/* Parts of it that session creation uses too. */
int wb_check_env(const char *const *env, size_t n, char *err, size_t errlen);
int wb_check_mounts(const wasmbox_mount *m, size_t n, char *err, size_t errlen);

/* `m` then the package directories as mounts at /packages/N in `out`
 * (*nout = 0 when there are none: use `m` as it is). */
int wb_add_packages(const char *language, const wasmbox_mount *m, size_t n, const char *const *pkgs, size_t npkgs,
                    wasmbox_mount out[WASMBOX_MAX_MOUNTS], size_t *nout, char *err, size_t errlen);

#endif
