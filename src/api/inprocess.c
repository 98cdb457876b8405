/* The in-process runner (see inprocess.h): places a call (a fresh copy of
 * the base snapshot from the pool, or a session's state), runs it, and
 * turns the outcome into a result. */
#include "api/inprocess.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/result.h"
#include "api/sandbox.h"
#include "api/guest_tools.h"
#include "util/os.h"

#define POOL_MAX 8
#define MAX_FDS 128

/* An idle instance, started from its runtime's base snapshot and reset to
 * it after its last call. Each keeps an empty scratch directory, made at
 * its first call without a workspace (making and removing one per call
 * cost more than the call). A `dirty` one is not reset yet: a worker
 * resets after it has answered (wb_inprocess_tidy), so that neither the
 * answer nor a one-shot process waits for it; its next taker would. */
typedef struct {
  wb_instance *instance;
  char *scratch;
  bool dirty;
} pooled;

typedef struct {
  pooled idle[POOL_MAX];
  size_t n;
} pool;

struct wb_inprocess {
  pthread_mutex_t lock;
  pool pools[WB_RUNTIMES_MAX];
  char *scratch; /* in a worker: the one scratch directory its jail allows */
};

wb_inprocess *wb_inprocess_new(const char *scratch, char *err, size_t errlen) {
  wb_inprocess *ip = calloc(1, sizeof *ip);
  if (!ip || (scratch && !(ip->scratch = strdup(scratch)))) {
    free(ip);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  pthread_mutex_init(&ip->lock, NULL);
  return ip;
}

static void pooled_free(wb_inprocess *ip, pooled *p) {
  wb_instance_free(p->instance);
  if (p->scratch && !(ip->scratch && !strcmp(p->scratch, ip->scratch))) wb_remove_tree(p->scratch);
  free(p->scratch);
  p->instance = NULL;
  p->scratch = NULL;
}

void wb_inprocess_free(wb_inprocess *ip) {
  if (!ip) return;
  for (size_t i = 0; i < WB_RUNTIMES_MAX; i++)
    for (size_t j = 0; j < ip->pools[i].n; j++) pooled_free(ip, &ip->pools[i].idle[j]);
  pthread_mutex_destroy(&ip->lock);
  free(ip->scratch);
  free(ip);
}

static pool *pool_of(wb_inprocess *ip, const wb_runtime *rt) {
  for (size_t i = 0; wb_runtimes[i] && i < WB_RUNTIMES_MAX; i++)
    if (wb_runtimes[i] == rt) return &ip->pools[i];
  return NULL;
}

/* Back to the base snapshot with an empty scratch; false: unusable. */
static bool pooled_clean(const wb_runtime *rt, pooled *p) {
  const wb_snapshot *base = rt->base_snapshot();
  char err[256];
  if (!wb_instance_recycle(p->instance, base, err, sizeof err)) return false;
  if (p->scratch && !wb_dir_is_empty(p->scratch)) {
    wb_empty_dir(p->scratch); /* emptied, not removed: a worker's scratch is a mount point */
    if (!wb_dir_is_empty(p->scratch)) return false;
  }
  p->dirty = false;
  return true;
}

void wb_inprocess_tidy(wb_inprocess *ip) {
  for (size_t i = 0; wb_runtimes[i] && i < WB_RUNTIMES_MAX; i++) {
    pool *pl = &ip->pools[i];
    for (;;) {
      pooled p = {0};
      pthread_mutex_lock(&ip->lock);
      for (size_t j = 0; j < pl->n && !p.instance; j++) {
        if (pl->idle[j].dirty) {
          p = pl->idle[j];
          pl->idle[j] = pl->idle[--pl->n];
        }
      }
      pthread_mutex_unlock(&ip->lock);
      if (!p.instance) break;
      bool kept = false;
      if (pooled_clean(wb_runtimes[i], &p)) {
        pthread_mutex_lock(&ip->lock);
        kept = pl->n < POOL_MAX;
        if (kept) pl->idle[pl->n++] = p;
        pthread_mutex_unlock(&ip->lock);
      }
      if (!kept) pooled_free(ip, &p);
    }
  }
}

/* An idle instance, or a new one. */
static bool pool_take(wb_inprocess *ip, const wb_runtime *rt, pooled *out, char *err, size_t errlen) {
  /* a scratch all instances share must be empty whichever is taken */
  if (ip->scratch) wb_inprocess_tidy(ip);
  pool *p = pool_of(ip, rt);
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&ip->lock);
  if (p && p->n) *out = p->idle[--p->n];
  pthread_mutex_unlock(&ip->lock);
  if (out->instance && (!out->dirty || pooled_clean(rt, out))) return true;
  if (out->instance) pooled_free(ip, out);
  out->instance = wb_instance_new(rt, err, errlen);
  return out->instance != NULL;
}

