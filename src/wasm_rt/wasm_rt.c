/* Our implementation of wasm-rt.h (Debian wabt 1.0.32), the runtime that
 * wasm2c output calls. Why not Debian's libwasm-rt-impl: its trap buffer is
 * one global, its SIGSEGV handler claims every crash in the process, and
 * freeing a memory leaks its reservation.
 *
 * Linear memory: 8 GiB of address space reserved PROT_NONE (any u32 address
 * plus u32 offset lands inside it), the first `pages` readable and writable.
 * Out-of-bounds accesses fault in the reservation and become traps
 * (guest.c), so the generated code needs no bounds checks.
 *
 * A memory mapped from an image is reset to it (or to an image derived from
 * it by committed writes) by copying back only the pages the guest wrote
 * (tracker.h); where the kernel cannot tell which, by mapping it again. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <wasm-rt.h>

#include "util/hash.h"
#include "util/os.h"
#include "wasm_rt/guest.h"
#include "wasm_rt/tracker.h"
#include "wasm_rt/wasm_rt_ext.h"
#include <unistd.h>

#define PAGE_SIZE 65536u

void wasm_rt_init(void) { wb_guest_install_handlers(); }

bool wasm_rt_is_initialized(void) { return true; }

void wasm_rt_free(void) {}

void wasm_rt_trap(wasm_rt_trap_t code) { wb_guest_trap((int)code); }

/* Function types: a process-wide registry, identical signatures share an
 * index (call_indirect compares indices). Each process registers every
 * module's types (hundreds) as it starts, so they are found by a hash of
 * the signature, not by comparing with each one before. */
typedef struct {
  uint64_t hash;
  uint32_t params, results;
  wasm_rt_type_t types[];
} func_type;

static pthread_mutex_t types_lock = PTHREAD_MUTEX_INITIALIZER;
static func_type **types; /* by index - 1 */
static uint32_t ntypes;
static uint32_t *slots; /* open addressing: an index, 0 for a free slot */
static uint32_t nslots; /* a power of two, at least twice ntypes */

static void slot_put(uint32_t idx) {
  uint32_t s = (uint32_t)types[idx - 1]->hash & (nslots - 1);
  while (slots[s]) s = (s + 1) & (nslots - 1);
  slots[s] = idx;
}

uint32_t wasm_rt_register_func_type(uint32_t params, uint32_t results, ...) {
  uint32_t n = params + results;
  func_type *t = malloc(sizeof *t + n * sizeof(wasm_rt_type_t));
  if (!t) abort();
  t->params = params;
  t->results = results;
  va_list ap;
  va_start(ap, results);
  for (uint32_t i = 0; i < n; i++) t->types[i] = va_arg(ap, wasm_rt_type_t);
  va_end(ap);
  t->hash = wb_fnv1a(wb_fnv1a(WB_FNV1A_BASIS, &t->params, 2 * sizeof(uint32_t)), t->types, n * sizeof *t->types);

  pthread_mutex_lock(&types_lock);
  for (uint32_t s = nslots ? (uint32_t)t->hash & (nslots - 1) : 0; nslots && slots[s]; s = (s + 1) & (nslots - 1)) {
    const func_type *o = types[slots[s] - 1];
    if (o->hash == t->hash && o->params == params && o->results == results &&
        memcmp(o->types, t->types, n * sizeof(wasm_rt_type_t)) == 0) {
      uint32_t idx = slots[s];
      pthread_mutex_unlock(&types_lock);
      free(t);
      return idx;
    }
  }
  func_type **grown = realloc(types, (ntypes + 1) * sizeof *types);
  if (!grown) abort();
  types = grown;
  types[ntypes++] = t;
  if (ntypes * 2 > nslots) { /* rehash into twice the room */
    free(slots);
    nslots = nslots ? nslots * 2 : 256;
    if (!(slots = calloc(nslots, sizeof *slots))) abort();
    for (uint32_t i = 1; i <= ntypes; i++) slot_put(i);
  } else {
    slot_put(ntypes);
  }
  uint32_t idx = ntypes;
  pthread_mutex_unlock(&types_lock);
  return idx;
}

