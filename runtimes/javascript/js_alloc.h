/* QuickJS's allocator, shaped for calls made from a memory snapshot.
 *
 * A call from a snapshot pays for each page it writes (a copy on write, then
 * a copy back when the instance is reset), so where its blocks land matters
 * more than how fast they are found. The phases, in the order they come:
 *   WB_JS_ALLOC_PRELUDE  while the prelude is evaluated: small blocks freed
 *                        are kept, not given back to malloc;
 *   WB_JS_ALLOC_PLAIN    malloc and free (the preload, and a runtime that is
 *                        never snapshotted);
 *   WB_JS_ALLOC_CALLS    once the snapshot is sealed: malloc and free, but
 *                        first every small free chunk malloc holds is taken
 *                        for good, so that a call's small blocks come in
 *                        order from larger free chunks and the heap's end,
 *                        not one from each of the scattered chunks the
 *                        preload left (each a page written). What it takes
 *                        is free memory of the snapshot no call can use. */
#ifndef WASMBOX_JS_ALLOC_H
#define WASMBOX_JS_ALLOC_H

#include <stddef.h>

#include "quickjs.h"

typedef enum { WB_JS_ALLOC_PRELUDE, WB_JS_ALLOC_PLAIN, WB_JS_ALLOC_CALLS } wb_js_alloc_phase;

extern const JSMallocFunctions wb_js_malloc_functions;

void wb_js_alloc_enter(wb_js_alloc_phase phase);

#endif
