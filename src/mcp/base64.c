/* Base64 (see base64.h). */
#include "mcp/base64.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *b64_encode(const void *data, size_t n) {
  const unsigned char *p = data;
  if (n > (SIZE_MAX - 1) / 4 * 3 - 3) return NULL;
  char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
  if (!out) return NULL;
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
    *o++ = alphabet[v >> 18], *o++ = alphabet[(v >> 12) & 63], *o++ = alphabet[(v >> 6) & 63], *o++ = alphabet[v & 63];
  }
  if (i < n) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
    *o++ = alphabet[v >> 18], *o++ = alphabet[(v >> 12) & 63];
    *o++ = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
    *o++ = '=';
  }
  *o = 0;
  return out;
}

static int value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

void *b64_decode(const char *s, size_t n, size_t *out_len) {
  if (n % 4) return NULL;
  unsigned char *out = malloc(n / 4 * 3 + 1), *o = out;
  if (!out) return NULL;
  for (size_t i = 0; i < n; i += 4) {
    int a = value(s[i]), b = value(s[i + 1]);
    bool last = i + 4 == n;
    int c = last && s[i + 2] == '=' ? -2 : value(s[i + 2]);
    int d = last && s[i + 3] == '=' ? -2 : value(s[i + 3]);
    if (a < 0 || b < 0 || c == -1 || d == -1 || (c == -2 && d != -2)) {
      free(out);
      return NULL;
    }
    uint32_t v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)(c < 0 ? 0 : c) << 6 | (uint32_t)(d < 0 ? 0 : d);
    *o++ = (unsigned char)(v >> 16);
    if (c >= 0) *o++ = (unsigned char)(v >> 8);
    if (d >= 0) *o++ = (unsigned char)v;
  }
  *out_len = (size_t)(o - out);
  return out;
}

static int url_value(char c) {
  if (c == '-') return 62;
  if (c == '_') return 63;
  return c == '+' || c == '/' ? -1 : value(c);
}

void *b64url_decode(const char *s, size_t n, size_t *out_len) {
  if (n % 4 == 1) return NULL; /* one digit alone holds 6 bits: not a byte */
  unsigned char *out = malloc(n / 4 * 3 + 3), *o = out;
  if (!out) return NULL;
  uint32_t acc = 0;
  unsigned bits = 0;
  for (size_t i = 0; i < n; i++) {
    int v = url_value(s[i]);
    if (v < 0) {
      free(out);
      return NULL;
    }
    acc = acc << 6 | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      *o++ = (unsigned char)(acc >> bits);
      acc &= (1u << bits) - 1;
    }
  }
  if (acc) { /* leftover bits must be zero: another text for the same bytes */
    free(out);
    return NULL;
  }
  *out_len = (size_t)(o - out);
  return out;
}
