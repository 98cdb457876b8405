/* Server state shared by the transports (see server.h): the library
 * instance, HTTP sessions, calls in flight, logging. */
#include "mcp/server.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "mcp/external.h"
#include "mcp/jsonrpc.h"
#include "util/os.h"

typedef struct inflight {
  char *conn, *id;
  wasmbox_cancel *cancel;
  struct inflight *next;
} inflight;

struct mcp_state {
  pthread_mutex_t lock;
  mcp_conn **conns;
  size_t n_conns;
  inflight *calls;
  size_t n_calls;
};

static const char *const level_names[] = {"debug", "info",     "notice", "warning",
                                          "error", "critical", "alert",  "emergency"};

int mcp_log_level_parse(const char *name) {
  for (int i = 0; i < 8; i++)
    if (name && !strcmp(name, level_names[i])) return i <= MCP_LOG_ERROR ? i : MCP_LOG_ERROR;
  return MCP_LOG_NONE - 1; /* not a level */
}

void mcp_log(mcp_server *s, int level, const char *fmt, ...) {
  if (level < s->log_level) return;
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  /* one write per line so lines of parallel calls never interleave */
  fprintf(stderr, "wasmbox mcp: %s: %s\n", level_names[level], line);
}

void mcp_note(mcp_msg *m, int level, const char *fmt, ...) {
  if (m->log_level == MCP_LOG_NONE || level < m->log_level) return;
  char text[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  cJSON *p = cJSON_CreateObject();
  if (!p) return;
  cJSON_AddStringToObject(p, "level", level_names[level]);
  cJSON_AddStringToObject(p, "logger", MCP_SERVER_NAME);
  cJSON_AddStringToObject(p, "data", text);
  if (!m->notes) m->notes = cJSON_CreateArray();
  cJSON *n = rpc_notification("notifications/message", p);
  if (m->notes && n) cJSON_AddItemToArray(m->notes, n);
  else cJSON_Delete(n);
}

void mcp_msg_done(mcp_msg *m) {
  cJSON_Delete(m->notes);
  m->notes = NULL;
}

/* Each stateless workspace is served by a worker process jailed for it; a
 * first call in one would wait for its worker to start. Start the workers
 * of the first few workspaces before any client asks. */
#define WARM_WORKSPACES 2

static void *warm_workers(void *arg) {
  mcp_server *s = arg;
  char *ws[WARM_WORKSPACES] = {NULL};
  for (size_t i = 0; i < WARM_WORKSPACES; i++) {
    if (!(ws[i] = mcp_workspace_take(s))) break;
    wasmbox_request req = {.code = "pass",
                           .workspace = ws[i],
                           .mounts = s->mounts,
                           .mounts_len = s->n_mounts,
                           .packages = (const char *const *)s->cfg->packages,
                           .packages_len = s->cfg->n_packages};
    wasmbox_result *r = NULL;
    char err[256];
    if (wasmbox_run(s->wb, &req, &r, err, sizeof err) != WASMBOX_OK) mcp_log(s, MCP_LOG_WARNING, "warm-up: %s", err);
    wasmbox_result_free(r);
  }
  for (size_t i = 0; i < WARM_WORKSPACES; i++) mcp_workspace_give(s, ws[i]);
  return NULL;
}

/* A server's scratch directory holds .lock, locked for the server's life;
 * a server killed without its cleanup (SIGKILL, a crash) leaves the
 * directory behind unlocked, and the next server to start removes it. A lock
 * rather than a pid: servers in other pid namespaces may share this /tmp.
 * The lock is removed last, so that a server killed while removing its
 * directory leaves it locked-and-free, never unlocked. */
static bool lock_scratch(mcp_server *s, char *err, size_t errlen) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/.lock", s->scratch);
  s->scratch_lock = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (s->scratch_lock < 0 || flock(s->scratch_lock, LOCK_EX | LOCK_NB) != 0) {
    snprintf(err, errlen, "cannot lock the scratch directory %s: %s", s->scratch, strerror(errno));
    return false;
  }
  return true;
}

/* Scratch directory `name` in `parent` (open as `dir`, closed here): all it
 * holds, then .lock, then itself. */
