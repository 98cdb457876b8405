/* JavaScript: QuickJS 2025-04-26 (runtimes/javascript) bound to the engine.
 * Including imports.h (through module_glue.h) beside the generated header
 * makes the compiler check that our WASI functions have the signatures the
 * module imports. QuickJS's library is in the module; the one read-only image
 * is the built-in npm packages (runtimes/javascript/packages), where require()
 * looks after the program's own node_modules. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "javascript.h"
#include "bindings/module_glue.h"

WB_MODULE_GLUE(javascript)

extern const uint8_t wb_javascript_packages[], wb_javascript_packages_end[];

static wb_image packages;
static wb_runtime_mount images[] = {{"/usr/lib/node_modules", &packages}};
static char prepare_error[256];

static void prepare_once(void) {
  wasm_rt_init();
  init_modules();
  char err[200];
  if (!wb_image_open_built(&packages, wb_javascript_packages,
                           (size_t)(wb_javascript_packages_end - wb_javascript_packages), err, sizeof err))
    snprintf(prepare_error, sizeof prepare_error, "javascript packages: %s", err);
  else if (!open_base_snapshot(err, sizeof err)) snprintf(prepare_error, sizeof prepare_error, "%s", err);
}

WB_MODULE_PREPARE

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
     * warmed once so every call starts with their shapes and atoms made;
     * lodash, the package most programs load, already required; and Intl
     * (runtimes/javascript/intl.js: 3 s to evaluate, so here, once) */
    .preload =
        "void [JSON.stringify(JSON.parse('{\"a\":[1]}')), /a(?<b>c)/u.test('ac'), new Date(0).toISOString(),\n"
        "      String(Symbol.iterator), [3, 1, 2].sort().join(), Object.keys(globalThis).length, require('lodash'),\n"
        "      require('/usr/lib/node_modules/.wasmbox/intl.js'), (1234.5).toLocaleString()];\n",
    .prepare = prepare,
    .mounts = mounts,
    WB_MODULE_FIELDS(javascript),
};
