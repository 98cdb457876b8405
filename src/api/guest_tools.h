/* The tool requests of a call's guest: every request it makes (JSON text from guest
 * memory, or from a worker: untrusted either way) is parsed and checked
 * here, against its shape, the request's allowed_tools and its limits
 * (requests of op "call", bytes both ways, the call's deadline), and only
 * then given to the request's handler (wasmbox.h, "Tools"), whose reply is
 * checked too. The guest always gets an envelope its tools module reads:
 *   {"ok": true, "result": ...}
 *   {"ok": false, "error": {"type": ..., "message": ...}}
 * with the types ToolError (the handler's or the tool's failure),
 * ToolNotAllowed, ToolArgumentError, ToolLimitExceeded, ToolTimeout and
 * ToolRequestError (a malformed request). In a worker the same checks run in the parent, on
 * what the worker forwards. */
#ifndef WASMBOX_API_GUEST_TOOLS_H
#define WASMBOX_API_GUEST_TOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/host_imports.h"
#include "util/buf.h"
#include "wasmbox.h"

#define WB_TOOL_NAME_MAX 256
#define WB_TOOL_QUERY_MAX 4096

typedef struct {
  const wasmbox_request *req;
  unsigned max_calls;
  uint64_t max_bytes;
  uint64_t deadline_ns; /* CLOCK_MONOTONIC */
  unsigned calls;       /* op "call" requests so far */
  uint64_t bytes;       /* requests and replies so far */
  /* Approval (wasmbox.h). A run that can pause keeps every request and the
   * reply the guest got, in order ([u64 n][request][u64 m][reply]...). */
  bool can_pause;
  wb_buf journal;
  char *paused; /* the request that waits, once the run paused */
  size_t paused_len;
  /* A resumed run: the paused run's journal, replayed first (a request
   * that differs makes the run diverged: its tools are off); then the
   * pending request, answered as decided. */
  const uint8_t *replay;
  size_t replay_len, replay_pos;
  const char *pending;
  size_t pending_len;
  bool approve;
  const char *given, *message; /* approve: the result to give; deny: why */
  bool diverged;
} wb_tools;

/* The tools of a call of `req` that started at `start_ns`. */
void wb_tools_begin(wb_tools *t, const wasmbox_request *req, double timeout_s, uint64_t start_ns);
/* The reply to one request (malloc'd, *reply_len bytes); NULL only when
 * out of memory, or with *pause set: the handler wants approval and the run
 * stops (t->paused holds the request). The signature of wb_tool_route's
 * answer. */
char *wb_tools_answer(void *tools, const uint8_t *request, size_t len, size_t *reply_len, bool *pause);
void wb_tools_end(wb_tools *t);
/* An error reply of `type` (malloc'd, *len bytes; NULL: out of memory). */
char *wb_tools_error(size_t *len, const char *type, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A request's allowed_tools and tool limits, checked (by wb_resolve). */
int wb_tools_check(const wasmbox_request *req, char *err, size_t errlen);

#endif
