/* Natives behind Buffer, TextEncoder/TextDecoder, atob/btoa and crypto:
 * the byte loops that would be slow in interpreted JavaScript. Written from
 * the specifications (RFC 1321 MD5, FIPS 180-4 SHA-1/SHA-2, RFC 2104 HMAC,
 * RFC 4648 base64, the WHATWG Encoding standard's UTF-8 decoder). Each takes
 * and returns plain values; the prelude wraps them into node's API. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "glue.h"

uint8_t *wb_bytes(JSContext *c, JSValueConst v, size_t *len) {
  size_t n;
  uint8_t *p = JS_GetArrayBuffer(c, &n, v);
  if (p) {
    *len = n;
    return p;
  }
  JS_FreeValue(c, JS_GetException(c)); /* not an ArrayBuffer: try a view */
  size_t off, bytes, per;
  JSValue ab = JS_GetTypedArrayBuffer(c, v, &off, &bytes, &per);
  if (JS_IsException(ab)) {
    JS_FreeValue(c, JS_GetException(c));
    JS_ThrowTypeError(c, "expected an ArrayBuffer or a typed array");
    return NULL;
  }
  p = JS_GetArrayBuffer(c, &n, ab);
  JS_FreeValue(c, ab);
  if (!p || off + bytes > n) { /* detached: no bytes */
    if (!p) JS_FreeValue(c, JS_GetException(c));
    *len = 0;
    static uint8_t empty;
    return &empty;
  }
  *len = bytes;
  return p + off;
}

/* ---- text ------------------------------------------------------------------ */

/* A string as UTF-8 with each lone surrogate as U+FFFD (TextEncoder,
 * Buffer.from): QuickJS encodes a lone surrogate as its 3-byte form
 * (ED A0..BF xx), which EF BF BD replaces at the same length. */
static JSValue n_utf8_encode(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  size_t len;
  const char *s = JS_ToCStringLen(c, &len, argv[0]);
  if (!s) return JS_EXCEPTION;
  uint8_t *b = malloc(len ? len : 1);
  if (!b) {
    JS_FreeCString(c, s);
    return JS_ThrowOutOfMemory(c);
  }
  memcpy(b, s, len);
  JS_FreeCString(c, s);
  for (size_t i = 0; i + 2 < len; i++) {
    if (b[i] == 0xed && b[i + 1] >= 0xa0) {
      b[i] = 0xef, b[i + 1] = 0xbf, b[i + 2] = 0xbd;
      i += 2;
    }
  }
  JSValue r = JS_NewArrayBufferCopy(c, b, len);
  free(b);
  return r;
}

static JSValue n_utf8_length(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  size_t len;
  const char *s = JS_ToCStringLen(c, &len, argv[0]);
  if (!s) return JS_EXCEPTION;
  JS_FreeCString(c, s);
  return JS_NewInt64(c, (int64_t)len);
}

/* Length of the valid UTF-8 sequence at p (1-4), or 0 if it is not one; the
 * WHATWG decoder's ranges (no overlongs, no surrogates, at most U+10FFFF).
 * *maximal: how many bytes of an invalid sequence form one U+FFFD. */
