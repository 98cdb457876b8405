/* A session's memory on disk: an append-only log of batches of 4 KiB pages
 * (zstd), laid over the base snapshot and replayed in order. The log is
 * valid up to the length the session's HEAD names; anything after it is
 * the remains of a save that did not commit, cut off before the next append.
 *
 * Record: magic, u32 count, u32 compressed size, u32 pages[count], then one
 * zstd frame (with checksum) of count * 4096 bytes: each page as it is
 * ("WBPG"), or its XOR with what it was before the save ("WBPX"). A save
 * changes a few bytes of most pages it writes, so a difference is mostly
 * zeros, which zstd compresses about ten times faster than the page. */
#ifndef WASMBOX_SESSION_PAGELOG_H
#define WASMBOX_SESSION_PAGELOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wasm_rt/wasm_rt_ext.h"

#define WB_HOST_PAGE 4096u

/* Append pages `pages[0..*n)` of `mem` at offset `at`: as they are (prior
 * NULL) or as differences from the image `prior` (what the memory was
 * before the save), leaving out pages that did not change (pages[] is
 * reduced to those recorded, *n to their count); *end is the new end. */
bool wb_pagelog_append(int fd, uint64_t at, const uint8_t *mem, uint32_t *pages, size_t *n,
                       const wb_memory_image *prior, uint64_t *end, char *err, size_t errlen);

/* Free the calling thread's compression context (half a megabyte), which
 * appends keep for the thread's next: for a thread that will be idle. */
void wb_pagelog_release(void);

/* Write every record in [0, length) into `mem` (mem_size bytes), setting
 * the bit of each page written in `changed` (when not NULL); *records
 * counts page records read (for deciding when to compact). */
bool wb_pagelog_apply(int fd, uint64_t length, uint8_t *mem, uint64_t mem_size, uint64_t *changed, uint64_t *records,
                      char *err, size_t errlen);

#endif
