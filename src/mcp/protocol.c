/* MCP over JSON-RPC (see server.h): which protocol era a message belongs to,
 * the checks each era demands, and the methods.
 *
 * Eras: up to 2025-11-25 a client initializes once and the connection (stdio,
 * or an HTTP Mcp-Session-Id) carries the negotiated version. From 2026-07-28
 * every request carries its protocol version and client capabilities in
 * params._meta, over HTTP mirrored in MCP-Protocol-Version, Mcp-Method and
 * Mcp-Name headers that must match the body. A message is handled under the
 * 2026 rules when its _meta says so, when it asks for a 2026-only method, or
 * when it reaches HTTP with neither a session nor an initialize. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/catalog.h"
#include "mcp/jsonrpc.h"
#include "mcp/tools.h"

#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPS "io.modelcontextprotocol/clientCapabilities"
#define META_INFO "io.modelcontextprotocol/clientInfo"
#define META_LOG "io.modelcontextprotocol/logLevel"
#define META_SERVER "io.modelcontextprotocol/serverInfo"

const char *const mcp_legacy_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL};

static const char *const all_versions[] = {MCP_STATELESS_VERSION, "2025-11-25", "2025-06-18",
                                           "2025-03-26",          "2024-11-05", NULL};

static const char instructions[] =
    "wasmbox runs Python 3.11 and JavaScript (QuickJS) in a WebAssembly sandbox: no network, no host files "
    "except /app (the workspace) and read-only /external; Python has the standard library and built-in "
    "pure-Python packages (list_runtimes lists them). Use execute_code for anything "
    "that needs computing or checking. For multi-step work create_session once and pass session_id to each call; "
    "variables and files persist. Failed runs come back with isError and error.guidance.";

static const char *known(const char *v, const char *const *list) {
  for (const char *const *p = list; v && *p; p++)
    if (!strcmp(*p, v)) return *p;
  return NULL;
}

static cJSON *server_info(void) {
  cJSON *i = cJSON_CreateObject();
  if (!i) return NULL;
  cJSON_AddStringToObject(i, "name", MCP_SERVER_NAME);
  cJSON_AddStringToObject(i, "title", "wasmbox code sandbox");
  cJSON_AddStringToObject(i, "version", MCP_SERVER_VERSION);
  return i;
}

static cJSON *capabilities(void) {
  cJSON *c = cJSON_CreateObject(), *t = cJSON_CreateObject(), *r = cJSON_CreateObject(), *p = cJSON_CreateObject();
  if (!c || !t || !r || !p) {
    cJSON_Delete(c), cJSON_Delete(t), cJSON_Delete(r), cJSON_Delete(p);
    return NULL;
  }
  cJSON_AddBoolToObject(t, "listChanged", false);
  cJSON_AddBoolToObject(r, "listChanged", false);
  cJSON_AddBoolToObject(r, "subscribe", false);
  cJSON_AddBoolToObject(p, "listChanged", false);
  cJSON_AddItemToObject(c, "tools", t);
  cJSON_AddItemToObject(c, "resources", r);
  cJSON_AddItemToObject(c, "prompts", p);
  cJSON_AddItemToObject(c, "completions", cJSON_CreateObject());
  cJSON_AddItemToObject(c, "logging", cJSON_CreateObject());
  return c;
}

static cJSON *versions_array(void) {
  cJSON *a = cJSON_CreateArray();
  for (const char *const *v = all_versions; a && *v; v++) cJSON_AddItemToArray(a, cJSON_CreateString(*v));
  return a;
}

/* An error response; over HTTP with the status the era asks for. */
static cJSON *fail(mcp_msg *m, const cJSON *id, int code, const char *message, cJSON *data) {
  if (m->http) {
    if (m->stateless) m->http_status = code == RPC_METHOD_NOT_FOUND ? 404 : code == RPC_INTERNAL_ERROR ? 500 : 400;
    else if (code == RPC_INVALID_REQUEST || code == RPC_PARSE_ERROR) m->http_status = 400;
  }
  mcp_metrics_request(&m->srv->metrics, 1);
  return rpc_error(id, code, message, data);
}

static cJSON *fail_fault(mcp_msg *m, const cJSON *id, mcp_fault *f) {
  return fail(m, id, f->code ? f->code : RPC_INTERNAL_ERROR, f->code ? f->message : "out of memory", f->data);
}

/* Trim RFC 9110 optional whitespace. */
static bool header_equals(const char *h, const char *v) {
  while (*h == ' ' || *h == '\t') h++;
  size_t n = strlen(h);
  while (n && (h[n - 1] == ' ' || h[n - 1] == '\t')) n--;
  return n == strlen(v) && !memcmp(h, v, n);
}