static size_t utf8_seq(const uint8_t *p, size_t n, size_t *maximal) {
  uint8_t b = p[0];
  *maximal = 1;
  if (b < 0x80) return 1;
  size_t need;
  uint8_t lo = 0x80, hi = 0xbf;
  if (b >= 0xc2 && b <= 0xdf) need = 1;
  else if (b >= 0xe0 && b <= 0xef) {
    need = 2;
    if (b == 0xe0) lo = 0xa0;
    if (b == 0xed) hi = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    need = 3;
    if (b == 0xf0) lo = 0x90;
    if (b == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  for (size_t i = 1; i <= need; i++) {
    if (i >= n || p[i] < lo || p[i] > hi) {
      *maximal = i;
      return 0;
    }
    lo = 0x80, hi = 0xbf;
  }
  return need + 1;
}

/* utf8Decode(bytes, fatal): the WHATWG UTF-8 decode (each maximal invalid
 * subpart becomes U+FFFD; with fatal, a TypeError as node words it). The BOM
 * is the caller's business. */
static JSValue n_utf8_decode(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  size_t n;
  const uint8_t *p = wb_bytes(c, argv[0], &n);
  if (!p) return JS_EXCEPTION;
  bool fatal = argc > 1 && JS_ToBool(c, argv[1]);
  size_t i = 0, max;
  while (i < n) { /* the common case: valid, no copy needed */
    size_t k = utf8_seq(p + i, n - i, &max);
    if (!k) break;
    i += k;
  }
  if (i == n) return JS_NewStringLen(c, (const char *)p, n);
  if (fatal) {
    JS_ThrowTypeError(c, "The encoded data was not valid for encoding utf-8");
    JSValue e = JS_GetException(c);
    JS_DefinePropertyValueStr(c, e, "code", JS_NewString(c, "ERR_ENCODING_INVALID_ENCODED_DATA"), JS_PROP_C_W_E);
    return JS_Throw(c, e);
  }
  /* each invalid byte becomes at most 3 */
  uint8_t *o = malloc(n * 3 + 1);
  if (!o) return JS_ThrowOutOfMemory(c);
  memcpy(o, p, i);
  size_t w = i;
  while (i < n) {
    size_t k = utf8_seq(p + i, n - i, &max);
    if (k) {
      memcpy(o + w, p + i, k);
      w += k, i += k;
    } else {
      o[w++] = 0xef, o[w++] = 0xbf, o[w++] = 0xbd;
      i += max;
    }
  }
  JSValue r = JS_NewStringLen(c, (const char *)o, w);
  free(o);
  return r;
}

/* latin1Encode(s): each UTF-16 code unit's low byte, as node's 'latin1'. */
static JSValue n_latin1_encode(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  size_t len;
  const uint8_t *s = (const uint8_t *)JS_ToCStringLen(c, &len, argv[0]);
  if (!s) return JS_EXCEPTION;
  uint8_t *b = malloc(len ? len : 1);
  if (!b) {
    JS_FreeCString(c, (const char *)s);
    return JS_ThrowOutOfMemory(c);
  }
  size_t w = 0;
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    uint8_t x = s[i];
    if (x < 0x80) cp = x, i += 1;
    else if (x < 0xe0 && i + 1 < len) cp = ((x & 0x1fu) << 6) | (s[i + 1] & 0x3fu), i += 2;
    else if (x < 0xf0 && i + 2 < len) cp = ((x & 0x0fu) << 12) | ((s[i + 1] & 0x3fu) << 6) | (s[i + 2] & 0x3fu), i += 3;
    else if (i + 3 < len) {
      cp = ((x & 0x07u) << 18) | ((s[i + 1] & 0x3fu) << 12) | ((s[i + 2] & 0x3fu) << 6) | (s[i + 3] & 0x3fu);
      i += 4;
      cp -= 0x10000; /* two code units: the surrogates' low bytes */
      b[w++] = (uint8_t)(0xd800 + (cp >> 10));
      cp = 0xdc00 + (cp & 0x3ff);
    } else break;
    b[w++] = (uint8_t)cp;
  }
  JS_FreeCString(c, (const char *)s);
  JSValue r = JS_NewArrayBufferCopy(c, b, w);
  free(b);
  return r;
}

/* latin1Decode(bytes, mask): bytes as code points (mask 0x7f: node's 'ascii') */
static JSValue n_latin1_decode(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  uint32_t mask = 0xff; /* first: a conversion could run code that detaches the bytes */
  if (argc > 1 && JS_ToUint32(c, &mask, argv[1])) return JS_EXCEPTION;
  size_t n;
  const uint8_t *p = wb_bytes(c, argv[0], &n);
  if (!p) return JS_EXCEPTION;
  uint8_t *o = malloc(n * 2 + 1);
  if (!o) return JS_ThrowOutOfMemory(c);
  size_t w = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t x = (uint8_t)(p[i] & mask);
    if (x < 0x80) o[w++] = x;
    else o[w++] = (uint8_t)(0xc0 | (x >> 6)), o[w++] = (uint8_t)(0x80 | (x & 0x3f));
  }
  JSValue r = JS_NewStringLen(c, (const char *)o, w);
  free(o);
  return r;
}