/* The instance's scratch directory, made at its first call without a
 * workspace (a worker has the one its jail allows). */
static bool pool_scratch(wb_inprocess *ip, pooled *p, char *err, size_t errlen) {
  if (p->scratch) return true;
  p->scratch = ip->scratch ? strdup(ip->scratch) : wb_scratch_dir("wasmbox", err, errlen);
  if (!p->scratch && ip->scratch) snprintf(err, errlen, "out of memory");
  return p->scratch != NULL;
}

/* Put `p` back: reset now in the library, once the answer is out in a
 * worker (the one with a shared scratch); freed when it cannot be reset
 * (it never started, or the reset failed) or the pool is full. */
static void pool_give(wb_inprocess *ip, const wb_runtime *rt, pooled *p) {
  pool *pl = pool_of(ip, rt);
  p->dirty = true;
  bool ok = rt->base_snapshot() && pl && wb_instance_started(p->instance);
  if (ok && !ip->scratch) ok = pooled_clean(rt, p);
  if (ok) {
    pthread_mutex_lock(&ip->lock);
    bool kept = pl->n < POOL_MAX;
    if (kept) pl->idle[pl->n++] = *p;
    pthread_mutex_unlock(&ip->lock);
    if (kept) return;
  }
  pooled_free(ip, p);
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
  const wb_tool_route *tools;
  wb_journal *journal; /* or NULL */
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
  wb_wasi_config wc = {.args = args,
                       .nargs = 1,
                       .env = pl->env,
                       .nenv = pl->env_len,
                       .mounts = mounts,
                       .nmounts = nmounts,
                       .stdin_data = (const uint8_t *)req->stdin_data,
                       .stdin_len = req->stdin_data ? req->stdin_len : 0,
                       .max_output = w->lim.max_output,
                       .quota = w->lim.quota,
                       .max_fds = MAX_FDS,
                       .fd_base = pl->fd_base,
                       .journal = w->journal};
  wb_wasi *wasi = wb_wasi_new(&wc, err, errlen);
  if (!wasi) return WASMBOX_EINTERNAL;
  wb_call call = {.wasi = wasi,
                  .memory_limit = w->lim.memory_limit,
                  .timeout_ns = (uint64_t)(w->lim.timeout_s * 1e9),
                  .fuel = w->lim.fuel,
                  .cancel = (wb_cancel *)req->cancel,
                  .tools = w->tools};
  wb_job job = {.from = pl->from, .fresh = pl->fresh, .code = w->code, .code_len = w->code_len, .name = w->name};
  int rc = WASMBOX_OK;
  if (!wb_instance_call(pl->instance, &call, &job, o, err, errlen)) {
    rc = WASMBOX_EINTERNAL;
  } else if (o->init_failed && !o->trap) {
    /* the engine says why (a memory limit below what the runtime needs);
     * or starting took more memory than the limit (a large environment) */
    if (!err[0] && o->memory_grow_failed)
      snprintf(err, errlen,
               "the %s runtime does not start within a memory limit of %llu MB with this call's "
               "environment and arguments: raise the limit",
               pl->rt->language, (unsigned long long)(w->lim.memory_limit >> 20));
    if (!err[0]) snprintf(err, errlen, "the %s runtime failed to start", pl->rt->language);
    rc = strstr(err, "memory limit") ? WASMBOX_EUSAGE : WASMBOX_EINTERNAL;
  } else if (!(*out = wb_result_build(o, wasi, &w->lim))) {
    snprintf(err, errlen, "out of memory");
    rc = WASMBOX_EINTERNAL;
  }
  wb_wasi_free(wasi);
  return rc;
}

