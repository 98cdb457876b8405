/* Upstream MCP servers (see upstream.h). */
#include "mcp/upstream.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mcp/libs.h"
#include "mcp/upstream_conn.h"
#include "mcp/schema_check.h"
#include "util/os.h"
#include "util/patterns.h"
#include "util/fail.h"

#define CONFIG_MAX (16u << 20)
#define NAME_PART_MAX 100
#define BACKOFF_MIN 0.5
#define BACKOFF_MAX 30.0
#define SUMMARY_MAX 200

/* A server's tool list as it last gave it: never changed once made, and
 * shared by reference, so that searches read it while a call to the
 * server is in flight. */
typedef struct {
  cJSON *tools; /* the upstream's tool definitions (tools/list) */
  char **names; /* server__tool of each, parallel */
  bool *clash;  /* parallel: its alias is another tool's too, so no call reaches it */
  size_t n;
  unsigned refs; /* under the server's list_mu */
} toolset;

typedef struct {
  char *prefix; /* the sandbox's name of the server */
  char *label;  /* its name in the file */
  upstream_conn *conn;
  /* the connection and the fields below: one request at a time. A call takes
   * it by its own deadline (a call in flight to a hung server makes the
   * next call of that server time out, never wait past its deadline) */
  pthread_mutex_t mu;
  /* its allowed_tools and requires_approval: patterns over its own tool
   * names, matched against the upstream's name and the sandbox's alias */
  char **allow, **approval;
  size_t nallow, napproval;
  pthread_mutex_t list_mu; /* `tools` and the counts: held for moments only */
  toolset *tools;          /* the last list, NULL: none */
  bool listed;             /* `tools` is the running server's current list (mu) */
  char error[512];         /* why the last start failed */
  double retry_at;         /* no new start before (monotonic seconds) */
  double backoff;
} upstream;

struct mcp_upstreams {
  upstream *all;
  size_t n;
  char **allow; /* --allow-tools: patterns over full names (server__tool) */
  size_t nallow;
  bool approve_destructive;
  /* audit */
  pthread_mutex_t audit_mu;
  FILE *audit;
  char *audit_path;
  uint64_t audit_max, audit_size;
};

/* A name part: [A-Za-z0-9_-] kept, anything else '_'; a server's "__"
 * becomes "_" (the first "__" of a full name ends the server's part). */
static char *sanitize(const char *s, bool server) {
  size_t n = strlen(s);
  if (n > NAME_PART_MAX) n = NAME_PART_MAX;
  char *out = malloc(n + 1);
  if (!out) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    char c = isalnum((unsigned char)s[i]) || s[i] == '-' ? s[i] : '_';
    if (server && c == '_' && k && out[k - 1] == '_') continue;
    out[k++] = c;
  }
  if (!k) out[k++] = '_';
  out[k] = 0;
  return out;
}

/* ---- the file ------------------------------------------------------------------------- */

static char **string_list(const cJSON *arr, size_t *n, bool *ok) {
  *n = 0;
  if (!arr) return NULL;
  if (!cJSON_IsArray(arr)) {
    *ok = false;
    return NULL;
  }
  size_t count = (size_t)cJSON_GetArraySize(arr);
  char **v = calloc(count + 1, sizeof *v);
  const cJSON *e;
  cJSON_ArrayForEach(e, arr) {
    if (!v || !cJSON_IsString(e) || !(v[*n] = strdup(e->valuestring))) {
      *ok = false;
      break;
    }
    (*n)++;
  }
  return v;
}

/* {"NAME": "value"} as "NAME=value" (sep "=") or "NAME: value" (": "). */
static char **string_map(const cJSON *obj, const char *sep, size_t *n, bool *ok) {
  *n = 0;
  if (!obj) return NULL;
  if (!cJSON_IsObject(obj)) {
    *ok = false;
    return NULL;
  }
  char **v = calloc((size_t)cJSON_GetArraySize(obj) + 1, sizeof *v);
  const cJSON *e;
  cJSON_ArrayForEach(e, obj) {
    if (!v || !cJSON_IsString(e) || !e->string[0] || strpbrk(e->string, "=:\r\n") || strpbrk(e->valuestring, "\r\n") ||
        asprintf(&v[*n], "%s%s%s", e->string, sep, e->valuestring) < 0) {
      if (v) v[*n] = NULL;
      *ok = false;
      break;
    }
    (*n)++;
  }
  return v;
}

