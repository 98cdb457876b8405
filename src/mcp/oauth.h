/* `wasmbox serve` as an OAuth 2.1 resource server (MCP authorization,
 * 2025-06-18 and 2025-11-25): it accepts bearer JWT access tokens its
 * authorization server issued for it.
 *   mcp_oauth_new(): checks the settings (issuer and resource are https
 *     URLs, or http on loopback) and loads the issuer's keys, a JWKS from a
 *     file or an http(s) URL (libcurl). A file that cannot be read fails;
 *     an unreachable URL does not (mcp_oauth_ready() says so): requests get
 *     503 until it answers.
 *   mcp_oauth_verify(): a token's signature (RS256/384/512, ES256/384/512 by
 *     a JWKS key of the same type and algorithm; never "none" nor HMAC),
 *     exp (required) and nbf with 60 s of leeway, iss == the issuer, aud ==
 *     or contains the resource URL, the required scopes; then the identity
 *     claim's value, printable ASCII without spaces, under
 *     MCP_OAUTH_SUBJECT_MAX bytes.
 *   Keys: a kid the JWKS lacks, or keys 10 minutes old, fetch it again (at
 *     most once per 10 s, one fetch at a time, the others go on with the keys
 *     they have), so that keys rotated in work and keys rotated out stop.
 *   Bounds: a token 8 KiB, a JWKS 1 MiB, 64 keys (of its first 256
 *     entries, RSA 2048 to 4096 bits), a fetch 5 s.
 *   mcp_oauth_challenge(): the WWW-Authenticate value of a 401 or 403.
 *   mcp_oauth_metadata(): the RFC 9728 protected resource metadata, served
 *     at the paths mcp_oauth_metadata_path() accepts.
 * Thread-safe after mcp_oauth_new(). */
#ifndef WASMBOX_MCP_OAUTH_H
#define WASMBOX_MCP_OAUTH_H

#include <stdbool.h>
#include <stddef.h>

#define MCP_OAUTH_SUBJECT_MAX 200 /* with the NUL */
#define MCP_OAUTH_TOKEN_MAX 8192
#define MCP_OAUTH_JWKS_MAX (1 << 20)
#define MCP_OAUTH_KEYS_MAX 64

typedef struct {
  const char *issuer;   /* iss of every token */
  const char *jwks;     /* the issuer's keys: http(s) URL or file */
  const char *resource; /* this server's URL as clients reach it: the required aud */
  const char *claim;    /* the identity; NULL or "": sub */
  const char *scopes;   /* required of every token, separated by spaces or commas; NULL: none */
} mcp_oauth_settings;

typedef enum {
  MCP_OAUTH_OK,
  MCP_OAUTH_INVALID,     /* 401, error="invalid_token" */
  MCP_OAUTH_SCOPE,       /* 403, error="insufficient_scope" */
  MCP_OAUTH_UNAVAILABLE, /* 503: no keys to check it with */
} mcp_oauth_verdict;

typedef struct mcp_oauth mcp_oauth;

int mcp_oauth_new(const mcp_oauth_settings *s, mcp_oauth **out, char *err, size_t errlen);
void mcp_oauth_free(mcp_oauth *o);
bool mcp_oauth_ready(mcp_oauth *o, char *why, size_t n);
/* Replaces the keys by those of a JWKS document (what a fetch does). */
int mcp_oauth_set_jwks(mcp_oauth *o, const char *text, size_t len, char *err, size_t errlen);
/* now: seconds since the epoch; subject gets MCP_OAUTH_SUBJECT_MAX bytes;
 * why: what is wrong with the token, never the token itself */
mcp_oauth_verdict mcp_oauth_verify(mcp_oauth *o, const char *token, double now, char *subject, char *why,
                                   size_t whylen);
/* error: NULL (no token given), "invalid_token" or "insufficient_scope";
 * description: a reason, quotes and backslashes replaced */
void mcp_oauth_challenge(const mcp_oauth *o, const char *error, const char *description, char *out, size_t n);
bool mcp_oauth_metadata_path(const mcp_oauth *o, const char *path);
char *mcp_oauth_metadata(const mcp_oauth *o); /* malloc'd JSON */

#endif
