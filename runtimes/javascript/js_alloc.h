/* QuickJS's allocator, shaped for calls made from a memory snapshot.
 *
 * A call from a snapshot pays for each page it writes (a copy on write, then
 * a copy back when the instance is reset), so where its blocks land matters
 * more than how fast they are found. The phases, in the order they come:
 *   WB_JS_ALLOC_PRELUDE  while the prelude is evaluated: small blocks freed
 *                        are kept, not given back to malloc;
 *   WB_JS_ALLOC_PLAIN    malloc and free (the preload, and a runtime that is
 *                        never snapshotted);
 *   WB_JS_ALLOC_CALLS    once the snapshot is sealed: blocks of up to 256
 *                        bytes come from regions of their own, carved in
 *                        order and reused by size class, instead of from the
 *                        free lists malloc left scattered over the snapshot.
 * Blocks keep working across phases: each is freed by whoever made it.
 * The price: the calls' regions are never given back, and a freed block is
 * reused only for its own size, so a session that frees many small blocks
 * of one size and then makes as many of another holds both. */
#ifndef WASMBOX_JS_ALLOC_H
#define WASMBOX_JS_ALLOC_H

#include <stdbool.h>

#include "quickjs.h"

typedef enum { WB_JS_ALLOC_PRELUDE, WB_JS_ALLOC_PLAIN, WB_JS_ALLOC_CALLS } wb_js_alloc_phase;

extern const JSMallocFunctions wb_js_malloc_functions;

/* Enter a phase; false if the calls' first region cannot be had (the phase
 * is then PLAIN). */
bool wb_js_alloc_enter(wb_js_alloc_phase phase);

#endif
