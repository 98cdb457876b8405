/* The store's rows and the cache's marker, parsed and checked (see rows.h). */
#include "session/rows.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* wb_fail for the functions here that answer true or false */
#define refuse(err, n, ...) (wb_fail(err, n, 0, __VA_ARGS__), false)

#define TEXT_MAX (16u << 20) /* of a meta: as wb_read_small reads a file */

/* ---- manifests --------------------------------------------------------------------- */

void wb_manifest_clear(wb_manifest *m) {
  for (size_t i = 0; i < m->n; i++) free(m->v[i].path);
  free(m->v);
  *m = (wb_manifest){0};
}

wb_entry *wb_manifest_add(wb_manifest *m, const char *path) {
  if (m->n == m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 32;
    wb_entry *v = realloc(m->v, cap * sizeof *v);
    if (!v) return NULL;
    m->v = v, m->cap = cap;
  }
  wb_entry *e = &m->v[m->n];
  *e = (wb_entry){0};
  if (!(e->path = strdup(path))) return NULL;
  m->n++;
  return e;
}

static int by_path(const void *a, const void *b) {
  return strcmp(((const wb_entry *)a)->path, ((const wb_entry *)b)->path);
}

void wb_manifest_sort(wb_manifest *m) {
  if (m->n) qsort(m->v, m->n, sizeof *m->v, by_path);
}

wb_entry *wb_manifest_find(const wb_manifest *m, const char *path) {
  wb_entry key = {.path = (char *)path};
  return m->n ? bsearch(&key, m->v, m->n, sizeof *m->v, by_path) : NULL;
}

/* ---- the marker (the `stored` file) ------------------------------------------------ */

void wb_marker_clear(wb_marker *mk) { wb_manifest_clear(&mk->files); }

/* One entry line: kind, inode, size, mtime, hash and path in hex. */
static bool entry_parse(const char *line, wb_manifest *files) {
  char kind, hash[65], path[8200];
  unsigned long long ino, size, mtime;
  bool ok = sscanf(line, "%c %llu %llu %llu %64s %8199s", &kind, &ino, &size, &mtime, hash, path) == 6;
  size_t plen = ok ? strlen(path) : 0;
  char *p = ok ? malloc(plen / 2 + 1) : NULL;
  ok = p && wb_unhex(path, plen, p);
  if (ok) p[plen / 2] = 0;
  /* a NUL would cut the path: another entry than the one recorded */
  ok = ok && strlen(p) == plen / 2;
  wb_entry *e = ok ? wb_manifest_add(files, p) : NULL;
  free(p);
  ok = e && strlen(hash) == 64 && wb_unhex(hash, 64, e->hash);
  if (e) e->kind = kind, e->ino = ino, e->size = size, e->mtime = mtime;
  return ok;
}

bool wb_marker_parse(const char *bytes, size_t len, wb_marker *mk) {
  *mk = (wb_marker){0};
  /* a copy to cut into lines (a NUL ends the text, as it did the file's) */
  char *text = len < TEXT_MAX ? malloc(len + 1) : NULL;
  if (!text) return false;
  memcpy(text, bytes, len);
  text[len] = 0;
  char *save = NULL, *line = strtok_r(text, "\n", &save);
  bool ok = line && !strcmp(line, "wasmbox-stored 1");
  line = ok ? strtok_r(NULL, "\n", &save) : NULL;
  long long v;
  unsigned long long g, no, ln, ws;
  ok = line && sscanf(line, "%lld %llu %39s %llu %llu %llu", &v, &g, mk->log_id, &no, &ln, &ws) == 6;
  if (ok) mk->version = v, mk->gen = g, mk->log_no = no, mk->log_len = ln, mk->ws_no = ws;
  while (ok && (line = strtok_r(NULL, "\n", &save))) ok = entry_parse(line, &mk->files);
  free(text);
  if (ok) wb_manifest_sort(&mk->files);
  else wb_marker_clear(mk);
  return ok;
}

bool wb_marker_format(const wb_marker *mk, char **text, size_t *len) {
  *text = NULL;
  FILE *f = open_memstream(text, len);
  if (!f) return false;
  fprintf(f, "wasmbox-stored 1\n%lld %llu %s %llu %llu %llu\n", (long long)mk->version, (unsigned long long)mk->gen,
          mk->log_id, (unsigned long long)mk->log_no, (unsigned long long)mk->log_len, (unsigned long long)mk->ws_no);
  bool ok = true;
  for (size_t i = 0; ok && i < mk->files.n; i++) {
    const wb_entry *e = &mk->files.v[i];
    char h[65], *p = malloc(2 * strlen(e->path) + 1);
    if (!(ok = p != NULL)) break;
    wb_hex(h, e->hash, 32);
    wb_hex(p, e->path, strlen(e->path));
    fprintf(f, "%c %llu %llu %llu %s %s\n", e->kind, (unsigned long long)e->ino, (unsigned long long)e->size,
            (unsigned long long)e->mtime, h, p);
    free(p);
  }
  if (fclose(f) == 0 && ok) return true;
  free(*text);
  *text = NULL;
  return false;
}

bool wb_marker_read(int dir, wb_marker *mk) {
  *mk = (wb_marker){0};
  size_t len;
  char *text = wb_read_small(dir, "stored", &len);
  bool ok = text && wb_marker_parse(text, len, mk);
  free(text);
  return ok;
}