static void remove_scratch(int parent, const char *name, int dir) {
  DIR *d = fdopendir(dir);
  if (!d) {
    close(dir);
    return;
  }
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, ".lock"))
      wb_tree_remove(dirfd(d), e->d_name);
  unlinkat(dirfd(d), ".lock", 0);
  closedir(d);
  unlinkat(parent, name, AT_REMOVEDIR);
}

/* A scratch directory without .lock is a server's between its mkdtemp and
 * its lock, an instant; one older than this was left by a server that
 * removed its lock first (builds before remove_scratch) and was killed. */
#define SCRATCH_UNLOCKED_S 600

static void sweep_dead_scratch(const char *tmp) {
  DIR *d = opendir(tmp);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, "wasmbox-mcp-", 12) != 0) continue;
    int dir = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0) continue;
    struct stat st;
    if (fstat(dir, &st) != 0 || st.st_uid != geteuid()) {
      close(dir);
      continue;
    }
    int lock = openat(dir, ".lock", O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    bool dead = lock >= 0 ? flock(lock, LOCK_EX | LOCK_NB) == 0
                          : errno == ENOENT && st.st_mtime < time(NULL) - SCRATCH_UNLOCKED_S;
    if (dead) remove_scratch(dirfd(d), e->d_name, dir);
    else close(dir);
    if (lock >= 0) close(lock);
  }
  closedir(d);
}

mcp_server *mcp_server_new(mcp_config *cfg, char *err, size_t errlen) {
  mcp_server *s = calloc(1, sizeof *s);
  struct mcp_state *st = calloc(1, sizeof *st);
  if (!s || !st) {
    free(s);
    free(st);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  s->cfg = cfg;
  s->state = st;
  s->scratch_lock = -1;
  pthread_mutex_init(&s->ws_lock, NULL);
  pthread_mutex_init(&st->lock, NULL);
  mcp_metrics_init(&s->metrics);
  s->log_level = mcp_log_level_parse(cfg->log_level);
  if (s->log_level < MCP_LOG_DEBUG) s->log_level = MCP_LOG_WARNING;
  s->started = wb_monotonic_s();
  /* /external: a copy at a stable place in the state directory, so that a
     session made with it mounts it again after a restart */
  if (cfg->n_external) {
    char *state = wasmbox_state_dir(cfg->home[0] ? cfg->home : NULL);
    bool made = state && wb_mkdirs(state) && asprintf(&s->external_dir, "%s/external", state) >= 0;
    free(state);
    if (!made) {
      s->external_dir = NULL;
      snprintf(err, errlen, "--external-files: cannot make the state directory: %s", strerror(errno));
      goto fail;
    }
    if (mcp_external_prepare(cfg->external, cfg->n_external, cfg->external_max_bytes, s->external_dir, err, errlen))
      goto fail;
    s->mounts[0] = (wasmbox_mount){.host_dir = s->external_dir, .guest_path = "/external"};
    s->n_mounts = 1;
  }
  /* what sessions in a shared store may mount, by name: every server
     resolves the names from its own configuration */
  wasmbox_named_mount named[WASMBOX_MAX_MOUNTS];
  char names[WASMBOX_MAX_MOUNTS][16];
  size_t nnamed = 0;
  if (s->external_dir) named[nnamed++] = (wasmbox_named_mount){.name = "external", .host_dir = s->external_dir};
  for (size_t i = 0; i < cfg->n_packages && nnamed < WASMBOX_MAX_MOUNTS; i++, nnamed++) {
    snprintf(names[nnamed], sizeof names[nnamed], "package-%zu", i + 1);
    named[nnamed] = (wasmbox_named_mount){.name = names[nnamed], .host_dir = cfg->packages[i]};
  }
  wasmbox_options o = {.home = cfg->home[0] ? cfg->home : NULL,
                       .store = cfg->store[0] ? cfg->store : NULL,
                       .named_mounts = named,
                       .named_mounts_len = nnamed,
                       .store_timeout_s = cfg->store_timeout,
                       .store_connections = (unsigned)cfg->store_connections,
                       .session_idle_release_s = cfg->session_idle_release};
  s->wb = wasmbox_open(&o, err, errlen);
  if (!s->wb) goto fail;
  if (cfg->session_key[0] && !(s->ids = mcp_ids_load(cfg->session_key, err, errlen))) goto fail;
  if (cfg->upstream[0]) {
    mcp_upstreams_config uc = {.file = cfg->upstream,
                               .allow = (const char *const *)cfg->allow_tools,
                               .nallow = cfg->n_allow_tools,
                               .approve_destructive = cfg->approve_destructive,
                               .audit = cfg->tool_audit[0] ? cfg->tool_audit : NULL,
                               .audit_max_bytes = cfg->tool_audit_max_bytes};
    if (!(s->upstreams = mcp_upstreams_open(&uc, err, errlen))) goto fail;
  } else if (cfg->n_allow_tools || cfg->tool_audit[0] || cfg->approve_destructive) {
    snprintf(err, errlen,
             "allow-tools, approve-destructive and tool-audit are for code mode: give --upstream FILE too");
    goto fail;
  }
  const char *tmp = getenv("TMPDIR");
  tmp = tmp && *tmp ? tmp : "/tmp";
  sweep_dead_scratch(tmp);
  if (asprintf(&s->scratch, "%s/wasmbox-mcp-XXXXXX", tmp) < 0) {
    s->scratch = NULL;
    snprintf(err, errlen, "out of memory");
    goto fail;
  }
  if (!mkdtemp(s->scratch)) {
    snprintf(err, errlen, "cannot make a scratch directory: %s", strerror(errno));
    free(s->scratch);
    s->scratch = NULL;
    goto fail;
  }
  if (!lock_scratch(s, err, errlen)) goto fail;
  /* The warmer (and the runner threads it starts) must not take SIGINT or
   * SIGTERM: `serve` blocks them in its own thread and waits for them
   * (http.c), so the kernel would hand one to the warmer, whose default
   * action kills the server mid-start. */
  sigset_t stop, old;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, &old);
  s->warming = pthread_create(&s->warmer, NULL, warm_workers, s) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return s;
fail:
  mcp_server_free(s);
  return NULL;
}

