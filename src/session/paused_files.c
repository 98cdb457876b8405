/* Paused runs as files (paused_files.h). */
#include "session/paused_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session/format.h"
#include "util/os.h"

#define FILE_MAX (2ull << 30)
#define TOKEN_MAX 64

static bool token_ok(const char *t) {
  size_t n = t ? strlen(t) : 0;
  if (!n || n > TOKEN_MAX) return false;
  for (; *t; t++)
    if (!((*t >= '0' && *t <= '9') || (*t >= 'a' && *t <= 'f'))) return false;
  return true;
}

int wb_paused_file_put(const char *home, const char *token, const void *data, size_t len, char *err, size_t n) {
  if (!token_ok(token)) return wb_fail(err, n, WASMBOX_EINTERNAL, "a resume token is lowercase hex");
  char dir[4096], tmp[4200], path[4200];
  snprintf(dir, sizeof dir, "%s/paused", home);
  snprintf(tmp, sizeof tmp, "%s/.new-%s", dir, token);
  snprintf(path, sizeof path, "%s/%s", dir, token);
  if (!wb_mkdirs(dir)) return wb_fail(err, n, WASMBOX_EINTERNAL, "cannot make %s: %s", dir, strerror(errno));
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  bool ok = fd >= 0 && wb_pwrite_all(fd, data, len, 0) && fsync(fd) == 0;
  if (fd >= 0) close(fd);
  if (!ok || rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    return wb_fail(err, n, WASMBOX_EINTERNAL, "cannot keep the paused run in %s: %s", dir, strerror(e));
  }
  return WASMBOX_OK;
}

/* The file of a token, read whole (not yet claimed): NULL if none. */
static uint8_t *read_run(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  struct stat st;
  uint8_t *bytes = NULL;
  bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size <= FILE_MAX &&
            (bytes = malloc((size_t)st.st_size + 1)) && wb_pread_all(fd, bytes, (size_t)st.st_size, 0);
  if (fd >= 0) close(fd);
  if (!ok) {
    free(bytes);
    return NULL;
  }
  *len = (size_t)st.st_size;
  return bytes;
}

int wb_paused_file_take(const char *home, const char *token, wb_paused_mine mine, void *ctx, uint8_t **data,
                        size_t *len, char *err, size_t n) {
  *data = NULL;
  *len = 0;
  if (!token_ok(token)) return wb_fail(err, n, WASMBOX_EUSAGE, "no paused run has this resume token");
  char path[4200], taken[4300];
  snprintf(path, sizeof path, "%s/paused/%s", home, token);
  snprintf(taken, sizeof taken, "%s/paused/.taken-%s-%ld", home, token, (long)getpid());
  size_t got = 0;
  uint8_t *bytes = read_run(path, &got);
  /* another's run is, to this caller, none at all: it is not claimed and
     stays for its owner; the rename is the claim: of two takes, one wins */
  if (!bytes || (mine && !mine(bytes, got, ctx)) || rename(path, taken) != 0) {
    free(bytes);
    return wb_fail(err, n, WASMBOX_EUSAGE, "no paused run has this resume token");
  }
  unlink(taken);
  *data = bytes;
  *len = got;
  return WASMBOX_OK;
}

void wb_paused_files_prune(const char *home, double ttl_s) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/paused", home);
  DIR *d = opendir(dir);
  if (!d) return;
  double now = wb_wall_s();
  struct dirent *e;
  while ((e = readdir(d))) {
    bool run = token_ok(e->d_name), leftover = !strncmp(e->d_name, ".new-", 5) || !strncmp(e->d_name, ".taken-", 7);
    struct stat st;
    if ((!run && !leftover) || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    double age = now - ((double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9);
    if (age > (run ? ttl_s : 3600)) unlinkat(dirfd(d), e->d_name, 0);
  }
  closedir(d);
}
