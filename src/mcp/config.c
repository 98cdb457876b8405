/* MCP server settings (see config.h): one table drives the defaults, the
 * config file, the environment, the flags and the help text, so the four can
 * never disagree. */
#include "mcp/config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#include <wasmbox.h>

#include "mcp/jsonrpc.h"
#include "util/fail.h"
#include "util/options.h"

/* tags: which command takes an option (none: both) */
enum { SERVE_ONLY = 1, MCP_ONLY = 2 };
#define OFF(f) offsetof(mcp_config, f)
static const wb_option options[] = {
    {"--listen", WB_OPT_TEXT, OFF(listen), sizeof(((mcp_config *)0)->listen), 0, 0, 0, NULL, "HOST:PORT",
     "address to serve MCP on, at /mcp (default 127.0.0.1:8765; port 0 picks a free one). Addresses other than "
     "loopback need --token, --tokens or --oauth-issuer",
     SERVE_ONLY},
    {"--token", WB_OPT_TEXT, OFF(token), sizeof(((mcp_config *)0)->token), 0, 0, 0, NULL, "TOKEN",
     "require 'Authorization: Bearer TOKEN' on every request (also $WASMBOX_MCP_TOKEN)", SERVE_ONLY},
    {"--tokens", WB_OPT_TEXT, OFF(tokens), sizeof(((mcp_config *)0)->tokens), 0, 0, 0, NULL, "FILE",
     "one client per line: NAME TOKEN [rate=N/s|N/m|N/h] [burst=N] [max-in-flight=N] [role=admin]; each bearer token names "
     "its client (logs, metrics) and its limits (429 with Retry-After beyond them); the file must not be "
     "readable by others",
     SERVE_ONLY},
    {"--allow-anonymous", WB_OPT_FLAG, OFF(allow_anonymous), 0, 0, 0, 0, NULL, NULL,
     "serve without --token or --tokens on loopback even with --upstream or --store (refused otherwise: any "
     "local process could use the operator's tools and every stored session)",
     SERVE_ONLY},
    {"--oauth-issuer", WB_OPT_TEXT, OFF(oauth_issuer), sizeof(((mcp_config *)0)->oauth_issuer), 0, 0, 0, NULL, "URL",
     "also accept OAuth 2.1 access tokens (JWTs) from this authorization server (its iss); needs --oauth-jwks and "
     "--oauth-resource. The identity is oauth:CLAIM; 401s point clients to "
     "/.well-known/oauth-protected-resource",
     SERVE_ONLY},
    {"--oauth-jwks", WB_OPT_TEXT, OFF(oauth_jwks), sizeof(((mcp_config *)0)->oauth_jwks), 0, 0, 0, NULL, "URL|FILE",
     "the issuer's signing keys (JWKS): an https URL (http on loopback), fetched again for an unknown kid at most "
     "every 10 s, or a file not writable by others",
     SERVE_ONLY},
    {"--oauth-resource", WB_OPT_TEXT, OFF(oauth_resource), sizeof(((mcp_config *)0)->oauth_resource), 0, 0, 0, NULL,
     "URL", "this server's URL as clients reach it (e.g. https://mcp.example.com/mcp): tokens must name it in aud",
     SERVE_ONLY},
    {"--oauth-claim", WB_OPT_TEXT, OFF(oauth_claim), sizeof(((mcp_config *)0)->oauth_claim), 0, 0, 0, NULL, "NAME",
     "the token claim that names the client (default sub)", SERVE_ONLY},
    {"--oauth-scopes", WB_OPT_TEXT, OFF(oauth_scopes), sizeof(((mcp_config *)0)->oauth_scopes), 0, 0, 0, NULL, "SCOPES",
     "scopes every token must carry (separated by spaces or commas; 403 without them), also advertised", SERVE_ONLY},
    {"--access-log", WB_OPT_TEXT, OFF(access_log), sizeof(((mcp_config *)0)->access_log), 0, 0, 0, NULL, "FILE",
     "one JSON line per HTTP request (time, client, status, tool, sessions, duration, fuel, bytes): appended to "
     "FILE, or '-' for stderr",
     SERVE_ONLY},
    {"--session-key", WB_OPT_TEXT, OFF(session_key), sizeof(((mcp_config *)0)->session_key), 0, 0, 0, NULL, "FILE",
     "sign MCP session ids (Mcp-Session-Id) with the secret in FILE (32 bytes or more, not readable by others): "
     "servers behind one balancer that share the file and the state directory take up each other's sessions",
     SERVE_ONLY},
    {"--no-playground", WB_OPT_FLAG, OFF(no_playground), 0, 0, 0, 0, NULL, NULL,
     "do not serve the playground page at / (a code editor that runs through /mcp, with the same checks)", SERVE_ONLY},
    {"--allow-origin", WB_OPT_LIST, OFF(origins), OFF(n_origins), MCP_MAX_LIST, 0, 0, NULL, "ORIGIN",
     "also accept browser requests from ORIGIN (repeatable); loopback origins always are", SERVE_ONLY},
    {"--max-connections", WB_OPT_U64, OFF(max_connections), 0, 0, 1, 10000, NULL, "N",
     "open HTTP connections (default 256)", SERVE_ONLY},
    {"--idle-timeout", WB_OPT_DOUBLE, OFF(idle_timeout), 0, 0, 0.1, 3600, NULL, "SECONDS",
     "close an HTTP connection silent this long (default 30)", SERVE_ONLY},
    {"--request-timeout", WB_OPT_DOUBLE, OFF(request_timeout), 0, 0, 0.1, 3600, NULL, "SECONDS",
     "time allowed to send one request body (default 60)", SERVE_ONLY},
    {"--max-sessions", WB_OPT_U64, OFF(max_sessions), 0, 0, 1, 1000000, NULL, "N",
     "MCP sessions (Mcp-Session-Id) kept; the least recently used goes first (default 1024)", SERVE_ONLY},
    {"--workers", WB_OPT_U64, OFF(workers), 0, 0, 1, 256, NULL, "N", "requests run in parallel (default 8)", MCP_ONLY},
    {"--max-request-bytes", WB_OPT_U64, OFF(max_request_bytes), 0, 0, 1024, 1ull << 30, NULL, "BYTES",
     "largest request accepted (default 16777216)", 0},
    {"--timeout", WB_OPT_DOUBLE, OFF(timeout), 0, 0, 0.001, 86400, NULL, "SECONDS",
     "execute_code time limit when the call names none (default 30)", 0},
    {"--max-timeout", WB_OPT_DOUBLE, OFF(max_timeout), 0, 0, 0.001, 86400, NULL, "SECONDS",
     "largest timeout_seconds a call may ask for (default 300)", 0},
    {"--memory", WB_OPT_U64, OFF(memory_mb), 0, 0, 1, 4096, NULL, "MB",
     "memory limit when the call names none (default 256)", 0},
    {"--max-memory", WB_OPT_U64, OFF(max_memory_mb), 0, 0, 1, 4096, NULL, "MB",
     "largest memory_mb a call may ask for (default 1024)", 0},
    {"--fuel", WB_OPT_U64, OFF(fuel), 0, 0, 1, 1ull << 53, NULL, "N",
     "instruction budget when the call names none (default: none, the timeout binds)", 0},
    {"--max-fuel", WB_OPT_U64, OFF(max_fuel), 0, 0, 1, 1ull << 53, NULL, "N",
     "largest fuel a call may ask for (default 2^53)", 0},
    {"--max-output", WB_OPT_U64, OFF(max_output_bytes), 0, 0, 1, 1ull << 30, NULL, "BYTES",
     "stdout and stderr kept per call, each (default 1048576)", 0},
    {"--max-file-bytes", WB_OPT_U64, OFF(max_file_bytes), 0, 0, 1, 64ull << 20, NULL, "BYTES",
     "largest file read_file returns or write_file accepts (default 16777216)", 0},
    {"--max-image-bytes", WB_OPT_U64, OFF(max_image_bytes), 0, 0, 0, 64ull << 20, NULL, "BYTES",
     "images the code writes up to this size come back as image content (default 1048576; 0: never)", 0},
    {"--session-ttl", WB_OPT_DOUBLE, OFF(session_ttl), 0, 0, 1, 365 * 86400.0, NULL, "SECONDS",
     "idle time after which a session may be removed, when create_session names none (default 86400)", 0},
    {"--external-files", WB_OPT_LIST, OFF(external), OFF(n_external), MCP_MAX_LIST, 0, 0, NULL, "PATH...",
     "copy these host files or directories, read-only, to /external in every call and session (symlinks are "
     "refused)",
     0},
    {"--packages", WB_OPT_LIST, OFF(packages), OFF(n_packages), MCP_MAX_LIST, 0, 0, NULL, "DIR",
     "Python: a directory of pure-Python packages or py3-none-any wheels, read-only on sys.path in every Python "
     "call and session (repeatable, at most 4)",
     0},
    {"--allow-imports", WB_OPT_LIST, OFF(allow_imports), OFF(n_allow_imports), MCP_MAX_LIST, 0, 0, NULL, "MODULE",
     "Python calls may import only these top-level modules (repeatable); checked before and while the code runs. "
     "A policy for eval harnesses, not the sandbox's security boundary",
     0},
    {"--deny-imports", WB_OPT_LIST, OFF(deny_imports), OFF(n_deny_imports), MCP_MAX_LIST, 0, 0, NULL, "MODULE",
     "Python calls may not import these top-level modules (repeatable)", 0},
    {"--deny-builtins", WB_OPT_LIST, OFF(deny_builtins), OFF(n_deny_builtins), MCP_MAX_LIST, 0, 0, NULL, "NAME",
     "Python calls may not call these builtins, e.g. eval, exec, compile (repeatable)", 0},
    {"--upstream", WB_OPT_TEXT, OFF(upstream), sizeof(((mcp_config *)0)->upstream), 0, 0, 0, NULL, "FILE",
     "code mode: the MCP servers of this mcpServers JSON file (Claude Desktop, Claude Code and Cursor write it) "
     "become tools the sandboxed code can call (Python: from wasmbox import tools; JavaScript: tools). Each "
     "server's \"allowed_tools\" patterns (or --allow-tools) say which; none by default",
     0},
    {"--allow-tools", WB_OPT_LIST, OFF(allow_tools), OFF(n_allow_tools), MCP_MAX_LIST, 0, 0, NULL, "PATTERN",
     "code mode: upstream tools the code may call, by server__tool name: shell globs, '!' in front excludes "
     "(repeatable; adds to each server's allowed_tools)",
     0},
    {"--approve-destructive", WB_OPT_FLAG, OFF(approve_destructive), 0, 0, 0, 0, NULL, NULL,
     "code mode: calls of upstream tools marked destructive (annotations.destructiveHint) wait for approval: "
     "execute_code returns status paused with a resume_token for resume_execution (a server's own "
     "\"requires_approval\" patterns do so always)",
     0},
    {"--tool-audit", WB_OPT_TEXT, OFF(tool_audit), sizeof(((mcp_config *)0)->tool_audit), 0, 0, 0, NULL, "FILE",
     "code mode: append a JSON line per tool call (time, session, tool, argument size and SHA-256, duration, "
     "outcome) to FILE ('-': stderr)",
     0},
    {"--tool-audit-max-bytes", WB_OPT_U64, OFF(tool_audit_max_bytes), 0, 0, 0, 1ull << 40, NULL, "BYTES",
     "rotate the audit file to FILE.1 past this size (default 67108864; 0: never)", 0},
    {"--max-tool-calls", WB_OPT_U64, OFF(max_tool_calls), 0, 0, 1, WASMBOX_MAX_TOOL_CALLS, NULL, "N",
     "code mode: tool calls one execute_code may make (default 100)", 0},
    {"--external-max-bytes", WB_OPT_U64, OFF(external_max_bytes), 0, 0, 0, 1ull << 40, NULL, "BYTES",
     "total size allowed for --external-files (default 268435456)", 0},
    {"--package-index", WB_OPT_TEXT, OFF(package_index), sizeof(((mcp_config *)0)->package_index), 0, 0, 0, NULL, "URL",
     "install_package resolves and downloads pure-Python wheels from this index (pip's --index-url)", 0},
    {"--wheelhouse", WB_OPT_TEXT, OFF(wheelhouse), sizeof(((mcp_config *)0)->wheelhouse), 0, 0, 0, NULL, "DIR",
     "install_package takes pure-Python wheels from this directory instead of an index", 0},
    {"--home", WB_OPT_TEXT, OFF(home), sizeof(((mcp_config *)0)->home), 0, 0, 0, NULL, "DIR",
     "state directory for sessions (default $WASMBOX_HOME or ~/.local/share/wasmbox)", 0},
    {"--store", WB_OPT_TEXT, OFF(store), sizeof(((mcp_config *)0)->store), 0, 0, 0, NULL, "URL",
     "sessions in a store that several servers share (postgres://...; default $WASMBOX_STORE); --home is then "
     "this server's cache",
     0},
    {"--store-timeout", WB_OPT_DOUBLE, OFF(store_timeout), 0, 0, 1, 86400, NULL, "SECONDS",
     "a session call waiting for another call's lease gives up after this long (default 120); any other store "
     "statement may take a second more, and a store that stops answering fails session calls a second after "
     "that",
     0},
    {"--store-connections", WB_OPT_U64, OFF(store_connections), 0, 0, 1, 10000, NULL, "N",
     "store connections in use at once (default 32; a session call holds one while it runs); past it a session "
     "call fails at once with \"session store busy\"",
     0},
    {"--session-idle-release", WB_OPT_DOUBLE, OFF(session_idle_release), 0, 0, 1, 86400, NULL, "SECONDS",
     "a session's worker idle this long gives back its copy of the session's committed state (default 30): an "
     "idle session then holds half the memory, and its next call copies the state back first (about 1 ms per MB "
     "the session changed)",
     0},
    {"--log-level", WB_OPT_TEXT, OFF(log_level), sizeof(((mcp_config *)0)->log_level), 0, 0, 0, NULL, "LEVEL",
     "what goes to stderr: error, warning (default), info, debug", 0},
};
#define N_OPTIONS (sizeof options / sizeof options[0])

