/* A connection to one upstream MCP server (see upstream_conn.h). */
#include "mcp/upstream_conn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mcp/libs.h"
#include "mcp/version.h"
#include "util/buf.h"
#include "util/os.h"
#include "util/fail.h"

/* What a stdio server inherits of this process's environment: what the
 * official MCP SDKs' stdio clients pass (HOME, LOGNAME, PATH, SHELL, TERM,
 * USER) and the locale and time zone. Never the rest: the server's token
 * (WASMBOX_MCP_TOKEN) and store URL (WASMBOX_STORE, a password in it) are
 * there. */
static const char *const inherited[] = {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TZ"};

struct upstream_conn {
  char **argv;    /* stdio: command and arguments, NULL-terminated */
  char **envp;    /* stdio: the inherited variables and the server's own env */
  char *url;      /* HTTP */
  char **headers; /* HTTP: "Name: value" */
  size_t nheaders;
  bool started;
  bool list_changed;
  long long next_id;
  /* stdio */
  pid_t pid;
  int to, from;
  wb_buf in; /* bytes read, not yet a whole line */
  /* HTTP */
  CURL *curl;
  char session[256]; /* Mcp-Session-Id */
  char version[32];  /* negotiated protocol version */
};

static char *dup_or_empty(const char *s) { return strdup(s ? s : ""); }

upstream_conn *upstream_conn_new(const upstream_conn_spec *spec) {
  upstream_conn *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->pid = -1;
  c->to = c->from = -1;
  bool ok = true;
  if (spec->url) {
    ok = (c->url = strdup(spec->url)) && (c->headers = calloc(spec->nheaders + 1, sizeof *c->headers));
    for (size_t i = 0; ok && i < spec->nheaders; i++) ok = (c->headers[i] = dup_or_empty(spec->headers[i])) != NULL;
    c->nheaders = spec->nheaders;
  } else {
    ok = (c->argv = calloc(spec->nargs + 2, sizeof *c->argv)) &&
         (c->envp = calloc(sizeof inherited / sizeof *inherited + spec->nenv + 1, sizeof *c->envp)) &&
         (c->argv[0] = dup_or_empty(spec->command));
    for (size_t i = 0; ok && i < spec->nargs; i++) ok = (c->argv[i + 1] = dup_or_empty(spec->args[i])) != NULL;
    /* a few of this process's variables, unless the server's own entries
       name them too */
    size_t n = 0;
    for (size_t i = 0; ok && i < sizeof inherited / sizeof *inherited; i++) {
      const char *v = getenv(inherited[i]);
      bool replaced = false;
      size_t k = strlen(inherited[i]);
      for (size_t j = 0; j < spec->nenv && !replaced; j++)
        replaced = !strncmp(spec->env[j], inherited[i], k) && spec->env[j][k] == '=';
      /* "()": a shell function exported by bash, as the SDKs skip */
      if (!v || replaced || !strncmp(v, "()", 2)) continue;
      ok = (c->envp[n] = malloc(k + strlen(v) + 2)) != NULL;
      if (ok) sprintf(c->envp[n++], "%s=%s", inherited[i], v);
    }
    for (size_t j = 0; ok && j < spec->nenv; j++) ok = (c->envp[n++] = strdup(spec->env[j])) != NULL;
  }
  if (!ok) {
    upstream_conn_free(c);
    return NULL;
  }
  return c;
}

static void free_list(char **v) {
  for (size_t i = 0; v && v[i]; i++) free(v[i]);
  free(v);
}

void upstream_conn_free(upstream_conn *c) {
  if (!c) return;
  upstream_conn_stop(c);
  free_list(c->argv);
  free_list(c->envp);
  free_list(c->headers);
  free(c->url);
  free(c);
}

bool upstream_conn_started(const upstream_conn *c) { return c->started; }

bool upstream_conn_take_list_changed(upstream_conn *c) {
  bool v = c->list_changed;
  c->list_changed = false;
  return v;
}

void upstream_conn_stop(upstream_conn *c) {
  c->started = false;
  c->session[0] = 0;
  c->version[0] = 0;
  if (c->curl) {
    libcurl.easy_cleanup(c->curl);
    c->curl = NULL;
  }
  if (c->to >= 0) close(c->to);
  if (c->from >= 0) close(c->from);
  c->to = c->from = -1;
  wb_buf_free(&c->in);
  if (c->pid > 0) {
    /* stdin is closed: a well-behaved server exits; give it 200 ms, then
     * its whole process group goes */
    for (int i = 0; i < 20; i++) {
      if (waitpid(c->pid, NULL, WNOHANG) == c->pid) {
        c->pid = -1;
        break;
      }
      struct timespec t = {0, 10000000};
      nanosleep(&t, NULL);
    }
    if (c->pid > 0) {
      kill(-c->pid, SIGKILL);
      kill(c->pid, SIGKILL);
      while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR) {}
    }
  }
  c->pid = -1;
}

