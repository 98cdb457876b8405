/* Session files as MCP resources (see catalog.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mcp/base64.h"
#include "mcp/catalog.h"
#include "mcp/jsonrpc.h"

#define URI_PREFIX "wasmbox://session/"
#define PAGE 100
#define LIST_MAX 5000

static void fault(mcp_fault *f, int code, const char *msg, const char *uri) {
  f->code = code;
  snprintf(f->message, sizeof f->message, "%.500s", msg);
  if (uri) {
    f->data = cJSON_CreateObject();
    if (f->data) cJSON_AddStringToObject(f->data, "uri", uri);
  }
}

static const char *mime_of(const char *path) {
  static const struct {
    const char *ext, *mime;
  } map[] = {{".png", "image/png"},         {".svg", "image/svg+xml"},   {".jpg", "image/jpeg"},
             {".jpeg", "image/jpeg"},       {".gif", "image/gif"},       {".webp", "image/webp"},
             {".json", "application/json"}, {".csv", "text/csv"},        {".txt", "text/plain"},
             {".md", "text/markdown"},      {".html", "text/html"},      {".py", "text/x-python"},
             {".js", "text/javascript"},    {".mjs", "text/javascript"}, {".xml", "application/xml"},
             {".pdf", "application/pdf"}};
  const char *dot = strrchr(path, '.');
  for (size_t i = 0; dot && i < sizeof map / sizeof map[0]; i++)
    if (!strcasecmp(dot, map[i].ext)) return map[i].mime;
  return NULL;
}

/* Percent-encode a guest path so the URI is valid; '/' stays. */
static char *uri_of(const char *sid, const char *path) {
  size_t n = strlen(URI_PREFIX) + strlen(sid) + 3 * strlen(path) + 1;
  char *u = malloc(n), *o;
  if (!u) return NULL;
  o = u + sprintf(u, URI_PREFIX "%s", sid);
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
      *o++ = (char)*p;
    else o += sprintf(o, "%%%02X", *p);
  }
  *o = 0;
  return u;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* wasmbox://session/ID/app/PATH -> id and guest path (/app/PATH). */
static bool parse_uri(const char *uri, char sid[WASMBOX_ID_MAX], char **path) {
  if (strncmp(uri, URI_PREFIX, strlen(URI_PREFIX))) return false;
  const char *p = uri + strlen(URI_PREFIX), *slash = strchr(p, '/');
  if (!slash || slash == p || (size_t)(slash - p) >= WASMBOX_ID_MAX) return false;
  memcpy(sid, p, (size_t)(slash - p));
  sid[slash - p] = 0;
  if (strncmp(slash, "/app", 4) || (slash[4] && slash[4] != '/')) return false;
  char *out = malloc(strlen(slash) + 1), *o = out;
  if (!out) return false;
  for (const char *q = slash; *q; q++) {
    if (*q == '%') {
      int h = hexval(q[1]), l = h < 0 ? -1 : hexval(q[2]);
      if (l < 0 || (h == 0 && l == 0)) {
        free(out);
        return false;
      }
      *o++ = (char)(h * 16 + l);
      q += 2;
    } else {
      *o++ = *q;
    }
  }
  *o = 0;
  *path = out;
  return true;
}

cJSON *mcp_resources_list(mcp_msg *m, const cJSON *params, mcp_fault *f) {
  const cJSON *cur = cJSON_GetObjectItemCaseSensitive(params, "cursor");
  long start = 0;
  if (cur) {
    char *end = NULL;
    start = cJSON_IsString(cur) ? strtol(cur->valuestring, &end, 10) : -1;
    if (!cJSON_IsString(cur) || *end || start < 0 || start > LIST_MAX) {
      fault(f, RPC_INVALID_PARAMS, "invalid cursor", NULL);
      return NULL;
    }
  }
  wasmbox_session_info *all = NULL;
  size_t n = 0;
  char err[512];
  if (wasmbox_session_list(m->srv->wb, &all, &n, err, sizeof err)) {
    fault(f, RPC_INTERNAL_ERROR, err, NULL);
    return NULL;
  }
  cJSON *r = cJSON_CreateObject(), *arr = cJSON_CreateArray();
  long idx = 0;
  bool more = false;
  for (size_t i = 0; r && arr && i < n && !more; i++) {
    wasmbox_file_info *v = NULL;
    size_t k = 0;
    if (!mcp_owns(m, all[i].owner)) continue;
    if (wasmbox_session_list_files(m->srv->wb, all[i].id, "/app", true, &v, &k, err, sizeof err)) continue;
    for (size_t j = 0; j < k && !more; j++) {
      if (v[j].is_dir) continue;
      if (idx++ < start) continue;
      if (cJSON_GetArraySize(arr) == PAGE || idx > LIST_MAX) {
        more = idx <= LIST_MAX;
        break;
      }
      char *uri = uri_of(all[i].id, v[j].path);
      cJSON *o = cJSON_CreateObject();
      if (!uri || !o) {
        free(uri);
        cJSON_Delete(o);
        continue;
      }
      char desc[160];
      snprintf(desc, sizeof desc, "A file in the workspace of %s session %s", all[i].language, all[i].id);
      cJSON_AddStringToObject(o, "uri", uri);
      cJSON_AddStringToObject(o, "name", v[j].path);
      cJSON_AddStringToObject(o, "description", desc);
      const char *mime = mime_of(v[j].path);
      if (mime) cJSON_AddStringToObject(o, "mimeType", mime);
      cJSON_AddNumberToObject(o, "size", (double)v[j].size);
      cJSON_AddItemToArray(arr, o);
      free(uri);
    }
    wasmbox_file_info_free(v, k);
  }
  free(all);
  if (!r || !arr) {
    cJSON_Delete(r), cJSON_Delete(arr);
    return NULL;
  }
  cJSON_AddItemToObject(r, "resources", arr);
  if (more) {
    char next[32];
    snprintf(next, sizeof next, "%ld", start + PAGE);
    cJSON_AddStringToObject(r, "nextCursor", next);
  }
  return r;
}

