/* Shared by the library's files; not part of its interface. */
#ifndef WASMBOX_API_INTERNAL_H
#define WASMBOX_API_INTERNAL_H

#include <pthread.h>

#include "api/guidance.h"
#include "engine/engine.h"
#include "session/session.h"
#include "wasi/wasi.h"
#include "wasmbox.h"

#define POOL_MAX 8
#define RUNTIMES_MAX 8

/* Idle instances of a runtime, started from its base snapshot and reset to
 * it after their last call: a stateless call takes one and does no
 * instantiation at all. Each keeps an empty scratch directory for calls
 * without a workspace (making and removing one per call cost more than
 * the call). */
typedef struct {
  wb_instance *instance;
  char *scratch;
} wb_pooled;

typedef struct {
  wb_pooled idle[POOL_MAX];
  size_t n;
} wb_pool;

struct wasmbox {
  pthread_mutex_t lock; /* pools and store */
  wb_pool pools[RUNTIMES_MAX];
  char *home;           /* state directory */
  wb_store *store;      /* opened at the first session operation */
};

/* The public result plus what it owns. */
typedef struct {
  wasmbox_result pub;
  char *out, *err, *type, *message, *traceback, *session;
  char *guidance[WB_GUIDANCE_MAX];
  char **files;
} wb_result;

int wb_usage(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Request checks (checks.c): WASMBOX_OK or WASMBOX_EUSAGE with a message. */
int wb_check_env(const char *const *env, size_t n, char *err, size_t errlen);
int wb_check_mounts(const wasmbox_mount *m, size_t n, char *err, size_t errlen);

/* Results (result.c): from an outcome and the call's WASI host. */
typedef struct {
  const wb_runtime *rt;
  double timeout_s;
  uint64_t memory_limit;
  size_t max_output;
} wb_limits_used;
wb_result *wb_result_build(const wb_outcome *o, wb_wasi *wasi, const wb_limits_used *lim);

/* The session store, opened on first use (NULL with err set on failure). */
wb_store *wb_store_of(wasmbox *wb, char *err, size_t errlen);

#endif
