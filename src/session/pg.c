/* PostgreSQL through libpq (see pg.h). */
#include "session/pg.h"

#include <endian.h>
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/dynlib.h"
#include "util/os.h"

static struct {
  __typeof__(PQconnectStartParams) *connect_start_params;
  __typeof__(PQconnectPoll) *connect_poll;
  __typeof__(PQconninfoParse) *conninfo_parse;
  __typeof__(PQconninfoFree) *conninfo_free;
  __typeof__(PQstatus) *status;
  __typeof__(PQerrorMessage) *error_message;
  __typeof__(PQsocket) *socket;
  __typeof__(PQsetnonblocking) *set_nonblocking;
  __typeof__(PQfinish) *finish;
  __typeof__(PQsendQuery) *send_query;
  __typeof__(PQsendQueryParams) *send_query_params;
  __typeof__(PQflush) *flush;
  __typeof__(PQconsumeInput) *consume_input;
  __typeof__(PQisBusy) *is_busy;
  __typeof__(PQgetResult) *get_result;
  __typeof__(PQresultStatus) *result_status;
  __typeof__(PQresultErrorField) *result_error_field;
  __typeof__(PQresultErrorMessage) *result_error_message;
  __typeof__(PQclear) *clear;
  __typeof__(PQntuples) *ntuples;
  __typeof__(PQgetvalue) *getvalue;
  __typeof__(PQgetlength) *getlength;
  __typeof__(PQgetisnull) *getisnull;
  __typeof__(PQsetNoticeProcessor) *set_notice_processor;
} pq;

#define SYM(f, n) WB_DYNSYM(__typeof__(pq), f, n)
static const wb_dynsym pq_symbols[] = {
    SYM(connect_start_params, "PQconnectStartParams"),
    SYM(connect_poll, "PQconnectPoll"),
    SYM(conninfo_parse, "PQconninfoParse"),
    SYM(conninfo_free, "PQconninfoFree"),
    SYM(status, "PQstatus"),
    SYM(error_message, "PQerrorMessage"),
    SYM(socket, "PQsocket"),
    SYM(set_nonblocking, "PQsetnonblocking"),
    SYM(finish, "PQfinish"),
    SYM(send_query, "PQsendQuery"),
    SYM(send_query_params, "PQsendQueryParams"),
    SYM(flush, "PQflush"),
    SYM(consume_input, "PQconsumeInput"),
    SYM(is_busy, "PQisBusy"),
    SYM(get_result, "PQgetResult"),
    SYM(result_status, "PQresultStatus"),
    SYM(result_error_field, "PQresultErrorField"),
    SYM(result_error_message, "PQresultErrorMessage"),
    SYM(clear, "PQclear"),
    SYM(ntuples, "PQntuples"),
    SYM(getvalue, "PQgetvalue"),
    SYM(getlength, "PQgetlength"),
    SYM(getisnull, "PQgetisnull"),
    SYM(set_notice_processor, "PQsetNoticeProcessor"),
};
static wb_dynlib pq_lib = WB_DYNLIB("libpq.so.5", "libpq5", pq, pq_symbols, NULL);

#define POOL_MAX 64 /* idle connections kept */

struct wb_pg_conn {
  wb_pg *pool;
  PGconn *pg;
  bool broken;
  double wait_s; /* for each reply, while taken */
  char sqlstate[6];
};

struct wb_pg {
  char *url, *setup;
  char *options; /* libpq's `options`: the limits' -c settings, then the URL's own */
  double wait_s; /* for each reply: statement_timeout + grace */
  unsigned max_conns;
  pthread_mutex_t lock;
  bool set_up; /* setup ran */
  wb_pg_conn *idle[POOL_MAX];
  size_t nidle;
  unsigned in_use;     /* taken and not given back */
  uint64_t stalled_ns; /* when a reply last failed to come in time; 0: answering */
  uint64_t probed_ns;  /* the last quick take let through while stalled */
};

