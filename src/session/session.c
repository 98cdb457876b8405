/* Sessions (see session.h). */
#include "session/session.h"

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

#include "session/dirty.h"
#include "session/pagelog.h"
#include "session/tree.h"
#include "util/os.h"
#include "wasm_rt/wasm_rt_ext.h"

#define HEAD_MAGIC "WBHEAD\0\1"
#define PAGES_PER_WASM_PAGE (WB_WASM_PAGE / WB_HOST_PAGE)
#define LIVE_MAX 8
#define ENV_MAX 256

typedef struct {
  char magic[8];
  uint64_t gen;       /* commits so far; 0: never run (the base snapshot) */
  uint64_t log_no, log_len, records;
  uint64_t ws_no;
  uint32_t pages, globals_size;
  double last_used;
  char build_id[64];
} head_t; /* followed by globals_size bytes */

typedef struct {
  char language[16];
  double created, ttl;
  char *env[ENV_MAX];
  size_t nenv;
  wasmbox_mount mounts[WASMBOX_MAX_MOUNTS];
  size_t nmounts;
} meta_t;

/* A session whose instance stays in this process between calls. */
typedef struct {
  char id[WASMBOX_ID_MAX];
  uint64_t gen;
  wb_instance *instance;
  wb_snapshot image;  /* committed memory (memfd) and globals */
  uint8_t *logged;    /* bitmap: 4 KiB pages the log holds */
  size_t logged_pages;
  uint64_t used;
  bool busy;
} live_t;

struct wb_store {
  char *home;
  int sessions;       /* $home/sessions */
  pthread_mutex_t lock; /* the live table */
  live_t live[LIVE_MAX];
  uint64_t tick;
};

struct wb_session {
  wb_store *st;
  char id[WASMBOX_ID_MAX];
  int dir, lockfd;
  head_t head;
  uint8_t *globals;
  meta_t meta;
  const wb_runtime *rt;
  live_t *live;
  bool saved_workspace; /* pre-G is complete: a rollback may use it */
};

/* ---- small helpers ---------------------------------------------------------- */

static int fail(char *err, size_t n, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t n, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
  return code;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static bool valid_id(const char *id) {
  size_t n = id ? strlen(id) : 0;
  if (n == 0 || n >= WASMBOX_ID_MAX) return false;
  for (size_t i = 0; i < n; i++)
    if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= 'A' && id[i] <= 'Z') || (id[i] >= '0' && id[i] <= '9') ||
          id[i] == '-' || id[i] == '_'))
      return false;
  return true;
}

/* prefix + 24 random hex digits (ids, and names of temporary entries) */
static void random_name(char *out, size_t n, const char *prefix) {
  uint8_t r[12];
  if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
    /* not expected; the clock keeps names distinct enough to go on */
    uint64_t t = (uint64_t)(now_s() * 1e9);
    memcpy(r, &t, 8);
  }
  size_t k = (size_t)snprintf(out, n, "%s", prefix);
  for (size_t i = 0; i < sizeof r && k + 2 < n; i++, k += 2) snprintf(out + k, n - k, "%02x", r[i]);
}

static void new_id(char prefix, char id[WASMBOX_ID_MAX]) {
  char p[2] = {prefix, 0};
  random_name(id, WASMBOX_ID_MAX, p);
}

static bool write_all(int fd, const void *p, size_t n) {
  const uint8_t *b = p;
  while (n) {
    ssize_t w = write(fd, b, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    b += w, n -= (size_t)w;
  }
  return true;
}

/* Replace dir/name with `len` bytes, durably: temp file, fsync, rename,
 * fsync of the directory. */
static bool write_atomic(int dir, const char *name, const void *a, size_t alen, const void *b, size_t blen) {
  char tmp[128];
  snprintf(tmp, sizeof tmp, "%s.tmp", name);
  int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return false;
  bool ok = write_all(fd, a, alen) && write_all(fd, b, blen) && fsync(fd) == 0;
  ok = close(fd) == 0 && ok;
  ok = ok && renameat(dir, tmp, dir, name) == 0 && fsync(dir) == 0;
  if (!ok) unlinkat(dir, tmp, 0);
  return ok;
}

static char *read_small(int dir, const char *name, size_t *len) {
  int fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return NULL;
  struct stat st;
  char *buf = NULL;
  if (fstat(fd, &st) == 0 && st.st_size < (16 << 20)) {
    buf = malloc((size_t)st.st_size + 1);
    if (buf && pread(fd, buf, (size_t)st.st_size, 0) != st.st_size) {
      free(buf);
      buf = NULL;
    }
    if (buf) {
      buf[st.st_size] = 0;
      *len = (size_t)st.st_size;
    }
  }
  close(fd);
  return buf;
}

static bool copy_range(int from, int to, uint64_t len) {
  loff_t in = 0, out = 0;
  while (len) {
    ssize_t n = copy_file_range(from, &in, to, &out, len, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    len -= (uint64_t)n;
  }
  return true;
}


/* ---- meta: one "key value" line each; strings hex-encoded ------------------- */

static void put_hex(FILE *f, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) fprintf(f, "%02x", *p);
}

static char *get_hex(const char *h) {
  size_t n = strlen(h) / 2;
  char *s = malloc(n + 1);
  if (!s) return NULL;
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    if (sscanf(h + 2 * i, "%2x", &v) != 1 || v == 0) {
      free(s);
      return NULL;
    }
    s[i] = (char)v;
  }
  s[n] = 0;
  return s;
}

static void meta_clear(meta_t *m) {
  for (size_t i = 0; i < m->nenv; i++) free(m->env[i]);
  for (size_t i = 0; i < m->nmounts; i++) {
    free((char *)m->mounts[i].host_dir);
    free((char *)m->mounts[i].guest_path);
  }
  memset(m, 0, sizeof *m);
}

