/* Session tools: create, destroy, fork, checkpoint, restore, list. A session
 * made here gets /external when the server has it (a session fixes its
 * mounts at creation). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/args.h"
#include "mcp/tools.h"

static const char *const sid_only[] = {"session_id", NULL};

/* Library refusals (unknown id, bad name) are the caller's to fix. */
static cJSON *lib_error(const char *tool, int rc, const char *err) {
  if (rc == WASMBOX_EUSAGE)
    return tool_error("%s: %s (list_sessions shows the sessions that exist; create_session makes a new one)", tool,
                      err);
  return tool_error("%s: internal error: %s", tool, err);
}

static cJSON *obj_with_id(const char *key, const char *id) {
  cJSON *o = cJSON_CreateObject();
  if (o) cJSON_AddStringToObject(o, key, id);
  return o;
}

cJSON *tool_create_session(mcp_msg *m, const cJSON *args) {
  static const char *const allowed[] = {"language", "ttl_seconds", NULL};
  static const char *const languages[] = {"python", "javascript", NULL};
  mcp_args a;
  args_init(&a, args, allowed);
  const char *lang = args_enum(&a, "language", languages, "python");
  double ttl = args_num(&a, "ttl_seconds", 1, 365 * 86400.0, m->srv->cfg->session_ttl);
  if (a.bad) return tool_error("create_session: %s", a.msg);
  wasmbox_session_options o = {.language = lang,
                               .ttl_seconds = ttl,
                               .mounts = m->srv->mounts,
                               .mounts_len = m->srv->n_mounts,
                               .owner = mcp_owner(m)};
  if (!strcmp(lang, "python")) {
    o.packages = (const char *const *)m->srv->cfg->packages;
    o.packages_len = m->srv->cfg->n_packages;
  }
  char id[WASMBOX_ID_MAX], err[512];
  int rc = wasmbox_session_create(m->srv->wb, &o, id, err, sizeof err);
  if (rc) return lib_error("create_session", rc, err);
  cJSON *r = obj_with_id("session_id", id);
  if (!r) return NULL;
  cJSON_AddStringToObject(r, "language", lang);
  cJSON_AddNumberToObject(r, "ttl_seconds", ttl);
  if (m->srv->n_mounts) cJSON_AddStringToObject(r, "external", "/external");
  else cJSON_AddNullToObject(r, "external");
  mcp_note(m, MCP_LOG_INFO, "session %s created (%s)", id, lang);
  return tool_result(r, false);
}

cJSON *tool_destroy_session(mcp_msg *m, const cJSON *args) {
  mcp_args a;
  args_init(&a, args, sid_only);
  const char *sid = args_str(&a, "session_id", true, WASMBOX_ID_MAX - 1, NULL);
  if (a.bad) return tool_error("destroy_session: %s", a.msg);
  char err[512];
  int rc = mcp_session_access(m, sid, err, sizeof err);
  if (!rc) rc = wasmbox_session_destroy(m->srv->wb, sid, err, sizeof err);
  if (rc) return lib_error("destroy_session", rc, err);
  cJSON *r = obj_with_id("session_id", sid);
  if (r) cJSON_AddBoolToObject(r, "destroyed", true);
  return r ? tool_result(r, false) : NULL;
}

cJSON *tool_fork_session(mcp_msg *m, const cJSON *args) {
  mcp_args a;
  args_init(&a, args, sid_only);
  const char *sid = args_str(&a, "session_id", true, WASMBOX_ID_MAX - 1, NULL);
  if (a.bad) return tool_error("fork_session: %s", a.msg);
  char id[WASMBOX_ID_MAX], err[512];
  int rc = mcp_session_access(m, sid, err, sizeof err);
  if (!rc) rc = wasmbox_session_fork(m->srv->wb, sid, id, err, sizeof err);
  if (rc) return lib_error("fork_session", rc, err);
  cJSON *r = obj_with_id("session_id", id);
  if (r) cJSON_AddStringToObject(r, "forked_from", sid);
  return r ? tool_result(r, false) : NULL;
}

cJSON *tool_checkpoint_session(mcp_msg *m, const cJSON *args) {
  mcp_args a;
  args_init(&a, args, sid_only);
  const char *sid = args_str(&a, "session_id", true, WASMBOX_ID_MAX - 1, NULL);
  if (a.bad) return tool_error("checkpoint_session: %s", a.msg);
  char id[WASMBOX_ID_MAX], err[512];
  int rc = mcp_session_access(m, sid, err, sizeof err);
  if (!rc) rc = wasmbox_session_checkpoint(m->srv->wb, sid, id, err, sizeof err);
  if (rc) return lib_error("checkpoint_session", rc, err);
  cJSON *r = obj_with_id("session_id", sid);
  if (r) cJSON_AddStringToObject(r, "checkpoint_id", id);
  return r ? tool_result(r, false) : NULL;
}