/* One line: libpq's messages end in newlines and may have several. */
static void one_line(char *err, size_t n, const char *what, const char *msg) {
  snprintf(err, n, "session store: %s%s%s", what, *what ? ": " : "", msg ? msg : "");
  for (char *p = err; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  for (size_t l = strlen(err); l && err[l - 1] == ' ';) err[--l] = 0;
}

static void quiet(void *arg, const char *message) { (void)arg, (void)message; }

/* The server-side settings of every connection: the limits, and keepalives
 * so that the server ends the lease of a client whose machine is gone. The
 * URL's own `options` come after ours (the server takes the last -c of a
 * name), so an operator may still override one. */
static char *options_for(const char *url, const wb_pg_limits *lim) {
  char *own = NULL, *user = NULL;
  PQconninfoOption *info = pq.conninfo_parse(url, NULL);
  for (PQconninfoOption *o = info; o && o->keyword; o++)
    if (!strcmp(o->keyword, "options") && o->val) user = o->val;
  if (asprintf(&own,
               "-c lock_timeout=%llu -c statement_timeout=%llu -c tcp_keepalives_idle=5 -c tcp_keepalives_interval=2 "
               "-c tcp_keepalives_count=3%s%s",
               (unsigned long long)(lim->lock_s * 1000), (unsigned long long)(lim->statement_s * 1000), user ? " " : "",
               user ? user : "") < 0)
    own = NULL;
  if (info) pq.conninfo_free(info);
  return own;
}

wb_pg *wb_pg_open(const char *url, const char *setup, const wb_pg_limits *lim, char *err, size_t n) {
  if (!wb_dynlib_load(&pq_lib, err, n)) return NULL;
  wb_pg *pg = calloc(1, sizeof *pg);
  if (!pg || !(pg->url = strdup(url)) || !(pg->setup = strdup(setup)) || !(pg->options = options_for(url, lim))) {
    if (pg) free(pg->url), free(pg->setup);
    free(pg);
    snprintf(err, n, "out of memory");
    return NULL;
  }
  pg->wait_s = lim->statement_s + WB_PG_GRACE_S;
  pg->max_conns = lim->max_conns ? lim->max_conns : 1;
  pthread_mutex_init(&pg->lock, NULL);
  return pg;
}

static void conn_close(wb_pg_conn *c) {
  if (!c) return;
  if (c->pg) pq.finish(c->pg);
  free(c);
}

void wb_pg_free(wb_pg *pg) {
  if (!pg) return;
  for (size_t i = 0; i < pg->nidle; i++) conn_close(pg->idle[i]);
  pthread_mutex_destroy(&pg->lock);
  free(pg->url);
  free(pg->setup);
  free(pg->options);
  free(pg);
}

/* Whether the database answered in time: a stalled pool turns quick takes
 * away (wb_pg_take_quick). */
static void answered(wb_pg *pg, bool yes) {
  pthread_mutex_lock(&pg->lock);
  if (!yes && !pg->stalled_ns) pg->stalled_ns = wb_monotonic_ns();
  if (yes) pg->stalled_ns = 0;
  pthread_mutex_unlock(&pg->lock);
}

/* Wait until fd is ready for `events` or the deadline passes: 1 ready, 0
 * timed out (an error on the socket counts as ready: libpq reports it). */
static int ready(int fd, short events, uint64_t deadline) {
  for (;;) {
    uint64_t now = wb_monotonic_ns();
    if (now >= deadline) return 0;
    struct pollfd p = {.fd = fd, .events = events};
    int r = poll(&p, 1, (int)((deadline - now + 999999) / 1000000));
    if (r > 0) return 1;
    if (r < 0 && errno != EINTR) return 1;
  }
}

static double seconds(uint64_t ns) { return (double)ns / 1e9; }

/* A new connection, made without blocking so that a database that accepts
 * TCP but never answers (a paused postmaster) cannot hold the caller past
 * the deadline. Its keepalives and limits are in pg->options. */
static wb_pg_conn *conn_new(wb_pg *pg, double wait_s, char *err, size_t n) {
  const char *keys[] = {"connect_timeout",
                        "keepalives_idle",
                        "keepalives_interval",
                        "keepalives_count",
                        "application_name",
                        "dbname",
                        "options",
                        NULL};
  const char *vals[] = {"5", "5", "2", "3", "wasmbox", pg->url, pg->options, NULL};
  wb_pg_conn *c = calloc(1, sizeof *c);
  if (!c) {
    snprintf(err, n, "out of memory");
    return NULL;
  }
  c->pool = pg;
  double limit = wait_s < WB_PG_CONNECT_S ? wait_s : WB_PG_CONNECT_S;
  uint64_t deadline = wb_monotonic_ns() + (uint64_t)(limit * 1e9);
  c->pg = pq.connect_start_params(keys, vals, 1);
  PostgresPollingStatusType st =
      c->pg && pq.status(c->pg) != CONNECTION_BAD ? PGRES_POLLING_WRITING : PGRES_POLLING_FAILED;
  while (st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED) {
    if (!ready(pq.socket(c->pg), st == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline)) {
      snprintf(err, n, "session store: cannot connect: no answer within %.3g s", limit);
      answered(pg, false);
      conn_close(c);
      return NULL;
    }
    st = pq.connect_poll(c->pg);
  }
  if (st == PGRES_POLLING_FAILED) {
    one_line(err, n, "cannot connect", c->pg ? pq.error_message(c->pg) : "out of memory");
    conn_close(c);
    return NULL;
  }
  pq.set_notice_processor(c->pg, quiet, NULL);
  pq.set_nonblocking(c->pg, 1); /* a large statement must not block on a full socket */
  return c;
}

/* A connection, counted against max_conns; its replies waited for wait_s. */
static wb_pg_conn *take(wb_pg *pg, double wait_s, char *err, size_t n) {
  pthread_mutex_lock(&pg->lock);
  unsigned busy = pg->in_use;
  bool room = busy < pg->max_conns;
  if (room) pg->in_use++;
  wb_pg_conn *c = room && pg->nidle ? pg->idle[--pg->nidle] : NULL;
  bool set_up = pg->set_up;
  pthread_mutex_unlock(&pg->lock);
  if (!room) {
    snprintf(err, n, "session store busy: %u connections in use (this server's most); try again shortly", busy);
    return NULL;
  }
  if (!c && (c = conn_new(pg, wait_s, err, n)) && !set_up) {
    c->wait_s = pg->wait_s; /* the schema, with the full wait (it may wait for another server's) */
    if (wb_pg_ok(c, pg->setup, -1, NULL, err, n)) {
      pthread_mutex_lock(&pg->lock);
      pg->set_up = true;
      pthread_mutex_unlock(&pg->lock);
    } else {
      conn_close(c);
      c = NULL;
    }
  }
  if (!c) {
    pthread_mutex_lock(&pg->lock);
    pg->in_use--;
    pthread_mutex_unlock(&pg->lock);
    return NULL;
  }
  c->wait_s = wait_s;
  return c;
}

wb_pg_conn *wb_pg_take(wb_pg *pg, char *err, size_t n) { return take(pg, pg->wait_s, err, n); }

wb_pg_conn *wb_pg_take_quick(wb_pg *pg, double wait_s, char *err, size_t n) {
  uint64_t now = wb_monotonic_ns();
  pthread_mutex_lock(&pg->lock);
  uint64_t since = pg->stalled_ns;
  bool skip = since && now - pg->probed_ns < (uint64_t)(WB_PG_PROBE_S * 1e9);
  if (since && !skip) pg->probed_ns = now;
  pthread_mutex_unlock(&pg->lock);
  if (skip) {
    snprintf(err, n, "session store: not answering (no reply in time for %.0f s)", seconds(now - since));
    return NULL;
  }
  return take(pg, wait_s < pg->wait_s ? wait_s : pg->wait_s, err, n);
}

void wb_pg_give(wb_pg *pg, wb_pg_conn *c) {
  if (!c) return;
  pthread_mutex_lock(&pg->lock);
  pg->in_use--;
  pthread_mutex_unlock(&pg->lock);
  if (c->broken || pq.status(c->pg) != CONNECTION_OK) {
    conn_close(c);
    return;
  }
  c->sqlstate[0] = 0;
  pthread_mutex_lock(&pg->lock);
  bool kept = pg->nidle < POOL_MAX;
  if (kept) pg->idle[pg->nidle++] = c;
  pthread_mutex_unlock(&pg->lock);
  if (!kept) conn_close(c);
}

static bool succeeded(const PGresult *r) {
  ExecStatusType s = pq.result_status(r);
  return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
}

/* Send the statement and collect its results by the deadline, as PQexec
 * would: the first error, else the last result. NULL with *late when the
 * deadline passed, or on a lost connection. */
static PGresult *exchange(wb_pg_conn *c, const char *sql, int nargs, const char *const *vals, const int *lens,
                          const int *fmts, bool *late) {
  uint64_t deadline = wb_monotonic_ns() + (uint64_t)(c->wait_s * 1e9);
  PGconn *pg = c->pg;
  *late = false;
  if (!(nargs < 0 ? pq.send_query(pg, sql) : pq.send_query_params(pg, sql, nargs, NULL, vals, lens, fmts, 1)))
    return NULL;
  int f;
  while ((f = pq.flush(pg)) > 0) {
    if (!ready(pq.socket(pg), POLLIN | POLLOUT, deadline)) return *late = true, NULL;
    if (!pq.consume_input(pg)) return NULL;
  }
  if (f < 0) return NULL;
  PGresult *keep = NULL, *r;
  for (;;) {
    while (pq.is_busy(pg)) {
      if (!ready(pq.socket(pg), POLLIN, deadline)) {
        pq.clear(keep);
        return *late = true, NULL;
      }
      if (!pq.consume_input(pg)) break; /* lost: PQgetResult reports it */
    }
    if (!(r = pq.get_result(pg))) break;
    if (keep && !succeeded(keep)) {
      pq.clear(r); /* after an error: its statements did not run */
      continue;
    }
    pq.clear(keep);
    keep = r;
    if (pq.status(pg) == CONNECTION_BAD) break;
  }
  return keep;
}

wb_pg_res *wb_pg_exec(wb_pg_conn *c, const char *sql, int nargs, const wb_pg_arg *args, char *err, size_t n) {
  const char *vals[16];
  int lens[16], fmts[16];
  if (nargs > 16) {
    snprintf(err, n, "session store: too many parameters");
    return NULL;
  }
  for (int i = 0; i < nargs; i++) {
    vals[i] = args[i].v;
    lens[i] = args[i].len < 0 ? 0 : args[i].len;
    fmts[i] = args[i].len >= 0;
  }
  /* nargs < 0: a script of several statements, no parameters, text results */
  bool late;
  PGresult *r = c->broken ? NULL : exchange(c, sql, nargs, vals, lens, fmts, &late);
  if (c->broken) late = false;
  answered(c->pool, !late);
  if (r && succeeded(r)) return (wb_pg_res *)r;
  const char *code = r ? pq.result_error_field(r, PG_DIAG_SQLSTATE) : NULL;
  snprintf(c->sqlstate, sizeof c->sqlstate, "%s", code ? code : "");
  if (late) {
    snprintf(err, n, "session store: no answer from the database within %.3g s (it is not responding)", c->wait_s);
  } else if (c->broken && !r) {
    snprintf(err, n, "session store: the connection was given up after an earlier failure");
  } else {
    one_line(err, n, "", r ? pq.result_error_message(r) : pq.error_message(c->pg));
  }
  if (!r || pq.status(c->pg) != CONNECTION_OK || !code || !strncmp(code, "08", 2) || !strncmp(code, "57", 2))
    c->broken = true; /* gone, shut down, timed out, or left mid-exchange: never reused */
  if (r) pq.clear(r);
  return NULL;
}

bool wb_pg_ok(wb_pg_conn *c, const char *sql, int nargs, const wb_pg_arg *args, char *err, size_t n) {
  wb_pg_res *r = wb_pg_exec(c, sql, nargs, args, err, n);
  if (r) pq.clear((PGresult *)r);
  return r != NULL;
}

const char *wb_pg_sqlstate(wb_pg_conn *c) { return c->sqlstate; }
void wb_pg_clear(wb_pg_res *r) {
  if (r) pq.clear((PGresult *)r);
}
int wb_pg_rows(const wb_pg_res *r) { return pq.ntuples((const PGresult *)r); }
bool wb_pg_null(const wb_pg_res *r, int row, int col) { return pq.getisnull((const PGresult *)r, row, col); }

const uint8_t *wb_pg_bytes(const wb_pg_res *r, int row, int col, size_t *len) {
  *len = (size_t)pq.getlength((const PGresult *)r, row, col);
  return (const uint8_t *)pq.getvalue((const PGresult *)r, row, col);
}

int64_t wb_pg_i64(const wb_pg_res *r, int row, int col) {
  size_t len;
  const uint8_t *p = wb_pg_bytes(r, row, col, &len);
  uint64_t v = 0;
  if (len == 8) memcpy(&v, p, 8);
  return (int64_t)be64toh(v);
}

double wb_pg_f64(const wb_pg_res *r, int row, int col) {
  uint64_t bits = (uint64_t)wb_pg_i64(r, row, col);
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

void wb_pg_text(const wb_pg_res *r, int row, int col, char *out, size_t n) {
  size_t len;
  const uint8_t *p = wb_pg_bytes(r, row, col, &len);
  if (len >= n) len = n - 1;
  memcpy(out, p, len);
  out[len] = 0;
}
