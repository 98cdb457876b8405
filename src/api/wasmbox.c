/* The library (include/wasmbox.h): checks a request, prepares the workspace
 * and WASI host, runs the engine, and turns its outcome into a result. */
#include "wasmbox.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wasm-rt.h>

#include "api/guidance.h"
#include "api/sandbox.h"
#include "engine/engine.h"
#include "engine/guest.h"
#include "engine/runtime.h"
#include "util/buf.h"
#include "util/json.h"
#include "wasi/wasi.h"

#define MAX_TIMEOUT_S (24.0 * 3600)
#define MAX_MEMORY (4ull << 30) /* all a 32-bit guest can address */
#define MAX_OUTPUT (1ull << 30)
#define MAX_CODE (64u << 20)
#define MAX_FDS 128

/* Idle instances of each runtime, already started from its base snapshot
 * and reset to it after their last call: a stateless call takes one and does
 * no instantiation at all. */
#define POOL_MAX 8
#define RUNTIMES_MAX 8

typedef struct {
  wb_instance *idle[POOL_MAX];
  size_t n;
} pool;

struct wasmbox {
  pthread_mutex_t lock;
  pool pools[RUNTIMES_MAX];
};

static pool *pool_of(wasmbox *wb, const wb_runtime *rt) {
  for (size_t i = 0; wb_runtimes[i] && i < RUNTIMES_MAX; i++)
    if (wb_runtimes[i] == rt) return &wb->pools[i];
  return NULL;
}

static wb_instance *pool_take(wasmbox *wb, const wb_runtime *rt) {
  pool *p = pool_of(wb, rt);
  wb_instance *in = NULL;
  pthread_mutex_lock(&wb->lock);
  if (p && p->n) in = p->idle[--p->n];
  pthread_mutex_unlock(&wb->lock);
  return in;
}

/* Reset `in` to the base snapshot and keep it, or free it. */
static void pool_give(wasmbox *wb, const wb_runtime *rt, wb_instance *in) {
  const wb_snapshot *base = rt->base_snapshot();
  char err[256];
  pool *p = pool_of(wb, rt);
  if (base && p && wb_instance_started(in) && wb_instance_reset(in, base, err, sizeof err)) {
    pthread_mutex_lock(&wb->lock);
    bool kept = p->n < POOL_MAX;
    if (kept) p->idle[p->n++] = in;
    pthread_mutex_unlock(&wb->lock);
    if (kept) return;
  }
  wb_instance_free(in);
}

/* The public result plus what it owns. */
typedef struct {
  wasmbox_result pub;
  char *out, *err, *type, *message, *traceback, *session;
  char *guidance[WB_GUIDANCE_MAX];
  char **files;
} result_impl;

wasmbox *wasmbox_new(char *err, size_t errlen) {
  wasmbox *wb = calloc(1, sizeof *wb);
  if (!wb) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  pthread_mutex_init(&wb->lock, NULL);
  return wb;
}

void wasmbox_free(wasmbox *wb) {
  if (!wb) return;
  for (size_t i = 0; i < RUNTIMES_MAX; i++)
    for (size_t j = 0; j < wb->pools[i].n; j++) wb_instance_free(wb->pools[i].idle[j]);
  pthread_mutex_destroy(&wb->lock);
  free(wb);
}

const char *wasmbox_status_name(wasmbox_status s) {
  static const char *const names[] = {"ok", "error", "timeout", "out_of_fuel", "out_of_memory", "crashed"};
  return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "unknown";
}

const char *const *wasmbox_languages(void) {
  static const char *langs[16];
  size_t i = 0;
  for (; wb_runtimes[i] && i < 15; i++) langs[i] = wb_runtimes[i]->language;
  langs[i] = NULL;
  return langs;
}

static int usage(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int usage(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return WASMBOX_EUSAGE;
}

static bool valid_env(const char *e) {
  const char *eq = strchr(e, '=');
  if (!eq || eq == e) return false;
  for (const char *p = e; p < eq; p++)
    if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (p > e && *p >= '0' && *p <= '9')))
      return false;
  return true;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  if (flag == FTW_DP) rmdir(path);
  else unlink(path);
  return 0;
}

/* Remove a directory tree without following symlinks or leaving the file system. */
static void remove_tree(const char *dir) { nftw(dir, remove_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT); }

static char *dup_bytes(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (!d) return NULL;
  if (n) memcpy(d, s, n);
  d[n] = 0;
  return d;
}

static const char *trap_message(int trap) {
  switch (trap) {
    case WASM_RT_TRAP_EXHAUSTION: return "call stack exhausted (recursion too deep)";
    case WASM_RT_TRAP_OOB: return "invalid memory access in the interpreter (out of bounds)";
    case WASM_RT_TRAP_UNREACHABLE: return "the interpreter aborted (unreachable code executed)";
    default: return wasm_rt_strerror((wasm_rt_trap_t)trap);
  }
}

