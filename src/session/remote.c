/* The store several servers share (remote.h), its core: opening it, the
 * lease and what it brings (a pull) and publishes, the counters, mounts by
 * name. The other jobs have a file each (remote_internal.h lists them). */
#include "session/remote.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/remote_internal.h"
#include "util/os.h"

static const char schema[] =
    "SELECT pg_advisory_lock(7301001);"
    "CREATE TABLE IF NOT EXISTS wasmbox_sessions (id text PRIMARY KEY, version bigint NOT NULL,"
    " language text NOT NULL, created float8 NOT NULL, ttl float8 NOT NULL, last_used float8 NOT NULL,"
    " meta bytea NOT NULL, head bytea NOT NULL, log_id text NOT NULL);"
    "CREATE TABLE IF NOT EXISTS wasmbox_logs (owner text NOT NULL, log_id text NOT NULL, off bigint NOT NULL,"
    " data bytea NOT NULL, PRIMARY KEY (owner, log_id, off));"
    "CREATE TABLE IF NOT EXISTS wasmbox_files (owner text NOT NULL, path bytea NOT NULL, kind text NOT NULL,"
    " data bytea NOT NULL, hash bytea NOT NULL, PRIMARY KEY (owner, path));"
    "CREATE TABLE IF NOT EXISTS wasmbox_checkpoints (session text NOT NULL, id text NOT NULL,"
    " created float8 NOT NULL, head bytea NOT NULL, log_id text NOT NULL, PRIMARY KEY (session, id));"
    "CREATE TABLE IF NOT EXISTS wasmbox_ended (id text PRIMARY KEY, at float8 NOT NULL);"
    "CREATE TABLE IF NOT EXISTS wasmbox_paused (token text PRIMARY KEY, owner text NOT NULL, scope text NOT NULL,"
    " created float8 NOT NULL, data bytea NOT NULL);"
    "SELECT pg_advisory_unlock(7301001);";

/* ---- open, leases -------------------------------------------------------------------- */

wb_remote *wb_remote_open(const char *url, wb_store *cache, const wb_remote_limits *lim,
                          const wasmbox_named_mount *named, size_t nnamed, char *err, size_t n) {
  if (strncmp(url, "postgres://", 11) && strncmp(url, "postgresql://", 13)) {
    wb_fail(err, n, 0, "session store '%s': only postgres:// (or postgresql://) URLs are known", url);
    return NULL;
  }
  if (nnamed > WASMBOX_MAX_MOUNTS) {
    wb_fail(err, n, 0, "at most %d named mounts", WASMBOX_MAX_MOUNTS);
    return NULL;
  }
  for (size_t i = 0; i < nnamed; i++)
    if (!named[i].name || !named[i].name[0] || strlen(named[i].name) >= WASMBOX_ID_MAX ||
        !wb_owner_valid(named[i].name) || !named[i].host_dir || named[i].host_dir[0] != '/') {
      wb_fail(err, n, 0, "named mount %zu: a name of 1 to %d printable characters and an absolute directory", i,
              WASMBOX_ID_MAX - 1);
      return NULL;
    }
  wb_remote *r = calloc(1, sizeof *r);
  bool ok = r != NULL;
  if (r) pthread_mutex_init(&r->lock, NULL);
  for (size_t i = 0; ok && i < nnamed; i++, r->nnamed++)
    ok = (r->named[i].name = strdup(named[i].name)) && (r->named[i].host_dir = strdup(named[i].host_dir));
  if (!ok) {
    wb_fail(err, n, 0, "out of memory");
    wb_remote_free(r);
    return NULL;
  }
  /* The lease is the one statement that waits on a lock, so lock_timeout
   * is the lease's wait. statement_timeout bounds everything else and is a
   * second longer, so that a lease that waits its whole time ends with
   * lock_timeout's error ("busy"), not with statement_timeout's. */
  r->lease_s = lim && lim->timeout_s > 0 ? lim->timeout_s : WB_LEASE_WAIT_S;
  wb_pg_limits pl = {.lock_s = r->lease_s,
                     .statement_s = r->lease_s + 1,
                     .max_conns = lim && lim->max_conns ? lim->max_conns : WB_STORE_CONNECTIONS};
  if (!(r->pg = wb_pg_open(url, schema, &pl, err, n))) {
    wb_remote_free(r);
    return NULL;
  }
  r->st = cache;
  return r;
}

