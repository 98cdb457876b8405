/* The store: its directory, the live instances of sessions between calls,
 * locking, and what the library asks of a session outside a call (see
 * session.h and store.h). */
#include "session/store.h"
#include "util/os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the store ------------------------------------------------------------------ */

wb_store *wb_store_open(const char *home, char *err, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/sessions", home);
  if (!wb_mkdirs(path)) {
    wb_fail(err, n, 0, "cannot create the state directory %s: %s", path, strerror(errno));
    return NULL;
  }
  wb_store *st = calloc(1, sizeof *st);
  if (!st || !(st->home = strdup(home))) {
    free(st);
    wb_fail(err, n, 0, "out of memory");
    return NULL;
  }
  st->sessions = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (st->sessions < 0) {
    wb_fail(err, n, 0, "cannot open %s: %s", path, strerror(errno));
    free(st->home);
    free(st);
    return NULL;
  }
  pthread_mutex_init(&st->lock, NULL);
  return st;
}

void wb_store_free(wb_store *st) {
  if (!st) return;
  for (size_t i = 0; i < WB_LIVE_MAX; i++)
    if (st->live[i].id[0]) wb_live_drop(&st->live[i]);
  close(st->sessions);
  pthread_mutex_destroy(&st->lock);
  free(st->home);
  free(st);
}

void wb_live_drop(wb_live *l) {
  wb_instance_free(l->instance);
  wb_snapshot_release(&l->image);
  free(l->logged);
  memset(l, 0, sizeof *l);
  l->image.memory.fd = -1;
}

/* Forget the live state of session `id` (its disk state changed under it). */
void wb_live_forget(wb_store *st, const char *id) {
  pthread_mutex_lock(&st->lock);
  for (size_t i = 0; i < WB_LIVE_MAX; i++)
    if (!strcmp(st->live[i].id, id) && !st->live[i].busy) wb_live_drop(&st->live[i]);
  pthread_mutex_unlock(&st->lock);
}

void wb_session_idle(wb_store *st) {
  pthread_mutex_lock(&st->lock);
  for (size_t i = 0; i < WB_LIVE_MAX; i++) {
    wb_live *l = &st->live[i];
    if (l->instance && !l->busy && l->image.memory.under && !l->image_dropped) {
      wb_overlay_drop(&l->image.memory);
      l->image_dropped = true;
    }
  }
  pthread_mutex_unlock(&st->lock);
}

/* ---- locking and repair -------------------------------------------------------- */

/* Open session `id` and lock it. Returns the directory fd, or -1 (err set). */
int wb_open_locked(wb_store *st, const char *id, int *lockfd, bool wait, char *err, size_t n, int *code) {
  *code = WASMBOX_EINTERNAL;
  if (!wb_id_valid(id)) {
    *code = wb_fail(err, n, WASMBOX_EUSAGE, "'%s' is not a session id", id ? id : "");
    return -1;
  }
  int dir = openat(st->sessions, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) {
    *code = errno == ENOENT ? WASMBOX_EUSAGE : WASMBOX_EINTERNAL;
    wb_fail(err, n, 0, errno == ENOENT ? "no session %s" : "cannot open session %s", id);
    return -1;
  }
  *lockfd = openat(dir, "lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (*lockfd < 0 || flock(*lockfd, wait ? LOCK_EX : LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) *code = WASMBOX_EUSAGE;
    wb_fail(err, n, 0, errno == EWOULDBLOCK ? "session %s is busy" : "cannot lock session %s", id);
    if (*lockfd >= 0) close(*lockfd);
    close(dir);
    return -1;
  }
  /* destroyed while we waited for the lock */
  if (faccessat(dir, "HEAD", F_OK, AT_SYMLINK_NOFOLLOW) != 0) {
    *code = wb_fail(err, n, WASMBOX_EUSAGE, "no session %s", id);
    close(*lockfd);
    close(dir);
    return -1;
  }
  return dir;
}

