/* PostgreSQL through libpq, opened at run time (util/dynlib.h says why): a
 * pool of connections to one database, each used by one thread at a time.
 * A connection that failed is closed when given back; the next take
 * connects anew, so the pool outlives a database restart. Statements take
 * text parameters (len < 0) and binary ones (bytea, len >= 0) and return
 * results in binary format. Errors are one line in err, prefixed with
 * "session store".
 *
 * Every wait is bounded (wb_pg_limits): the server ends a lock wait and a
 * statement by its own timeouts, and the client gives up on a reply (or a
 * new connection) that does not come in time, so a database that stopped
 * answering (a paused process, a hung host) holds no thread for longer.
 * At most max_conns connections are in use at once: past that a take
 * fails at once, "session store busy: N connections in use". */
#ifndef WASMBOX_SESSION_PG_H
#define WASMBOX_SESSION_PG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct wb_pg wb_pg;
typedef struct wb_pg_conn wb_pg_conn;
typedef struct pg_result wb_pg_res; /* libpq's PGresult */

/* Each connection has lock_timeout = lock_s and statement_timeout =
 * statement_s (its libpq `options`, before any options the URL gives, which
 * may override them); the client waits for each reply at most statement_s +
 * WB_PG_GRACE_S, the time for the server's own timeout error to arrive, and
 * for a new connection at most WB_PG_CONNECT_S. */
typedef struct {
  double lock_s, statement_s;
  unsigned max_conns; /* in use at once */
} wb_pg_limits;
#define WB_PG_GRACE_S 1.0
#define WB_PG_CONNECT_S 5.0

/* Loads libpq and keeps the URL; it connects only when first needed.
 * setup: statements run once on the first connection (the schema). */
wb_pg *wb_pg_open(const char *url, const char *setup, const wb_pg_limits *lim, char *err, size_t n);
void wb_pg_free(wb_pg *pg);

wb_pg_conn *wb_pg_take(wb_pg *pg, char *err, size_t n);
/* A connection for a question whose answer the caller can do without: it
 * waits at most wait_s for connecting and for each reply, and while the
 * database is not answering (an exchange timed out and none succeeded
 * since) it fails at once, except for one probe every WB_PG_PROBE_S. */
#define WB_PG_PROBE_S 5.0
wb_pg_conn *wb_pg_take_quick(wb_pg *pg, double wait_s, char *err, size_t n);
void wb_pg_give(wb_pg *pg, wb_pg_conn *c);

typedef struct {
  const void *v; /* NULL: SQL NULL */
  int len;       /* < 0: text (NUL-terminated); else binary, len bytes */
} wb_pg_arg;

/* NULL on failure (err set; wb_pg_sqlstate() names the error). nargs < 0:
 * a script of several statements without parameters (results in text). */
wb_pg_res *wb_pg_exec(wb_pg_conn *c, const char *sql, int nargs, const wb_pg_arg *args, char *err, size_t n);
bool wb_pg_ok(wb_pg_conn *c, const char *sql, int nargs, const wb_pg_arg *args, char *err, size_t n);
const char *wb_pg_sqlstate(wb_pg_conn *c); /* of its last failure, "" if none */
void wb_pg_clear(wb_pg_res *r);
int wb_pg_rows(const wb_pg_res *r);
bool wb_pg_null(const wb_pg_res *r, int row, int col);
const uint8_t *wb_pg_bytes(const wb_pg_res *r, int row, int col, size_t *len);
int64_t wb_pg_i64(const wb_pg_res *r, int row, int col); /* int8 */
double wb_pg_f64(const wb_pg_res *r, int row, int col);  /* float8 */
/* text and bytea into out (NUL-terminated, cut to n) */
void wb_pg_text(const wb_pg_res *r, int row, int col, char *out, size_t n);

#endif
