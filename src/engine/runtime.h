/* A runtime: one guest module translated to native code, as the engine sees it.
 *
 * Every runtime module is a WASI reactor exporting the same small ABI:
 *   _initialize()                          C constructors
 *   wasmbox_init() -> 0 | error            start the interpreter
 *   wasmbox_alloc(size) -> ptr             guest memory for the host to fill
 *   wasmbox_run(code, len, name, len) -> exit status (buffers freed by guest)
 * and imports only wasi_snapshot_preview1 and wasmbox.report_error. A new
 * language is a recipe under runtimes/ plus a glue file filling this table
 * (src/runtimes/NAME.c); the engine never names a module. */
#ifndef WASMBOX_ENGINE_RUNTIME_H
#define WASMBOX_ENGINE_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wasm-rt.h>

#include "wasi/image.h"

struct Z_wasi_snapshot_preview1_instance_t;
struct Z_wasmbox_instance_t;

/* A read-only image the runtime shows its guest (stdlib, time zones). */
typedef struct {
  const char *guest_path;
  const wb_image *image;
} wb_runtime_mount;

#define WB_RUNTIME_MOUNTS_MAX 4

typedef struct wb_runtime {
  const char *language;       /* "python", "javascript" */
  const char *version;        /* of the interpreter */
  const char *default_name;   /* file name for code given inline */
  const char *oom_error_type; /* the guest's exception for exhausted memory */
  /* Optional: does an uncaught error mean exhausted memory? For guests whose
   * out-of-memory error shares its type with others (QuickJS raises
   * InternalError for "out of memory" and for "stack overflow"). NULL: the
   * type equals oom_error_type. */
  bool (*is_oom)(const char *type, const char *message);
  size_t instance_size;
  /* Once per process, before the first instantiate: register types and
   * check the embedded images. False (reason in err) if one is unusable. */
  bool (*prepare)(char *err, size_t errlen);
  /* The runtime's read-only images (after prepare); *n <= WB_RUNTIME_MOUNTS_MAX. */
  const wb_runtime_mount *(*mounts)(size_t *n);
  void (*instantiate)(void *inst, struct Z_wasi_snapshot_preview1_instance_t *wasi,
                      struct Z_wasmbox_instance_t *host);
  void (*free)(void *inst);
  wasm_rt_memory_t *(*memory)(void *inst);
  void (*initialize)(void *inst);
  uint32_t (*init)(void *inst);
  uint32_t (*alloc)(void *inst, uint32_t size);
  uint32_t (*run)(void *inst, uint32_t code, uint32_t code_len, uint32_t name, uint32_t name_len);
} wb_runtime;

/* The runtimes linked into this binary, NULL-terminated. */
extern const wb_runtime *const wb_runtimes[];

/* By language name or alias ("python", "py", "javascript", "js"); NULL if none. */
const wb_runtime *wb_runtime_find(const char *language);

#endif