/* ---- hex and base64 ------------------------------------------------------------ */

static JSValue n_hex_encode(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  size_t n;
  const uint8_t *p = wb_bytes(c, argv[0], &n);
  if (!p) return JS_EXCEPTION;
  char *o = malloc(n * 2 + 1);
  if (!o) return JS_ThrowOutOfMemory(c);
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) o[2 * i] = digits[p[i] >> 4], o[2 * i + 1] = digits[p[i] & 15];
  JSValue r = JS_NewStringLen(c, o, n * 2);
  free(o);
  return r;
}

static int hex_value(int ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

/* node's hex decoding: pairs up to the first that is not hex */
static JSValue n_hex_decode(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  size_t len;
  const char *s = JS_ToCStringLen(c, &len, argv[0]);
  if (!s) return JS_EXCEPTION;
  uint8_t *o = malloc(len / 2 + 1);
  if (!o) {
    JS_FreeCString(c, s);
    return JS_ThrowOutOfMemory(c);
  }
  size_t w = 0;
  for (size_t i = 0; i + 1 < len; i += 2) {
    int h = hex_value((unsigned char)s[i]), l = hex_value((unsigned char)s[i + 1]);
    if (h < 0 || l < 0) break;
    o[w++] = (uint8_t)(h << 4 | l);
  }
  JS_FreeCString(c, s);
  JSValue r = JS_NewArrayBufferCopy(c, o, w);
  free(o);
  return r;
}

/* base64Encode(bytes, url): RFC 4648 base64, or base64url without padding */
static JSValue n_base64_encode(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  size_t n;
  const uint8_t *p = wb_bytes(c, argv[0], &n);
  if (!p) return JS_EXCEPTION;
  bool url = argc > 1 && JS_ToBool(c, argv[1]);
  const char *abc = url ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                        : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char *o = malloc((n + 2) / 3 * 4 + 1);
  if (!o) return JS_ThrowOutOfMemory(c);
  size_t w = 0, i = 0;
  for (; i + 2 < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
    o[w++] = abc[v >> 18], o[w++] = abc[(v >> 12) & 63], o[w++] = abc[(v >> 6) & 63], o[w++] = abc[v & 63];
  }
  if (i < n) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
    o[w++] = abc[v >> 18], o[w++] = abc[(v >> 12) & 63];
    if (i + 1 < n) o[w++] = abc[(v >> 6) & 63];
    else if (!url) o[w++] = '=';
    if (!url) o[w++] = '=';
  }
  JSValue r = JS_NewStringLen(c, o, w);
  free(o);
  return r;
}

static int b64_value(int ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9') return ch - '0' + 52;
  if (ch == '+' || ch == '-') return 62;
  if (ch == '/' || ch == '_') return 63;
  return -1;
}

/* base64Decode(s, strict) -> ArrayBuffer, or null when strict and invalid.
 * Lenient (Buffer.from(s, 'base64')): both alphabets, other characters
 * skipped, '=' ends the data. Strict (atob): the WHATWG forgiving-base64
 * rules: ASCII whitespace removed, the standard alphabet only, padding only
 * where it belongs, no length of 1 mod 4. */