/* ---- messages we answer or remember ---------------------------------------------- */

/* A request or notification from the upstream: the reply to send (NULL:
 * none). */
static cJSON *from_upstream(upstream_conn *c, const cJSON *msg) {
  const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
  if (!cJSON_IsString(method)) return NULL;
  if (!strcmp(method->valuestring, "notifications/tools/list_changed")) c->list_changed = true;
  if (!id) return NULL;
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "jsonrpc", "2.0");
  cJSON_AddItemToObject(r, "id", cJSON_Duplicate(id, true));
  if (!strcmp(method->valuestring, "ping")) {
    cJSON_AddItemToObject(r, "result", cJSON_CreateObject());
  } else if (!strcmp(method->valuestring, "roots/list")) {
    cJSON *res = cJSON_AddObjectToObject(r, "result");
    cJSON_AddArrayToObject(res, "roots");
  } else {
    cJSON *e = cJSON_AddObjectToObject(r, "error");
    cJSON_AddNumberToObject(e, "code", -32601);
    cJSON_AddStringToObject(e, "message", "wasmbox offers no such method to upstream servers");
  }
  return r;
}

/* Is `msg` the response to `id`? Then its result (taken out), or NULL
 * with the error in err; *done says it was. */
static cJSON *response_for(cJSON *msg, long long id, bool *done, char *err, size_t errlen) {
  const cJSON *mid = cJSON_GetObjectItemCaseSensitive(msg, "id");
  if (cJSON_GetObjectItemCaseSensitive(msg, "method") || !cJSON_IsNumber(mid) || mid->valuedouble != (double)id)
    return NULL;
  *done = true;
  const cJSON *e = cJSON_GetObjectItemCaseSensitive(msg, "error");
  if (e) {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
    wb_fail(err, errlen, 0, "%.900s", cJSON_IsString(m) ? m->valuestring : "the upstream returned an error");
    return NULL;
  }
  cJSON *res = cJSON_DetachItemFromObjectCaseSensitive(msg, "result");
  if (!cJSON_IsObject(res)) {
    cJSON_Delete(res);
    wb_fail(err, errlen, 0, "the upstream's response has no result object");
    return NULL;
  }
  return res;
}

/* ---- stdio ------------------------------------------------------------------------ */

static bool write_line(upstream_conn *c, const cJSON *msg, uint64_t deadline) {
  char *text = cJSON_PrintUnformatted(msg);
  if (!text) return false;
  size_t n = strlen(text);
  text[n] = '\n'; /* the NUL becomes the line's end */
  size_t off = 0;
  bool ok = true;
  while (ok && off < n + 1) {
    ssize_t w = write(c->to, text + off, n + 1 - off);
    if (w > 0) {
      off += (size_t)w;
    } else if (w < 0 && errno == EAGAIN) {
      uint64_t now = wb_monotonic_ns();
      struct pollfd p = {.fd = c->to, .events = POLLOUT};
      ok = now < deadline && poll(&p, 1, (int)((deadline - now) / 1000000 + 1)) >= 0;
    } else if (!(w < 0 && errno == EINTR)) {
      ok = false;
    }
  }
  free(text);
  return ok;
}

