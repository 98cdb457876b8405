/* Publishing what the cache holds (remote_internal.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session/remote_internal.h"
#include "session/remote_cache.h"

#define CHUNK_MAX (8u << 20) /* bytes of log per row */

static bool push_log(wb_lease *l, int dir, const wb_head *h, const wb_marker *mk, char log_id[40], char *err,
                     size_t n) {
  bool whole = h->log_no != mk->log_no || h->log_len < mk->log_len;
  uint64_t from = whole ? 0 : mk->log_len;
  if (whole) wb_random_name(log_id, 40, "l");
  else snprintf(log_id, 40, "%s", mk->log_id);
  if (from == h->log_len && !whole) return true;
  int fd = wb_cache_log_open(dir, h->log_no);
  if (fd < 0) return refuse(err, n, "cannot read the session's log: %s", strerror(errno));
  bool ok = true;
  uint8_t *buf = malloc(CHUNK_MAX);
  for (uint64_t at = from; ok && at < h->log_len;) {
    size_t k = h->log_len - at < CHUNK_MAX ? (size_t)(h->log_len - at) : CHUNK_MAX;
    ok = buf && pread(fd, buf, k, (off_t)at) == (ssize_t)k;
    char off[24];
    snprintf(off, sizeof off, "%llu", (unsigned long long)at);
    wb_pg_arg a[] = {TEXT(l->id), TEXT(log_id), TEXT(off), BYTES(buf, k)};
    ok = ok && wb_pg_ok(l->c, "INSERT INTO wasmbox_logs VALUES ($1, $2, $3::int8, $4)", 4, a, err, n);
    at += k;
  }
  free(buf);
  close(fd);
  if (ok && whole) {
    wb_pg_arg a[] = {TEXT(l->id), TEXT(log_id)};
    ok = wb_pg_ok(l->c, "DELETE FROM wasmbox_logs WHERE owner = $1 AND log_id <> $2", 2, a, err, n);
  }
  return ok || (err[0] ? false : refuse(err, n, "cannot read the session's log"));
}

/* Upsert the entries that changed since the marker, delete those gone;
 * *changed: anything was written. `now` gets the hashes. */
static bool push_files(wb_lease *l, int ws, const wb_marker *mk, wb_manifest *now, bool *changed, char *err, size_t n) {
  bool ok = true;
  for (size_t i = 0; ok && i < now->n; i++) {
    wb_entry *e = &now->v[i];
    const wb_entry *was = wb_manifest_find(&mk->files, e->path);
    if (was && was->kind == e->kind &&
        (e->kind == 'd' || (was->ino == e->ino && was->size == e->size && was->mtime == e->mtime))) {
      memcpy(e->hash, was->hash, 32);
      continue;
    }
    *changed = true;
    size_t len = 0;
    uint8_t *data = e->kind == 'd' ? (uint8_t *)strdup("") : wb_cache_read_entry(ws, e, &len);
    if (!data) return refuse(err, n, "cannot read %s in the session's workspace", e->path);
    char kind[2] = {e->kind, 0};
    wb_pg_arg a[] = {TEXT(l->id), BYTES(e->path, strlen(e->path)), TEXT(kind), BYTES(data, len)};
    wb_pg_res *res =
        wb_pg_exec(l->c,
                   "INSERT INTO wasmbox_files VALUES ($1, $2, $3, $4, sha256($4)) ON CONFLICT (owner, path) DO "
                   "UPDATE SET kind = excluded.kind, data = excluded.data, hash = excluded.hash RETURNING hash",
                   4, a, err, n);
    free(data);
    size_t hlen = 0;
    const uint8_t *h = res && wb_pg_rows(res) == 1 ? wb_pg_bytes(res, 0, 0, &hlen) : NULL;
    ok = h && hlen == 32;
    if (ok) memcpy(e->hash, h, 32);
    wb_pg_clear(res);
  }
  for (size_t i = 0; ok && i < mk->files.n; i++) {
    if (wb_manifest_find(now, mk->files.v[i].path)) continue;
    *changed = true;
    const char *p = mk->files.v[i].path;
    wb_pg_arg a[] = {TEXT(l->id), BYTES(p, strlen(p))};
    ok = wb_pg_ok(l->c, "DELETE FROM wasmbox_files WHERE owner = $1 AND path = $2", 2, a, err, n);
  }
  return ok;
}

