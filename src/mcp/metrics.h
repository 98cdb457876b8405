/* Counters for get_metrics and /metrics: calls per tool, execute_code
 * outcomes, the latency of the last calls (for p50/p99) and of all of them
 * (a histogram). mcp_metrics_prometheus() writes them in Prometheus text
 * format. Thread-safe. */
#ifndef WASMBOX_MCP_METRICS_H
#define WASMBOX_MCP_METRICS_H

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdint.h>

#include "util/buf.h"

#define MCP_METRICS_WINDOW 4096
#define MCP_METRICS_TOOLS 24
#define MCP_METRICS_STATUSES 8
#define MCP_METRICS_BUCKETS 15 /* latency histogram bounds, +Inf besides */

typedef struct {
  pthread_mutex_t lock;
  uint64_t requests, errors, tool_calls, tool_errors;
  const char *tool_names[MCP_METRICS_TOOLS];
  uint64_t tool_counts[MCP_METRICS_TOOLS];
  uint64_t status_counts[MCP_METRICS_STATUSES]; /* by wasmbox_status */
  uint64_t http_rejected;                       /* 4xx before dispatch */
  double window[MCP_METRICS_WINDOW];            /* execute_code ms */
  uint64_t window_n;
  uint64_t buckets[MCP_METRICS_BUCKETS + 1]; /* execute_code calls per latency bucket */
  double seconds;                            /* their sum */
} mcp_metrics;

void mcp_metrics_init(mcp_metrics *m);
void mcp_metrics_destroy(mcp_metrics *m);
void mcp_metrics_request(mcp_metrics *m, int error);
void mcp_metrics_http_rejected(mcp_metrics *m);
void mcp_metrics_tool(mcp_metrics *m, const char *name, int is_error);
void mcp_metrics_execute(mcp_metrics *m, int status, double ms);
void mcp_metrics_prometheus(mcp_metrics *m, wb_buf *out);
/* A JSON object of everything counted. */
cJSON *mcp_metrics_json(mcp_metrics *m);

#endif
