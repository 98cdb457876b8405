/* What both backends share (backend.h): the directory store and the
 * transaction that brackets a change made in it. */
#include "session/backend.h"

#include <stdio.h>
#include <stdlib.h>

#include "session/format.h"

struct wb_txn {
  wb_backend *b;
  char id[WASMBOX_ID_MAX];
  wb_hold *hold;
  unsigned flags;
  wb_ws_lock *lk;
  int ws;
};

wb_store *wb_backend_dir(wb_backend *b, char *err, size_t n) { return b->hooks.dir(b->hooks.ctx, err, n); }

int wb_txn_begin(wb_backend *b, const char *id, unsigned flags, wb_txn **out, char *err, size_t n) {
  *out = NULL;
  wb_store *st = wb_backend_dir(b, err, n);
  if (!st) return WASMBOX_EINTERNAL;
  wb_txn *t = calloc(1, sizeof *t);
  if (!t) return wb_fail(err, n, WASMBOX_EINTERNAL, "out of memory");
  *t = (wb_txn){.b = b, .flags = flags, .ws = -1};
  snprintf(t->id, sizeof t->id, "%s", id ? id : "");
  int code = b->ops->begin(b, id, &t->hold, err, n);
  if (!code && (flags & WB_TXN_WORKSPACE)) code = wb_session_lock_workspace(st, id, &t->ws, &t->lk, err, n);
  if (code) {
    if (t->hold) b->ops->rollback(t->hold);
    free(t);
    return code;
  }
  *out = t;
  return WASMBOX_OK;
}

int wb_txn_workspace(const wb_txn *t) { return t->ws; }

void wb_txn_unlock_workspace(wb_txn *t) {
  wb_session_unlock_workspace(t->lk);
  t->lk = NULL;
  t->ws = -1;
}

int wb_txn_lock_workspace(wb_txn *t, char *err, size_t n) {
  if (t->lk) return WASMBOX_OK;
  wb_store *st = wb_backend_dir(t->b, err, n);
  return st ? wb_session_lock_workspace(st, t->id, &t->ws, &t->lk, err, n) : WASMBOX_EINTERNAL;
}

int wb_txn_commit(wb_txn *t, char *err, size_t n) {
  if (!t) return WASMBOX_OK;
  wb_txn_unlock_workspace(t);
  int code = WASMBOX_OK;
  if (t->hold && (t->flags & WB_TXN_WRITE)) code = t->b->ops->commit(t->hold, err, n);
  else if (t->hold) t->b->ops->rollback(t->hold);
  free(t);
  return code;
}

void wb_txn_rollback(wb_txn *t) {
  if (!t) return;
  wb_txn_unlock_workspace(t);
  if (t->hold) t->b->ops->rollback(t->hold);
  free(t);
}