static bool is_oom_error(const wb_runtime *rt, const char *type, const char *message) {
  if (!type) return false;
  if (rt->is_oom) return rt->is_oom(type, message ? message : "");
  return !strcmp(type, rt->oom_error_type);
}

static void classify(result_impl *r, const wb_runtime *rt, const wb_call *call, const wb_outcome *o,
                     double timeout_s) {
  wasmbox_result *p = &r->pub;
  char buf[256];
  p->exit_code = (int)o->exit_code;
  if (o->trap == WB_TRAP_TIMEOUT) {
    p->status = WASMBOX_STATUS_TIMEOUT;
    r->type = strdup("Timeout");
    snprintf(buf, sizeof buf, "the code did not finish within %g s and was stopped", timeout_s);
    r->message = strdup(buf);
  } else if (o->trap == WB_TRAP_FUEL) {
    p->status = WASMBOX_STATUS_OUT_OF_FUEL;
    r->type = strdup("OutOfFuel");
    r->message = strdup("the code used up its instruction budget and was stopped");
  } else if (o->trap && o->memory_grow_failed) {
    p->status = WASMBOX_STATUS_OUT_OF_MEMORY;
    r->type = strdup(rt->oom_error_type);
    snprintf(buf, sizeof buf, "the code needed more than the %llu MB memory limit",
             (unsigned long long)(call->memory_limit >> 20));
    r->message = strdup(buf);
  } else if (o->trap) {
    p->status = WASMBOX_STATUS_CRASHED;
    r->type = strdup("Crash");
    r->message = strdup(trap_message(o->trap));
  } else if (o->exit_code == 0) {
    p->status = WASMBOX_STATUS_OK;
  } else {
    bool oom = is_oom_error(rt, o->error_type, o->error_message);
    p->status = oom ? WASMBOX_STATUS_OUT_OF_MEMORY : WASMBOX_STATUS_ERROR;
    if (o->error_type) {
      r->type = strdup(o->error_type);
      r->message = strdup(o->error_message ? o->error_message : "");
      r->traceback = o->error_traceback && *o->error_traceback ? strdup(o->error_traceback) : NULL;
    } else {
      r->type = strdup("SystemExit");
      snprintf(buf, sizeof buf, "the program exited with status %u", o->exit_code);
      r->message = strdup(buf);
    }
  }
  if (p->status != WASMBOX_STATUS_OK && p->exit_code == 0) p->exit_code = 1;
}

