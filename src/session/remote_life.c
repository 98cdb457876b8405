/* A session's life in the store (remote.h): create, fork, checkpoint,
 * restore, destroy, list, info, owner, prune. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session/remote_cache.h"
#include "session/remote_internal.h"
#include "util/os.h"

int wb_remote_create(wb_remote *r, const wasmbox_session_options *o, char id[WASMBOX_ID_MAX], char *err, size_t n) {
  int code = wb_session_create(r->st, o, id, err, n);
  if (code) return code;
  /* the new local session, as the store's first version */
  int dir = wb_cache_open(r->st, id);
  size_t local_len = 0, meta_len = 0, head_len = 0;
  char *local = dir >= 0 ? wb_meta_read_text(dir, &local_len) : NULL;
  char *meta = local ? wb_meta_to_store(r->named, r->nnamed, local, local_len, &meta_len, err, n) : NULL;
  char *head = dir >= 0 ? wb_head_read_bytes(dir, &head_len) : NULL;
  int failed = local && !meta ? WASMBOX_EUSAGE : WASMBOX_EINTERNAL; /* a mount the store cannot name */
  free(local);
  wb_meta m = {0};
  wb_marker mk = {.version = 1};
  wb_random_name(mk.log_id, sizeof mk.log_id, "l");
  bool ok = meta && head && wb_meta_read(dir, &m);
  wb_pg_conn *c = ok ? wb_pg_take(r->pg, err, n) : NULL;
  char created[32], ttl[32];
  snprintf(created, sizeof created, "%.6f", m.created);
  snprintf(ttl, sizeof ttl, "%.6f", m.ttl);
  wb_pg_arg a[] = {TEXT(id),       TEXT(m.language),      TEXT(created),
                   TEXT(ttl),      BYTES(meta, meta_len), BYTES(head, head_len),
                   TEXT(mk.log_id)};
  ok = c &&
       wb_pg_ok(c, "INSERT INTO wasmbox_sessions VALUES ($1, 1, $2, $3::float8, $4::float8, $3::float8, $5, $6, $7)", 7,
                a, err, n) &&
       wb_marker_write(dir, &mk);
  wb_pg_give(r->pg, c);
  wb_meta_clear(&m);
  free(meta);
  free(head);
  if (dir >= 0) close(dir);
  if (!ok) {
    char e2[256];
    wb_session_destroy(r->st, id, e2, sizeof e2);
    if (!err[0]) wb_fail(err, n, 0, "cannot create a session: %s", strerror(errno));
    id[0] = 0;
    return failed;
  }
  return WASMBOX_OK;
}

/* Copy session `from`'s committed state to owner `to` (its log and files),
 * in the open transaction. */
static bool copy_rows(wb_pg_conn *c, const char *from, const char *to, const char *log_from, const char *log_to,
                      char *err, size_t n) {
  wb_pg_arg a[] = {TEXT(from), TEXT(to), TEXT(log_from), TEXT(log_to)};
  return wb_pg_ok(c,
                  "INSERT INTO wasmbox_logs SELECT $2, $4, off, data FROM wasmbox_logs WHERE owner = $1 AND "
                  "log_id = $3",
                  4, a, err, n) &&
         wb_pg_ok(c, "INSERT INTO wasmbox_files SELECT $2, path, kind, data, hash FROM wasmbox_files WHERE owner = $1",
                  2, a, err, n);
}

/* The session row's log id (in the open transaction); false if none. */
static bool current_log(wb_pg_conn *c, const char *id, char log_id[40], char *err, size_t n, int *code) {
  wb_pg_arg a[] = {TEXT(id)};
  wb_pg_res *res = wb_pg_exec(c, "SELECT log_id FROM wasmbox_sessions WHERE id = $1", 1, a, err, n);
  *code = WASMBOX_EINTERNAL;
  if (res && wb_pg_rows(res) == 1) wb_pg_text(res, 0, 0, log_id, 40);
  else if (res) *code = wb_fail(err, n, WASMBOX_EUSAGE, "no session %s", id);
  bool ok = res && wb_pg_rows(res) == 1;
  wb_pg_clear(res);
  return ok;
}

