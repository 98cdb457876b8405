/* A session's life outside calls: create, fork, checkpoint, restore,
 * destroy, list, info, prune (see session.h). */
#include "session/store.h"

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

#include "session/tree.h"

/* ---- create ------------------------------------------------------------------------- */

int wb_session_create(wb_store *st, const wasmbox_session_options *o, char id[WASMBOX_ID_MAX], char *err, size_t n) {
  const char *lang = o && o->language ? o->language : "python";
  const wb_runtime *rt = wb_runtime_find(lang);
  if (!rt) return wb_fail(err, n, WASMBOX_EUSAGE, "unknown language '%s'", lang);
  double ttl = o && o->ttl_seconds ? o->ttl_seconds : WASMBOX_DEFAULT_SESSION_TTL_S;
  if (!(ttl > 0 && ttl <= 365.0 * 24 * 3600))
    return wb_fail(err, n, WASMBOX_EUSAGE, "ttl must be between 0 and a year");
  if (o && o->env_len > WB_SESSION_ENV_MAX)
    return wb_fail(err, n, WASMBOX_EUSAGE, "at most %d environment entries", WB_SESSION_ENV_MAX);
  if (o && o->mounts_len > WASMBOX_MAX_MOUNTS)
    return wb_fail(err, n, WASMBOX_EUSAGE, "at most %d mounts", WASMBOX_MAX_MOUNTS);
  if (o && o->owner && !wb_owner_valid(o->owner))
    return wb_fail(err, n, WASMBOX_EUSAGE, "an owner is printable ASCII, at most %d characters", WASMBOX_OWNER_MAX - 1);
  if (!rt->prepare(err, n)) return WASMBOX_EINTERNAL;

  wb_meta m;
  memset(&m, 0, sizeof m);
  snprintf(m.language, sizeof m.language, "%s", rt->language);
  m.created = wb_wall_s();
  m.ttl = ttl;
  for (size_t i = 0; o && i < o->env_len; i++) m.env[m.nenv++] = (char *)o->env[i];
  for (size_t i = 0; o && i < o->mounts_len; i++) m.mounts[m.nmounts++] = o->mounts[i];
  if (o && o->owner) snprintf(m.owner, sizeof m.owner, "%s", o->owner);

  char tmp[WASMBOX_ID_MAX + 8];
  wb_new_id('s', id);
  snprintf(tmp, sizeof tmp, ".new-%s", id);
  if (mkdirat(st->sessions, tmp, 0700) != 0)
    return wb_fail(err, n, WASMBOX_EINTERNAL, "cannot create a session: %s", strerror(errno));
  int dir = openat(st->sessions, tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  wb_head h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, WB_HEAD_MAGIC, 8);
  h.last_used = m.created;
  snprintf(h.build_id, sizeof h.build_id, "%s", rt->build_id);
  int lf = dir >= 0 ? openat(dir, "log-0", O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;
  bool ok = dir >= 0 && lf >= 0 && mkdirat(dir, "ws-0", 0755) == 0 && wb_meta_write(dir, &m) &&
            wb_head_write(dir, &h, NULL) && renameat(st->sessions, tmp, st->sessions, id) == 0 &&
            fsync(st->sessions) == 0;
  int e = errno;
  if (lf >= 0) close(lf);
  if (dir >= 0) close(dir);
  if (!ok) {
    wb_tree_remove(st->sessions, tmp);
    return wb_fail(err, n, WASMBOX_EINTERNAL, "cannot create a session: %s", strerror(e));
  }
  return WASMBOX_OK;
}

/* ---- fork, checkpoint, restore ---------------------------------------------------- */

/* Copy the committed state (HEAD, its log, a link copy of its workspace)
 * of the locked session in `dir` into directory `to` as log-0 and ws-0. */
static bool copy_state(int dir, const wb_head *h, const uint8_t *globals, int to) {
  char log[64], ws[64];
  wb_state_name(log, sizeof log, "log", h->log_no);
  wb_state_name(ws, sizeof ws, "ws", h->ws_no);
  int src = openat(dir, log, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  int dst = openat(to, "log-0", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  int wsfd = openat(dir, ws, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  wb_head c = *h;
  c.log_no = 0;
  c.ws_no = 0;
  bool ok = src >= 0 && dst >= 0 && wsfd >= 0 && wb_copy_range(src, dst, h->log_len) && fdatasync(dst) == 0 &&
            wb_tree_link(wsfd, to, "ws-0") && wb_head_write(to, &c, globals);
  if (src >= 0) close(src);
  if (dst >= 0) close(dst);
  if (wsfd >= 0) close(wsfd);
  return ok;
}

int wb_session_fork(wb_store *st, const char *id, char new_id_out[WASMBOX_ID_MAX], char *err, size_t n) {
  wb_locked k;
  int code = wb_lock_session(st, id, &k, err, n);
  if (code) return code;
  wb_meta m;
  char tmp[WASMBOX_ID_MAX + 8];
  wb_new_id('s', new_id_out);
  snprintf(tmp, sizeof tmp, ".new-%s", new_id_out);
  bool ok = wb_meta_read(k.dir, &m);
  if (ok) m.created = wb_wall_s();
  int to = -1;
  ok = ok && mkdirat(st->sessions, tmp, 0700) == 0 &&
       (to = openat(st->sessions, tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)) >= 0 &&
       wb_meta_write(to, &m) && copy_state(k.dir, &k.head, k.globals, to) &&
       renameat(st->sessions, tmp, st->sessions, new_id_out) == 0 && fsync(st->sessions) == 0;
  int e = errno;
  if (to >= 0) close(to);
  wb_meta_clear(&m);
  if (!ok) wb_tree_remove(st->sessions, tmp);
  wb_unlock_session(&k);
  return ok ? WASMBOX_OK : wb_fail(err, n, WASMBOX_EINTERNAL, "cannot fork session %s: %s", id, strerror(e));
}

int wb_session_checkpoint(wb_store *st, const char *id, char cid[WASMBOX_ID_MAX], char *err, size_t n) {
  wb_locked k;
  int code = wb_lock_session(st, id, &k, err, n);
  if (code) return code;
  char tmp[WASMBOX_ID_MAX + 8];
  wb_new_id('c', cid);
  snprintf(tmp, sizeof tmp, "%s.tmp", cid);
  int cps = -1, to = -1;
  bool ok = (mkdirat(k.dir, "checkpoints", 0700) == 0 || errno == EEXIST) &&
            (cps = openat(k.dir, "checkpoints", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)) >= 0 &&
            mkdirat(cps, tmp, 0700) == 0 && (to = openat(cps, tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0 &&
            copy_state(k.dir, &k.head, k.globals, to) && renameat(cps, tmp, cps, cid) == 0 && fsync(cps) == 0;
  int e = errno;
  if (!ok && cps >= 0) wb_tree_remove(cps, tmp);
  if (to >= 0) close(to);
  if (cps >= 0) close(cps);
  wb_unlock_session(&k);
  return ok ? WASMBOX_OK : wb_fail(err, n, WASMBOX_EINTERNAL, "cannot checkpoint session %s: %s", id, strerror(e));
}

int wb_session_restore(wb_store *st, const char *id, const char *cid, char *err, size_t n) {
  if (!wb_id_valid(cid)) return wb_fail(err, n, WASMBOX_EUSAGE, "'%s' is not a checkpoint id", cid ? cid : "");
  wb_locked k;
  int code = wb_lock_session(st, id, &k, err, n);
  if (code) return code;
  char path[WASMBOX_ID_MAX + 16];
  snprintf(path, sizeof path, "checkpoints/%s", cid);
  int cp = openat(k.dir, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  wb_head ch;
  uint8_t *cglobals = NULL;
  if (cp < 0 || !wb_head_read(cp, &ch, &cglobals)) {
    if (cp >= 0) close(cp);
    wb_unlock_session(&k);
    return wb_fail(err, n, WASMBOX_EUSAGE, "session %s has no checkpoint %s", id, cid);
  }
  /* new log and workspace beside the current ones; HEAD switches to them */
  wb_head h = ch;
  h.gen = k.head.gen + 1; /* a new state: live copies of the old one are stale */
  h.log_no = k.head.log_no + 1;
  h.ws_no = k.head.ws_no + 1;
  h.last_used = wb_wall_s();
  char log[64], ws[64];
  wb_state_name(log, sizeof log, "log", h.log_no);
  wb_state_name(ws, sizeof ws, "ws", h.ws_no);
  int src = openat(cp, "log-0", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  int dst = openat(k.dir, log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  int cws = openat(cp, "ws-0", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  bool ok = src >= 0 && dst >= 0 && cws >= 0 && wb_copy_range(src, dst, ch.log_len) && fdatasync(dst) == 0 &&
            wb_tree_link(cws, k.dir, ws) && wb_head_write(k.dir, &h, cglobals);
  int e = errno;
  if (src >= 0) close(src);
  if (dst >= 0) close(dst);
  if (cws >= 0) close(cws);
  close(cp);
  free(cglobals);
  if (ok) wb_session_repair(k.dir, &h); /* drops the old log and workspace */
  else {
    unlinkat(k.dir, log, 0);
    wb_tree_remove(k.dir, ws);
  }
  wb_unlock_session(&k);
  wb_live_forget(st, id);
  return ok ? WASMBOX_OK : wb_fail(err, n, WASMBOX_EINTERNAL, "cannot restore session %s: %s", id, strerror(e));
}

/* ---- destroy, list, prune ------------------------------------------------------------ */

static int destroy_locked(wb_store *st, const char *id, wb_locked *k, char *err, size_t n) {
  char trash[WASMBOX_ID_MAX + 40], prefix[WASMBOX_ID_MAX + 16];
  snprintf(prefix, sizeof prefix, ".trash-%s-", id);
  wb_random_name(trash, sizeof trash, prefix);
  bool ok = renameat(st->sessions, id, st->sessions, trash) == 0;
  int e = errno;
  wb_unlock_session(k);
  if (ok) wb_tree_remove(st->sessions, trash);
  wb_live_forget(st, id);
  return ok ? WASMBOX_OK : wb_fail(err, n, WASMBOX_EINTERNAL, "cannot remove session %s: %s", id, strerror(e));
}

/* Only the lock: a session whose HEAD or meta is damaged can still go. */
int wb_session_destroy(wb_store *st, const char *id, char *err, size_t n) {
  wb_locked k = {0};
  int code;
  k.dir = wb_open_locked(st, id, &k.lockfd, true, err, n, &code);
  return k.dir < 0 ? code : destroy_locked(st, id, &k, err, n);
}

static bool info_of(wb_store *st, const char *id, wasmbox_session_info *out) {
  memset(out, 0, sizeof *out);
  int dir = openat(st->sessions, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return false;
  wb_head h;
  uint8_t *g = NULL;
  wb_meta m;
  bool ok = wb_head_read(dir, &h, &g) && wb_meta_read(dir, &m);
  if (ok) {
    snprintf(out->id, sizeof out->id, "%s", id);
    snprintf(out->language, sizeof out->language, "%s", m.language);
    out->created = m.created;
    out->last_used = h.last_used > m.created ? h.last_used : m.created;
    out->ttl_seconds = m.ttl;
    snprintf(out->owner, sizeof out->owner, "%s", m.owner);
    out->disk_bytes = wb_tree_bytes(st->sessions, id);
    int cps = openat(dir, "checkpoints", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    DIR *d = cps >= 0 ? fdopendir(cps) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d)))
      if (e->d_name[0] != '.' && !strstr(e->d_name, ".tmp")) out->checkpoints++;
    if (d) closedir(d);
    else if (cps >= 0) close(cps);
    wb_meta_clear(&m);
  }
  free(g);
  close(dir);
  return ok;
}

int wb_session_info(wb_store *st, const char *id, wasmbox_session_info *out, char *err, size_t n) {
  if (!wb_id_valid(id)) return wb_fail(err, n, WASMBOX_EUSAGE, "'%s' is not a session id", id ? id : "");
  return info_of(st, id, out) ? WASMBOX_OK : wb_fail(err, n, WASMBOX_EUSAGE, "no session %s", id);
}

int wb_session_owner(wb_store *st, const char *id, char owner[WASMBOX_OWNER_MAX], char *err, size_t n) {
  owner[0] = 0;
  if (!wb_id_valid(id)) return wb_fail(err, n, WASMBOX_EUSAGE, "'%s' is not a session id", id ? id : "");
  int dir = openat(st->sessions, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  wb_meta m;
  bool ok = dir >= 0 && wb_meta_read(dir, &m);
  if (dir >= 0) close(dir);
  if (!ok) return wb_fail(err, n, WASMBOX_EUSAGE, "no session %s", id);
  snprintf(owner, WASMBOX_OWNER_MAX, "%s", m.owner);
  wb_meta_clear(&m);
  return WASMBOX_OK;
}

int wb_session_list(wb_store *st, wasmbox_session_info **out, size_t *count, char *err, size_t n) {
  *out = NULL;
  *count = 0;
  int it = dup(st->sessions);
  DIR *d = it >= 0 ? fdopendir(it) : NULL;
  if (!d) {
    if (it >= 0) close(it);
    return wb_fail(err, n, WASMBOX_EINTERNAL, "cannot list sessions: %s", strerror(errno));
  }
  rewinddir(d);
  size_t cap = 0;
  struct dirent *e;
  int code = WASMBOX_OK;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' || !wb_id_valid(e->d_name)) continue;
    if (*count == cap) {
      cap = cap ? cap * 2 : 16;
      wasmbox_session_info *g = realloc(*out, cap * sizeof **out);
      if (!g) {
        code = wb_fail(err, n, WASMBOX_EINTERNAL, "out of memory");
        break;
      }
      *out = g;
    }
    if (info_of(st, e->d_name, &(*out)[*count])) (*count)++;
  }
  closedir(d);
  if (code) {
    free(*out);
    *out = NULL;
    *count = 0;
  }
  return code;
}

int wb_session_prune(wb_store *st, size_t *removed, char *err, size_t n) {
  *removed = 0;
  wasmbox_session_info *all;
  size_t count;
  int code = wb_session_list(st, &all, &count, err, n);
  if (code) return code;
  double now = wb_wall_s();
  for (size_t i = 0; i < count; i++) {
    if (now - all[i].last_used <= all[i].ttl_seconds) continue;
    wb_locked k;
    char e2[256];
    /* busy sessions are in use, so not idle: leave them */
    memset(&k, 0, sizeof k);
    int c;
    k.dir = wb_open_locked(st, all[i].id, &k.lockfd, false, e2, sizeof e2, &c);
    if (k.dir < 0) continue;
    k.globals = NULL;
    if (destroy_locked(st, all[i].id, &k, e2, sizeof e2) == WASMBOX_OK) (*removed)++;
  }
  free(all);
  /* and what an interrupted create, fork or destroy left (a .new- entry
   * is someone's create in progress unless it is old); and sessions whose
   * HEAD or meta is damaged, which list cannot show, once their directory
   * and its HEAD have been untouched for the default TTL (a commit writes
   * HEAD in place) */
  int it = dup(st->sessions);
  DIR *d = it >= 0 ? fdopendir(it) : NULL;
  struct dirent *e;
  if (d) rewinddir(d); /* the dup shares its offset with list's walk, which ended at the end */
  while (d && (e = readdir(d))) {
    struct stat sb;
    bool seen = fstatat(st->sessions, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0;
    double idle = seen ? now - (double)sb.st_mtime : 0;
    char head[WASMBOX_ID_MAX + 8];
    struct stat hb;
    snprintf(head, sizeof head, "%.*s/HEAD", WASMBOX_ID_MAX - 1, e->d_name);
    if (seen && fstatat(st->sessions, head, &hb, AT_SYMLINK_NOFOLLOW) == 0 && now - (double)hb.st_mtime < idle)
      idle = now - (double)hb.st_mtime;
    wasmbox_session_info info;
    if (!strncmp(e->d_name, ".trash-", 7) || (!strncmp(e->d_name, ".new-", 5) && idle > 3600)) {
      wb_tree_remove(st->sessions, e->d_name);
    } else if (seen && S_ISDIR(sb.st_mode) && idle > WASMBOX_DEFAULT_SESSION_TTL_S && wb_id_valid(e->d_name) &&
               !info_of(st, e->d_name, &info)) {
      char id[WASMBOX_ID_MAX], e2[256];
      int c;
      memcpy(id, e->d_name, strlen(e->d_name) + 1); /* a valid id fits */
      wb_locked k = {0};
      k.dir = wb_open_locked(st, id, &k.lockfd, false, e2, sizeof e2, &c);
      if (k.dir >= 0 && destroy_locked(st, id, &k, e2, sizeof e2) == WASMBOX_OK) (*removed)++;
    }
  }
  if (d) closedir(d);
  else if (it >= 0) close(it);
  return WASMBOX_OK;
}