static JSValue n_base64_decode(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  size_t len;
  const char *s = JS_ToCStringLen(c, &len, argv[0]);
  if (!s) return JS_EXCEPTION;
  bool strict = argc > 1 && JS_ToBool(c, argv[1]);
  uint8_t *o = malloc(len / 4 * 3 + 3);
  if (!o) {
    JS_FreeCString(c, s);
    return JS_ThrowOutOfMemory(c);
  }
  size_t w = 0, k = 0, pad = 0;
  uint32_t acc = 0;
  bool bad = false;
  for (size_t i = 0; i < len && !bad; i++) {
    int ch = (unsigned char)s[i];
    if (strict && (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\f' || ch == '\r')) continue;
    if (ch == '=') {
      if (!strict) break;
      pad++;
      continue;
    }
    int v = b64_value(ch);
    if (strict && (v < 0 || ch == '-' || ch == '_' || pad)) bad = true;
    if (v < 0) continue;
    acc = acc << 6 | (uint32_t)v;
    if (++k == 4) {
      o[w++] = (uint8_t)(acc >> 16), o[w++] = (uint8_t)(acc >> 8), o[w++] = (uint8_t)acc;
      k = 0, acc = 0;
    }
  }
  JS_FreeCString(c, s);
  if (strict && (bad || k == 1 || (pad && (k + pad) % 4 != 0) || pad > 2)) {
    free(o);
    return JS_NULL;
  }
  if (k == 2) o[w++] = (uint8_t)(acc >> 4);
  else if (k == 3) o[w++] = (uint8_t)(acc >> 10), o[w++] = (uint8_t)(acc >> 2);
  JSValue r = JS_NewArrayBufferCopy(c, o, w);
  free(o);
  return r;
}

/* compare(a, b): -1, 0 or 1 as Buffer.compare orders bytes */
static JSValue n_compare(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  size_t na, nb;
  const uint8_t *a = wb_bytes(c, argv[0], &na);
  if (!a) return JS_EXCEPTION;
  const uint8_t *b = wb_bytes(c, argv[1], &nb);
  if (!b) return JS_EXCEPTION;
  int r = memcmp(a, b, na < nb ? na : nb);
  if (r == 0) r = na < nb ? -1 : na > nb;
  return JS_NewInt32(c, r < 0 ? -1 : r > 0);
}

/* randomFill(view): bytes from the host (WASI random_get) */
static JSValue n_random_fill(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  size_t n;
  uint8_t *p = wb_bytes(c, argv[0], &n);
  if (!p) return JS_EXCEPTION;
  for (size_t off = 0; off < n; off += 256) { /* getentropy's limit per call */
    if (getentropy(p + off, n - off < 256 ? n - off : 256) != 0)
      return JS_ThrowInternalError(c, "the host gave no random bytes");
  }
  return JS_UNDEFINED;
}

/* ---- hashes ------------------------------------------------------------------- */

typedef struct hash_ctx hash_ctx;
typedef struct {
  const char *name;
  size_t block, digest;
  void (*init)(hash_ctx *);
  void (*compress)(hash_ctx *, const uint8_t *);
  bool big_endian;
} hash_def;

struct hash_ctx {
  const hash_def *def;
  uint64_t total; /* bytes hashed */
  size_t fill;
  uint8_t buf[128];
  uint32_t h32[8];
  uint64_t h64[8];
};

static uint32_t rol32(uint32_t x, int n) { return x << n | x >> (32 - n); }
static uint32_t ror32(uint32_t x, int n) { return x >> n | x << (32 - n); }
static uint64_t ror64(uint64_t x, int n) { return x >> n | x << (64 - n); }
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]; }
static uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