static int finish(wb_remote *r, wb_pg_conn *c, bool ok, int code, char *err, size_t n) {
  if (c && ok) ok = wb_tx(c, "COMMIT", err, n);
  else if (c) {
    char e2[256];
    wb_tx(c, "ROLLBACK", e2, sizeof e2);
  }
  wb_pg_give(r->pg, c);
  return ok ? WASMBOX_OK : code ? code : WASMBOX_EINTERNAL;
}

/* Fork and checkpoint read one snapshot of the store: a commit is one
 * transaction, so what they copy is one committed state. */
#define SNAPSHOT "BEGIN ISOLATION LEVEL REPEATABLE READ"

int wb_remote_fork(wb_remote *r, const char *id, char new_id[WASMBOX_ID_MAX], char *err, size_t n) {
  new_id[0] = 0;
  if (!wb_id_valid(id)) return wb_fail(err, n, WASMBOX_EUSAGE, "'%s' is not a session id", id ? id : "");
  char fid[WASMBOX_ID_MAX], log_id[40], now[32];
  wb_new_id('s', fid);
  snprintf(now, sizeof now, "%.6f", wb_wall_s());
  int code = 0;
  wb_pg_conn *c = wb_pg_take(r->pg, err, n);
  wb_pg_arg a[] = {TEXT(id), TEXT(fid), TEXT(now)};
  bool ok = c && wb_tx(c, SNAPSHOT, err, n) && current_log(c, id, log_id, err, n, &code) &&
            wb_pg_ok(c,
                     "INSERT INTO wasmbox_sessions SELECT $2, 1, language, $3::float8, ttl, $3::float8, meta, head, "
                     "log_id FROM wasmbox_sessions WHERE id = $1",
                     3, a, err, n) &&
            copy_rows(c, id, fid, log_id, log_id, err, n);
  code = finish(r, c, ok, code, err, n);
  if (!code) snprintf(new_id, WASMBOX_ID_MAX, "%s", fid);
  return code;
}

int wb_remote_checkpoint(wb_remote *r, const char *id, char cid[WASMBOX_ID_MAX], char *err, size_t n) {
  cid[0] = 0;
  if (!wb_id_valid(id)) return wb_fail(err, n, WASMBOX_EUSAGE, "'%s' is not a session id", id ? id : "");
  char c_id[WASMBOX_ID_MAX], owner[2 * WASMBOX_ID_MAX], log_id[40], now[32];
  wb_new_id('c', c_id);
  snprintf(owner, sizeof owner, "%s/%s", id, c_id);
  snprintf(now, sizeof now, "%.6f", wb_wall_s());
  int code = 0;
  wb_pg_conn *c = wb_pg_take(r->pg, err, n);
  wb_pg_arg a[] = {TEXT(id), TEXT(c_id), TEXT(now)};
  bool ok = c && wb_tx(c, SNAPSHOT, err, n) && current_log(c, id, log_id, err, n, &code) &&
            wb_pg_ok(c,
                     "INSERT INTO wasmbox_checkpoints SELECT id, $2, $3::float8, head, log_id FROM wasmbox_sessions "
                     "WHERE id = $1",
                     3, a, err, n) &&
            copy_rows(c, id, owner, log_id, log_id, err, n);
  code = finish(r, c, ok, code, err, n);
  if (!code) snprintf(cid, WASMBOX_ID_MAX, "%s", c_id);
  return code;
}

