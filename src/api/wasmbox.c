/* The library's public entry (include/wasmbox.h): opens an instance with
 * its runner, resolves each request once and hands it to the workers or
 * to the in-process runner, and the session operations. */
#include "wasmbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "api/inprocess.h"
#include "api/paused.h"
#include "api/result.h"
#include "api/guest_tools.h"
#include "util/os.h"
#include "wasi/journal.h"
#include "api/library.h"
#include "api/policy.h"
#include "api/resolve_request.h"
#include "api/worker_parent.h"

/* The backend's hooks (session/backend.h): its directory is this
 * instance's store; copies of a session that went stale are the workers'. */
static wb_store *store_dir(void *ctx, char *err, size_t errlen) { return wb_store_of(ctx, err, errlen); }

static void session_stale(void *ctx, const char *id) {
  wasmbox *wb = ctx;
  if (wb->workers) wb_workers_forget_session(wb->workers, id);
}

wasmbox *wasmbox_open(const wasmbox_options *opts, char *err, size_t errlen) {
  if (opts && !(opts->session_idle_release_s >= 0 && opts->session_idle_release_s <= 1e9)) {
    snprintf(err, errlen, "session_idle_release_s must be a number of seconds, 0 or more (0: 30 s)");
    return NULL;
  }
  wasmbox *wb = wb_library_new(opts ? opts->home : NULL, err, errlen);
  if (!wb) return NULL;
  bool ok = opts && opts->in_process ? (wb->here = wb_inprocess_new(NULL, err, errlen)) != NULL
                                     : (wb->workers = wb_workers_new(wb->home, opts, err, errlen)) != NULL;
  const char *url = opts && opts->store ? opts->store : getenv("WASMBOX_STORE");
  wb_backend_hooks hooks = {.ctx = wb, .dir = store_dir, .stale = session_stale};
  if (ok && url && *url) {
    wb_remote_limits lim = {.timeout_s = opts ? opts->store_timeout_s : 0,
                            .max_conns = opts ? opts->store_connections : 0};
    ok = (wb->backend = wb_backend_pg(url, wb->home, &hooks, &lim, opts ? opts->named_mounts : NULL,
                                      opts ? opts->named_mounts_len : 0, err, errlen)) != NULL;
  } else if (ok) {
    ok = (wb->backend = wb_backend_local(wb->home, &hooks, err, errlen)) != NULL;
  }
  if (!ok) {
    wasmbox_free(wb);
    return NULL;
  }
  return wb;
}

wasmbox *wasmbox_new(char *err, size_t errlen) { return wasmbox_open(NULL, err, errlen); }

void wasmbox_free(wasmbox *wb) {
  if (!wb) return;
  wb_workers_free(wb->workers);
  wb_inprocess_free(wb->here);
  if (wb->backend) wb->backend->ops->free(wb->backend);
  wb_store_free(wb->store);
  pthread_mutex_destroy(&wb->lock);
  free(wb->home);
  free(wb);
}

const char *wasmbox_version(void) { return WASMBOX_VERSION; }

const char *wasmbox_home(const wasmbox *wb) { return wb->home; }

const char *const *wasmbox_languages(void) {
  static const char *langs[WB_RUNTIMES_MAX + 1];
  size_t i = 0;
  for (; wb_runtimes[i] && i < WB_RUNTIMES_MAX; i++) langs[i] = wb_runtimes[i]->language;
  langs[i] = NULL;
  return langs;
}

static int run_with_tools(wasmbox *wb, const wasmbox_request *with, const wb_resolved *rs, wb_tools *tools,
                          const char *replay, size_t replay_len, const uint64_t *paused_gen, wb_txn *held,
                          wasmbox_result **out, char *err, size_t errlen);

int wasmbox_run(wasmbox *wb, const wasmbox_request *req, wasmbox_result **out, char *err, size_t errlen) {
  return wb_run_held(wb, req, NULL, out, err, errlen);
}

int wb_run_held(wasmbox *wb, const wasmbox_request *req, wb_txn *held, wasmbox_result **out, char *err, size_t errlen) {
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
  wb_resolved rs;
  int rc = wb_resolve(&with, &rs, err, errlen);
  if (rc) return rc;
  char *wrapped = NULL;
  if (wb_policy_wanted(req)) {
    const char *lang = rs.rt ? rs.rt->language : NULL;
    wasmbox_session_info info;
    if (!lang) {
      if ((rc = wasmbox_session_info_get(wb, req->session_id, &info, err, errlen))) return rc;
      lang = info.language;
    }
    if (strcmp(lang, "python")) return wb_usage(err, errlen, "import policies are Python's; this call runs %s", lang);
    if ((rc = wb_policy_wrap(&with, &wrapped, err, errlen))) return rc;
    rs.code_len = with.code_len;
  }
  with.code_len = rs.code_len; /* kept with a paused run */
  wb_tools tools;
  wb_tools_begin(&tools, &with, rs.timeout_s, wb_monotonic_ns());
  rc = run_with_tools(wb, &with, &rs, &tools, NULL, 0, NULL, held, out, err, errlen);
  wb_tools_end(&tools);
  free(wrapped);
  return rc;
}

