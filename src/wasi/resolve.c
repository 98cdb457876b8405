/* Path resolution beneath a directory (see resolve.h). */
#include "wasi/resolve.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wasi/internal.h"

/* Levels `fd` lies below `top`, walking up "..", counted up to `limit` + 1
 * (also when `fd` is not below `top` at all). -errno on failure. */
static int depth_below(const struct stat *top, int fd, int limit) {
  struct stat st;
  int cur = dup(fd), depth = 0;
  while (cur >= 0 && depth <= limit) {
    if (fstat(cur, &st) != 0) {
      int e = errno;
      close(cur);
      return -e;
    }
    if (st.st_dev == top->st_dev && st.st_ino == top->st_ino) {
      close(cur);
      return depth;
    }
    depth++;
    int up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
    close(cur);
    cur = up;
  }
  if (cur < 0) return -errno;
  close(cur);
  return depth;
}

int wb_check_depth(const struct stat *root, int parent, int moved_depth) {
  int d = depth_below(root, parent, WB_DEPTH_MAX);
  if (d < 0) return d;
  return d + 1 + moved_depth > WB_DEPTH_MAX ? -ENAMETOOLONG : 0;
}

/* The names of directory fd's subdirectories (malloc'd, *n of them; on
 * failure *err is set), read before descending so that only one descriptor
 * per level stays open. */
static char **subdirs(int fd, size_t *n, int *err) {
  *n = 0;
  *err = 0;
  int it = dup(fd);
  DIR *d = it >= 0 ? fdopendir(it) : NULL;
  if (!d) {
    *err = errno;
    if (it >= 0) close(it);
    return NULL;
  }
  char **names = NULL;
  size_t cap = 0;
  struct dirent *e;
  while (!*err && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    struct stat st;
    if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) continue;
    if (*n == cap) {
      char **more = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *names);
      if (!more) {
        *err = ENOMEM;
        break;
      }
      names = more;
    }
    if (!(names[*n] = strdup(e->d_name))) *err = ENOMEM;
    else (*n)++;
  }
  closedir(d);
  return names;
}

/* The depth of the tree below fd, exact up to `limit`, else `limit` + 1. */
static int tree_depth(int fd, int limit) {
  size_t n;
  int err;
  char **names = subdirs(fd, &n, &err);
  int deepest = err ? -err : 0;
  for (size_t i = 0; i < n; i++) {
    if (deepest >= 0 && deepest <= limit) {
      if (limit == 0) {
        deepest = 1; /* a subdirectory where none may be */
      } else {
        int sub = openat(fd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int d = sub < 0 ? -errno : tree_depth(sub, limit - 1);
        if (sub >= 0) close(sub);
        if (d < 0) deepest = d;
        else if (d + 1 > deepest) deepest = d + 1;
      }
    }
    free(names[i]);
  }
  free(names);
  return deepest;
}

int wb_tree_depth(int fd) { return tree_depth(fd, WB_DEPTH_MAX); }

/* Split `path` (modified) into a parent directory opened beneath dirfd and
 * its last component. Returns the parent fd or -errno. A last component of
 * "." or ".." names no entry of its own and is refused. */
int wb_open_parent(int dirfd, char *path, const char **name) {
  size_t n = strlen(path);
  while (n > 1 && path[n - 1] == '/') path[--n] = 0;
  if (n == 0) return -ENOENT;
  if (path[0] == '/') return -EXDEV;
  char *last = strrchr(path, '/');
  const char *parent = ".";
  if (last) {
    *last = 0;
    parent = path;
    *name = last + 1;
  } else {
    *name = path;
  }
  if (!strcmp(*name, ".") || !strcmp(*name, "..")) return -EINVAL;
  return wb_beneath(dirfd, parent, O_PATH | O_DIRECTORY, 0);
}

/* Give `name` (a regular file in directory pfd that shares its inode) an
 * inode of its own: copy it beside itself and rename the copy over it. */
static int copy_up(int pfd, const char *name, const struct stat *st) {
  static unsigned counter;
  char tmp[64];
  snprintf(tmp, sizeof tmp, ".wasmbox-copy-%d-%u", (int)getpid(), __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
  int src = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  int dst = src < 0 ? -1 : openat(pfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  int e = src < 0 || dst < 0 ? errno : 0;
  for (off_t left = st->st_size; !e && left > 0;) {
    ssize_t n = copy_file_range(src, NULL, dst, NULL, (size_t)left, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) e = n < 0 ? errno : EIO;
    else left -= n;
  }
  struct timespec times[2] = {st->st_atim, st->st_mtim};
  if (!e && (fchmod(dst, st->st_mode & 07777) != 0 || futimens(dst, times) != 0)) e = errno;
  if (!e && renameat(pfd, tmp, pfd, name) != 0) e = errno;
  if (e && dst >= 0) unlinkat(pfd, tmp, 0);
  if (src >= 0) close(src);
  if (dst >= 0) close(dst);
  return -e;
}

/* Before a write to `path` in a cow_links mount: if the file it names (after
 * the symlinks inside the tree, when following) shares its inode, copy it up.
 * Returns 0 or -errno; a path that does not resolve is left to the caller. */
int wb_break_shared_link(int dirfd, const char *path, bool follow) {
  char cur[WB_PATH_MAX], tmp[WB_PATH_MAX];
  snprintf(cur, sizeof cur, "%s", path);
  for (int hop = 0; hop < 32; hop++) {
    const char *name;
    memcpy(tmp, cur, strlen(cur) + 1);
    int pfd = wb_open_parent(dirfd, tmp, &name);
    if (pfd < 0) return 0;
    struct stat st;
    int r = 0;
    if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      r = 0; /* nothing there yet */
    } else if (S_ISLNK(st.st_mode) && follow) {
      char target[WB_PATH_MAX];
      ssize_t n = readlinkat(pfd, name, target, sizeof target - 1);
      close(pfd);
      if (n <= 0 || target[0] == '/') return 0; /* the open itself refuses these */
      target[n] = 0;
      /* the target is relative to the link's directory: cur keeps that
       * directory up to where the link's name started in tmp */
      size_t dir_len = (size_t)(name - tmp);
      if (dir_len + (size_t)n + 1 >= sizeof cur) return -ENAMETOOLONG;
      snprintf(cur + dir_len, sizeof cur - dir_len, "%s", target);
      continue;
    } else if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
      r = copy_up(pfd, name, &st);
    }
    close(pfd);
    return r;
  }
  return -ELOOP;
}