static bool applies(const wb_option *o, bool http) { return !o->tags || o->tags == (http ? SERVE_ONLY : MCP_ONLY); }

static void defaults(mcp_config *c, bool http) {
  memset(c, 0, sizeof *c);
  c->http = http;
  snprintf(c->listen, sizeof c->listen, "127.0.0.1:8765");
  c->external_max_bytes = 256ull << 20;
  c->tool_audit_max_bytes = 64ull << 20;
  c->max_tool_calls = WASMBOX_DEFAULT_MAX_TOOL_CALLS;
  c->max_request_bytes = 16ull << 20;
  c->idle_timeout = 30;
  c->request_timeout = 60;
  c->max_connections = 256;
  c->workers = 8;
  c->max_sessions = 1024;
  c->timeout = 30;
  c->max_timeout = 300;
  c->memory_mb = 256;
  c->max_memory_mb = 1024;
  c->max_fuel = 1ull << 53;
  c->max_output_bytes = 1u << 20;
  c->max_file_bytes = 16ull << 20;
  c->max_image_bytes = 1u << 20;
  c->session_ttl = 86400;
  snprintf(c->log_level, sizeof c->log_level, "warning");
}

static const wb_option *find(const char *name, size_t n) { return wb_opt_find(options, N_OPTIONS, name, n); }

