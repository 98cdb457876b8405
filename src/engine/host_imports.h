/* The "wasmbox" import module: how a guest reports a structured error.
 *
 *   wasmbox.report_error(type, type_len, message, message_len,
 *                        traceback, traceback_len)
 * copies the three strings (bounded: longer ones are cut and marked) into
 * the current outcome; the last report of a call wins. Bad pointers trap. */
#ifndef WASMBOX_ENGINE_HOST_IMPORTS_H
#define WASMBOX_ENGINE_HOST_IMPORTS_H

#include <stdint.h>
#include <wasm-rt.h>

/* Where a report goes: the call's outcome's three strings (engine.h),
 * each replaced (the old one freed) by the next report. */
struct Z_wasmbox_instance_t {
  wasm_rt_memory_t *mem;
  char **error_type, **error_message, **error_traceback;
};

void Z_wasmboxZ_report_error(struct Z_wasmbox_instance_t *h, uint32_t type, uint32_t type_len, uint32_t msg,
                             uint32_t msg_len, uint32_t tb, uint32_t tb_len);

#endif
