/* The clients of `wasmbox serve`, told apart by their bearer tokens: --token
 * makes one, "default", without limits; --tokens FILE one per line:
 *     # a comment
 *     NAME TOKEN [rate=N/s|N/m|N/h] [burst=N] [max-in-flight=N] [role=admin]
 * NAME: letters, digits, '.', '_', '-' (at most 64); TOKEN: 16 to 256
 * printable characters. rate: requests allowed on average, from a bucket
 * that holds `burst` (default: the rate per second rounded up, at least 1);
 * max-in-flight: requests of the client being answered at once. A client
 * owns the sessions and paused runs it makes; role=admin sees everyone's.
 *   mcp_tenants_load(): parses and checks it all (names and tokens unique,
 *     the file not readable or writable by others); errors name FILE:LINE.
 *   mcp_tenants_auth(): the client an Authorization header names (every
 *     token compared in constant time), or NULL.
 *   mcp_tenants_admit(): 0 when the client may go on, its request counted in
 *     flight until mcp_tenants_done(); else 429, with the seconds to wait in
 *     *retry_after and the reason in `why`.
 *   mcp_tenants_count(): one answered request, by client and HTTP status
 *     (oauth: a client known by an OAuth access token, counted with the
 *     others under "oauth:*", so that subjects do not make a metric each).
 *   mcp_tenants_prometheus(): those counters in Prometheus text format.
 * Thread-safe after load. With no client at all, anyone may call. */
#ifndef WASMBOX_MCP_TENANTS_H
#define WASMBOX_MCP_TENANTS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define MCP_TENANTS_MAX 1024
#define MCP_TENANT_CODES 16 /* the statuses counted apart, and "other" */

typedef struct {
  char name[65];
  char token[257];
  double rate, burst;     /* requests per second; rate 0: no limit */
  unsigned max_in_flight; /* 0: no limit */
  bool admin;             /* role=admin: sees every client's sessions */
  /* under the set's lock */
  double level, refilled; /* the bucket, and when it was last filled */
  unsigned in_flight;
  uint64_t by_code[MCP_TENANT_CODES];
  uint64_t limited_rate, limited_in_flight;
} mcp_tenant;

typedef struct {
  pthread_mutex_t lock;
  mcp_tenant *v;
  size_t n;
  uint64_t anonymous_by_code[MCP_TENANT_CODES]; /* requests of no client */
  uint64_t oauth_by_code[MCP_TENANT_CODES];     /* of OAuth clients */
} mcp_tenants;

int mcp_tenants_load(mcp_tenants *cs, const char *token, const char *file, char *err, size_t errlen);
void mcp_tenants_free(mcp_tenants *cs);
mcp_tenant *mcp_tenants_auth(mcp_tenants *cs, const char *authorization);
int mcp_tenants_admit(mcp_tenants *cs, mcp_tenant *c, double now, unsigned *retry_after, char *why, size_t n);
void mcp_tenants_done(mcp_tenants *cs, mcp_tenant *c);
void mcp_tenants_count(mcp_tenants *cs, mcp_tenant *c, bool oauth, unsigned status);
void mcp_tenants_prometheus(mcp_tenants *cs, wb_buf *out);

#endif