/* Exceptions (wasm2c --enable-exceptions, for C++ built with
 * -fwasm-exceptions): a try is a setjmp whose buffer becomes the thread's
 * unwind target, a throw copies the exception's values here and longjmps
 * to it. Per thread, as a guest call is. With no target (nothing catches,
 * or the export was entered afresh: tools/w2c_split.py clears the target
 * there) a throw is the trap WASM_RT_TRAP_UNCAUGHT_EXCEPTION. Values are
 * bounded (a C++ exception is one i32): a module whose tag carries more
 * traps the same way when it throws, never writing past the buffer. */
#define EXCEPTION_MAX 256
static _Thread_local WASM_RT_UNWIND_TARGET *unwind_target;
static _Thread_local uint32_t exception_tag, exception_size;
static _Thread_local uint8_t exception_values[EXCEPTION_MAX];
static atomic_uint next_tag;

uint32_t wasm_rt_register_tag(uint32_t size) {
  (void)size; /* checked when thrown */
  return atomic_fetch_add(&next_tag, 1);
}

void wasm_rt_load_exception(uint32_t tag, uint32_t size, const void *values) {
  if (size > EXCEPTION_MAX) wasm_rt_trap(WASM_RT_TRAP_UNCAUGHT_EXCEPTION);
  exception_tag = tag;
  exception_size = size;
  if (size) memcpy(exception_values, values, size);
}

void wasm_rt_throw(void) {
  if (!unwind_target) wasm_rt_trap(WASM_RT_TRAP_UNCAUGHT_EXCEPTION);
  siglongjmp(*unwind_target, 1);
}

WASM_RT_UNWIND_TARGET *wasm_rt_get_unwind_target(void) { return unwind_target; }

void wasm_rt_set_unwind_target(WASM_RT_UNWIND_TARGET *target) { unwind_target = target; }

uint32_t wasm_rt_exception_tag(void) { return exception_tag; }

uint32_t wasm_rt_exception_size(void) { return exception_size; }

void *wasm_rt_exception(void) { return exception_values; }

/* Generated init code asks this before copying data segments (see
 * tools/w2c_split.py): a memory mapped from a snapshot already holds them. */
static _Thread_local const uint8_t *preloaded_base;
static _Thread_local const wb_memory_image *pending_image;

int wasm_rt_memory_preloaded(const wasm_rt_memory_t *m) { return m->data && m->data == preloaded_base; }

void wb_rt_preload(const wb_memory_image *img) { pending_image = img; }

#define HOST_PAGE 4096u
#define CHANGED_BYTES ((size_t)65536 * PAGE_SIZE / HOST_PAGE / 8) /* a bit per page of the largest memory */

static bool changed(const uint64_t *bits, size_t page) { return bits[page / 64] >> (page % 64) & 1; }

bool wb_image_read(const wb_memory_image *img, uint64_t at, uint8_t *out, size_t n) {
  uint64_t bytes = (uint64_t)img->pages * PAGE_SIZE;
  size_t in = at >= bytes ? 0 : bytes - at < n ? (size_t)(bytes - at) : n;
  if (in < n) memset(out + in, 0, n - in);
  if (img->view) return memcpy(out, img->view + at, in), true;
  return !in || wb_pread_all(img->fd, out, in, img->offset + at);
}

const uint8_t *wb_image_at(const wb_memory_image *img, uint64_t at, size_t n) {
  uint64_t bytes = (uint64_t)img->pages * PAGE_SIZE;
  return img->view && at <= bytes && n <= bytes - at ? img->view + at : NULL;
}

