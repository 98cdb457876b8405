/* The error convention of functions that take a caller's (err, errlen):
 * wb_fail() writes the message there and returns `code`, so that a check
 * reads `if (bad) return wb_fail(err, errlen, -1, "why %s", x);`. */
#ifndef WASMBOX_UTIL_FAIL_H
#define WASMBOX_UTIL_FAIL_H

#include <stddef.h>

int wb_fail(char *err, size_t errlen, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
