/* A session's memory on disk: an append-only log of batches of 4 KiB pages
 * (zstd), laid over the base snapshot. A page's latest record wins. The log
 * is valid up to the length the session's HEAD names; anything after it is
 * the remains of a save that did not commit, cut off before the next append.
 *
 * Record: "WBPG", u32 count, u32 compressed size, u32 pages[count], then one
 * zstd frame (with checksum) of count * 4096 bytes. */
#ifndef WASMBOX_SESSION_PAGELOG_H
#define WASMBOX_SESSION_PAGELOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WB_HOST_PAGE 4096u

/* Append pages `pages[0..n)` of `mem` at offset `at`; *end is the new end. */
bool wb_pagelog_append(int fd, uint64_t at, const uint8_t *mem, const uint32_t *pages, size_t n, uint64_t *end,
                       char *err, size_t errlen);

/* Write every record in [0, length) into `mem` (mem_size bytes); *records
 * counts page records read (for deciding when to compact). */
bool wb_pagelog_apply(int fd, uint64_t length, uint8_t *mem, uint64_t mem_size, uint64_t *records, char *err,
                      size_t errlen);

#endif
