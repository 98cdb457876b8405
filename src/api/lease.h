/* A session operation's lease (session/remote.h), when sessions are in a
 * shared store: taken before the operation, released after it (publish:
 * write what changed). Without a shared store both do nothing. A reload
 * makes this process's live copies of the session (a worker's instance)
 * stale: they are dropped. */
#ifndef WASMBOX_API_LEASE_H
#define WASMBOX_API_LEASE_H

#include "api/library.h"

int wb_session_lease(wasmbox *wb, const char *id, wb_lease **out, char *err, size_t errlen);
int wb_session_unlease(wasmbox *wb, wb_lease *l, bool publish, char *err, size_t errlen);

#endif
