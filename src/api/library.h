/* The library instance (struct wasmbox) as the api's files share it, and
 * the helpers they all use. Not part of the public interface.
 *
 * Files of src/api by role, each using only those below it:
 *   wasmbox.c          the public entry: open, run, isolation, sessions
 *   install.c          session_install: pip on the host, a call in the session
 *   session_files.c    a session's files from outside a call
 *   worker_parent.c    jailed worker processes, the parent's side
 *   worker_child.c     a worker process: jails itself, runs calls in it
 *   worker_protocol.c  the frames and messages between the two
 *   inprocess.c        runs a call in this process (pool, sessions)
 *   guest_tools.c, paused.c  code mode: the checks on a guest's tool requests;
 *                      runs paused for approval, kept on disk
 *   resolve_request.c  a request's defaults, caps and checks, once
 *   result.c, guidance.c, policy.c, sandbox.c   results, hints, the import
 *                      policy, the sandbox's file-system layout
 *   library.c          this header */
#ifndef WASMBOX_API_LIBRARY_H
#define WASMBOX_API_LIBRARY_H

#include <pthread.h>

#include "session/backend.h"
#include "session/session.h"
#include "wasmbox.h"

typedef struct wb_inprocess wb_inprocess;
typedef struct wb_workers wb_workers;

struct wasmbox {
  pthread_mutex_t lock; /* store */
  char *home;           /* state directory */
  wb_store *store;      /* opened at the first session operation */
  wb_backend *backend;  /* where sessions are kept (session/backend.h); `store` is its directory */
  wb_inprocess *here;   /* runs calls in this process (NULL: not yet needed) */
  wb_workers *workers;  /* NULL: guest code runs in this process */
};

/* A library instance with neither runner; home NULL: the default
 * ($WASMBOX_HOME, else ~/.local/share/wasmbox). */
wasmbox *wb_library_new(const char *home, char *err, size_t errlen);

/* The session store, opened on first use (NULL with err set on failure). */
wb_store *wb_store_of(wasmbox *wb, char *err, size_t errlen);

/* wasmbox_run() inside a transaction the caller holds on req->session_id
 * (session/backend.h; NULL: the call's own), which it neither commits nor
 * rolls back (wasmbox.c; install.c's unpacking). */
int wb_run_held(wasmbox *wb, const wasmbox_request *req, wb_txn *held, wasmbox_result **out, char *err, size_t errlen);

/* Write `path` (under /app) in a session's workspace `ws`, held by the
 * caller (session_files.c; install.c). */
int wb_workspace_write(int ws, const char *path, const void *data, size_t len, char *err, size_t errlen);

/* Write a usage error's message; returns WASMBOX_EUSAGE. */
int wb_usage(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
