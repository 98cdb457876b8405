/* What the files of the PostgreSQL store (remote*.c, remote.h) share: the
 * store and a lease as structures, and the helpers between them. Not for
 * use outside them. Files by job:
 *   remote.c          open, leases, counters, mounts by name
 *   remote_pull.c     bringing the cache to the store's version
 *   remote_push.c     publishing what the cache holds
 *   remote_cache.c    the cache's files (through format.c and tree.c only)
 *   remote_life.c     create, fork, checkpoint, restore, destroy, list, prune
 *   remote_paused.c   paused runs and ids ended for good, as rows */
#ifndef WASMBOX_SESSION_REMOTE_INTERNAL_H
#define WASMBOX_SESSION_REMOTE_INTERNAL_H

#include <pthread.h>

#include "session/pg.h"
#include "session/remote.h"
#include "session/rows.h"
#include "session/store.h"

struct wb_remote {
  wb_pg *pg;
  double lease_s; /* a lease waits this long for another holder, then fails */
  wb_store *st;
  wasmbox_named_mount named[WASMBOX_MAX_MOUNTS]; /* copies */
  size_t nnamed;
  pthread_mutex_t lock; /* the counters */
  uint64_t ops, failures, ns;
};

struct wb_lease {
  wb_remote *r;
  wb_pg_conn *c;
  char id[WASMBOX_ID_MAX];
};

#define TEXT(s) ((wb_pg_arg){.v = (s), .len = -1})
#define BYTES(p, l) ((wb_pg_arg){.v = (p), .len = (int)(l)})
/* wb_fail for the functions that answer true or false */
#define refuse(err, n, ...) (wb_fail(err, n, 0, __VA_ARGS__), false)
#define WB_UNLOCK_SQL "SELECT pg_advisory_unlock(hashtextextended($1, 0))"

static inline bool wb_tx(wb_pg_conn *c, const char *sql, char *err, size_t n) {
  return wb_pg_ok(c, sql, 0, NULL, err, n);
}

/* remote.c: the lease of `id` on a connection of its own (NULL: err and
 * *code set), and its end; an operation counted in the stats */
wb_lease *wb_lease_take(wb_remote *r, const char *id, char *err, size_t n, int *code);
void wb_lease_drop(wb_lease *l);
void wb_remote_count(wb_remote *r, uint64_t since, int code);
/* remote_pull.c: bring session l->id's cache to the store's version */
int wb_remote_pull(wb_lease *l, bool *reloaded, char *err, size_t n);
/* remote_push.c: the cache's state into the store, one transaction */
int wb_remote_publish(wb_lease *l, char *err, size_t n);

#endif