int wasmbox_run(wasmbox *wb, const wasmbox_request *req, wasmbox_result **out, char *err, size_t errlen) {
  *out = NULL;
  err[0] = 0;
  const char *lang = req->language ? req->language : "python";
  const wb_runtime *rt = wb_runtime_find(lang);
  if (!rt) return usage(err, errlen, "unknown language '%s'", lang);
  if (!req->code) return usage(err, errlen, "no code given");
  size_t code_len = req->code_len ? req->code_len : strlen(req->code);
  if (code_len > MAX_CODE) return usage(err, errlen, "code is larger than %u MB", MAX_CODE >> 20);
  double timeout = req->timeout_seconds == 0 ? WASMBOX_DEFAULT_TIMEOUT_S : req->timeout_seconds;
  if (!(timeout > 0 && timeout <= MAX_TIMEOUT_S))
    return usage(err, errlen, "timeout must be between 0 and %g seconds", MAX_TIMEOUT_S);
  uint64_t memory = req->memory_bytes ? req->memory_bytes : WASMBOX_DEFAULT_MEMORY;
  if (memory > MAX_MEMORY) return usage(err, errlen, "memory limit must be at most %llu MB", MAX_MEMORY >> 20);
  size_t max_output = req->max_output_bytes ? req->max_output_bytes : WASMBOX_DEFAULT_MAX_OUTPUT;
  if (max_output > MAX_OUTPUT) return usage(err, errlen, "output limit must be at most %llu MB", MAX_OUTPUT >> 20);
  const char *name = req->filename ? req->filename : rt->default_name;
  if (strlen(name) > 1024) return usage(err, errlen, "file name is longer than 1024 bytes");
  for (size_t i = 0; i < req->env_len; i++)
    if (!req->env[i] || !valid_env(req->env[i]))
      return usage(err, errlen, "environment entry %zu is not NAME=value", i);

  if (req->mounts_len > WASMBOX_MAX_MOUNTS) return usage(err, errlen, "at most %d mounts", WASMBOX_MAX_MOUNTS);
  for (size_t i = 0; i < req->mounts_len; i++) {
    const wasmbox_mount *m = &req->mounts[i];
    const char *g = m->guest_path;
    if (!m->host_dir || !g) return usage(err, errlen, "mount %zu lacks a host directory or guest path", i);
    if (g[0] != '/' || !strcmp(g, "/") || strstr(g, "/../") || strstr(g, "/./") || strstr(g, "//") ||
        (strlen(g) >= 3 && (!strcmp(g + strlen(g) - 3, "/..") || !strcmp(g + strlen(g) - 2, "/."))) ||
        g[strlen(g) - 1] == '/' || strlen(g) > 1024)
      return usage(err, errlen, "mount path '%s' must be a plain absolute path other than /", g);
    if (!strcmp(g, "/app") || !strncmp(g, "/app/", 5))
      return usage(err, errlen, "mount path '%s' is inside the workspace /app", g);
    struct stat st;
    if (stat(m->host_dir, &st) != 0 || !S_ISDIR(st.st_mode))
      return usage(err, errlen, "mount source %s is not a directory", m->host_dir);
  }

  char tmpdir[4096] = "";
  const char *workspace = req->workspace;
  if (workspace) {
    struct stat st;
    if (stat(workspace, &st) != 0) return usage(err, errlen, "workspace %s: %s", workspace, strerror(errno));
    if (!S_ISDIR(st.st_mode)) return usage(err, errlen, "workspace %s is not a directory", workspace);
  } else {
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/wasmbox-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir)) {
      snprintf(err, errlen, "cannot create a temporary workspace in %s: %s", t && *t ? t : "/tmp", strerror(errno));
      return WASMBOX_EINTERNAL;
    }
    workspace = tmpdir;
  }

  int rc = WASMBOX_OK;
  result_impl *r = NULL;
  wb_wasi *wasi = NULL;
  wb_instance *instance = NULL;
  wb_outcome o;
  memset(&o, 0, sizeof o);
  if (!rt->prepare(err, errlen)) {
    rc = WASMBOX_EINTERNAL;
    goto done;
  }
  wb_mount mounts[WB_SANDBOX_MOUNTS_MAX];
  size_t nmounts = wb_sandbox_mounts(rt, workspace, req->mounts, req->mounts_len, mounts);
  const char *args[] = {rt->language};
  wb_wasi_config wc = {.args = args, .nargs = 1, .env = req->env, .nenv = req->env_len,
                       .mounts = mounts, .nmounts = nmounts, .stdin_data = (const uint8_t *)req->stdin_data,
                       .stdin_len = req->stdin_data ? req->stdin_len : 0, .max_output = max_output,
                       .max_fds = MAX_FDS};
  wasi = wb_wasi_new(&wc, err, errlen);
  if (!wasi) {
    rc = WASMBOX_EINTERNAL;
    goto done;
  }
  wb_call call = {.wasi = wasi, .memory_limit = memory, .timeout_ns = (uint64_t)(timeout * 1e9)};
  /* a fresh copy of the base snapshot when the binary has one */
  const wb_snapshot *base = rt->base_snapshot();
  wb_job job = {.from = base, .fresh = base != NULL, .code = req->code, .code_len = code_len, .name = name};
  instance = base ? pool_take(wb, rt) : NULL;
  if (!instance) instance = wb_instance_new(rt, err, errlen);
  if (!instance || !wb_instance_call(instance, &call, &job, &o, err, errlen)) {
    rc = WASMBOX_EINTERNAL;
    goto done;
  }
  if (o.init_failed && !o.trap) {
    /* The engine says why (a memory limit below the runtime's minimum). */
    if (!err[0]) snprintf(err, errlen, "the %s runtime failed to start", rt->language);
    rc = err[0] && strstr(err, "memory limit") ? WASMBOX_EUSAGE : WASMBOX_EINTERNAL;
    goto done;
  }

  r = calloc(1, sizeof *r);
  if (!r) {
    snprintf(err, errlen, "out of memory");
    rc = WASMBOX_EINTERNAL;
    goto done;
  }
  wasmbox_result *p = &r->pub;
  classify(r, rt, &call, &o, timeout);
  wb_output so = wb_wasi_stdout(wasi), se = wb_wasi_stderr(wasi);
  r->out = dup_bytes(so.data, so.len);
  r->err = dup_bytes(se.data, se.len);
  p->stdout_data = r->out ? r->out : "";
  p->stdout_len = r->out ? so.len : 0;
  p->stdout_truncated = so.truncated;
  p->stdout_total = so.total;
  p->stderr_data = r->err ? r->err : "";
  p->stderr_len = r->err ? se.len : 0;
  p->stderr_truncated = se.truncated;
  p->stderr_total = se.total;
  p->error_type = r->type;
  p->error_message = r->message;
  p->error_traceback = r->traceback;
  p->duration_ms = (double)o.duration_ns / 1e6;
  p->memory_peak_bytes = o.memory_peak;
  p->fuel_used = 0;

  size_t nfiles;
  const char *const *files = wb_wasi_changed_files(wasi, &nfiles);
  r->files = calloc(nfiles ? nfiles : 1, sizeof *r->files);
  for (size_t i = 0; r->files && i < nfiles; i++) r->files[i] = strdup(files[i]);
  p->files_changed = (const char *const *)r->files;
  p->files_changed_len = r->files ? nfiles : 0;

  wb_guidance_input gi = {.language = rt->language, .status = p->status, .error_type = r->type,
                          .error_message = r->message, .traceback = r->traceback, .timeout_seconds = timeout,
                          .memory_bytes = memory, .output_truncated = so.truncated || se.truncated,
                          .max_output = max_output};
  p->guidance_len = wb_guidance(&gi, r->guidance);
  p->guidance = (const char *const *)r->guidance;
  *out = p;