int wb_remote_restore(wb_remote *r, const char *id, const char *cid, char *err, size_t n) {
  if (!wb_id_valid(cid)) return wb_fail(err, n, WASMBOX_EUSAGE, "'%s' is not a checkpoint id", cid ? cid : "");
  int code;
  wb_lease *l = wb_lease_take(r, id, err, n, &code); /* after the call in progress, before the next */
  if (!l) return code;
  char owner[2 * WASMBOX_ID_MAX], log_id[40], cp_log[40];
  snprintf(owner, sizeof owner, "%s/%s", id, cid);
  wb_random_name(log_id, sizeof log_id, "l");
  code = 0;
  wb_pg_arg a[] = {TEXT(id), TEXT(cid)};
  bool ok = wb_tx(l->c, "BEGIN", err, n);
  wb_pg_res *cp = ok ? wb_pg_exec(l->c,
                                  "SELECT c.head, c.log_id, s.head FROM wasmbox_checkpoints c JOIN wasmbox_sessions s "
                                  "ON s.id = c.session WHERE c.session = $1 AND c.id = $2",
                                  2, a, err, n)
                     : NULL;
  ok = cp != NULL;
  if (cp && wb_pg_rows(cp) != 1)
    ok = false, code = wb_fail(err, n, WASMBOX_EUSAGE, "session %s has no checkpoint %s", id, cid);
  wb_head h, cur;
  uint8_t *globals = NULL, *cur_globals = NULL;
  if (ok) {
    size_t hl, cl;
    const uint8_t *hp = wb_pg_bytes(cp, 0, 0, &hl), *cp_cur = wb_pg_bytes(cp, 0, 2, &cl);
    wb_pg_text(cp, 0, 1, cp_log, sizeof cp_log);
    ok = wb_head_parse(hp, hl, &h, &globals) && wb_head_parse(cp_cur, cl, &cur, &cur_globals);
    if (!ok) wb_fail(err, n, 0, "the store holds a damaged HEAD for session %s", id);
  }
  wb_pg_clear(cp);
  if (ok) {
    h.gen = cur.gen + 1; /* a new state: caches and live copies of the old one are stale */
    h.last_used = wb_wall_s();
    char used[32];
    snprintf(used, sizeof used, "%.6f", h.last_used);
    wb_pg_arg u[] = {TEXT(id), BYTES(&h, sizeof h), BYTES(globals, h.globals_size), TEXT(log_id), TEXT(used)};
    ok =
        wb_pg_ok(l->c, "DELETE FROM wasmbox_logs WHERE owner = $1", 1, a, err, n) &&
        wb_pg_ok(l->c, "DELETE FROM wasmbox_files WHERE owner = $1", 1, a, err, n) &&
        copy_rows(l->c, owner, id, cp_log, log_id, err, n) &&
        wb_pg_ok(
            l->c,
            "UPDATE wasmbox_sessions SET version = version + 1, head = $2::bytea || $3::bytea, log_id = $4, last_used = "
            "$5::float8 WHERE id = $1",
            5, u, err, n) &&
        wb_tx(l->c, "COMMIT", err, n);
  }
  if (!ok) {
    char e2[256];
    wb_tx(l->c, "ROLLBACK", e2, sizeof e2);
  }
  free(globals);
  free(cur_globals);
  wb_live_forget(r->st, id);
  wb_lease_drop(l);
  return ok ? WASMBOX_OK : code ? code : WASMBOX_EINTERNAL;
}

/* Remove session id and its checkpoints from the store (lease held on c). */
static bool destroy_rows(wb_pg_conn *c, const char *id, bool *found, char *err, size_t n) {
  wb_pg_arg a[] = {TEXT(id)};
  wb_pg_res *res = wb_tx(c, "BEGIN", err, n)
                       ? wb_pg_exec(c, "DELETE FROM wasmbox_sessions WHERE id = $1 RETURNING id", 1, a, err, n)
                       : NULL;
  *found = res && wb_pg_rows(res) == 1;
  bool ok = res &&
            wb_pg_ok(c, "DELETE FROM wasmbox_logs WHERE owner = $1 OR left(owner, length($1) + 1) = $1 || '/'", 1, a,
                     err, n) &&
            wb_pg_ok(c, "DELETE FROM wasmbox_files WHERE owner = $1 OR left(owner, length($1) + 1) = $1 || '/'", 1, a,
                     err, n) &&
            wb_pg_ok(c, "DELETE FROM wasmbox_checkpoints WHERE session = $1", 1, a, err, n) &&
            wb_tx(c, "COMMIT", err, n);
  wb_pg_clear(res);
  if (!ok) {
    char e2[256];
    wb_tx(c, "ROLLBACK", e2, sizeof e2);
  }
  return ok;
}

