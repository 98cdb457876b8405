/* Base64 (RFC 4648, with padding) for file contents and images, and its URL
 * form without padding (RFC 4648 section 5) for JSON Web Tokens and keys. */
#ifndef WASMBOX_MCP_BASE64_H
#define WASMBOX_MCP_BASE64_H

#include <stddef.h>

/* malloc'd, NUL-terminated; NULL when out of memory. */
char *b64_encode(const void *data, size_t n);
/* malloc'd; NULL when `s` is not canonical base64 (whitespace is refused). */
void *b64_decode(const char *s, size_t n, size_t *out_len);
/* malloc'd; NULL unless `s` is canonical base64url without padding: '-' and
 * '_' for '+' and '/', no '=', the unused low bits of the last digit zero
 * (so that each byte string has one encoding). */
void *b64url_decode(const char *s, size_t n, size_t *out_len);

#endif