/* Not flushed (its two fsyncs were 0.2 of the 1.6 ms a session call took
 * on PostgreSQL): whatever a crash leaves, a marker that is old, empty or
 * damaged only makes the next lease reload from the store, as a crash
 * between the store's commit and this write always could (remote_pull.c
 * takes the cache only when HEAD and the workspace match the marker). */
bool wb_marker_write(int dir, const wb_marker *mk) {
  char *text;
  size_t len;
  bool ok = wb_marker_format(mk, &text, &len) && wb_write_replace(dir, "stored", text, len);
  free(text);
  return ok;
}

/* ---- HEAD and workspace rows ----------------------------------------------------------- */

bool wb_head_parse(const uint8_t *p, size_t len, wb_head *h, uint8_t **globals) {
  if (len < sizeof *h) return false;
  memcpy(h, p, sizeof *h);
  if (memcmp(h->magic, WB_HEAD_MAGIC, 8) || len != sizeof *h + h->globals_size || h->pages > 65536) return false;
  *globals = malloc(h->globals_size ? h->globals_size : 1);
  if (*globals) memcpy(*globals, p + sizeof *h, h->globals_size);
  return *globals != NULL;
}

bool wb_row_path_ok(const char *p) {
  for (const char *c = p;;) {
    size_t len = strcspn(c, "/");
    if (!len || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.')) return false;
    if (!c[len]) return true;
    c += len + 1;
  }
}

/* ---- meta between the cache and the store: mounts by name ------------------------------- */

/* bytes as the meta they are, or false (m is then empty) */
static bool meta_of(const void *bytes, size_t len, wb_meta *m) {
  memset(m, 0, sizeof *m);
  char *copy = bytes && len < TEXT_MAX ? malloc(len + 1) : NULL;
  if (!copy) return false;
  memcpy(copy, bytes, len);
  copy[len] = 0;
  bool ok = wb_meta_parse(copy, m);
  free(copy);
  return ok;
}

char *wb_meta_to_store(const wasmbox_named_mount *named, size_t nnamed, const char *text, size_t len, size_t *out_len,
                       char *err, size_t n) {
  char *out = NULL;
  wb_meta m;
  bool ok = meta_of(text, len, &m);
  if (!ok) return wb_fail(err, n, 0, "the session's meta cannot be read"), NULL;
  for (size_t i = 0; ok && i < m.nmounts; i++) {
    /* a cache's meta holds host paths: a name here was never resolved */
    if (!m.mounts[i].host_dir) {
      ok = refuse(err, n, "the session's meta cannot be read");
      break;
    }
    size_t k = 0;
    while (k < nnamed && strcmp(named[k].host_dir, m.mounts[i].host_dir)) k++;
    if (k == nnamed)
      ok = refuse(err, n,
                  "mount %s of the session is not one of the named mounts this server shares with the others "
                  "(wasmbox_options.named_mounts): a session in a shared store mounts only those",
                  m.mounts[i].guest_path);
    else ok = (m.mount_names[i] = strdup(named[k].name)) != NULL;
  }
  if (ok && !wb_meta_format(&m, &out, out_len)) ok = refuse(err, n, "out of memory");
  wb_meta_clear(&m);
  return ok ? out : NULL;
}

/* What the store holds is data: a host path in it is refused, and so is a
 * name this server does not have. */
char *wb_meta_from_store(const wasmbox_named_mount *named, size_t nnamed, const char *id, const uint8_t *meta,
                         size_t len, size_t *out_len, char *err, size_t n) {
  if (len >= TEXT_MAX) return wb_fail(err, n, 0, "the store's meta of session %s is too large", id), NULL;
  char *out = NULL;
  wb_meta m;
  bool ok = meta_of(meta, len, &m);
  if (!ok) return wb_fail(err, n, 0, "the store holds a damaged meta for session %s", id), NULL;
  for (size_t i = 0; ok && i < m.nmounts; i++) {
    if (!m.mount_names[i]) {
      ok = refuse(err, n, "the store's meta of session %s names a host directory: refused as damaged", id);
      break;
    }
    size_t k = 0;
    while (k < nnamed && strcmp(named[k].name, m.mount_names[i])) k++;
    if (k == nnamed)
      ok = refuse(err, n,
                  "session %s mounts '%s', which this server does not have (give every server the same "
                  "named mounts)",
                  id, m.mount_names[i]);
    else if ((m.mounts[i].host_dir = strdup(named[k].host_dir))) free(m.mount_names[i]), m.mount_names[i] = NULL;
    else ok = false;
  }
  if (ok && !wb_meta_format(&m, &out, out_len)) ok = refuse(err, n, "out of memory");
  wb_meta_clear(&m);
  return ok ? out : NULL;
}

void wb_meta_owner(const uint8_t *meta, size_t len, char owner[WASMBOX_OWNER_MAX]) {
  owner[0] = 0;
  wb_meta m;
  if (meta_of(meta, len, &m)) snprintf(owner, WASMBOX_OWNER_MAX, "%s", m.owner), wb_meta_clear(&m);
}

void wb_marker_drop(int dir) { unlinkat(dir, "stored", 0); }
