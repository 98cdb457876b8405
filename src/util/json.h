/* Writing JSON text. Strings are arbitrary bytes: NULs and control characters
 * are escaped, and bytes that are not valid UTF-8 become U+FFFD, so the output
 * is always valid JSON whatever a guest printed. */
#ifndef WASMBOX_UTIL_JSON_H
#define WASMBOX_UTIL_JSON_H

#include <stddef.h>

#include "util/buf.h"

/* Append `s` (n bytes) as a quoted JSON string. */
void wb_json_str(wb_buf *b, const char *s, size_t n);
/* The same for a NUL-terminated string, or `null` when s is NULL. */
void wb_json_cstr(wb_buf *b, const char *s);
/* A finite number (non-finite values become null). */
void wb_json_num(wb_buf *b, double v);

#endif
