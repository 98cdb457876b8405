/* Sessions kept in a store that several servers share: PostgreSQL, named
 * by a postgres:// URL. This process's directory store (session.h) becomes
 * its cache of the sessions it serves.
 *
 * Before anything reads or changes a session, its lease is taken: an
 * advisory lock in the database, held by one connection of one server at a
 * time and lost when that connection ends (a server killed, a machine gone:
 * TCP keepalives end it within seconds). With the lease, the cache is
 * brought to the store's version: the page log's new records, the files
 * whose content changed, HEAD. After a change, what changed goes back the
 * same way in one transaction that also bumps the version; a commit is
 * either all in the store or not at all. A failed publish leaves the store
 * at its last commit and the cache marked stale (the next lease reloads).
 *
 * Tables (created when missing): wasmbox_sessions (one row per session:
 * version, meta, HEAD, current log), wasmbox_logs (log chunks by offset),
 * wasmbox_files (the workspace: path, kind, content, sha256),
 * wasmbox_checkpoints; a checkpoint's log and files are owned by
 * "SESSION/CHECKPOINT". The cache records the version it holds in the
 * session directory's `stored` file. */
#ifndef WASMBOX_SESSION_REMOTE_H
#define WASMBOX_SESSION_REMOTE_H

#include "session/session.h"

/* How long a call waits for a session that another call holds, by
 * default; any other statement may take a second more, and nothing waits
 * for the database longer than that plus WB_PG_GRACE_S (pg.h). */
#define WB_LEASE_WAIT_S 120
/* Connections in use at once, by default. A call on a session holds one
 * for its whole run (the lease), so this is the number of session calls
 * one server runs at once; 32 is well above what its workers run in
 * parallel on a few cores, and three servers stay under PostgreSQL's
 * default max_connections (100). */
#define WB_STORE_CONNECTIONS 32
/* ended_has: the most one stateless request waits for the store */
#define WB_QUICK_WAIT_S 1.0

typedef struct wb_remote wb_remote;
typedef struct wb_lease wb_lease;

typedef struct {
  double timeout_s;   /* the lease's wait (0: WB_LEASE_WAIT_S) */
  unsigned max_conns; /* 0: WB_STORE_CONNECTIONS */
} wb_remote_limits;

/* Loads libpq; connects when first needed (so a server may start before
 * its database). lim may be NULL (the defaults). named: the mounts sessions
 * in the store may have, by name (wasmbox_options.named_mounts): the
 * store's meta holds names, a cache's meta this server's host paths. */
wb_remote *wb_remote_open(const char *url, wb_store *cache, const wb_remote_limits *lim,
                          const wasmbox_named_mount *named, size_t nnamed, char *err, size_t n);
void wb_remote_free(wb_remote *r);
/* Paused runs (api/paused.h) as rows: put one; take one (deleted, so one
 * resume wins) only when its owner and scope are the caller's (owner NULL:
 * anyone's; scope NULL: any), else EUSAGE as for none. */
int wb_remote_paused_put(wb_remote *r, const char *token, const char *owner, const char *scope, double created,
                         const void *data, size_t len, char *err, size_t n);
int wb_remote_paused_take(wb_remote *r, const char *token, const char *owner, const char *scope, uint8_t **data,
                          size_t *len, char *err, size_t n);
/* This server's named mount: its name for a directory, its directory for a
 * name; NULL when it has none. */
const char *wb_remote_mount_name(const wb_remote *r, const char *host_dir);
const char *wb_remote_mount_dir(const wb_remote *r, const char *name);
/* Leases (with their reloads) and publishes so far, those that failed, and
 * the seconds they took in all. */
void wb_remote_stats(wb_remote *r, uint64_t *ops, uint64_t *failures, double *seconds);

/* Take session `id`'s lease and bring the cache to the store's version;
 * *reloaded: the cache was rewritten (live copies of it are stale). */
int wb_remote_acquire(wb_remote *r, const char *id, wb_lease **out, bool *reloaded, char *err, size_t n);
/* publish: write what the cache holds now if it differs from the store.
 * Then let the lease go (always, even on failure). */
int wb_remote_release(wb_lease *l, bool publish, char *err, size_t n);
const char *wb_lease_id(const wb_lease *l);

/* The operations of session.h, on the store. */
int wb_remote_create(wb_remote *r, const wasmbox_session_options *o, char id[WASMBOX_ID_MAX], char *err, size_t n);
int wb_remote_fork(wb_remote *r, const char *id, char new_id[WASMBOX_ID_MAX], char *err, size_t n);
int wb_remote_checkpoint(wb_remote *r, const char *id, char cid[WASMBOX_ID_MAX], char *err, size_t n);
int wb_remote_restore(wb_remote *r, const char *id, const char *cid, char *err, size_t n);
int wb_remote_destroy(wb_remote *r, const char *id, char *err, size_t n);
int wb_remote_list(wb_remote *r, wasmbox_session_info **out, size_t *count, char *err, size_t n);
int wb_remote_info(wb_remote *r, const char *id, wasmbox_session_info *out, char *err, size_t n);
int wb_remote_owner(wb_remote *r, const char *id, char owner[WASMBOX_OWNER_MAX], char *err, size_t n);
/* wasmbox_ended_add/has (wasmbox.h) on the store: has is 1, 0 or -1. */
int wb_remote_ended_add(wb_remote *r, const char *id, double keep_s, char *err, size_t n);
int wb_remote_ended_has(wb_remote *r, const char *id, double keep_s, char *err, size_t n);

/* Sessions idle past their TTL leave the store; the cache drops what the
 * store no longer has and what it has not used within a TTL. */
int wb_remote_prune(wb_remote *r, size_t *removed, char *err, size_t n);

#endif