static bool meta_write(int dir, const meta_t *m) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return false;
  fprintf(f, "language %s\ncreated %.6f\nttl %.3f\n", m->language, m->created, m->ttl);
  for (size_t i = 0; i < m->nenv; i++) {
    fputs("env ", f);
    put_hex(f, m->env[i]);
    fputc('\n', f);
  }
  for (size_t i = 0; i < m->nmounts; i++) {
    fputs("mount ", f);
    put_hex(f, m->mounts[i].host_dir);
    fputc(' ', f);
    put_hex(f, m->mounts[i].guest_path);
    fputc('\n', f);
  }
  bool ok = fclose(f) == 0 && write_atomic(dir, "meta", text, len, "", 0);
  free(text);
  return ok;
}

static bool meta_read(int dir, meta_t *m) {
  memset(m, 0, sizeof *m);
  size_t len;
  char *text = read_small(dir, "meta", &len);
  if (!text) return false;
  bool ok = true;
  for (char *line = strtok(text, "\n"); ok && line; line = strtok(NULL, "\n")) {
    char key[16], a[8200], b[8200];
    int k = sscanf(line, "%15s %8199s %8199s", key, a, b);
    if (k >= 2 && !strcmp(key, "language")) snprintf(m->language, sizeof m->language, "%.15s", a);
    else if (k >= 2 && !strcmp(key, "created")) m->created = atof(a);
    else if (k >= 2 && !strcmp(key, "ttl")) m->ttl = atof(a);
    else if (k >= 2 && !strcmp(key, "env") && m->nenv < ENV_MAX) ok = (m->env[m->nenv++] = get_hex(a)) != NULL;
    else if (k == 3 && !strcmp(key, "mount") && m->nmounts < WASMBOX_MAX_MOUNTS) {
      m->mounts[m->nmounts].host_dir = get_hex(a);
      m->mounts[m->nmounts].guest_path = get_hex(b);
      ok = m->mounts[m->nmounts].host_dir && m->mounts[m->nmounts].guest_path;
      m->nmounts++;
    }
  }
  free(text);
  if (!ok || !m->language[0]) meta_clear(m);
  return ok && m->language[0];
}

/* ---- HEAD ------------------------------------------------------------------- */

static bool head_read(int dir, head_t *h, uint8_t **globals) {
  size_t len;
  char *buf = read_small(dir, "HEAD", &len);
  if (!buf) return false;
  bool ok = len >= sizeof *h;
  if (ok) memcpy(h, buf, sizeof *h);
  ok = ok && !memcmp(h->magic, HEAD_MAGIC, 8) && len == sizeof *h + h->globals_size;
  if (ok) {
    *globals = malloc(h->globals_size ? h->globals_size : 1);
    ok = *globals != NULL;
    if (ok) memcpy(*globals, buf + sizeof *h, h->globals_size);
  }
  free(buf);
  return ok;
}

static bool head_write(int dir, const head_t *h, const uint8_t *globals) {
  return write_atomic(dir, "HEAD", h, sizeof *h, globals, h->globals_size);
}

static void name_of(char *out, size_t n, const char *kind, uint64_t no) { snprintf(out, n, "%s-%llu", kind, (unsigned long long)no); }

/* ---- the store ------------------------------------------------------------------ */

static bool mkdirs(const char *path) {
  char p[4096];
  snprintf(p, sizeof p, "%s", path);
  for (char *s = p + 1; *s; s++) {
    if (*s != '/') continue;
    *s = 0;
    if (mkdir(p, 0700) != 0 && errno != EEXIST) return false;
    *s = '/';
  }
  return mkdir(p, 0700) == 0 || errno == EEXIST;
}

wb_store *wb_store_open(const char *home, char *err, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/sessions", home);
  if (!mkdirs(path)) {
    fail(err, n, 0, "cannot create the state directory %s: %s", path, strerror(errno));
    return NULL;
  }
  wb_store *st = calloc(1, sizeof *st);
  if (!st || !(st->home = strdup(home))) {
    free(st);
    fail(err, n, 0, "out of memory");
    return NULL;
  }
  st->sessions = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (st->sessions < 0) {
    fail(err, n, 0, "cannot open %s: %s", path, strerror(errno));
    free(st->home);
    free(st);
    return NULL;
  }
  pthread_mutex_init(&st->lock, NULL);
  return st;
}

static void live_drop(live_t *l) {
  wb_instance_free(l->instance);
  wb_snapshot_release(&l->image);
  free(l->logged);
  memset(l, 0, sizeof *l);
  l->image.memory.fd = -1;
}

void wb_store_free(wb_store *st) {
  if (!st) return;
  for (size_t i = 0; i < LIVE_MAX; i++)
    if (st->live[i].id[0]) live_drop(&st->live[i]);
  close(st->sessions);
  pthread_mutex_destroy(&st->lock);
  free(st->home);
  free(st);
}

/* Forget the live state of session `id` (its disk state changed under it). */
static void live_forget(wb_store *st, const char *id) {
  pthread_mutex_lock(&st->lock);
  for (size_t i = 0; i < LIVE_MAX; i++)
    if (!strcmp(st->live[i].id, id) && !st->live[i].busy) live_drop(&st->live[i]);
  pthread_mutex_unlock(&st->lock);
}

/* ---- locking and repair -------------------------------------------------------- */

