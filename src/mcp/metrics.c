/* get_metrics counters (see metrics.h). */
#include "mcp/metrics.h"

#include <stdlib.h>
#include <string.h>

#include "wasmbox.h"

void mcp_metrics_init(mcp_metrics *m) {
  memset(m, 0, sizeof *m);
  pthread_mutex_init(&m->lock, NULL);
}

void mcp_metrics_destroy(mcp_metrics *m) { pthread_mutex_destroy(&m->lock); }

void mcp_metrics_request(mcp_metrics *m, int error) {
  pthread_mutex_lock(&m->lock);
  m->requests++;
  if (error) m->errors++;
  pthread_mutex_unlock(&m->lock);
}

void mcp_metrics_http_rejected(mcp_metrics *m) {
  pthread_mutex_lock(&m->lock);
  m->http_rejected++;
  pthread_mutex_unlock(&m->lock);
}

void mcp_metrics_tool(mcp_metrics *m, const char *name, int is_error) {
  pthread_mutex_lock(&m->lock);
  m->tool_calls++;
  if (is_error) m->tool_errors++;
  for (int i = 0; i < MCP_METRICS_TOOLS; i++) {
    if (!m->tool_names[i]) m->tool_names[i] = name; /* names are static strings */
    if (m->tool_names[i] == name || !strcmp(m->tool_names[i], name)) {
      m->tool_counts[i]++;
      break;
    }
  }
  pthread_mutex_unlock(&m->lock);
}

/* upper bounds of the latency buckets, seconds: a warm call takes ~0.3 ms */
static const double bounds[MCP_METRICS_BUCKETS] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                   0.25,   0.5,   1,      2.5,   5,    10,    30};

void mcp_metrics_execute(mcp_metrics *m, int status, double ms) {
  size_t b = 0;
  while (b < MCP_METRICS_BUCKETS && ms / 1000 > bounds[b]) b++;
  pthread_mutex_lock(&m->lock);
  if (status >= 0 && status < MCP_METRICS_STATUSES) m->status_counts[status]++;
  m->window[m->window_n++ % MCP_METRICS_WINDOW] = ms;
  m->buckets[b]++;
  m->seconds += ms / 1000;
  pthread_mutex_unlock(&m->lock);
}

