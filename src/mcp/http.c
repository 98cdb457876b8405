/* MCP over Streamable HTTP at /mcp (see transport.h), on libmicrohttpd with a
 * thread per connection: a slow call holds only its own connection. Before a
 * body is read, each request passes the checks that keep a local server safe:
 * the path, Host and Origin (DNS rebinding), the bearer token, the method,
 * the content type and the size. A client that goes away mid-call has its
 * call cancelled. The playground's static files (playground.h) and /healthz
 * pass the same Host and Origin checks but need no token: they hold no
 * secret, and the page sends the token with each call it makes to /mcp.
 * /metrics needs the token. Each token names a client with its limits
 * (tenants.h); every request is counted by client and status, and logged
 * (observe.h) when it completes. With --oauth-issuer, a bearer token that is
 * none of those is checked as an OAuth access token (oauth.h) whose subject
 * is then the client, and /.well-known/oauth-protected-resource tells
 * clients where to get one. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mcp/jsonrpc.h"
#include "mcp/tenants.h"
#include "mcp/libs.h"
#include "mcp/oauth.h"
#include "mcp/observe.h"
#include "mcp/playground.h"
#include "mcp/transport.h"
#include "util/os.h"

typedef struct watched {
  int fd;
  wasmbox_cancel *cancel;
  struct watched *next;
} watched;

typedef struct {
  mcp_server *srv;
  bool loopback;        /* bound to a loopback address */
  pthread_mutex_t lock; /* watched */
  watched *watch;
  bool stop;
  mcp_tenants clients;
  mcp_access_log *access; /* or NULL */
  mcp_oauth *oauth;       /* or NULL */
} http_state;

typedef struct {
  char *body;
  size_t len, cap;
  double started;
  bool responded; /* a response was queued before the body ended */
  bool too_large; /* the body passed the limit: now discarded */
  int fd;
  watched entry;
  http_state *hs;
  mcp_tenant *client; /* whose static token it carries, or NULL */
  /* the identity claim of its OAuth access token ("" when it has none):
     the client is "oauth:" and this */
  char oauth_subject[MCP_OAUTH_SUBJECT_MAX];
  char oauth_client[6 + MCP_OAUTH_SUBJECT_MAX]; /* "oauth:" + oauth_subject, for the log */
  const char *auth_error;                       /* a refused token: RFC 6750's error code */
  char auth_reason[200];                        /* and what is wrong with it */
  bool admitted;                                /* counted in the client's in-flight requests */
  unsigned retry_after;                         /* a 429's Retry-After, seconds */
  uint64_t received;                            /* body bytes, kept or not */
  char method[8], path[128];
  mcp_access log;
} request;

/* ---- responses ------------------------------------------------------------- */

static enum MHD_Result send_body(request *rq, struct MHD_Connection *c, unsigned status, const char *type, char *body,
                                 const char *session) {
  rq->log.status = status;
  rq->log.bytes_out = body ? strlen(body) : 0;
  struct MHD_Response *r = body ? libmhd.create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE)
                                : libmhd.create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
  if (!r) {
    free(body);
    return MHD_NO;
  }
  if (type) libmhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  if (session) libmhd.add_response_header(r, "Mcp-Session-Id", session);
  if (status == MHD_HTTP_METHOD_NOT_ALLOWED) libmhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, "POST, DELETE");
  if (rq->hs->oauth && (status == MHD_HTTP_UNAUTHORIZED || rq->auth_error)) {
    /* MCP authorization: every 401 says where the resource metadata is */
    char challenge[1600];
    mcp_oauth_challenge(rq->hs->oauth, rq->auth_error, rq->auth_reason, challenge, sizeof challenge);
    libmhd.add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, challenge);
  } else if (status == MHD_HTTP_UNAUTHORIZED) {
    libmhd.add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"wasmbox\"");
  }
  if (status == MHD_HTTP_TOO_MANY_REQUESTS || (status == MHD_HTTP_SERVICE_UNAVAILABLE && rq->retry_after)) {
    char secs[16];
    snprintf(secs, sizeof secs, "%u", rq->retry_after);
    libmhd.add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, secs);
  }
  enum MHD_Result ok = libmhd.queue_response(c, status, r);
  libmhd.destroy_response(r);
  return ok;
}

