/* Python 3.11 (runtimes/python): binds the translated module to the engine.
 * Including imports.h beside the generated header makes the compiler check
 * that our WASI functions have the signatures the module imports. */
#include <pthread.h>
#include <stdio.h>

#include "engine/host_imports.h"
#include "engine/runtime.h"
#include "python.h"
#include "wasi/imports.h"

/* Built into the binary (Makefile: images.S): the stdlib as .py + .pyc, and
 * Debian's tzdata so zoneinfo works. */
extern const uint8_t wb_python_stdlib[], wb_python_stdlib_end[];
extern const uint8_t wb_zoneinfo[], wb_zoneinfo_end[];

static wb_image stdlib, zoneinfo;
static wb_runtime_mount images[] = {
    {"/usr/local/lib/python3.11", &stdlib},
    {"/usr/share/zoneinfo", &zoneinfo},
};
static char prepare_error[256];

static void prepare_once(void) {
  wasm_rt_init();
  Z_python_init_module();
  char err[200];
  if (!wb_image_open(&stdlib, wb_python_stdlib, (size_t)(wb_python_stdlib_end - wb_python_stdlib), err, sizeof err))
    snprintf(prepare_error, sizeof prepare_error, "python stdlib: %s", err);
  else if (!wb_image_open(&zoneinfo, wb_zoneinfo, (size_t)(wb_zoneinfo_end - wb_zoneinfo), err, sizeof err))
    snprintf(prepare_error, sizeof prepare_error, "zoneinfo: %s", err);
}

static bool prepare(char *err, size_t errlen) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, prepare_once);
  if (prepare_error[0]) {
    snprintf(err, errlen, "%s", prepare_error);
    return false;
  }
  return true;
}

static const wb_runtime_mount *mounts(size_t *n) {
  *n = sizeof images / sizeof images[0];
  return images;
}

static void instantiate(void *inst, struct Z_wasi_snapshot_preview1_instance_t *wasi,
                        struct Z_wasmbox_instance_t *host) {
  Z_python_instantiate(inst, wasi, host);
}
static void free_instance(void *inst) { Z_python_free(inst); }
static wasm_rt_memory_t *memory(void *inst) { return Z_pythonZ_memory(inst); }
static void initialize(void *inst) { Z_pythonZ__initialize(inst); }
static uint32_t init(void *inst) { return Z_pythonZ_wasmbox_init(inst); }
static uint32_t alloc(void *inst, uint32_t n) { return Z_pythonZ_wasmbox_alloc(inst, n); }
static uint32_t run(void *inst, uint32_t code, uint32_t len, uint32_t name, uint32_t name_len) {
  return Z_pythonZ_wasmbox_run(inst, code, len, name, name_len);
}

const wb_runtime wb_runtime_python = {
    .language = "python",
    .version = "3.11.2",
    .default_name = "<string>",
    .oom_error_type = "MemoryError",
    .instance_size = sizeof(Z_python_instance_t),
    .prepare = prepare,
    .mounts = mounts,
    .instantiate = instantiate,
    .free = free_instance,
    .memory = memory,
    .initialize = initialize,
    .init = init,
    .alloc = alloc,
    .run = run,
};
