/* PostgreSQL through libpq (see pg.h). */
#include "session/pg.h"

#include <endian.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/dynlib.h"

static struct {
  __typeof__(PQconnectdbParams) *connectdb_params;
  __typeof__(PQstatus) *status;
  __typeof__(PQerrorMessage) *error_message;
  __typeof__(PQfinish) *finish;
  __typeof__(PQexec) *exec;
  __typeof__(PQexecParams) *exec_params;
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
    SYM(connectdb_params, "PQconnectdbParams"),
    SYM(status, "PQstatus"),
    SYM(error_message, "PQerrorMessage"),
    SYM(finish, "PQfinish"),
    SYM(exec, "PQexec"),
    SYM(exec_params, "PQexecParams"),
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
  PGconn *pg;
  bool broken;
  char sqlstate[6];
};

struct wb_pg {
  char *url, *setup;
  pthread_mutex_t lock;
  bool set_up; /* setup ran */
  wb_pg_conn *idle[POOL_MAX];
  size_t nidle;
};

/* One line: libpq's messages end in newlines and may have several. */
static void one_line(char *err, size_t n, const char *what, const char *msg) {
  snprintf(err, n, "session store: %s%s%s", what, *what ? ": " : "", msg ? msg : "");
  for (char *p = err; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  for (size_t l = strlen(err); l && err[l - 1] == ' ';) err[--l] = 0;
}

static void quiet(void *arg, const char *message) { (void)arg, (void)message; }

wb_pg *wb_pg_open(const char *url, const char *setup, char *err, size_t n) {
  if (!wb_dynlib_load(&pq_lib, err, n)) return NULL;
  wb_pg *pg = calloc(1, sizeof *pg);
  if (!pg || !(pg->url = strdup(url)) || !(pg->setup = strdup(setup))) {
    if (pg) free(pg->url);
    free(pg);
    snprintf(err, n, "out of memory");
    return NULL;
  }
  pthread_mutex_init(&pg->lock, NULL);
  return pg;
}

static void conn_close(wb_pg_conn *c) {
  if (!c) return;
  pq.finish(c->pg);
  free(c);
}

void wb_pg_free(wb_pg *pg) {
  if (!pg) return;
  for (size_t i = 0; i < pg->nidle; i++) conn_close(pg->idle[i]);
  pthread_mutex_destroy(&pg->lock);
  free(pg->url);
  free(pg->setup);
  free(pg);
}

/* A new connection: short connect timeout and keepalives (both the URL may
 * override), so that a database or a server that vanished is noticed in
 * seconds; the server side's keepalives end the lease of a server whose
 * machine is gone. */
static wb_pg_conn *conn_new(wb_pg *pg, char *err, size_t n) {
  const char *keys[] = {"connect_timeout",
                        "keepalives_idle",
                        "keepalives_interval",
                        "keepalives_count",
                        "application_name",
                        "dbname",
                        NULL};
  const char *vals[] = {"5", "5", "2", "3", "wasmbox", pg->url, NULL};
  wb_pg_conn *c = calloc(1, sizeof *c);
  if (!c) {
    snprintf(err, n, "out of memory");
    return NULL;
  }
  c->pg = pq.connectdb_params(keys, vals, 1);
  if (!c->pg || pq.status(c->pg) != CONNECTION_OK) {
    one_line(err, n, "cannot connect", c->pg ? pq.error_message(c->pg) : "out of memory");
    conn_close(c);
    return NULL;
  }
  pq.set_notice_processor(c->pg, quiet, NULL);
  if (!wb_pg_ok(c, "SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3", -1,
                NULL, err, n)) {
    conn_close(c);
    return NULL;
  }
  return c;
}

wb_pg_conn *wb_pg_take(wb_pg *pg, char *err, size_t n) {
  pthread_mutex_lock(&pg->lock);
  wb_pg_conn *c = pg->nidle ? pg->idle[--pg->nidle] : NULL;
  bool set_up = pg->set_up;
  pthread_mutex_unlock(&pg->lock);
  if (c) return c;
  if (!(c = conn_new(pg, err, n))) return NULL;
  if (!set_up) {
    if (!wb_pg_ok(c, pg->setup, -1, NULL, err, n)) {
      conn_close(c);
      return NULL;
    }
    pthread_mutex_lock(&pg->lock);
    pg->set_up = true;
    pthread_mutex_unlock(&pg->lock);
  }
  return c;
}

void wb_pg_give(wb_pg *pg, wb_pg_conn *c) {
  if (!c) return;
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
  PGresult *r = nargs < 0 ? pq.exec(c->pg, sql) : pq.exec_params(c->pg, sql, nargs, NULL, vals, lens, fmts, 1);
  ExecStatusType s = r ? pq.result_status(r) : PGRES_FATAL_ERROR;
  if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) return (wb_pg_res *)r;
  const char *code = r ? pq.result_error_field(r, PG_DIAG_SQLSTATE) : NULL;
  snprintf(c->sqlstate, sizeof c->sqlstate, "%s", code ? code : "");
  one_line(err, n, "", r ? pq.result_error_message(r) : pq.error_message(c->pg));
  if (!r || pq.status(c->pg) != CONNECTION_OK || !code || !strncmp(code, "08", 2) || !strncmp(code, "57", 2))
    c->broken = true; /* gone, or shut down: never reused */
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