static void free_strings(char **v, size_t n) {
  for (size_t i = 0; v && i < n; i++) free(v[i]);
  free(v);
}

static char *read_file(const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "--upstream %s: %s", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  char *text = NULL;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > CONFIG_MAX) {
    wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "--upstream %s: not a regular file of at most %u MB", path,
            CONFIG_MAX >> 20);
  } else if (!(text = calloc(1, (size_t)st.st_size + 1)) ||
             fread(text, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
    wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "--upstream %s: cannot read it", path);
    free(text);
    text = NULL;
  }
  fclose(f);
  return text;
}

/* One entry of mcpServers; false with a message. */
static bool add_server(mcp_upstreams *u, const cJSON *e, char *err, size_t errlen) {
  const char *label = e->string;
  if (!cJSON_IsObject(e))
    return wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "mcpServers.%s is not an object", label), false;
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(e, "type");
  const cJSON *command = cJSON_GetObjectItemCaseSensitive(e, "command");
  const cJSON *url = cJSON_GetObjectItemCaseSensitive(e, "url");
  const cJSON *disabled = cJSON_GetObjectItemCaseSensitive(e, "disabled");
  if (cJSON_IsTrue(disabled)) return true;
  const char *t = cJSON_IsString(type) ? type->valuestring : url ? "http" : "stdio";
  if (!strcmp(t, "sse"))
    return wb_fail(err, errlen, WASMBOX_TOOL_ERROR,
                   "mcpServers.%s: the SSE transport (protocol 2024-11-05) is not one wasmbox speaks; use the "
                   "server's Streamable HTTP endpoint (type \"http\")",
                   label),
           false;
  bool http = !strcmp(t, "http") || !strcmp(t, "streamable-http") || !strcmp(t, "streamableHttp");
  if (!http && strcmp(t, "stdio"))
    return wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "mcpServers.%s: unknown type '%s'", label, t), false;
  if (http ? !cJSON_IsString(url) || strncmp(url->valuestring, "http", 4) : !cJSON_IsString(command))
    return wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "mcpServers.%s: %s", label,
                   http ? "an HTTP server needs \"url\" (http:// or https://)" : "a stdio server needs \"command\""),
           false;
  bool ok = true;
  size_t nargs, nenv, nheaders, npat;
  char **args = string_list(cJSON_GetObjectItemCaseSensitive(e, "args"), &nargs, &ok);
  char **env = string_map(cJSON_GetObjectItemCaseSensitive(e, "env"), "=", &nenv, &ok);
  char **headers = string_map(cJSON_GetObjectItemCaseSensitive(e, "headers"), ": ", &nheaders, &ok);
  char **pat = string_list(cJSON_GetObjectItemCaseSensitive(e, "allowed_tools"), &npat, &ok);
  size_t nappr;
  char **appr = string_list(cJSON_GetObjectItemCaseSensitive(e, "requires_approval"), &nappr, &ok);
  upstream *up = &u->all[u->n];
  memset(up, 0, sizeof *up);
  if (ok) {
    upstream_conn_spec spec = {.command = http ? NULL : command->valuestring,
                               .args = (const char *const *)args,
                               .nargs = nargs,
                               .env = (const char *const *)env,
                               .nenv = nenv,
                               .url = http ? url->valuestring : NULL,
                               .headers = (const char *const *)headers,
                               .nheaders = nheaders};
    ok = (up->conn = upstream_conn_new(&spec)) && (up->label = strdup(label)) && (up->prefix = sanitize(label, true));
    if (!ok) wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "out of memory");
  } else {
    wb_fail(err, errlen, WASMBOX_TOOL_ERROR,
            "mcpServers.%s: args and allowed_tools are arrays of strings; env and headers objects of strings "
            "(names without '=', ':' or line breaks)",
            label);
  }
  for (size_t i = 0; ok && i < npat; i++)
    if (!pat[i][0] || !strcmp(pat[i], "!"))
      ok = !wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "mcpServers.%s: an allowed_tools pattern is empty", label);
  for (size_t i = 0; ok && i < nappr; i++)
    if (!appr[i][0] || !strcmp(appr[i], "!"))
      ok =
          !wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "mcpServers.%s: requires_approval holds non-empty patterns", label);
  if (ok) {
    up->allow = pat, up->nallow = npat, pat = NULL, npat = 0;
    up->approval = appr, up->napproval = nappr, appr = NULL, nappr = 0;
  }
  free_strings(appr, nappr);
  free_strings(args, nargs);
  free_strings(env, nenv);
  free_strings(headers, nheaders);
  free_strings(pat, npat);
  /* two labels that sanitise alike: refused, not suffixed (a suffix would
     follow the file's order, and a pattern could come to mean the other) */
  for (size_t i = 0; ok && i < u->n; i++)
    if (!strcmp(u->all[i].prefix, up->prefix))
      ok = !wb_fail(err, errlen, WASMBOX_TOOL_ERROR,
                    "mcpServers: '%s' and '%s' are both named '%s' in the sandbox (names keep [A-Za-z0-9_-]); "
                    "rename one",
                    u->all[i].label, label, up->prefix);
  if (!ok) {
    upstream_conn_free(up->conn);
    free(up->label);
    free(up->prefix);
    free_strings(up->allow, up->nallow);
    free_strings(up->approval, up->napproval);
    return false;
  }
  pthread_mutex_init(&up->mu, NULL);
  pthread_mutex_init(&up->list_mu, NULL);
  up->backoff = BACKOFF_MIN;
  u->n++;
  return true;
}