/* The next whole message from the process, NULL at the deadline or when
 * the connection is lost (*lost). Lines that are not JSON end it too: a
 * server that writes logs to stdout is broken for every client. */
static cJSON *read_message(upstream_conn *c, uint64_t deadline, bool *lost, char *err, size_t errlen) {
  for (;;) {
    char *nl = c->in.len ? memchr(c->in.data, '\n', c->in.len) : NULL;
    if (nl) {
      size_t n = (size_t)(nl - c->in.data);
      cJSON *msg = cJSON_ParseWithLength(c->in.data, n);
      memmove(c->in.data, nl + 1, c->in.len - n - 1);
      c->in.len -= n + 1;
      if (n == 0 || (n == 1 && c->in.data[0] == '\r')) continue;
      if (!msg) {
        *lost = true;
        wb_fail(err, errlen, 0, "the upstream wrote a line that is not JSON-RPC on stdout");
      }
      return msg;
    }
    if (c->in.len > UPSTREAM_CONN_MESSAGE_MAX) {
      *lost = true;
      wb_fail(err, errlen, 0, "the upstream sent a message over %u MB", UPSTREAM_CONN_MESSAGE_MAX >> 20);
      return NULL;
    }
    uint64_t now = wb_monotonic_ns();
    if (now >= deadline) {
      wb_fail(err, errlen, 0, "the upstream did not answer in time");
      return NULL;
    }
    struct pollfd p = {.fd = c->from, .events = POLLIN};
    int r = poll(&p, 1, (int)((deadline - now) / 1000000 + 1));
    if (r < 0 && errno != EINTR) {
      *lost = true;
      wb_fail(err, errlen, 0, "poll: %s", strerror(errno));
      return NULL;
    }
    if (r <= 0) continue;
    char buf[65536];
    ssize_t got = read(c->from, buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) {
      *lost = true;
      /* stdout closed: the process is usually exiting; wait a moment for
       * its status, which says more than "closed" */
      int st = 0;
      pid_t done = 0;
      for (int i = 0; i < 20 && c->pid > 0 && !done; i++) {
        done = waitpid(c->pid, &st, WNOHANG);
        struct timespec t = {0, 5000000};
        if (!done) nanosleep(&t, NULL);
      }
      if (done == c->pid && c->pid > 0) {
        c->pid = -1;
        if (WIFEXITED(st)) wb_fail(err, errlen, 0, "the upstream process exited with status %d", WEXITSTATUS(st));
        else wb_fail(err, errlen, 0, "the upstream process was killed by signal %d", WTERMSIG(st));
      } else {
        wb_fail(err, errlen, 0, "the upstream closed its stdout");
      }
      return NULL;
    }
    wb_buf_append(&c->in, buf, (size_t)got);
    if (c->in.failed) {
      *lost = true;
      wb_fail(err, errlen, 0, "out of memory");
      return NULL;
    }
  }
}

static bool spawn_process(upstream_conn *c, char *err, size_t errlen) {
  int to[2], from[2];
  if (pipe2(to, O_CLOEXEC) != 0) return wb_fail(err, errlen, 0, "pipe: %s", strerror(errno));
  if (pipe2(from, O_CLOEXEC) != 0) {
    close(to[0]);
    close(to[1]);
    return wb_fail(err, errlen, 0, "pipe: %s", strerror(errno));
  }
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, to[0], 0);
  posix_spawn_file_actions_adddup2(&fa, from[1], 1);
  posix_spawnattr_init(&at);
  /* its own process group (stopped whole), no signal blocked or ignored:
   * our threads block SIGINT and SIGTERM, and a child inherits masks */
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&at, &none);
  posix_spawnattr_setsigdefault(&at, &all);
  posix_spawnattr_setpgroup(&at, 0);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  pid_t pid;
  int rc = posix_spawnp(&pid, c->argv[0], &fa, &at, c->argv, c->envp);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  close(to[0]);
  close(from[1]);
  if (rc != 0) {
    close(to[1]);
    close(from[0]);
    return wb_fail(err, errlen, 0, "cannot start '%s': %s", c->argv[0], strerror(rc));
  }
  fcntl(to[1], F_SETFL, O_NONBLOCK);
  c->pid = pid;
  c->to = to[1];
  c->from = from[0];
  return true;
}