void wb_remote_free(wb_remote *r) {
  if (!r) return;
  for (size_t i = 0; i < r->nnamed; i++) free((char *)r->named[i].name), free((char *)r->named[i].host_dir);
  if (r->pg) wb_pg_free(r->pg);
  pthread_mutex_destroy(&r->lock);
  free(r);
}

void wb_remote_count(wb_remote *r, uint64_t since, int code) {
  uint64_t ns = wb_monotonic_ns() - since;
  pthread_mutex_lock(&r->lock);
  r->ops++;
  r->failures += code != WASMBOX_OK && code != WASMBOX_EUSAGE;
  r->ns += ns;
  pthread_mutex_unlock(&r->lock);
}

void wb_remote_stats(wb_remote *r, uint64_t *ops, uint64_t *failures, double *seconds) {
  pthread_mutex_lock(&r->lock);
  *ops = r->ops;
  *failures = r->failures;
  *seconds = (double)r->ns / 1e9;
  pthread_mutex_unlock(&r->lock);
}

static const char lock_sql[] = "SELECT pg_advisory_lock(hashtextextended($1, 0))";

wb_lease *wb_lease_take(wb_remote *r, const char *id, char *err, size_t n, int *code) {
  *code = WASMBOX_EINTERNAL;
  if (!wb_id_valid(id)) {
    *code = wb_fail(err, n, WASMBOX_EUSAGE, "'%s' is not a session id", id ? id : "");
    return NULL;
  }
  wb_lease *l = calloc(1, sizeof *l);
  if (!l) {
    wb_fail(err, n, 0, "out of memory");
    return NULL;
  }
  l->r = r;
  snprintf(l->id, sizeof l->id, "%s", id);
  wb_pg_arg a[] = {TEXT(id)};
  if (!(l->c = wb_pg_take(r->pg, err, n)) || !wb_pg_ok(l->c, lock_sql, 1, a, err, n)) {
    if (l->c && !strcmp(wb_pg_sqlstate(l->c), "55P03"))
      wb_fail(err, n, 0, "session %s is busy: another call has held it for more than %g s", id, r->lease_s);
    wb_pg_give(r->pg, l->c);
    free(l);
    return NULL;
  }
  return l;
}

void wb_lease_drop(wb_lease *l) {
  if (!l) return;
  char e[256];
  wb_pg_arg a[] = {TEXT(l->id)};
  if (!wb_pg_ok(l->c, WB_UNLOCK_SQL, 1, a, e, sizeof e)) wb_pg_ok(l->c, "ROLLBACK", 0, NULL, e, sizeof e);
  wb_pg_give(l->r->pg, l->c);
  free(l);
}

int wb_remote_acquire(wb_remote *r, const char *id, wb_lease **out, bool *reloaded, char *err, size_t n) {
  int code;
  uint64_t t0 = wb_monotonic_ns();
  *out = NULL;
  *reloaded = false;
  wb_lease *l = wb_lease_take(r, id, err, n, &code);
  if (l && (code = wb_remote_pull(l, reloaded, err, n))) {
    wb_lease_drop(l);
    l = NULL;
  }
  wb_remote_count(r, t0, code);
  *out = l;
  return l ? WASMBOX_OK : code;
}

const char *wb_lease_id(const wb_lease *l) { return l->id; }

int wb_remote_release(wb_lease *l, bool publish_it, char *err, size_t n) {
  uint64_t t0 = wb_monotonic_ns();
  int code = publish_it ? wb_remote_publish(l, err, n) : WASMBOX_OK;
  if (publish_it) wb_remote_count(l->r, t0, code);
  if (code) wb_live_forget(l->r->st, l->id);
  wb_lease_drop(l);
  return code;
}

/* ---- mounts by name ---------------------------------------------------------------- */

const char *wb_remote_mount_name(const wb_remote *r, const char *host_dir) {
  for (size_t i = 0; host_dir && i < r->nnamed; i++)
    if (!strcmp(r->named[i].host_dir, host_dir)) return r->named[i].name;
  return NULL;
}

const char *wb_remote_mount_dir(const wb_remote *r, const char *name) {
  for (size_t i = 0; name && i < r->nnamed; i++)
    if (!strcmp(r->named[i].name, name)) return r->named[i].host_dir;
  return NULL;
}