mcp_upstreams *mcp_upstreams_open(const mcp_upstreams_config *cfg, char *err, size_t errlen) {
  mcp_upstreams *u = calloc(1, sizeof *u);
  char *text = u ? read_file(cfg->file, err, errlen) : NULL;
  cJSON *doc = text ? cJSON_Parse(text) : NULL;
  free(text);
  if (!u) snprintf(err, errlen, "out of memory");
  if (!doc) {
    if (u && text) wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "--upstream %s: not valid JSON", cfg->file);
    free(u);
    return NULL;
  }
  pthread_mutex_init(&u->audit_mu, NULL);
  u->approve_destructive = cfg->approve_destructive;
  const cJSON *servers = cJSON_GetObjectItemCaseSensitive(doc, "mcpServers");
  bool ok = cJSON_IsObject(servers) && cJSON_GetArraySize(servers) <= MCP_UPSTREAMS_MAX;
  if (!ok)
    wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "--upstream %s: needs an object \"mcpServers\" of at most %d servers",
            cfg->file, MCP_UPSTREAMS_MAX);
  if (ok && !(u->all = calloc(MCP_UPSTREAMS_MAX, sizeof *u->all)))
    ok = !wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "out of memory");
  const cJSON *e;
  if (ok) cJSON_ArrayForEach(e, servers) if (ok) ok = add_server(u, e, err, errlen);
  for (size_t i = 0; ok && i < cfg->nallow; i++) {
    char **grown = realloc(u->allow, (u->nallow + 1) * sizeof *grown);
    ok = grown && (grown[u->nallow] = strdup(cfg->allow[i]));
    if (grown) u->allow = grown;
    if (ok) u->nallow++;
  }
  cJSON_Delete(doc);
  if (ok && cfg->audit) {
    u->audit_max = cfg->audit_max_bytes;
    char why[300];
    if (!libcrypto_load(why, sizeof why)) { /* the arguments' SHA-256 */
      ok = !wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "--tool-audit: %s", why);
    } else if (!strcmp(cfg->audit, "-")) {
      u->audit = stderr;
    } else if (!(u->audit_path = strdup(cfg->audit)) || !(u->audit = fopen(cfg->audit, "ae"))) {
      ok = !wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "--tool-audit %s: %s", cfg->audit, strerror(errno));
    } else {
      struct stat st;
      u->audit_size = fstat(fileno(u->audit), &st) == 0 ? (uint64_t)st.st_size : 0;
    }
  }
  if (!ok) {
    mcp_upstreams_free(u);
    return NULL;
  }
  return u;
}

static void toolset_free(toolset *ts) {
  if (!ts) return;
  cJSON_Delete(ts->tools);
  free_strings(ts->names, ts->n);
  free(ts->clash);
  free(ts);
}

/* The server's last list with a reference (NULL: none); toolset_put. */
static toolset *toolset_get(upstream *up) {
  pthread_mutex_lock(&up->list_mu);
  toolset *ts = up->tools;
  if (ts) ts->refs++;
  pthread_mutex_unlock(&up->list_mu);
  return ts;
}

static void toolset_put(upstream *up, toolset *ts) {
  if (!ts) return;
  pthread_mutex_lock(&up->list_mu);
  bool gone = --ts->refs == 0;
  pthread_mutex_unlock(&up->list_mu);
  if (gone) toolset_free(ts);
}

/* ts (or none) becomes the server's list; readers of the old one keep it
 * until they are done. */