/* The 2026-07-28 checks of one request: _meta, then the headers, then the
 * version. NULL when it may proceed, else the error response. */
static cJSON *check_stateless(mcp_msg *m, const cJSON *id, const char *method, const cJSON *params) {
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
  const cJSON *ver = cJSON_GetObjectItemCaseSensitive(meta, META_VERSION);
  const cJSON *caps = cJSON_GetObjectItemCaseSensitive(meta, META_CAPS);
  const cJSON *info = cJSON_GetObjectItemCaseSensitive(meta, META_INFO);
  const cJSON *log = cJSON_GetObjectItemCaseSensitive(meta, META_LOG);
  if (!cJSON_IsObject(meta))
    return fail(m, id, RPC_INVALID_PARAMS,
                "params._meta is required: either send initialize first (protocol 2025-11-25 and earlier) or put "
                "\"" META_VERSION "\" and \"" META_CAPS "\" in params._meta of every request (2026-07-28)",
                NULL);
  if (!cJSON_IsString(ver))
    return fail(m, id, RPC_INVALID_PARAMS, "params._meta[\"" META_VERSION "\"] is required (a string)", NULL);
  if (!cJSON_IsObject(caps))
    return fail(m, id, RPC_INVALID_PARAMS, "params._meta[\"" META_CAPS "\"] is required (an object)", NULL);
  if (info && !cJSON_IsObject(info))
    return fail(m, id, RPC_INVALID_PARAMS, "params._meta[\"" META_INFO "\"] must be an object", NULL);
  if (log) {
    int level = cJSON_IsString(log) ? mcp_log_level_parse(log->valuestring) : MCP_LOG_NONE - 1;
    if (level < MCP_LOG_DEBUG)
      return fail(m, id, RPC_INVALID_PARAMS, "params._meta[\"" META_LOG "\"] is not a log level", NULL);
    m->log_level = level;
  }
  if (m->http) {
    if (!m->h_version || !header_equals(m->h_version, ver->valuestring))
      return fail(m, id, MCP_HEADER_MISMATCH,
                  "Header mismatch: the MCP-Protocol-Version header must equal params._meta[\"" META_VERSION "\"]",
                  NULL);
  }
  if (strcmp(ver->valuestring, MCP_STATELESS_VERSION)) {
    cJSON *data = cJSON_CreateObject();
    if (data) {
      cJSON_AddItemToObject(data, "supported", versions_array());
      cJSON_AddStringToObject(data, "requested", ver->valuestring);
    }
    char msg[160];
    snprintf(msg, sizeof msg, "Unsupported protocol version '%.40s' for stateless requests (use %s, or initialize)",
             ver->valuestring, MCP_STATELESS_VERSION);
    return fail(m, id, MCP_UNSUPPORTED_VERSION, msg, data);
  }
  if (m->http) {
    if (!m->h_method || !header_equals(m->h_method, method))
      return fail(m, id, MCP_HEADER_MISMATCH, "Header mismatch: the Mcp-Method header must equal the method", NULL);
    const char *key = !strcmp(method, "tools/call") || !strcmp(method, "prompts/get") ? "name"
                      : !strcmp(method, "resources/read")                             ? "uri"
                                                                                      : NULL;
    const cJSON *name = key ? cJSON_GetObjectItemCaseSensitive(params, key) : NULL;
    if (cJSON_IsString(name) && (!m->h_name || !header_equals(m->h_name, name->valuestring)))
      return fail(m, id, MCP_HEADER_MISMATCH, "Header mismatch: the Mcp-Name header must equal params.name (or uri)",
                  NULL);
  }
  m->version = MCP_STATELESS_VERSION;
  return NULL;
}

/* The result in the shape of this message's era. */
static cJSON *finish(mcp_msg *m, const cJSON *id, cJSON *result, bool cacheable, bool public_cache) {
  if (!result) return fail(m, id, RPC_INTERNAL_ERROR, "out of memory", NULL);
  if (m->stateless) {
    cJSON_AddStringToObject(result, "resultType", "complete");
    if (cacheable) {
      cJSON_AddNumberToObject(result, "ttlMs", public_cache ? 3600000 : 0);
      cJSON_AddStringToObject(result, "cacheScope", public_cache ? "public" : "private");
    }
  }
  mcp_metrics_request(&m->srv->metrics, 0);
  return rpc_result(id, result);
}

