/* Bringing the cache to the store's version (remote_internal.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session/remote_internal.h"
#include "session/remote_cache.h"

/* Write the log's chunks from `from` on into log-N, which then ends at len. */
static bool pull_log(wb_lease *l, int dir, const char *log_id, uint64_t log_no, uint64_t from, uint64_t len, char *err,
                     size_t n) {
  char off[24];
  snprintf(off, sizeof off, "%llu", (unsigned long long)from);
  wb_cache_log *lw = wb_cache_log_begin(dir, log_no, from > 0, err, n);
  if (!lw) return false;
  wb_pg_arg a[] = {TEXT(l->id), TEXT(log_id), TEXT(off)};
  wb_pg_res *res = wb_pg_exec(
      l->c, "SELECT off, data FROM wasmbox_logs WHERE owner = $1 AND log_id = $2 AND off >= $3::int8 ORDER BY off", 3,
      a, err, n);
  uint64_t at = from;
  bool ok = res != NULL;
  for (int i = 0; ok && i < wb_pg_rows(res); i++) {
    size_t dlen;
    const uint8_t *d = wb_pg_bytes(res, i, 1, &dlen);
    if ((uint64_t)wb_pg_i64(res, i, 0) != at) break; /* a gap: stop, the length check below fails */
    ok = wb_cache_log_put(lw, at, d, dlen);
    at += dlen;
  }
  wb_pg_clear(res);
  if (ok && at < len) ok = refuse(err, n, "the store's log of session %s is shorter than its HEAD says", l->id);
  return wb_cache_log_end(lw, ok, len, err, n);
}

/* Write one file, directory or symlink of the store's workspace at e->path. */
static bool pull_entry(wb_lease *l, int ws, wb_entry *e, char *err, size_t n) {
  if (e->kind == 'd') return wb_cache_put_entry(ws, e, NULL, 0, err, n);
  wb_pg_arg a[] = {TEXT(l->id), BYTES(e->path, strlen(e->path))};
  wb_pg_res *res = wb_pg_exec(l->c, "SELECT data FROM wasmbox_files WHERE owner = $1 AND path = $2", 2, a, err, n);
  bool ok = res && wb_pg_rows(res) == 1;
  size_t len = 0;
  const uint8_t *data = ok ? wb_pg_bytes(res, 0, 0, &len) : NULL;
  if (res && !ok) wb_fail(err, n, 0, "the store has no content for %s in session %s", e->path, l->id);
  ok = ok && wb_cache_put_entry(ws, e, data ? data : (const uint8_t *)"", len, err, n);
  wb_pg_clear(res);
  return ok;
}

/* Make the workspace ws match the store's list (res: path, kind, hash), keeping
 * what the marker shows unchanged; *out gets the new manifest. */
static bool pull_workspace(wb_lease *l, int ws, const wb_marker *mk, wb_pg_res *res, wb_manifest *out, char *err,
                           size_t n) {
  wb_manifest local = {0};
  bool ok = wb_cache_walk(ws, &local);
  if (!ok) return wb_manifest_clear(&local), refuse(err, n, "cannot read the cached workspace");
  wb_manifest_sort(&local);
  for (int i = 0; ok && i < wb_pg_rows(res); i++) {
    size_t plen, hlen, klen;
    const uint8_t *p = wb_pg_bytes(res, i, 0, &plen), *k = wb_pg_bytes(res, i, 1, &klen),
                  *h = wb_pg_bytes(res, i, 2, &hlen);
    char path[8200];
    if (!plen || plen >= sizeof path || memchr(p, 0, plen) || hlen != 32 || klen != 1) {
      ok = refuse(err, n, "the store holds a damaged workspace entry for session %s", l->id);
      break;
    }
    memcpy(path, p, plen);
    path[plen] = 0;
    /* paths come from our own walk; still, nothing may climb out */
    if (!wb_row_path_ok(path)) {
      ok = refuse(err, n, "the store holds a path outside the workspace for session %s", l->id);
      break;
    }
    wb_entry *e = wb_manifest_add(out, path);
    if (!e) {
      ok = false;
      break;
    }
    e->kind = (char)k[0];
    memcpy(e->hash, h, 32);
    const wb_entry *was = wb_manifest_find(&local, path), *rec = wb_manifest_find(&mk->files, path);
    bool same = was && was->kind == e->kind &&
                (e->kind == 'd' || (rec && rec->kind == e->kind && !memcmp(rec->hash, e->hash, 32) &&
                                    rec->ino == was->ino && rec->size == was->size && rec->mtime == was->mtime));
    if (!same) ok = pull_entry(l, ws, e, err, n);
  }
  /* what the store does not have goes, deepest first (out sorted first:
   * wb_manifest_find is a binary search, and rows come in any order) */
  wb_manifest_sort(out);
  for (size_t i = local.n; ok && i-- > 0;)
    if (!wb_manifest_find(out, local.v[i].path)) ok = wb_cache_remove_entry(ws, local.v[i].path);
  wb_manifest_clear(&local);
  if (!ok) return false;
  /* the new manifest's stat fields, as written */
  wb_manifest now = {0};
  ok = wb_cache_walk(ws, &now);
  wb_manifest_sort(&now);
  for (size_t i = 0; ok && i < out->n; i++) {
    const wb_entry *w = wb_manifest_find(&now, out->v[i].path);
    if (w) out->v[i].ino = w->ino, out->v[i].size = w->size, out->v[i].mtime = w->mtime;
  }
  wb_manifest_clear(&now);
  return ok || refuse(err, n, "cannot read the cached workspace");
}