int wb_remote_destroy(wb_remote *r, const char *id, char *err, size_t n) {
  int code;
  wb_lease *l = wb_lease_take(r, id, err, n, &code);
  if (!l) return code;
  bool found = false;
  bool ok = destroy_rows(l->c, id, &found, err, n);
  char e2[256];
  if (ok) wb_session_destroy(r->st, id, e2, sizeof e2); /* the cache's copy, if any */
  wb_lease_drop(l);
  if (!ok) return WASMBOX_EINTERNAL;
  return found ? WASMBOX_OK : wb_fail(err, n, WASMBOX_EUSAGE, "no session %s", id);
}

static const char info_sql[] =
    "SELECT id, language, created, last_used, ttl,"
    " (SELECT count(*) FROM wasmbox_checkpoints c WHERE c.session = s.id),"
    " (SELECT coalesce(sum(octet_length(data)), 0)::int8 FROM wasmbox_logs l WHERE l.owner = s.id) +"
    " (SELECT coalesce(sum(octet_length(data)), 0)::int8 FROM wasmbox_files f WHERE f.owner = s.id),"
    " meta FROM wasmbox_sessions s";

static void info_row(const wb_pg_res *res, int i, wasmbox_session_info *o) {
  memset(o, 0, sizeof *o);
  wb_pg_text(res, i, 0, o->id, sizeof o->id);
  wb_pg_text(res, i, 1, o->language, sizeof o->language);
  o->created = wb_pg_f64(res, i, 2);
  o->last_used = wb_pg_f64(res, i, 3);
  o->ttl_seconds = wb_pg_f64(res, i, 4);
  o->checkpoints = (size_t)wb_pg_i64(res, i, 5);
  o->disk_bytes = (uint64_t)wb_pg_i64(res, i, 6);
  size_t len = 0;
  const uint8_t *meta = wb_pg_bytes(res, i, 7, &len);
  wb_meta_owner(meta, len, o->owner);
}

/* The cache's copy of the meta says it when there is one (an owner never
 * changes); else the store's row. */
int wb_remote_owner(wb_remote *r, const char *id, char owner[WASMBOX_OWNER_MAX], char *err, size_t n) {
  owner[0] = 0;
  if (!wb_id_valid(id)) return wb_fail(err, n, WASMBOX_EUSAGE, "'%s' is not a session id", id ? id : "");
  char e2[256];
  if (wb_session_owner(r->st, id, owner, e2, sizeof e2) == WASMBOX_OK) return WASMBOX_OK;
  wb_pg_conn *c = wb_pg_take(r->pg, err, n);
  wb_pg_arg a[] = {TEXT(id)};
  wb_pg_res *res = c ? wb_pg_exec(c, "SELECT meta FROM wasmbox_sessions WHERE id = $1", 1, a, err, n) : NULL;
  int code = !res                   ? WASMBOX_EINTERNAL
             : wb_pg_rows(res) == 1 ? WASMBOX_OK
                                    : wb_fail(err, n, WASMBOX_EUSAGE, "no session %s", id);
  size_t len = 0;
  const uint8_t *meta = code ? NULL : wb_pg_bytes(res, 0, 0, &len);
  if (meta) wb_meta_owner(meta, len, owner);
  wb_pg_clear(res);
  wb_pg_give(r->pg, c);
  return code;
}

int wb_remote_info(wb_remote *r, const char *id, wasmbox_session_info *out, char *err, size_t n) {
  if (!wb_id_valid(id)) return wb_fail(err, n, WASMBOX_EUSAGE, "'%s' is not a session id", id ? id : "");
  char sql[sizeof info_sql + 32];
  snprintf(sql, sizeof sql, "%s WHERE id = $1", info_sql);
  wb_pg_conn *c = wb_pg_take(r->pg, err, n);
  wb_pg_arg a[] = {TEXT(id)};
  wb_pg_res *res = c ? wb_pg_exec(c, sql, 1, a, err, n) : NULL;
  int code = !res                   ? WASMBOX_EINTERNAL
             : wb_pg_rows(res) == 1 ? WASMBOX_OK
                                    : wb_fail(err, n, WASMBOX_EUSAGE, "no session %s", id);
  if (!code) info_row(res, 0, out);
  wb_pg_clear(res);
  wb_pg_give(r->pg, c);
  return code;
}