static cJSON *initialize(mcp_msg *m, const cJSON *id, const cJSON *params) {
  const cJSON *pv = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
  if (!cJSON_IsString(pv)) return fail(m, id, RPC_INVALID_PARAMS, "initialize needs params.protocolVersion", NULL);
  const cJSON *caps = cJSON_GetObjectItemCaseSensitive(params, "capabilities");
  if (caps && !cJSON_IsObject(caps))
    return fail(m, id, RPC_INVALID_PARAMS, "params.capabilities must be an object", NULL);
  /* the client's version when we speak it, else our latest (the client decides) */
  const char *v = known(pv->valuestring, mcp_legacy_versions);
  if (!v) v = MCP_LATEST_LEGACY;
  mcp_conn *c = m->conn;
  if (m->http && !c) {
    c = mcp_conn_create(m->srv, v);
    if (!c) return fail(m, id, RPC_SERVER_BUSY, "too many MCP sessions in use; try again later", NULL);
    m->conn = c;
    memcpy(m->new_session, c->id, sizeof m->new_session);
  }
  snprintf(c->version, sizeof c->version, "%s", v);
  cJSON *r = cJSON_CreateObject();
  if (!r) return fail(m, id, RPC_INTERNAL_ERROR, "out of memory", NULL);
  cJSON_AddStringToObject(r, "protocolVersion", v);
  cJSON_AddItemToObject(r, "capabilities", capabilities());
  cJSON_AddItemToObject(r, "serverInfo", server_info());
  cJSON_AddStringToObject(r, "instructions", instructions);
  mcp_log(m->srv, MCP_LOG_INFO, "client initialized with protocol %s%s%s", v, m->new_session[0] ? ", session " : "",
          m->new_session);
  return finish(m, id, r, false, false);
}

static cJSON *discover(mcp_msg *m, const cJSON *id) {
  cJSON *r = cJSON_CreateObject(), *meta = cJSON_CreateObject();
  if (!r || !meta) {
    cJSON_Delete(r), cJSON_Delete(meta);
    return fail(m, id, RPC_INTERNAL_ERROR, "out of memory", NULL);
  }
  cJSON_AddItemToObject(r, "supportedVersions", versions_array());
  cJSON_AddItemToObject(r, "capabilities", capabilities());
  cJSON_AddStringToObject(r, "instructions", instructions);
  cJSON_AddItemToObject(meta, META_SERVER, server_info());
  cJSON_AddItemToObject(r, "_meta", meta);
  return finish(m, id, r, true, true);
}

static cJSON *call_tool(mcp_msg *m, const cJSON *id, const cJSON *params) {
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
  const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
  if (!cJSON_IsString(name)) return fail(m, id, RPC_INVALID_PARAMS, "tools/call needs params.name (a string)", NULL);
  const mcp_tool *t = mcp_tool_find(m->srv, name->valuestring);
  if (!t) {
    char msg[200];
    snprintf(msg, sizeof msg, "Unknown tool '%.64s' (tools/list shows the tools)", name->valuestring);
    return fail(m, id, RPC_INVALID_PARAMS, msg, NULL);
  }
  if (args && !cJSON_IsObject(args) && !cJSON_IsNull(args))
    return fail(m, id, RPC_INVALID_PARAMS, "params.arguments must be an object", NULL);
  /* a token, registered so notifications/cancelled (or a client that goes
   * away) can stop the call */
  char *key = rpc_print(id);
  const char *conn = m->conn ? m->conn->id : "";
  m->cancel = wasmbox_cancel_new();
  bool registered = key && m->cancel && (!m->http || m->conn) && mcp_inflight_add(m->srv, conn, key, m->cancel);
  if (m->watch && m->cancel) m->watch(m, true);
  cJSON *r = mcp_tool_call(m, t, args);
  if (m->watch && m->cancel) m->watch(m, false);
  if (registered) mcp_inflight_remove(m->srv, conn, key);
  cJSON_free(key);
  wasmbox_cancel_free(m->cancel);
  m->cancel = NULL;
  if (m->no_response) {
    cJSON_Delete(r);
    return NULL;
  }
  return finish(m, id, r, false, false);
}

static cJSON *set_level(mcp_msg *m, const cJSON *id, const cJSON *params) {
  const cJSON *l = cJSON_GetObjectItemCaseSensitive(params, "level");
  int level = cJSON_IsString(l) ? mcp_log_level_parse(l->valuestring) : MCP_LOG_NONE - 1;
  if (level < MCP_LOG_DEBUG)
    return fail(m, id, RPC_INVALID_PARAMS,
                "params.level must be one of debug, info, notice, warning, error, critical, alert, emergency", NULL);
  if (m->conn) atomic_store(&m->conn->log_level, level);
  return finish(m, id, cJSON_CreateObject(), false, false);
}