/* Bring session l->id's cache to the store's version (lease held). */
int wb_remote_pull(wb_lease *l, bool *reloaded, char *err, size_t n) {
  *reloaded = false;
  wb_store *st = l->r->st;
  wb_pg_arg a[] = {TEXT(l->id)};
  wb_pg_res *row =
      wb_pg_exec(l->c, "SELECT version, meta, head, log_id FROM wasmbox_sessions WHERE id = $1", 1, a, err, n);
  if (!row) return WASMBOX_EINTERNAL;
  if (wb_pg_rows(row) != 1) {
    wb_pg_clear(row);
    char e2[256];
    wb_session_destroy(st, l->id, e2, sizeof e2); /* ended elsewhere: so here */
    return wb_fail(err, n, WASMBOX_EUSAGE, "no session %s", l->id);
  }
  int64_t version = wb_pg_i64(row, 0, 0);
  size_t meta_len, head_len;
  const uint8_t *meta = wb_pg_bytes(row, 0, 1, &meta_len), *head = wb_pg_bytes(row, 0, 2, &head_len);
  char log_id[40];
  wb_pg_text(row, 0, 3, log_id, sizeof log_id);
  wb_head sh, lh;
  uint8_t *globals = NULL, *lglobals = NULL;
  if (!wb_head_parse(head, head_len, &sh, &globals)) {
    wb_pg_clear(row);
    return wb_fail(err, n, WASMBOX_EINTERNAL, "the store holds a damaged HEAD for session %s", l->id);
  }
  size_t local_len = 0;
  char *local = wb_meta_from_store(l->r->named, l->r->nnamed, l->id, meta, meta_len, &local_len, err, n);
  int dir = local ? wb_cache_dir(st, l->id, (const uint8_t *)local, local_len, &sh, globals) : -1;
  bool translated = local != NULL;
  free(local);
  wb_pg_clear(row);
  if (!translated) {
    free(globals);
    return WASMBOX_EINTERNAL;
  }
  int lockfd = -1, code = WASMBOX_EINTERNAL;
  if (dir >= 0) close(dir);
  dir = dir < 0 ? -1 : wb_open_locked(st, l->id, &lockfd, true, err, n, &code);
  if (dir < 0) {
    free(globals);
    return err[0] ? code : wb_fail(err, n, WASMBOX_EINTERNAL, "cannot cache session %s: %s", l->id, strerror(errno));
  }
  bool have_head = wb_head_read(dir, &lh, &lglobals);
  if (have_head) wb_session_repair(dir, &lh); /* what a local call left */
  wb_marker mk;
  bool have_mk = wb_marker_read(dir, &mk);
  int rc = WASMBOX_OK;
  if (have_mk && have_head && mk.version == version && lh.gen == mk.gen && lh.log_no == mk.log_no &&
      lh.log_len == mk.log_len && lh.ws_no == mk.ws_no && wb_cache_matches(dir, lh.ws_no, &mk)) {
    /* the cache holds this version */
  } else {
    *reloaded = true;
    wb_marker fresh = {
        .version = version, .gen = sh.gen, .log_no = sh.log_no, .log_len = sh.log_len, .ws_no = sh.ws_no};
    snprintf(fresh.log_id, sizeof fresh.log_id, "%s", log_id);
    /* the log: only what is new, when the cache's copy is a prefix of it */
    bool delta = have_mk && have_head && !strcmp(mk.log_id, log_id) && mk.log_no == sh.log_no &&
                 lh.log_no == mk.log_no && lh.log_len == mk.log_len && mk.log_len <= sh.log_len;
    bool ok = pull_log(l, dir, log_id, sh.log_no, delta ? mk.log_len : 0, sh.log_len, err, n);
    /* the workspace: the cache's own under the store's name */
    int ws = ok ? wb_cache_ws_adopt(dir, have_head ? &lh.ws_no : NULL, sh.ws_no, err, n) : -1;
    ok = ws >= 0;
    wb_pg_res *files =
        ws >= 0 ? wb_pg_exec(l->c, "SELECT path, kind, hash FROM wasmbox_files WHERE owner = $1", 1, a, err, n) : NULL;
    ok = files && pull_workspace(l, ws, have_mk ? &mk : &(wb_marker){0}, files, &fresh.files, err, n);
    wb_pg_clear(files);
    if (ws >= 0) close(ws);
    wb_manifest_sort(&fresh.files);
    /* HEAD last: until it is written the cache's old state stands */
    ok = ok && wb_head_write(dir, &sh, globals) && wb_session_repair(dir, &sh) && wb_marker_write(dir, &fresh);
    if (!ok) {
      wb_marker_drop(dir);
      rc = err[0] ? WASMBOX_EINTERNAL
                  : wb_fail(err, n, WASMBOX_EINTERNAL, "cannot cache session %s: %s", l->id, strerror(errno));
    }
    wb_marker_clear(&fresh);
    wb_live_forget(st, l->id);
  }
  if (have_mk) wb_marker_clear(&mk);
  free(globals);
  free(lglobals);
  close(lockfd);
  close(dir);
  return rc;
}
