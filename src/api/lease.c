/* Leases of sessions in a shared store (lease.h). */
#include "api/lease.h"

#include <stdio.h>

#include "api/worker_parent.h"

int wb_session_lease(wasmbox *wb, const char *id, wb_lease **out, char *err, size_t errlen) {
  *out = NULL;
  if (!wb->remote) return WASMBOX_OK;
  bool reloaded = false;
  int rc = wb_remote_acquire(wb->remote, id, out, &reloaded, err, errlen);
  if (reloaded && wb->workers) wb_workers_forget_session(wb->workers, id);
  return rc;
}

int wb_session_unlease(wasmbox *wb, wb_lease *l, bool publish, char *err, size_t errlen) {
  if (!l) return WASMBOX_OK;
  char id[WASMBOX_ID_MAX];
  snprintf(id, sizeof id, "%s", wb_lease_id(l));
  int rc = wb_remote_release(l, publish, err, errlen);
  if (rc && wb->workers) wb_workers_forget_session(wb->workers, id);
  return rc;
}