done:
  wb_outcome_clear(&o);
  if (instance) pool_give(wb, rt, instance);
  wb_wasi_free(wasi);
  if (tmpdir[0]) remove_tree(tmpdir);
  return rc;
}

void wasmbox_result_free(wasmbox_result *res) {
  if (!res) return;
  result_impl *r = (result_impl *)res;
  free(r->out);
  free(r->err);
  free(r->type);
  free(r->message);
  free(r->traceback);
  free(r->session);
  for (size_t i = 0; i < WB_GUIDANCE_MAX; i++) free(r->guidance[i]);
  for (size_t i = 0; r->files && i < res->files_changed_len; i++) free(r->files[i]);
  free(r->files);
  free(r);
}

char *wasmbox_result_json(const wasmbox_result *r) {
  wb_buf b = {0};
  wb_buf_puts(&b, "{\"status\":");
  wb_json_cstr(&b, wasmbox_status_name(r->status));
  wb_buf_puts(&b, ",\"stdout\":");
  wb_json_str(&b, r->stdout_data, r->stdout_len);
  wb_buf_puts(&b, ",\"stderr\":");
  wb_json_str(&b, r->stderr_data, r->stderr_len);
  wb_buf_printf(&b, ",\"stdout_truncated\":%s,\"stderr_truncated\":%s", r->stdout_truncated ? "true" : "false",
                r->stderr_truncated ? "true" : "false");
  wb_buf_printf(&b, ",\"stdout_bytes\":%llu,\"stderr_bytes\":%llu", (unsigned long long)r->stdout_total,
                (unsigned long long)r->stderr_total);
  wb_buf_printf(&b, ",\"exit_code\":%d,\"error\":", r->exit_code);
  if (!r->error_type) {
    wb_buf_puts(&b, "null");
  } else {
    wb_buf_puts(&b, "{\"type\":");
    wb_json_cstr(&b, r->error_type);
    wb_buf_puts(&b, ",\"message\":");
    wb_json_cstr(&b, r->error_message ? r->error_message : "");
    wb_buf_puts(&b, ",\"traceback\":");
    wb_json_cstr(&b, r->error_traceback);
    wb_buf_puts(&b, ",\"guidance\":[");
    for (size_t i = 0; i < r->guidance_len; i++) {
      if (i) wb_buf_puts(&b, ",");
      wb_json_cstr(&b, r->guidance[i]);
    }
    wb_buf_puts(&b, "]}");
  }
  wb_buf_puts(&b, ",\"duration_ms\":");
  wb_json_num(&b, round(r->duration_ms * 1000) / 1000);
  wb_buf_printf(&b, ",\"fuel_used\":%llu,\"memory_peak_bytes\":%llu,\"session_id\":",
                (unsigned long long)r->fuel_used, (unsigned long long)r->memory_peak_bytes);
  wb_json_cstr(&b, r->session_id);
  wb_buf_puts(&b, ",\"files_changed\":[");
  for (size_t i = 0; i < r->files_changed_len; i++) {
    if (i) wb_buf_puts(&b, ",");
    wb_json_cstr(&b, r->files_changed[i]);
  }
  wb_buf_puts(&b, "]");
  if (!r->error_type && r->guidance_len) {
    /* hints without an error (e.g. output cut) */
    wb_buf_puts(&b, ",\"guidance\":[");
    for (size_t i = 0; i < r->guidance_len; i++) {
      if (i) wb_buf_puts(&b, ",");
      wb_json_cstr(&b, r->guidance[i]);
    }
    wb_buf_puts(&b, "]");
  }
  wb_buf_puts(&b, "}");
  return wb_buf_take(&b);
}
