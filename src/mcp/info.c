/* list_runtimes and get_metrics. What a runtime offers is asked of the
 * runtime itself, once (the first list_runtimes call), so the answer can
 * never drift from the build. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/args.h"
#include "mcp/jsonrpc.h"
#include "mcp/tools.h"
#include "util/os.h"

static const char py_probe[] =
    "import sys, json, importlib\n"
    "skip = {'antigravity', 'this', 'idlelib', 'tkinter', 'turtle', 'turtledemo', 'ensurepip', 'venv', 'pydoc_data',\n"
    "        'lib2to3', 'pydoc'}\n"
    "ok = []\n"
    "for m in sorted(sys.stdlib_module_names):\n"
    "    if m.startswith('_') or m in skip: continue\n"
    "    try:\n"
    "        importlib.import_module(m); ok.append(m)\n"
    "    except BaseException: pass\n"
    "import os\n"
    "pk = [{'name': p['distribution'], 'version': p['version'], 'import': [m for m in p['modules'] if m[0] != '_'],\n"
    "       'from': 'built-in'}\n"
    "      for p in json.load(open('/usr/local/lib/python3.11/site-packages/wasmbox-packages.json'))]\n"
    /* the packages built into the interpreter (numpy, Pillow), beside the stdlib */
    "import importlib.metadata as md\n"
    "for d in md.distributions(path=['/usr/local/lib/python3.11']):\n"
    "    pk.append({'name': d.metadata['Name'], 'version': d.version,\n"
    "               'import': (d.read_text('top_level.txt') or '').split(), 'from': 'built-in'})\n"
    "for i in range(4):\n"
    "    d = '/packages/%d' % i\n"
    "    for e in sorted(os.listdir(d)) if os.path.isdir(d) else ():\n"
    "        w = e[:-4].split('-') if e.endswith('.whl') else None\n"
    "        if w:\n"
    "            pk.append({'name': w[0], 'version': w[1] if len(w) > 1 else '', 'import': [], 'from': d})\n"
    "        elif e.endswith('.py') or (os.path.isdir(os.path.join(d, e)) and '.' not in e and e != '__pycache__'):\n"
    "            n = e[:-3] if e.endswith('.py') else e\n"
    "            pk.append({'name': n, 'version': '', 'import': [n], 'from': d})\n"
    "print(json.dumps({'version': sys.version.split()[0], 'modules': ok, 'packages': pk}))\n";

static const char js_probe[] =
    "console.log(JSON.stringify({globals: Object.getOwnPropertyNames(globalThis)"
    ".filter(n => !n.startsWith('_')).sort(), packages: JSON.parse(require('fs')"
    ".readFileSync('/usr/lib/node_modules/wasmbox-packages.json', 'utf8'))"
    ".map(p => ({name: p.name, version: p.version, from: 'built-in'}))}))";

static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static cJSON *probed[2]; /* python, javascript: parsed probe output */

static cJSON *probe(mcp_server *s, const char *lang, const char *code) {
  wasmbox_request req = {.language = lang, .code = code, .timeout_seconds = 60};
  if (!strcmp(lang, "python")) {
    req.packages = (const char *const *)s->cfg->packages;
    req.packages_len = s->cfg->n_packages;
  }
  wasmbox_result *r = NULL;
  char err[256];
  cJSON *out = NULL;
  if (wasmbox_run(s->wb, &req, &r, err, sizeof err) == WASMBOX_OK && r->status == WASMBOX_STATUS_OK)
    out = cJSON_Parse(r->stdout_data);
  else mcp_log(s, MCP_LOG_WARNING, "list_runtimes: probing %s failed", lang);
  wasmbox_result_free(r);
  return out;
}

/* A copy of the probe's array `from` (nothing when the probe failed). */
static void add_copy(cJSON *to, const char *key, const cJSON *from) {
  if (cJSON_IsArray(from)) cJSON_AddItemToObject(to, key, cJSON_Duplicate(from, true));
}

