/* Frames between a worker and its parent: [u32 length][u8 type][payload],
 * over a stream socket. Payloads are built with wb_put_* and read back with
 * wb_get_*; a reader never trusts a length: every read is bounds-checked
 * and a short or malformed payload marks the reader bad instead. */
#ifndef WASMBOX_JAIL_WIRE_H
#define WASMBOX_JAIL_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define WB_FRAME_MAX (3ull << 30) /* two 1 GiB output streams and the rest */

void wb_put_u8(wb_buf *b, uint8_t v);
void wb_put_u32(wb_buf *b, uint32_t v);
void wb_put_u64(wb_buf *b, uint64_t v);
void wb_put_f64(wb_buf *b, double v);
/* bytes with their length; NULL is kept apart from "" */
void wb_put_bytes(wb_buf *b, const void *p, size_t n);
void wb_put_str(wb_buf *b, const char *s);

typedef struct {
  const uint8_t *p;
  size_t len, at;
  bool bad;
} wb_reader;

uint8_t wb_get_u8(wb_reader *r);
uint32_t wb_get_u32(wb_reader *r);
uint64_t wb_get_u64(wb_reader *r);
double wb_get_f64(wb_reader *r);
/* Points into the payload (NUL-terminated there), NULL for a NULL; *n its length. */
const char *wb_get_bytes(wb_reader *r, size_t *n);
const char *wb_get_str(wb_reader *r);

/* Whole frames; false on a closed or failed socket (errno says which: 0
 * at a clean end of stream, ETIMEDOUT past `deadline_ns`, EMSGSIZE for a
 * frame over `max`). deadline_ns: CLOCK_MONOTONIC, 0 for none. A read
 * frame's payload is malloc'd. */
bool wb_frame_write(int fd, uint8_t type, const wb_buf *payload, uint64_t deadline_ns);
bool wb_frame_read(int fd, uint8_t *type, uint8_t **payload, size_t *len, uint64_t max, uint64_t deadline_ns);
uint64_t wb_monotonic_ns(void);

#endif