void mcp_metrics_prometheus(mcp_metrics *m, wb_buf *out) {
  pthread_mutex_lock(&m->lock);
  wb_buf_puts(out,
              "# HELP wasmbox_calls_total execute_code calls, by how they ended.\n"
              "# TYPE wasmbox_calls_total counter\n");
  for (int i = 0; i <= WASMBOX_STATUS_PAUSED && i < MCP_METRICS_STATUSES; i++)
    wb_buf_printf(out, "wasmbox_calls_total{status=\"%s\"} %llu\n", wasmbox_status_name((wasmbox_status)i),
                  (unsigned long long)m->status_counts[i]);
  wb_buf_puts(out,
              "# HELP wasmbox_call_duration_seconds How long execute_code calls took.\n"
              "# TYPE wasmbox_call_duration_seconds histogram\n");
  uint64_t below = 0;
  for (size_t b = 0; b <= MCP_METRICS_BUCKETS; b++) {
    below += m->buckets[b];
    if (b < MCP_METRICS_BUCKETS)
      wb_buf_printf(out, "wasmbox_call_duration_seconds_bucket{le=\"%g\"} %llu\n", bounds[b],
                    (unsigned long long)below);
    else wb_buf_printf(out, "wasmbox_call_duration_seconds_bucket{le=\"+Inf\"} %llu\n", (unsigned long long)below);
  }
  wb_buf_printf(out, "wasmbox_call_duration_seconds_sum %.6f\nwasmbox_call_duration_seconds_count %llu\n", m->seconds,
                (unsigned long long)below);
  wb_buf_puts(out,
              "# HELP wasmbox_tool_calls_total tools/call requests, by tool.\n"
              "# TYPE wasmbox_tool_calls_total counter\n");
  for (int i = 0; i < MCP_METRICS_TOOLS && m->tool_names[i]; i++)
    wb_buf_printf(out, "wasmbox_tool_calls_total{tool=\"%s\"} %llu\n", m->tool_names[i],
                  (unsigned long long)m->tool_counts[i]);
  wb_buf_printf(out,
                "# HELP wasmbox_tool_errors_total tools/call results with isError.\n"
                "# TYPE wasmbox_tool_errors_total counter\nwasmbox_tool_errors_total %llu\n"
                "# HELP wasmbox_rpc_requests_total JSON-RPC messages handled.\n"
                "# TYPE wasmbox_rpc_requests_total counter\nwasmbox_rpc_requests_total %llu\n"
                "# HELP wasmbox_rpc_errors_total JSON-RPC messages answered with an error.\n"
                "# TYPE wasmbox_rpc_errors_total counter\nwasmbox_rpc_errors_total %llu\n",
                (unsigned long long)m->tool_errors, (unsigned long long)m->requests, (unsigned long long)m->errors);
  pthread_mutex_unlock(&m->lock);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

cJSON *mcp_metrics_json(mcp_metrics *m) {
  static double sorted[MCP_METRICS_WINDOW];
  static pthread_mutex_t sort_lock = PTHREAD_MUTEX_INITIALIZER;
  cJSON *o = cJSON_CreateObject(), *tools = cJSON_CreateObject(), *st = cJSON_CreateObject(),
        *ex = cJSON_CreateObject();
  if (!o || !tools || !st || !ex) {
    cJSON_Delete(o), cJSON_Delete(tools), cJSON_Delete(st), cJSON_Delete(ex);
    return NULL;
  }
  pthread_mutex_lock(&sort_lock);
  pthread_mutex_lock(&m->lock);
  cJSON_AddNumberToObject(o, "requests", (double)m->requests);
  cJSON_AddNumberToObject(o, "request_errors", (double)m->errors);
  cJSON_AddNumberToObject(o, "http_rejected", (double)m->http_rejected);
  cJSON_AddNumberToObject(o, "tool_calls", (double)m->tool_calls);
  cJSON_AddNumberToObject(o, "tool_errors", (double)m->tool_errors);
  for (int i = 0; i < MCP_METRICS_TOOLS && m->tool_names[i]; i++)
    cJSON_AddNumberToObject(tools, m->tool_names[i], (double)m->tool_counts[i]);
  for (int i = 0; i <= WASMBOX_STATUS_PAUSED && i < MCP_METRICS_STATUSES; i++)
    cJSON_AddNumberToObject(st, wasmbox_status_name((wasmbox_status)i), (double)m->status_counts[i]);
  size_t n = m->window_n < MCP_METRICS_WINDOW ? (size_t)m->window_n : MCP_METRICS_WINDOW;
  memcpy(sorted, m->window, n * sizeof *sorted);
  pthread_mutex_unlock(&m->lock);
  qsort(sorted, n, sizeof *sorted, cmp);
  cJSON_AddNumberToObject(ex, "window_calls", (double)n);
  if (n) {
    cJSON_AddNumberToObject(ex, "p50_ms", sorted[n / 2]);
    cJSON_AddNumberToObject(ex, "p99_ms", sorted[(size_t)(n * 0.99) < n ? (size_t)(n * 0.99) : n - 1]);
    cJSON_AddNumberToObject(ex, "max_ms", sorted[n - 1]);
  } else {
    cJSON_AddNullToObject(ex, "p50_ms");
    cJSON_AddNullToObject(ex, "p99_ms");
    cJSON_AddNullToObject(ex, "max_ms");
  }
  pthread_mutex_unlock(&sort_lock);
  cJSON_AddItemToObject(ex, "by_status", st);
  cJSON_AddItemToObject(o, "calls_by_tool", tools);
  cJSON_AddItemToObject(o, "execute_code", ex);
  return o;
}