static void set_tools(upstream *up, toolset *ts) {
  if (ts) ts->refs = 1;
  pthread_mutex_lock(&up->list_mu);
  toolset *old = up->tools;
  up->tools = ts;
  pthread_mutex_unlock(&up->list_mu);
  toolset_put(up, old);
}

static void forget_tools(upstream *up) {
  set_tools(up, NULL);
  up->listed = false;
}

void mcp_upstreams_free(mcp_upstreams *u) {
  if (!u) return;
  for (size_t i = 0; i < u->n; i++) {
    upstream *up = &u->all[i];
    upstream_conn_free(up->conn);
    forget_tools(up);
    free(up->prefix);
    free(up->label);
    free_strings(up->allow, up->nallow);
    free_strings(up->approval, up->napproval);
    pthread_mutex_destroy(&up->mu);
    pthread_mutex_destroy(&up->list_mu);
  }
  free(u->all);
  free_strings(u->allow, u->nallow);
  if (u->audit && u->audit != stderr) fclose(u->audit);
  free(u->audit_path);
  pthread_mutex_destroy(&u->audit_mu);
  free(u);
}

size_t mcp_upstreams_count(const mcp_upstreams *u) { return u ? u->n : 0; }

/* ---- a server's tools ---------------------------------------------------------------- */

/* The server's tools, its connection started if need be (up->mu held).
 * False with a message: it could not be reached. */
static bool ensure_tools(upstream *up, uint64_t deadline, char *err, size_t errlen) {
  /* a changed list is fetched again; the old one serves searches meanwhile */
  if (upstream_conn_started(up->conn) && upstream_conn_take_list_changed(up->conn)) up->listed = false;
  if (upstream_conn_started(up->conn) && up->listed) return true;
  if (!upstream_conn_started(up->conn)) {
    forget_tools(up);
    double t = wb_monotonic_s();
    if (t < up->retry_at)
      return !wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "upstream '%s' is down (%s); next attempt in %.1f s", up->label,
                      up->error, up->retry_at - t);
    if (!upstream_conn_start(up->conn, deadline, up->error, sizeof up->error)) {
      up->retry_at = wb_monotonic_s() + up->backoff;
      up->backoff = up->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : up->backoff * 2;
      return !wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "upstream '%s' could not be started: %s", up->label, up->error);
    }
  }
  cJSON *all = cJSON_CreateArray();
  cJSON *cursor = NULL;
  bool ok = all != NULL;
  while (ok) {
    cJSON *params = NULL;
    if (cursor) {
      params = cJSON_CreateObject();
      cJSON_AddItemToObject(params, "cursor", cursor);
      cursor = NULL;
    }
    cJSON *res = upstream_conn_request(up->conn, "tools/list", params, deadline, err, errlen);
    cJSON *tools = cJSON_GetObjectItemCaseSensitive(res, "tools");
    if (!cJSON_IsArray(tools)) {
      if (res)
        wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "upstream '%s': its tools/list result has no tools array", up->label);
      cJSON_Delete(res);
      ok = false;
      break;
    }
    cJSON *tool;
    while ((tool = cJSON_DetachItemFromArray(tools, 0))) {
      const cJSON *name = cJSON_GetObjectItemCaseSensitive(tool, "name");
      if (!cJSON_IsString(name) || cJSON_GetArraySize(all) >= MCP_UPSTREAM_TOOLS_MAX) {
        cJSON_Delete(tool);
        continue;
      }
      cJSON_AddItemToArray(all, tool);
    }
    cJSON *next = cJSON_DetachItemFromObjectCaseSensitive(res, "nextCursor");
    cJSON_Delete(res);
    if (!cJSON_IsString(next) || cJSON_GetArraySize(all) >= MCP_UPSTREAM_TOOLS_MAX) {
      cJSON_Delete(next);
      break;
    }
    cursor = next;
  }
  if (!ok) {
    cJSON_Delete(all);
    if (!upstream_conn_started(up->conn)) snprintf(up->error, sizeof up->error, "%.500s", err);
    return false;
  }
  size_t n = (size_t)cJSON_GetArraySize(all);
  char **names = calloc(n + 1, sizeof *names);
  bool *clash = calloc(n + 1, sizeof *clash);
  size_t i = 0;
  const cJSON *tool;
  cJSON_ArrayForEach(tool, all) {
    char *part = names && clash ? sanitize(cJSON_GetObjectItemCaseSensitive(tool, "name")->valuestring, false) : NULL;
    if (!part || asprintf(&names[i], "%s__%s", up->prefix, part) < 0) {
      free(part);
      free_strings(names, i);
      free(clash);
      cJSON_Delete(all);
      return !wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "out of memory");
    }
    free(part);
    /* two tools under one alias: neither is reachable (a suffix would
       follow the list's order, which may change with list_changed) */
    for (size_t j = 0; j < i; j++)
      if (!strcmp(names[j], names[i])) clash[i] = clash[j] = true;
    i++;
  }
  toolset *ts = calloc(1, sizeof *ts);
  if (!ts) {
    free_strings(names, n);
    free(clash);
    cJSON_Delete(all);
    return !wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "out of memory");
  }
  *ts = (toolset){.tools = all, .names = names, .clash = clash, .n = n};
  set_tools(up, ts);
  up->listed = true;
  up->backoff = BACKOFF_MIN;
  return true;
}