static cJSON *stdio_request(upstream_conn *c, cJSON *req, long long id, uint64_t deadline, char *err, size_t errlen) {
  if (!write_line(c, req, deadline)) {
    upstream_conn_stop(c);
    wb_fail(err, errlen, 0, "the upstream does not read its stdin (it exited?)");
    return NULL;
  }
  if (id < 0) return NULL; /* a notification */
  for (;;) {
    bool lost = false;
    cJSON *msg = read_message(c, deadline, &lost, err, errlen);
    if (!msg) {
      if (lost) upstream_conn_stop(c);
      return NULL;
    }
    bool done = false;
    cJSON *res = response_for(msg, id, &done, err, errlen);
    cJSON *reply = done ? NULL : from_upstream(c, msg);
    cJSON_Delete(msg);
    if (done) return res;
    if (reply) write_line(c, reply, deadline);
    cJSON_Delete(reply);
  }
}

/* ---- Streamable HTTP ----------------------------------------------------------------- */

typedef struct {
  wb_buf body;
  bool too_big;
  char session[256];
  char type[128];
} http_answer;

static size_t on_body(char *p, size_t size, size_t n, void *ctx) {
  http_answer *a = ctx;
  if (a->body.len + size * n > UPSTREAM_CONN_MESSAGE_MAX) {
    a->too_big = true;
    return 0;
  }
  wb_buf_append(&a->body, p, size * n);
  return a->body.failed ? 0 : size * n;
}

static void header_value(const char *line, size_t n, const char *name, char *out, size_t outlen) {
  size_t k = strlen(name);
  if (n <= k || strncasecmp(line, name, k)) return;
  const char *v = line + k;
  size_t len = n - k;
  while (len && (*v == ' ' || *v == '\t')) v++, len--;
  while (len && (v[len - 1] == '\r' || v[len - 1] == '\n' || v[len - 1] == ' ')) len--;
  if (len < outlen) {
    memcpy(out, v, len);
    out[len] = 0;
  }
}

static size_t on_header(char *p, size_t size, size_t n, void *ctx) {
  http_answer *a = ctx;
  header_value(p, size * n, "mcp-session-id:", a->session, sizeof a->session);
  header_value(p, size * n, "content-type:", a->type, sizeof a->type);
  return size * n;
}

