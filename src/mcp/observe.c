/* Access log, /metrics and /healthz (see observe.h). */
#include "mcp/observe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcp/jsonrpc.h"
#include "util/os.h"

struct mcp_access_log {
  int fd;
  bool own; /* a file we opened (not stderr) */
};

mcp_access_log *mcp_access_log_open(const char *spec, char *err, size_t errlen) {
  mcp_access_log *l = calloc(1, sizeof *l);
  if (!l) return snprintf(err, errlen, "out of memory"), NULL;
  if (!strcmp(spec, "-")) {
    l->fd = STDERR_FILENO;
    return l;
  }
  l->fd = open(spec, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0640);
  if (l->fd < 0) {
    snprintf(err, errlen, "--access-log %s: %s", spec, strerror(errno));
    free(l);
    return NULL;
  }
  l->own = true;
  return l;
}

void mcp_access_log_close(mcp_access_log *l) {
  if (!l) return;
  if (l->own) close(l->fd);
  free(l);
}

static void add_text(cJSON *o, const char *k, const char *v) {
  if (v && *v) cJSON_AddStringToObject(o, k, v);
  else cJSON_AddNullToObject(o, k);
}

void mcp_access_log_write(mcp_access_log *l, const mcp_access *a) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  struct tm tm;
  gmtime_r(&now.tv_sec, &tm);
  char when[40];
  size_t k = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(when + k, sizeof when - k, ".%03ldZ", now.tv_nsec / 1000000);
  cJSON *o = cJSON_CreateObject();
  if (!o) return;
  cJSON_AddStringToObject(o, "time", when);
  add_text(o, "client", a->client);
  add_text(o, "method", a->method);
  add_text(o, "path", a->path);
  cJSON_AddNumberToObject(o, "status", a->status);
  add_text(o, "rpc", a->rpc);
  add_text(o, "tool", a->tool);
  add_text(o, "mcp_session", a->mcp_session);
  add_text(o, "session", a->session);
  add_text(o, "result", a->result);
  cJSON_AddNumberToObject(o, "duration_ms", (double)(int64_t)(a->ms * 1000) / 1000);
  if (a->fuel >= 0) cJSON_AddNumberToObject(o, "fuel", (double)a->fuel);
  else cJSON_AddNullToObject(o, "fuel");
  cJSON_AddNumberToObject(o, "bytes_in", (double)a->bytes_in);
  cJSON_AddNumberToObject(o, "bytes_out", (double)a->bytes_out);
  char *line = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  if (!line) return;
  size_t n = strlen(line);
  line[n] = '\n'; /* over the NUL: one write, one line */
  ssize_t w = write(l->fd, line, n + 1);
  (void)w; /* a log that cannot be written must not fail the request */
  cJSON_free(line);
}

static void copy(char *dst, size_t cap, const cJSON *v) {
  if (cJSON_IsString(v)) snprintf(dst, cap, "%s", v->valuestring);
}

void mcp_access_note(mcp_access *a, const cJSON *msg, const cJSON *resp) {
  copy(a->rpc, sizeof a->rpc, cJSON_GetObjectItemCaseSensitive(msg, "method"));
  const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
  bool call = !strcmp(a->rpc, "tools/call");
  if (call) {
    copy(a->tool, sizeof a->tool, cJSON_GetObjectItemCaseSensitive(params, "name"));
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    copy(a->session, sizeof a->session, cJSON_GetObjectItemCaseSensitive(args, "session_id"));
  }
  if (!resp) return;
  if (cJSON_GetObjectItemCaseSensitive(resp, "error")) {
    snprintf(a->result, sizeof a->result, "rpc_error");
    return;
  }
  const cJSON *result = cJSON_GetObjectItemCaseSensitive(resp, "result");
  const cJSON *sc = cJSON_GetObjectItemCaseSensitive(result, "structuredContent");
  const cJSON *status = cJSON_GetObjectItemCaseSensitive(sc, "status");
  const cJSON *fuel = cJSON_GetObjectItemCaseSensitive(sc, "fuel_used");
  if (!a->session[0]) copy(a->session, sizeof a->session, cJSON_GetObjectItemCaseSensitive(sc, "session_id"));
  if (cJSON_IsNumber(fuel) && fuel->valuedouble >= 0) a->fuel = (int64_t)fuel->valuedouble;
  if (call && cJSON_IsString(status)) copy(a->result, sizeof a->result, status); /* how an execution ended */
  else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result, "isError")))
    snprintf(a->result, sizeof a->result, "tool_error");
  else snprintf(a->result, sizeof a->result, "ok");
}

