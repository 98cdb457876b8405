/* MCP over stdio (see transport.h). Logs never touch stdout: it carries only
 * protocol messages, one per line. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/jsonrpc.h"
#include "mcp/transport.h"

#define QUEUE_MAX 1024

typedef struct job {
  cJSON *msg;
  struct job *next;
} job;

typedef struct {
  mcp_server *srv;
  mcp_conn conn;
  int out;
  pthread_mutex_t out_lock, q_lock;
  pthread_cond_t q_cond, idle_cond;
  job *head, *tail;
  size_t queued, busy;
  bool closing, broken;
} stdio_state;

/* One message, one line, written whole. */
static void emit(stdio_state *st, const cJSON *v) {
  char *s = rpc_print(v);
  if (!s) return;
  size_t n = strlen(s);
  s[n] = '\n'; /* replaces the NUL: we write n + 1 bytes */
  pthread_mutex_lock(&st->out_lock);
  for (size_t off = 0; !st->broken && off < n + 1;) {
    ssize_t w = write(st->out, s + off, n + 1 - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) st->broken = true; /* the client is gone */
    else off += (size_t)w;
  }
  pthread_mutex_unlock(&st->out_lock);
  cJSON_free(s);
}

static void answer(stdio_state *st, cJSON *msg) {
  /* stdio is the operator's own process, with the state directory in its
     hands: it sees every session, as the CLI does */
  mcp_msg m = {.srv = st->srv, .conn = &st->conn, .owner = "local", .admin = true};
  cJSON *resp = mcp_handle(&m, msg);
  for (const cJSON *n = m.notes ? m.notes->child : NULL; n; n = n->next) emit(st, n);
  if (resp) emit(st, resp);
  cJSON_Delete(resp);
  mcp_msg_done(&m);
}

static void *worker(void *arg) {
  stdio_state *st = arg;
  pthread_mutex_lock(&st->q_lock);
  for (;;) {
    while (!st->head && !st->closing) pthread_cond_wait(&st->q_cond, &st->q_lock);
    if (!st->head) break;
    job *j = st->head;
    st->head = j->next;
    if (!st->head) st->tail = NULL;
    st->queued--;
    st->busy++;
    pthread_mutex_unlock(&st->q_lock);
    answer(st, j->msg);
    cJSON_Delete(j->msg);
    free(j);
    pthread_mutex_lock(&st->q_lock);
    st->busy--;
    pthread_cond_broadcast(&st->idle_cond);
  }
  pthread_mutex_unlock(&st->q_lock);
  return NULL;
}

static void reject(stdio_state *st, const cJSON *id, int code, const char *msg) {
  cJSON *e = rpc_error(id, code, msg, NULL);
  mcp_metrics_request(&st->srv->metrics, 1);
  emit(st, e);
  cJSON_Delete(e);
}

/* notifications/cancelled for a request still waiting in the queue: it is
 * dropped, and (as for any cancelled request) nothing is answered. A request
 * already running is stopped through its token by mcp_handle. */
static void drop_cancelled(stdio_state *st, const cJSON *msg) {
  const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
  if (strcmp(method->valuestring, "notifications/cancelled")) return;
  const cJSON *rid = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(msg, "params"), "requestId");
  if (!rid) return;
  pthread_mutex_lock(&st->q_lock);
  for (job **p = &st->head, *prev = NULL; *p; prev = *p, p = &(*p)->next) {
    if (!cJSON_Compare(cJSON_GetObjectItemCaseSensitive((*p)->msg, "id"), rid, true)) continue;
    job *j = *p;
    *p = j->next;
    if (st->tail == j) st->tail = prev;
    st->queued--;
    cJSON_Delete(j->msg);
    free(j);
    break;
  }
  pthread_mutex_unlock(&st->q_lock);
}