static int run_stateless(wb_inprocess *ip, const wasmbox_request *req, const work *w, wasmbox_result **out, char *err,
                         size_t errlen) {
  const wb_runtime *rt = w->lim.rt;
  /* a fresh copy of the base snapshot (binaries without one initialise),
   * and without a workspace of its own, the instance's empty scratch */
  pooled p;
  if (!pool_take(ip, rt, &p, err, errlen)) return WASMBOX_EINTERNAL;
  if (!req->workspace && !pool_scratch(ip, &p, err, errlen)) {
    pooled_free(ip, &p);
    return WASMBOX_EINTERNAL;
  }
  const wb_snapshot *base = rt->base_snapshot();
  place pl = {.rt = rt,
              .workspace = req->workspace ? req->workspace : p.scratch,
              .env = req->env,
              .env_len = req->env_len,
              .mounts = req->mounts,
              .mounts_len = req->mounts_len,
              .from = base,
              .fresh = base != NULL,
              .instance = p.instance};
  wb_result *r = NULL;
  wb_outcome o;
  memset(&o, 0, sizeof o);
  int rc = execute(&pl, w, req, &r, &o, err, errlen);
  wb_outcome_clear(&o);
  if (base) pool_give(ip, rt, &p);
  else pooled_free(ip, &p);
  *out = r ? &r->pub : NULL;
  return rc;
}

static int run_in_session(wasmbox *wb, const wasmbox_request *req, work *w, wasmbox_result **out, char *err,
                          size_t errlen) {
  wb_store *st = wb_store_of(wb, err, errlen);
  if (!st) return WASMBOX_EINTERNAL;
  wb_session *s;
  wb_session_call c;
  int rc = wb_session_begin(st, req->session_id, &s, &c, err, errlen);
  if (rc) return rc;
  if (w->lim.rt && w->lim.rt != c.runtime) {
    wb_session_end(s, false, NULL, err, errlen);
    return wb_usage(err, errlen, "session %s runs %s, not %s", req->session_id, c.runtime->language, req->language);
  }
  w->lim.rt = c.runtime;
  if (!req->filename) w->name = c.runtime->default_name;
  place pl = {.rt = c.runtime,
              .workspace = c.workspace,
              .cow_links = true,
              .env = c.env,
              .env_len = c.env_len,
              .mounts = c.mounts,
              .mounts_len = c.mounts_len,
              .fd_base = c.fd_base,
              .instance = c.instance,
              .from = c.job_from,
              .fresh = c.job_fresh};
  wb_result *r = NULL;
  wb_outcome o;
  memset(&o, 0, sizeof o);
  rc = execute(&pl, w, req, &r, &o, err, errlen);
  /* a call that ran to its end keeps its state, an exception included;
   * limits and crashes leave no trace */
  bool keep = r && (r->pub.status == WASMBOX_STATUS_OK || r->pub.status == WASMBOX_STATUS_ERROR);
  /* (a paused call is not kept either: resuming runs it again from here) */
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

int wb_inprocess_run(wasmbox *wb, const wasmbox_request *req, const wb_resolved *rs, const wb_tool_route *tools,
                     const wb_journal_wire *jw, wasmbox_result **out, char *err, size_t errlen) {
  *out = NULL;
  err[0] = 0;
  if (rs->rt && !rs->rt->prepare(err, errlen)) return WASMBOX_EINTERNAL;
  wb_journal journal;
  bool journaling = jw && (jw->record || jw->replay);
  if (journaling && !wb_journal_init(&journal, jw->replay, jw->replay ? jw->replay_len : 0)) {
    snprintf(err, errlen, "out of memory");
    return WASMBOX_EINTERNAL;
  }
  work w = {.tools = tools,
            .journal = journaling ? &journal : NULL,
            .code = req->code,
            .code_len = rs->code_len,
            .name = req->filename ? req->filename
                    : rs->rt      ? rs->rt->default_name
                                  : "",
            .lim = {.rt = rs->rt,
                    .timeout_s = rs->timeout_s,
                    .fuel = rs->fuel,
                    .memory_limit = rs->memory,
                    .max_output = rs->max_output,
                    .quota = rs->quota}};
  int rc = req->session_id ? run_in_session(wb, req, &w, out, err, errlen)
                           : run_stateless(wb->here, req, &w, out, err, errlen);
  if (journaling) {
    wb_result *r = (wb_result *)*out;
    size_t n = journal.data.len;
    if (r && !journal.overflowed) {
      r->journal = n ? wb_buf_take(&journal.data) : NULL;
      r->journal_len = r->journal ? n : 0;
    }
    if (r) r->journal_overflowed = journal.overflowed || (n && !r->journal);
    wb_journal_free(&journal);
  }
  return rc;
}
