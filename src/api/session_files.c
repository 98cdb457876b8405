/* Files of a session's workspace from outside a call (include/wasmbox.h:
 * wasmbox_session_*_file*). Resolution is the guest's own (wasi/resolve.h),
 * writes copy shared files up first, and the session is locked throughout. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/library.h"
#include "session/session.h"
#include "session/tree.h"
#include "wasi/resolve.h"

#define LIST_DEPTH_MAX 64

/* "/app/x/y" or "x/y" -> "x/y" (the workspace itself: "."). */
static int relative(const char *path, char *out, size_t n, char *err, size_t errlen) {
  if (!path || !*path) path = "/app";
  if (strlen(path) >= n - 1) return wb_usage(err, errlen, "path is too long");
  if (path[0] == '/') {
    if (strcmp(path, "/app") && strncmp(path, "/app/", 5))
      return wb_usage(err, errlen, "%s is outside the workspace /app", path);
    path += 4;
    while (*path == '/') path++;
  }
  snprintf(out, n, "%s", *path ? path : ".");
  return WASMBOX_OK;
}

static int os_error(int e, const char *path, char *err, size_t errlen) {
  if (e == EXDEV) return wb_usage(err, errlen, "%s leads outside the workspace", path);
  if (e == ENOENT) return wb_usage(err, errlen, "%s: no such file or directory", path);
  if (e == ENOTDIR) return wb_usage(err, errlen, "%s: not a directory (or a part of the path is not)", path);
  if (e == EISDIR) return wb_usage(err, errlen, "%s is a directory", path);
  if (e == ENAMETOOLONG)
    return wb_usage(err, errlen, "%s: a name longer than 255 bytes, or directories nested more than %d deep", path,
                    WB_DEPTH_MAX);
  if (e == ELOOP) return wb_usage(err, errlen, "%s: too many levels of symbolic links", path);
  snprintf(err, errlen, "%s: %s", path, strerror(e));
  return WASMBOX_EINTERNAL;
}

typedef struct {
  wasmbox_file_info *v;
  size_t n, cap;
  bool overflow;
} listing;

static bool add(listing *l, const char *path, const struct stat *st) {
  if (l->n == WASMBOX_LIST_MAX) {
    l->overflow = true;
    return false;
  }
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 64;
    wasmbox_file_info *g = realloc(l->v, cap * sizeof *g);
    if (!g) return false;
    l->v = g;
    l->cap = cap;
  }
  wasmbox_file_info *f = &l->v[l->n];
  f->path = strdup(path);
  if (!f->path) return false;
  f->is_dir = S_ISDIR(st->st_mode);
  f->is_symlink = S_ISLNK(st->st_mode);
  f->size = S_ISREG(st->st_mode) ? (uint64_t)st->st_size : 0;
  f->mtime = (double)st->st_mtim.tv_sec + (double)st->st_mtim.tv_nsec / 1e9;
  l->n++;
  return true;
}

static bool list_dir(int fd, const char *guest, bool recursive, int depth, listing *l) {
  int it = dup(fd);
  DIR *d = it >= 0 ? fdopendir(it) : NULL;
  if (!d) {
    if (it >= 0) close(it);
    return false;
  }
  bool ok = true;
  struct dirent *e;
  while (ok && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    struct stat st;
    if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", guest, e->d_name);
    ok = add(l, path, &st);
    if (ok && recursive && S_ISDIR(st.st_mode) && depth < LIST_DEPTH_MAX) {
      int sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub >= 0) {
        ok = list_dir(sub, path, recursive, depth + 1, l);
        close(sub);
      }
    }
  }
  closedir(d);
  return ok;
}

void wasmbox_file_info_free(wasmbox_file_info *v, size_t n) {
  for (size_t i = 0; v && i < n; i++) free(v[i].path);
  free(v);
}

/* End the operation's transaction: what it wrote is the store's unless it
 * failed (rc). A failed commit is the operation's error. */
static int end(wb_txn *t, int rc, char *err, size_t errlen) {
  if (rc) {
    wb_txn_rollback(t);
    return rc;
  }
  return wb_txn_commit(t, err, errlen);
}

int wasmbox_session_list_files(wasmbox *wb, const char *id, const char *path, bool recursive, wasmbox_file_info **out,
                               size_t *n, char *err, size_t errlen) {
  *out = NULL;
  *n = 0;
  char rel[4096];
  int rc = relative(path, rel, sizeof rel, err, errlen);
  if (rc) return rc;
  wb_txn txn;
  if ((rc = wb_txn_begin(wb->backend, id, WB_TXN_WORKSPACE, &txn, err, errlen))) return rc;
  int ws = wb_txn_workspace(&txn);
  int fd = wb_beneath(ws, rel, O_RDONLY | O_DIRECTORY, 0);
  listing l = {0};
  if (fd < 0) {
    rc = os_error(-fd, path ? path : "/app", err, errlen);
  } else {
    char guest[4200];
    snprintf(guest, sizeof guest, "/app%s%s", strcmp(rel, ".") ? "/" : "", strcmp(rel, ".") ? rel : "");
    bool ok = list_dir(fd, guest, recursive, 0, &l);
    close(fd);
    if (l.overflow) rc = wb_usage(err, errlen, "more than %d entries; list a subdirectory", WASMBOX_LIST_MAX);
    else if (!ok) rc = os_error(errno ? errno : ENOMEM, path ? path : "/app", err, errlen);
  }
  rc = end(&txn, rc, err, errlen);
  if (rc) {
    wasmbox_file_info_free(l.v, l.n);
    return rc;
  }
  *out = l.v;
  *n = l.n;
  return WASMBOX_OK;
}

