/* wb_fail (see fail.h). */
#include "util/fail.h"

#include <stdarg.h>
#include <stdio.h>

int wb_fail(char *err, size_t errlen, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return code;
}