/* The server a full name belongs to, by its prefix. */
static upstream *server_of(mcp_upstreams *u, const char *full) {
  const char *sep = strstr(full, "__");
  if (!sep) return NULL;
  for (size_t i = 0; i < u->n; i++)
    if (strlen(u->all[i].prefix) == (size_t)(sep - full) && !strncmp(u->all[i].prefix, full, (size_t)(sep - full)))
      return &u->all[i];
  return NULL;
}

/* May code call tool i? Its server's allowed_tools (over the upstream's own
 * name and the alias part) and --allow-tools (over the full alias) together:
 * some pattern of either lets it in and no "!" of either keeps it out. */
static bool tool_allowed(const mcp_upstreams *u, const upstream *up, const toolset *ts, size_t i) {
  if (ts->clash[i]) return false;
  const char *own[2] = {cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ts->tools, (int)i), "name")->valuestring,
                        ts->names[i] + strlen(up->prefix) + 2};
  const char *full = ts->names[i];
  int server = wb_patterns_match((const char *const *)up->allow, up->nallow, own, 2);
  int wide = wb_patterns_match((const char *const *)u->allow, u->nallow, &full, 1);
  return server >= 0 && wide >= 0 && (server > 0 || wide > 0);
}

static cJSON *describe(const upstream *up, const toolset *ts, size_t i, int detail) {
  const cJSON *tool = cJSON_GetArrayItem(ts->tools, (int)i);
  cJSON *d = detail == MCP_DETAIL_SCHEMA ? cJSON_Duplicate(tool, true) : cJSON_CreateObject();
  if (!d) return NULL;
  cJSON_DeleteItemFromObjectCaseSensitive(d, "name");
  cJSON_AddStringToObject(d, "name", ts->names[i]);
  if (detail == MCP_DETAIL_SUMMARY) {
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(tool, "description");
    char line[SUMMARY_MAX + 4] = "";
    if (cJSON_IsString(desc)) {
      size_t n = strcspn(desc->valuestring, "\n");
      if (n > SUMMARY_MAX) n = SUMMARY_MAX;
      snprintf(line, sizeof line, "%.*s%s", (int)n, desc->valuestring, desc->valuestring[n] ? "..." : "");
    }
    cJSON_AddStringToObject(d, "description", line);
  }
  if (detail != MCP_DETAIL_NAME) {
    cJSON_AddStringToObject(d, "server", up->label);
    if (detail == MCP_DETAIL_SCHEMA) {
      const cJSON *orig = cJSON_GetObjectItemCaseSensitive(tool, "name");
      cJSON_AddStringToObject(d, "upstream_name", orig->valuestring);
    }
  }
  return d;
}

/* ---- search -------------------------------------------------------------------------- */

/* How well a tool matches the query's words: 3 for each word in its name,
 * 1 in its description; 1 for every tool when the query is empty. */
static int score(const char *query, const char *name, const char *desc) {
  int s = 0;
  bool any = false;
  for (const char *p = query; *p;) {
    while (*p && !isalnum((unsigned char)*p)) p++;
    size_t n = 0;
    while (isalnum((unsigned char)p[n])) n++;
    if (!n) break;
    any = true;
    char word[64];
    snprintf(word, sizeof word, "%.*s", (int)(n < 63 ? n : 63), p);
    if (strcasestr(name, word)) s += 3;
    else if (desc && strcasestr(desc, word)) s += 1;
    p += n;
  }
  return any ? s : 1;
}

typedef struct {
  const upstream *up;
  const toolset *ts;
  size_t i;
  int score;
  size_t order;
} hit;