static enum MHD_Result send_json(request *rq, struct MHD_Connection *c, unsigned status, const cJSON *v,
                                 const char *session) {
  char *s = rpc_print(v);
  if (!s) return MHD_NO;
  /* cJSON's allocator is malloc, so MHD may free() it */
  return send_body(rq, c, status, "application/json", s, session);
}

/* A transport-level refusal, as a JSON-RPC error the client can read. */
static enum MHD_Result refuse(request *rq, struct MHD_Connection *c, unsigned status, int code, const char *msg,
                              const cJSON *id) {
  mcp_metrics_http_rejected(&rq->hs->srv->metrics);
  mcp_log(rq->hs->srv, MCP_LOG_INFO, "HTTP %u: %s", status, msg);
  cJSON *e = rpc_error(id, code, msg, NULL);
  enum MHD_Result r = e ? send_json(rq, c, status, e, NULL) : MHD_NO;
  cJSON_Delete(e);
  return r;
}

/* A playground file (NULL: 405, the paths besides /mcp are only read); its
 * page may load only its own scripts and styles, connect only to this
 * server, show images the guest made (data: URLs), and be framed by no one. */
static enum MHD_Result send_asset(request *rq, struct MHD_Connection *c, const mcp_asset *a) {
  static const char refusal[] = "Method not allowed: this path is read with GET\n";
  size_t len = a ? a->len : sizeof refusal - 1;
  rq->log.status = a ? MHD_HTTP_OK : MHD_HTTP_METHOD_NOT_ALLOWED;
  rq->log.bytes_out = len;
  struct MHD_Response *r =
      libmhd.create_response_from_buffer(len, a ? (void *)a->data : (void *)refusal, MHD_RESPMEM_PERSISTENT);
  if (!r) return MHD_NO;
  libmhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, a ? a->type : "text/plain; charset=utf-8");
  if (!a) libmhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
  libmhd.add_response_header(r, "Content-Security-Policy",
                             "default-src 'none'; script-src 'self'; style-src 'self'; img-src data:; "
                             "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  libmhd.add_response_header(r, "X-Content-Type-Options", "nosniff");
  libmhd.add_response_header(r, "Referrer-Policy", "no-referrer");
  libmhd.add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
  enum MHD_Result ok = libmhd.queue_response(c, a ? MHD_HTTP_OK : MHD_HTTP_METHOD_NOT_ALLOWED, r);
  libmhd.destroy_response(r);
  return ok;
}

/* ---- checks before the body ------------------------------------------------ */