/* The cache's state into the store, one transaction (lease held). */
int wb_remote_publish(wb_lease *l, char *err, size_t n) {
  wb_store *st = l->r->st;
  int lockfd = -1, code = WASMBOX_EINTERNAL;
  int dir = wb_open_locked(st, l->id, &lockfd, true, err, n, &code);
  if (dir < 0) return code;
  wb_head h;
  uint8_t *globals = NULL;
  wb_marker mk;
  wb_manifest now = {0};
  bool have_mk = wb_marker_read(dir, &mk);
  /* a call that never finished (its worker killed) leaves its workspace
   * changes beside a copy from before: put that back before reading */
  bool ok = have_mk && wb_head_read(dir, &h, &globals) && wb_session_repair(dir, &h);
  if (!ok) {
    code = wb_fail(err, n, WASMBOX_EINTERNAL, "the cache of session %s lost track of the store's version", l->id);
    goto out;
  }
  int ws = wb_cache_ws_open(dir, h.ws_no);
  ok = ws >= 0 && wb_cache_walk(ws, &now);
  wb_manifest_sort(&now);
  if (!ok) {
    if (ws >= 0) close(ws);
    code = wb_fail(err, n, WASMBOX_EINTERNAL, "cannot read the workspace of session %s", l->id);
    goto out;
  }
  bool files_changed = false, log_changed = h.log_no != mk.log_no || h.log_len != mk.log_len;
  char log_id[40];
  ok = wb_tx(l->c, "BEGIN", err, n) && push_log(l, dir, &h, &mk, log_id, err, n) &&
       push_files(l, ws, &mk, &now, &files_changed, err, n);
  close(ws);
  if (ok && h.gen == mk.gen && !log_changed && !files_changed) {
    ok = wb_tx(l->c, "ROLLBACK", err, n); /* nothing to publish */
    code = ok ? WASMBOX_OK : WASMBOX_EINTERNAL;
    goto out;
  }
  char version[24], used[32];
  snprintf(version, sizeof version, "%lld", (long long)mk.version);
  snprintf(used, sizeof used, "%.6f", h.last_used);
  wb_pg_arg a[] = {TEXT(l->id),  BYTES(&h, sizeof h), BYTES(globals, h.globals_size),
                   TEXT(log_id), TEXT(used),          TEXT(version)};
  wb_pg_res *res =
      ok ? wb_pg_exec(l->c,
                      "UPDATE wasmbox_sessions SET version = version + 1, head = $2::bytea || $3::bytea, log_id = $4,"
                      " last_used = $5::float8 WHERE id = $1 AND version = $6::int8 RETURNING version",
                      6, a, err, n)
         : NULL;
  ok = res && wb_pg_rows(res) == 1;
  int64_t next = ok ? wb_pg_i64(res, 0, 0) : 0;
  if (res && !ok) wb_fail(err, n, 0, "session %s changed in the store while this server held its lease", l->id);
  wb_pg_clear(res);
  ok = ok && wb_tx(l->c, "COMMIT", err, n);
  if (ok) {
    wb_marker_clear(&mk);
    mk = (wb_marker){
        .version = next, .gen = h.gen, .log_no = h.log_no, .log_len = h.log_len, .ws_no = h.ws_no, .files = now};
    now = (wb_manifest){0};
    snprintf(mk.log_id, sizeof mk.log_id, "%s", log_id);
    ok = wb_marker_write(dir, &mk); /* else the next lease reloads: the store has it */
    code = WASMBOX_OK;
  } else {
    char e2[256];
    wb_tx(l->c, "ROLLBACK", e2, sizeof e2);
    code = WASMBOX_EINTERNAL;
  }
out:
  if (code) wb_marker_drop(dir); /* stale: reloaded at the next lease */
  if (have_mk) wb_marker_clear(&mk);
  wb_manifest_clear(&now);
  free(globals);
  close(lockfd);
  close(dir);
  return code;
}
