/* What `wasmbox serve` tells its operators:
 *   the access log (--access-log FILE, or '-' for stderr): one JSON line per
 *     HTTP request, written whole with one write(2) in O_APPEND, so lines
 *     from parallel requests never mix;
 *   /metrics: Prometheus text format (metrics.h, tenants.h, and gauges of
 *     workers and sessions read at scrape time);
 *   /healthz: a small JSON object for load balancers.
 * mcp_access_note() fills an access record from a JSON-RPC request and its
 * response (method, tool, sessions, how an execution ended, its fuel). */
#ifndef WASMBOX_MCP_OBSERVE_H
#define WASMBOX_MCP_OBSERVE_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/tenants.h"
#include "mcp/server.h"

typedef struct {
  const char *client; /* NULL: no client (no token needed, or none given) */
  const char *method, *path;
  unsigned status; /* 0: the connection closed before an answer */
  char rpc[40], tool[72], mcp_session[MCP_SESSION_ID_LEN + 1], session[72], result[24];
  int64_t fuel; /* -1: none */
  double ms;
  uint64_t bytes_in, bytes_out;
} mcp_access;

typedef struct mcp_access_log mcp_access_log;
mcp_access_log *mcp_access_log_open(const char *spec, char *err, size_t errlen);
void mcp_access_log_write(mcp_access_log *l, const mcp_access *a);
void mcp_access_log_close(mcp_access_log *l);

void mcp_access_note(mcp_access *a, const cJSON *msg, const cJSON *resp);

/* malloc'd bodies */
char *mcp_metrics_text(mcp_server *s, mcp_tenants *cs);
char *mcp_health_json(mcp_server *s);

#endif
