/* Session file tools: list, read, write, reset. Paths resolve exactly as the
 * guest's own (the library refuses anything outside /app). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/args.h"
#include "mcp/base64.h"
#include "mcp/jsonrpc.h"
#include "mcp/tools.h"

static const char *const encodings[] = {"utf-8", "base64", NULL};

static cJSON *lib_error(const char *tool, int rc, const char *err) {
  if (rc == WASMBOX_EUSAGE) return tool_error("%s: %s", tool, err);
  return tool_error("%s: internal error: %s", tool, err);
}

cJSON *tool_list_files(mcp_msg *m, const cJSON *args) {
  static const char *const allowed[] = {"session_id", "path", "recursive", NULL};
  mcp_args a;
  args_init(&a, args, allowed);
  const char *sid = args_str(&a, "session_id", true, WASMBOX_ID_MAX - 1, NULL);
  const char *path = args_str(&a, "path", false, 4096, NULL);
  bool rec = args_bool(&a, "recursive", false);
  if (a.bad) return tool_error("list_files: %s", a.msg);
  if (!path) path = "/app";
  wasmbox_file_info *v = NULL;
  size_t n = 0;
  char err[512];
  int rc = mcp_session_access(m, sid, err, sizeof err);
  if (!rc) rc = wasmbox_session_list_files(m->srv->wb, sid, path, rec, &v, &n, err, sizeof err);
  if (rc) return lib_error("list_files", rc, err);
  cJSON *r = cJSON_CreateObject(), *arr = cJSON_CreateArray();
  for (size_t i = 0; r && arr && i < n; i++) {
    cJSON *o = cJSON_CreateObject();
    if (!o) break;
    cJSON_AddStringToObject(o, "path", v[i].path);
    cJSON_AddStringToObject(o, "type", v[i].is_dir ? "directory" : v[i].is_symlink ? "symlink" : "file");
    cJSON_AddNumberToObject(o, "size", (double)v[i].size);
    cJSON_AddNumberToObject(o, "mtime", v[i].mtime);
    cJSON_AddItemToArray(arr, o);
  }
  wasmbox_file_info_free(v, n);
  if (!r || !arr) {
    cJSON_Delete(r), cJSON_Delete(arr);
    return NULL;
  }
  cJSON_AddStringToObject(r, "session_id", sid);
  cJSON_AddStringToObject(r, "path", path);
  cJSON_AddItemToObject(r, "entries", arr);
  return tool_result(r, false);
}

cJSON *tool_read_file(mcp_msg *m, const cJSON *args) {
  static const char *const allowed[] = {"session_id", "path", "encoding", NULL};
  mcp_args a;
  args_init(&a, args, allowed);
  const char *sid = args_str(&a, "session_id", true, WASMBOX_ID_MAX - 1, NULL);
  const char *path = args_str(&a, "path", true, 4096, NULL);
  const char *enc = args_enum(&a, "encoding", encodings, "utf-8");
  if (a.bad) return tool_error("read_file: %s", a.msg);
  char *data = NULL, err[512];
  size_t len = 0;
  int rc = mcp_session_access(m, sid, err, sizeof err);
  if (!rc) rc = wasmbox_session_read_file(m->srv->wb, sid, path, &data, &len, err, sizeof err);
  if (rc) return lib_error("read_file", rc, err);
  cJSON *r = NULL;
  if (len > m->srv->cfg->max_file_bytes) {
    r = tool_error(
        "read_file: %s is %zu bytes, more than this server returns (%llu); have the code print or write "
        "the part you need",
        path, len, (unsigned long long)m->srv->cfg->max_file_bytes);
  } else if (!strcmp(enc, "utf-8") && (!rpc_utf8_valid(data, len) || memchr(data, 0, len))) {
    r = tool_error("read_file: %s is not UTF-8 text; read it with encoding \"base64\"", path);
  } else {
    char *b64 = strcmp(enc, "base64") ? NULL : b64_encode(data, len);
    cJSON *o = cJSON_CreateObject();
    if (o && (b64 || strcmp(enc, "base64"))) {
      cJSON_AddStringToObject(o, "session_id", sid);
      cJSON_AddStringToObject(o, "path", path);
      cJSON_AddStringToObject(o, "encoding", enc);
      cJSON_AddStringToObject(o, "content", b64 ? b64 : data);
      cJSON_AddNumberToObject(o, "size", (double)len);
      r = tool_result(o, false);
    } else {
      cJSON_Delete(o);
    }
    free(b64);
  }
  free(data);
  return r;
}

cJSON *tool_write_file(mcp_msg *m, const cJSON *args) {
  static const char *const allowed[] = {"session_id", "path", "content", "encoding", NULL};
  mcp_args a;
  args_init(&a, args, allowed);
  const char *sid = args_str(&a, "session_id", true, WASMBOX_ID_MAX - 1, NULL);
  const char *path = args_str(&a, "path", true, 4096, NULL);
  size_t clen = 0;
  const char *content = args_str(&a, "content", true, (size_t)m->srv->cfg->max_file_bytes * 4 / 3 + 4, &clen);
  const char *enc = args_enum(&a, "encoding", encodings, "utf-8");
  if (a.bad) return tool_error("write_file: %s", a.msg);
  const void *data = content;
  size_t len = clen;
  void *decoded = NULL;
  if (!strcmp(enc, "base64")) {
    decoded = b64_decode(content, clen, &len);
    if (!decoded) return tool_error("write_file: 'content' is not valid base64 (RFC 4648, padded, no whitespace)");
    data = decoded;
  }
  if (len > m->srv->cfg->max_file_bytes) {
    free(decoded);
    return tool_error("write_file: %zu bytes is more than this server accepts (%llu)", len,
                      (unsigned long long)m->srv->cfg->max_file_bytes);
  }
  char err[512];
  int rc = mcp_session_access(m, sid, err, sizeof err);
  if (!rc) rc = wasmbox_session_write_file(m->srv->wb, sid, path, data, len, err, sizeof err);
  free(decoded);
  if (rc) return lib_error("write_file", rc, err);
  cJSON *r = cJSON_CreateObject();
  if (!r) return NULL;
  cJSON_AddStringToObject(r, "session_id", sid);
  cJSON_AddStringToObject(r, "path", path);
  cJSON_AddNumberToObject(r, "size", (double)len);
  return tool_result(r, false);
}

cJSON *tool_reset_workspace(mcp_msg *m, const cJSON *args) {
  static const char *const allowed[] = {"session_id", NULL};
  mcp_args a;
  args_init(&a, args, allowed);
  const char *sid = args_str(&a, "session_id", true, WASMBOX_ID_MAX - 1, NULL);
  if (a.bad) return tool_error("reset_workspace: %s", a.msg);
  char err[512];
  int rc = mcp_session_access(m, sid, err, sizeof err);
  if (!rc) rc = wasmbox_session_reset_workspace(m->srv->wb, sid, err, sizeof err);
  if (rc) return lib_error("reset_workspace", rc, err);
  cJSON *r = cJSON_CreateObject();
  if (!r) return NULL;
  cJSON_AddStringToObject(r, "session_id", sid);
  cJSON_AddBoolToObject(r, "reset", true);
  return tool_result(r, false);
}