/* localhost, 127.x.y.z or [::1], with an optional :port */
static bool loopback_host(const char *h, size_t n) {
  if (n && h[0] == '[') {
    const char *close = memchr(h, ']', n);
    if (!close) return false;
    size_t rest = n - (size_t)(close - h) - 1;
    if (rest && close[1] != ':') return false;
    return (size_t)(close - h) == 4 && !memcmp(h, "[::1", 4);
  }
  const char *colon = memchr(h, ':', n);
  size_t len = colon ? (size_t)(colon - h) : n;
  if (colon)
    for (const char *p = colon + 1; p < h + n; p++)
      if (!isdigit((unsigned char)*p)) return false;
  if (len == 9 && !strncasecmp(h, "localhost", 9)) return true;
  char ip[16];
  if (len >= sizeof ip) return false;
  memcpy(ip, h, len);
  ip[len] = 0;
  struct in_addr a;
  return inet_pton(AF_INET, ip, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

static bool origin_ok(http_state *hs, const char *origin) {
  for (size_t i = 0; i < hs->srv->cfg->n_origins; i++)
    if (!strcmp(origin, hs->srv->cfg->origins[i])) return true;
  const char *p = !strncasecmp(origin, "http://", 7)    ? origin + 7
                  : !strncasecmp(origin, "https://", 8) ? origin + 8
                                                        : NULL;
  return p && !strchr(p, '/') && loopback_host(p, strlen(p));
}

static const char *header(struct MHD_Connection *c, const char *name) {
  return libmhd.lookup_connection_value(c, MHD_HEADER_KIND, name);
}

static bool accepts(const char *accept, const char *type) { return accept && strcasestr(accept, type); }

/* Who sends the request: the client of a static token, else (with OAuth)
 * the subject of a valid access token. 0 when it may go on (or no
 * authentication is configured), else the status to refuse it with. */
static unsigned authenticate(http_state *hs, request *rq, const char *auth, char *why, size_t n) {
  if (!hs->clients.n && !hs->oauth) return 0;
  if (hs->clients.n && (rq->client = mcp_tenants_auth(&hs->clients, auth))) return 0;
  if (!hs->oauth) return snprintf(why, n, "Unauthorized: missing or wrong bearer token"), MHD_HTTP_UNAUTHORIZED;
  const char *token = auth && !strncasecmp(auth, "Bearer ", 7) ? auth + 7 : NULL;
  while (token && *token == ' ') token++;
  if (!token || !*token)
    return snprintf(why, n,
                    "Unauthorized: a bearer token is required (the WWW-Authenticate header says where to get one)"),
           MHD_HTTP_UNAUTHORIZED;
  switch (mcp_oauth_verify(hs->oauth, token, wb_wall_s(), rq->oauth_subject, rq->auth_reason, sizeof rq->auth_reason)) {
    case MCP_OAUTH_OK: snprintf(rq->oauth_client, sizeof rq->oauth_client, "oauth:%s", rq->oauth_subject); return 0;
    case MCP_OAUTH_SCOPE:
      rq->auth_error = "insufficient_scope";
      return snprintf(why, n, "Forbidden: insufficient scope: the access token %s", rq->auth_reason),
             MHD_HTTP_FORBIDDEN;
    case MCP_OAUTH_UNAVAILABLE:
      rq->retry_after = 10;
      return snprintf(why, n, "Service unavailable: cannot check the access token: %s", rq->auth_reason),
             MHD_HTTP_SERVICE_UNAVAILABLE;
    default:
      rq->auth_error = "invalid_token";
      return snprintf(why, n, "Unauthorized: invalid access token: %s", rq->auth_reason), MHD_HTTP_UNAUTHORIZED;
  }
}

/* 0 when the request may go on, else the status already queued. */
static int precheck(http_state *hs, request *rq, struct MHD_Connection *c, const char *url, const char *method,
                    enum MHD_Result *res) {
  const char *host = header(c, MHD_HTTP_HEADER_HOST), *origin = header(c, "Origin");
  unsigned status = 0;
  const char *why = NULL;
  char limited[300];
  bool read = !strcmp(method, "GET") || !strcmp(method, "HEAD");
  bool mcp = !strcmp(url, "/mcp") || !strcmp(url, "/mcp/"), metrics = !strcmp(url, "/metrics"),
       health = !strcmp(url, "/healthz");
  /* RFC 9728's protected resource metadata, with OAuth */
  bool resource = hs->oauth && mcp_oauth_metadata_path(hs->oauth, url), open = health || resource;
  const mcp_asset *page = mcp || metrics || open || hs->srv->cfg->no_playground ? NULL : mcp_playground_find(url);
  /* every path */
  if (!mcp && !metrics && !open && !page) status = MHD_HTTP_NOT_FOUND, why = "Not found: the MCP endpoint is /mcp";
  else if (origin && !origin_ok(hs, origin))
    status = MHD_HTTP_FORBIDDEN, why = "Forbidden: Origin not allowed (only loopback origins and --allow-origin)";
  else if (hs->loopback && (!host || !loopback_host(host, strlen(host))))
    status = MHD_HTTP_FORBIDDEN, why = "Forbidden: Host must be localhost, 127.0.0.1 or [::1] (DNS rebinding guard)";
  else if ((page || open || metrics) && !read) {
    mcp_metrics_http_rejected(&hs->srv->metrics);
    *res = send_asset(rq, c, NULL);
    return MHD_HTTP_METHOD_NOT_ALLOWED;
  }
  /* no token needed: the playground's files, /healthz, the resource metadata */
  if (!status && page) {
    *res = send_asset(rq, c, page); /* libmicrohttpd sends no body to HEAD */
    return MHD_HTTP_OK;
  }
  if (!status && health) {
    char *body = mcp_health_json(hs->srv);
    *res = body ? send_body(rq, c, MHD_HTTP_OK, "application/json", body, NULL) : MHD_NO;
    return MHD_HTTP_OK;
  }
  if (!status && resource) {
    char *body = mcp_oauth_metadata(hs->oauth);
    *res = body ? send_body(rq, c, MHD_HTTP_OK, "application/json", body, NULL) : MHD_NO;
    return MHD_HTTP_OK;
  }
  /* the token and its client's limits: /metrics, /mcp */
  if (status) {
  } else if ((status = authenticate(hs, rq, header(c, MHD_HTTP_HEADER_AUTHORIZATION), limited, sizeof limited))) {
    why = limited;
  } else if (mcp_tenants_admit(&hs->clients, rq->client, wb_monotonic_s(), &rq->retry_after, limited, sizeof limited)) {
    status = MHD_HTTP_TOO_MANY_REQUESTS, why = limited;
  } else {
    rq->admitted = rq->client != NULL;
  }
  if (!status && metrics) {
    char *body = mcp_metrics_text(hs->srv, &hs->clients);
    *res = body ? send_body(rq, c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", body, NULL) : MHD_NO;
    return MHD_HTTP_OK;
  }
  /* /mcp */
  if (status) {
  } else if (!strcmp(method, "GET")) {
    status = MHD_HTTP_METHOD_NOT_ALLOWED, why = "Method not allowed: this server sends no server-initiated stream";
  } else if (strcmp(method, "POST") && strcmp(method, "DELETE")) {
    status = MHD_HTTP_METHOD_NOT_ALLOWED, why = "Method not allowed: use POST (or DELETE to end a session)";
  } else if (!strcmp(method, "POST")) {
    const char *type = header(c, MHD_HTTP_HEADER_CONTENT_TYPE), *accept = header(c, MHD_HTTP_HEADER_ACCEPT);
    const char *len = header(c, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (!type || strncasecmp(type, "application/json", 16))
      status = MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, why = "Unsupported media type: send Content-Type: application/json";
    else if (accept && !accepts(accept, "application/json") && !accepts(accept, "text/event-stream") &&
             !accepts(accept, "*/*") && !accepts(accept, "application/*"))
      status = MHD_HTTP_NOT_ACCEPTABLE, why = "Not acceptable: accept application/json and text/event-stream";
    else if (len && strtoull(len, NULL, 10) > hs->srv->cfg->max_request_bytes)
      status = MHD_HTTP_CONTENT_TOO_LARGE, why = "Request too large (see --max-request-bytes)";
  }
  if (!status) return 0;
  *res = refuse(rq, c, status, status == MHD_HTTP_CONTENT_TOO_LARGE ? RPC_INVALID_REQUEST : -32000, why, NULL);
  return (int)status;
}

/* ---- watching clients while their call runs --------------------------------- */

static void watch(mcp_msg *m, bool start) {
  request *rq = m->transport;
  http_state *hs = rq->hs;
  if (rq->fd < 0) return;
  pthread_mutex_lock(&hs->lock);
  if (start) {
    rq->entry = (watched){.fd = rq->fd, .cancel = m->cancel, .next = hs->watch};
    hs->watch = &rq->entry;
  } else {
    for (watched **p = &hs->watch; *p; p = &(*p)->next)
      if (*p == &rq->entry) {
        *p = rq->entry.next;
        break;
      }
  }
  pthread_mutex_unlock(&hs->lock);
}

/* Every 50 ms: has a client with a call in flight hung up? (the first 256
 * calls are watched; more than that at once would exceed the default
 * connection limit) */
static void *monitor(void *arg) {
  http_state *hs = arg;
  struct pollfd fds[256];
  for (;;) {
    size_t n = 0;
    pthread_mutex_lock(&hs->lock);
    if (hs->stop) {
      pthread_mutex_unlock(&hs->lock);
      return NULL;
    }
    for (watched *w = hs->watch; w && n < 256; w = w->next)
      fds[n++] = (struct pollfd){.fd = w->fd, .events = POLLRDHUP};
    pthread_mutex_unlock(&hs->lock);
    if (!n) {
      usleep(50000);
      continue;
    }
    if (poll(fds, n, 50) <= 0) continue;
    pthread_mutex_lock(&hs->lock);
    for (size_t i = 0; i < n; i++) {
      if (!(fds[i].revents & (POLLRDHUP | POLLHUP | POLLERR))) continue;
      for (watched *w = hs->watch; w; w = w->next)
        if (w->fd == fds[i].fd && w->cancel) {
          wasmbox_cancel_fire(w->cancel);
          w->cancel = NULL;
          mcp_log(hs->srv, MCP_LOG_INFO, "client disconnected: call cancelled");
        }
    }
    pthread_mutex_unlock(&hs->lock);
  }
}

/* ---- requests ---------------------------------------------------------------- */

static bool is_initialize(const cJSON *msg) {
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "method");
  return cJSON_IsObject(msg) && cJSON_IsString(m) && !strcmp(m->valuestring, "initialize") &&
         cJSON_GetObjectItemCaseSensitive(msg, "id");
}

static enum MHD_Result handle_delete(http_state *hs, struct MHD_Connection *c, request *rq) {
  const char *sid = header(c, "Mcp-Session-Id");
  if (!sid)
    return refuse(rq, c, MHD_HTTP_BAD_REQUEST, RPC_INVALID_REQUEST, "Bad request: Mcp-Session-Id header required",
                  NULL);
  snprintf(rq->log.mcp_session, sizeof rq->log.mcp_session, "%s", sid);
  if (!mcp_conn_remove(hs->srv, sid)) return refuse(rq, c, MHD_HTTP_NOT_FOUND, -32001, "Session not found", NULL);
  mcp_log(hs->srv, MCP_LOG_INFO, "session %s ended by the client", sid);
  return send_body(rq, c, MHD_HTTP_OK, NULL, NULL, NULL);
}

static enum MHD_Result handle_post(http_state *hs, struct MHD_Connection *c, request *rq) {
  const char *why;
  cJSON *msg = rpc_parse(rq->body ? rq->body : "", rq->len, &why);
  if (!msg) {
    mcp_metrics_request(&hs->srv->metrics, 1);
    return refuse(rq, c, MHD_HTTP_BAD_REQUEST, RPC_PARSE_ERROR, why, NULL);
  }
  mcp_msg m = {.srv = hs->srv, .http = true, .transport = rq, .watch = watch};
  /* the owner: the token's client, or "oauth:" and the token's claim;
     without either only loopback is served, and that is the local operator */
  m.owner = rq->client ? rq->client->name : rq->oauth_subject[0] ? rq->oauth_client : "local";
  m.admin = rq->client && rq->client->admin;
  m.h_version = header(c, "MCP-Protocol-Version");
  m.h_method = header(c, "Mcp-Method");
  m.h_name = header(c, "Mcp-Name");
  const char *sid = header(c, "Mcp-Session-Id");
  if (sid) snprintf(rq->log.mcp_session, sizeof rq->log.mcp_session, "%s", sid);
  if (sid && !is_initialize(msg)) {
    m.conn = mcp_conn_get(hs->srv, sid);
    if (!m.conn) {
      const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
      enum MHD_Result r = refuse(rq, c, MHD_HTTP_NOT_FOUND, -32001,
                                 "Session not found (it ended or the server restarted): initialize again", id);
      cJSON_Delete(msg);
      return r;
    }
  }
  const cJSON *idv = cJSON_GetObjectItemCaseSensitive(msg, "id");
  bool request = cJSON_IsObject(msg) && cJSON_GetObjectItemCaseSensitive(msg, "method") && idv;
  cJSON *resp = mcp_handle(&m, msg);
  mcp_access_note(&rq->log, msg, resp);
  if (m.new_session[0]) snprintf(rq->log.mcp_session, sizeof rq->log.mcp_session, "%s", m.new_session);
  enum MHD_Result r;
  const char *accept = header(c, MHD_HTTP_HEADER_ACCEPT);
  unsigned status = m.http_status ? (unsigned)m.http_status : MHD_HTTP_OK;
  if (!resp) {
    /* notifications and responses: accepted; a cancelled request: nothing */
    r = send_body(rq, c, request ? MHD_HTTP_NO_CONTENT : MHD_HTTP_ACCEPTED, NULL, NULL, NULL);
  } else if (m.notes && cJSON_GetArraySize(m.notes) && accepts(accept, "text/event-stream") && status == MHD_HTTP_OK) {
    /* log notifications first, then the response, as one SSE stream */
    size_t cap = 0;
    char *parts[65];
    size_t np = 0;
    for (const cJSON *n = m.notes->child; n && np < 64; n = n->next)
      if ((parts[np] = rpc_print(n))) cap += strlen(parts[np++]) + 32;
    if ((parts[np] = rpc_print(resp))) cap += strlen(parts[np++]) + 32;
    char *body = malloc(cap + 1), *o = body;
    for (size_t i = 0; i < np; i++) {
      if (body) o += sprintf(o, "event: message\ndata: %s\n\n", parts[i]);
      cJSON_free(parts[i]);
    }
    r = body ? send_body(rq, c, status, "text/event-stream", body, m.new_session[0] ? m.new_session : NULL) : MHD_NO;
  } else {
    r = send_json(rq, c, status, resp, m.new_session[0] ? m.new_session : NULL);
  }
  cJSON_Delete(resp);
  cJSON_Delete(msg);
  mcp_conn_put(hs->srv, m.conn);
  mcp_msg_done(&m);
  return r;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *upload, size_t *upload_size, void **con_cls) {
  (void)version;
  http_state *hs = cls;
  request *rq = *con_cls;
  if (!rq) {
    enum MHD_Result res = MHD_NO;
    rq = calloc(1, sizeof *rq);
    if (!rq) return MHD_NO;
    rq->started = wb_monotonic_s();
    rq->hs = hs;
    rq->fd = -1;
    rq->log.fuel = -1;
    snprintf(rq->method, sizeof rq->method, "%s", method);
    snprintf(rq->path, sizeof rq->path, "%s", url);
    const union MHD_ConnectionInfo *ci = libmhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (ci) rq->fd = ci->connect_fd;
    *con_cls = rq;
    if (precheck(hs, rq, c, url, method, &res)) {
      rq->responded = true;
      return res;
    }
    if (!strcmp(method, "DELETE")) {
      rq->responded = true;
      return handle_delete(hs, c, rq);
    }
    return MHD_YES; /* now the body */
  }
  if (rq->responded) { /* refused already: drop whatever body follows */
    *upload_size = 0;
    return MHD_YES;
  }
  if (*upload_size) {
    size_t n = *upload_size;
    *upload_size = 0;
    rq->received += n;
    /* libmicrohttpd cannot answer in the middle of a body: a body that is
     * too slow is cut off here, one that is too large is read to its end
     * without being kept, then refused */
    if (wb_monotonic_s() - rq->started > hs->srv->cfg->request_timeout) {
      mcp_metrics_http_rejected(&hs->srv->metrics);
      mcp_log(hs->srv, MCP_LOG_INFO, "request body too slow: connection closed");
      return MHD_NO;
    }
    if (rq->too_large || rq->len + n > hs->srv->cfg->max_request_bytes) {
      rq->too_large = true;
      free(rq->body);
      rq->body = NULL;
      rq->len = rq->cap = 0;
      return MHD_YES;
    }
    if (rq->len + n > rq->cap) {
      size_t cap = rq->cap ? rq->cap : 4096;
      while (cap < rq->len + n) cap *= 2;
      char *b = realloc(rq->body, cap);
      if (!b) return MHD_NO;
      rq->body = b, rq->cap = cap;
    }
    memcpy(rq->body + rq->len, upload, n);
    rq->len += n;
    return MHD_YES;
  }
  if (rq->too_large) {
    rq->responded = true;
    return refuse(rq, c, MHD_HTTP_CONTENT_TOO_LARGE, RPC_INVALID_REQUEST, "Request too large (see --max-request-bytes)",
                  NULL);
  }
  rq->responded = true;
  return handle_post(hs, c, rq);
}

/* Every request ends here, answered or not: counted, logged, let go. */
static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe) {
  (void)c, (void)toe;
  http_state *hs = cls;
  request *rq = *con_cls;
  if (!rq) return;
  if (rq->admitted) mcp_tenants_done(&hs->clients, rq->client);
  mcp_tenants_count(&hs->clients, rq->client, rq->oauth_subject[0] != 0, rq->log.status);
  if (hs->access) {
    rq->log.client = rq->client ? rq->client->name : rq->oauth_subject[0] ? rq->oauth_client : NULL;
    rq->log.method = rq->method;
    rq->log.path = rq->path;
    rq->log.ms = (wb_monotonic_s() - rq->started) * 1000;
    rq->log.bytes_in = rq->received;
    mcp_access_log_write(hs->access, &rq->log);
  }
  free(rq->body);
  free(rq);
  *con_cls = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap) {
  char line[512];
  vsnprintf(line, sizeof line, fmt, ap);
  line[strcspn(line, "\n")] = 0;
  mcp_log(cls, MCP_LOG_DEBUG, "libmicrohttpd: %s", line);
}

/* ---- the daemon ------------------------------------------------------------------ */

static int parse_listen(const char *spec, struct sockaddr_storage *ss, bool *loopback, char *err, size_t errlen) {
  char host[256];
  const char *colon = strrchr(spec, ':');
  if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof host) {
    snprintf(err, errlen, "--listen wants HOST:PORT, not '%s'", spec);
    return -1;
  }
  memcpy(host, spec, (size_t)(colon - spec));
  host[colon - spec] = 0;
  char *end;
  long port = strtol(colon + 1, &end, 10);
  if (*end || end == colon + 1 || port < 0 || port > 65535) {
    snprintf(err, errlen, "--listen: bad port in '%s'", spec);
    return -1;
  }
  memset(ss, 0, sizeof *ss);
  if (host[0] == '[' && host[strlen(host) - 1] == ']') {
    host[strlen(host) - 1] = 0;
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons((uint16_t)port);
    if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1) {
      snprintf(err, errlen, "--listen: bad IPv6 address in '%s'", spec);
      return -1;
    }
    *loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
    return 0;
  }
  struct sockaddr_in *a = (struct sockaddr_in *)ss;
  a->sin_family = AF_INET;
  a->sin_port = htons((uint16_t)port);
  if (!strcmp(host, "localhost")) snprintf(host, sizeof host, "127.0.0.1");
  if (inet_pton(AF_INET, host, &a->sin_addr) != 1) {
    snprintf(err, errlen, "--listen: '%s' is not an IP address (or localhost)", host);
    return -1;
  }
  *loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
  return 0;
}