int wb_remote_list(wb_remote *r, wasmbox_session_info **out, size_t *count, char *err, size_t n) {
  *out = NULL;
  *count = 0;
  wb_pg_conn *c = wb_pg_take(r->pg, err, n);
  wb_pg_res *res = c ? wb_pg_exec(c, info_sql, 0, NULL, err, n) : NULL;
  int code = res ? WASMBOX_OK : WASMBOX_EINTERNAL;
  int rows = res ? wb_pg_rows(res) : 0;
  if (rows && !(*out = calloc((size_t)rows, sizeof **out))) code = wb_fail(err, n, WASMBOX_EINTERNAL, "out of memory");
  for (int i = 0; !code && i < rows; i++) info_row(res, i, &(*out)[(*count)++]);
  wb_pg_clear(res);
  wb_pg_give(r->pg, c);
  return code;
}

int wb_remote_prune(wb_remote *r, size_t *removed, char *err, size_t n) {
  *removed = 0;
  char now[32];
  snprintf(now, sizeof now, "%.6f", wb_wall_s());
  wb_pg_conn *c = wb_pg_take(r->pg, err, n);
  wb_pg_arg a[] = {TEXT(now)};
  char stale[32]; /* paused runs past WASMBOX_RESUME_TTL_S */
  snprintf(stale, sizeof stale, "%.6f", wb_wall_s() - WASMBOX_RESUME_TTL_S);
  wb_pg_arg sa[] = {TEXT(stale)};
  wb_pg_res *res =
      c && wb_pg_ok(c, "DELETE FROM wasmbox_paused WHERE created < $1::float8", 1, sa, err, n)
          ? wb_pg_exec(c, "SELECT id FROM wasmbox_sessions WHERE last_used + ttl < $1::float8", 1, a, err, n)
          : NULL;
  bool ok = res != NULL;
  for (int i = 0; ok && i < wb_pg_rows(res); i++) {
    char id[WASMBOX_ID_MAX];
    wb_pg_text(res, i, 0, id, sizeof id);
    wb_pg_arg k[] = {TEXT(id)};
    /* a session with a call in progress is in use, so not idle: left */
    wb_pg_res *got = wb_pg_exec(c, "SELECT pg_try_advisory_lock(hashtextextended($1, 0))", 1, k, err, n);
    size_t len = 0;
    const uint8_t *b = got && wb_pg_rows(got) == 1 ? wb_pg_bytes(got, 0, 0, &len) : NULL;
    bool mine = b && len == 1 && b[0];
    wb_pg_clear(got);
    ok = got != NULL;
    bool found = false;
    if (mine && destroy_rows(c, id, &found, err, n) && found) (*removed)++;
    if (mine) ok = wb_pg_ok(c, WB_UNLOCK_SQL, 1, k, err, n);
  }
  wb_pg_clear(res);
  /* the cache: what the store no longer has, and its own idle copies */
  wasmbox_session_info *local = NULL;
  size_t nlocal = 0;
  char e2[256];
  if (ok && wb_session_list(r->st, &local, &nlocal, e2, sizeof e2) == WASMBOX_OK)
    for (size_t i = 0; i < nlocal; i++) {
      wb_pg_arg k[] = {TEXT(local[i].id)};
      wb_pg_res *has = wb_pg_exec(c, "SELECT 1 FROM wasmbox_sessions WHERE id = $1", 1, k, e2, sizeof e2);
      if (has && !wb_pg_rows(has)) wb_session_destroy(r->st, local[i].id, e2, sizeof e2);
      wb_pg_clear(has);
    }
  free(local);
  size_t dropped;
  if (ok) wb_session_prune(r->st, &dropped, e2, sizeof e2);
  wb_pg_give(r->pg, c);
  return ok ? WASMBOX_OK : WASMBOX_EINTERNAL;
}
