/* Sessions in a store shared by servers (see remote.h). */
#include "session/remote.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session/pg.h"
#include "session/rows.h"
#include "util/os.h"
#include "session/store.h"
#include "session/tree.h"
#include "wasi/resolve.h"

#define CHUNK_MAX (8u << 20) /* bytes of log per row */
#define DEPTH_MAX 64         /* of the workspace tree walked */

/* wb_fail for the functions here that answer true or false */
#define refuse(err, n, ...) (wb_fail(err, n, 0, __VA_ARGS__), false)

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

/* ---- the workspace as it is on disk ----------------------------------------------- */

static bool walk(int dir, const char *prefix, wb_manifest *m, int depth) {
  if (depth > DEPTH_MAX) return false;
  int it = dup(dir);
  DIR *d = it >= 0 ? fdopendir(it) : NULL;
  if (!d) {
    if (it >= 0) close(it);
    return false;
  }
  bool ok = true;
  struct dirent *de;
  while (ok && (de = readdir(d))) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    struct stat sb;
    if (fstatat(dir, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
      ok = false;
      break;
    }
    char kind = S_ISDIR(sb.st_mode) ? 'd' : S_ISREG(sb.st_mode) ? 'f' : S_ISLNK(sb.st_mode) ? 'l' : 0;
    if (!kind) continue; /* nothing else can be made in a workspace */
    size_t plen = strlen(prefix) + strlen(de->d_name) + 2;
    char *path = malloc(plen);
    if (!path) {
      ok = false;
      break;
    }
    snprintf(path, plen, "%s%s%s", prefix, *prefix ? "/" : "", de->d_name);
    wb_entry *e = wb_manifest_add(m, path);
    ok = e != NULL;
    if (ok && kind != 'd')
      *e = (wb_entry){.kind = kind,
                      .ino = sb.st_ino,
                      .size = (uint64_t)sb.st_size,
                      .mtime = (uint64_t)sb.st_mtim.tv_sec * 1000000000u + (uint64_t)sb.st_mtim.tv_nsec,
                      .path = e->path};
    if (ok && kind == 'd') {
      e->kind = 'd';
      int sub = openat(dir, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      ok = sub >= 0 && walk(sub, path, m, depth + 1);
      if (sub >= 0) close(sub);
    }
    free(path);
  }
  closedir(d);
  return ok;
}

/* Content of a file or a symlink's target under the workspace. */
static uint8_t *read_entry(int ws, const wb_entry *e, size_t *len) {
  if (e->kind == 'l') {
    char *buf = malloc(4097);
    ssize_t r = buf ? readlinkat(ws, e->path, buf, 4096) : -1;
    if (r < 0) {
      free(buf);
      return NULL;
    }
    *len = (size_t)r;
    return (uint8_t *)buf;
  }
  int fd = wb_beneath(ws, e->path, O_RDONLY | O_NOFOLLOW, 0);
  struct stat sb;
  uint8_t *buf = NULL;
  if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (buf = malloc((size_t)sb.st_size + 1))) {
    size_t got = 0;
    while (got < (size_t)sb.st_size) {
      ssize_t r = pread(fd, buf + got, (size_t)sb.st_size - got, (off_t)got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += (size_t)r;
    }
    if (got != (size_t)sb.st_size) {
      free(buf);
      buf = NULL;
    }
    *len = got;
  }
  if (fd >= 0) close(fd);
  return buf;
}

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

static void count(wb_remote *r, uint64_t since, int code) {
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
static const char unlock_sql[] = "SELECT pg_advisory_unlock(hashtextextended($1, 0))";

/* The lease of `id` on a connection of its own (NULL: err set). */
static wb_lease *lease_take(wb_remote *r, const char *id, char *err, size_t n, int *code) {
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

static void lease_drop(wb_lease *l) {
  if (!l) return;
  char e[256];
  wb_pg_arg a[] = {TEXT(l->id)};
  if (!wb_pg_ok(l->c, unlock_sql, 1, a, e, sizeof e)) wb_pg_ok(l->c, "ROLLBACK", 0, NULL, e, sizeof e);
  wb_pg_give(l->r->pg, l->c);
  free(l);
}

static bool tx(wb_pg_conn *c, const char *sql, char *err, size_t n) { return wb_pg_ok(c, sql, 0, NULL, err, n); }

/* ---- bringing the cache to the store's version ------------------------------------------ */

/* The session directory in the cache; a new one has the store's meta and
 * an empty state (no log, no files) for the pull to fill. */
static int cache_dir(wb_store *st, const char *id, const uint8_t *meta, size_t meta_len, const wb_head *sh,
                     const uint8_t *globals) {
  int dir = openat(st->sessions, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir >= 0 || errno != ENOENT) return dir;
  char tmp[WASMBOX_ID_MAX + 40], prefix[WASMBOX_ID_MAX + 16];
  snprintf(prefix, sizeof prefix, ".new-%s-", id);
  wb_random_name(tmp, sizeof tmp, prefix);
  if (mkdirat(st->sessions, tmp, 0700) != 0) return -1;
  int d = openat(st->sessions, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  wb_head empty = *sh;
  empty.log_len = empty.records = 0;
  char log[64], ws[64];
  wb_state_name(log, sizeof log, "log", sh->log_no);
  wb_state_name(ws, sizeof ws, "ws", sh->ws_no);
  int lf = d >= 0 ? openat(d, log, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600) : -1;
  bool ok = lf >= 0 && mkdirat(d, ws, 0755) == 0 && wb_write_atomic(d, "meta", meta, meta_len, "", 0) &&
            wb_head_write(d, &empty, globals) && renameat(st->sessions, tmp, st->sessions, id) == 0;
  if (lf >= 0) close(lf);
  if (d >= 0) close(d);
  if (!ok) {
    wb_tree_remove(st->sessions, tmp);
    return -1;
  }
  return openat(st->sessions, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Write the log's chunks from `from` on into log-N, which then ends at len. */
static bool pull_log(wb_lease *l, int dir, const char *log_id, uint64_t log_no, uint64_t from, uint64_t len, char *err,
                     size_t n) {
  char name[64], tmp[80], off[24];
  wb_state_name(name, sizeof name, "log", log_no);
  snprintf(tmp, sizeof tmp, "%s.tmp", name);
  snprintf(off, sizeof off, "%llu", (unsigned long long)from);
  /* a whole log is written beside the old one, a delta appended to it */
  const char *target = from ? name : tmp;
  int fd = openat(dir, target, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (from ? 0 : O_TRUNC), 0600);
  if (fd < 0) return wb_fail(err, n, 0, "cannot write the session's log: %s", strerror(errno)), false;
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
    for (size_t done = 0; ok && done < dlen;) {
      ssize_t w = pwrite(fd, d + done, dlen - done, (off_t)(at + done));
      if (w < 0 && errno == EINTR) continue;
      ok = w > 0;
      done += w > 0 ? (size_t)w : 0;
    }
    at += dlen;
  }
  wb_pg_clear(res);
  if (ok && at < len) ok = refuse(err, n, "the store's log of session %s is shorter than its HEAD says", l->id);
  ok = ok && ftruncate(fd, (off_t)len) == 0 && fdatasync(fd) == 0;
  if (!ok && !err[0]) wb_fail(err, n, 0, "cannot write the session's log: %s", strerror(errno));
  close(fd);
  if (ok && !from) ok = renameat(dir, tmp, dir, name) == 0;
  return ok;
}

/* Write one file, directory or symlink of the store's workspace at e->path
 * (what is there is replaced: a file by rename, so hard-linked copies keep
 * their content). Its directory is opened beneath the workspace, so no
 * symlink leads the write out. */
static bool pull_entry(wb_lease *l, int ws, wb_entry *e, char *err, size_t n) {
  char rel[8200], tmp[64];
  snprintf(rel, sizeof rel, "%s", e->path);
  const char *name;
  int dir = wb_open_parent(ws, rel, &name);
  if (dir < 0) return refuse(err, n, "cannot reach %s in the session's workspace: %s", e->path, strerror(-dir));
  struct stat sb;
  bool there = fstatat(dir, name, &sb, AT_SYMLINK_NOFOLLOW) == 0, ok = true;
  if (e->kind == 'd') {
    if (there && !S_ISDIR(sb.st_mode)) unlinkat(dir, name, 0);
    if (!there || !S_ISDIR(sb.st_mode)) ok = mkdirat(dir, name, 0755) == 0;
    if (!ok) wb_fail(err, n, 0, "cannot make %s: %s", e->path, strerror(errno));
    close(dir);
    return ok;
  }
  wb_pg_arg a[] = {TEXT(l->id), BYTES(e->path, strlen(e->path))};
  wb_pg_res *res = wb_pg_exec(l->c, "SELECT data FROM wasmbox_files WHERE owner = $1 AND path = $2", 2, a, err, n);
  ok = res && wb_pg_rows(res) == 1;
  size_t len = 0;
  const uint8_t *data = ok ? wb_pg_bytes(res, 0, 0, &len) : NULL;
  wb_random_name(tmp, sizeof tmp, ".wbpull-");
  if (e->kind == 'l') {
    char target[4097] = "";
    if (data) memcpy(target, data, len < 4096 ? len : 4096), target[len < 4096 ? len : 4096] = 0;
    ok = ok && symlinkat(target, dir, tmp) == 0;
  } else {
    int fd = ok ? openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644) : -1;
    size_t done = 0;
    while (fd >= 0 && done < len) {
      ssize_t w = write(fd, data + done, len - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;
      done += (size_t)w;
    }
    ok = fd >= 0 && done == len && fsync(fd) == 0;
    if (fd >= 0) close(fd);
  }
  wb_pg_clear(res);
  if (ok && there && S_ISDIR(sb.st_mode)) ok = wb_tree_remove(dir, name); /* a directory in the way */
  ok = ok && renameat(dir, tmp, dir, name) == 0;
  if (!ok) {
    unlinkat(dir, tmp, 0);
    if (!err[0]) wb_fail(err, n, 0, "cannot write %s in the session's workspace: %s", e->path, strerror(errno));
  }
  close(dir);
  return ok;
}

/* Remove path (and all under it) from the workspace, beneath it. */
static bool remove_entry(int ws, const char *path) {
  char rel[8200];
  snprintf(rel, sizeof rel, "%s", path);
  const char *name;
  int dir = wb_open_parent(ws, rel, &name);
  if (dir < 0) return dir == -ENOENT;
  struct stat sb;
  bool ok = fstatat(dir, name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
            (S_ISDIR(sb.st_mode) ? wb_tree_remove(dir, name) : unlinkat(dir, name, 0) == 0);
  close(dir);
  return ok;
}

/* Make the workspace ws match the store's list (res: path, kind, hash), keeping
 * what the marker shows unchanged; *out gets the new manifest. */
static bool pull_workspace(wb_lease *l, int ws, const wb_marker *mk, wb_pg_res *res, wb_manifest *out, char *err,
                           size_t n) {
  wb_manifest local = {0};
  bool ok = walk(ws, "", &local, 0);
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
  /* what the store does not have goes, deepest first */
  for (size_t i = local.n; ok && i-- > 0;)
    if (!wb_manifest_find(out, local.v[i].path)) ok = remove_entry(ws, local.v[i].path);
  wb_manifest_clear(&local);
  if (!ok) return false;
  /* the new manifest's stat fields, as written */
  wb_manifest now = {0};
  ok = walk(ws, "", &now, 0);
  wb_manifest_sort(&now);
  for (size_t i = 0; ok && i < out->n; i++) {
    const wb_entry *w = wb_manifest_find(&now, out->v[i].path);
    if (w) out->v[i].ino = w->ino, out->v[i].size = w->size, out->v[i].mtime = w->mtime;
  }
  wb_manifest_clear(&now);
  return ok || refuse(err, n, "cannot read the cached workspace");
}

/* Whether the cached workspace is what the marker recorded: the same
 * entries, and files and links not touched since (inode, size, mtime). A
 * write that never reached the store (a server that died before it
 * published) must not come back later as part of another commit. */
static bool workspace_matches(int dir, uint64_t ws_no, const wb_marker *mk) {
  char name[64];
  wb_state_name(name, sizeof name, "ws", ws_no);
  int ws = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  wb_manifest now = {0};
  bool ok = ws >= 0 && walk(ws, "", &now, 0) && now.n == mk->files.n;
  if (ws >= 0) close(ws);
  if (ok) wb_manifest_sort(&now);
  for (size_t i = 0; ok && i < now.n; i++) {
    const wb_entry *a = &now.v[i], *b = &mk->files.v[i];
    ok = !strcmp(a->path, b->path) && a->kind == b->kind &&
         (a->kind == 'd' || (a->ino == b->ino && a->size == b->size && a->mtime == b->mtime));
  }
  wb_manifest_clear(&now);
  return ok;
}

/* Bring session l->id's cache to the store's version (lease held). */
static int pull(wb_lease *l, bool *reloaded, char *err, size_t n) {
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
  int dir = local ? cache_dir(st, l->id, (const uint8_t *)local, local_len, &sh, globals) : -1;
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
      lh.log_len == mk.log_len && lh.ws_no == mk.ws_no && workspace_matches(dir, lh.ws_no, &mk)) {
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
    char ws_name[64], old_ws[64];
    wb_state_name(ws_name, sizeof ws_name, "ws", sh.ws_no);
    if (ok && have_head && lh.ws_no != sh.ws_no) {
      wb_state_name(old_ws, sizeof old_ws, "ws", lh.ws_no);
      wb_tree_remove(dir, ws_name);
      renameat(dir, old_ws, dir, ws_name);
    }
    if (ok && mkdirat(dir, ws_name, 0755) != 0 && errno != EEXIST)
      ok = refuse(err, n, "cannot make the session's workspace: %s", strerror(errno));
    int ws = ok ? openat(dir, ws_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
    wb_pg_res *files =
        ws >= 0 ? wb_pg_exec(l->c, "SELECT path, kind, hash FROM wasmbox_files WHERE owner = $1", 1, a, err, n) : NULL;
    ok = files && pull_workspace(l, ws, have_mk ? &mk : &(wb_marker){0}, files, &fresh.files, err, n);
    wb_pg_clear(files);
    if (ws >= 0) close(ws);
    wb_manifest_sort(&fresh.files);
    /* HEAD last: until it is written the cache's old state stands */
    ok = ok && wb_head_write(dir, &sh, globals) && wb_session_repair(dir, &sh) && wb_marker_write(dir, &fresh);
    if (!ok) {
      unlinkat(dir, "stored", 0);
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

int wb_remote_acquire(wb_remote *r, const char *id, wb_lease **out, bool *reloaded, char *err, size_t n) {
  int code;
  uint64_t t0 = wb_monotonic_ns();
  *out = NULL;
  *reloaded = false;
  wb_lease *l = lease_take(r, id, err, n, &code);
  if (l && (code = pull(l, reloaded, err, n))) {
    lease_drop(l);
    l = NULL;
  }
  count(r, t0, code);
  *out = l;
  return l ? WASMBOX_OK : code;
}

/* ---- publishing what the cache holds ------------------------------------------------------- */

static bool push_log(wb_lease *l, int dir, const wb_head *h, const wb_marker *mk, char log_id[40], char *err,
                     size_t n) {
  bool whole = h->log_no != mk->log_no || h->log_len < mk->log_len;
  uint64_t from = whole ? 0 : mk->log_len;
  if (whole) wb_random_name(log_id, 40, "l");
  else snprintf(log_id, 40, "%s", mk->log_id);
  if (from == h->log_len && !whole) return true;
  char name[64];
  wb_state_name(name, sizeof name, "log", h->log_no);
  int fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
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
    uint8_t *data = e->kind == 'd' ? (uint8_t *)strdup("") : read_entry(ws, e, &len);
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
static int publish(wb_lease *l, char *err, size_t n) {
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
  char ws_name[64];
  wb_state_name(ws_name, sizeof ws_name, "ws", h.ws_no);
  int ws = openat(dir, ws_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  ok = ws >= 0 && walk(ws, "", &now, 0);
  wb_manifest_sort(&now);
  if (!ok) {
    if (ws >= 0) close(ws);
    code = wb_fail(err, n, WASMBOX_EINTERNAL, "cannot read the workspace of session %s", l->id);
    goto out;
  }
  bool files_changed = false, log_changed = h.log_no != mk.log_no || h.log_len != mk.log_len;
  char log_id[40];
  ok = tx(l->c, "BEGIN", err, n) && push_log(l, dir, &h, &mk, log_id, err, n) &&
       push_files(l, ws, &mk, &now, &files_changed, err, n);
  close(ws);
  if (ok && h.gen == mk.gen && !log_changed && !files_changed) {
    ok = tx(l->c, "ROLLBACK", err, n); /* nothing to publish */
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
  ok = ok && tx(l->c, "COMMIT", err, n);
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
    tx(l->c, "ROLLBACK", e2, sizeof e2);
    code = WASMBOX_EINTERNAL;
  }
out:
  if (code) unlinkat(dir, "stored", 0); /* stale: reloaded at the next lease */
  if (have_mk) wb_marker_clear(&mk);
  wb_manifest_clear(&now);
  free(globals);
  close(lockfd);
  close(dir);
  return code;
}

const char *wb_lease_id(const wb_lease *l) { return l->id; }

int wb_remote_release(wb_lease *l, bool publish_it, char *err, size_t n) {
  uint64_t t0 = wb_monotonic_ns();
  int code = publish_it ? publish(l, err, n) : WASMBOX_OK;
  if (publish_it) count(l->r, t0, code);
  if (code) wb_live_forget(l->r->st, l->id);
  lease_drop(l);
  return code;
}

/* ---- a session's life ------------------------------------------------------------------------- */

/* A statement on a pooled connection of its own (no lease). */
static wb_pg_conn *conn(wb_remote *r, char *err, size_t n) { return wb_pg_take(r->pg, err, n); }

int wb_remote_create(wb_remote *r, const wasmbox_session_options *o, char id[WASMBOX_ID_MAX], char *err, size_t n) {
  int code = wb_session_create(r->st, o, id, err, n);
  if (code) return code;
  /* the new local session, as the store's first version */
  int dir = openat(r->st->sessions, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  size_t local_len = 0, meta_len = 0, head_len = 0;
  char *local = dir >= 0 ? wb_read_small(dir, "meta", &local_len) : NULL;
  char *meta = local ? wb_meta_to_store(r->named, r->nnamed, local, local_len, &meta_len, err, n) : NULL;
  char *head = dir >= 0 ? wb_read_small(dir, "HEAD", &head_len) : NULL;
  int failed = local && !meta ? WASMBOX_EUSAGE : WASMBOX_EINTERNAL; /* a mount the store cannot name */
  free(local);
  wb_meta m = {0};
  wb_marker mk = {.version = 1};
  wb_random_name(mk.log_id, sizeof mk.log_id, "l");
  bool ok = meta && head && wb_meta_read(dir, &m);
  wb_pg_conn *c = ok ? conn(r, err, n) : NULL;
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
  if (c && ok) ok = tx(c, "COMMIT", err, n);
  else if (c) {
    char e2[256];
    tx(c, "ROLLBACK", e2, sizeof e2);
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
  snprintf(now, sizeof now, "%.6f", wb_now_s());
  int code = 0;
  wb_pg_conn *c = conn(r, err, n);
  wb_pg_arg a[] = {TEXT(id), TEXT(fid), TEXT(now)};
  bool ok = c && tx(c, SNAPSHOT, err, n) && current_log(c, id, log_id, err, n, &code) &&
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
  snprintf(now, sizeof now, "%.6f", wb_now_s());
  int code = 0;
  wb_pg_conn *c = conn(r, err, n);
  wb_pg_arg a[] = {TEXT(id), TEXT(c_id), TEXT(now)};
  bool ok = c && tx(c, SNAPSHOT, err, n) && current_log(c, id, log_id, err, n, &code) &&
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
  wb_lease *l = lease_take(r, id, err, n, &code); /* after the call in progress, before the next */
  if (!l) return code;
  char owner[2 * WASMBOX_ID_MAX], log_id[40], cp_log[40];
  snprintf(owner, sizeof owner, "%s/%s", id, cid);
  wb_random_name(log_id, sizeof log_id, "l");
  code = 0;
  wb_pg_arg a[] = {TEXT(id), TEXT(cid)};
  bool ok = tx(l->c, "BEGIN", err, n);
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
    h.last_used = wb_now_s();
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
        tx(l->c, "COMMIT", err, n);
  }
  if (!ok) {
    char e2[256];
    tx(l->c, "ROLLBACK", e2, sizeof e2);
  }
  free(globals);
  free(cur_globals);
  wb_live_forget(r->st, id);
  lease_drop(l);
  return ok ? WASMBOX_OK : code ? code : WASMBOX_EINTERNAL;
}

/* Remove session id and its checkpoints from the store (lease held on c). */
static bool destroy_rows(wb_pg_conn *c, const char *id, bool *found, char *err, size_t n) {
  wb_pg_arg a[] = {TEXT(id)};
  wb_pg_res *res = tx(c, "BEGIN", err, n)
                       ? wb_pg_exec(c, "DELETE FROM wasmbox_sessions WHERE id = $1 RETURNING id", 1, a, err, n)
                       : NULL;
  *found = res && wb_pg_rows(res) == 1;
  bool ok = res &&
            wb_pg_ok(c, "DELETE FROM wasmbox_logs WHERE owner = $1 OR left(owner, length($1) + 1) = $1 || '/'", 1, a,
                     err, n) &&
            wb_pg_ok(c, "DELETE FROM wasmbox_files WHERE owner = $1 OR left(owner, length($1) + 1) = $1 || '/'", 1, a,
                     err, n) &&
            wb_pg_ok(c, "DELETE FROM wasmbox_checkpoints WHERE session = $1", 1, a, err, n) && tx(c, "COMMIT", err, n);
  wb_pg_clear(res);
  if (!ok) {
    char e2[256];
    tx(c, "ROLLBACK", e2, sizeof e2);
  }
  return ok;
}

int wb_remote_destroy(wb_remote *r, const char *id, char *err, size_t n) {
  int code;
  wb_lease *l = lease_take(r, id, err, n, &code);
  if (!l) return code;
  bool found = false;
  bool ok = destroy_rows(l->c, id, &found, err, n);
  char e2[256];
  if (ok) wb_session_destroy(r->st, id, e2, sizeof e2); /* the cache's copy, if any */
  lease_drop(l);
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
  wb_pg_conn *c = conn(r, err, n);
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
  wb_pg_conn *c = conn(r, err, n);
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
  wb_pg_conn *c = conn(r, err, n);
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
  snprintf(now, sizeof now, "%.6f", wb_now_s());
  wb_pg_conn *c = conn(r, err, n);
  wb_pg_arg a[] = {TEXT(now)};
  char stale[32]; /* paused runs past WASMBOX_RESUME_TTL_S */
  snprintf(stale, sizeof stale, "%.6f", wb_now_s() - WASMBOX_RESUME_TTL_S);
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
    if (mine) ok = wb_pg_ok(c, unlock_sql, 1, k, err, n);
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

/* ---- ids ended for good ----------------------------------------------------------------- */

int wb_remote_ended_add(wb_remote *r, const char *id, double keep_s, char *err, size_t n) {
  char now[32], old[32];
  snprintf(now, sizeof now, "%.6f", wb_now_s());
  snprintf(old, sizeof old, "%.6f", wb_now_s() - keep_s);
  wb_pg_conn *c = conn(r, err, n);
  wb_pg_arg a[] = {TEXT(id), TEXT(now)}, b[] = {TEXT(old)};
  bool ok = c && wb_pg_ok(c, "DELETE FROM wasmbox_ended WHERE at < $1::float8", 1, b, err, n) &&
            wb_pg_ok(c, "INSERT INTO wasmbox_ended VALUES ($1, $2::float8) ON CONFLICT DO NOTHING", 2, a, err, n);
  wb_pg_give(r->pg, c);
  return ok ? WASMBOX_OK : WASMBOX_EINTERNAL;
}

/* Asked for every request of an MCP session with a signed id, stateless
 * calls too: it may not make them wait on a store that stopped answering
 * (wb_pg_take_quick), and "cannot tell" lets the request go on. */
int wb_remote_ended_has(wb_remote *r, const char *id, double keep_s, char *err, size_t n) {
  char old[32];
  snprintf(old, sizeof old, "%.6f", wb_now_s() - keep_s);
  wb_pg_conn *c = wb_pg_take_quick(r->pg, WB_QUICK_WAIT_S, err, n);
  wb_pg_arg a[] = {TEXT(id), TEXT(old)};
  wb_pg_res *res =
      c ? wb_pg_exec(c, "SELECT 1 FROM wasmbox_ended WHERE id = $1 AND at >= $2::float8", 2, a, err, n) : NULL;
  int has = res ? wb_pg_rows(res) > 0 : -1;
  wb_pg_clear(res);
  wb_pg_give(r->pg, c);
  return has;
}

/* ---- paused runs (api/paused.h) ---------------------------------------------------- */

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

int wb_remote_paused_put(wb_remote *r, const char *token, const char *owner, const char *scope, double created,
                         const void *data, size_t len, char *err, size_t n) {
  char at[32];
  snprintf(at, sizeof at, "%.6f", created);
  wb_pg_conn *c = conn(r, err, n);
  wb_pg_arg a[] = {TEXT(token), TEXT(owner), TEXT(scope), TEXT(at), BYTES(data, len)};
  bool ok = c && wb_pg_ok(c, "INSERT INTO wasmbox_paused VALUES ($1, $2, $3, $4::float8, $5)", 5, a, err, n);
  wb_pg_give(r->pg, c);
  return ok ? WASMBOX_OK : WASMBOX_EINTERNAL;
}

int wb_remote_paused_take(wb_remote *r, const char *token, const char *owner, const char *scope, uint8_t **data,
                          size_t *len, char *err, size_t n) {
  *data = NULL;
  *len = 0;
  wb_pg_conn *c = conn(r, err, n);
  /* the DELETE is the claim, and only of this caller's run (owner NULL:
     anyone's; scope NULL: any) */
  wb_pg_arg a[] = {TEXT(token), owner ? TEXT(owner) : (wb_pg_arg){0}, scope ? TEXT(scope) : (wb_pg_arg){0}};
  wb_pg_res *res = c ? wb_pg_exec(c,
                                  "DELETE FROM wasmbox_paused WHERE token = $1 AND ($2::text IS NULL OR owner = $2) "
                                  "AND ($2::text IS NULL OR $3::text IS NULL OR scope = $3) RETURNING data",
                                  3, a, err, n)
                     : NULL;
  int code = !res                   ? WASMBOX_EINTERNAL
             : wb_pg_rows(res) == 1 ? WASMBOX_OK
                                    : wb_fail(err, n, WASMBOX_EUSAGE, "no paused run has this resume token");
  if (!code) {
    size_t k = 0;
    const uint8_t *b = wb_pg_bytes(res, 0, 0, &k);
    if ((*data = malloc(k + 1))) memcpy(*data, b, k), *len = k;
    else code = wb_fail(err, n, WASMBOX_EINTERNAL, "out of memory");
  }
  wb_pg_clear(res);
  wb_pg_give(r->pg, c);
  return code;
}
