/* The accessors every runtime glue file needs around its wasm2c module.
 * wasm2c names everything after the module (Z_<m>_instantiate,
 * Z_<m>Z_wasmbox_run, ...), so one macro writes them for module `m`, and
 * WB_MODULE_FIELDS(m) fills the matching wb_runtime fields:
 *
 *   #include "javascript.h"            // generated, from runtimes/native.sh
 *   WB_MODULE_GLUE(javascript)
 *   const wb_runtime wb_runtime_javascript = {..., WB_MODULE_FIELDS(javascript)};
 *
 * What differs between runtimes (names, images, prepare) stays in the glue
 * file; this header is all that is the same. */
#ifndef WASMBOX_RUNTIMES_MODULE_GLUE_H
#define WASMBOX_RUNTIMES_MODULE_GLUE_H

#include <stdint.h>

#include "engine/host_imports.h"
#include "engine/runtime.h"
#include "wasi/imports.h"

#define WB_MODULE_GLUE(m)                                                                               \
  static void instantiate(void *inst, struct Z_wasi_snapshot_preview1_instance_t *wasi,                \
                          struct Z_wasmbox_instance_t *host) {                                          \
    Z_##m##_instantiate(inst, wasi, host);                                                              \
  }                                                                                                     \
  static void free_instance(void *inst) { Z_##m##_free(inst); }                                         \
  static wasm_rt_memory_t *memory(void *inst) { return Z_##m##Z_memory(inst); }                        \
  static void initialize(void *inst) { Z_##m##Z__initialize(inst); }                                    \
  static uint32_t init(void *inst) { return Z_##m##Z_wasmbox_init(inst); }                              \
  static uint32_t alloc(void *inst, uint32_t n) { return Z_##m##Z_wasmbox_alloc(inst, n); }             \
  static uint32_t run(void *inst, uint32_t code, uint32_t len, uint32_t name, uint32_t name_len) {     \
    return Z_##m##Z_wasmbox_run(inst, code, len, name, name_len);                                       \
  }

#define WB_MODULE_FIELDS(m)                                                                             \
  .instance_size = sizeof(Z_##m##_instance_t), .instantiate = instantiate, .free = free_instance,      \
  .memory = memory, .initialize = initialize, .init = init, .alloc = alloc, .run = run

#endif