/* POST one message; *status the HTTP status (0: no answer). */
static bool http_post(upstream_conn *c, const cJSON *msg, uint64_t deadline, http_answer *a, long *status, char *err,
                      size_t errlen) {
  *status = 0;
  uint64_t now = wb_monotonic_ns();
  if (now >= deadline) return wb_fail(err, errlen, 0, "the upstream did not answer in time");
  if (!libcurl_load(err, errlen)) return false;
  if (!c->curl && !(c->curl = libcurl.easy_init())) return wb_fail(err, errlen, 0, "cannot make an HTTP client");
  char *text = cJSON_PrintUnformatted(msg);
  if (!text) return wb_fail(err, errlen, 0, "out of memory");
  struct curl_slist *h = NULL;
  h = libcurl.slist_append(h, "Content-Type: application/json");
  h = libcurl.slist_append(h, "Accept: application/json, text/event-stream");
  char line[320];
  if (c->session[0]) {
    snprintf(line, sizeof line, "Mcp-Session-Id: %s", c->session);
    h = libcurl.slist_append(h, line);
  }
  if (c->version[0]) {
    snprintf(line, sizeof line, "MCP-Protocol-Version: %s", c->version);
    h = libcurl.slist_append(h, line);
  }
  for (size_t i = 0; i < c->nheaders; i++) h = libcurl.slist_append(h, c->headers[i]);
  CURL *e = c->curl;
  libcurl.easy_reset(e);
  libcurl.easy_setopt(e, CURLOPT_URL, c->url);
  libcurl.easy_setopt(e, CURLOPT_POSTFIELDS, text);
  libcurl.easy_setopt(e, CURLOPT_HTTPHEADER, h);
  libcurl.easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  libcurl.easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)((deadline - now) / 1000000 + 1));
  libcurl.easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  libcurl.easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  libcurl.easy_setopt(e, CURLOPT_WRITEDATA, a);
  libcurl.easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  libcurl.easy_setopt(e, CURLOPT_HEADERDATA, a);
  CURLcode rc = libcurl.easy_perform(e);
  libcurl.slist_free_all(h);
  free(text);
  if (rc != CURLE_OK) {
    if (a->too_big)
      return wb_fail(err, errlen, 0, "the upstream sent a message over %u MB", UPSTREAM_CONN_MESSAGE_MAX >> 20);
    return wb_fail(err, errlen, 0, "%s: %s", c->url,
                   rc == CURLE_OPERATION_TIMEDOUT ? "the upstream did not answer in time" : libcurl.easy_strerror(rc));
  }
  libcurl.easy_getinfo(e, CURLINFO_RESPONSE_CODE, status);
  return true;
}

/* The messages of an answer: a JSON body (one message or a batch), or an
 * SSE stream whose events' data are messages. */
static cJSON *answer_messages(http_answer *a) {
  cJSON *all = cJSON_CreateArray();
  if (!all || !a->body.len) return all;
  if (strncasecmp(a->type, "text/event-stream", 17)) {
    cJSON *m = cJSON_ParseWithLength(a->body.data, a->body.len);
    if (cJSON_IsArray(m)) {
      cJSON_Delete(all);
      return m;
    }
    if (m) cJSON_AddItemToArray(all, m);
    return all;
  }
  wb_buf data = {0};
  const char *p = a->body.data, *end = p + a->body.len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    size_t k = n && p[n - 1] == '\r' ? n - 1 : n;
    if (k == 0) { /* an event ends */
      if (data.len) {
        cJSON *m = cJSON_ParseWithLength(data.data, data.len);
        if (m) cJSON_AddItemToArray(all, m);
      }
      data.len = 0;
    } else if (k >= 5 && !strncmp(p, "data:", 5)) {
      const char *v = p + 5;
      size_t vn = k - 5;
      if (vn && *v == ' ') v++, vn--;
      if (data.len) wb_buf_append(&data, "\n", 1);
      wb_buf_append(&data, v, vn);
    }
    p += n + (nl ? 1 : 0);
  }
  if (data.len) {
    cJSON *m = cJSON_ParseWithLength(data.data, data.len);
    if (m) cJSON_AddItemToArray(all, m);
  }
  wb_buf_free(&data);
  return all;
}

static cJSON *http_request(upstream_conn *c, cJSON *req, long long id, uint64_t deadline, char *err, size_t errlen) {
  http_answer a = {0};
  long status;
  if (!http_post(c, req, deadline, &a, &status, err, errlen)) {
    wb_buf_free(&a.body);
    return NULL;
  }
  if (a.session[0]) snprintf(c->session, sizeof c->session, "%s", a.session);
  cJSON *res = NULL;
  if (status == 404 && c->session[0]) {
    /* the upstream forgot our session: the next start makes a new one */
    c->started = false;
    c->session[0] = 0;
    wb_fail(err, errlen, 0, "the upstream ended its MCP session");
  } else if (status < 200 || status >= 300) {
    wb_fail(err, errlen, 0, "%s answered HTTP %ld", c->url, status);
  } else if (id >= 0) {
    cJSON *msgs = answer_messages(&a);
    bool done = false;
    cJSON *m;
    wb_fail(err, errlen, 0, "the upstream's answer holds no response to the request");
    cJSON_ArrayForEach(m, msgs) {
      if (!done) res = response_for(m, id, &done, err, errlen);
      if (done) break;
      cJSON *reply = from_upstream(c, m);
      if (reply) {
        http_answer b = {0};
        long st;
        char e2[64];
        http_post(c, reply, deadline, &b, &st, e2, sizeof e2);
        wb_buf_free(&b.body);
        cJSON_Delete(reply);
      }
    }
    cJSON_Delete(msgs);
  }
  wb_buf_free(&a.body);
  return res;
}

