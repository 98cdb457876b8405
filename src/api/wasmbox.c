/* The library (include/wasmbox.h): checks a request, places the call (a
 * fresh copy of the base snapshot from the pool, or a session's state),
 * runs it, and turns the outcome into a result. */
#include "wasmbox.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/internal.h"
#include "api/sandbox.h"
#include "engine/runtime.h"

#define MAX_TIMEOUT_S (24.0 * 3600)
#define MAX_MEMORY (4ull << 30) /* all a 32-bit guest can address */
#define MAX_OUTPUT (1ull << 30)
#define MAX_CODE (64u << 20)
#define MAX_FDS 128

int wb_usage(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return WASMBOX_EUSAGE;
}

/* ---- lifecycle and the pool ------------------------------------------------- */

static char *default_home(void) {
  const char *h = getenv("WASMBOX_HOME");
  if (h && *h) return strdup(h);
  const char *home = getenv("HOME");
  char *p;
  if (home && *home) {
    if (asprintf(&p, "%s/.local/share/wasmbox", home) < 0) return NULL;
  } else if (asprintf(&p, "/tmp/wasmbox-%u", (unsigned)getuid()) < 0) {
    return NULL;
  }
  return p;
}

static wasmbox *open_common(const char *home, char *err, size_t errlen) {
  wasmbox *wb = calloc(1, sizeof *wb);
  if (wb) wb->home = home ? strdup(home) : default_home();
  if (!wb || !wb->home) {
    free(wb);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  pthread_mutex_init(&wb->lock, NULL);
  return wb;
}

wasmbox *wasmbox_open(const wasmbox_options *opts, char *err, size_t errlen) {
  wasmbox *wb = open_common(opts ? opts->home : NULL, err, errlen);
  if (wb && !(opts && opts->in_process) && !(wb->workers = wb_workers_new(wb->home, opts ? opts->warm_workers : 0, opts && opts->one_shot, err,
                                                     errlen))) {
    wasmbox_free(wb);
    return NULL;
  }
  return wb;
}

wasmbox *wb_open_here(const char *home, const char *scratch, char *err, size_t errlen) {
  wasmbox *wb = open_common(home, err, errlen);
  if (wb && scratch && !(wb->scratch = strdup(scratch))) {
    wasmbox_free(wb);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  return wb;
}

wasmbox *wasmbox_new(char *err, size_t errlen) { return wasmbox_open(NULL, err, errlen); }

static void pooled_free(wasmbox *wb, wb_pooled *p) {
  wb_instance_free(p->instance);
  if (p->scratch && !(wb->scratch && !strcmp(p->scratch, wb->scratch))) wb_remove_tree(p->scratch);
  free(p->scratch);
  p->instance = NULL;
  p->scratch = NULL;
}

void wasmbox_free(wasmbox *wb) {
  if (!wb) return;
  wb_workers_free(wb->workers);
  for (size_t i = 0; i < RUNTIMES_MAX; i++)
    for (size_t j = 0; j < wb->pools[i].n; j++) pooled_free(wb, &wb->pools[i].idle[j]);
  wb_store_free(wb->store);
  pthread_mutex_destroy(&wb->lock);
  free(wb->scratch);
  free(wb->home);
  free(wb);
}

wb_store *wb_store_of(wasmbox *wb, char *err, size_t errlen) {
  pthread_mutex_lock(&wb->lock);
  if (!wb->store) wb->store = wb_store_open(wb->home, err, errlen);
  wb_store *st = wb->store;
  pthread_mutex_unlock(&wb->lock);
  return st;
}

const char *const *wasmbox_languages(void) {
  static const char *langs[RUNTIMES_MAX + 1];
  size_t i = 0;
  for (; wb_runtimes[i] && i < RUNTIMES_MAX; i++) langs[i] = wb_runtimes[i]->language;
  langs[i] = NULL;
  return langs;
}

static wb_pool *pool_of(wasmbox *wb, const wb_runtime *rt) {
  for (size_t i = 0; wb_runtimes[i] && i < RUNTIMES_MAX; i++)
    if (wb_runtimes[i] == rt) return &wb->pools[i];
  return NULL;
}

/* An idle instance, or a new one. */
static bool pool_take(wasmbox *wb, const wb_runtime *rt, wb_pooled *out, char *err, size_t errlen) {
  wb_pool *p = pool_of(wb, rt);
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&wb->lock);
  if (p && p->n) *out = p->idle[--p->n];
  pthread_mutex_unlock(&wb->lock);
  if (out->instance) return true;
  out->instance = wb_instance_new(rt, err, errlen);
  return out->instance != NULL;
}

/* The instance's scratch directory, made at its first call without a
 * workspace (a worker has the one its jail allows). */
static bool pool_scratch(wasmbox *wb, wb_pooled *p, char *err, size_t errlen) {
  if (p->scratch) return true;
  if (wb->scratch) {
    if ((p->scratch = strdup(wb->scratch))) return true;
    snprintf(err, errlen, "out of memory");
    return false;
  }
  const char *t = getenv("TMPDIR");
  if (asprintf(&p->scratch, "%s/wasmbox-XXXXXX", t && *t ? t : "/tmp") < 0) {
    p->scratch = NULL;
    snprintf(err, errlen, "out of memory");
    return false;
  }
  if (!mkdtemp(p->scratch)) {
    snprintf(err, errlen, "cannot create a temporary workspace in %s: %s", t && *t ? t : "/tmp", strerror(errno));
    free(p->scratch);
    p->scratch = NULL;
    return false;
  }
  return true;
}

static bool dir_empty(const char *path) {
  DIR *d = opendir(path);
  struct dirent *e;
  bool empty = d != NULL;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = false;
  if (d) closedir(d);
  return empty;
}

static void remove_contents(const char *dir);

/* Put `p` back: instance reset to the base snapshot, scratch emptied.
 * Freed when that fails or the pool is full. */
static void pool_give(wasmbox *wb, const wb_runtime *rt, wb_pooled *p) {
  const wb_snapshot *base = rt->base_snapshot();
  char err[256];
  wb_pool *pool = pool_of(wb, rt);
  bool ok = base && pool && wb_instance_started(p->instance) && wb_instance_reset(p->instance, base, err, sizeof err);
  if (ok && p->scratch && !dir_empty(p->scratch)) {
    remove_contents(p->scratch);
    ok = dir_empty(p->scratch);
  }
  if (ok) {
    pthread_mutex_lock(&wb->lock);
    bool kept = pool->n < POOL_MAX;
    if (kept) pool->idle[pool->n++] = *p;
    pthread_mutex_unlock(&wb->lock);
    if (kept) return;
  }
  pooled_free(wb, p);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  if (flag == FTW_DP) rmdir(path);
  else unlink(path);
  return 0;
}

void wb_remove_tree(const char *dir) { nftw(dir, remove_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT); }

static int remove_inner_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  return ftw->level == 0 ? 0 : remove_entry(path, st, flag, ftw);
}