/* Open session `id` and lock it. Returns the directory fd, or -1 (err set). */
static int open_locked(wb_store *st, const char *id, int *lockfd, bool wait, char *err, size_t n, int *code) {
  *code = WASMBOX_EINTERNAL;
  if (!valid_id(id)) {
    *code = fail(err, n, WASMBOX_EUSAGE, "'%s' is not a session id", id ? id : "");
    return -1;
  }
  int dir = openat(st->sessions, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) {
    *code = errno == ENOENT ? WASMBOX_EUSAGE : WASMBOX_EINTERNAL;
    fail(err, n, 0, errno == ENOENT ? "no session %s" : "cannot open session %s", id);
    return -1;
  }
  *lockfd = openat(dir, "lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (*lockfd < 0 || flock(*lockfd, wait ? LOCK_EX : LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) *code = WASMBOX_EUSAGE;
    fail(err, n, 0, errno == EWOULDBLOCK ? "session %s is busy" : "cannot lock session %s", id);
    if (*lockfd >= 0) close(*lockfd);
    close(dir);
    return -1;
  }
  /* destroyed while we waited for the lock */
  if (faccessat(dir, "HEAD", F_OK, AT_SYMLINK_NOFOLLOW) != 0) {
    *code = fail(err, n, WASMBOX_EUSAGE, "no session %s", id);
    close(*lockfd);
    close(dir);
    return -1;
  }
  return dir;
}