/* An option's name without its dashes: the config file's key, and in
 * $WASMBOX_MCP_<NAME>. */
static const char *key(const wb_option *o) { return o->name + 2; }

static char *own(mcp_config *c, const char *s) {
  if (c->n_owned == sizeof c->owned / sizeof c->owned[0]) return NULL;
  char *d = strdup(s);
  if (d) c->owned[c->n_owned++] = d;
  return d;
}

/* Set one value given as text; `src` names where it came from. The table
 * checks forms and ranges; these settings have rules of their own. */
static int set_text(mcp_config *c, const wb_option *o, const char *v, const char *src, char *err, size_t errlen) {
  if (o->kind == WB_OPT_FLAG) { /* from a file, the environment or --name=VALUE */
    bool on = !strcmp(v, "1") || !strcmp(v, "true"), off = !strcmp(v, "0") || !strcmp(v, "false");
    if (!on && !off) return wb_fail(err, errlen, -1, "%s: wants true or false", src);
    *(bool *)((char *)c + o->off) = on;
    return 0;
  }
  if (o->kind == WB_OPT_TEXT) {
    if (!strcmp(key(o), "log-level") && strcmp(v, "error") && strcmp(v, "warning") && strcmp(v, "info") &&
        strcmp(v, "debug"))
      return wb_fail(err, errlen, -1, "%s wants error, warning, info or debug, not '%s'", src, v);
    if (!strcmp(key(o), "token") && *v && strlen(v) < 16)
      return wb_fail(err, errlen, -1, "%s: a token must be at least 16 characters", src);
    for (const char *p = v; *p; p++)
      if ((unsigned char)*p < 0x20) return wb_fail(err, errlen, -1, "%s holds a control character", src);
  }
  if (o->kind == WB_OPT_LIST && *v && !(v = own(c, v))) return wb_fail(err, errlen, -1, "%s: too many values", src);
  return wb_opt_set(o, c, v, src, err, errlen);
}

