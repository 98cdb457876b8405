/* QuickJS's allocator: see js_alloc.h.
 *
 * Why the phases. Blocks the prelude frees, given back to malloc, would sit
 * scattered over the snapshot's heap in malloc's free lists, and every call
 * from the snapshot would take its small blocks from them (and relink the
 * lists), writing a page here and a page there. Kept, they are never
 * touched again. Measured (pages a call writes): `1` 36 -> 25,
 * `console.log(1)` 51 -> 38, for 2 MB more snapshot that no call reads.
 * The preload (lodash, Intl: seconds of evaluation) frees far too much to
 * keep, so after it calls take their small blocks from regions of their
 * own: an empty program 56 -> 28 pages, `console.log(1)` 80 -> 47. */
#include "js_alloc.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SMALL_BLOCK 256
#define BLOCK_OVERHEAD 8 /* what QuickJS counts per block besides its usable size */

static wb_js_alloc_phase phase = WB_JS_ALLOC_PLAIN;

/* ---- the calls' small blocks ---------------------------------------------------
 * A region is REGION bytes aligned to a granule, so that whether a pointer is
 * one of its blocks is a bit per granule of the 32-bit address space. A block
 * is a header holding its usable size, then that many bytes (a multiple of
 * 8); a freed block goes on its size's list, linked through its bytes. */
#define GRANULE_SHIFT 16
#define REGION ((size_t)256 << 10)
#define HEADER 8
#define CLASSES (SMALL_BLOCK / 8)

static uint8_t owned[((size_t)1 << (32 - GRANULE_SHIFT)) / 8];
static char *carve, *carve_end; /* what is left of the newest region */
static void *free_blocks[CLASSES + 1];

static bool is_owned(const void *p) {
  uint64_t a = (uintptr_t)p;
  if (a >> 32) return false;
  size_t g = (size_t)(a >> GRANULE_SHIFT);
  return (owned[g / 8] >> (g % 8)) & 1;
}

static bool new_region(void) {
  char *r = aligned_alloc((size_t)1 << GRANULE_SHIFT, REGION);
  if (!r) return false;
  size_t g = (size_t)((uintptr_t)r >> GRANULE_SHIFT);
  for (size_t i = 0; i < REGION >> GRANULE_SHIFT; i++, g++) owned[g / 8] |= (uint8_t)(1u << (g % 8));
  carve = r;
  carve_end = r + REGION;
  return true;
}

static size_t block_size(const void *p) { return *(const uint32_t *)((const char *)p - HEADER); }

/* NULL when no region can be had: the caller asks malloc */
static void *block_alloc(size_t size) {
  size_t c = size ? (size + 7) / 8 : 1;
  void *p = free_blocks[c];
  if (p) {
    free_blocks[c] = *(void **)p;
    return p;
  }
  size_t n = HEADER + c * 8;
  if ((size_t)(carve_end - carve) < n && !new_region()) return NULL;
  *(uint32_t *)carve = (uint32_t)(c * 8);
  p = carve + HEADER;
  carve += n;
  return p;
}

static void block_free(void *p) {
  size_t c = block_size(p) / 8;
  *(void **)p = free_blocks[c];
  free_blocks[c] = p;
}

/* ---- QuickJS's functions ---------------------------------------------------------- */

static size_t usable(const void *p) { return is_owned(p) ? block_size(p) : malloc_usable_size((void *)p); }

static void *raw_alloc(size_t size) {
  void *p = phase == WB_JS_ALLOC_CALLS && size <= SMALL_BLOCK ? block_alloc(size) : NULL;
  return p ? p : malloc(size);
}

static void raw_free(void *p, size_t n) {
  if (is_owned(p)) block_free(p);
  else if (!(phase == WB_JS_ALLOC_PRELUDE && n <= SMALL_BLOCK)) free(p);
}

static void *quickjs_malloc(JSMallocState *s, size_t size) {
  if (s->malloc_size + size > s->malloc_limit) return NULL;
  void *p = raw_alloc(size);
  if (!p) return NULL;
  s->malloc_count++;
  s->malloc_size += usable(p) + BLOCK_OVERHEAD;
  return p;
}

static void quickjs_free(JSMallocState *s, void *p) {
  if (!p) return;
  size_t n = usable(p);
  s->malloc_count--;
  s->malloc_size -= n + BLOCK_OVERHEAD;
  raw_free(p, n);
}

static void *quickjs_realloc(JSMallocState *s, void *p, size_t size) {
  if (!p) return size ? quickjs_malloc(s, size) : NULL;
  if (size == 0) {
    quickjs_free(s, p);
    return NULL;
  }
  size_t old = usable(p);
  if (s->malloc_size + size - old > s->malloc_limit) return NULL;
  bool mine = is_owned(p);
  void *q;
  if (mine && size <= old) {
    q = p;
  } else if (mine || (phase == WB_JS_ALLOC_PRELUDE && old <= SMALL_BLOCK) ||
             (phase == WB_JS_ALLOC_CALLS && size <= SMALL_BLOCK)) {
    /* moved by hand: a block of ours, a block to keep, or one to bring into
     * the regions */
    q = raw_alloc(size);
    if (!q) return NULL;
    memcpy(q, p, old < size ? old : size);
    raw_free(p, old);
  } else {
    q = realloc(p, size);
    if (!q) return NULL;
  }
  s->malloc_size += usable(q) - old;
  return q;
}

static size_t quickjs_usable(const void *p) { return usable(p); }

const JSMallocFunctions wb_js_malloc_functions = {quickjs_malloc, quickjs_free, quickjs_realloc, quickjs_usable};

bool wb_js_alloc_enter(wb_js_alloc_phase next) {
  /* regions are found by a 32-bit address (the native build never seals) */
  if (next == WB_JS_ALLOC_CALLS && (sizeof(void *) > 4 || !new_region())) {
    phase = WB_JS_ALLOC_PLAIN;
    return false;
  }
  phase = next;
  return true;
}
