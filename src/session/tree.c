/* Directory trees (see tree.h). Descends with openat(O_NOFOLLOW |
 * O_DIRECTORY) from directory fds, so a symlink swapped in never leads out. */
#include "session/tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEPTH_MAX 256

static bool dot(const char *n) { return !strcmp(n, ".") || !strcmp(n, ".."); }

/* Each walk of a tree here (and the listing in api/session_files.c) opens
 * its directory from an fd and skips "." and ".."; the loops look alike by
 * design, each doing its own job per entry. Removal is util/os.c's. */
static bool link_dir(int src, int dst, int depth) {
  if (depth > DEPTH_MAX) return false;
  int it = dup(src);
  DIR *d = it >= 0 ? fdopendir(it) : NULL;
  if (!d) {
    if (it >= 0) close(it);
    return false;
  }
  bool ok = true;
  struct dirent *e;
  while (ok && (e = readdir(d))) {
    if (dot(e->d_name)) continue;
    struct stat st;
    if (fstatat(src, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      ok = false;
    } else if (S_ISDIR(st.st_mode)) {
      int s = openat(src, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      ok = s >= 0 && mkdirat(dst, e->d_name, st.st_mode & 07777) == 0;
      int t = ok ? openat(dst, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
      ok = ok && t >= 0 && link_dir(s, t, depth + 1);
      if (s >= 0) close(s);
      if (t >= 0) close(t);
    } else if (S_ISREG(st.st_mode)) {
      ok = linkat(src, e->d_name, dst, e->d_name, 0) == 0;
    } else if (S_ISLNK(st.st_mode)) {
      char target[PATH_MAX];
      ssize_t n = readlinkat(src, e->d_name, target, sizeof target - 1);
      if (n < 0) {
        ok = false;
      } else {
        target[n] = 0;
        ok = symlinkat(target, dst, e->d_name) == 0;
      }
    }
    /* anything else (a fifo planted by the host) is not part of a workspace */
  }
  closedir(d);
  return ok;
}

bool wb_tree_link(int src, int dst_parent, const char *dst_name) {
  struct stat st;
  if (fstat(src, &st) != 0 || mkdirat(dst_parent, dst_name, st.st_mode & 07777) != 0) return false;
  int dst = openat(dst_parent, dst_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  bool ok = dst >= 0 && link_dir(src, dst, 0);
  if (dst >= 0) close(dst);
  return ok;
}

static uint64_t dir_bytes(int fd, int depth) {
  int it = dup(fd);
  DIR *d = it >= 0 ? fdopendir(it) : NULL;
  if (!d) {
    if (it >= 0) close(it);
    return 0;
  }
  uint64_t total = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (dot(e->d_name)) continue;
    struct stat st;
    if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    total += (uint64_t)st.st_blocks * 512;
    if (S_ISDIR(st.st_mode) && depth < DEPTH_MAX) {
      int s = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (s >= 0) {
        total += dir_bytes(s, depth + 1);
        close(s);
      }
    }
  }
  closedir(d);
  return total;
}

uint64_t wb_tree_bytes(int parent, const char *name) {
  struct stat st;
  if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
  uint64_t total = (uint64_t)st.st_blocks * 512;
  if (!S_ISDIR(st.st_mode)) return total;
  int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return total;
  total += dir_bytes(fd, 0);
  close(fd);
  return total;
}
