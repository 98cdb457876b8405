/* Paused runs and ids ended for good, as rows of the store (remote.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/remote_internal.h"
#include "util/os.h"

/* ---- ids ended for good ----------------------------------------------------------------- */

int wb_remote_ended_add(wb_remote *r, const char *id, double keep_s, char *err, size_t n) {
  char now[32], old[32];
  snprintf(now, sizeof now, "%.6f", wb_wall_s());
  snprintf(old, sizeof old, "%.6f", wb_wall_s() - keep_s);
  wb_pg_conn *c = wb_pg_take(r->pg, err, n);
  wb_pg_arg a[] = {TEXT(id), TEXT(now)}, b[] = {TEXT(old)};
  bool ok = c && wb_pg_ok(c, "DELETE FROM wasmbox_ended WHERE at < $1::float8", 1, b, err, n) &&
            wb_pg_ok(c, "INSERT INTO wasmbox_ended VALUES ($1, $2::float8) ON CONFLICT DO NOTHING", 2, a, err, n);
  wb_pg_give(r->pg, c);
  return ok ? WASMBOX_OK : WASMBOX_EINTERNAL;
}

/* Asked for every request of an MCP session with a signed id, stateless
 * calls too: it may not make them wait on a store that stopped answering
 * (wb_pg_take_quick), and "cannot tell" lets the request go on. */
int wb_remote_ended_has(wb_remote *r, const char *id, double keep_s, char *err, size_t n) {
  char old[32];
  snprintf(old, sizeof old, "%.6f", wb_wall_s() - keep_s);
  wb_pg_conn *c = wb_pg_take_quick(r->pg, WB_QUICK_WAIT_S, err, n);
  wb_pg_arg a[] = {TEXT(id), TEXT(old)};
  wb_pg_res *res =
      c ? wb_pg_exec(c, "SELECT 1 FROM wasmbox_ended WHERE id = $1 AND at >= $2::float8", 2, a, err, n) : NULL;
  int has = res ? wb_pg_rows(res) > 0 : -1;
  wb_pg_clear(res);
  wb_pg_give(r->pg, c);
  return has;
}

/* ---- paused runs (api/paused.h) ---------------------------------------------------- */

int wb_remote_paused_put(wb_remote *r, const char *token, const char *owner, const char *scope, double created,
                         const void *data, size_t len, char *err, size_t n) {
  char at[32];
  snprintf(at, sizeof at, "%.6f", created);
  wb_pg_conn *c = wb_pg_take(r->pg, err, n);
  wb_pg_arg a[] = {TEXT(token), TEXT(owner), TEXT(scope), TEXT(at), BYTES(data, len)};
  bool ok = c && wb_pg_ok(c, "INSERT INTO wasmbox_paused VALUES ($1, $2, $3, $4::float8, $5)", 5, a, err, n);
  wb_pg_give(r->pg, c);
  return ok ? WASMBOX_OK : WASMBOX_EINTERNAL;
}

int wb_remote_paused_take(wb_remote *r, const char *token, const char *owner, const char *scope, uint8_t **data,
                          size_t *len, char *err, size_t n) {
  *data = NULL;
  *len = 0;
  wb_pg_conn *c = wb_pg_take(r->pg, err, n);
  /* the DELETE is the claim, and only of this caller's run (owner NULL:
     anyone's; scope NULL: any) */
  wb_pg_arg a[] = {TEXT(token), owner ? TEXT(owner) : (wb_pg_arg){0}, scope ? TEXT(scope) : (wb_pg_arg){0}};
  wb_pg_res *res = c ? wb_pg_exec(c,
                                  "DELETE FROM wasmbox_paused WHERE token = $1 AND ($2::text IS NULL OR owner = $2) "
                                  "AND ($2::text IS NULL OR $3::text IS NULL OR scope = $3) RETURNING data",
                                  3, a, err, n)
                     : NULL;
  int code = !res                   ? WASMBOX_EINTERNAL
             : wb_pg_rows(res) == 1 ? WASMBOX_OK
                                    : wb_fail(err, n, WASMBOX_EUSAGE, "no paused run has this resume token");
  if (!code) {
    size_t k = 0;
    const uint8_t *b = wb_pg_bytes(res, 0, 0, &k);
    if ((*data = malloc(k + 1))) memcpy(*data, b, k), *len = k;
    else code = wb_fail(err, n, WASMBOX_EINTERNAL, "out of memory");
  }
  wb_pg_clear(res);
  wb_pg_give(r->pg, c);
  return code;
}
