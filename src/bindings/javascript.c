/* JavaScript: QuickJS 2025-04-26 (runtimes/javascript) bound to the engine.
 * Including imports.h (through module_glue.h) beside the generated header
 * makes the compiler check that our WASI functions have the signatures the
 * module imports. QuickJS needs no read-only images: its whole library is in
 * the module. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "javascript.h"
#include "javascript_unbudgeted.h"
#include "bindings/module_glue.h"

WB_MODULE_GLUE(javascript)

static char prepare_error[256];

static void prepare_once(void) {
  wasm_rt_init();
  init_modules();
  char err[200];
  if (!open_base_snapshot(err, sizeof err)) snprintf(prepare_error, sizeof prepare_error, "%s", err);
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
  *n = 0;
  return NULL;
}

/* QuickJS reports exhausted memory as InternalError("out of memory"), the
 * same type as "stack overflow" or "interrupted": the message decides. */
static bool is_oom(const char *type, const char *message) {
  return !strcmp(type, "InternalError") && !strcmp(message, "out of memory");
}

const wb_runtime wb_runtime_javascript = {
    .language = "javascript",
    .version = "QuickJS 2025-04-26",
    .default_name = "<input>",
    .oom_error_type = "InternalError",
    .is_oom = is_oom,
    /* what first calls touch: the console's formatter, JSON, a regexp, dates;
     * warmed once so every call starts with their shapes and atoms made */
    .preload =
        "void [JSON.stringify(JSON.parse('{\"a\":[1]}')), /a(?<b>c)/u.test('ac'), new Date(0).toISOString(),\n"
        "      String(Symbol.iterator), [3, 1, 2].sort().join(), Object.keys(globalThis).length];\n",
    .prepare = prepare,
    .mounts = mounts,
    WB_MODULE_FIELDS(javascript),
};