/* Empty a directory but keep it (a worker's scratch is a mount point). */
static void remove_contents(const char *dir) {
  nftw(dir, remove_inner_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* ---- a call -------------------------------------------------------------------- */

/* Where a call runs. */
typedef struct {
  const wb_runtime *rt;
  const char *workspace;
  bool cow_links;
  const char *const *env;
  size_t env_len;
  const wasmbox_mount *mounts;
  size_t mounts_len;
  uint32_t fd_base;
  wb_instance *instance;
  const wb_snapshot *from;
  bool fresh;
} place;

typedef struct {
  const char *code;
  size_t code_len;
  const char *name;
  wb_limits_used lim;
} work;

/* Run `w` at `pl`; on WASMBOX_OK *out holds the result (*outcome the raw
 * outcome, for sessions deciding to keep the state). */
static int execute(const place *pl, const work *w, const wasmbox_request *req, wb_result **out, wb_outcome *o,
                   char *err, size_t errlen) {
  *out = NULL;
  wb_mount mounts[WB_SANDBOX_MOUNTS_MAX];
  size_t nmounts = wb_sandbox_mounts(pl->rt, pl->workspace, pl->mounts, pl->mounts_len, mounts);
  mounts[0].cow_links = pl->cow_links;
  /* no files: /app is the call's empty scratch, read-only (it stays a
   * preopen: the guest's libc numbers preopens as the snapshot saw them) */
  if (req->no_files) mounts[0].writable = false;
  const char *args[] = {pl->rt->language};
  wb_wasi_config wc = {.args = args, .nargs = 1, .env = pl->env, .nenv = pl->env_len, .mounts = mounts,
                       .nmounts = nmounts, .stdin_data = (const uint8_t *)req->stdin_data,
                       .stdin_len = req->stdin_data ? req->stdin_len : 0, .max_output = w->lim.max_output, .quota = w->lim.quota,
                       .max_fds = MAX_FDS, .fd_base = pl->fd_base};
  wb_wasi *wasi = wb_wasi_new(&wc, err, errlen);
  if (!wasi) return WASMBOX_EINTERNAL;
  wb_call call = {.wasi = wasi, .memory_limit = w->lim.memory_limit, .timeout_ns = (uint64_t)(w->lim.timeout_s * 1e9),
                  .fuel = w->lim.fuel, .cancel = (wb_cancel *)req->cancel};
  wb_job job = {.from = pl->from, .fresh = pl->fresh, .code = w->code, .code_len = w->code_len, .name = w->name};
  int rc = WASMBOX_OK;
  if (!wb_instance_call(pl->instance, &call, &job, o, err, errlen)) {
    rc = WASMBOX_EINTERNAL;
  } else if (o->init_failed && !o->trap) {
    /* the engine says why (a memory limit below what the runtime needs);
     * or starting took more memory than the limit (a large environment) */
    if (!err[0] && o->memory_grow_failed)
      snprintf(err, errlen, "the %s runtime does not start within a memory limit of %llu MB with this call's "
               "environment and arguments: raise the limit", pl->rt->language,
               (unsigned long long)(w->lim.memory_limit >> 20));
    if (!err[0]) snprintf(err, errlen, "the %s runtime failed to start", pl->rt->language);
    rc = strstr(err, "memory limit") ? WASMBOX_EUSAGE : WASMBOX_EINTERNAL;
  } else if (!(*out = wb_result_build(o, wasi, &w->lim))) {
    snprintf(err, errlen, "out of memory");
    rc = WASMBOX_EINTERNAL;
  }
  wb_wasi_free(wasi);
  return rc;
}

static int run_stateless(wasmbox *wb, const wasmbox_request *req, const work *w, wasmbox_result **out, char *err,
                         size_t errlen) {
  const wb_runtime *rt = w->lim.rt;
  int rc = wb_check_env(req->env, req->env_len, err, errlen);
  if (!rc) rc = wb_check_mounts(req->mounts, req->mounts_len, err, errlen);
  if (rc) return rc;
  if (req->no_files && req->workspace)
    return wb_usage(err, errlen, "a workspace and no_files contradict each other: give one");
  if (req->workspace) {
    struct stat st;
    if (stat(req->workspace, &st) != 0) return wb_usage(err, errlen, "workspace %s: %s", req->workspace, strerror(errno));
    if (!S_ISDIR(st.st_mode)) return wb_usage(err, errlen, "workspace %s is not a directory", req->workspace);
  }
  /* a fresh copy of the base snapshot (binaries without one initialise),
   * and without a workspace of its own, the instance's empty scratch */
  wb_pooled p;
  if (!pool_take(wb, rt, &p, err, errlen)) return WASMBOX_EINTERNAL;
  if (!req->workspace && !pool_scratch(wb, &p, err, errlen)) {
    pooled_free(wb, &p);
    return WASMBOX_EINTERNAL;
  }
  const wb_snapshot *base = rt->base_snapshot();
  place pl = {.rt = rt, .workspace = req->workspace ? req->workspace : p.scratch, .env = req->env,
              .env_len = req->env_len, .mounts = req->mounts, .mounts_len = req->mounts_len, .from = base,
              .fresh = base != NULL, .instance = p.instance};
  wb_result *r = NULL;
  wb_outcome o;
  memset(&o, 0, sizeof o);
  rc = execute(&pl, w, req, &r, &o, err, errlen);
  wb_outcome_clear(&o);
  if (base) pool_give(wb, rt, &p);
  else pooled_free(wb, &p);
  *out = r ? &r->pub : NULL;
  return rc;
}

static int run_in_session(wasmbox *wb, const wasmbox_request *req, work *w, wasmbox_result **out, char *err,
                          size_t errlen) {
  if (req->workspace || req->env_len || req->mounts_len)
    return wb_usage(err, errlen, "a session call uses the session's workspace, environment and mounts; "
                                 "set them when creating the session");
  if (req->no_files) return wb_usage(err, errlen, "no_files is for stateless calls: a session's /app is its state");
  wb_store *st = wb_store_of(wb, err, errlen);
  if (!st) return WASMBOX_EINTERNAL;
  wb_session *s;
  wb_session_call c;
  int rc = wb_session_begin(st, req->session_id, &s, &c, err, errlen);
  if (rc) return rc;
  if (req->language && wb_runtime_find(req->language) != c.runtime) {
    wb_session_end(s, false, NULL, err, errlen);
    return wb_usage(err, errlen, "session %s runs %s, not %s", req->session_id, c.runtime->language, req->language);
  }
  w->lim.rt = c.runtime;
  if (!req->filename) w->name = c.runtime->default_name;
  place pl = {.rt = c.runtime, .workspace = c.workspace, .cow_links = true, .env = c.env, .env_len = c.env_len,
              .mounts = c.mounts, .mounts_len = c.mounts_len, .fd_base = c.fd_base, .instance = c.instance,
              .from = c.job_from, .fresh = c.job_fresh};
  wb_result *r = NULL;
  wb_outcome o;
  memset(&o, 0, sizeof o);
  rc = execute(&pl, w, req, &r, &o, err, errlen);
  /* a call that ran to its end keeps its state, an exception included;
   * limits and crashes leave no trace */
  bool keep = r && (r->pub.status == WASMBOX_STATUS_OK || r->pub.status == WASMBOX_STATUS_ERROR);
  bool rolled_back = true;
  char e2[512] = "";
  int erc = wb_session_end(s, keep, &rolled_back, e2, sizeof e2);
  wb_outcome_clear(&o);
  if (rc == WASMBOX_OK && erc != WASMBOX_OK) {
    snprintf(err, errlen, "%s", e2);
    rc = erc;
  }
  if (rc != WASMBOX_OK) {
    wasmbox_result_free(r ? &r->pub : NULL);
    return rc;
  }
  r->session = strdup(req->session_id);
  r->pub.session_id = r->session;
  r->pub.session_rolled_back = rolled_back;
  *out = &r->pub;
  return WASMBOX_OK;
}

int wasmbox_run(wasmbox *wb, const wasmbox_request *req, wasmbox_result **out, char *err, size_t errlen) {
  *out = NULL;
  err[0] = 0;
  /* package directories travel as mounts from here on */
  wasmbox_request with = *req;
  wasmbox_mount mounts[WASMBOX_MAX_MOUNTS];
  if (req->packages_len) {
    if (req->session_id)
      return wb_usage(err, errlen, "a session call uses the session's packages; set them when creating the session");
    int rc = wb_add_packages(req->language, req->mounts, req->mounts_len, req->packages, req->packages_len, mounts,
                             &with.mounts_len, err, errlen);
    if (rc) return rc;
    with.mounts = mounts;
    with.packages = NULL;
    with.packages_len = 0;
  }
  char *wrapped = NULL;
  if (wb_policy_wanted(req)) {
    const char *lang = req->language;
    wasmbox_session_info info;
    if (!lang && req->session_id) {
      int rc = wasmbox_session_info_get(wb, req->session_id, &info, err, errlen);
      if (rc) return rc;
      lang = info.language;
    }
    const wb_runtime *rt = wb_runtime_find(lang ? lang : "python");
    if (rt && strcmp(rt->language, "python"))
      return wb_usage(err, errlen, "import policies are Python's; this call runs %s", rt->language);
    int rc = wb_policy_wrap(&with, &wrapped, err, errlen);
    if (rc) return rc;
  }
  int rc = wb->workers ? wb_workers_run(wb, &with, out, err, errlen) : wb_run_here(wb, &with, out, err, errlen);
  free(wrapped);
  return rc;
}

int wb_run_here(wasmbox *wb, const wasmbox_request *req, wasmbox_result **out, char *err, size_t errlen) {
  *out = NULL;
  err[0] = 0;
  if (!req->code) return wb_usage(err, errlen, "no code given");
  size_t code_len = req->code_len ? req->code_len : strlen(req->code);
  if (code_len > MAX_CODE) return wb_usage(err, errlen, "code is larger than %u MB", MAX_CODE >> 20);
  double timeout = req->timeout_seconds == 0 ? WASMBOX_DEFAULT_TIMEOUT_S : req->timeout_seconds;
  if (!(timeout > 0 && timeout <= MAX_TIMEOUT_S))
    return wb_usage(err, errlen, "timeout must be between 0 and %g seconds", MAX_TIMEOUT_S);
  uint64_t memory = req->memory_bytes ? req->memory_bytes : WASMBOX_DEFAULT_MEMORY;
  if (memory > MAX_MEMORY) return wb_usage(err, errlen, "memory limit must be at most %llu MB", MAX_MEMORY >> 20);
  uint64_t fuel = req->fuel ? req->fuel : WASMBOX_DEFAULT_FUEL;
  if (fuel > WASMBOX_MAX_FUEL) return wb_usage(err, errlen, "fuel must be at most %llu", (unsigned long long)WASMBOX_MAX_FUEL);
  size_t max_output = req->max_output_bytes ? req->max_output_bytes : WASMBOX_DEFAULT_MAX_OUTPUT;
  if (max_output > MAX_OUTPUT) return wb_usage(err, errlen, "output limit must be at most %llu MB", MAX_OUTPUT >> 20);
  uint64_t quota = req->quota_bytes ? req->quota_bytes : WASMBOX_DEFAULT_QUOTA;
  if (req->filename && strlen(req->filename) > 1024) return wb_usage(err, errlen, "file name is longer than 1024 bytes");
  const wb_runtime *rt = NULL;
  if (req->language || !req->session_id) {
    const char *lang = req->language ? req->language : "python";
    rt = wb_runtime_find(lang);
    if (!rt) return wb_usage(err, errlen, "unknown language '%s'", lang);
    if (!rt->prepare(err, errlen)) return WASMBOX_EINTERNAL;
  }
  work w = {.code = req->code, .code_len = code_len, .name = req->filename ? req->filename : rt ? rt->default_name : "",
            .lim = {.rt = rt, .timeout_s = timeout, .fuel = fuel, .memory_limit = memory, .max_output = max_output,
                    .quota = quota}};
  return req->session_id ? run_in_session(wb, req, &w, out, err, errlen) : run_stateless(wb, req, &w, out, err, errlen);
}

int wasmbox_isolation(wasmbox *wb, wasmbox_layer out[WASMBOX_LAYERS_MAX], size_t *n, char *err, size_t errlen) {
  *n = 0;
  if (!wb->workers) return WASMBOX_OK;
  wb_jail_report rep;
  if (!wb_workers_report(wb->workers, &rep, err, errlen)) return WASMBOX_EINTERNAL;
  for (int l = 0; l < WB_LAYER_COUNT && l < WASMBOX_LAYERS_MAX; l++) {
    out[l].name = wb_layer_name((wb_layer)l);
    out[l].active = rep.active[l];
    snprintf(out[l].detail, sizeof out[l].detail, "%s", rep.detail[l]);
    *n = (size_t)l + 1;
  }
  return WASMBOX_OK;
}

wasmbox_cancel *wasmbox_cancel_new(void) { return (wasmbox_cancel *)wb_cancel_new(); }
void wasmbox_cancel_fire(wasmbox_cancel *c) { wb_cancel_fire((wb_cancel *)c); }
void wasmbox_cancel_free(wasmbox_cancel *c) { wb_cancel_free((wb_cancel *)c); }

/* ---- sessions ------------------------------------------------------------------- */

#define STORE_OR_FAIL(st)                          \
  wb_store *st = wb_store_of(wb, err, errlen);     \
  if (!st) return WASMBOX_EINTERNAL

int wasmbox_session_create(wasmbox *wb, const wasmbox_session_options *opts, char id[WASMBOX_ID_MAX], char *err,
                           size_t errlen) {
  id[0] = 0;
  wasmbox_session_options with = opts ? *opts : (wasmbox_session_options){0};
  wasmbox_mount mounts[WASMBOX_MAX_MOUNTS];
  if (opts) {
    int rc = wb_check_env(opts->env, opts->env_len, err, errlen);
    if (!rc && opts->packages_len) {
      rc = wb_add_packages(opts->language, opts->mounts, opts->mounts_len, opts->packages, opts->packages_len, mounts,
                           &with.mounts_len, err, errlen);
      with.mounts = mounts;
      with.packages = NULL;
      with.packages_len = 0;
    }
    if (!rc) rc = wb_check_mounts(with.mounts, with.mounts_len, err, errlen);
    if (rc) return rc;
  }
  STORE_OR_FAIL(st);
  return wb_session_create(st, opts ? &with : NULL, id, err, errlen);
}

int wasmbox_session_fork(wasmbox *wb, const char *id, char new_id[WASMBOX_ID_MAX], char *err, size_t errlen) {
  new_id[0] = 0;
  STORE_OR_FAIL(st);
  return wb_session_fork(st, id, new_id, err, errlen);
}

int wasmbox_session_checkpoint(wasmbox *wb, const char *id, char cid[WASMBOX_ID_MAX], char *err, size_t errlen) {
  cid[0] = 0;
  STORE_OR_FAIL(st);
  return wb_session_checkpoint(st, id, cid, err, errlen);
}

int wasmbox_session_restore(wasmbox *wb, const char *id, const char *cid, char *err, size_t errlen) {
  STORE_OR_FAIL(st);
  return wb_session_restore(st, id, cid, err, errlen);
}

int wasmbox_session_destroy(wasmbox *wb, const char *id, char *err, size_t errlen) {
  STORE_OR_FAIL(st);
  int rc = wb_session_destroy(st, id, err, errlen);
  if (rc == WASMBOX_OK && wb->workers) wb_workers_forget_sessions(wb->workers, st);
  return rc;
}

int wasmbox_session_list(wasmbox *wb, wasmbox_session_info **out, size_t *n, char *err, size_t errlen) {
  *out = NULL;
  *n = 0;
  STORE_OR_FAIL(st);
  return wb_session_list(st, out, n, err, errlen);
}

int wasmbox_session_info_get(wasmbox *wb, const char *id, wasmbox_session_info *out, char *err, size_t errlen) {
  STORE_OR_FAIL(st);
  return wb_session_info(st, id, out, err, errlen);
}

int wasmbox_session_prune(wasmbox *wb, size_t *removed, char *err, size_t errlen) {
  *removed = 0;
  STORE_OR_FAIL(st);
  int rc = wb_session_prune(st, removed, err, errlen);
  if (*removed && wb->workers) wb_workers_forget_sessions(wb->workers, st);
  return rc;
}