static int by_score(const void *a, const void *b) {
  const hit *x = a, *y = b;
  if (x->score != y->score) return y->score - x->score;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* The server's tool list for a search or a schema, with a reference
 * (toolset_put), or NULL with a message. It never waits for a request in
 * flight: a server busy with a call is read from its last list. A server
 * that is free is started or listed again first if need be. */
static toolset *tools_now(upstream *up, uint64_t deadline, char *err, size_t errlen) {
  if (pthread_mutex_trylock(&up->mu) == 0) {
    bool ok = ensure_tools(up, deadline, err, errlen);
    pthread_mutex_unlock(&up->mu);
    if (!ok) return NULL;
  }
  toolset *ts = toolset_get(up);
  if (!ts)
    wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "upstream '%s' is busy with another request and has not listed its tools",
            up->label);
  return ts;
}

static void unavailable_add(cJSON *list, const upstream *up, const char *err) {
  cJSON *miss = cJSON_CreateObject();
  cJSON_AddStringToObject(miss, "server", up->label);
  cJSON_AddStringToObject(miss, "error", err);
  cJSON_AddItemToArray(list, miss);
}

cJSON *mcp_upstreams_search(mcp_upstreams *u, const char *query, unsigned limit, int detail, double seconds,
                            cJSON **unavailable) {
  uint64_t deadline = wb_monotonic_ns() + (uint64_t)(seconds * 1e9);
  cJSON *out = cJSON_CreateArray();
  *unavailable = cJSON_CreateArray();
  hit *hits = NULL;
  size_t nhits = 0, order = 0;
  toolset *held[MCP_UPSTREAMS_MAX] = {NULL}; /* referenced while hits point into them */
  for (size_t s = 0; s < u->n; s++) {
    upstream *up = &u->all[s];
    char err[512];
    toolset *ts = held[s] = tools_now(up, deadline, err, sizeof err);
    if (!ts) {
      unavailable_add(*unavailable, up, err);
      continue;
    }
    hit *grown = realloc(hits, (nhits + ts->n + 1) * sizeof *hits);
    if (!grown) continue;
    hits = grown;
    for (size_t i = 0; i < ts->n; i++) {
      if (!tool_allowed(u, up, ts, i)) continue;
      const cJSON *desc = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ts->tools, (int)i), "description");
      int sc = score(query ? query : "", ts->names[i], cJSON_IsString(desc) ? desc->valuestring : NULL);
      if (sc > 0) hits[nhits++] = (hit){up, ts, i, sc, order++};
    }
  }
  if (nhits) qsort(hits, nhits, sizeof *hits, by_score);
  for (size_t k = 0; k < nhits && k < limit; k++)
    cJSON_AddItemToArray(out, describe(hits[k].up, hits[k].ts, hits[k].i, detail));
  free(hits);
  for (size_t s = 0; s < u->n; s++) toolset_put(&u->all[s], held[s]);
  return out;
}

/* ---- the library's handler ------------------------------------------------------------- */

static int reply_with(cJSON *v, char **reply, char *err, size_t errlen) {
  *reply = v ? cJSON_PrintUnformatted(v) : NULL;
  cJSON_Delete(v);
  return *reply ? WASMBOX_TOOL_OK : wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "out of memory");
}

/* Must a person approve a call of tool i first? Its server's
 * requires_approval matched as allowed_tools is ("!" excludes), or its
 * destructiveHint with --approve-destructive. */
static bool needs_approval(const mcp_upstreams *u, const upstream *up, const toolset *ts, size_t i, const cJSON *def) {
  const char *own[2] = {cJSON_GetObjectItemCaseSensitive(def, "name")->valuestring,
                        ts->names[i] + strlen(up->prefix) + 2};
  if (wb_patterns_match((const char *const *)up->approval, up->napproval, own, 2) > 0) return true;
  const cJSON *ann = cJSON_GetObjectItemCaseSensitive(def, "annotations");
  return u->approve_destructive && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ann, "destructiveHint"));
}

/* The arguments against the tool's inputSchema, before they leave: a model
 * learns what to fix from us, and the upstream never sees them. A schema
 * that cannot be loaded leaves the judgement to the upstream. */
