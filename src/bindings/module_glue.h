/* The accessors every runtime glue file needs around its wasm2c module.
 * wasm2c names everything after the module (Z_<m>_instantiate,
 * Z_<m>Z_wasmbox_run, ...), tools/w2c_split.py adds the snapshot helpers
 * (Z_<m>_wb_globals_*), and the Makefile the build id (WB_BUILD_ID_<m>) and
 * the embedded base snapshot (wb_<m>_snapshot), so one macro writes them all
 * for module `m`, and WB_MODULE_FIELDS(m) fills the matching wb_runtime
 * fields:
 *
 *   #include "javascript.h"            // generated, from runtimes/native.sh
 *   WB_MODULE_GLUE(javascript)
 *   static wb_runtime_mount images[] = {...};   // its read-only images
 *   static char prepare_error[256];
 *   static void prepare_once(void) { ... init_modules(), open_base_snapshot(), images ... }
 *   WB_MODULE_PREPARE                          // prepare() and mounts() over those
 *   const wb_runtime wb_runtime_javascript = {..., .prepare = prepare, .mounts = mounts,
 *                                             WB_MODULE_FIELDS(javascript)};
 *
 * Everything the host runs while the counter cannot run out (constructors,
 * initialisation, refreshing, copying in, a call without a budget) starts
 * with the counter at INT64_MAX; the module's fuel checks cost too little
 * to keep a second copy without them (tools/w2c_split.py).
 *
 * What differs between runtimes (names, images, preload) stays in the glue
 * file; this header is all that is the same. */
#ifndef WASMBOX_BINDINGS_MODULE_GLUE_H
#define WASMBOX_BINDINGS_MODULE_GLUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "build_id.h"
#include "engine/host_imports.h"
#include "engine/runtime.h"
#include "engine/snapshot.h"
#include "wasi/imports.h"

#define WB_MODULE_GLUE(m)                                                                                              \
  extern const int Z_##m##_wb_tables_mutable;                                                                          \
  extern const int Z_##m##_wb_fuel_in_register;                                                                        \
  /* runtimes/native.sh: around all the module's code */                                                               \
  extern const char Z_##m##_wb_code_start[], Z_##m##_wb_code_end[];                                                    \
  uint32_t Z_##m##_wb_globals_size(void);                                                                              \
  void Z_##m##_wb_globals_save(const Z_##m##_instance_t *instance, uint8_t *out);                                      \
  void Z_##m##_wb_globals_load(Z_##m##_instance_t *instance, const uint8_t *in);                                       \
  /* Makefile: snapshots.S, made by tools/mksnapshot; empty in the library the                                         \
   * tool itself links with */                                                                                         \
  extern const uint8_t wb_##m##_snapshot[], wb_##m##_snapshot_end[];                                                   \
  extern const wb_runtime wb_runtime_##m;                                                                              \
  static wb_snapshot base;                                                                                             \
  static bool have_base;                                                                                               \
  /* The embedded base snapshot, if this binary has one; false if unusable. */                                         \
  static bool open_base_snapshot(char *err, size_t errlen) {                                                           \
    size_t n = (size_t)(wb_##m##_snapshot_end - wb_##m##_snapshot);                                                    \
    if (n == 0) return true;                                                                                           \
    have_base = wb_snapshot_open_embedded(&wb_runtime_##m, WB_BUILD_ID_##m, wb_##m##_snapshot, n, &base, err, errlen); \
    return have_base;                                                                                                  \
  }                                                                                                                    \
  static const wb_snapshot *base_snapshot(void) { return have_base ? &base : NULL; }                                   \
  static void instantiate(void *inst, struct Z_wasi_snapshot_preview1_instance_t *wasi,                                \
                          struct Z_wasmbox_instance_t *host) {                                                         \
    Z_##m##_instantiate(inst, wasi, host);                                                                             \
  }                                                                                                                    \
  static void bind(void *inst, struct Z_wasi_snapshot_preview1_instance_t *wasi, struct Z_wasmbox_instance_t *host) {  \
    Z_##m##_instance_t *i = inst;                                                                                      \
    i->Z_wasi_snapshot_preview1_instance = wasi;                                                                       \
    i->Z_wasmbox_instance = host;                                                                                      \
  }                                                                                                                    \
  static void init_modules(void) { Z_##m##_init_module(); }                                                            \
  static void free_instance(void *inst) { Z_##m##_free(inst); }                                                        \
  static wasm_rt_memory_t *memory(void *inst) { return Z_##m##Z_memory(inst); }                                        \
  static void initialize(void *inst) { Z_##m##Z__initialize(inst); }                                                   \
  static uint32_t init(void *inst) { return Z_##m##Z_wasmbox_init(inst); }                                             \
  static uint32_t fresh(void *inst) { return Z_##m##Z_wasmbox_fresh(inst); }                                           \
  static uint32_t alloc(void *inst, uint32_t n) { return Z_##m##Z_wasmbox_alloc(inst, n); }                            \
  static uint32_t run(void *inst, uint32_t code, uint32_t len, uint32_t name, uint32_t name_len) {                     \
    return Z_##m##Z_wasmbox_run(inst, code, len, name, name_len);                                                      \
  }                                                                                                                    \
  /* u64 in the generated code; the counter is signed (negative: used up) */                                           \
  static int64_t *fuel(void *inst) { return (int64_t *)Z_##m##Z_wasmbox_fuel(inst); }                                  \
  static void globals_save(const void *inst, uint8_t *out) { Z_##m##_wb_globals_save(inst, out); }                     \
  static void globals_load(void *inst, const uint8_t *in) { Z_##m##_wb_globals_load(inst, in); }                       \
  static bool tables_mutable(void) { return Z_##m##_wb_tables_mutable != 0; }

/* The runtime's prepare() (prepare_once, run once; its error, kept for every
 * later call) and mounts() (the images array), over the names above. */
#define WB_MODULE_PREPARE                            \
  static bool prepare(char *err, size_t errlen) {    \
    static pthread_once_t once = PTHREAD_ONCE_INIT;  \
    pthread_once(&once, prepare_once);               \
    if (prepare_error[0]) {                          \
      snprintf(err, errlen, "%s", prepare_error);    \
      return false;                                  \
    }                                                \
    return true;                                     \
  }                                                  \
                                                     \
  static const wb_runtime_mount *mounts(size_t *n) { \
    *n = sizeof images / sizeof images[0];           \
    return images;                                   \
  }

#define WB_MODULE_FIELDS(m)                                                                                    \
  .build_id = WB_BUILD_ID_##m, .instance_size = sizeof(Z_##m##_instance_t), .base_snapshot = base_snapshot,    \
  .instantiate = instantiate, .bind = bind, .free = free_instance, .memory = memory, .initialize = initialize, \
  .init = init, .fresh = fresh, .alloc = alloc, .run = run, .fuel = fuel, .code_start = Z_##m##_wb_code_start, \
  .code_end = Z_##m##_wb_code_end, .fuel_in_register = &Z_##m##_wb_fuel_in_register,                           \
  .globals_size = Z_##m##_wb_globals_size, .globals_save = globals_save, .globals_load = globals_load,         \
  .tables_mutable = tables_mutable

#endif
