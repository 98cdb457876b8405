/* Small POSIX helpers (see os.h). */
#include "util/os.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

uint64_t wb_monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

double wb_monotonic_s(void) { return (double)wb_monotonic_ns() / 1e9; }

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

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  if (flag == FTW_DP) rmdir(path);
  else unlink(path);
  return 0;
}

static int remove_inner_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  return ftw->level == 0 ? 0 : remove_entry(path, st, flag, ftw);
}

void wb_remove_tree(const char *dir) { nftw(dir, remove_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT); }

void wb_empty_dir(const char *dir) { nftw(dir, remove_inner_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT); }

bool wb_dir_is_empty(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  bool empty = d != NULL;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = false;
  if (d) closedir(d);
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