cJSON *tool_list_runtimes(mcp_msg *m, const cJSON *args) {
  static const char *const none[] = {NULL};
  mcp_args a;
  args_init(&a, args, none);
  if (a.bad) return tool_error("list_runtimes: %s", a.msg);
  mcp_server *s = m->srv;
  pthread_mutex_lock(&probe_lock);
  if (!probed[0]) probed[0] = probe(s, "python", py_probe);
  if (!probed[1]) probed[1] = probe(s, "javascript", js_probe);
  cJSON *r = cJSON_CreateObject(), *rts = cJSON_CreateArray(), *py = cJSON_CreateObject(), *js = cJSON_CreateObject(),
        *lim = cJSON_CreateObject(), *ext = cJSON_CreateArray();
  if (!r || !rts || !py || !js || !lim || !ext) {
    pthread_mutex_unlock(&probe_lock);
    cJSON_Delete(r), cJSON_Delete(rts), cJSON_Delete(py), cJSON_Delete(js), cJSON_Delete(lim), cJSON_Delete(ext);
    return NULL;
  }
  const cJSON *pv = cJSON_GetObjectItemCaseSensitive(probed[0], "version");
  cJSON_AddStringToObject(py, "language", "python");
  cJSON_AddStringToObject(py, "version", cJSON_IsString(pv) ? pv->valuestring : "3.11");
  cJSON_AddItemToObject(py, "aliases", cJSON_CreateStringArray((const char *const[]){"py"}, 1));
  add_copy(py, "modules", cJSON_GetObjectItemCaseSensitive(probed[0], "modules"));
  add_copy(py, "packages", cJSON_GetObjectItemCaseSensitive(probed[0], "packages"));
  cJSON_AddStringToObject(py, "notes",
                          "packages: numpy 1.19.5 (random, fft, linalg), pandas 2.2.3, Pillow 9.4.0 (PNG, JPEG, "
                          "GIF, BMP and more, FreeType fonts), matplotlib 3.3.4 (Agg: savefig to PNG, SVG, PDF, "
                          "PS), the built-in pure-Python ones (import names under 'import') and the operator's; "
                          "no pip, scipy or requests; code written to "
                          "/app imports from "
                          "there. No threads, subprocess, sockets, ssl or ctypes; hashlib has "
                          "md5/sha1/sha2/sha3/blake2; sqlite3, zlib, bz2, lzma, json, csv, re, decimal, fractions, "
                          "statistics, datetime with zoneinfo work");
  cJSON_AddStringToObject(js, "language", "javascript");
  cJSON_AddStringToObject(js, "version", "QuickJS 2025-04-26 (ES2023)");
  cJSON_AddItemToObject(js, "aliases", cJSON_CreateStringArray((const char *const[]){"js"}, 1));
  add_copy(js, "modules", cJSON_GetObjectItemCaseSensitive(probed[1], "globals"));
  add_copy(js, "packages", cJSON_GetObjectItemCaseSensitive(probed[1], "packages"));
  cJSON_AddStringToObject(js, "notes",
                          "node's globals (Buffer, URL, TextEncoder/Decoder, atob/btoa, structuredClone, crypto, "
                          "AbortController, process) and, through require() or import (with or without node:), "
                          "fs, fs/promises, path, util, events, buffer, crypto, os, url, querystring, "
                          "string_decoder, assert, timers, readline, stream; child_process, net, http and "
                          "worker_threads throw 'not available'. packages: the built-in npm ones, by require() or "
                          "import of their names (lodash is preloaded); code in /app/node_modules comes first. "
                          "Files under /app and /external only; no npm registry, no fetch, no Intl; top-level "
                          "await; dates are UTC");
  pthread_mutex_unlock(&probe_lock);
  cJSON_AddItemToArray(rts, py);
  cJSON_AddItemToArray(rts, js);
  cJSON_AddItemToObject(r, "runtimes", rts);
  cJSON_AddNumberToObject(lim, "default_timeout_seconds", s->cfg->timeout);
  cJSON_AddNumberToObject(lim, "max_timeout_seconds", s->cfg->max_timeout);
  cJSON_AddNumberToObject(lim, "default_memory_mb", (double)s->cfg->memory_mb);
  cJSON_AddNumberToObject(lim, "max_memory_mb", (double)s->cfg->max_memory_mb);
  if (s->cfg->fuel) rpc_add_u64(lim, "default_fuel", s->cfg->fuel);
  else cJSON_AddNullToObject(lim, "default_fuel"); /* no budget: the timeout binds */
  rpc_add_u64(lim, "max_fuel", s->cfg->max_fuel);
  cJSON_AddNumberToObject(lim, "max_output_bytes_per_stream", (double)s->cfg->max_output_bytes);
  cJSON_AddNumberToObject(lim, "max_file_bytes", (double)s->cfg->max_file_bytes);
  cJSON_AddNumberToObject(lim, "max_inline_image_bytes", (double)s->cfg->max_image_bytes);
  cJSON_AddNumberToObject(lim, "default_session_ttl_seconds", s->cfg->session_ttl);
  cJSON_AddItemToObject(r, "limits", lim);
  if (s->n_mounts) {
    wasmbox_request req = {
        .code = "import os\nfor d, _, fs in os.walk('/external'):\n    for f in fs: print(os.path.join(d, f))\n",
        .mounts = s->mounts,
        .mounts_len = s->n_mounts,
        .timeout_seconds = 30};
    wasmbox_result *res = NULL;
    char err[256];
    if (wasmbox_run(s->wb, &req, &res, err, sizeof err) == WASMBOX_OK && res->status == WASMBOX_STATUS_OK) {
      char *save = NULL, *copy = strdup(res->stdout_data);
      for (char *t = copy ? strtok_r(copy, "\n", &save) : NULL; t; t = strtok_r(NULL, "\n", &save))
        cJSON_AddItemToArray(ext, cJSON_CreateString(t));
      free(copy);
    }
    wasmbox_result_free(res);
  }
  cJSON_AddItemToObject(r, "external", ext);
  return tool_result(r, false);
}

cJSON *tool_get_metrics(mcp_msg *m, const cJSON *args) {
  static const char *const none[] = {NULL};
  mcp_args a;
  args_init(&a, args, none);
  if (a.bad) return tool_error("get_metrics: %s", a.msg);
  cJSON *r = mcp_metrics_json(&m->srv->metrics);
  if (!r) return NULL;
  cJSON_AddNumberToObject(r, "uptime_seconds", wb_monotonic_s() - m->srv->started);
  /* calls registered for cancellation (this one too, unless it came
   * stateless over HTTP); count the others */
  size_t inflight = mcp_inflight_count(m->srv), self = !m->http || m->conn;
  cJSON_AddNumberToObject(r, "in_flight", (double)(inflight >= self ? inflight - self : 0));
  cJSON_AddNumberToObject(r, "mcp_sessions", (double)mcp_conn_count(m->srv));
  wasmbox_session_info *all = NULL;
  size_t n = 0;
  char err[256];
  if (wasmbox_session_list(m->srv->wb, &all, &n, err, sizeof err) == WASMBOX_OK) {
    size_t mine = 0; /* the caller's: another client's are not its business */
    for (size_t i = 0; i < n; i++) mine += mcp_owns(m, all[i].owner);
    cJSON_AddNumberToObject(r, "sandbox_sessions", (double)mine);
    free(all);
  }
  return tool_result(r, false);
}