static void clear_list(mcp_config *c, const wb_option *o) { wb_opt_clear_list(o, c); }

static int load_file(mcp_config *c, const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) return wb_fail(err, errlen, -1, "config file %s: %s", path, strerror(errno));
  char *buf = malloc(1 << 20);
  size_t n = buf ? fread(buf, 1, 1 << 20, f) : 0;
  bool big = buf && n == 1 << 20;
  fclose(f);
  if (!buf) return wb_fail(err, errlen, -1, "out of memory");
  if (big) {
    free(buf);
    return wb_fail(err, errlen, -1, "config file %s: larger than 1 MiB", path);
  }
  const char *why;
  cJSON *j = rpc_parse(buf, n, &why);
  free(buf);
  if (!j || !cJSON_IsObject(j)) {
    cJSON_Delete(j);
    return wb_fail(err, errlen, -1, "config file %s: %s", path, j ? "must hold one JSON object" : why);
  }
  char src[1100];
  int rc = 0;
  for (const cJSON *it = j->child; it && rc == 0; it = it->next) {
    const wb_option *o = find(it->string, strlen(it->string));
    snprintf(src, sizeof src, "config file %s, key \"%s\"", path, it->string);
    if (!o) {
      rc = wb_fail(err, errlen, -1, "%s: unknown setting (see --help)", src);
      break;
    }
    if (!applies(o, c->http)) continue; /* one file may serve both commands */
    char num[64];
    if (cJSON_IsString(it)) {
      clear_list(c, o);
      rc = set_text(c, o, it->valuestring, src, err, errlen);
    } else if (cJSON_IsNumber(it) && (o->kind == WB_OPT_U64 || o->kind == WB_OPT_DOUBLE)) {
      snprintf(num, sizeof num, o->kind == WB_OPT_U64 ? "%.0f" : "%.17g", it->valuedouble);
      if (o->kind == WB_OPT_U64 && it->valuedouble != floor(it->valuedouble))
        rc = wb_fail(err, errlen, -1, "%s: wants a whole number", src);
      else rc = set_text(c, o, num, src, err, errlen);
    } else if (cJSON_IsBool(it) && o->kind == WB_OPT_FLAG) {
      rc = set_text(c, o, cJSON_IsTrue(it) ? "true" : "false", src, err, errlen);
    } else if (cJSON_IsArray(it) && o->kind == WB_OPT_LIST) {
      clear_list(c, o);
      for (const cJSON *e = it->child; e && rc == 0; e = e->next)
        rc = cJSON_IsString(e) ? set_text(c, o, e->valuestring, src, err, errlen)
                               : wb_fail(err, errlen, -1, "%s: wants an array of strings", src);
    } else {
      rc = wb_fail(err, errlen, -1, "%s: wrong type of value", src);
    }
  }
  cJSON_Delete(j);
  return rc;
}

