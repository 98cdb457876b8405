/* A growable byte buffer. Appends never fail silently: on allocation failure
 * the buffer is marked failed, later appends are ignored, and the owner checks
 * `failed` once at the end. data is always NUL-terminated when non-NULL. */
#ifndef WASMBOX_UTIL_BUF_H
#define WASMBOX_UTIL_BUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  char *data;
  size_t len, cap;
  bool failed;
} wb_buf;

void wb_buf_append(wb_buf *b, const void *p, size_t n);
void wb_buf_puts(wb_buf *b, const char *s);
void wb_buf_printf(wb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hand the bytes to the caller (NULL if failed); the buffer is reset. */
char *wb_buf_take(wb_buf *b);
void wb_buf_free(wb_buf *b);

#endif
