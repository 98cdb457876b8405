/* The "wasmbox" import module: what a guest asks of the host beyond WASI.
 *
 *   wasmbox.report_error(type, type_len, message, message_len,
 *                        traceback, traceback_len)
 * copies the three strings (bounded: longer ones are cut and marked) into
 * the current outcome; the last report of a call wins.
 *   wasmbox.tool_request(req, req_len) -> reply_len
 *   wasmbox.tool_reply(buf, len)
 * a tool request (JSON text, see api/guest_tools.h) goes to the call's route,
 * whose reply is held until tool_reply copies it (at most len bytes) and
 * drops it; a new request drops a reply never taken. Without a route every
 * request gets an error reply.
 *   wasmbox.set_alarm(value_ns, interval_ns, old)
 * writes what the call's timer had left and its interval (two u64, ns) at
 * `old`, then arms it (value 0: disarms; UINT64_MAX: leaves it); 0, or 1
 * when the host could not make a timer. When it expires the runtime's
 * raise() gets SIGALRM (wasm_rt/guest.h). The timer belongs to the call:
 * wb_host_end_alarm() deletes it. Bad pointers trap. */
#ifndef WASMBOX_ENGINE_HOST_IMPORTS_H
#define WASMBOX_ENGINE_HOST_IMPORTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <wasm-rt.h>

/* Who answers a call's tool requests: `answer` gets the request's bytes
 * (in guest memory: copy what is kept) and returns a malloc'd reply of
 * *reply_len bytes, or NULL when out of memory; or sets *pause, and the run
 * stops there (WB_TRAP_PAUSE: the call waits for approval). It runs on the
 * guest thread, inside host code: the call's deadline is its to keep. */
typedef struct {
  char *(*answer)(void *ctx, const uint8_t *request, size_t len, size_t *reply_len, bool *pause);
  void *ctx;
} wb_tool_route;

/* Where a report goes: the call's outcome's three strings (engine.h),
 * each replaced (the old one freed) by the next report; where a tool
 * request goes, and its reply until taken. */
struct Z_wasmbox_instance_t {
  wasm_rt_memory_t *mem;
  char **error_type, **error_message, **error_traceback;
  const wb_tool_route *tools; /* NULL: no tools in this call */
  char *reply;
  size_t reply_len;
  timer_t alarm; /* valid while alarm_made */
  bool alarm_made;
};

void Z_wasmboxZ_report_error(struct Z_wasmbox_instance_t *h, uint32_t type, uint32_t type_len, uint32_t msg,
                             uint32_t msg_len, uint32_t tb, uint32_t tb_len);

uint32_t Z_wasmboxZ_tool_request(struct Z_wasmbox_instance_t *h, uint32_t req, uint32_t req_len);
void Z_wasmboxZ_tool_reply(struct Z_wasmbox_instance_t *h, uint32_t buf, uint32_t len);
/* Drop a reply never taken (end of a call). */
void wb_host_drop_reply(struct Z_wasmbox_instance_t *h);

uint32_t Z_wasmboxZ_set_alarm(struct Z_wasmbox_instance_t *h, uint64_t value_ns, uint64_t interval_ns, uint32_t old);
/* Delete the call's timer, if it made one (end of a call). */
void wb_host_end_alarm(struct Z_wasmbox_instance_t *h);

#endif
