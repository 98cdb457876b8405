/* JSON text output (see json.h). */
#include "util/json.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t len;
  uint32_t cp;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) len = 2, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef) len = 3, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4) len = 4, cp = c & 0x07;
  else return 0;
  if (len > n) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return len;
}

void wb_json_str(wb_buf *b, const char *str, size_t n) {
  const unsigned char *s = (const unsigned char *)str;
  wb_buf_append(b, "\"", 1);
  size_t run = 0; /* bytes copied verbatim, flushed in one append */
  for (size_t i = 0; i < n;) {
    unsigned c = s[i];
    const char *esc = NULL;
    char tmp[8];
    size_t k = 1;
    if (c == '"') esc = "\\\"";
    else if (c == '\\') esc = "\\\\";
    else if (c == '\n') esc = "\\n";
    else if (c == '\r') esc = "\\r";
    else if (c == '\t') esc = "\\t";
    else if (c < 0x20 || c == 0x7f) {
      static const char hex[] = "0123456789abcdef";
      memcpy(tmp, "\\u00", 4);
      tmp[4] = hex[c >> 4];
      tmp[5] = hex[c & 15];
      tmp[6] = 0;
      esc = tmp;
    } else if (c >= 0x80) {
      k = utf8_len(s + i, n - i);
      if (k == 0) {
        esc = "\xef\xbf\xbd"; /* U+FFFD */
        k = 1;
      }
    }
    if (esc) {
      wb_buf_append(b, s + i - run, run);
      run = 0;
      wb_buf_puts(b, esc);
      i += k;
    } else {
      run += k;
      i += k;
    }
  }
  wb_buf_append(b, s + n - run, run);
  wb_buf_append(b, "\"", 1);
}

void wb_json_cstr(wb_buf *b, const char *s) {
  if (!s) wb_buf_puts(b, "null");
  else wb_json_str(b, s, strlen(s));
}

void wb_json_num(wb_buf *b, double v) {
  if (!isfinite(v)) wb_buf_puts(b, "null");
  else if (v == (double)(int64_t)v && fabs(v) < 9e15) wb_buf_printf(b, "%lld", (long long)v);
  else wb_buf_printf(b, "%.15g", v);
}