cJSON *tool_restore_session(mcp_msg *m, const cJSON *args) {
  static const char *const allowed[] = {"session_id", "checkpoint_id", NULL};
  mcp_args a;
  args_init(&a, args, allowed);
  const char *sid = args_str(&a, "session_id", true, WASMBOX_ID_MAX - 1, NULL);
  const char *cp = args_str(&a, "checkpoint_id", true, WASMBOX_ID_MAX - 1, NULL);
  if (a.bad) return tool_error("restore_session: %s", a.msg);
  char err[512];
  int rc = mcp_session_access(m, sid, err, sizeof err);
  if (!rc) rc = wasmbox_session_restore(m->srv->wb, sid, cp, err, sizeof err);
  if (rc) return lib_error("restore_session", rc, err);
  cJSON *r = obj_with_id("session_id", sid);
  if (r) cJSON_AddStringToObject(r, "checkpoint_id", cp), cJSON_AddBoolToObject(r, "restored", true);
  return r ? tool_result(r, false) : NULL;
}

cJSON *tool_install_package(mcp_msg *m, const cJSON *args) {
  static const char *const allowed[] = {"session_id", "requirement", NULL};
  mcp_args a;
  args_init(&a, args, allowed);
  const char *sid = args_str(&a, "session_id", true, WASMBOX_ID_MAX - 1, NULL);
  const char *req = args_str(&a, "requirement", true, 200, NULL);
  if (a.bad) return tool_error("install_package: %s", a.msg);
  const mcp_config *c = m->srv->cfg;
  char err[1024], *out = NULL;
  int rc = mcp_session_access(m, sid, err, sizeof err);
  if (!rc)
    rc = wasmbox_session_install(m->srv->wb, sid, req, c->package_index[0] ? c->package_index : NULL,
                                 c->wheelhouse[0] ? c->wheelhouse : NULL, &out, err, sizeof err);
  if (rc) return lib_error("install_package", rc, err);
  cJSON *r = cJSON_Parse(out);
  free(out);
  if (!r) return NULL;
  cJSON_AddStringToObject(r, "session_id", sid);
  cJSON_AddStringToObject(r, "requirement", req);
  mcp_note(m, MCP_LOG_INFO, "install_package %s in %s", req, sid);
  return tool_result(r, false);
}

cJSON *tool_list_sessions(mcp_msg *m, const cJSON *args) {
  static const char *const none[] = {NULL};
  mcp_args a;
  args_init(&a, args, none);
  if (a.bad) return tool_error("list_sessions: %s", a.msg);
  wasmbox_session_info *all = NULL;
  size_t n = 0;
  char err[512];
  int rc = wasmbox_session_list(m->srv->wb, &all, &n, err, sizeof err);
  if (rc) return lib_error("list_sessions", rc, err);
  cJSON *r = cJSON_CreateObject(), *arr = cJSON_CreateArray();
  for (size_t i = 0; r && arr && i < n; i++) {
    if (!mcp_owns(m, all[i].owner)) continue; /* another client's: not there */
    cJSON *o = cJSON_CreateObject();
    if (!o) break;
    cJSON_AddStringToObject(o, "session_id", all[i].id);
    if (m->admin) cJSON_AddStringToObject(o, "owner", all[i].owner);
    cJSON_AddStringToObject(o, "language", all[i].language);
    cJSON_AddNumberToObject(o, "created", all[i].created);
    cJSON_AddNumberToObject(o, "last_used", all[i].last_used);
    cJSON_AddNumberToObject(o, "ttl_seconds", all[i].ttl_seconds);
    cJSON_AddNumberToObject(o, "disk_bytes", (double)all[i].disk_bytes);
    cJSON_AddNumberToObject(o, "checkpoints", (double)all[i].checkpoints);
    cJSON_AddItemToArray(arr, o);
  }
  free(all);
  if (!r || !arr) {
    cJSON_Delete(r), cJSON_Delete(arr);
    return NULL;
  }
  cJSON_AddItemToObject(r, "sessions", arr);
  return tool_result(r, false);
}
