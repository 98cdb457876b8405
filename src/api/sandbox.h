/* The sandbox's file-system layout, the same for every call and for the
 * base snapshots: /app (the workspace) is the first preopen, then the
 * runtime's images, then the caller's read-only mounts. A snapshot's guest
 * remembers the preopens by number, so this order must never vary. */
#ifndef WASMBOX_API_SANDBOX_H
#define WASMBOX_API_SANDBOX_H

#include <stddef.h>

#include "engine/runtime.h"
#include "wasi/wasi.h"
#include "wasmbox.h"

#define WB_SANDBOX_MOUNTS_MAX (1 + WB_RUNTIME_MOUNTS_MAX + WASMBOX_MAX_MOUNTS)

/* Fill `out` (WB_SANDBOX_MOUNTS_MAX entries); returns how many. */
size_t wb_sandbox_mounts(const wb_runtime *rt, const char *workspace, const wasmbox_mount *extra, size_t nextra,
                         wb_mount *out);

#endif
