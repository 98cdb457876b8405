/* Constants of our wasm-rt implementation (wasm_rt.c) that the engine shares. */
#ifndef WASMBOX_WASM_RT_EXT_H
#define WASMBOX_WASM_RT_EXT_H

/* Address space reserved per linear memory: any 32-bit address plus a 32-bit
 * offset falls inside, so every out-of-bounds access faults. */
#define WB_MEMORY_RESERVATION (8ull << 30)

/* A WebAssembly page. */
#define WB_WASM_PAGE 65536u

/* Largest table the host will allocate for a guest (elements). */
#define WB_TABLE_MAX (1u << 20)

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <wasm-rt.h>

/* A linear memory image that can be mapped copy-on-write: `pages` wasm pages
 * at `offset` (page aligned) in file `fd` (a memfd, or our own executable).
 * `view`, when not NULL, is the same bytes readable in this process (the
 * built-in snapshots, in the executable's own data): a reset copies from it
 * instead of making a read() per span of written pages. */
typedef struct wb_memory_image {
  int fd;
  uint64_t offset;
  uint32_t pages;
  const uint8_t *view;
  /* An overlay (fd -1): `view` is a private mapping of `under` (a snapshot
   * of its own) into which the pages set in `changed` were copied; it is
   * mapped as `under` with those pages copied in. Only they take memory,
   * not a copy of the whole (a session's committed state kept between
   * calls: its changes, beside the snapshot every worker shares). */
  const struct wb_memory_image *under;
  uint64_t *changed; /* one bit per 4 KiB page */
} wb_memory_image;

/* `n` bytes of the image at byte `at` into `out`: from `view` when there is
 * one, else from `fd`; bytes beyond its pages read as zeros. */
bool wb_image_read(const wb_memory_image *img, uint64_t at, uint8_t *out, size_t n);
/* The same bytes in place, when the image has a view holding all of them
 * (no copy); else NULL, and wb_image_read must copy them. */
const uint8_t *wb_image_at(const wb_memory_image *img, uint64_t at, size_t n);

/* An overlay of `pages` wasm pages on `under` with nothing changed yet;
 * false (errno set) if it cannot be mapped. */
bool wb_overlay_new(wb_memory_image *img, const wb_memory_image *under, uint32_t pages);
/* Copy the 4 KiB pages `pages4k[0..n)` of `mem` into the overlay, which
 * grows to `pages` wasm pages first (new pages are zero). */
bool wb_overlay_put(wb_memory_image *img, uint32_t pages, const uint8_t *mem, const uint32_t *pages4k, size_t n);
void wb_overlay_free(wb_memory_image *img);

/* For a process going idle: give back this process's pages of an image it
 * can read again. An image mapped from a file (the built-in snapshots)
 * loses only its page table entries; the page cache keeps the bytes. An
 * overlay's changed pages are dropped (they read as `under` meanwhile):
 * wb_overlay_refill copies them back from `mem`, a memory that holds the
 * whole image, before the overlay is read again. */
void wb_image_unmap_pages(const wb_memory_image *img);
void wb_overlay_drop(wb_memory_image *img);
void wb_overlay_refill(wb_memory_image *img, const uint8_t *mem);

/* The next wasm_rt_allocate_memory() on this thread maps `img` instead of
 * zeroed pages (and the generated code then skips its data segments). */
void wb_rt_preload(const wb_memory_image *img);

/* Put memory `m` back to `img` and forget pages beyond it: copy back the
 * pages written since `m` last held `img` (or an image `img` derives from
 * by writes made since), or map `img` again. */
bool wb_rt_memory_reset(wasm_rt_memory_t *m, const wb_memory_image *img);

/* As wb_rt_memory_reset, for a memory put back to the same `img` after
 * every call (a pool's instance): the pages written stay writable, so the
 * next call takes no write fault on them (about half a microsecond each),
 * and are copied back at every recycle, written or not. Every few
 * recycles, or after a call that wrote many pages, all are protected
 * again, so that what stays writable follows what calls write. Until
 * then wb_rt_memory_written counts those pages as written. */
bool wb_rt_memory_recycle(wasm_rt_memory_t *m, const wb_memory_image *img);

/* `m` holds exactly `img` now (a session just saved it): follow writes
 * from here, copying nothing. */
bool wb_rt_memory_rebase(wasm_rt_memory_t *m, const wb_memory_image *img);

/* Written pages of `m` since it last held an image, as 4 KiB page
 * indexes (malloc'd in *out); -1 when not tracked. With `take`, `m` then
 * counts writes from what it holds now, as after wb_rt_memory_rebase onto
 * an image of it; the pages stay writable, as after a recycle, so later
 * calls count them again, written or not, until a take now and then
 * protects them all again. */
ssize_t wb_rt_memory_written(wasm_rt_memory_t *m, bool take, uint32_t **out);

/* Always map again, never track (for tests of that path). */
void wb_rt_tracking_disable(void);

#endif
