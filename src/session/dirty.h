/* Which pages of a mapping were written: a page of a MAP_PRIVATE file
 * mapping becomes a private anonymous page on its first write, and
 * /proc/self/pagemap says so per page. Without /proc (a jailed worker) the
 * caller compares pages against the mapped file instead. */
#ifndef WASMBOX_SESSION_DIRTY_H
#define WASMBOX_SESSION_DIRTY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Indexes (4 KiB pages from `base`) of written pages in [base, base+len),
 * into out[0..max). Returns how many, or -1 if pagemap cannot be read. */
ssize_t wb_dirty_pages(const uint8_t *base, size_t len, uint32_t *out, size_t max);
/* Open this process's pagemap now and keep it, for after /proc is gone. */
bool wb_dirty_keep_open(void);

#endif