/* ---- approval (wasmbox.h) ---------------------------------------------------------- */

/* Run `with` in a worker or here; its tools answered by `tools`. A
 * session call is a transaction of the store (session/backend.h), its own
 * or the caller's (held). A run that paused is kept (api/paused.h) and its
 * result says how to resume. paused_gen: a resumed run's session must
 * still be at the generation it paused at, as the store has it once the
 * transaction began (a cache may lag). */
static int run_with_tools(wasmbox *wb, const wasmbox_request *with, const wb_resolved *rs, wb_tools *tools,
                          const char *replay, size_t replay_len, const uint64_t *paused_gen, wb_txn *held,
                          wasmbox_result **out, char *err, size_t errlen) {
  wb_journal_wire jw = {.record = tools->can_pause, .replay = replay, .replay_len = replay_len};
  wb_tool_route route = {.answer = wb_tools_answer, .ctx = tools};
  wb_txn own, *txn = NULL; /* the call's own transaction, when the caller holds none */
  int rc = WASMBOX_OK;
  if (with->session_id && !held && !(rc = wb_txn_begin(wb->backend, with->session_id, WB_TXN_WRITE, &own, err, errlen)))
    txn = &own;
  if (rc) return rc;
  if (with->session_id && paused_gen) {
    uint64_t gen = 0;
    wb_store *st = wb_store_of(wb, err, errlen);
    if (!st || !wb_session_generation(st, with->session_id, &gen) || gen != *paused_gen) {
      wb_txn_rollback(txn);
      return wb_usage(err, errlen,
                      "session %s changed since the run paused (a call, a restore or its end): the paused run "
                      "cannot go on",
                      with->session_id);
    }
  }
  rc = wb->workers ? wb_workers_run(wb, with, rs, tools, &jw, out, err, errlen)
                   : wb_inprocess_run(wb, with, rs, &route, &jw, out, err, errlen);
  char unsaved[512];
  if (rc) wb_txn_rollback(txn);
  else if (wb_txn_commit(txn, unsaved, sizeof unsaved)) wb_result_unsaved((wb_result *)*out, unsaved);
  if (!rc) (*out)->fuel_budget = with->fuel; /* as asked: 0, no budget (the default is no limit) */
  if (rc || (*out)->status != WASMBOX_STATUS_PAUSED) return rc;
  wb_result *r = (wb_result *)*out;
  cJSON *pending = tools->paused ? cJSON_ParseWithLength(tools->paused, tools->paused_len) : NULL;
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(pending, "name");
  const cJSON *args = cJSON_GetObjectItemCaseSensitive(pending, "arguments");
  r->pending_tool = cJSON_IsString(name) ? strdup(name->valuestring) : NULL;
  r->pending_arguments = cJSON_IsObject(args) ? cJSON_PrintUnformatted(args) : strdup("{}");
  cJSON_Delete(pending);
  uint64_t gen = 0;
  wb_store *st = with->session_id ? wb_store_of(wb, err, errlen) : NULL;
  bool have_gen = !with->session_id || (st && wb_session_generation(st, with->session_id, &gen));
  char token[WB_TOKEN_LEN + 1];
  char why[512] = "";
  if (r->journal_overflowed)
    snprintf(why, sizeof why, "it read more than %u MB of clock and randomness, too much to keep",
             WB_JOURNAL_MAX >> 20);
  else if (!r->pending_tool || !have_gen) snprintf(why, sizeof why, "its state could not be read back");
  else if (wb_paused_save(wb->backend, with, gen, tools, r->journal, r->journal_len, token, why, sizeof why) != 0)
    ;
  else r->resume_token = strdup(token);
  if (!r->resume_token) {
    /* it cannot wait: the call failed where it stopped */
    r->pub.status = WASMBOX_STATUS_ERROR;
    free(r->message);
    char msg[700];
    snprintf(msg, sizeof msg, "tool '%s' needs approval, and this run cannot wait for it: %s",
             r->pending_tool ? r->pending_tool : "?", why);
    r->message = strdup(msg);
  } else {
    free(r->message);
    char msg[600];
    snprintf(msg, sizeof msg, "tool '%s' needs approval: resume the run with its resume_token (approve or deny)",
             r->pending_tool);
    r->message = strdup(msg);
  }
  r->pub.error_message = r->message;
  r->pub.pending_tool = r->pending_tool;
  r->pub.pending_arguments = r->pending_arguments;
  r->pub.resume_token = r->resume_token;
  return WASMBOX_OK;
}

