/* Guidance hints (see guidance.h). Rules look at the status and the error the
 * guest reported; each rule adds at most one hint. */
#include "api/guidance.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "javascript_packages.h" /* generated: the built-in npm packages */
#include "python_packages.h"     /* generated: the built-in pure-Python packages */

/* Packages code often wants that are not built in (compiled code, or the
 * network). */
static const char *const third_party[] = {"requests", "scipy", "sklearn", "torch",  "tensorflow", "lxml", "httpx",
                                          "aiohttp",  "flask", "django",  "openai", "docx",       "pptx", NULL};

/* Standard modules that cannot work without processes, threads, native
 * extensions or the network. */
static const char *const unavailable_stdlib[] = {
    "_ctypes",  "ctypes",  "_ssl",   "ssl",      "_multiprocessing", "multiprocessing", "_posixsubprocess",
    "readline", "_curses", "curses", "_tkinter", "tkinter",          "_hashlib",        "dbm",
    "_dbm",     "_gdbm",   NULL};

static bool in_list(const char *const *list, const char *s, size_t n) {
  for (size_t i = 0; list[i]; i++)
    if (strlen(list[i]) == n && !strncmp(list[i], s, n)) return true;
  return false;
}

static bool has(const char *s, const char *needle) { return s && strstr(s, needle); }

static bool is(const char *s, const char *v) { return s && !strcmp(s, v); }

/* Each kind of hint: its type (what callers match on) and where the
 * documents (docs/) say more. */
static const struct {
  const char *type, *docs;
} kinds[] = {
    {"timeout", "docs/cli.md#guidance"},
    {"out_of_memory", "docs/cli.md#guidance"},
    {"out_of_fuel", "docs/security.md#fuel"},
    {"stack_overflow", "docs/cli.md#guidance"},
    {"quota_exceeded", "docs/cli.md#guidance"},
    {"output_truncated", "docs/cli.md#guidance"},
    {"recursion_too_deep", "docs/cli.md#guidance"},
    {"module_unavailable", "docs/runtimes.md#python-packages"},
    {"module_renamed", "docs/runtimes.md#python-packages"},
    {"package_not_installed", "docs/runtimes.md#python-packages"},
    {"module_not_found", "docs/runtimes.md#python-packages"},
    {"node_module_missing", "docs/runtimes.md#javascript"},
    {"node_module_unavailable", "docs/runtimes.md#javascript"},
    {"npm_package_missing", "docs/runtimes.md#javascript"},
    {"module_path", "docs/runtimes.md#javascript"},
    {"path_outside_app", "docs/security.md#security-model"},
    {"no_network", "docs/security.md#security-model"},
    {"no_processes", "docs/security.md#security-model"},
};

const char *wb_guidance_kind(const char *type, const char **docs) {
  for (size_t i = 0; type && i < sizeof kinds / sizeof kinds[0]; i++)
    if (!strcmp(kinds[i].type, type)) return *docs = kinds[i].docs, kinds[i].type;
  return NULL;
}

typedef struct {
  char **hints;
  const char **types;
  size_t n;
} hints;

static void add(hints *h, const char *type, char *hint) {
  if (hint && h->n < WB_GUIDANCE_MAX) h->types[h->n] = type, h->hints[h->n++] = hint;
  else free(hint);
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
  char *s = NULL;
  va_list ap;
  va_start(ap, f);
  if (vasprintf(&s, f, ap) < 0) s = NULL;
  va_end(ap);
  return s;
}

/* "No module named 'numpy.linalg'" -> "numpy" (top-level name). */
static bool missing_module(const char *msg, const char **name, size_t *len) {
  const char *p = msg ? strstr(msg, "No module named '") : NULL;
  if (!p) return false;
  p += strlen("No module named '");
  size_t n = strcspn(p, "'.");
  if (n == 0) return false;
  *name = p;
  *len = n;
  return true;
}

/* Letters and digits only, lower case: "PyYAML" and "py_yaml" meet. */
static size_t fold(const char *s, size_t n, char *out, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < cap; i++) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') out[k++] = (char)(c - 'A' + 'a');
    else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) out[k++] = c;
  }
  out[k] = 0;
  return k;
}

/* Edit distance of two short strings (names), capped at 9. */
static size_t distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), row[64];
  if (la > 60 || lb > 60) return 9;
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[lb] < 9 ? row[lb] : 9;
}

/* The built-in package a missing module name most likely meant: the same
 * name up to case and separators, a distribution's name ("pyyaml" -> yaml),
 * or one or two typos away. */