static void dispatch_line(stdio_state *st, const char *line, size_t n) {
  while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t')) n--;
  if (!n) return;
  const char *why;
  cJSON *msg = rpc_parse(line, n, &why);
  if (!msg) {
    reject(st, NULL, RPC_PARSE_ERROR, why);
    return;
  }
  const cJSON *id = NULL;
  rpc_kind k = rpc_check(msg, &id, &why);
  if (k == RPC_NOTIFICATION) drop_cancelled(st, msg);
  if (k != RPC_REQUEST) { /* notifications and errors are quick: here */
    answer(st, msg);
    cJSON_Delete(msg);
    return;
  }
  job *j = malloc(sizeof *j);
  pthread_mutex_lock(&st->q_lock);
  if (!j || st->queued >= QUEUE_MAX) {
    pthread_mutex_unlock(&st->q_lock);
    reject(st, id, RPC_SERVER_BUSY, "server busy: too many requests waiting; retry later");
    cJSON_Delete(msg);
    free(j);
    return;
  }
  *j = (job){.msg = msg};
  if (st->tail) st->tail->next = j;
  else st->head = j;
  st->tail = j;
  st->queued++;
  pthread_cond_signal(&st->q_cond);
  pthread_mutex_unlock(&st->q_lock);
}

int mcp_stdio_serve(mcp_server *s, int in_fd, int out_fd) {
  stdio_state st = {.srv = s, .out = out_fd};
  atomic_init(&st.conn.log_level, MCP_LOG_NONE);
  pthread_mutex_init(&st.out_lock, NULL);
  pthread_mutex_init(&st.q_lock, NULL);
  pthread_cond_init(&st.q_cond, NULL);
  pthread_cond_init(&st.idle_cond, NULL);
  size_t nworkers = (size_t)s->cfg->workers;
  pthread_t *threads = calloc(nworkers, sizeof *threads);
  size_t started = 0;
  for (; threads && started < nworkers; started++)
    if (pthread_create(&threads[started], NULL, worker, &st)) break;
  if (!started) {
    mcp_log(s, MCP_LOG_ERROR, "cannot start worker threads");
    free(threads);
    return 1;
  }
  size_t max = (size_t)s->cfg->max_request_bytes, cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  bool skipping = false; /* inside a line that is too long */
  while (buf && !st.broken) {
    if (len == cap) {
      size_t ncap = cap * 2 > max + 2 ? max + 2 : cap * 2;
      char *nb = ncap > cap ? realloc(buf, ncap) : NULL;
      if (!nb) { /* the line is longer than allowed: drop it */
        len = 0;
        skipping = true;
        continue;
      }
      buf = nb, cap = ncap;
    }
    ssize_t r = read(in_fd, buf + len, cap - len);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    size_t start = 0, end = len + (size_t)r;
    for (size_t i = len; i < end; i++) {
      if (buf[i] != '\n') continue;
      if (skipping || i - start > max) {
        char msg[128];
        snprintf(msg, sizeof msg, "message larger than %zu bytes (see --max-request-bytes)", max);
        reject(&st, NULL, RPC_PARSE_ERROR, msg);
        skipping = false;
      } else {
        dispatch_line(&st, buf + start, i - start);
      }
      start = i + 1;
    }
    memmove(buf, buf + start, end - start);
    len = end - start;
    if (len > max) len = 0, skipping = true;
  }
  if (buf && len && !skipping) dispatch_line(&st, buf, len); /* a last line without newline */
  free(buf);
  /* end of input: finish what was asked, then stop */
  pthread_mutex_lock(&st.q_lock);
  while (st.head || st.busy) pthread_cond_wait(&st.idle_cond, &st.q_lock);
  st.closing = true;
  pthread_cond_broadcast(&st.q_cond);
  pthread_mutex_unlock(&st.q_lock);
  for (size_t i = 0; i < started; i++) pthread_join(threads[i], NULL);
  free(threads);
  pthread_mutex_destroy(&st.out_lock);
  pthread_mutex_destroy(&st.q_lock);
  pthread_cond_destroy(&st.q_cond);
  pthread_cond_destroy(&st.idle_cond);
  return 0;
}
