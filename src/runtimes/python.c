/* Python 3.11 (runtimes/python): binds the translated module to the engine.
 * Including imports.h beside the generated header makes the compiler check
 * that our WASI functions have the signatures the module imports. */
#include <pthread.h>
#include <stdio.h>

#include "build_id.h"
#include "engine/host_imports.h"
#include "engine/runtime.h"
#include "engine/snapshot.h"
#include "python.h"
#include "wasi/imports.h"

/* Snapshot support generated beside the module (tools/w2c_split.py). */
extern const int Z_python_wb_tables_mutable;
uint32_t Z_python_wb_globals_size(void);
void Z_python_wb_globals_save(const Z_python_instance_t *instance, uint8_t *out);
void Z_python_wb_globals_load(Z_python_instance_t *instance, const uint8_t *in);

/* Built into the binary (Makefile: images.S): the stdlib as .py + .pyc, and
 * Debian's tzdata so zoneinfo works. */
extern const uint8_t wb_python_stdlib[], wb_python_stdlib_end[];
extern const uint8_t wb_zoneinfo[], wb_zoneinfo_end[];

/* The base snapshot (Makefile: snapshots.S, made by tools/mksnapshot); empty
 * in the library the tool itself links with. */
extern const uint8_t wb_python_snapshot[], wb_python_snapshot_end[];

extern const wb_runtime wb_runtime_python;
static wb_image stdlib, zoneinfo;
static wb_snapshot base;
static bool have_base;
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
  else if ((size_t)(wb_python_snapshot_end - wb_python_snapshot) > 0 && !(have_base = wb_snapshot_open_embedded(
                                       &wb_runtime_python, WB_PYTHON_BUILD_ID, wb_python_snapshot,
                                       (size_t)(wb_python_snapshot_end - wb_python_snapshot), &base, err, sizeof err)))
    snprintf(prepare_error, sizeof prepare_error, "%s", err);
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

static const wb_snapshot *base_snapshot(void) { return have_base ? &base : NULL; }

static void instantiate(void *inst, struct Z_wasi_snapshot_preview1_instance_t *wasi,
                        struct Z_wasmbox_instance_t *host) {
  Z_python_instantiate(inst, wasi, host);
}
static void bind(void *inst, struct Z_wasi_snapshot_preview1_instance_t *wasi, struct Z_wasmbox_instance_t *host) {
  Z_python_instance_t *i = inst;
  i->Z_wasi_snapshot_preview1_instance = wasi;
  i->Z_wasmbox_instance = host;
}
static void free_instance(void *inst) { Z_python_free(inst); }
static wasm_rt_memory_t *memory(void *inst) { return Z_pythonZ_memory(inst); }
static void initialize(void *inst) { Z_pythonZ__initialize(inst); }
static uint32_t init(void *inst) { return Z_pythonZ_wasmbox_init(inst); }
static uint32_t fresh(void *inst) { return Z_pythonZ_wasmbox_fresh(inst); }
static uint32_t alloc(void *inst, uint32_t n) { return Z_pythonZ_wasmbox_alloc(inst, n); }
static void globals_save(const void *inst, uint8_t *out) { Z_python_wb_globals_save(inst, out); }
static void globals_load(void *inst, const uint8_t *in) { Z_python_wb_globals_load(inst, in); }
static bool tables_mutable(void) { return Z_python_wb_tables_mutable != 0; }
static uint32_t run(void *inst, uint32_t code, uint32_t len, uint32_t name, uint32_t name_len) {
  return Z_pythonZ_wasmbox_run(inst, code, len, name, name_len);
}

const wb_runtime wb_runtime_python = {
    .language = "python",
    .version = "3.11.2",
    .default_name = "<string>",
    .oom_error_type = "MemoryError",
    .build_id = WB_PYTHON_BUILD_ID,
    /* the modules most code starts with, and what error reports need */
    .preload = "for m in ('json', 're', 'math', 'datetime', 'collections', 'itertools', 'functools',\n"
               "          'random', 'statistics', 'csv', 'decimal', 'traceback', 'linecache', 'typing',\n"
               "          'dataclasses', 'pathlib', 'string', 'textwrap', 'hashlib', 'base64', 'copy'):\n"
               "    __import__(m)\n"
               "del m\n",
    .instance_size = sizeof(Z_python_instance_t),
    .prepare = prepare,
    .mounts = mounts,
    .base_snapshot = base_snapshot,
    .instantiate = instantiate,
    .bind = bind,
    .free = free_instance,
    .memory = memory,
    .initialize = initialize,
    .init = init,
    .fresh = fresh,
    .alloc = alloc,
    .run = run,
    .globals_size = Z_python_wb_globals_size,
    .globals_save = globals_save,
    .globals_load = globals_load,
    .tables_mutable = tables_mutable,
};
