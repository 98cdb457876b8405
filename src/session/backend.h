/* The session store behind one interface: a table of functions with one
 * contract (struct wb_store_ops, as SQLite's VFS), and two implementations:
 * this process's directory (backend_local.c, over session.h) and PostgreSQL
 * shared by servers (backend_pg.c, over remote.h). The library holds a
 * wb_backend and never asks which one it has.
 *
 * The contract, for both:
 * - Operations return WASMBOX_OK, WASMBOX_EUSAGE (no such session, bad
 *   arguments: what a caller did) or WASMBOX_EINTERNAL, with a message in
 *   err. Ids are checked by the backend.
 * - Calls and file operations work on a directory store (session.h) of this
 *   process: dir() gives it (the local backend's sessions themselves; for
 *   PostgreSQL its cache), opened on first use.
 * - Any change to a session made in that directory from outside the
 *   backend's own operations (a call in a worker, a file written) is
 *   bracketed by a transaction (wb_txn below): begin makes the directory's
 *   copy current and the session this process's alone, commit makes what
 *   changed the store's (a failed commit leaves the store at its last
 *   commit), rollback lets it go unpublished. The PostgreSQL backend's
 *   lease lives here; the local backend's session lock is taken by the
 *   directory's own functions.
 * - hooks.stale(ctx, id) is called whenever copies of session `id` that
 *   live outside the directory (a worker's instance) no longer match it: a
 *   reload at begin, a restore, a failed commit.
 * - Paused runs (api/paused.h) are bytes under a token with an owner and a
 *   scope; a take claims a run once, and only when it is the caller's
 *   (owner NULL: anyone's; scope NULL: any); `mine` tells from the bytes
 *   for a backend that cannot (the local files), and another's run is
 *   "none" (EUSAGE) and stays.
 * - Mounts by name: mount_name/mount_dir map this server's directories to
 *   the names the store keeps (the local backend keeps directories: each
 *   is its own name). */
#ifndef WASMBOX_SESSION_BACKEND_H
#define WASMBOX_SESSION_BACKEND_H

#include "session/paused_files.h"
#include "session/remote.h"
#include "session/session.h"

typedef struct wb_backend wb_backend;
typedef struct wb_hold wb_hold; /* a backend's side of a transaction; NULL when it needs none */

typedef struct {
  void *ctx;
  wb_store *(*dir)(void *ctx, char *err, size_t n); /* the directory store, opened on first use */
  void (*stale)(void *ctx, const char *id);
} wb_backend_hooks;

struct wb_store_ops {
  const char *name;
  void (*free)(wb_backend *b);
  int (*create)(wb_backend *b, const wasmbox_session_options *o, char id[WASMBOX_ID_MAX], char *err, size_t n);
  int (*fork)(wb_backend *b, const char *id, char new_id[WASMBOX_ID_MAX], char *err, size_t n);
  int (*checkpoint)(wb_backend *b, const char *id, char cid[WASMBOX_ID_MAX], char *err, size_t n);
  int (*restore)(wb_backend *b, const char *id, const char *cid, char *err, size_t n);
  int (*destroy)(wb_backend *b, const char *id, char *err, size_t n);
  int (*list)(wb_backend *b, wasmbox_session_info **out, size_t *count, char *err, size_t n);
  int (*info)(wb_backend *b, const char *id, wasmbox_session_info *out, char *err, size_t n);
  int (*owner)(wb_backend *b, const char *id, char owner[WASMBOX_OWNER_MAX], char *err, size_t n);
  /* sessions idle past their TTL, and paused runs past theirs */
  int (*prune)(wb_backend *b, size_t *removed, char *err, size_t n);
  /* a transaction's backend side (wb_txn below) */
  int (*begin)(wb_backend *b, const char *id, wb_hold **out, char *err, size_t n);
  int (*commit)(wb_hold *h, char *err, size_t n);
  void (*rollback)(wb_hold *h);
  /* wasmbox_ended_add/has (wasmbox.h): has is 1, 0 or -1 */
  int (*ended_add)(wb_backend *b, const char *id, double keep_s, char *err, size_t n);
  int (*ended_has)(wb_backend *b, const char *id, double keep_s, char *err, size_t n);
  int (*paused_put)(wb_backend *b, const char *token, const char *owner, const char *scope, double created,
                    const void *data, size_t len, char *err, size_t n);
  int (*paused_take)(wb_backend *b, const char *token, const char *owner, const char *scope, wb_paused_mine mine,
                     void *ctx, uint8_t **data, size_t *len, char *err, size_t n);
  const char *(*mount_name)(wb_backend *b, const char *host_dir);
  const char *(*mount_dir)(wb_backend *b, const char *name);
  /* store operations so far, those that failed, and the seconds they took */
  void (*stats)(wb_backend *b, uint64_t *ops, uint64_t *failures, double *seconds);
};

struct wb_backend {
  const struct wb_store_ops *ops;
  wb_backend_hooks hooks;
  char *home; /* the state directory */
};

/* The sessions in $home (hooks->dir's store), paused runs in $home/paused,
 * ended ids in $home/mcp-ended. */
wb_backend *wb_backend_local(const char *home, const wb_backend_hooks *hooks, char *err, size_t n);
/* The sessions in PostgreSQL at `url` (remote.h), cached in hooks->dir's
 * store, which it opens now. */
wb_backend *wb_backend_pg(const char *url, const char *home, const wb_backend_hooks *hooks, const wb_remote_limits *lim,
                          const wasmbox_named_mount *named, size_t nnamed, char *err, size_t n);

/* The directory store (contract above). */
wb_store *wb_backend_dir(wb_backend *b, char *err, size_t n);

/* A transaction on session `id` (contract above). WB_TXN_WRITE: it may
 * change the session, and commit publishes what changed; WB_TXN_WORKSPACE: the session's workspace
 * locked against calls and other changes, wb_txn_workspace() its directory
 * fd until wb_txn_unlock_workspace() or the end (wb_txn_lock_workspace()
 * takes it again: a call in the session runs between the two). Commit and rollback both
 * end it (always); a rollback publishes nothing, and where the backend
 * keeps the session elsewhere (PostgreSQL) the next begin finds the
 * directory's copy changed and reloads it. */
enum { WB_TXN_WRITE = 1, WB_TXN_WORKSPACE = 2 };
typedef struct {
  wb_backend *b;
  wb_hold *hold;
  unsigned flags;
  wb_ws_lock *lk;
  int ws;
  char id[WASMBOX_ID_MAX];
} wb_txn; /* the caller's (no allocation per call); its fields are backend.c's */
int wb_txn_begin(wb_backend *b, const char *id, unsigned flags, wb_txn *t, char *err, size_t n);
int wb_txn_workspace(const wb_txn *t);
void wb_txn_unlock_workspace(wb_txn *t);
int wb_txn_lock_workspace(wb_txn *t, char *err, size_t n);
int wb_txn_commit(wb_txn *t, char *err, size_t n);
void wb_txn_rollback(wb_txn *t);

#endif