static int closest_package(const char *mod, size_t len) {
  char want[64], name[64];
  if (fold(mod, len, want, sizeof want) < 2) return -1;
  int best = -1;
  size_t best_d = 9, limit = strlen(want) >= 6 ? 2 : 1;
  for (size_t i = 0; i < sizeof wb_python_packages / sizeof wb_python_packages[0]; i++) {
    const char *cands[] = {wb_python_packages[i].module, wb_python_packages[i].distribution};
    if (cands[0][0] == '_') continue; /* a private module (PyYAML's _yaml shim) */
    for (size_t c = 0; c < 2; c++) {
      fold(cands[c], strlen(cands[c]), name, sizeof name);
      size_t d = distance(want, name);
      if (!strncmp(name, "python", 6) && !strcmp(want, name + 6)) d = 0; /* python-dateutil */
      if (!strncmp(want, "py", 2) && !strcmp(want + 2, name)) d = 0;     /* pyyaml */
      if (d <= limit && d < best_d) best = (int)i, best_d = d;
    }
  }
  return best;
}

static void python_rules(const wb_guidance_input *in, hints *h) {
  const char *t = in->error_type, *m = in->error_message, *tb = in->traceback;
  const char *mod;
  size_t len;
  if ((is(t, "ModuleNotFoundError") || is(t, "ImportError")) && missing_module(m, &mod, &len)) {
    int near = closest_package(mod, len);
    if (in_list(unavailable_stdlib, mod, len))
      add(h, "module_unavailable",
          fmt("'%.*s' is not available in the sandbox: there are no native extensions, "
              "processes, threads or network. Use pure-Python standard modules instead.",
              (int)len, mod));
    else if (near >= 0)
      add(h, "module_renamed",
          fmt("There is no module '%.*s'; the built-in package %s %s is imported as '%s'.", (int)len, mod,
              wb_python_packages[near].distribution, wb_python_packages[near].version,
              wb_python_packages[near].module));
    else if (in_list(third_party, mod, len))
      add(h, "package_not_installed",
          fmt("'%.*s' is not installed. Available: the Python standard library, numpy, pandas, Pillow (PIL), matplotlib, and "
              "built-in pure-Python packages (openpyxl, xlsxwriter, pypdf, jinja2, yaml, bs4, networkx, sympy, "
              "dateutil, pydantic and more; list_runtimes lists them all). Other packages with compiled "
              "code cannot be added.",
              (int)len, mod));
    else
      add(h, "module_not_found",
          fmt("Only the Python standard library, the built-in packages (list_runtimes lists them) and "
              "files you put in /app can be imported. Check the module name '%.*s'.",
              (int)len, mod));
  }
  bool file_error = is(t, "FileNotFoundError") || is(t, "PermissionError") || is(t, "IsADirectoryError") ||
                    is(t, "NotADirectoryError") || is(t, "OSError");
  if (file_error && m && (has(m, "'/") || has(m, "'..")) && !has(m, "'/app")) {
    add(h, "path_outside_app",
        fmt("Only /app (the workspace, also the current directory) can be read and written; "
            "other host paths do not exist in the sandbox. Use paths like /app/data.csv."));
  } else if (is(t, "PermissionError") && has(m, "Errno 2")) {
    /* the WASI host refuses both with EACCES */
    add(h, "path_outside_app",
        fmt("The path leads outside /app (through '..' or a symlink), or names a FIFO or device; the "
            "sandbox only allows regular files and directories inside /app."));
  }
  if (is(t, "socket.gaierror") || is(t, "urllib.error.URLError") || is(t, "ConnectionRefusedError") ||
      is(t, "ConnectionError") || has(tb, "socket.py") || has(tb, "/http/client.py") || has(m, "ENOTSUP")) {
    add(h, "no_network",
        fmt("There is no network access in the sandbox. Pass the data in with the code, on stdin "
            "or as a file in /app."));
  }
  if (has(tb, "subprocess.py") || has(tb, "os.system") || has(m, "fork") || has(m, "spawn") ||
      (is(t, "AttributeError") && (has(m, "'system'") || has(m, "'fork'") || has(m, "'popen'")))) {
    add(h, "no_processes",
        fmt("Processes cannot be started in the sandbox (no subprocess, os.system or fork): "
            "do the work in Python itself."));
  }
  if (is(t, "RecursionError"))
    add(h, "recursion_too_deep",
        fmt("Recursion went too deep: rewrite the recursion as a loop with an explicit stack."));
}

/* Names a program may expect from node or a browser, and what they need. */
static const char *const js_network[] = {"fetch", "XMLHttpRequest", "WebSocket", "EventSource", NULL};
/* node core modules the sandbox does not have (docs/runtimes.md, JavaScript) */
static const char *const node_missing[] = {"zlib",      "vm",           "v8",          "module",
                                           "inspector", "tty",          "async_hooks", "diagnostics_channel",
                                           "repl",      "trace_events", "wasi",        NULL};
#define JS_CORE_MODULES                                                         \
  "fs, fs/promises, path, util, events, buffer, crypto, os, url, querystring, " \
  "string_decoder, assert, timers, timers/promises, readline, stream, stream/promises"

