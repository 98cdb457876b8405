/* Growable byte buffer (see buf.h). */
#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(wb_buf *b, size_t n) {
  if (b->failed) return false;
  if (n > (size_t)-1 - b->len - 1) {
    b->failed = true;
    return false;
  }
  size_t need = b->len + n + 1;
  if (need <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < need) cap = cap > (size_t)-1 / 2 ? need : cap * 2;
  char *d = realloc(b->data, cap);
  if (!d) {
    b->failed = true;
    return false;
  }
  b->data = d;
  b->cap = cap;
  return true;
}

void wb_buf_append(wb_buf *b, const void *p, size_t n) {
  if (!reserve(b, n)) return;
  if (n) memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = 0;
}

void wb_buf_puts(wb_buf *b, const char *s) { wb_buf_append(b, s, strlen(s)); }

void wb_buf_printf(wb_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || !reserve(b, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

char *wb_buf_take(wb_buf *b) {
  char *d = b->failed ? NULL : b->data;
  if (b->failed) free(b->data);
  if (d == NULL && !b->failed) d = calloc(1, 1);
  b->data = NULL;
  b->len = b->cap = 0;
  b->failed = false;
  return d;
}

void wb_buf_free(wb_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
  b->failed = false;
}
