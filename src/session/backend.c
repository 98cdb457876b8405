/* What both backends share (backend.h): the directory store and the
 * transaction that brackets a change made in it. */
#include "session/backend.h"

#include <stdio.h>
#include <stdlib.h>

#include "session/format.h"

wb_store *wb_backend_dir(wb_backend *b, char *err, size_t n) { return b->hooks.dir(b->hooks.ctx, err, n); }

int wb_txn_begin(wb_backend *b, const char *id, unsigned flags, wb_txn *t, char *err, size_t n) {
  *t = (wb_txn){.b = b, .flags = flags, .ws = -1};
  snprintf(t->id, sizeof t->id, "%s", id ? id : "");
  wb_store *st = wb_backend_dir(b, err, n);
  int code = st ? b->ops->begin(b, id, &t->hold, err, n) : WASMBOX_EINTERNAL;
  if (!code && (flags & WB_TXN_WORKSPACE)) code = wb_session_lock_workspace(st, id, &t->ws, &t->lk, err, n);
  if (code) {
    if (t->hold) b->ops->rollback(t->hold);
    *t = (wb_txn){0};
  }
  return code;
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
  if (!t || !t->b) return WASMBOX_OK;
  wb_txn_unlock_workspace(t);
  int code = WASMBOX_OK;
  if (t->hold && (t->flags & WB_TXN_WRITE)) code = t->b->ops->commit(t->hold, err, n);
  else if (t->hold) t->b->ops->rollback(t->hold);
  *t = (wb_txn){0};
  return code;
}

void wb_txn_rollback(wb_txn *t) {
  if (!t || !t->b) return;
  wb_txn_unlock_workspace(t);
  if (t->hold) t->b->ops->rollback(t->hold);
  *t = (wb_txn){0};
}
