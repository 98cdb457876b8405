/* Small POSIX helpers (see os.h). */
#include "util/os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

uint64_t wb_monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

double wb_monotonic_s(void) { return (double)wb_monotonic_ns() / 1e9; }

double wb_wall_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

bool wb_pwrite_all(int fd, const void *p, size_t n, uint64_t off) {
  const uint8_t *b = p;
  while (n) {
    ssize_t w = pwrite(fd, b, n, (off_t)off);
    if (w < 0 && errno == EINTR) continue;
    if (w == 0) errno = EIO;
    if (w <= 0) return false;
    b += w;
    n -= (size_t)w;
    off += (uint64_t)w;
  }
  return true;
}

bool wb_fd_size(int fd, uint64_t *size) {
  off_t end = lseek(fd, 0, SEEK_END);
  if (end < 0) return false;
  *size = (uint64_t)end;
  return true;
}

bool wb_pread_all(int fd, void *p, size_t n, uint64_t off) {
  uint8_t *b = p;
  while (n) {
    ssize_t r = pread(fd, b, n, (off_t)off);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    b += r;
    n -= (size_t)r;
    off += (uint64_t)r;
  }
  return true;
}

char *wb_scratch_dir(const char *prefix, char *err, size_t errlen) {
  const char *t = getenv("TMPDIR");
  if (!t || !*t) t = "/tmp";
  char *dir;
  if (asprintf(&dir, "%s/%s-XXXXXX", t, prefix) < 0) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  if (!mkdtemp(dir)) {
    snprintf(err, errlen, "cannot create a temporary directory in %s: %s", t, strerror(errno));
    free(dir);
    return NULL;
  }
  return dir;
}

/* Directory `name` in `parent`, opened to remove what it holds (never
 * through a symlink) and made readable and writable by its owner first, as
 * a copied package's read-only directories are not. -1 with errno. */
static int open_to_empty(int parent, const char *name, struct stat *st) {
  int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == EACCES && fchmodat(parent, name, 0700, AT_SYMLINK_NOFOLLOW) == 0)
    fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  if (fstat(fd, st) != 0) {
    close(fd);
    return -1;
  }
  if ((st->st_mode & 0700) != 0700) fchmod(fd, (st->st_mode & 07777) | 0700);
  return fd;
}

/* Remove every entry of directory fd (closed here), not descending into
 * another file system than `dev`'s nor deeper than REMOVE_DEPTH_MAX. */
#define REMOVE_DEPTH_MAX 256
static bool remove_entries(int fd, dev_t dev, int depth);

static bool remove_entry(int parent, const char *name, dev_t dev, int depth) {
  if (unlinkat(parent, name, 0) == 0 || errno == ENOENT) return true;
  if ((errno != EISDIR && errno != EPERM) || depth > REMOVE_DEPTH_MAX) return false;
  struct stat st;
  int fd = open_to_empty(parent, name, &st);
  if (fd < 0) return errno == ENOENT;
  if (st.st_dev != dev) return close(fd), false;
  return remove_entries(fd, dev, depth + 1) && (unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT);
}

static bool remove_entries(int fd, dev_t dev, int depth) {
  DIR *d = fdopendir(fd);
  if (!d) return close(fd), false;
  bool ok = true;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) ok = remove_entry(dirfd(d), e->d_name, dev, depth) && ok;
  closedir(d);
  return ok;
}

bool wb_tree_remove(int parent, const char *name) {
  if (unlinkat(parent, name, 0) == 0 || errno == ENOENT) return true;
  struct stat st;
  int fd = open_to_empty(parent, name, &st);
  if (fd < 0) return errno == ENOENT;
  return remove_entries(fd, st.st_dev, 0) && (unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT);
}

void wb_remove_tree(const char *dir) { wb_tree_remove(AT_FDCWD, dir); }

bool wb_empty_dir_at(int parent, const char *name) {
  struct stat st;
  int fd = open_to_empty(parent, name, &st);
  return fd >= 0 && remove_entries(fd, st.st_dev, 0);
}

void wb_empty_dir(const char *dir) { wb_empty_dir_at(AT_FDCWD, dir); }

static int open_beneath(int dirfd, const char *path, int flags, mode_t mode, uint64_t resolve) {
  struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC),
                         .mode = (flags & O_CREAT) ? mode : 0,
                         .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV | resolve};
  long fd;
  do fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
  while (fd < 0 && errno == EINTR);
  return fd < 0 ? -errno : (int)fd;
}

int wb_beneath(int dirfd, const char *path, int flags, mode_t mode) {
  return open_beneath(dirfd, path, flags, mode, 0);
}

int wb_beneath_no_symlinks(int dirfd, const char *path, int flags, mode_t mode) {
  return open_beneath(dirfd, path, flags, mode, RESOLVE_NO_SYMLINKS);
}

/* getdents64 itself, not opendir and readdir: a stateless call's tidy and
 * a session call each ask, and fdopendir's dup, fstat and fcntls were two
 * thirds of the system calls of the question. */
bool wb_dir_fd_is_empty(int fd) {
  if (lseek(fd, 0, SEEK_SET) != 0) return false;
  char buf[4096] __attribute__((aligned(8)));
  bool empty = true;
  for (long n; empty && (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) != 0;) {
    if (n < 0) {
      empty = false;
      break;
    }
    for (long at = 0; empty && at < n;) {
      const struct dirent64 *e = (const struct dirent64 *)(buf + at);
      if (e->d_reclen == 0 || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))) empty = false;
      at += e->d_reclen;
    }
  }
  lseek(fd, 0, SEEK_SET); /* back at the start, as promised */
  return empty;
}

bool wb_dir_is_empty(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  bool empty = fd >= 0 && wb_dir_fd_is_empty(fd);
  if (fd >= 0) close(fd);
  return empty;
}

bool wb_mkdirs(const char *path) {
  char p[4096];
  if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) {
    errno = ENAMETOOLONG;
    return false;
  }
  for (char *s = p + 1; *s; s++) {
    if (*s != '/') continue;
    *s = 0;
    if (mkdir(p, 0700) != 0 && errno != EEXIST) return false;
    *s = '/';
  }
  return mkdir(p, 0700) == 0 || errno == EEXIST;
}
