/* The local backend (backend.h): sessions in this process's directory
 * store (session.h), paused runs as files (paused_files.h), ended ids as
 * files in $home/mcp-ended. */
#include "session/backend.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "session/format.h"
#include "util/os.h"

typedef struct {
  wb_backend b;
  pthread_mutex_t lock; /* ended_cleared */
  bool ended_cleared;   /* the first add cleared old entries */
} local;

#define STORE_OR_FAIL(st)                   \
  wb_store *st = wb_backend_dir(b, err, n); \
  if (!st) return WASMBOX_EINTERNAL

static int create(wb_backend *b, const wasmbox_session_options *o, char id[WASMBOX_ID_MAX], char *err, size_t n) {
  STORE_OR_FAIL(st);
  return wb_session_create(st, o, id, err, n);
}

static int fork_session(wb_backend *b, const char *id, char new_id[WASMBOX_ID_MAX], char *err, size_t n) {
  STORE_OR_FAIL(st);
  return wb_session_fork(st, id, new_id, err, n);
}

static int checkpoint(wb_backend *b, const char *id, char cid[WASMBOX_ID_MAX], char *err, size_t n) {
  STORE_OR_FAIL(st);
  return wb_session_checkpoint(st, id, cid, err, n);
}

static int restore(wb_backend *b, const char *id, const char *cid, char *err, size_t n) {
  STORE_OR_FAIL(st);
  int code = wb_session_restore(st, id, cid, err, n);
  if (!code) b->hooks.stale(b->hooks.ctx, id);
  return code;
}

static int destroy(wb_backend *b, const char *id, char *err, size_t n) {
  STORE_OR_FAIL(st);
  return wb_session_destroy(st, id, err, n);
}

static int list(wb_backend *b, wasmbox_session_info **out, size_t *count, char *err, size_t n) {
  STORE_OR_FAIL(st);
  return wb_session_list(st, out, count, err, n);
}

static int info(wb_backend *b, const char *id, wasmbox_session_info *out, char *err, size_t n) {
  STORE_OR_FAIL(st);
  return wb_session_info(st, id, out, err, n);
}

static int owner(wb_backend *b, const char *id, char who[WASMBOX_OWNER_MAX], char *err, size_t n) {
  STORE_OR_FAIL(st);
  return wb_session_owner(st, id, who, err, n);
}

static int prune(wb_backend *b, size_t *removed, char *err, size_t n) {
  STORE_OR_FAIL(st);
  int code = wb_session_prune(st, removed, err, n);
  wb_paused_files_prune(b->home, WASMBOX_RESUME_TTL_S);
  return code;
}

/* the directory's own lock is the session's: nothing more to hold */
static int begin(wb_backend *b, const char *id, wb_hold **out, char *err, size_t n) {
  (void)b, (void)id, (void)err, (void)n;
  *out = NULL;
  return WASMBOX_OK;
}

static int commit(wb_hold *h, char *err, size_t n) {
  (void)h, (void)err, (void)n;
  return WASMBOX_OK;
}

static void rollback(wb_hold *h) { (void)h; }

static void clear_old(const char *dir, double keep_s) {
  DIR *d = opendir(dir);
  if (!d) return;
  time_t old = time(NULL) - (time_t)keep_s;
  struct stat st;
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.' && fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_mtime < old)
      unlinkat(dirfd(d), e->d_name, 0);
  closedir(d);
}

/* ids are checked by the caller (api/ended.c): names of one path element */
static int ended_add(wb_backend *b, const char *id, double keep_s, char *err, size_t n) {
  local *l = (local *)b;
  char dir[4200], path[4400];
  snprintf(dir, sizeof dir, "%s/mcp-ended", b->home);
  if (!wb_mkdirs(dir)) return wb_fail(err, n, WASMBOX_EINTERNAL, "cannot make %s: %s", dir, strerror(errno));
  pthread_mutex_lock(&l->lock);
  bool first = !l->ended_cleared;
  l->ended_cleared = true;
  pthread_mutex_unlock(&l->lock);
  if (first) clear_old(dir, keep_s);
  snprintf(path, sizeof path, "%s/%s", dir, id);
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return wb_fail(err, n, WASMBOX_EINTERNAL, "cannot write %s: %s", path, strerror(errno));
  close(fd);
  return WASMBOX_OK;
}

static int ended_has(wb_backend *b, const char *id, double keep_s, char *err, size_t n) {
  char path[4400];
  snprintf(path, sizeof path, "%s/mcp-ended/%s", b->home, id);
  struct stat st;
  if (stat(path, &st) == 0) return difftime(time(NULL), st.st_mtime) <= keep_s;
  if (errno == ENOENT) return 0;
  wb_fail(err, n, 0, "cannot read %s: %s", path, strerror(errno));
  return -1;
}

static int paused_put(wb_backend *b, const char *token, const char *who, const char *scope, double created,
                      const void *data, size_t len, char *err, size_t n) {
  (void)who, (void)scope, (void)created; /* in the bytes, and the file's time */
  return wb_paused_file_put(b->home, token, data, len, err, n);
}

static int paused_take(wb_backend *b, const char *token, const char *who, const char *scope, wb_paused_mine mine,
                       void *ctx, uint8_t **data, size_t *len, char *err, size_t n) {
  (void)who, (void)scope; /* mine() reads them from the bytes */
  return wb_paused_file_take(b->home, token, mine, ctx, data, len, err, n);
}

static const char *same_dir(wb_backend *b, const char *dir) {
  (void)b;
  return dir;
}

static void no_stats(wb_backend *b, uint64_t *ops, uint64_t *failures, double *seconds) {
  (void)b;
  *ops = *failures = 0;
  *seconds = 0;
}

static void free_local(wb_backend *b) {
  local *l = (local *)b;
  pthread_mutex_destroy(&l->lock);
  free(b->home);
  free(l);
}

static const struct wb_store_ops local_ops = {
    .name = "local",
    .free = free_local,
    .create = create,
    .fork = fork_session,
    .checkpoint = checkpoint,
    .restore = restore,
    .destroy = destroy,
    .list = list,
    .info = info,
    .owner = owner,
    .prune = prune,
    .begin = begin,
    .commit = commit,
    .rollback = rollback,
    .ended_add = ended_add,
    .ended_has = ended_has,
    .paused_put = paused_put,
    .paused_take = paused_take,
    .mount_name = same_dir,
    .mount_dir = same_dir,
    .stats = no_stats,
};

wb_backend *wb_backend_local(const char *home, const wb_backend_hooks *hooks, char *err, size_t n) {
  local *l = calloc(1, sizeof *l);
  if (l) l->b = (wb_backend){.ops = &local_ops, .hooks = *hooks, .home = strdup(home)};
  if (!l || !l->b.home) {
    free(l);
    wb_fail(err, n, 0, "out of memory");
    return NULL;
  }
  pthread_mutex_init(&l->lock, NULL);
  return &l->b;
}