/* "'fetch' is not defined" -> fetch; "could not load module 'fs'" -> fs */
static bool quoted_name(const char *msg, const char *after, const char **name, size_t *len) {
  const char *p = msg ? strstr(msg, after) : NULL;
  if (!p) return false;
  p += strlen(after);
  size_t n = strcspn(p, "'");
  if (n == 0 || !p[n]) return false;
  if (!strncmp(p, "node:", 5)) p += 5, n -= 5;
  *name = p;
  *len = n;
  return true;
}

static void javascript_rules(const wb_guidance_input *in, hints *h) {
  const char *t = in->error_type, *m = in->error_message;
  const char *name;
  size_t len;
  if (is(t, "ReferenceError") && m && m[0] == '\'' && quoted_name(m, "'", &name, &len) && has(m, "' is not defined")) {
    if (in_list(js_network, name, len))
      add(h, "no_network",
          fmt("There is no network access in the sandbox ('%.*s' does not exist). Pass the data in with "
              "the code, on stdin (readStdin()) or as a file in /app.",
              (int)len, name));
  }
  if (quoted_name(m, "could not load module '", &name, &len) || quoted_name(m, "Cannot find module '", &name, &len)) {
    if (in_list(node_missing, name, len))
      add(h, "node_module_missing",
          fmt("Node's '%.*s' module does not exist here. The core modules are " JS_CORE_MODULES ".", (int)len, name));
    else if (name[0] != '.' && name[0] != '/')
      add(h, "npm_package_missing",
          fmt("The npm package '%.*s' is not built in, and packages cannot be installed. Built in: " JS_NPM_PACKAGES
              " (list_runtimes gives their versions); the core modules are " JS_CORE_MODULES
              "; require() and import also load your own files from /app.",
              (int)len, name));
    else
      add(h, "module_path",
          fmt("Only files in /app (or a mount) can be required or imported. Check the path '%.*s'.", (int)len, name));
  }
  if (m && !strncmp(m, "The module '", 12) && has(m, "is not available in the wasmbox sandbox"))
    add(h, "node_module_unavailable",
        fmt("There is no network and there are no processes in the sandbox: pass data in with the code, "
            "on stdin or as a file in /app, and do the work in JavaScript itself."));
  if (has(m, "EACCES") && !has(m, "'/app")) {
    add(h, "path_outside_app",
        fmt("Only /app (the workspace, also the current directory) can be read and written; other host "
            "paths do not exist in the sandbox. Use paths like /app/data.json."));
  }
  if (is(t, "InternalError") && is(m, "stack overflow"))
    add(h, "recursion_too_deep",
        fmt("Recursion went too deep: rewrite the recursion as a loop with an explicit stack."));
}

size_t wb_guidance(const wb_guidance_input *in, char **out, const char **types) {
  hints h = {out, types, 0};
  switch (in->status) {
    case WASMBOX_STATUS_TIMEOUT:
      add(&h, "timeout",
          fmt("The code did not finish within %g s and was stopped. Make it faster, process less per "
              "call, or raise the timeout (timeout_seconds / --timeout).",
              in->timeout_seconds));
      break;
    case WASMBOX_STATUS_OUT_OF_MEMORY:
      add(&h, "out_of_memory",
          fmt("The code needed more than the %llu MB memory limit. Process data in chunks or with "
              "generators, or raise the limit (memory_mb / --memory).",
              (unsigned long long)(in->memory_bytes >> 20)));
      break;
    case WASMBOX_STATUS_OUT_OF_FUEL:
      add(&h, "out_of_fuel",
          fmt("The code used up its instruction budget of %llu (fuel). Reduce the work or raise the "
              "budget (fuel / --fuel).",
              (unsigned long long)in->fuel));
      break;
    case WASMBOX_STATUS_CRASHED:
      if (has(in->error_message, "stack"))
        add(&h, "stack_overflow",
            fmt("The call stack overflowed (recursion too deep for the sandbox stack): rewrite the "
                "recursion as a loop, or keep the default recursion limit."));
      break;
    default: break;
  }
  if (in->status == WASMBOX_STATUS_ERROR &&
      (has(in->error_message, "No space left") || has(in->error_message, "ENOSPC")))
    add(&h, "quota_exceeded",
        fmt("/app holds at most %llu MB of files (its quota). Delete files that are no longer needed, "
            "write less, or raise the quota (quota_mb / --quota).",
            (unsigned long long)(in->quota_bytes >> 20)));
  if (in->status == WASMBOX_STATUS_ERROR && !strcmp(in->language, "python")) python_rules(in, &h);
  if (in->status == WASMBOX_STATUS_ERROR && !strcmp(in->language, "javascript")) javascript_rules(in, &h);
  if (in->output_truncated)
    add(&h, "output_truncated",
        fmt("Output beyond %zu bytes per stream was dropped. Print a summary and write large results "
            "to a file in /app instead.",
            in->max_output));
  return h.n;
}
