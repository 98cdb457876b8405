/* QuickJS's allocator: see js_alloc.h.
 *
 * Why the phases. Blocks the prelude frees, given back to malloc, would sit
 * scattered over the snapshot's heap in malloc's free lists, and every call
 * from the snapshot would take its small blocks from them (and relink the
 * lists), writing a page here and a page there. Kept, they are never
 * touched again. Measured (pages a call writes): `1` 36 -> 25,
 * `console.log(1)` 51 -> 38, for 2 MB more snapshot that no call reads.
 * The preload (lodash, Intl: seconds of evaluation) frees far too much to
 * keep; instead, once it is over, every small free chunk malloc holds is
 * taken for good, so that calls carve their small blocks in order from
 * what is left: an empty program 56 -> 19 pages, `console.log(1)` 80 -> 29,
 * and a program's blocks of every size still reuse each other's memory
 * (at a 32 MB limit, 0.3 % fewer strings fit than without the taking). */
#include "js_alloc.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SMALL_BLOCK 256  /* malloc's small bins hold chunks below this */
#define BLOCK_OVERHEAD 8 /* what QuickJS counts per block besides its usable size */
#define CHUNK_SLACK 16   /* a chunk's header and alignment, at most */

static wb_js_alloc_phase phase = WB_JS_ALLOC_PLAIN;

/* Take every free chunk of each small size from malloc's bins, largest
 * sizes first (so that no smaller request splits a larger small chunk
 * meanwhile). Free chunks are never neighbours (malloc merges them), so two
 * blocks in a row that touch were carved from one larger chunk or the
 * heap's end: that size's bin is empty, and those two go back. */
static void take_small_free_chunks(void) {
  for (size_t size = SMALL_BLOCK - 8; size >= 8; size -= 8) {
    char *prev = NULL;
    for (;;) {
      char *p = malloc(size);
      if (!p) return;
      if (prev && p > prev && (size_t)(p - prev) <= malloc_usable_size(prev) + CHUNK_SLACK) {
        free(p);
        free(prev);
        break;
      }
      prev = p;
    }
  }
}

static void *quickjs_malloc(JSMallocState *s, size_t size) {
  if (s->malloc_size + size > s->malloc_limit) return NULL;
  void *p = malloc(size);
  if (!p) return NULL;
  s->malloc_count++;
  s->malloc_size += malloc_usable_size(p) + BLOCK_OVERHEAD;
  return p;
}

static void quickjs_free(JSMallocState *s, void *p) {
  if (!p) return;
  size_t n = malloc_usable_size(p);
  s->malloc_count--;
  s->malloc_size -= n + BLOCK_OVERHEAD;
  if (!(phase == WB_JS_ALLOC_PRELUDE && n <= SMALL_BLOCK)) free(p);
}

static void *quickjs_realloc(JSMallocState *s, void *p, size_t size) {
  if (!p) return size ? quickjs_malloc(s, size) : NULL;
  if (size == 0) {
    quickjs_free(s, p);
    return NULL;
  }
  size_t old = malloc_usable_size(p);
  if (s->malloc_size + size - old > s->malloc_limit) return NULL;
  void *q;
  if (phase == WB_JS_ALLOC_PRELUDE && old <= SMALL_BLOCK) { /* moved, the old block kept */
    q = malloc(size);
    if (q) memcpy(q, p, old < size ? old : size);
  } else {
    q = realloc(p, size);
  }
  if (!q) return NULL;
  s->malloc_size += malloc_usable_size(q) - old;
  return q;
}

static size_t quickjs_usable(const void *p) { return malloc_usable_size((void *)p); }

const JSMallocFunctions wb_js_malloc_functions = {quickjs_malloc, quickjs_free, quickjs_realloc, quickjs_usable};

void wb_js_alloc_enter(wb_js_alloc_phase next) {
  phase = next;
  if (next == WB_JS_ALLOC_CALLS) take_small_free_chunks();
}
