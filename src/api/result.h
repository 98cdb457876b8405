/* Results: a wasmbox_result and the strings it owns, built from the
 * engine's outcome and the call's WASI host, or made by the host for a
 * call that has no outcome (its worker died, it was cancelled first). */
#ifndef WASMBOX_API_RESULT_H
#define WASMBOX_API_RESULT_H

#include "api/guidance.h"
#include "engine/engine.h"
#include "engine/runtime.h"
#include "wasi/wasi.h"
#include "wasmbox.h"

/* The public result plus what it owns; wasmbox_result_free() frees both. */
typedef struct {
  wasmbox_result pub;
  char *out, *err, *type, *message, *traceback, *session;
  char *guidance[WB_GUIDANCE_MAX];
  const char *guidance_type[WB_GUIDANCE_MAX], *guidance_doc[WB_GUIDANCE_MAX]; /* static strings */
  char **files;
  char *pending_tool, *pending_arguments, *resume_token;
  /* a run that may pause: its journal (wasi/journal.h), for the library
   * to keep if it paused; never shown to the caller */
  char *journal;
  size_t journal_len;
  bool journal_overflowed;
} wb_result;

/* The limits a call ran under, for classifying its end and for guidance. */
typedef struct {
  const wb_runtime *rt;
  double timeout_s;
  uint64_t fuel;
  uint64_t memory_limit;
  size_t max_output;
  uint64_t quota;
} wb_limits_used;

/* NULL: out of memory. */
wb_result *wb_result_build(const wb_outcome *o, wb_wasi *wasi, const wb_limits_used *lim);

/* A result with no output: `status` with error `type` and `message`, in
 * the session (if any) the request names. NULL: out of memory. */
wasmbox_result *wb_result_failure(wasmbox_status status, const char *type, const char *message,
                                  const wasmbox_request *req, const wb_limits_used *lim, double ms, bool rolled_back);

/* A session call whose state the shared session store did not take
 * (session/remote.h): its output stands, its effects are gone; the result
 * says so (status error, type SessionStoreError, rolled back). */
void wb_result_unsaved(wb_result *r, const char *why);

#endif
