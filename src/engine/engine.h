/* The engine: instances of a runtime, and the guest thread that runs them.
 *
 * Contract: an instance is started either from a snapshot (its memory is
 * mapped copy-on-write, its globals loaded; nothing is initialised again) or
 * by initialising the interpreter. wb_instance_call() does, on a guest
 * thread (fixed stack, alternate signal stack, one wall-clock deadline):
 * start the instance if needed, refresh it if asked (a new copy of a
 * snapshot takes the call's environment and mounts), and run code with the
 * call's fuel budget (only the code is metered, so the same code from the
 * same state always uses the same fuel). It always
 * returns: traps, timeouts and guest exits become outcome fields. After a
 * trap the instance's state is undefined until wb_instance_reset() puts it
 * back to a snapshot. The WASI host is the caller's, per call; it outlives
 * the call so the caller can read output and changed files from it. Only
 * host failures (no memory, no thread, no timer) return false. */
#ifndef WASMBOX_ENGINE_ENGINE_H
#define WASMBOX_ENGINE_ENGINE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/host_imports.h"
#include "engine/runtime.h"
#include "wasm_rt/wasm_rt_ext.h"
#include "wasi/wasi.h"

/* The state of an instance at one moment. */
typedef struct wb_snapshot_s {
  const wb_runtime *runtime;
  wb_memory_image memory; /* mapped copy-on-write by every copy */
  uint8_t *globals;       /* runtime->globals_size() bytes */
  bool owns_fd;           /* close memory.fd when released */
} wb_snapshot;

/* Stops a call from another thread (see wasmbox_cancel in wasmbox.h). */
typedef struct wb_cancel wb_cancel;
wb_cancel *wb_cancel_new(void);
void wb_cancel_fire(wb_cancel *c);
void wb_cancel_free(wb_cancel *c);
/* Unfired again, for another call (one that is not running). */
void wb_cancel_reset(wb_cancel *c);
/* Whether it has fired (no system call). */
bool wb_cancel_fired(wb_cancel *c);
/* Readable once the token has fired (for poll()). */
int wb_cancel_fd(const wb_cancel *c);

typedef struct {
  wb_wasi *wasi;
  uint64_t memory_limit;      /* bytes of linear memory */
  uint64_t timeout_ns;        /* wall clock, 0 = none */
  uint64_t fuel;              /* budget of the job's code (not of starting or
                                 refreshing the instance); 0 = INT64_MAX */
  wb_cancel *cancel;          /* or NULL */
  const wb_tool_route *tools; /* answers the guest's tool requests; NULL: none */
} wb_call;

typedef struct {
  const wb_snapshot *from; /* start from this snapshot (if not started) */
  bool fresh;              /* call wasmbox_fresh() before the code */
  const char *code;        /* code to run, or NULL */
  size_t code_len;
  const char *name; /* its file name, for tracebacks */
} wb_job;

typedef struct {
  int trap;                /* 0, or a wasm_rt_trap_t / WB_TRAP_* code */
  uint32_t exit_code;      /* wasmbox_run's status, or proc_exit's code */
  bool init_failed;        /* the interpreter did not start */
  bool cancelled;          /* stopped by its cancel token */
  bool memory_grow_failed; /* the guest asked for memory beyond the limit */
  uint64_t memory_peak;    /* bytes of linear memory at the end */
  uint64_t fuel_used;      /* of the budget, by the job's code (all of it: WB_TRAP_FUEL) */
  uint64_t duration_ns;
  char *error_type, *error_message, *error_traceback; /* from the guest, or NULL */
} wb_outcome;

typedef struct wb_instance wb_instance;

wb_instance *wb_instance_new(const wb_runtime *rt, char *err, size_t errlen);
bool wb_instance_call(wb_instance *in, const wb_call *call, const wb_job *job, wb_outcome *out, char *err,
                      size_t errlen);
/* Start a thread that runs guest code itself (a guest thread's stack, guard
 * and signal mask): wb_instance_call() from it runs the call in place, where
 * from any other thread it hands the call to the instance's own thread. */
bool wb_guest_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, char *err, size_t errlen);
/* Capture the instance's memory (into a new memfd) and globals. */
bool wb_instance_capture(wb_instance *in, wb_snapshot *out, char *err, size_t errlen);
/* Put a started instance back to `snap`; only pages written since cost. */
bool wb_instance_reset(wb_instance *in, const wb_snapshot *snap, char *err, size_t errlen);
/* The same for an instance put back to the same `snap` after every call
 * (a pool's): its written pages stay writable for the next call
 * (wb_rt_memory_recycle), which then counts them as written. */
bool wb_instance_recycle(wb_instance *in, const wb_snapshot *snap, char *err, size_t errlen);
/* The instance holds exactly `snap` now (it was just captured from it):
 * count writes from here without copying anything back. */
bool wb_instance_rebase(wb_instance *in, const wb_snapshot *snap, char *err, size_t errlen);
/* 4 KiB pages of its memory written since it last held a snapshot
 * (malloc'd in *out), or -1 when the kernel cannot tell. */
ssize_t wb_instance_written(wb_instance *in, uint32_t **out);
/* The same, and from now on writes count from what the memory holds: as
 * after wb_instance_rebase onto a snapshot of it, which the caller makes
 * of these pages, without a second pass over the memory. The pages taken
 * may be counted again by the next take, changed or not (they stay
 * writable for a while: wb_rt_memory_written). A reset to an older
 * snapshot can no longer tell what changed: an instance whose caller then
 * fails to keep that snapshot must go. After -1, nothing is counted from
 * here (some pages may be): rebase as before. */
ssize_t wb_instance_take_written(wb_instance *in, uint32_t **out);
bool wb_instance_started(const wb_instance *in);
/* A started instance's memory and globals (runtime->globals_size() bytes). */
wasm_rt_memory_t *wb_instance_memory(wb_instance *in);
void wb_instance_save_globals(wb_instance *in, uint8_t *out);
void wb_instance_free(wb_instance *in);

void wb_snapshot_release(wb_snapshot *s);
void wb_outcome_clear(wb_outcome *o);

#endif
