/* A session's memory on disk: an append-only log of batches of 4 KiB pages
 * (zstd), laid over the base snapshot and replayed in order. The log is
 * valid up to the length the session's HEAD names; anything after it is
 * room (below) or the remains of a save that did not commit, which the
 * next repair cuts off.
 *
 * Record: magic, u32 count, u32 compressed size, u32 pages[count], then one
 * zstd frame (with checksum) of the pages in order: each as it is ("WBPG",
 * 4096 bytes), or what changed since the save before ("WBPW"): a 64-byte
 * map of its 512 8-byte words, a bit set for each that changed, then the
 * XOR of each such word with what it was. A save changes about 1 % of the
 * bytes of the pages it writes. Logs written before "WBPW" hold "WBPX"
 * records instead, each page's whole XOR (4096 bytes), which are read.
 *
 * Past the end the file may hold room: zeros, where the next commits are
 * written (wb_pagelog_room), which no walk of the log takes for a record.
 *
 * A seal ends the records of one commit: magic ("WBSL"), u32 length, u64
 * checksum of the records since the seal before (or since where the commit
 * began), u64 checksum of the seal, then `length` bytes of the caller's
 * (the state those records make). Once the log is flushed, a seal is
 * durable with its records: a commit needs no other file flushed. */
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

/* Write a seal at `at` over the records in [from, at) (read back to sum
 * them), carrying `len` bytes of payload; *end is the new end. */
#define WB_SEAL_MAX 4096u /* payload bytes */
#define WB_SEAL_HEADER 24u
bool wb_pagelog_seal(int fd, uint64_t from, uint64_t at, const void *payload, uint32_t len, uint64_t *end);

/* Walk the log in [from, size): for each seal whose records (since `from`
 * or the seal before) are whole, call accept(payload, len, end of the
 * seal, ctx). Stops at the first record cut or damaged, or when accept
 * says false; returns the end of the last seal accepted (or `from`). */
typedef bool wb_seal_accept(const uint8_t *payload, uint32_t len, uint64_t end, void *ctx);
uint64_t wb_pagelog_follow(int fd, uint64_t from, uint64_t size, wb_seal_accept *accept, void *ctx);

/* After a commit's records and seal in [from, end): make room past `end`
 * for the next commits when little is left (none in a new log, from 0).
 * False: the zeros could not be written (the commit is whole regardless). */
bool wb_pagelog_room(int fd, uint64_t from, uint64_t end);

/* Whether what the file holds in [end, size), past the log's end, is room
 * (it starts with zeros), where a save that did not commit starts with a
 * record: kept, not cut off, by a repair. False when size <= end. */
bool wb_pagelog_is_room(int fd, uint64_t end, uint64_t size);

/* Free the calling thread's compression context (half a megabyte), which
 * appends keep for the thread's next: for a thread that will be idle. */
void wb_pagelog_release(void);

/* Write every record in [0, length) (seals skipped) into `mem` (mem_size bytes), setting
 * the bit of each page written in `changed` (when not NULL); *records
 * counts page records read (for deciding when to compact). */
bool wb_pagelog_apply(int fd, uint64_t length, uint8_t *mem, uint64_t mem_size, uint64_t *changed, uint64_t *records,
                      char *err, size_t errlen);

#endif