int wb_lock_session(wb_store *st, const char *id, wb_locked *k, char *err, size_t n) {
  memset(k, 0, sizeof *k);
  int code;
  k->dir = wb_open_locked(st, id, &k->lockfd, true, err, n, &code);
  if (k->dir < 0) return code;
  if (!wb_head_read(k->dir, &k->head, &k->globals) || !wb_session_repair(k->dir, &k->head)) {
    close(k->lockfd);
    close(k->dir);
    free(k->globals);
    return wb_fail(err, n, WASMBOX_EINTERNAL, "session %s is damaged or cannot be repaired", id);
  }
  return WASMBOX_OK;
}

void wb_unlock_session(wb_locked *k) {
  close(k->lockfd);
  close(k->dir);
  free(k->globals);
}

/* ---- for the jail ------------------------------------------------------------------ */

int wb_session_describe(wb_store *st, const char *id, wb_session_place *out, char *err, size_t n) {
  memset(out, 0, sizeof *out);
  if (!wb_id_valid(id)) return wb_fail(err, n, WASMBOX_EUSAGE, "'%s' is not a session id", id ? id : "");
  int dir = openat(st->sessions, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return wb_fail(err, n, errno == ENOENT ? WASMBOX_EUSAGE : WASMBOX_EINTERNAL, "no session %s", id);
  wb_meta m;
  wb_head h;
  uint8_t *globals = NULL;
  bool ok = wb_meta_read(dir, &m);
  if (ok && wb_head_read(dir, &h, &globals)) out->gen = h.gen;
  free(globals);
  close(dir);
  if (!ok) return wb_fail(err, n, WASMBOX_EINTERNAL, "session %s is damaged (meta unreadable)", id);
  snprintf(out->dir, sizeof out->dir, "%s/sessions/%s", st->home, id);
  for (size_t i = 0; i < m.nmounts; i++) {
    out->mounts[i] = m.mounts[i].host_dir ? strdup(m.mounts[i].host_dir) : NULL;
    if (out->mounts[i]) out->nmounts = i + 1;
  }
  bool all = out->nmounts == m.nmounts;
  wb_meta_clear(&m);
  if (!all) {
    wb_session_place_clear(out);
    return wb_fail(err, n, WASMBOX_EINTERNAL, "out of memory");
  }
  return WASMBOX_OK;
}

void wb_session_place_clear(wb_session_place *p) {
  for (size_t i = 0; i < p->nmounts; i++) free(p->mounts[i]);
  p->nmounts = 0;
}

bool wb_session_exists(wb_store *st, const char *id) {
  return wb_id_valid(id) && faccessat(st->sessions, id, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

bool wb_session_generation(wb_store *st, const char *id, uint64_t *gen) {
  if (!wb_id_valid(id)) return false;
  int dir = openat(st->sessions, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  wb_head h;
  uint8_t *globals = NULL;
  bool ok = dir >= 0 && wb_head_read(dir, &h, &globals);
  if (ok) *gen = h.gen;
  free(globals);
  if (dir >= 0) close(dir);
  return ok;
}

/* ---- the workspace, for file tools ---------------------------------------------------- */

struct wb_ws_lock {
  wb_locked k;
  int ws;
};

int wb_session_lock_workspace(wb_store *st, const char *id, int *ws, wb_ws_lock **out, char *err, size_t n) {
  wb_ws_lock *lk = calloc(1, sizeof *lk);
  if (!lk) return wb_fail(err, n, WASMBOX_EINTERNAL, "out of memory");
  int code = wb_lock_session(st, id, &lk->k, err, n);
  if (code) {
    free(lk);
    return code;
  }
  char ws_name[64];
  wb_state_name(ws_name, sizeof ws_name, "ws", lk->k.head.ws_no);
  lk->ws = openat(lk->k.dir, ws_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (lk->ws < 0) {
    wb_unlock_session(&lk->k);
    free(lk);
    return wb_fail(err, n, WASMBOX_EINTERNAL, "session %s has no workspace", id);
  }
  *ws = lk->ws;
  *out = lk;
  return WASMBOX_OK;
}

void wb_session_unlock_workspace(wb_ws_lock *lk) {
  if (!lk) return;
  close(lk->ws);
  wb_unlock_session(&lk->k);
  free(lk);
}