struct mcp_http {
  http_state hs;
  struct MHD_Daemon *daemon;
  pthread_t monitor;
  bool monitoring;
  unsigned port;
};

/* a start that failed once the clients were loaded: undone, `code` returned */
static int unstart(mcp_http *h, int code) {
  mcp_oauth_free(h->hs.oauth);
  mcp_access_log_close(h->hs.access);
  mcp_tenants_free(&h->hs.clients);
  free(h);
  return code;
}

static int start_oauth(mcp_http *h, char *err, size_t errlen) {
  const mcp_config *c = h->hs.srv->cfg;
  if (!c->oauth_issuer[0]) return 0;
  mcp_oauth_settings o = {.issuer = c->oauth_issuer,
                          .jwks = c->oauth_jwks,
                          .resource = c->oauth_resource,
                          .claim = c->oauth_claim,
                          .scopes = c->oauth_scopes};
  if (mcp_oauth_new(&o, &h->hs.oauth, err, errlen)) return -1;
  char why[256];
  if (!mcp_oauth_ready(h->hs.oauth, why, sizeof why)) /* the issuer may be back soon: serve, and try again */
    mcp_log(h->hs.srv, MCP_LOG_WARNING, "OAuth keys not loaded yet (%s): access tokens get 503 until they are", why);
  return 0;
}