int wasmbox_session_read_file(wasmbox *wb, const char *id, const char *path, char **data, size_t *len, char *err,
                              size_t errlen) {
  *data = NULL;
  *len = 0;
  char rel[4096];
  int rc = relative(path, rel, sizeof rel, err, errlen);
  if (rc) return rc;
  wb_txn txn;
  if ((rc = wb_txn_begin(wb->backend, id, WB_TXN_WORKSPACE, &txn, err, errlen))) return rc;
  int ws = wb_txn_workspace(&txn);
  int fd = wb_beneath(ws, rel, O_RDONLY | O_NONBLOCK, 0);
  struct stat sb;
  if (fd < 0) {
    rc = os_error(-fd, path, err, errlen);
  } else if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    rc = S_ISDIR(sb.st_mode) ? os_error(EISDIR, path, err, errlen)
                             : wb_usage(err, errlen, "%s is not a regular file", path);
  } else if ((uint64_t)sb.st_size > WASMBOX_FILE_MAX) {
    rc = wb_usage(err, errlen, "%s is larger than %llu MB", path, WASMBOX_FILE_MAX >> 20);
  } else {
    char *buf = malloc((size_t)sb.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)sb.st_size) {
      ssize_t r = read(fd, buf + got, (size_t)sb.st_size - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += (size_t)r;
    }
    if (!buf) {
      rc = os_error(ENOMEM, path, err, errlen);
    } else {
      buf[got] = 0;
      *data = buf;
      *len = got;
    }
  }
  if (fd >= 0) close(fd);
  rc = end(&txn, rc, err, errlen);
  return rc;
}

/* mkdir -p of the directories above `rel` (modified and restored), no
 * deeper than the guest may nest them (WB_DEPTH_MAX). */
static int make_parents(int ws, char *rel) {
  struct stat root;
  if (fstat(ws, &root) != 0) return -errno;
  for (char *s = rel; (s = strchr(s, '/')); s++) {
    *s = 0;
    int r = 0;
    int fd = wb_beneath(ws, rel, O_PATH | O_DIRECTORY, 0);
    if (fd >= 0) {
      close(fd);
    } else if (fd == -ENOENT) {
      char tmp[4096];
      const char *name;
      snprintf(tmp, sizeof tmp, "%s", rel);
      int pfd = wb_open_parent(ws, tmp, &name);
      r = pfd < 0 ? pfd : wb_check_depth(&root, pfd, 0);
      if (!r) r = mkdirat(pfd, name, 0755) == 0 || errno == EEXIST ? 0 : -errno;
      if (pfd >= 0) close(pfd);
    } else {
      r = fd;
    }
    *s = '/';
    if (r < 0) return r;
  }
  return 0;
}

int wb_workspace_write(int ws, const char *path, const void *data, size_t len, char *err, size_t errlen) {
  if (len > WASMBOX_FILE_MAX) return wb_usage(err, errlen, "content is larger than %llu MB", WASMBOX_FILE_MAX >> 20);
  char rel[4096];
  int rc = relative(path, rel, sizeof rel, err, errlen);
  if (!rc && !strcmp(rel, ".")) rc = wb_usage(err, errlen, "/app itself is a directory");
  if (rc) return rc;
  int r = make_parents(ws, rel);
  if (!r) r = wb_break_shared_link(ws, rel, true);
  int fd = r ? r : wb_beneath(ws, rel, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK, 0644);
  struct stat sb;
  if (fd >= 0 && (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))) {
    close(fd);
    fd = -EISDIR;
  }
  if (fd < 0) return os_error(-fd, path, err, errlen);
  const char *p = data;
  size_t left = len;
  while (left) {
    ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    p += w;
    left -= (size_t)w;
  }
  if (left || fsync(fd) != 0) rc = os_error(errno ? errno : EIO, path, err, errlen);
  close(fd);
  return rc;
}

int wasmbox_session_write_file(wasmbox *wb, const char *id, const char *path, const void *data, size_t len, char *err,
                               size_t errlen) {
  if (len > WASMBOX_FILE_MAX) return wb_usage(err, errlen, "content is larger than %llu MB", WASMBOX_FILE_MAX >> 20);
  char rel[4096];
  int rc = relative(path, rel, sizeof rel, err, errlen);
  if (!rc && !strcmp(rel, ".")) rc = wb_usage(err, errlen, "/app itself is a directory");
  if (rc) return rc;
  wb_txn txn;
  if ((rc = wb_txn_begin(wb->backend, id, WB_TXN_WRITE | WB_TXN_WORKSPACE, &txn, err, errlen))) return rc;
  rc = wb_workspace_write(wb_txn_workspace(&txn), path, data, len, err, errlen);
  return end(&txn, rc, err, errlen);
}

int wasmbox_session_reset_workspace(wasmbox *wb, const char *id, char *err, size_t errlen) {
  int rc;
  wb_txn txn;
  if ((rc = wb_txn_begin(wb->backend, id, WB_TXN_WRITE | WB_TXN_WORKSPACE, &txn, err, errlen))) return rc;
  int ws = wb_txn_workspace(&txn);
  int it = dup(ws);
  DIR *d = it >= 0 ? fdopendir(it) : NULL;
  struct dirent *e;
  bool ok = d != NULL;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) ok = wb_tree_remove(ws, e->d_name) && ok;
  if (d) closedir(d);
  else if (it >= 0) close(it);
  rc = ok ? WASMBOX_OK : os_error(errno, "/app", err, errlen);
  return end(&txn, rc, err, errlen);
}
