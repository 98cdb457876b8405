/* Private copies of --external-files (see external.h). */
#include "mcp/external.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/os.h"

#define EXTERNAL_MAX_ENTRIES 100000

typedef struct {
  uint64_t bytes, max;
  size_t entries;
  char *err;
  size_t errlen;
} budget;

static int fail(budget *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(budget *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b->err, b->errlen, fmt, ap);
  va_end(ap);
  return -1;
}

static int copy_file(budget *b, const char *src, const char *dst) {
  int in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (in < 0)
    return fail(b, "--external-files: %s: %s", src, errno == ELOOP ? "is a symlink (refused)" : strerror(errno));
  struct stat st;
  if (fstat(in, &st) || !S_ISREG(st.st_mode)) {
    close(in);
    return fail(b, "--external-files: %s: not a regular file", src);
  }
  int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400);
  if (out < 0) {
    close(in);
    return fail(b, "--external-files: %s: %s", dst, strerror(errno));
  }
  char buf[65536];
  int rc = 0;
  for (;;) {
    ssize_t n = read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n < 0) rc = fail(b, "--external-files: reading %s: %s", src, strerror(errno));
      break;
    }
    b->bytes += (uint64_t)n;
    if (b->bytes > b->max) {
      rc = fail(b, "--external-files: more than %llu bytes in all (see --external-max-bytes)",
                (unsigned long long)b->max);
      break;
    }
    for (ssize_t off = 0; off < n;) {
      ssize_t w = write(out, buf + off, (size_t)(n - off));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        rc = fail(b, "--external-files: writing %s: %s", dst, strerror(errno));
        break;
      }
      off += w;
    }
    if (rc) break;
  }
  close(in);
  close(out);
  return rc;
}

static int copy_tree(budget *b, const char *src, const char *dst, int depth) {
  struct stat st;
  if (++b->entries > EXTERNAL_MAX_ENTRIES)
    return fail(b, "--external-files: more than %d entries", EXTERNAL_MAX_ENTRIES);
  if (depth > 64) return fail(b, "--external-files: %s: nested too deeply", src);
  if (lstat(src, &st)) return fail(b, "--external-files: %s: %s", src, strerror(errno));
  if (S_ISLNK(st.st_mode)) return fail(b, "--external-files: %s is a symlink (refused: it could lead anywhere)", src);
  if (S_ISREG(st.st_mode)) return copy_file(b, src, dst);
  if (!S_ISDIR(st.st_mode)) return fail(b, "--external-files: %s: only regular files and directories", src);
  if (mkdir(dst, 0700)) return fail(b, "--external-files: %s: %s", dst, strerror(errno));
  DIR *d = opendir(src);
  if (!d) return fail(b, "--external-files: %s: %s", src, strerror(errno));
  int rc = 0;
  struct dirent *e;
  while (rc == 0 && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char *s2, *d2;
    if (asprintf(&s2, "%s/%s", src, e->d_name) < 0) {
      rc = fail(b, "out of memory");
      break;
    }
    if (asprintf(&d2, "%s/%s", dst, e->d_name) < 0) {
      free(s2);
      rc = fail(b, "out of memory");
      break;
    }
    rc = copy_tree(b, s2, d2, depth + 1);
    free(s2);
    free(d2);
  }
  closedir(d);
  if (rc == 0) chmod(dst, 0500);
  return rc;
}

int mcp_external_prepare(const char *const *paths, size_t n, uint64_t max_bytes, const char *dest, char *err,
                         size_t errlen) {
  budget b = {.max = max_bytes, .err = err, .errlen = errlen};
  /* made beside dest, then put in its place whole */
  char *root;
  if (asprintf(&root, "%s.new-XXXXXX", dest) < 0) return fail(&b, "out of memory");
  if (!mkdtemp(root)) {
    fail(&b, "--external-files: cannot make a directory beside %s: %s", dest, strerror(errno));
    free(root);
    return -1;
  }
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    char *copy = strdup(paths[i]);
    if (!copy) {
      rc = fail(&b, "out of memory");
      break;
    }
    size_t len = strlen(copy);
    while (len > 1 && copy[len - 1] == '/') copy[--len] = 0;
    const char *slash = strrchr(copy, '/');
    const char *base = slash ? slash + 1 : copy;
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
      rc = fail(&b, "--external-files: %s: name a file or directory", paths[i]);
    } else {
      char *dst;
      if (asprintf(&dst, "%s/%s", root, base) < 0) {
        rc = fail(&b, "out of memory");
      } else {
        if (access(dst, F_OK) == 0)
          rc = fail(&b, "--external-files: two paths are both called '%s' in /external", base);
        else rc = copy_tree(&b, paths[i], dst, 0);
        free(dst);
      }
    }
    free(copy);
  }
  if (rc) {
    wb_remove_tree(root);
    free(root);
    return -1;
  }
  chmod(root, 0500);
  char *old;
  rc = asprintf(&old, "%s.old-XXXXXX", dest) < 0 || !mkdtemp(old) ? -1 : 0;
  if (rc == 0 && rename(dest, old) != 0 && errno != ENOENT) rc = -1;
  if (rc == 0 && rename(root, dest) != 0) rc = -1;
  if (rc) fail(&b, "--external-files: cannot put the copy at %s: %s", dest, strerror(errno));
  if (rc == 0) wb_remove_tree(old);
  else wb_remove_tree(root);
  free(old);
  free(root);
  return rc;
}