static void notification(mcp_msg *m, const char *method, const cJSON *params) {
  if (!strcmp(method, "notifications/initialized")) {
    if (m->conn) atomic_store(&m->conn->initialized, true);
  } else if (!strcmp(method, "notifications/cancelled")) {
    /* over HTTP without a session nothing tells two clients apart, and
     * request ids repeat: there a call is cancelled by hanging up */
    if (m->http && !m->conn) return;
    const cJSON *rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
    char *key = rid ? rpc_print(rid) : NULL;
    if (key && mcp_inflight_cancel(m->srv, m->conn ? m->conn->id : "", key))
      mcp_log(m->srv, MCP_LOG_INFO, "request %s cancelled by the client", key);
    cJSON_free(key);
  }
  /* other notifications (progress, roots changed) need nothing from us */
}

static bool is_stateless(mcp_msg *m, const char *method, const cJSON *params) {
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
  if (cJSON_GetObjectItemCaseSensitive(meta, META_VERSION) || cJSON_GetObjectItemCaseSensitive(meta, META_CAPS))
    return true;
  if (!strcmp(method, "server/discover") || !strcmp(method, "subscriptions/listen")) return true;
  if (m->http && !m->conn && strcmp(method, "initialize")) return true;
  return false;
}

cJSON *mcp_handle(mcp_msg *m, const cJSON *msg) {
  const cJSON *id = NULL;
  const char *why = NULL;
  m->log_level = m->conn ? atomic_load(&m->conn->log_level) : MCP_LOG_NONE;
  m->version = m->conn && m->conn->version[0] ? m->conn->version : NULL;
  rpc_kind kind = rpc_check(msg, &id, &why);
  if (kind == RPC_INVALID) {
    if (m->http) m->http_status = 400;
    mcp_metrics_request(&m->srv->metrics, 1);
    return rpc_error(id, RPC_INVALID_REQUEST, why, NULL);
  }
  if (kind == RPC_RESPONSE) return NULL; /* we never send requests, so nothing awaits one */
  const char *method = cJSON_GetObjectItemCaseSensitive(msg, "method")->valuestring;
  const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
  m->stateless = is_stateless(m, method, params);
  if (kind == RPC_NOTIFICATION) {
    notification(m, method, params);
    return NULL;
  }
  if (m->stateless) {
    cJSON *e = check_stateless(m, id, method, params);
    if (e) return e;
  } else if (m->http && m->h_version && !known(m->h_version, mcp_legacy_versions)) {
    m->http_status = 400;
    return fail(m, id, RPC_INVALID_REQUEST, "Unsupported MCP-Protocol-Version header for this session", NULL);
  }
  if (!strcmp(method, "tools/call")) return call_tool(m, id, params);
  if (!strcmp(method, "tools/list")) {
    cJSON *r = cJSON_CreateObject(), *tools = mcp_tools_list(m->srv);
    if (r && tools) cJSON_AddItemToObject(r, "tools", tools);
    else cJSON_Delete(r), cJSON_Delete(tools), r = NULL;
    return finish(m, id, r, true, true);
  }
  if (!m->stateless) {
    if (!strcmp(method, "initialize")) return initialize(m, id, params);
    if (!strcmp(method, "ping")) return finish(m, id, cJSON_CreateObject(), false, false);
    if (!strcmp(method, "logging/setLevel")) return set_level(m, id, params);
  } else if (!strcmp(method, "server/discover")) {
    return discover(m, id);
  }
  mcp_fault f = {0};
  cJSON *r = NULL;
  bool cache = true, pub = true;
  if (!strcmp(method, "resources/list")) r = mcp_resources_list(m, params, &f), pub = false;
  else if (!strcmp(method, "resources/templates/list")) r = mcp_resource_templates_list(m, params, &f);
  else if (!strcmp(method, "resources/read")) r = mcp_resource_read(m, params, &f), pub = false;
  else if (!strcmp(method, "prompts/list")) r = mcp_prompts_list(m, params, &f);
  else if (!strcmp(method, "prompts/get")) r = mcp_prompt_get(m, params, &f), cache = false;
  else if (!strcmp(method, "completion/complete")) r = mcp_complete(m, params, &f), cache = false;
  else {
    char msg2[200];
    snprintf(msg2, sizeof msg2, "Method not found: %.100s", method);
    return fail(m, id, RPC_METHOD_NOT_FOUND, msg2, NULL);
  }
  if (!r) return fail_fault(m, id, &f);
  return finish(m, id, r, cache, pub);
}