static int check_arguments(const char *name, const cJSON *schema, const wasmbox_tool_request *req, char *err,
                           size_t errlen) {
  if (!cJSON_IsObject(schema)) return WASMBOX_TOOL_OK;
  char *text = cJSON_PrintUnformatted(schema);
  if (!text) return wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "out of memory");
  char why[768];
  int v = mcp_schema_check(text, strlen(text), req->arguments, req->arguments_len, why, sizeof why);
  free(text);
  if (v != MCP_SCHEMA_INVALID) return WASMBOX_TOOL_OK;
  snprintf(err, errlen, "%s: the arguments do not match its inputSchema: %s (tools.schema('%s') shows it)", name, why,
           name);
  return WASMBOX_TOOL_BAD_ARGUMENTS;
}

/* Tool `name` of the list: its index, or why no call or schema reaches it
 * (rc set). */
static size_t tool_index(const mcp_upstreams *u, const upstream *up, const toolset *ts, const char *name, int *rc,
                         char *err, size_t errlen) {
  size_t i = 0;
  while (i < ts->n && strcmp(ts->names[i], name)) i++;
  *rc = WASMBOX_TOOL_OK;
  if (i == ts->n)
    *rc = wb_fail(err, errlen, WASMBOX_TOOL_ERROR,
                  "no tool '%s': tools.search() or tools.list() show the tools there are", name);
  else if (ts->clash[i])
    *rc = wb_fail(err, errlen, WASMBOX_TOOL_ERROR,
                  "tool '%s' is ambiguous: several tools of upstream '%s' have this name once mapped to "
                  "[A-Za-z0-9_-]; wasmbox calls none of them",
                  name, up->label);
  else if (!tool_allowed(u, up, ts, i)) {
    wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "tool '%s' is not allowed on this server", name);
    *rc = WASMBOX_TOOL_NOT_ALLOWED;
  }
  return i;
}

/* A schema, from the last list like a search: never behind a call. */
static int schema_of(const mcp_upstreams *u, upstream *up, const char *name, uint64_t deadline, char **reply, char *err,
                     size_t errlen) {
  toolset *ts = tools_now(up, deadline, err, errlen);
  if (!ts) return WASMBOX_TOOL_ERROR;
  int rc;
  size_t i = tool_index(u, up, ts, name, &rc, err, errlen);
  if (!rc) rc = reply_with(describe(up, ts, i, MCP_DETAIL_SCHEMA), reply, err, errlen);
  toolset_put(up, ts);
  return rc;
}

/* Take the server's lock by the deadline: a call in flight to it (a hung
 * upstream) makes this call time out at its own deadline, not the other's. */
static bool lock_by(upstream *up, uint64_t deadline, char *err, size_t errlen) {
  struct timespec at = {.tv_sec = (time_t)(deadline / 1000000000u), .tv_nsec = (long)(deadline % 1000000000u)};
  if (!pthread_mutex_clocklock(&up->mu, CLOCK_MONOTONIC, &at)) return true;
  wb_fail(err, errlen, WASMBOX_TOOL_ERROR,
          "upstream '%s' is busy: another call to it was still running at this call's deadline", up->label);
  return false;
}

/* A call: with the server's lock, so that its list is the current one. */
static int call(const mcp_upstreams *u, upstream *up, const wasmbox_tool_request *req, uint64_t deadline, char **reply,
                char *err, size_t errlen) {
  if (!lock_by(up, deadline, err, errlen)) return WASMBOX_TOOL_ERROR;
  int rc = WASMBOX_TOOL_ERROR;
  toolset *ts = ensure_tools(up, deadline, err, errlen) ? toolset_get(up) : NULL;
  size_t i = ts ? tool_index(u, up, ts, req->name, &rc, err, errlen) : 0;
  const cJSON *def = ts && !rc ? cJSON_GetArrayItem(ts->tools, (int)i) : NULL;
  if (def) rc = check_arguments(ts->names[i], cJSON_GetObjectItemCaseSensitive(def, "inputSchema"), req, err, errlen);
  if (def && rc == WASMBOX_TOOL_OK && !req->approved && needs_approval(u, up, ts, i, def)) {
    wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "tool '%s' needs approval", req->name);
    rc = WASMBOX_TOOL_NEEDS_APPROVAL;
  }
  if (def && rc == WASMBOX_TOOL_OK) {
    const cJSON *orig = cJSON_GetObjectItemCaseSensitive(def, "name");
    cJSON *params = cJSON_CreateObject();
    cJSON_AddStringToObject(params, "name", orig->valuestring);
    cJSON *args = cJSON_ParseWithLength(req->arguments, req->arguments_len);
    cJSON_AddItemToObject(params, "arguments", args ? args : cJSON_CreateObject());
    char e2[1024];
    cJSON *res = upstream_conn_request(up->conn, "tools/call", params, deadline, e2, sizeof e2);
    if (!res) rc = wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "%s: %s", req->name, e2);
    else rc = reply_with(res, reply, err, errlen);
    if (!upstream_conn_started(up->conn)) {
      /* the call lost the connection: the next request starts it again */
      snprintf(up->error, sizeof up->error, "%.500s", e2);
      up->retry_at = wb_monotonic_s() + up->backoff;
    }
  }
  toolset_put(up, ts);
  pthread_mutex_unlock(&up->mu);
  return rc;
}