char *mcp_metrics_text(mcp_server *s, mcp_tenants *cs) {
  wb_buf b = {0};
  mcp_tenants_prometheus(cs, &b);
  mcp_metrics_prometheus(&s->metrics, &b);
  wasmbox_stats st;
  wasmbox_stats_get(s->wb, &st);
  wb_buf_printf(&b,
                "# HELP wasmbox_workers Worker processes, by state.\n# TYPE wasmbox_workers gauge\n"
                "wasmbox_workers{state=\"idle\"} %zu\nwasmbox_workers{state=\"busy\"} %zu\n"
                "wasmbox_workers{state=\"starting\"} %zu\n",
                st.workers_idle, st.workers_busy, st.workers_starting);
  wb_buf_printf(&b,
                "# HELP wasmbox_store_operations_total Leases (with reloads) and publishes on the shared session "
                "store.\n# TYPE wasmbox_store_operations_total counter\nwasmbox_store_operations_total %llu\n"
                "# HELP wasmbox_store_failures_total Store operations that failed.\n"
                "# TYPE wasmbox_store_failures_total counter\nwasmbox_store_failures_total %llu\n"
                "# HELP wasmbox_store_seconds_total Time spent in store operations.\n"
                "# TYPE wasmbox_store_seconds_total counter\nwasmbox_store_seconds_total %.6f\n",
                (unsigned long long)st.store_operations, (unsigned long long)st.store_failures, st.store_seconds);
  wasmbox_session_info *all = NULL;
  size_t n = 0;
  char err[256];
  if (wasmbox_session_list(s->wb, &all, &n, err, sizeof err) == WASMBOX_OK) {
    wb_buf_printf(&b,
                  "# HELP wasmbox_sessions Sandbox sessions in the state directory.\n"
                  "# TYPE wasmbox_sessions gauge\nwasmbox_sessions %zu\n",
                  n);
    free(all);
  }
  wb_buf_printf(&b,
                "# HELP wasmbox_mcp_sessions MCP sessions (Mcp-Session-Id) kept.\n# TYPE wasmbox_mcp_sessions gauge\n"
                "wasmbox_mcp_sessions %zu\n"
                "# HELP wasmbox_calls_in_flight Calls running now.\n# TYPE wasmbox_calls_in_flight gauge\n"
                "wasmbox_calls_in_flight %zu\n"
                "# HELP wasmbox_uptime_seconds Time since the server started.\n# TYPE wasmbox_uptime_seconds gauge\n"
                "wasmbox_uptime_seconds %.3f\n"
                "# HELP wasmbox_build_info The version of this server.\n# TYPE wasmbox_build_info gauge\n"
                "wasmbox_build_info{version=\"%s\"} 1\n",
                mcp_conn_count(s), mcp_inflight_count(s), wb_monotonic_s() - s->started, wasmbox_version());
  return wb_buf_take(&b);
}

char *mcp_health_json(mcp_server *s) {
  char *out = NULL;
  if (asprintf(&out, "{\"status\":\"ok\",\"version\":\"%s\",\"uptime_seconds\":%.3f}\n", wasmbox_version(),
               wb_monotonic_s() - s->started) < 0)
    return NULL;
  return out;
}