void mcp_server_free(mcp_server *s) {
  if (!s) return;
  if (s->warming) pthread_join(s->warmer, NULL);
  struct mcp_state *st = s->state;
  for (size_t i = 0; i < st->n_conns; i++) free(st->conns[i]);
  free(st->conns);
  pthread_mutex_destroy(&st->lock);
  free(st);
  if (s->wb) wasmbox_free(s->wb);
  mcp_upstreams_free(s->upstreams);
  mcp_ids_free(s->ids);
  if (s->external_dir) wb_remove_tree(s->external_dir);
  free(s->external_dir);
  for (size_t i = 0; i < s->ws_n; i++) free(s->ws_free[i]);
  pthread_mutex_destroy(&s->ws_lock);
  int scratch = s->scratch ? open(s->scratch, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
  if (scratch >= 0) remove_scratch(AT_FDCWD, s->scratch, scratch);
  free(s->scratch);
  if (s->scratch_lock >= 0) close(s->scratch_lock);
  mcp_metrics_destroy(&s->metrics);
  free(s);
}

/* ---- HTTP sessions -------------------------------------------------------- */

/* Add `c` (its id set) with one reference, making room by forgetting the
 * least recently used session nobody is using; false when all are in use. */
static bool conn_add(mcp_server *s, mcp_conn *c) {
  struct mcp_state *st = s->state;
  atomic_init(&c->log_level, MCP_LOG_NONE);
  c->last_used = wb_monotonic_s();
  c->refs = 1;
  if (st->n_conns >= s->cfg->max_sessions) {
    size_t victim = st->n_conns;
    for (size_t i = 0; i < st->n_conns; i++)
      if (st->conns[i]->refs == 0 && (victim == st->n_conns || st->conns[i]->last_used < st->conns[victim]->last_used))
        victim = i;
    if (victim == st->n_conns) return false;
    free(st->conns[victim]);
    st->conns[victim] = st->conns[--st->n_conns];
  }
  mcp_conn **grown = realloc(st->conns, (st->n_conns + 1) * sizeof *grown);
  if (!grown) return false;
  st->conns = grown;
  st->conns[st->n_conns++] = c;
  return true;
}

mcp_conn *mcp_conn_create(mcp_server *s, const char *version) {
  mcp_conn *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  mcp_ids_make(s->ids, version, c->id);
  snprintf(c->version, sizeof c->version, "%s", version);
  pthread_mutex_lock(&s->state->lock);
  bool ok = conn_add(s, c);
  pthread_mutex_unlock(&s->state->lock);
  if (!ok) free(c);
  return ok ? c : NULL;
}

/* a signed id DELETE ended, on any server sharing the sessions (wasmbox_ended_has);
 * when that cannot be told, not ended: the id still had to check out */
static bool ended(mcp_server *s, const char *id) {
  char err[256];
  int has = wasmbox_ended_has(s->wb, id, err, sizeof err);
  if (has < 0) mcp_log(s, MCP_LOG_WARNING, "cannot tell whether session %s ended: %s", id, err);
  return has > 0;
}

static void mark_ended(mcp_server *s, const char *id) {
  char err[256];
  if (wasmbox_ended_add(s->wb, id, err, sizeof err) != WASMBOX_OK)
    mcp_log(s, MCP_LOG_WARNING, "cannot record the end of session %s: %s", id, err);
}

/* Take session i out of the table; freed now, or by its last user. */
static void forget(struct mcp_state *st, size_t i) {
  mcp_conn *c = st->conns[i];
  st->conns[i] = st->conns[--st->n_conns];
  if (c->refs == 0) free(c);
  else c->removed = true;
}

/* The session's index in the table, or n_conns (lock held). */
static size_t find(struct mcp_state *st, const char *id) {
  size_t i = 0;
  while (i < st->n_conns && strcmp(st->conns[i]->id, id)) i++;
  return i;
}

/* Drop a reference (lock held); true: the caller frees c. */
static bool unref(mcp_conn *c) { return --c->refs == 0 && c->removed; }

/* A session made by another server behind the same balancer, which
 * initialized it: added unless a request for it added it meanwhile. */
static mcp_conn *adopt(mcp_server *s, const char *id, const char *version) {
  struct mcp_state *st = s->state;
  mcp_conn *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  snprintf(c->id, sizeof c->id, "%s", id);
  snprintf(c->version, sizeof c->version, "%s", version);
  atomic_init(&c->initialized, true);
  pthread_mutex_lock(&st->lock);
  size_t i = find(st, id);
  mcp_conn *found = i < st->n_conns ? st->conns[i] : conn_add(s, c) ? c : NULL;
  if (found && found != c) found->refs++;
  pthread_mutex_unlock(&st->lock);
  if (found != c) free(c);
  return found;
}

/* The store is asked (ended()) with the table's lock released: a slow or
 * hung store must not hold up requests of other sessions, or stateless
 * ones. A reference keeps the entry alive meanwhile; whether it is still in
 * the table is seen again under the lock. */
mcp_conn *mcp_conn_get(mcp_server *s, const char *id) {
  struct mcp_state *st = s->state;
  pthread_mutex_lock(&st->lock);
  size_t i = find(st, id);
  mcp_conn *found = i < st->n_conns ? st->conns[i] : NULL;
  if (found) found->refs++, found->last_used = wb_monotonic_s();
  pthread_mutex_unlock(&st->lock);
  char version[16];
  if (!found && s->ids && mcp_ids_check(s->ids, id, mcp_legacy_versions, version) && !ended(s, id))
    return adopt(s, id, version);
  if (!found || !s->ids || !ended(s, id)) return found;
  /* ended through another server: forget it here too */
  pthread_mutex_lock(&st->lock);
  i = find(st, id);
  if (i < st->n_conns && st->conns[i] == found) forget(st, i);
  bool gone = unref(found);
  pthread_mutex_unlock(&st->lock);
  if (gone) free(found);
  return NULL;
}

void mcp_conn_put(mcp_server *s, mcp_conn *c) {
  if (!c) return;
  struct mcp_state *st = s->state;
  pthread_mutex_lock(&st->lock);
  bool gone = unref(c);
  pthread_mutex_unlock(&st->lock);
  if (gone) free(c);
}

bool mcp_conn_remove(mcp_server *s, const char *id) {
  struct mcp_state *st = s->state;
  char version[16];
  pthread_mutex_lock(&st->lock);
  size_t i = find(st, id);
  bool found = i < st->n_conns;
  if (found) forget(st, i);
  pthread_mutex_unlock(&st->lock);
  /* a signed id (this server's or another's): ended for every server (the
   * store is asked without the lock, as in mcp_conn_get) */
  if (s->ids && (found || mcp_ids_check(s->ids, id, mcp_legacy_versions, version)) && !ended(s, id)) {
    mark_ended(s, id);
    found = true;
  }
  return found;
}

size_t mcp_conn_count(mcp_server *s) {
  pthread_mutex_lock(&s->state->lock);
  size_t n = s->state->n_conns;
  pthread_mutex_unlock(&s->state->lock);
  return n;
}

/* ---- calls in flight -------------------------------------------------------- */

bool mcp_inflight_add(mcp_server *s, const char *conn, const char *id, wasmbox_cancel *c) {
  inflight *f = calloc(1, sizeof *f);
  if (!f) return false;
  f->conn = strdup(conn);
  f->id = strdup(id);
  f->cancel = c;
  if (!f->conn || !f->id) {
    free(f->conn), free(f->id), free(f);
    return false;
  }
  pthread_mutex_lock(&s->state->lock);
  f->next = s->state->calls;
  s->state->calls = f;
  s->state->n_calls++;
  pthread_mutex_unlock(&s->state->lock);
  return true;
}

void mcp_inflight_remove(mcp_server *s, const char *conn, const char *id) {
  pthread_mutex_lock(&s->state->lock);
  for (inflight **p = &s->state->calls; *p; p = &(*p)->next)
    if (!strcmp((*p)->conn, conn) && !strcmp((*p)->id, id)) {
      inflight *f = *p;
      *p = f->next;
      s->state->n_calls--;
      free(f->conn), free(f->id), free(f);
      break;
    }
  pthread_mutex_unlock(&s->state->lock);
}

bool mcp_inflight_cancel(mcp_server *s, const char *conn, const char *id) {
  bool found = false;
  pthread_mutex_lock(&s->state->lock);
  for (inflight *f = s->state->calls; f; f = f->next)
    if (!strcmp(f->conn, conn) && !strcmp(f->id, id)) {
      wasmbox_cancel_fire(f->cancel); /* under the lock: the token outlives its entry */
      found = true;
    }
  pthread_mutex_unlock(&s->state->lock);
  return found;
}

size_t mcp_inflight_count(mcp_server *s) {
  pthread_mutex_lock(&s->state->lock);
  size_t n = s->state->n_calls;
  pthread_mutex_unlock(&s->state->lock);
  return n;
}

/* ---- workspaces of stateless calls ----------------------------------------- */

char *mcp_workspace_take(mcp_server *s) {
  pthread_mutex_lock(&s->ws_lock);
  char *d = s->ws_n ? s->ws_free[--s->ws_n] : NULL;
  pthread_mutex_unlock(&s->ws_lock);
  if (d) return d;
  if (asprintf(&d, "%s/wXXXXXX", s->scratch) < 0) return NULL;
  if (!mkdtemp(d)) {
    free(d);
    return NULL;
  }
  return d;
}

void mcp_workspace_give(mcp_server *s, char *dir) {
  if (!dir) return;
  /* The code left files: remove them all, but keep the directory, so that
   * the worker whose jail holds it serves the next call too. */
  bool left = !wb_dir_is_empty(dir);
  if (left) wb_empty_dir(dir);
  if (left && !wb_dir_is_empty(dir)) {
    wb_remove_tree(dir);
    free(dir);
    return;
  }
  pthread_mutex_lock(&s->ws_lock);
  if (s->ws_n < sizeof s->ws_free / sizeof s->ws_free[0]) {
    s->ws_free[s->ws_n++] = dir;
    dir = NULL;
  }
  pthread_mutex_unlock(&s->ws_lock);
  if (dir) {
    rmdir(dir);
    free(dir);
  }
}

/* ---- ownership -------------------------------------------------------------- */

const char *mcp_owner(const mcp_msg *m) { return m->owner ? m->owner : "local"; }

const char *mcp_owner_scope(const mcp_msg *m) { return m->conn ? m->conn->id : ""; }

bool mcp_owns(const mcp_msg *m, const char *owner) {
  return m->admin || !strcmp(owner, mcp_owner(m)) || (!owner[0] && !strcmp(mcp_owner(m), "local"));
}

int mcp_session_access(mcp_msg *m, const char *sid, char *err, size_t errlen) {
  char owner[WASMBOX_OWNER_MAX];
  int rc = wasmbox_session_owner(m->srv->wb, sid, owner, err, errlen);
  if (rc || mcp_owns(m, owner)) return rc;
  snprintf(err, errlen, "no session %s", sid);
  return WASMBOX_EUSAGE;
}