int mcp_upstreams_handle(void *ctx, const wasmbox_tool_request *req, char **reply, char *err, size_t errlen) {
  mcp_upstreams *u = ctx;
  *reply = NULL;
  bool listing = !strcmp(req->op, "list") || !strcmp(req->op, "search");
  if (listing) {
    cJSON *unavailable;
    cJSON *all = mcp_upstreams_search(u, !strcmp(req->op, "search") ? req->query : "",
                                      req->limit ? req->limit : WASMBOX_TOOL_SEARCH_MAX, MCP_DETAIL_SUMMARY,
                                      req->seconds_left, &unavailable);
    int n = cJSON_GetArraySize(unavailable);
    cJSON_Delete(unavailable);
    if (!cJSON_GetArraySize(all) && n && n == (int)u->n) {
      cJSON_Delete(all);
      return wb_fail(err, errlen, WASMBOX_TOOL_ERROR, "no upstream server could be reached");
    }
    return reply_with(all, reply, err, errlen);
  }
  upstream *up = server_of(u, req->name);
  if (!up)
    return wb_fail(err, errlen, WASMBOX_TOOL_ERROR,
                   "no tool '%s': tools.search() or tools.list() show the tools there are", req->name);
  uint64_t deadline = wb_monotonic_ns() + (uint64_t)(req->seconds_left * 1e9);
  if (!strcmp(req->op, "schema")) return schema_of(u, up, req->name, deadline, reply, err, errlen);
  return call(u, up, req, deadline, reply, err, errlen);
}

/* ---- audit ------------------------------------------------------------------------------ */

void mcp_upstreams_audit(void *ctx, const wasmbox_tool_request *req, const char *outcome, double duration_ms) {
  mcp_upstreams *u = ctx;
  if (!u->audit) return;
  cJSON *line = cJSON_CreateObject();
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char when[96];
  snprintf(when, sizeof when, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
           tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
  cJSON_AddStringToObject(line, "time", when);
  if (req->session_id) cJSON_AddStringToObject(line, "session", req->session_id);
  else cJSON_AddNullToObject(line, "session");
  if (req->owner) cJSON_AddStringToObject(line, "client", req->owner);
  else cJSON_AddNullToObject(line, "client");
  if (req->name) cJSON_AddStringToObject(line, "tool", req->name);
  else cJSON_AddNullToObject(line, "tool");
  cJSON_AddNumberToObject(line, "arguments_bytes", (double)req->arguments_len);
  if (req->arguments) {
    unsigned char md[SHA256_DIGEST_LENGTH];
    libcrypto.sha256((const unsigned char *)req->arguments, req->arguments_len, md);
    char hex[2 * SHA256_DIGEST_LENGTH + 1];
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
    cJSON_AddStringToObject(line, "arguments_sha256", hex);
  } else {
    cJSON_AddNullToObject(line, "arguments_sha256");
  }
  cJSON_AddNumberToObject(line, "duration_ms", (double)(long long)(duration_ms * 1000) / 1000);
  cJSON_AddStringToObject(line, "outcome", outcome);
  char *text = cJSON_PrintUnformatted(line);
  cJSON_Delete(line);
  if (!text) return;
  size_t n = strlen(text);
  pthread_mutex_lock(&u->audit_mu);
  if (u->audit_path && u->audit_max && u->audit_size + n + 1 > u->audit_max && u->audit_size) {
    /* rotate: the current file becomes PATH.1 (one generation kept) */
    char *old;
    if (asprintf(&old, "%s.1", u->audit_path) >= 0) {
      fclose(u->audit);
      rename(u->audit_path, old);
      free(old);
      u->audit = fopen(u->audit_path, "ae");
      u->audit_size = 0;
    }
  }
  if (u->audit) {
    fprintf(u->audit, "%s\n", text);
    fflush(u->audit);
    u->audit_size += n + 1;
  }
  pthread_mutex_unlock(&u->audit_mu);
  free(text);
}