int mcp_http_start(mcp_server *s, mcp_http **out, char *err, size_t errlen) {
  *out = NULL;
  mcp_http *h = calloc(1, sizeof *h);
  if (!h) return snprintf(err, errlen, "out of memory"), 1;
  h->hs.srv = s;
  struct sockaddr_storage ss;
  if (parse_listen(s->cfg->listen, &ss, &h->hs.loopback, err, errlen)) return free(h), 2;
  if (mcp_tenants_load(&h->hs.clients, s->cfg->token, s->cfg->tokens, err, errlen)) return free(h), 2;
  /* OAuth is authentication too: every request then needs a token */
  bool authenticated = h->hs.clients.n || s->cfg->oauth_issuer[0];
  if (!h->hs.loopback && !authenticated) {
    snprintf(err, errlen,
             "refusing to listen on %s without --token, --tokens or --oauth-issuer: anyone who can reach it could "
             "run code",
             s->cfg->listen);
    return unstart(h, 2);
  }
  /* loopback is not a free pass once other users' sessions or the
     operator's upstream tools are behind this port: any local process could
     reach them */
  const char *store = s->cfg->store[0] ? s->cfg->store : getenv("WASMBOX_STORE");
  if (!authenticated && !s->cfg->allow_anonymous && (s->cfg->upstream[0] || (store && store[0]))) {
    snprintf(err, errlen,
             "refusing to serve %s without --token, --tokens or --oauth-issuer: with %s any local process could %s; "
             "give --allow-anonymous to serve it anyway",
             s->cfg->upstream[0] ? "upstream tools" : "a shared session store",
             s->cfg->upstream[0] ? "--upstream" : "--store",
             s->cfg->upstream[0] ? "call the operator's tools" : "reach every session in the store");
    return unstart(h, 2);
  }
  if (start_oauth(h, err, errlen)) return unstart(h, 2);
  if (s->cfg->access_log[0] && !(h->hs.access = mcp_access_log_open(s->cfg->access_log, err, errlen)))
    return unstart(h, 2);
  if (!libmhd_load(err, errlen)) return unstart(h, 1);
  pthread_mutex_init(&h->hs.lock, NULL);
  signal(SIGPIPE, SIG_IGN);
  unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
  if (ss.ss_family == AF_INET6) flags |= MHD_USE_IPv6;
  h->daemon = libmhd.start_daemon(flags, 0, NULL, NULL, handler, &h->hs, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                                  MHD_OPTION_CONNECTION_LIMIT, (unsigned)s->cfg->max_connections,
                                  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)ceil(s->cfg->idle_timeout),
                                  MHD_OPTION_NOTIFY_COMPLETED, completed, &h->hs, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                                  (size_t)(64 * 1024), MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s, MHD_OPTION_END);
  if (!h->daemon) {
    snprintf(err, errlen, "cannot listen on %s: %s", s->cfg->listen, strerror(errno));
    pthread_mutex_destroy(&h->hs.lock);
    return unstart(h, 1);
  }
  const union MHD_DaemonInfo *di = libmhd.get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
  h->port = di ? di->port : 0;
  h->monitoring = pthread_create(&h->monitor, NULL, monitor, &h->hs) == 0;
  *out = h;
  return 0;
}

