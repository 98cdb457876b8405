/* The cache's files (remote_cache.h). */
#include "session/remote_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session/tree.h"
#include "wasi/resolve.h"

#define DEPTH_MAX 64 /* of the workspace tree walked */

static bool walk(int dir, const char *prefix, wb_manifest *m, int depth) {
  if (depth > DEPTH_MAX) return false;
  int it = dup(dir);
  DIR *d = it >= 0 ? fdopendir(it) : NULL;
  if (!d) {
    if (it >= 0) close(it);
    return false;
  }
  rewinddir(d); /* a dup shares the offset: an earlier walk of this fd read it to its end */
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

bool wb_cache_walk(int ws, wb_manifest *m) { return walk(ws, "", m, 0); }

uint8_t *wb_cache_read_entry(int ws, const wb_entry *e, size_t *len) {
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

/* The session directory in the cache; a new one has the store's meta and
 * an empty state (no log, no files) for the pull to fill. */
int wb_cache_dir(wb_store *st, const char *id, const uint8_t *meta, size_t meta_len, const wb_head *sh,
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
  bool ok = lf >= 0 && mkdirat(d, ws, 0755) == 0 && wb_meta_write_text(d, meta, meta_len) &&
            wb_head_write(d, &empty, globals) && renameat(st->sessions, tmp, st->sessions, id) == 0;
  if (lf >= 0) close(lf);
  if (d >= 0) close(d);
  if (!ok) {
    wb_tree_remove(st->sessions, tmp);
    return -1;
  }
  return openat(st->sessions, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

bool wb_cache_remove_entry(int ws, const char *path) {
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

/* Whether the cached workspace is what the marker recorded: the same
 * entries, and files and links not touched since (inode, size, mtime). A
 * write that never reached the store (a server that died before it
 * published) must not come back later as part of another commit. */
bool wb_cache_matches(int dir, uint64_t ws_no, const wb_marker *mk) {
  char name[64];
  wb_state_name(name, sizeof name, "ws", ws_no);
  int ws = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  wb_manifest now = {0};
  bool ok = ws >= 0 && wb_cache_walk(ws, &now) && now.n == mk->files.n;
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

int wb_cache_open(wb_store *st, const char *id) {
  return openat(st->sessions, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int wb_cache_ws_open(int dir, uint64_t ws_no) {
  char name[64];
  wb_state_name(name, sizeof name, "ws", ws_no);
  return openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int wb_cache_ws_adopt(int dir, const uint64_t *own_no, uint64_t ws_no, char *err, size_t n) {
  char ws_name[64], old_ws[64];
  wb_state_name(ws_name, sizeof ws_name, "ws", ws_no);
  if (own_no && *own_no != ws_no) {
    wb_state_name(old_ws, sizeof old_ws, "ws", *own_no);
    wb_tree_remove(dir, ws_name);
    renameat(dir, old_ws, dir, ws_name);
  }
  if (mkdirat(dir, ws_name, 0755) != 0 && errno != EEXIST)
    return wb_fail(err, n, -1, "cannot make the session's workspace: %s", strerror(errno));
  int ws = wb_cache_ws_open(dir, ws_no);
  if (ws < 0) wb_fail(err, n, 0, "cannot open the session's workspace: %s", strerror(errno));
  return ws;
}

bool wb_cache_put_entry(int ws, const wb_entry *e, const uint8_t *data, size_t len, char *err, size_t n) {
  char rel[8200], tmp[64];
  snprintf(rel, sizeof rel, "%s", e->path);
  const char *name;
  int dir = wb_open_parent(ws, rel, &name);
  if (dir < 0)
    return wb_fail(err, n, 0, "cannot reach %s in the session's workspace: %s", e->path, strerror(-dir)), false;
  struct stat sb;
  bool there = fstatat(dir, name, &sb, AT_SYMLINK_NOFOLLOW) == 0, ok = true;
  if (e->kind == 'd') {
    if (there && !S_ISDIR(sb.st_mode)) unlinkat(dir, name, 0);
    if (!there || !S_ISDIR(sb.st_mode)) ok = mkdirat(dir, name, 0755) == 0;
    if (!ok) wb_fail(err, n, 0, "cannot make %s: %s", e->path, strerror(errno));
    close(dir);
    return ok;
  }
  wb_random_name(tmp, sizeof tmp, ".wbpull-");
  if (e->kind == 'l') {
    char target[4097];
    size_t k = len < 4096 ? len : 4096;
    memcpy(target, data, k);
    target[k] = 0;
    ok = symlinkat(target, dir, tmp) == 0;
  } else {
    int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
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
  if (ok && there && S_ISDIR(sb.st_mode)) ok = wb_tree_remove(dir, name); /* a directory in the way */
  ok = ok && renameat(dir, tmp, dir, name) == 0;
  if (!ok) {
    wb_fail(err, n, 0, "cannot write %s in the session's workspace: %s", e->path, strerror(errno));
    unlinkat(dir, tmp, 0);
  }
  close(dir);
  return ok;
}

struct wb_cache_log {
  int dir, fd;
  bool append;
  char name[64], tmp[80];
};

wb_cache_log *wb_cache_log_begin(int dir, uint64_t log_no, bool append, char *err, size_t n) {
  wb_cache_log *lw = calloc(1, sizeof *lw);
  if (!lw) return wb_fail(err, n, 0, "out of memory"), NULL;
  lw->dir = dir;
  lw->append = append;
  wb_state_name(lw->name, sizeof lw->name, "log", log_no);
  snprintf(lw->tmp, sizeof lw->tmp, "%s.tmp", lw->name);
  lw->fd = openat(dir, append ? lw->name : lw->tmp,
                  O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (append ? 0 : O_TRUNC), 0600);
  if (lw->fd < 0) {
    wb_fail(err, n, 0, "cannot write the session's log: %s", strerror(errno));
    free(lw);
    return NULL;
  }
  return lw;
}

bool wb_cache_log_put(wb_cache_log *lw, uint64_t at, const uint8_t *data, size_t len) {
  for (size_t done = 0; done < len;) {
    ssize_t w = pwrite(lw->fd, data + done, len - done, (off_t)(at + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += (size_t)w;
  }
  return true;
}

bool wb_cache_log_end(wb_cache_log *lw, bool ok, uint64_t len, char *err, size_t n) {
  ok = ok && ftruncate(lw->fd, (off_t)len) == 0 && fdatasync(lw->fd) == 0;
  if (!ok && !err[0]) wb_fail(err, n, 0, "cannot write the session's log: %s", strerror(errno));
  close(lw->fd);
  if (ok && !lw->append) ok = renameat(lw->dir, lw->tmp, lw->dir, lw->name) == 0;
  free(lw);
  return ok;
}

int wb_cache_log_open(int dir, uint64_t log_no) {
  char name[64];
  wb_state_name(name, sizeof name, "log", log_no);
  return openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
}