/* MD5 (RFC 1321) */
static void md5_init(hash_ctx *h) {
  static const uint32_t iv[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  memcpy(h->h32, iv, sizeof iv);
}

static void md5_compress(hash_ctx *h, const uint8_t *p) {
  static const uint8_t shift[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                    5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                                    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                    6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};
  static const uint32_t k[64] = {
      0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
      0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
      0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
      0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
      0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
      0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
      0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
      0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
  uint32_t m[16];
  for (int i = 0; i < 16; i++) m[i] = le32(p + 4 * i);
  uint32_t a = h->h32[0], b = h->h32[1], cc = h->h32[2], d = h->h32[3];
  for (int i = 0; i < 64; i++) {
    uint32_t f;
    int g;
    if (i < 16) f = (b & cc) | (~b & d), g = i;
    else if (i < 32) f = (d & b) | (~d & cc), g = (5 * i + 1) & 15;
    else if (i < 48) f = b ^ cc ^ d, g = (3 * i + 5) & 15;
    else f = cc ^ (b | ~d), g = (7 * i) & 15;
    uint32_t t = d;
    d = cc;
    cc = b;
    b = b + rol32(a + f + k[i] + m[g], shift[i]);
    a = t;
  }
  h->h32[0] += a, h->h32[1] += b, h->h32[2] += cc, h->h32[3] += d;
}

/* SHA-1 (FIPS 180-4) */
static void sha1_init(hash_ctx *h) {
  static const uint32_t iv[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
  memcpy(h->h32, iv, sizeof iv);
}

static void sha1_compress(hash_ctx *h, const uint8_t *p) {
  uint32_t w[80];
  for (int i = 0; i < 16; i++) w[i] = be32(p + 4 * i);
  for (int i = 16; i < 80; i++) w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  uint32_t a = h->h32[0], b = h->h32[1], cc = h->h32[2], d = h->h32[3], e = h->h32[4];
  for (int i = 0; i < 80; i++) {
    uint32_t f, k;
    if (i < 20) f = (b & cc) | (~b & d), k = 0x5a827999;
    else if (i < 40) f = b ^ cc ^ d, k = 0x6ed9eba1;
    else if (i < 60) f = (b & cc) | (b & d) | (cc & d), k = 0x8f1bbcdc;
    else f = b ^ cc ^ d, k = 0xca62c1d6;
    uint32_t t = rol32(a, 5) + f + e + k + w[i];
    e = d, d = cc, cc = rol32(b, 30), b = a, a = t;
  }
  h->h32[0] += a, h->h32[1] += b, h->h32[2] += cc, h->h32[3] += d, h->h32[4] += e;
}

/* SHA-256 */
static void sha256_init(hash_ctx *h) {
  static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(h->h32, iv, sizeof iv);
}

static void sha256_compress(hash_ctx *h, const uint8_t *p) {
  static const uint32_t k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  uint32_t w[64];
  for (int i = 0; i < 16; i++) w[i] = be32(p + 4 * i);
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t v[8];
  memcpy(v, h->h32, sizeof v);
  for (int i = 0; i < 64; i++) {
    uint32_t S1 = ror32(v[4], 6) ^ ror32(v[4], 11) ^ ror32(v[4], 25);
    uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
    uint32_t t1 = v[7] + S1 + ch + k[i] + w[i];
    uint32_t S0 = ror32(v[0], 2) ^ ror32(v[0], 13) ^ ror32(v[0], 22);
    uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
    memmove(v + 1, v, 7 * sizeof *v);
    v[4] += t1;
    v[0] = t1 + S0 + maj;
  }
  for (int i = 0; i < 8; i++) h->h32[i] += v[i];
}

/* SHA-512 and SHA-384 (the same function, another IV, a shorter digest) */
static void sha512_init(hash_ctx *h) {
  static const uint64_t iv[8] = {0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
                                 0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179};
  memcpy(h->h64, iv, sizeof iv);
}

static void sha384_init(hash_ctx *h) {
  static const uint64_t iv[8] = {0xcbbb9d5dc1059ed8, 0x629a292a367cd507, 0x9159015a3070dd17, 0x152fecd8f70e5939,
                                 0x67332667ffc00b31, 0x8eb44a8768581511, 0xdb0c2e0d64f98fa7, 0x47b5481dbefa4fa4};
  memcpy(h->h64, iv, sizeof iv);
}

static void sha512_compress(hash_ctx *h, const uint8_t *p) {
  static const uint64_t k[80] = {
      0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc, 0x3956c25bf348b538,
      0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118, 0xd807aa98a3030242, 0x12835b0145706fbe,
      0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2, 0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235,
      0xc19bf174cf692694, 0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
      0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5, 0x983e5152ee66dfab,
      0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4, 0xc6e00bf33da88fc2, 0xd5a79147930aa725,
      0x06ca6351e003826f, 0x142929670a0e6e70, 0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed,
      0x53380d139d95b3df, 0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
      0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30, 0xd192e819d6ef5218,
      0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8, 0x19a4c116b8d2d0c8, 0x1e376c085141ab53,
      0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8, 0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373,
      0x682e6ff3d6b2b8a3, 0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
      0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b, 0xca273eceea26619c,
      0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178, 0x06f067aa72176fba, 0x0a637dc5a2c898a6,
      0x113f9804bef90dae, 0x1b710b35131c471b, 0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc,
      0x431d67c49c100d4c, 0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817};
  uint64_t w[80];
  for (int i = 0; i < 16; i++) w[i] = be64(p + 8 * i);
  for (int i = 16; i < 80; i++) {
    uint64_t s0 = ror64(w[i - 15], 1) ^ ror64(w[i - 15], 8) ^ (w[i - 15] >> 7);
    uint64_t s1 = ror64(w[i - 2], 19) ^ ror64(w[i - 2], 61) ^ (w[i - 2] >> 6);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint64_t v[8];
  memcpy(v, h->h64, sizeof v);
  for (int i = 0; i < 80; i++) {
    uint64_t S1 = ror64(v[4], 14) ^ ror64(v[4], 18) ^ ror64(v[4], 41);
    uint64_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
    uint64_t t1 = v[7] + S1 + ch + k[i] + w[i];
    uint64_t S0 = ror64(v[0], 28) ^ ror64(v[0], 34) ^ ror64(v[0], 39);
    uint64_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
    memmove(v + 1, v, 7 * sizeof *v);
    v[4] += t1;
    v[0] = t1 + S0 + maj;
  }
  for (int i = 0; i < 8; i++) h->h64[i] += v[i];
}

static const hash_def hashes[] = {
    {"md5", 64, 16, md5_init, md5_compress, false},
    {"sha1", 64, 20, sha1_init, sha1_compress, true},
    {"sha256", 64, 32, sha256_init, sha256_compress, true},
    {"sha384", 128, 48, sha384_init, sha512_compress, true},
    {"sha512", 128, 64, sha512_init, sha512_compress, true},
};

static void hash_start(hash_ctx *h, const hash_def *d) {
  memset(h, 0, sizeof *h);
  h->def = d;
  d->init(h);
}

static void hash_update(hash_ctx *h, const uint8_t *p, size_t n) {
  size_t block = h->def->block;
  h->total += n;
  if (h->fill) {
    size_t take = block - h->fill < n ? block - h->fill : n;
    memcpy(h->buf + h->fill, p, take);
    h->fill += take, p += take, n -= take;
    if (h->fill < block) return;
    h->def->compress(h, h->buf);
    h->fill = 0;
  }
  for (; n >= block; p += block, n -= block) h->def->compress(h, p);
  memcpy(h->buf, p, n);
  h->fill = n;
}

static void hash_finish(hash_ctx *h, uint8_t *out) {
  const hash_def *d = h->def;
  uint64_t bits = h->total * 8;
  size_t lenbytes = d->block == 128 ? 16 : 8;
  uint8_t pad[128 + 16] = {0x80};
  size_t padlen = (d->block - (h->fill + lenbytes + 1) % d->block) % d->block + 1;
  uint8_t len[16] = {0};
  for (int i = 0; i < 8; i++) {
    if (d->big_endian) len[lenbytes - 1 - i] = (uint8_t)(bits >> (8 * i));
    else len[i] = (uint8_t)(bits >> (8 * i));
  }
  hash_update(h, pad, padlen);
  hash_update(h, len, lenbytes);
  for (size_t i = 0; i < d->digest; i++) {
    if (d->block == 128) out[i] = (uint8_t)(h->h64[i / 8] >> (56 - 8 * (i % 8)));
    else if (d->big_endian) out[i] = (uint8_t)(h->h32[i / 4] >> (24 - 8 * (i % 4)));
    else out[i] = (uint8_t)(h->h32[i / 4] >> (8 * (i % 4)));
  }
}

/* "sha256", "SHA-256", "RSA-SHA256"... as node's and WebCrypto's names */
static const hash_def *find_hash(JSContext *c, JSValueConst name) {
  const char *s = JS_ToCString(c, name);
  if (!s) return NULL;
  char key[16];
  size_t k = 0;
  const char *p = strncasecmp(s, "rsa-", 4) == 0 ? s + 4 : s;
  for (; *p && k < sizeof key - 1; p++) {
    if (*p == '-') continue;
    key[k++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
  }
  key[k] = 0;
  const hash_def *d = NULL;
  for (size_t i = 0; i < sizeof hashes / sizeof hashes[0] && !*p; i++)
    if (!strcmp(hashes[i].name, key)) d = &hashes[i];
  if (!d) JS_ThrowTypeError(c, "Digest method not supported");
  JS_FreeCString(c, s);
  return d;
}

/* hash(name, bytes...) -> ArrayBuffer: the digest of the chunks in order */
static JSValue n_hash(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  const hash_def *d = find_hash(c, argv[0]);
  if (!d) return JS_EXCEPTION;
  hash_ctx h;
  hash_start(&h, d);
  for (int i = 1; i < argc; i++) {
    size_t n;
    const uint8_t *p = wb_bytes(c, argv[i], &n);
    if (!p) return JS_EXCEPTION;
    hash_update(&h, p, n);
  }
  uint8_t out[64];
  hash_finish(&h, out);
  return JS_NewArrayBufferCopy(c, out, d->digest);
}

/* hmac(name, key, bytes...) -> ArrayBuffer (RFC 2104) */
static JSValue n_hmac(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  const hash_def *d = find_hash(c, argv[0]);
  if (!d) return JS_EXCEPTION;
  size_t klen;
  const uint8_t *key = wb_bytes(c, argv[1], &klen);
  if (!key) return JS_EXCEPTION;
  uint8_t k0[128] = {0}, pad[128], inner[64];
  hash_ctx h;
  if (klen > d->block) {
    hash_start(&h, d);
    hash_update(&h, key, klen);
    hash_finish(&h, k0);
  } else {
    memcpy(k0, key, klen);
  }
  for (size_t i = 0; i < d->block; i++) pad[i] = k0[i] ^ 0x36;
  hash_start(&h, d);
  hash_update(&h, pad, d->block);
  for (int i = 2; i < argc; i++) {
    size_t n;
    const uint8_t *p = wb_bytes(c, argv[i], &n);
    if (!p) return JS_EXCEPTION;
    hash_update(&h, p, n);
  }
  hash_finish(&h, inner);
  for (size_t i = 0; i < d->block; i++) pad[i] = k0[i] ^ 0x5c;
  hash_start(&h, d);
  hash_update(&h, pad, d->block);
  hash_update(&h, inner, d->digest);
  uint8_t out[64];
  hash_finish(&h, out);
  return JS_NewArrayBufferCopy(c, out, d->digest);
}

const JSCFunctionListEntry wb_bytes_natives[] = {
    JS_CFUNC_DEF("utf8Encode", 1, n_utf8_encode),
    JS_CFUNC_DEF("utf8Length", 1, n_utf8_length),
    JS_CFUNC_DEF("utf8Decode", 2, n_utf8_decode),
    JS_CFUNC_DEF("latin1Encode", 1, n_latin1_encode),
    JS_CFUNC_DEF("latin1Decode", 2, n_latin1_decode),
    JS_CFUNC_DEF("hexEncode", 1, n_hex_encode),
    JS_CFUNC_DEF("hexDecode", 1, n_hex_decode),
    JS_CFUNC_DEF("base64Encode", 2, n_base64_encode),
    JS_CFUNC_DEF("base64Decode", 2, n_base64_decode),
    JS_CFUNC_DEF("compare", 2, n_compare),
    JS_CFUNC_DEF("randomFill", 1, n_random_fill),
    JS_CFUNC_DEF("hash", 2, n_hash),
    JS_CFUNC_DEF("hmac", 3, n_hmac),
};
const size_t wb_bytes_natives_len = sizeof wb_bytes_natives / sizeof wb_bytes_natives[0];
