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

void mcp_metrics_execute(mcp_metrics *m, int status, double ms) {
  pthread_mutex_lock(&m->lock);
  if (status >= 0 && status < MCP_METRICS_STATUSES) m->status_counts[status]++;
  m->window[m->window_n++ % MCP_METRICS_WINDOW] = ms;
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