static void env_name(const wb_option *o, char *out, size_t n) {
  size_t k = (size_t)snprintf(out, n, "WASMBOX_MCP_");
  for (const char *p = key(o); *p && k + 1 < n; p++) out[k++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
  out[k] = 0;
}

static int load_env(mcp_config *c, char *err, size_t errlen) {
  for (size_t i = 0; i < N_OPTIONS; i++) {
    const wb_option *o = &options[i];
    if (!applies(o, c->http)) continue;
    char name[64], src[80];
    env_name(o, name, sizeof name);
    const char *v = getenv(name);
    if (!v) continue;
    snprintf(src, sizeof src, "$%s", name);
    if (o->kind != WB_OPT_LIST) {
      if (set_text(c, o, v, src, err, errlen)) return -1;
      continue;
    }
    clear_list(c, o); /* lists: separated by ':' like PATH */
    char *copy = strdup(v);
    if (!copy) return wb_fail(err, errlen, -1, "out of memory");
    int rc = 0;
    for (char *save = NULL, *t = strtok_r(copy, ":", &save); t && rc == 0; t = strtok_r(NULL, ":", &save))
      rc = set_text(c, o, t, src, err, errlen);
    free(copy);
    if (rc) return -1;
  }
  return 0;
}

static const char *intro(bool http) {
  return http ? "usage: wasmbox serve [options]\n"
                "\n"
                "Serve MCP (Model Context Protocol) over Streamable HTTP at http://HOST:PORT/mcp:\n"
                "protocol 2025-11-25 (initialize, Mcp-Session-Id, DELETE; GET answers 405) and\n"
                "2026-07-28 (stateless: per-request _meta, server/discover, Mcp-Method/Mcp-Name),\n"
                "plus 2025-06-18 and 2025-03-26 clients, on the same endpoint. Browser Origins\n"
                "other than loopback are refused (DNS rebinding). Tools: execute_code, sessions,\n"
                "session files, list_runtimes, get_metrics.\n"
              : "usage: wasmbox mcp [options]\n"
                "\n"
                "Serve MCP (Model Context Protocol) on stdin/stdout: one JSON-RPC message per\n"
                "line; logs go to stderr only. This is what an MCP client (Claude Desktop,\n"
                "Claude Code, Cursor, an agent SDK) starts. Protocols 2025-03-26 to 2025-11-25\n"
                "(initialize) and 2026-07-28 (per-request _meta). Tools: execute_code,\n"
                "sessions, session files, list_runtimes, get_metrics.\n";
}

void mcp_config_usage(bool http, FILE *out) {
  fputs(intro(http), out);
  fputs("\noptions (each also $WASMBOX_MCP_<NAME>, or a key of the --config file):\n", out);
  fprintf(out, "  %-30s %s\n", "--config FILE",
          "JSON object of settings, e.g. {\"timeout\": 10, \"external-files\": [\"/data/in.csv\"]}");
  for (size_t i = 0; i < N_OPTIONS; i++) {
    const wb_option *o = &options[i];
    if (!applies(o, http)) continue;
    char flag[64];
    snprintf(flag, sizeof flag, "%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : ""); /* flags take none */
    fprintf(out, "  %-30s %s\n", flag, o->help);
  }
  fputs(
      "\nPrecedence: flags, then environment, then the config file, then defaults.\n"
      "Lists in the environment are separated by ':'.\n",
      out);
}

int mcp_config_load(mcp_config *c, bool http, int argc, char **argv, char *err, size_t errlen) {
  defaults(c, http);
  const char *file = getenv("WASMBOX_MCP_CONFIG");
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      mcp_config_usage(http, stdout);
      return 1;
    }
    if (!strcmp(argv[i], "--config")) {
      if (i + 1 >= argc) return wb_fail(err, errlen, -1, "--config needs a file");
      file = argv[++i];
    } else if (!strncmp(argv[i], "--config=", 9)) {
      file = argv[i] + 9;
    }
  }
  if (file && *file && load_file(c, file, err, errlen)) return -1;
  if (load_env(c, err, errlen)) return -1;
  bool seen[N_OPTIONS] = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--config")) {
      i++;
      continue;
    }
    if (!strncmp(a, "--config=", 9)) continue;
    if (strncmp(a, "--", 2)) return wb_fail(err, errlen, -1, "unexpected argument '%s' (see --help)", a);
    const char *eq = strchr(a + 2, '=');
    const wb_option *o = find(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
    if (!o || !applies(o, http))
      return wb_fail(err, errlen, -1, "unknown option %.*s (see wasmbox %s --help)",
                     eq ? (int)(eq - a) : (int)strlen(a), a, http ? "serve" : "mcp");
    const char *src = o->name;
    size_t idx = (size_t)(o - options);
    if (!seen[idx]) clear_list(c, o), seen[idx] = true;
    if (eq || o->kind == WB_OPT_FLAG) {
      if (set_text(c, o, eq ? eq + 1 : "true", src, err, errlen)) return -1;
      continue;
    }
    if (i + 1 >= argc || (!strncmp(argv[i + 1], "--", 2) && o->kind != WB_OPT_TEXT))
      return wb_fail(err, errlen, -1, "%s needs a value", o->name);
    if (set_text(c, o, argv[++i], src, err, errlen)) return -1;
    /* --external-files PATH...: every following word up to the next option */
    while (o->kind == WB_OPT_LIST && !strcmp(key(o), "external-files") && i + 1 < argc && strncmp(argv[i + 1], "--", 2))
      if (set_text(c, o, argv[++i], src, err, errlen)) return -1;
  }
  if (c->package_index[0] && c->wheelhouse[0])
    return wb_fail(err, errlen, -1, "give package-index or wheelhouse, not both");
  if (c->n_packages > WASMBOX_MAX_PACKAGES)
    return wb_fail(err, errlen, -1, "packages: at most %d directories, not %zu", WASMBOX_MAX_PACKAGES, c->n_packages);
  for (size_t i = 0; i < c->n_packages; i++) {
    struct stat st;
    if (stat(c->packages[i], &st) != 0 || !S_ISDIR(st.st_mode))
      return wb_fail(err, errlen, -1, "packages: %s is not a directory", c->packages[i]);
  }
  bool oauth_other = c->oauth_jwks[0] || c->oauth_resource[0] || c->oauth_claim[0] || c->oauth_scopes[0];
  if (!c->oauth_issuer[0] && oauth_other)
    return wb_fail(err, errlen, -1, "oauth-jwks, oauth-resource, oauth-claim and oauth-scopes need oauth-issuer");
  if (c->oauth_issuer[0] && !c->oauth_jwks[0])
    return wb_fail(err, errlen, -1, "oauth-issuer needs oauth-jwks: the issuer's keys (a JWKS URL or file)");
  if (c->oauth_issuer[0] && !c->oauth_resource[0])
    return wb_fail(err, errlen, -1,
                   "oauth-issuer needs oauth-resource: this server's URL as clients reach it (e.g. "
                   "https://mcp.example.com/mcp), which tokens must name as their audience");
  if (c->timeout > c->max_timeout)
    return wb_fail(err, errlen, -1, "timeout (%g s) is larger than max-timeout (%g s)", c->timeout, c->max_timeout);
  if (c->fuel && c->fuel > c->max_fuel)
    return wb_fail(err, errlen, -1, "fuel (%llu) is larger than max-fuel (%llu)", (unsigned long long)c->fuel,
                   (unsigned long long)c->max_fuel);
  if (c->memory_mb > c->max_memory_mb)
    return wb_fail(err, errlen, -1, "memory (%llu MB) is larger than max-memory (%llu MB)",
                   (unsigned long long)c->memory_mb, (unsigned long long)c->max_memory_mb);
  return 0;
}

void mcp_config_free(mcp_config *c) {
  for (size_t i = 0; i < c->n_owned; i++) free(c->owned[i]);
  c->n_owned = 0;
}