cJSON *mcp_resource_templates_list(mcp_msg *m, const cJSON *params, mcp_fault *f) {
  (void)m, (void)params, (void)f;
  cJSON *r = cJSON_CreateObject(), *arr = cJSON_CreateArray(), *t = cJSON_CreateObject();
  if (!r || !arr || !t) {
    cJSON_Delete(r), cJSON_Delete(arr), cJSON_Delete(t);
    return NULL;
  }
  cJSON_AddStringToObject(t, "uriTemplate", URI_PREFIX "{session_id}/app/{+path}");
  cJSON_AddStringToObject(t, "name", "session-file");
  cJSON_AddStringToObject(t, "title", "A file in a session's workspace");
  cJSON_AddStringToObject(t, "description",
                          "A file the code of a session wrote or was given, by session id and path under /app.");
  cJSON_AddItemToArray(arr, t);
  cJSON_AddItemToObject(r, "resourceTemplates", arr);
  return r;
}

cJSON *mcp_resource_read(mcp_msg *m, const cJSON *params, mcp_fault *f) {
  const cJSON *u = cJSON_GetObjectItemCaseSensitive(params, "uri");
  if (!cJSON_IsString(u)) {
    fault(f, RPC_INVALID_PARAMS, "resources/read needs params.uri (a string)", NULL);
    return NULL;
  }
  char sid[WASMBOX_ID_MAX], *path = NULL, err[512];
  if (!parse_uri(u->valuestring, sid, &path)) {
    fault(f, RPC_INVALID_PARAMS, "Resource not found: this server has only wasmbox://session/{session_id}/app/{path}",
          u->valuestring);
    return NULL;
  }
  char *data = NULL;
  size_t len = 0;
  int rc = mcp_session_access(m, sid, err, sizeof err);
  if (!rc) rc = wasmbox_session_read_file(m->srv->wb, sid, path, &data, &len, err, sizeof err);
  if (rc) {
    char msg[600];
    snprintf(msg, sizeof msg, "Resource not found: %s", err);
    fault(f, rc == WASMBOX_EUSAGE ? RPC_INVALID_PARAMS : RPC_INTERNAL_ERROR, msg, u->valuestring);
    free(path);
    return NULL;
  }
  if (len > m->srv->cfg->max_file_bytes) {
    fault(f, RPC_INVALID_PARAMS, "Resource too large for this server (see --max-file-bytes)", u->valuestring);
    free(path), free(data);
    return NULL;
  }
  const char *mime = mime_of(path);
  bool text = rpc_utf8_valid(data, len) && !memchr(data, 0, len) &&
              (!mime || strncmp(mime, "image/", 6) || !strcmp(mime, "image/svg+xml"));
  cJSON *r = cJSON_CreateObject(), *arr = cJSON_CreateArray(), *c = cJSON_CreateObject();
  char *b64 = text ? NULL : b64_encode(data, len);
  if (!r || !arr || !c || (!text && !b64)) {
    cJSON_Delete(r), cJSON_Delete(arr), cJSON_Delete(c);
    free(path), free(data), free(b64);
    return NULL;
  }
  cJSON_AddStringToObject(c, "uri", u->valuestring);
  cJSON_AddStringToObject(c, "mimeType", mime ? mime : text ? "text/plain" : "application/octet-stream");
  cJSON_AddStringToObject(c, text ? "text" : "blob", text ? data : b64);
  cJSON_AddItemToArray(arr, c);
  cJSON_AddItemToObject(r, "contents", arr);
  free(path), free(data), free(b64);
  return r;
}