unsigned mcp_http_port(const mcp_http *h) { return h->port; }

void mcp_http_stop(mcp_http *h) {
  libmhd.stop_daemon(h->daemon);
  pthread_mutex_lock(&h->hs.lock);
  h->hs.stop = true;
  pthread_mutex_unlock(&h->hs.lock);
  if (h->monitoring) pthread_join(h->monitor, NULL);
  pthread_mutex_destroy(&h->hs.lock);
  mcp_oauth_free(h->hs.oauth);
  mcp_access_log_close(h->hs.access);
  mcp_tenants_free(&h->hs.clients);
  free(h);
}

int mcp_http_serve(mcp_server *s) {
  /* SIGINT/SIGTERM end the server; every thread started from here on has
   * them blocked, so only sigwait below sees them */
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, NULL);
  mcp_http *h;
  char err[300];
  int code = mcp_http_start(s, &h, err, sizeof err);
  if (code) {
    fprintf(stderr, "wasmbox serve: %s\n", err);
    return code;
  }
  char shown[300];
  snprintf(shown, sizeof shown, "%s", s->cfg->listen);
  char *colon = strrchr(shown, ':');
  if (colon) snprintf(colon + 1, sizeof shown - (size_t)(colon + 1 - shown), "%u", h->port);
  fprintf(stderr, "wasmbox serve: listening on http://%s/mcp\n", shown);
  if (!s->cfg->no_playground) fprintf(stderr, "wasmbox serve: a page to try it at http://%s/\n", shown);
  int sig = 0;
  sigwait(&stop, &sig);
  fprintf(stderr, "wasmbox serve: stopping (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  mcp_http_stop(h);
  return 0;
}
