/* The engine: runs one piece of code in a fresh instance of a runtime.
 *
 * Contract: wb_engine_run() instantiates the runtime on a dedicated thread
 * (fixed stack, alternate signal stack, wall-clock timer), initialises the
 * interpreter, runs the code and reports what happened in a wb_outcome. It
 * always returns: traps, timeouts and guest exits become outcome fields, and
 * the instance is discarded afterwards. The WASI host (stdio, mounts) is the
 * caller's and outlives the call, so the caller reads output and changed files
 * from it. Only host failures (no memory, no thread) return false. */
#ifndef WASMBOX_ENGINE_ENGINE_H
#define WASMBOX_ENGINE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/runtime.h"
#include "wasi/wasi.h"

typedef struct {
  const wb_runtime *runtime;
  wb_wasi *wasi;
  const char *code;
  size_t code_len;
  const char *name;            /* file name for tracebacks */
  uint64_t memory_limit;       /* bytes of linear memory */
  uint64_t timeout_ns;         /* wall clock; 0 = none */
} wb_engine_call;

typedef struct {
  int trap;                    /* 0, or a wasm_rt_trap_t / WB_TRAP_* code */
  uint32_t exit_code;          /* wasmbox_run's status, or proc_exit's code */
  bool init_failed;            /* the interpreter did not start */
  bool memory_grow_failed;     /* the guest asked for memory beyond the limit */
  uint64_t memory_peak;        /* bytes of linear memory at the end */
  uint64_t duration_ns;
  char *error_type, *error_message, *error_traceback; /* from the guest, or NULL */
} wb_outcome;

/* Run the call; false only on a host failure (reason in err). */
bool wb_engine_run(const wb_engine_call *call, wb_outcome *out, char *err, size_t errlen);
void wb_outcome_clear(wb_outcome *o);

#endif
