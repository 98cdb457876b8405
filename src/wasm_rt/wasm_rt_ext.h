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

#include <stdint.h>
#include <sys/types.h>
#include <wasm-rt.h>

/* A linear memory image that can be mapped copy-on-write: `pages` wasm pages
 * at `offset` (page aligned) in file `fd` (a memfd, or our own executable).
 * `view`, when not NULL, is the same bytes readable in this process (the
 * built-in snapshots, in the executable's own data): a reset copies from it
 * instead of making a read() per span of written pages. */
typedef struct {
  int fd;
  uint64_t offset;
  uint32_t pages;
  const uint8_t *view;
} wb_memory_image;

/* The next wasm_rt_allocate_memory() on this thread maps `img` instead of
 * zeroed pages (and the generated code then skips its data segments). */
void wb_rt_preload(const wb_memory_image *img);

/* Put memory `m` back to `img` and forget pages beyond it: copy back the
 * pages written since `m` last held `img` (or an image `img` derives from
 * by writes made since), or map `img` again. */
bool wb_rt_memory_reset(wasm_rt_memory_t *m, const wb_memory_image *img);

/* `m` holds exactly `img` now (a session just saved it): follow writes
 * from here, copying nothing. */
bool wb_rt_memory_rebase(wasm_rt_memory_t *m, const wb_memory_image *img);

/* Written pages of `m` since it last held an image, as 4 KiB page
 * indexes (malloc'd in *out); -1 when not tracked. */
ssize_t wb_rt_memory_written(wasm_rt_memory_t *m, uint32_t **out);

/* Always map again, never track (for tests of that path). */
void wb_rt_tracking_disable(void);

#endif
