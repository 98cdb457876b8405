/* The library's public entry (include/wasmbox.h): opens an instance with
 * its runner, resolves each request once and hands it to the workers or
 * to the in-process runner, and the session operations. */
#include "wasmbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/inprocess.h"
#include "api/library.h"
#include "api/policy.h"
#include "api/resolve.h"
#include "api/worker_parent.h"

wasmbox *wasmbox_open(const wasmbox_options *opts, char *err, size_t errlen) {
  wasmbox *wb = wb_library_new(opts ? opts->home : NULL, err, errlen);
  if (!wb) return NULL;
  bool ok = opts && opts->in_process ? (wb->here = wb_inprocess_new(NULL, err, errlen)) != NULL
                                     : (wb->workers = wb_workers_new(wb->home, opts ? opts->warm_workers : 0,
                                                                     opts && opts->one_shot, err, errlen)) != NULL;
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
  wb_store_free(wb->store);
  pthread_mutex_destroy(&wb->lock);
  free(wb->home);
  free(wb);
}

const char *const *wasmbox_languages(void) {
  static const char *langs[WB_RUNTIMES_MAX + 1];
  size_t i = 0;
  for (; wb_runtimes[i] && i < WB_RUNTIMES_MAX; i++) langs[i] = wb_runtimes[i]->language;
  langs[i] = NULL;
  return langs;
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
  rc = wb->workers ? wb_workers_run(wb, &with, &rs, out, err, errlen)
                   : wb_inprocess_run(wb, &with, &rs, NULL, out, err, errlen);
  free(wrapped);
  return rc;
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

#define STORE_OR_FAIL(st)                      \
  wb_store *st = wb_store_of(wb, err, errlen); \
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