/* Put back what an interrupted process left (see session.h). Lock held. */
static bool repair(int dir, const head_t *h) {
  char pre[64], done[80], ws[64], log[64];
  name_of(pre, sizeof pre, "pre", h->gen);
  snprintf(done, sizeof done, "%s.done", pre);
  name_of(ws, sizeof ws, "ws", h->ws_no);
  name_of(log, sizeof log, "log", h->log_no);
  if (faccessat(dir, done, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
    /* a call from the committed state never finished: its copy of the
     * workspace is the truth */
    if (faccessat(dir, ws, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
      char trash[64];
      random_name(trash, sizeof trash, "trash-");
      if (renameat(dir, ws, dir, trash) != 0) return false;
    }
    if (renameat(dir, pre, dir, ws) != 0 || unlinkat(dir, done, 0) != 0) return false;
  }
  int it = dup(dir);
  DIR *d = it >= 0 ? fdopendir(it) : NULL;
  if (!d) {
    if (it >= 0) close(it);
    return false;
  }
  struct dirent *e;
  bool ok = true;
  while ((e = readdir(d))) {
    const char *nm = e->d_name;
    bool stale = !strncmp(nm, "trash-", 6) || !strncmp(nm, "pre-", 4) || strstr(nm, ".tmp") ||
                 (!strncmp(nm, "log-", 4) && strcmp(nm, log)) || (!strncmp(nm, "ws-", 3) && strcmp(nm, ws));
    if (stale) ok = wb_tree_remove(dir, nm) && ok;
  }
  closedir(d);
  int lf = openat(dir, log, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (lf < 0) return false;
  struct stat st;
  if (fstat(lf, &st) == 0 && (uint64_t)st.st_size != h->log_len) ok = ftruncate(lf, (off_t)h->log_len) == 0 && ok;
  close(lf);
  return ok;
}

/* ---- create ------------------------------------------------------------------------- */

int wb_session_create(wb_store *st, const wasmbox_session_options *o, char id[WASMBOX_ID_MAX], char *err,
                      size_t n) {
  const char *lang = o && o->language ? o->language : "python";
  const wb_runtime *rt = wb_runtime_find(lang);
  if (!rt) return fail(err, n, WASMBOX_EUSAGE, "unknown language '%s'", lang);
  double ttl = o && o->ttl_seconds ? o->ttl_seconds : WASMBOX_DEFAULT_SESSION_TTL_S;
  if (!(ttl > 0 && ttl <= 365.0 * 24 * 3600)) return fail(err, n, WASMBOX_EUSAGE, "ttl must be between 0 and a year");
  if (o && o->env_len > ENV_MAX) return fail(err, n, WASMBOX_EUSAGE, "at most %d environment entries", ENV_MAX);
  if (o && o->mounts_len > WASMBOX_MAX_MOUNTS) return fail(err, n, WASMBOX_EUSAGE, "at most %d mounts", WASMBOX_MAX_MOUNTS);
  if (!rt->prepare(err, n)) return WASMBOX_EINTERNAL;

  meta_t m;
  memset(&m, 0, sizeof m);
  snprintf(m.language, sizeof m.language, "%s", rt->language);
  m.created = now_s();
  m.ttl = ttl;
  for (size_t i = 0; o && i < o->env_len; i++) m.env[m.nenv++] = (char *)o->env[i];
  for (size_t i = 0; o && i < o->mounts_len; i++) m.mounts[m.nmounts++] = o->mounts[i];

  char tmp[WASMBOX_ID_MAX + 8];
  new_id('s', id);
  snprintf(tmp, sizeof tmp, ".new-%s", id);
  if (mkdirat(st->sessions, tmp, 0700) != 0) return fail(err, n, WASMBOX_EINTERNAL, "cannot create a session: %s", strerror(errno));
  int dir = openat(st->sessions, tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  head_t h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, HEAD_MAGIC, 8);
  h.last_used = m.created;
  snprintf(h.build_id, sizeof h.build_id, "%s", rt->build_id);
  int lf = dir >= 0 ? openat(dir, "log-0", O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;
  bool ok = dir >= 0 && lf >= 0 && mkdirat(dir, "ws-0", 0755) == 0 && meta_write(dir, &m) && head_write(dir, &h, NULL) &&
            renameat(st->sessions, tmp, st->sessions, id) == 0 && fsync(st->sessions) == 0;
  int e = errno;
  if (lf >= 0) close(lf);
  if (dir >= 0) close(dir);
  if (!ok) {
    wb_tree_remove(st->sessions, tmp);
    return fail(err, n, WASMBOX_EINTERNAL, "cannot create a session: %s", strerror(e));
  }
  return WASMBOX_OK;
}

/* ---- a call ---------------------------------------------------------------------------- */

static void session_free(wb_session *s) {
  if (!s) return;
  if (s->lockfd >= 0) close(s->lockfd); /* releases the flock */
  if (s->dir >= 0) close(s->dir);
  meta_clear(&s->meta);
  free(s->globals);
  free(s);
}

/* A live slot for this call: the session's own if it holds the current
 * state, else a free one, else the least recently used idle one. Store
 * lock held. */
static live_t *live_slot(wb_store *st, const char *id, uint64_t gen, bool *reuse) {
  live_t *free_slot = NULL, *lru = NULL;
  *reuse = false;
  for (size_t i = 0; i < LIVE_MAX; i++) {
    live_t *l = &st->live[i];
    if (l->busy) continue;
    if (!strcmp(l->id, id)) {
      if (l->gen == gen && l->instance) {
        *reuse = true;
        return l;
      }
      live_drop(l);
    }
    if (!l->id[0]) {
      if (!free_slot) free_slot = l;
    } else if (!lru || l->used < lru->used) {
      lru = l;
    }
  }
  live_t *pick = free_slot ? free_slot : lru;
  if (pick && pick->id[0]) live_drop(pick);
  return pick;
}

/* Rebuild the committed memory from disk into a new memfd: the base
 * snapshot's bytes, then the page log. */
static bool load_memory(wb_session *s, const wb_snapshot *base, wb_snapshot *out, char *err, size_t n) {
  uint64_t bytes = (uint64_t)s->head.pages * WB_WASM_PAGE;
  int fd = memfd_create("wasmbox-session", MFD_CLOEXEC);
  uint8_t *mem = MAP_FAILED;
  bool ok = fd >= 0 && ftruncate(fd, (off_t)bytes) == 0;
  if (ok) mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ok = ok && mem != MAP_FAILED;
  uint64_t from_base = (uint64_t)(base->memory.pages < s->head.pages ? base->memory.pages : s->head.pages) * WB_WASM_PAGE;
  for (uint64_t at = 0; ok && at < from_base;) {
    ssize_t r = pread(base->memory.fd, mem + at, from_base - at, (off_t)(base->memory.offset + at));
    if (r < 0 && errno == EINTR) continue;
    ok = r > 0;
    at += r > 0 ? (uint64_t)r : 0;
  }
  char log[64];
  name_of(log, sizeof log, "log", s->head.log_no);
  int lf = ok ? openat(s->dir, log, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
  uint64_t records = 0;
  ok = ok && lf >= 0 && wb_pagelog_apply(lf, s->head.log_len, mem, bytes, &records, err, n);
  if (lf >= 0) close(lf);
  if (mem != MAP_FAILED) munmap(mem, bytes);
  if (!ok) {
    if (!err[0]) snprintf(err, n, "cannot load session %s: %s", s->id, strerror(errno));
    if (fd >= 0) close(fd);
    return false;
  }
  *out = (wb_snapshot){.runtime = s->rt, .memory = {.fd = fd, .offset = 0, .pages = s->head.pages},
                       .globals = s->globals, .owns_fd = true};
  s->globals = NULL; /* now the snapshot's */
  return true;
}

/* End a call that changed nothing: unlock, give the live slot back. */
static void release(wb_session *s) {
  live_t *l = s->live;
  if (l) {
    pthread_mutex_lock(&s->st->lock);
    if (!l->instance) live_drop(l);
    l->busy = false;
    pthread_mutex_unlock(&s->st->lock);
  }
  session_free(s);
}

int wb_session_begin(wb_store *st, const char *id, wb_session **out, wb_session_call *call, char *err, size_t n) {
  *out = NULL;
  memset(call, 0, sizeof *call);
  err[0] = 0;
  wb_session *s = calloc(1, sizeof *s);
  if (!s) return fail(err, n, WASMBOX_EINTERNAL, "out of memory");
  s->st = st;
  s->lockfd = -1;
  int code;
  s->dir = open_locked(st, id, &s->lockfd, true, err, n, &code);
  if (s->dir < 0) {
    session_free(s);
    return code;
  }
  snprintf(s->id, sizeof s->id, "%s", id);
  if (!head_read(s->dir, &s->head, &s->globals) || !meta_read(s->dir, &s->meta)) {
    session_free(s);
    return fail(err, n, WASMBOX_EINTERNAL, "session %s is damaged (HEAD or meta unreadable)", id);
  }
  s->rt = wb_runtime_find(s->meta.language);
  if (!s->rt) {
    session_free(s);
    return fail(err, n, WASMBOX_EINTERNAL, "session %s is of unknown language", id);
  }
  if (!s->rt->prepare(err, n)) {
    session_free(s);
    return WASMBOX_EINTERNAL;
  }
  if (s->head.gen && strcmp(s->head.build_id, s->rt->build_id) != 0) {
    session_free(s);
    return fail(err, n, WASMBOX_EUSAGE,
                "session %s was saved by another build of the %s runtime; its memory cannot be used here", id,
                s->rt->language);
  }
  const wb_snapshot *base = s->rt->base_snapshot();
  if (!base) {
    session_free(s);
    return fail(err, n, WASMBOX_EINTERNAL, "this build has no %s snapshot to start sessions from", s->rt->language);
  }
  if (!repair(s->dir, &s->head)) {
    session_free(s);
    return fail(err, n, WASMBOX_EINTERNAL, "cannot repair session %s: %s", id, strerror(errno));
  }

  pthread_mutex_lock(&st->lock);
  bool reuse;
  live_t *l = live_slot(st, id, s->head.gen, &reuse);
  if (l) {
    l->busy = true;
    l->used = ++st->tick;
  }
  pthread_mutex_unlock(&st->lock);
  if (!l) {
    session_free(s);
    return fail(err, n, WASMBOX_EINTERNAL, "too many sessions are running in this process");
  }
  s->live = l;
  if (!reuse) {
    snprintf(l->id, sizeof l->id, "%s", id);
    l->gen = s->head.gen;
    l->image.memory.fd = -1;
    l->instance = wb_instance_new(s->rt, err, n);
    if (!l->instance || (s->head.gen && !load_memory(s, base, &l->image, err, n))) {
      wb_instance_free(l->instance);
      l->instance = NULL;
      release(s);
      return WASMBOX_EINTERNAL;
    }
    call->job_from = s->head.gen ? &l->image : base;
  }
  /* a session that never ran is a fresh copy of the base snapshot */
  call->job_fresh = s->head.gen == 0;

  /* the workspace as it is now, for a rollback */
  char ws[64], pre[64], done[80];
  name_of(ws, sizeof ws, "ws", s->head.ws_no);
  name_of(pre, sizeof pre, "pre", s->head.gen);
  snprintf(done, sizeof done, "%s.done", pre);
  int wsfd = openat(s->dir, ws, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  int dfd = -1;
  bool ok = wsfd >= 0 && wb_tree_link(wsfd, s->dir, pre) &&
            (dfd = openat(s->dir, done, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) >= 0;
  int e = errno;
  if (wsfd >= 0) close(wsfd);
  if (dfd >= 0) close(dfd);
  if (!ok) {
    wb_tree_remove(s->dir, pre);
    release(s);
    return fail(err, n, WASMBOX_EINTERNAL, "cannot save the workspace of session %s: %s", id, strerror(e));
  }
  s->saved_workspace = true;
  call->runtime = s->rt;
  snprintf(call->workspace, sizeof call->workspace, "%s/sessions/%s/%s", st->home, id, ws);
  call->env = (const char *const *)s->meta.env;
  call->env_len = s->meta.nenv;
  call->mounts = s->meta.mounts;
  call->mounts_len = s->meta.nmounts;
  call->fd_base = (uint32_t)(s->head.gen % 256) * 128;
  call->instance = l->instance;
  *out = s;
  return WASMBOX_OK;
}

/* Pages of `mem` written since it was mapped from `ref`: pagemap, or
 * (without /proc) a comparison with the image. */
static ssize_t dirty_pages(const uint8_t *mem, size_t bytes, const wb_memory_image *ref, uint32_t *out, size_t max) {
  ssize_t k = wb_dirty_pages(mem, bytes, out, max);
  if (k >= 0) return k;
  uint8_t page[WB_HOST_PAGE];
  size_t ref_bytes = (size_t)ref->pages * WB_WASM_PAGE, m = 0;
  for (size_t i = 0; i < bytes / WB_HOST_PAGE && m < max; i++) {
    size_t at = i * WB_HOST_PAGE;
    bool same = at < ref_bytes && pread(ref->fd, page, WB_HOST_PAGE, (off_t)(ref->offset + at)) == WB_HOST_PAGE &&
                !memcmp(page, mem + at, WB_HOST_PAGE);
    if (!same) out[m++] = (uint32_t)i;
  }
  return (ssize_t)m;
}

/* Save the call's memory: pages written since the committed image go into
 * the image (in memory) and the log (on disk); then HEAD names the new
 * state. Until that rename nothing committed has changed. */
static bool commit(wb_session *s, char *err, size_t n) {
  live_t *l = s->live;
  const wb_runtime *rt = s->rt;
  wasm_rt_memory_t *mem = wb_instance_memory(l->instance);
  size_t bytes = (size_t)mem->pages * WB_WASM_PAGE, npages = bytes / WB_HOST_PAGE;
  bool have_image = l->image.memory.fd >= 0;
  const wb_memory_image *ref = have_image ? &l->image.memory : &rt->base_snapshot()->memory;
  uint8_t *globals = malloc(rt->globals_size() ? rt->globals_size() : 1);
  /* what the kernel saw written since the last save; else what pagemap or
   * a comparison with the image says */
  uint32_t *dirty = NULL;
  ssize_t nd = wb_instance_written(l->instance, &dirty);
  if (nd < 0) {
    dirty = malloc((npages ? npages : 1) * sizeof *dirty);
    nd = dirty && globals ? dirty_pages(mem->data, bytes, ref, dirty, npages) : -1;
  }
  if (!globals) nd = -1;
  int img = have_image ? l->image.memory.fd : memfd_create("wasmbox-session", MFD_CLOEXEC);
  bool ok = nd >= 0 && img >= 0 && ftruncate(img, (off_t)bytes) == 0;
  if (ok && !have_image) {
    ok = wb_pwrite_all(img, mem->data, bytes, 0); /* the first image here: all of it */
  } else {
    for (ssize_t i = 0; ok && i < nd; i++) {
      size_t at = (size_t)dirty[i] * WB_HOST_PAGE;
      ok = wb_pwrite_all(img, mem->data + at, WB_HOST_PAGE, at);
    }
  }
  char log[64];
  name_of(log, sizeof log, "log", s->head.log_no);
  int lf = ok ? openat(s->dir, log, O_WRONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
  uint64_t end = s->head.log_len;
  ok = ok && lf >= 0 && wb_pagelog_append(lf, s->head.log_len, mem->data, dirty, (size_t)nd, &end, err, n) &&
       fdatasync(lf) == 0;
  if (lf >= 0) close(lf);
  head_t h = s->head;
  if (ok) {
    wb_instance_save_globals(l->instance, globals);
    h.gen++;
    h.log_len = end;
    h.records += (uint64_t)nd;
    h.pages = mem->pages;
    h.globals_size = rt->globals_size();
    h.last_used = now_s();
    snprintf(h.build_id, sizeof h.build_id, "%s", rt->build_id);
    ok = head_write(s->dir, &h, globals);
  }
  free(dirty);
  if (!ok) {
    if (!err[0]) snprintf(err, n, "cannot save session %s: %s", s->id, strerror(errno));
    if (img >= 0 && !have_image) close(img);
    free(globals);
    /* the image may hold this call's pages: it no longer matches HEAD */
    wb_snapshot_release(&l->image);
    return false;
  }
  char pre[64], done[80];
  name_of(pre, sizeof pre, "pre", s->head.gen);
  snprintf(done, sizeof done, "%s.done", pre);
  unlinkat(s->dir, done, 0);
  wb_tree_remove(s->dir, pre);
  s->saved_workspace = false;
  free(l->image.globals);
  l->image = (wb_snapshot){.runtime = rt, .memory = {.fd = img, .offset = 0, .pages = mem->pages},
                           .globals = globals, .owns_fd = true};
  l->gen = h.gen;
  s->head = h;
  /* the memory is the new image: count the next call's writes from here */
  char e2[256];
  if (!wb_instance_rebase(l->instance, &l->image, e2, sizeof e2)) {
    wb_instance_free(l->instance);
    l->instance = NULL;
  }
  return true;
}

static bool rollback(wb_session *s, char *err, size_t n) {
  bool ok = true;
  if (s->saved_workspace) {
    char ws[64], pre[64], done[80], trash[64];
    name_of(ws, sizeof ws, "ws", s->head.ws_no);
    name_of(pre, sizeof pre, "pre", s->head.gen);
    snprintf(done, sizeof done, "%s.done", pre);
    random_name(trash, sizeof trash, "trash-");
    ok = renameat(s->dir, ws, s->dir, trash) == 0 && renameat(s->dir, pre, s->dir, ws) == 0 &&
         unlinkat(s->dir, done, 0) == 0;
    if (!ok) snprintf(err, n, "cannot roll back the workspace of session %s: %s", s->id, strerror(errno));
    wb_tree_remove(s->dir, trash);
  }
  live_t *l = s->live;
  if (l && l->instance && wb_instance_started(l->instance)) {
    /* back to the committed image; none (a failed save dropped it) means
     * the instance must go, and the next call loads the state from disk */
    const wb_snapshot *to = l->image.memory.fd >= 0 ? &l->image : s->head.gen == 0 ? s->rt->base_snapshot() : NULL;
    char e2[256];
    if (!to || !wb_instance_reset(l->instance, to, e2, sizeof e2)) {
      wb_instance_free(l->instance); /* cannot be trusted; the disk state is intact */
      l->instance = NULL;
    }
  }
  return ok;
}

int wb_session_end(wb_session *s, bool keep, bool *rolled_back, char *err, size_t n) {
  int code = WASMBOX_OK;
  live_t *l = s->live;
  bool started = l && l->instance && wb_instance_started(l->instance);
  bool kept = keep && started && commit(s, err, n);
  if (keep && started && !kept) code = WASMBOX_EINTERNAL; /* say why, but leave no half state */
  if (!kept) {
    char e2[256] = "";
    if (!rollback(s, e2, sizeof e2) && code == WASMBOX_OK) code = fail(err, n, WASMBOX_EINTERNAL, "%s", e2);
  }
  if (rolled_back) *rolled_back = !kept;
  release(s);
  return code;
}

/* ---- fork, checkpoint, restore ---------------------------------------------------- */

/* Copy the committed state (HEAD, its log, a link copy of its workspace)
 * of the locked session in `dir` into directory `to` as log-0 and ws-0. */
static bool copy_state(int dir, const head_t *h, const uint8_t *globals, int to) {
  char log[64], ws[64];
  name_of(log, sizeof log, "log", h->log_no);
  name_of(ws, sizeof ws, "ws", h->ws_no);
  int src = openat(dir, log, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  int dst = openat(to, "log-0", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  int wsfd = openat(dir, ws, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  head_t c = *h;
  c.log_no = 0;
  c.ws_no = 0;
  bool ok = src >= 0 && dst >= 0 && wsfd >= 0 && copy_range(src, dst, h->log_len) && fdatasync(dst) == 0 &&
            wb_tree_link(wsfd, to, "ws-0") && head_write(to, &c, globals);
  if (src >= 0) close(src);
  if (dst >= 0) close(dst);
  if (wsfd >= 0) close(wsfd);
  return ok;
}

typedef struct {
  int dir, lockfd;
  head_t head;
  uint8_t *globals;
} locked_t;

static int lock_session(wb_store *st, const char *id, locked_t *k, char *err, size_t n) {
  memset(k, 0, sizeof *k);
  int code;
  k->dir = open_locked(st, id, &k->lockfd, true, err, n, &code);
  if (k->dir < 0) return code;
  if (!head_read(k->dir, &k->head, &k->globals) || !repair(k->dir, &k->head)) {
    close(k->lockfd);
    close(k->dir);
    free(k->globals);
    return fail(err, n, WASMBOX_EINTERNAL, "session %s is damaged or cannot be repaired", id);
  }
  return WASMBOX_OK;
}

static void unlock_session(locked_t *k) {
  close(k->lockfd);
  close(k->dir);
  free(k->globals);
}

int wb_session_fork(wb_store *st, const char *id, char new_id_out[WASMBOX_ID_MAX], char *err, size_t n) {
  locked_t k;
  int code = lock_session(st, id, &k, err, n);
  if (code) return code;
  meta_t m;
  char tmp[WASMBOX_ID_MAX + 8];
  new_id('s', new_id_out);
  snprintf(tmp, sizeof tmp, ".new-%s", new_id_out);
  bool ok = meta_read(k.dir, &m);
  if (ok) m.created = now_s();
  int to = -1;
  ok = ok && mkdirat(st->sessions, tmp, 0700) == 0 &&
       (to = openat(st->sessions, tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)) >= 0 &&
       meta_write(to, &m) && copy_state(k.dir, &k.head, k.globals, to) &&
       renameat(st->sessions, tmp, st->sessions, new_id_out) == 0 && fsync(st->sessions) == 0;
  int e = errno;
  if (to >= 0) close(to);
  meta_clear(&m);
  if (!ok) wb_tree_remove(st->sessions, tmp);
  unlock_session(&k);
  return ok ? WASMBOX_OK : fail(err, n, WASMBOX_EINTERNAL, "cannot fork session %s: %s", id, strerror(e));
}

int wb_session_checkpoint(wb_store *st, const char *id, char cid[WASMBOX_ID_MAX], char *err, size_t n) {
  locked_t k;
  int code = lock_session(st, id, &k, err, n);
  if (code) return code;
  char tmp[WASMBOX_ID_MAX + 8];
  new_id('c', cid);
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
  unlock_session(&k);
  return ok ? WASMBOX_OK : fail(err, n, WASMBOX_EINTERNAL, "cannot checkpoint session %s: %s", id, strerror(e));
}

int wb_session_restore(wb_store *st, const char *id, const char *cid, char *err, size_t n) {
  if (!valid_id(cid)) return fail(err, n, WASMBOX_EUSAGE, "'%s' is not a checkpoint id", cid ? cid : "");
  locked_t k;
  int code = lock_session(st, id, &k, err, n);
  if (code) return code;
  char path[WASMBOX_ID_MAX + 16];
  snprintf(path, sizeof path, "checkpoints/%s", cid);
  int cp = openat(k.dir, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  head_t ch;
  uint8_t *cglobals = NULL;
  if (cp < 0 || !head_read(cp, &ch, &cglobals)) {
    if (cp >= 0) close(cp);
    unlock_session(&k);
    return fail(err, n, WASMBOX_EUSAGE, "session %s has no checkpoint %s", id, cid);
  }
  /* new log and workspace beside the current ones; HEAD switches to them */
  head_t h = ch;
  h.gen = k.head.gen + 1; /* a new state: live copies of the old one are stale */
  h.log_no = k.head.log_no + 1;
  h.ws_no = k.head.ws_no + 1;
  h.last_used = now_s();
  char log[64], ws[64];
  name_of(log, sizeof log, "log", h.log_no);
  name_of(ws, sizeof ws, "ws", h.ws_no);
  int src = openat(cp, "log-0", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  int dst = openat(k.dir, log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  int cws = openat(cp, "ws-0", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  bool ok = src >= 0 && dst >= 0 && cws >= 0 && copy_range(src, dst, ch.log_len) && fdatasync(dst) == 0 &&
            wb_tree_link(cws, k.dir, ws) && head_write(k.dir, &h, cglobals);
  int e = errno;
  if (src >= 0) close(src);
  if (dst >= 0) close(dst);
  if (cws >= 0) close(cws);
  close(cp);
  free(cglobals);
  if (ok) repair(k.dir, &h); /* drops the old log and workspace */
  else {
    unlinkat(k.dir, log, 0);
    wb_tree_remove(k.dir, ws);
  }
  unlock_session(&k);
  live_forget(st, id);
  return ok ? WASMBOX_OK : fail(err, n, WASMBOX_EINTERNAL, "cannot restore session %s: %s", id, strerror(e));
}

/* ---- for the jail ------------------------------------------------------------------ */

int wb_session_describe(wb_store *st, const char *id, wb_session_place *out, char *err, size_t n) {
  memset(out, 0, sizeof *out);
  if (!valid_id(id)) return fail(err, n, WASMBOX_EUSAGE, "'%s' is not a session id", id ? id : "");
  int dir = openat(st->sessions, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return fail(err, n, errno == ENOENT ? WASMBOX_EUSAGE : WASMBOX_EINTERNAL, "no session %s", id);
  meta_t m;
  head_t h;
  uint8_t *globals = NULL;
  bool ok = meta_read(dir, &m);
  if (ok && head_read(dir, &h, &globals)) out->gen = h.gen;
  free(globals);
  close(dir);
  if (!ok) return fail(err, n, WASMBOX_EINTERNAL, "session %s is damaged (meta unreadable)", id);
  snprintf(out->dir, sizeof out->dir, "%s/sessions/%s", st->home, id);
  for (size_t i = 0; i < m.nmounts; i++) {
    out->mounts[i] = m.mounts[i].host_dir ? strdup(m.mounts[i].host_dir) : NULL;
    if (out->mounts[i]) out->nmounts = i + 1;
  }
  bool all = out->nmounts == m.nmounts;
  meta_clear(&m);
  if (!all) {
    wb_session_place_clear(out);
    return fail(err, n, WASMBOX_EINTERNAL, "out of memory");
  }
  return WASMBOX_OK;
}

void wb_session_place_clear(wb_session_place *p) {
  for (size_t i = 0; i < p->nmounts; i++) free(p->mounts[i]);
  p->nmounts = 0;
}

bool wb_session_exists(wb_store *st, const char *id) {
  return valid_id(id) && faccessat(st->sessions, id, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

bool wb_session_generation(wb_store *st, const char *id, uint64_t *gen) {
  if (!valid_id(id)) return false;
  int dir = openat(st->sessions, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  head_t h;
  uint8_t *globals = NULL;
  bool ok = dir >= 0 && head_read(dir, &h, &globals);
  if (ok) *gen = h.gen;
  free(globals);
  if (dir >= 0) close(dir);
  return ok;
}

/* ---- destroy, list, prune ------------------------------------------------------------ */

static int destroy_locked(wb_store *st, const char *id, locked_t *k, char *err, size_t n) {
  char trash[WASMBOX_ID_MAX + 40], prefix[WASMBOX_ID_MAX + 16];
  snprintf(prefix, sizeof prefix, ".trash-%s-", id);
  random_name(trash, sizeof trash, prefix);
  bool ok = renameat(st->sessions, id, st->sessions, trash) == 0;
  int e = errno;
  unlock_session(k);
  if (ok) wb_tree_remove(st->sessions, trash);
  live_forget(st, id);
  return ok ? WASMBOX_OK : fail(err, n, WASMBOX_EINTERNAL, "cannot remove session %s: %s", id, strerror(e));
}

int wb_session_destroy(wb_store *st, const char *id, char *err, size_t n) {
  locked_t k;
  int code = lock_session(st, id, &k, err, n);
  return code ? code : destroy_locked(st, id, &k, err, n);
}

static bool info_of(wb_store *st, const char *id, wasmbox_session_info *out) {
  memset(out, 0, sizeof *out);
  int dir = openat(st->sessions, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return false;
  head_t h;
  uint8_t *g = NULL;
  meta_t m;
  bool ok = head_read(dir, &h, &g) && meta_read(dir, &m);
  if (ok) {
    snprintf(out->id, sizeof out->id, "%s", id);
    snprintf(out->language, sizeof out->language, "%s", m.language);
    out->created = m.created;
    out->last_used = h.last_used > m.created ? h.last_used : m.created;
    out->ttl_seconds = m.ttl;
    out->disk_bytes = wb_tree_bytes(st->sessions, id);
    int cps = openat(dir, "checkpoints", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    DIR *d = cps >= 0 ? fdopendir(cps) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d)))
      if (e->d_name[0] != '.' && !strstr(e->d_name, ".tmp")) out->checkpoints++;
    if (d) closedir(d);
    else if (cps >= 0) close(cps);
    meta_clear(&m);
  }
  free(g);
  close(dir);
  return ok;
}

int wb_session_info(wb_store *st, const char *id, wasmbox_session_info *out, char *err, size_t n) {
  if (!valid_id(id)) return fail(err, n, WASMBOX_EUSAGE, "'%s' is not a session id", id ? id : "");
  return info_of(st, id, out) ? WASMBOX_OK : fail(err, n, WASMBOX_EUSAGE, "no session %s", id);
}

int wb_session_list(wb_store *st, wasmbox_session_info **out, size_t *count, char *err, size_t n) {
  *out = NULL;
  *count = 0;
  int it = dup(st->sessions);
  DIR *d = it >= 0 ? fdopendir(it) : NULL;
  if (!d) {
    if (it >= 0) close(it);
    return fail(err, n, WASMBOX_EINTERNAL, "cannot list sessions: %s", strerror(errno));
  }
  rewinddir(d);
  size_t cap = 0;
  struct dirent *e;
  int code = WASMBOX_OK;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' || !valid_id(e->d_name)) continue;
    if (*count == cap) {
      cap = cap ? cap * 2 : 16;
      wasmbox_session_info *g = realloc(*out, cap * sizeof **out);
      if (!g) {
        code = fail(err, n, WASMBOX_EINTERNAL, "out of memory");
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
  double now = now_s();
  for (size_t i = 0; i < count; i++) {
    if (now - all[i].last_used <= all[i].ttl_seconds) continue;
    locked_t k;
    char e2[256];
    /* busy sessions are in use, so not idle: leave them */
    memset(&k, 0, sizeof k);
    int c;
    k.dir = open_locked(st, all[i].id, &k.lockfd, false, e2, sizeof e2, &c);
    if (k.dir < 0) continue;
    k.globals = NULL;
    if (destroy_locked(st, all[i].id, &k, e2, sizeof e2) == WASMBOX_OK) (*removed)++;
  }
  free(all);
  /* and what an interrupted create, fork or destroy left (a .new- entry
   * is someone's create in progress unless it is old) */
  int it = dup(st->sessions);
  DIR *d = it >= 0 ? fdopendir(it) : NULL;
  struct dirent *e;
  while (d && (e = readdir(d))) {
    struct stat sb;
    bool old = fstatat(st->sessions, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && now - (double)sb.st_mtime > 3600;
    if (!strncmp(e->d_name, ".trash-", 7) || (!strncmp(e->d_name, ".new-", 5) && old))
      wb_tree_remove(st->sessions, e->d_name);
  }
  if (d) closedir(d);
  else if (it >= 0) close(it);
  return WASMBOX_OK;
}

/* ---- the workspace, for file tools ---------------------------------------------------- */

struct wb_ws_lock {
  locked_t k;
  int ws;
};

int wb_session_lock_workspace(wb_store *st, const char *id, int *ws, wb_ws_lock **out, char *err, size_t n) {
  wb_ws_lock *lk = calloc(1, sizeof *lk);
  if (!lk) return fail(err, n, WASMBOX_EINTERNAL, "out of memory");
  int code = lock_session(st, id, &lk->k, err, n);
  if (code) {
    free(lk);
    return code;
  }
  char ws_name[64];
  name_of(ws_name, sizeof ws_name, "ws", lk->k.head.ws_no);
  lk->ws = openat(lk->k.dir, ws_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (lk->ws < 0) {
    unlock_session(&lk->k);
    free(lk);
    return fail(err, n, WASMBOX_EINTERNAL, "session %s has no workspace", id);
  }
  *ws = lk->ws;
  *out = lk;
  return WASMBOX_OK;
}

void wb_session_unlock_workspace(wb_ws_lock *lk) {
  if (!lk) return;
  close(lk->ws);
  unlock_session(&lk->k);
  free(lk);
}