static bool map_image(uint8_t *base, const wb_memory_image *img) {
  size_t bytes = (size_t)img->pages * PAGE_SIZE;
  if (!bytes) return true;
  if (!img->under)
    return mmap(base, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, img->fd, (off_t)img->offset) == base;
  /* an overlay: what lies under it, then its own pages */
  size_t under = (size_t)(img->under->pages < img->pages ? img->under->pages : img->pages) * PAGE_SIZE;
  if (!map_image(base, &(wb_memory_image){
                           .fd = img->under->fd, .offset = img->under->offset, .pages = (uint32_t)(under / PAGE_SIZE)}))
    return false;
  if (bytes > under && mmap(base + under, bytes - under, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != base + under)
    return false;
  for (size_t p = 0; p < bytes / HOST_PAGE; p++)
    if (changed(img->changed, p)) memcpy(base + p * HOST_PAGE, img->view + p * HOST_PAGE, HOST_PAGE);
  return true;
}

bool wb_overlay_new(wb_memory_image *img, const wb_memory_image *under, uint32_t pages) {
  *img = (wb_memory_image){.fd = -1, .pages = 0, .under = under};
  uint8_t *view = mmap(NULL, WB_MEMORY_RESERVATION, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  /* zero pages mapped on demand: only those holding a set bit take memory */
  uint64_t *bits = mmap(NULL, CHANGED_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  img->changed = bits == MAP_FAILED ? NULL : bits;
  uint32_t below = under->pages < pages ? under->pages : pages;
  size_t from = (size_t)below * PAGE_SIZE, bytes = (size_t)pages * PAGE_SIZE;
  bool ok = view != MAP_FAILED && img->changed &&
            map_image(view, &(wb_memory_image){.fd = under->fd, .offset = under->offset, .pages = below}) &&
            (bytes == from || mprotect(view + from, bytes - from, PROT_READ | PROT_WRITE) == 0);
  if (view != MAP_FAILED) img->view = view;
  img->pages = pages;
  if (!ok) wb_overlay_free(img);
  return ok;
}

bool wb_overlay_put(wb_memory_image *img, uint32_t pages, const uint8_t *mem, const uint32_t *pages4k, size_t n) {
  uint8_t *view = (uint8_t *)img->view;
  if (pages > img->pages) {
    size_t from = (size_t)img->pages * PAGE_SIZE, len = (size_t)(pages - img->pages) * PAGE_SIZE;
    if (mprotect(view + from, len, PROT_READ | PROT_WRITE) != 0) return false;
    img->pages = pages;
  }
  for (size_t i = 0; i < n; i++) {
    size_t at = (size_t)pages4k[i] * HOST_PAGE;
    if (at + HOST_PAGE > (size_t)img->pages * PAGE_SIZE) return errno = EINVAL, false;
    memcpy(view + at, mem + at, HOST_PAGE);
    img->changed[pages4k[i] / 64] |= 1ull << (pages4k[i] % 64);
  }
  return true;
}

void wb_image_unmap_pages(const wb_memory_image *img) {
  /* a view in our own read-only data is never written: nothing of it is
   * private, and MADV_DONTNEED only unmaps */
  if (img->view && !img->under && img->pages)
    madvise((void *)((uintptr_t)img->view & ~(uintptr_t)(HOST_PAGE - 1)), (size_t)img->pages * PAGE_SIZE,
            MADV_DONTNEED);
}

/* fn(view + first page, run length) for each run of changed pages */
static void each_changed_run(wb_memory_image *img, void (*fn)(uint8_t *at, size_t len, const uint8_t *src),
                             const uint8_t *mem) {
  size_t pages = (size_t)img->pages * PAGE_SIZE / HOST_PAGE;
  for (size_t p = 0; p < pages;) {
    if (!img->changed[p / 64]) { /* most words are empty */
      p = (p / 64 + 1) * 64;
      continue;
    }
    if (!changed(img->changed, p)) {
      p++;
      continue;
    }
    size_t q = p;
    while (q < pages && changed(img->changed, q)) q++;
    fn((uint8_t *)img->view + p * HOST_PAGE, (q - p) * HOST_PAGE, mem ? mem + p * HOST_PAGE : NULL);
    p = q;
  }
}

static void drop_run(uint8_t *at, size_t len, const uint8_t *src) {
  (void)src;
  madvise(at, len, MADV_DONTNEED);
}

static void refill_run(uint8_t *at, size_t len, const uint8_t *src) { memcpy(at, src, len); }

void wb_overlay_drop(wb_memory_image *img) {
  if (img->under) each_changed_run(img, drop_run, NULL);
}

void wb_overlay_refill(wb_memory_image *img, const uint8_t *mem) {
  if (img->under) each_changed_run(img, refill_run, mem);
}

void wb_overlay_free(wb_memory_image *img) {
  if (img->view) munmap((void *)img->view, WB_MEMORY_RESERVATION);
  if (img->changed) munmap(img->changed, CHANGED_BYTES);
  *img = (wb_memory_image){.fd = -1};
}

static uint32_t byte_size(uint64_t pages) { return pages >= 65536 ? UINT32_MAX : (uint32_t)(pages * PAGE_SIZE); }

/* Memories whose writes the tracker follows. */
#define TRACKED_MAX 512
static pthread_mutex_t tracked_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *tracked[TRACKED_MAX];
static unsigned recycles[TRACKED_MAX]; /* recycles (or takes) since it protected all */
static bool tracking_off;

void wb_rt_tracking_disable(void) { tracking_off = true; }

static void set_tracked(uint8_t *base, bool on) {
  pthread_mutex_lock(&tracked_lock);
  bool done = false;
  for (size_t i = 0; i < TRACKED_MAX && !done; i++) {
    if (on ? tracked[i] == NULL : tracked[i] == base) {
      tracked[i] = on ? base : NULL;
      recycles[i] = 0;
      done = true;
    }
  }
  pthread_mutex_unlock(&tracked_lock);
}

/* The recycle count of a tracked memory (its owner's alone to change);
 * NULL for a memory not tracked. */
static unsigned *recycle_count(const uint8_t *base) {
  unsigned *c = NULL;
  pthread_mutex_lock(&tracked_lock);
  for (size_t i = 0; i < TRACKED_MAX && !c; i++)
    if (tracked[i] == base) c = &recycles[i];
  pthread_mutex_unlock(&tracked_lock);
  return c;
}

static bool is_tracked(const uint8_t *base) { return recycle_count(base) != NULL; }

/* Follow the writes to a memory that now holds exactly an image. */
static void arm(uint8_t *base, size_t bytes) {
  bool on = !tracking_off && wb_track_arm(base, WB_MEMORY_RESERVATION, bytes);
  if (on != is_tracked(base)) set_tracked(base, on);
}

/* A recycle protects all written pages again every RECYCLE_LEARN-th time,
 * or when more than RECYCLE_HOT_MAX were written (each is copied back at
 * every recycle while it stays writable); a take likewise (below). */
#define RECYCLE_LEARN 8
#define RECYCLE_HOT_MAX 256

/* After a recycle or a take that found `pages` written: whether they stay
 * writable, or all are to be protected again (the count starts over). */
static bool stay_writable(unsigned *count, size_t pages) {
  bool keep = ++*count < RECYCLE_LEARN && pages <= RECYCLE_HOT_MAX;
  if (!keep) *count = 0;
  return keep;
}

/* Reset without unmapping: drop pages beyond the image, copy back what was
 * written (unless the memory already holds the image), protect it again
 * (a recycle: see wb_rt_memory_recycle). */
static bool tracked_reset(wasm_rt_memory_t *m, const wb_memory_image *img, bool copy, bool recycle) {
  unsigned *count = recycle_count(m->data);
  if (img->pages > m->pages || !count) return false;
  size_t keep = (size_t)img->pages * PAGE_SIZE;
  if (m->pages > img->pages) {
    size_t len = (size_t)(m->pages - img->pages) * PAGE_SIZE;
    if (madvise(m->data + keep, len, MADV_DONTNEED) != 0 || mprotect(m->data + keep, len, PROT_NONE) != 0) return false;
  }
  if (copy) {
    wb_span *spans;
    ssize_t n = wb_track_written(m->data, keep, &spans);
    bool ok = n >= 0;
    size_t pages = 0;
    for (ssize_t i = 0; ok && i < n; i++) {
      ok = wb_image_read(img, spans[i].start, m->data + spans[i].start, spans[i].len);
      pages += spans[i].len / HOST_PAGE;
    }
    bool keep_writable = recycle && stay_writable(count, pages);
    if (!recycle) *count = 0;
    ok = ok && (keep_writable || wb_track_rearm_spans(m->data, spans, (size_t)n)); /* nothing else was written */
    free(spans);
    if (!ok) return false;
  } else if (wb_track_rearm(m->data, keep)) {
    *count = 0;
  } else {
    return false;
  }
  m->pages = img->pages;
  m->size = byte_size(img->pages);
  return true;
}

void wasm_rt_allocate_memory(wasm_rt_memory_t *m, uint32_t initial_pages, uint32_t max_pages) {
  void *base = mmap(NULL, WB_MEMORY_RESERVATION, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) abort(); /* address space exhausted: host failure */
  const wb_memory_image *img = pending_image;
  pending_image = NULL;
  preloaded_base = NULL;
  if (img && img->pages >= initial_pages && map_image(base, img)) {
    preloaded_base = base;
    initial_pages = img->pages;
    arm(base, (size_t)img->pages * PAGE_SIZE);
  } else {
    size_t bytes = (size_t)initial_pages * PAGE_SIZE;
    if (bytes && mprotect(base, bytes, PROT_READ | PROT_WRITE) != 0) abort();
  }
  m->data = base;
  m->pages = initial_pages;
  m->max_pages = max_pages;
  m->size = byte_size(initial_pages);
}

static bool reset(wasm_rt_memory_t *m, const wb_memory_image *img, bool recycle) {
  if (tracked_reset(m, img, true, recycle)) return true;
  if (m->pages > img->pages) {
    /* pages the call grew: back to reserved, unbacked address space */
    size_t from = (size_t)img->pages * PAGE_SIZE, len = (size_t)(m->pages - img->pages) * PAGE_SIZE;
    if (mmap(m->data + from, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) ==
        MAP_FAILED)
      return false;
  }
  if (!map_image(m->data, img)) return false;
  m->pages = img->pages;
  m->size = byte_size(img->pages);
  arm(m->data, (size_t)img->pages * PAGE_SIZE);
  return true;
}

bool wb_rt_memory_reset(wasm_rt_memory_t *m, const wb_memory_image *img) { return reset(m, img, false); }

bool wb_rt_memory_recycle(wasm_rt_memory_t *m, const wb_memory_image *img) { return reset(m, img, true); }

ssize_t wb_rt_memory_written(wasm_rt_memory_t *m, bool take, uint32_t **out) {
  *out = NULL;
  unsigned *count = recycle_count(m->data);
  if (!count) return -1;
  /* A take leaves the pages writable, as a recycle does: protecting them
   * again flushed each 2 MB it changed from every CPU that had run this
   * process (0.1 ms of a session's call here, an IPI to an idle CPU each
   * time), and the next call took a write fault on each. Unchanged pages
   * taken again cost their caller a comparison. The recycle's learning
   * bounds what stays writable (stay_writable). */
  wb_span *spans;
  ssize_t n = wb_track_written(m->data, (size_t)m->pages * PAGE_SIZE, &spans);
  if (n < 0) return -1;
  size_t pages = 0;
  for (ssize_t i = 0; i < n; i++) pages += spans[i].len / 4096;
  if (take && !stay_writable(count, pages) && !wb_track_rearm_spans(m->data, spans, (size_t)n)) {
    free(spans);
    return -1;
  }
  uint32_t *v = malloc((pages ? pages : 1) * sizeof *v);
  size_t k = 0;
  for (ssize_t i = 0; v && i < n; i++)
    for (size_t p = spans[i].start / 4096; p < (spans[i].start + spans[i].len) / 4096; p++) v[k++] = (uint32_t)p;
  free(spans);
  if (!v) return -1;
  *out = v;
  return (ssize_t)k;
}

bool wb_rt_memory_rebase(wasm_rt_memory_t *m, const wb_memory_image *img) {
  return tracked_reset(m, img, false, false) || wb_rt_memory_reset(m, img);
}

uint32_t wasm_rt_grow_memory(wasm_rt_memory_t *m, uint32_t delta) {
  uint32_t old = m->pages;
  uint64_t want = (uint64_t)old + delta;
  if (want > m->max_pages || want > 65536) {
    wb_guest_frame *f = wb_guest_current();
    if (f) f->memory_grow_failed = 1;
    return UINT32_MAX;
  }
  if (delta == 0) return old;
  if (mprotect(m->data + (size_t)old * PAGE_SIZE, (size_t)delta * PAGE_SIZE, PROT_READ | PROT_WRITE) != 0)
    return UINT32_MAX;
  m->pages = (uint32_t)want;
  m->size = byte_size(want); /* 65536 pages is 4 GiB, which a u32 cannot hold */
  return old;
}

void wasm_rt_free_memory(wasm_rt_memory_t *m) {
  if (m->data && is_tracked(m->data)) set_tracked(m->data, false);
  if (m->data) munmap(m->data, WB_MEMORY_RESERVATION);
  m->data = NULL;
  m->pages = m->size = 0;
}

/* Tables live in host memory; growing one reallocates, so it runs as host
 * code (a timeout must not unwind the allocator). */
void wasm_rt_allocate_funcref_table(wasm_rt_funcref_table_t *t, uint32_t elements, uint32_t max) {
  t->size = elements;
  t->max_size = max;
  t->data = calloc(elements ? elements : 1, sizeof *t->data);
  if (!t->data) abort();
}

void wasm_rt_free_funcref_table(wasm_rt_funcref_table_t *t) {
  free(t->data);
  t->data = NULL;
}

uint32_t wasm_rt_grow_funcref_table(wasm_rt_funcref_table_t *t, uint32_t delta, wasm_rt_funcref_t init) {
  uint32_t old = t->size;
  uint64_t want = (uint64_t)old + delta;
  if (want > t->max_size || want > WB_TABLE_MAX) return UINT32_MAX;
  wb_host_enter();
  wasm_rt_funcref_t *d = realloc(t->data, (size_t)(want ? want : 1) * sizeof *d);
  if (d) {
    for (uint64_t i = old; i < want; i++) d[i] = init;
    t->data = d;
    t->size = (uint32_t)want;
  }
  wb_host_leave();
  return d ? old : UINT32_MAX;
}

/* The externref table: the funcref table's code again, by design, for
 * wasm-rt.h's other element type (two C types; a macro writing both would
 * hide the code a reader checks). */
void wasm_rt_allocate_externref_table(wasm_rt_externref_table_t *t, uint32_t elements, uint32_t max) {
  t->size = elements;
  t->max_size = max;
  t->data = calloc(elements ? elements : 1, sizeof *t->data);
  if (!t->data) abort();
}

void wasm_rt_free_externref_table(wasm_rt_externref_table_t *t) {
  free(t->data);
  t->data = NULL;
}

uint32_t wasm_rt_grow_externref_table(wasm_rt_externref_table_t *t, uint32_t delta, wasm_rt_externref_t init) {
  uint32_t old = t->size;
  uint64_t want = (uint64_t)old + delta;
  if (want > t->max_size || want > WB_TABLE_MAX) return UINT32_MAX;
  wb_host_enter();
  wasm_rt_externref_t *d = realloc(t->data, (size_t)(want ? want : 1) * sizeof *d);
  if (d) {
    for (uint64_t i = old; i < want; i++) d[i] = init;
    t->data = d;
    t->size = (uint32_t)want;
  }
  wb_host_leave();
  return d ? old : UINT32_MAX;
}

const char *wasm_rt_strerror(wasm_rt_trap_t trap) {
  switch ((int)trap) {
    case WASM_RT_TRAP_NONE: return "no error";
    case WASM_RT_TRAP_OOB: return "out-of-bounds memory access";
    case WASM_RT_TRAP_INT_OVERFLOW: return "integer overflow";
    case WASM_RT_TRAP_DIV_BY_ZERO: return "integer divide by zero";
    case WASM_RT_TRAP_INVALID_CONVERSION: return "invalid conversion to integer";
    case WASM_RT_TRAP_UNREACHABLE: return "unreachable instruction executed";
    case WASM_RT_TRAP_CALL_INDIRECT: return "invalid indirect call";
    case WASM_RT_TRAP_UNCAUGHT_EXCEPTION: return "uncaught exception";
    case WASM_RT_TRAP_EXHAUSTION: return "call stack exhausted";
    case WB_TRAP_TIMEOUT: return "wall-clock timeout";
    case WB_TRAP_EXIT: return "exit";
    case WB_TRAP_FUEL: return "out of fuel";
  }
  return "unknown trap";
}