/* ---- requests ------------------------------------------------------------------------ */

static cJSON *send_message(upstream_conn *c, const char *method, cJSON *params, bool notification, uint64_t deadline,
                           char *err, size_t errlen) {
  cJSON *msg = cJSON_CreateObject();
  if (!msg) {
    cJSON_Delete(params);
    wb_fail(err, errlen, 0, "out of memory");
    return NULL;
  }
  long long id = notification ? -1 : ++c->next_id;
  cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
  if (!notification) cJSON_AddNumberToObject(msg, "id", (double)id);
  cJSON_AddStringToObject(msg, "method", method);
  if (params) cJSON_AddItemToObject(msg, "params", params);
  cJSON *res =
      c->url ? http_request(c, msg, id, deadline, err, errlen) : stdio_request(c, msg, id, deadline, err, errlen);
  if (!res && !notification && c->started && !c->url && c->pid > 0 && wb_monotonic_ns() >= deadline) {
    /* abandoned: tell the upstream (its late answer is skipped by id) */
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "requestId", (double)id);
    cJSON_AddStringToObject(p, "reason", "timeout");
    cJSON *note = cJSON_CreateObject();
    cJSON_AddStringToObject(note, "jsonrpc", "2.0");
    cJSON_AddStringToObject(note, "method", "notifications/cancelled");
    cJSON_AddItemToObject(note, "params", p);
    write_line(c, note, wb_monotonic_ns() + 100000000ull);
    cJSON_Delete(note);
  }
  cJSON_Delete(msg);
  return res;
}

bool upstream_conn_start(upstream_conn *c, uint64_t deadline, char *err, size_t errlen) {
  if (c->started) return true;
  upstream_conn_stop(c);
  if (!c->url && !spawn_process(c, err, errlen)) return false;
  c->started = true; /* for the requests below */
  cJSON *params = cJSON_CreateObject();
  cJSON_AddStringToObject(params, "protocolVersion", UPSTREAM_CONN_PROTOCOL);
  cJSON_AddObjectToObject(params, "capabilities");
  cJSON *info = cJSON_AddObjectToObject(params, "clientInfo");
  cJSON_AddStringToObject(info, "name", MCP_SERVER_NAME);
  cJSON_AddStringToObject(info, "version", MCP_SERVER_VERSION);
  cJSON *res = send_message(c, "initialize", params, false, deadline, err, errlen);
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(res, "protocolVersion");
  if (!res || !cJSON_IsString(v) || strlen(v->valuestring) >= sizeof c->version) {
    if (res) wb_fail(err, errlen, 0, "the upstream's initialize result names no protocol version");
    cJSON_Delete(res);
    upstream_conn_stop(c);
    return false;
  }
  snprintf(c->version, sizeof c->version, "%s", v->valuestring);
  cJSON_Delete(res);
  char e2[256];
  send_message(c, "notifications/initialized", NULL, true, deadline, e2, sizeof e2);
  if (!c->started) return wb_fail(err, errlen, 0, "%s", e2);
  return true;
}

cJSON *upstream_conn_request(upstream_conn *c, const char *method, cJSON *params, uint64_t deadline, char *err,
                             size_t errlen) {
  if (!c->started) {
    cJSON_Delete(params);
    wb_fail(err, errlen, 0, "the upstream is not connected");
    return NULL;
  }
  return send_message(c, method, params, false, deadline, err, errlen);
}