int wasmbox_resume(wasmbox *wb, const wasmbox_resume_request *rr, wasmbox_result **out, char *err, size_t errlen) {
  *out = NULL;
  err[0] = 0;
  if (!rr->tool_handler) return wb_usage(err, errlen, "resuming a run needs its tool handler");
  /* whole: it goes into the guest's reply as it is */
  cJSON *given = rr->approve && rr->result ? cJSON_ParseWithOpts(rr->result, NULL, true) : NULL;
  bool given_ok = !rr->approve || !rr->result || cJSON_IsObject(given);
  cJSON_Delete(given);
  if (!given_ok) return wb_usage(err, errlen, "the result to give the guest must be a JSON object (a CallToolResult)");
  wb_paused p;
  const char *scope = rr->owner ? rr->owner_scope : NULL;
  int rc = wb_paused_take(wb->backend, rr->resume_token, rr->owner, scope, &p, err, errlen);
  if (rc) return rc;
  wasmbox_request q = p.req;
  q.workspace = q.session_id ? NULL : rr->workspace;
  q.cancel = rr->cancel;
  q.tool_handler = rr->tool_handler;
  q.tool_audit = rr->tool_audit;
  q.tool_ctx = rr->tool_ctx;
  wb_resolved rs;
  rc = wb_resolve(&q, &rs, err, errlen);
  if (!rc) {
    wb_tools tools;
    wb_tools_begin(&tools, &q, rs.timeout_s, wb_monotonic_ns());
    tools.replay = (const uint8_t *)p.tool_journal;
    tools.replay_len = p.tool_journal_len;
    tools.pending = p.pending;
    tools.pending_len = p.pending_len;
    tools.approve = rr->approve;
    tools.given = rr->approve ? rr->result : NULL;
    tools.message = rr->approve ? NULL : rr->message;
    rc =
        run_with_tools(wb, &q, &rs, &tools, p.wasi_journal, p.wasi_journal_len, &p.session_gen, NULL, out, err, errlen);
    wb_tools_end(&tools);
  }
  wb_paused_free(&p);
  return rc;
}

void wasmbox_stats_get(wasmbox *wb, wasmbox_stats *out) {
  *out = (wasmbox_stats){0};
  if (wb->workers) wb_workers_count(wb->workers, &out->workers_idle, &out->workers_busy, &out->workers_starting);
  wb->backend->ops->stats(wb->backend, &out->store_operations, &out->store_failures, &out->store_seconds);
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

/* ---- sessions: the backend's operations (session/backend.h) ------------------------- */

#define OPS wb->backend->ops

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
  return OPS->create(wb->backend, opts ? &with : NULL, id, err, errlen);
}

int wasmbox_session_fork(wasmbox *wb, const char *id, char new_id[WASMBOX_ID_MAX], char *err, size_t errlen) {
  new_id[0] = 0;
  return OPS->fork(wb->backend, id, new_id, err, errlen);
}

int wasmbox_session_checkpoint(wasmbox *wb, const char *id, char cid[WASMBOX_ID_MAX], char *err, size_t errlen) {
  cid[0] = 0;
  return OPS->checkpoint(wb->backend, id, cid, err, errlen);
}

int wasmbox_session_restore(wasmbox *wb, const char *id, const char *cid, char *err, size_t errlen) {
  return OPS->restore(wb->backend, id, cid, err, errlen);
}

int wasmbox_session_destroy(wasmbox *wb, const char *id, char *err, size_t errlen) {
  int rc = OPS->destroy(wb->backend, id, err, errlen);
  wb_store *st = rc == WASMBOX_OK && wb->workers ? wb_store_of(wb, err, errlen) : NULL;
  if (st) wb_workers_forget_sessions(wb->workers, st);
  return rc;
}

int wasmbox_session_list(wasmbox *wb, wasmbox_session_info **out, size_t *n, char *err, size_t errlen) {
  *out = NULL;
  *n = 0;
  return OPS->list(wb->backend, out, n, err, errlen);
}

int wasmbox_session_info_get(wasmbox *wb, const char *id, wasmbox_session_info *out, char *err, size_t errlen) {
  return OPS->info(wb->backend, id, out, err, errlen);
}

int wasmbox_session_owner(wasmbox *wb, const char *id, char owner[WASMBOX_OWNER_MAX], char *err, size_t errlen) {
  owner[0] = 0;
  return OPS->owner(wb->backend, id, owner, err, errlen);
}

int wasmbox_session_prune(wasmbox *wb, size_t *removed, char *err, size_t errlen) {
  *removed = 0;
  int rc = OPS->prune(wb->backend, removed, err, errlen);
  wb_store *st = *removed && wb->workers ? wb_store_of(wb, err, errlen) : NULL;
  if (st) wb_workers_forget_sessions(wb->workers, st);
  return rc;
}
