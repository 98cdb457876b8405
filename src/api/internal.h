/* Shared by the library's files; not part of its interface. */
#ifndef WASMBOX_API_INTERNAL_H
#define WASMBOX_API_INTERNAL_H

#include <pthread.h>

#include "api/guidance.h"
#include "engine/engine.h"
#include "jail/jail.h"
#include "jail/wire.h"
#include "session/session.h"
#include "wasi/wasi.h"
#include "wasmbox.h"

#define POOL_MAX 8
#define RUNTIMES_MAX 8

/* Idle instances of a runtime, started from its base snapshot and reset to
 * it after their last call: a stateless call takes one and does no
 * instantiation at all. Each keeps an empty scratch directory, made at
 * its first call without a workspace (making and removing one per call
 * cost more than the call). */
typedef struct {
  wb_instance *instance;
  char *scratch;
} wb_pooled;

typedef struct {
  wb_pooled idle[POOL_MAX];
  size_t n;
} wb_pool;

typedef struct wb_workers wb_workers;

struct wasmbox {
  pthread_mutex_t lock; /* pools and store */
  wb_pool pools[RUNTIMES_MAX];
  char *home;           /* state directory */
  wb_store *store;      /* opened at the first session operation */
  wb_workers *workers;  /* NULL: guest code runs in this process */
  char *scratch;        /* in a worker: the one scratch directory its jail allows */
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
/* The request's Python import policy (policy.c): wanted at all, and the
 * code wrapped to enforce it (*owned holds the new code; free it after). */
bool wb_policy_wanted(const wasmbox_request *req);
int wb_policy_wrap(wasmbox_request *req, char **owned, char *err, size_t errlen);
/* `m` then the package directories as mounts at /packages/N in `out`
 * (*nout = 0 when there are none: use `m` as it is). */
int wb_add_packages(const char *language, const wasmbox_mount *m, size_t n, const char *const *pkgs, size_t npkgs,
                    wasmbox_mount out[WASMBOX_MAX_MOUNTS], size_t *nout, char *err, size_t errlen);

/* Results (result.c): from an outcome and the call's WASI host. */
typedef struct {
  const wb_runtime *rt;
  double timeout_s;
  uint64_t fuel;
  uint64_t memory_limit;
  size_t max_output;
  uint64_t quota;
} wb_limits_used;
wb_result *wb_result_build(const wb_outcome *o, wb_wasi *wasi, const wb_limits_used *lim);

/* Remove a directory tree without following symlinks or leaving the file system. */
void wb_remove_tree(const char *dir);

/* The session store, opened on first use (NULL with err set on failure). */
wb_store *wb_store_of(wasmbox *wb, char *err, size_t errlen);

/* A call checked and placed in this process (wasmbox.c); wasmbox_run()
 * sends it to a worker instead when there are workers. */
int wb_run_here(wasmbox *wb, const wasmbox_request *req, wasmbox_result **out, char *err, size_t errlen);
/* A library instance that runs guest code in this process; `scratch`: the
 * directory stateless calls use as /app (NULL: a temporary one each). */
wasmbox *wb_open_here(const char *home, const char *scratch, char *err, size_t errlen);

/* Requests and results on the wire (codec.c). A decoded request points into
 * the frame and `storage`. */
typedef struct {
  const char **env;
  wasmbox_mount mounts[WASMBOX_MAX_MOUNTS];
} wb_request_storage;
void wb_encode_request(wb_buf *b, const wasmbox_request *q);
bool wb_decode_request(wb_reader *r, wasmbox_request *q, wb_request_storage *s);
void wb_request_storage_free(wb_request_storage *s);
void wb_encode_result(wb_buf *b, const wasmbox_result *p);
wb_result *wb_decode_result(wb_reader *r);

/* Jailed worker processes (workers.c): the parent's side. */
wb_workers *wb_workers_new(const char *home, unsigned warm, bool one_shot, char *err, size_t errlen);
void wb_workers_free(wb_workers *ws);
int wb_workers_run(wasmbox *wb, const wasmbox_request *req, wasmbox_result **out, char *err, size_t errlen);
/* End the idle workers of sessions that no longer exist (destroyed, pruned). */
void wb_workers_forget_sessions(wb_workers *ws, wb_store *st);
/* The jail of a stateless worker on this machine. */
bool wb_workers_report(wb_workers *ws, wb_jail_report *out, char *err, size_t errlen);

/* A worker's life (worker.c): setup, jail, calls, until `sock` closes;
 * returns the process's exit status. */
int wb_worker_main(int sock);

/* Frame types. */
enum { WB_FRAME_SETUP = 1, WB_FRAME_READY, WB_FRAME_RUN, WB_FRAME_CANCEL, WB_FRAME_RESULT, WB_FRAME_ERROR };

#endif
