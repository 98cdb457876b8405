/* The in-process runner: runs a resolved request in this process and
 * builds its result. A stateless call takes a fresh copy of the runtime's
 * base snapshot from a pool of idle instances (reset after the call, so a
 * call does no instantiation at all); a session call runs on the session's
 * state (session/session.h). The library uses it when it has no workers;
 * a worker uses it for every call it is sent. */
#ifndef WASMBOX_API_INPROCESS_H
#define WASMBOX_API_INPROCESS_H

#include "api/library.h"
#include "api/resolve_request.h"
#include "api/worker_protocol.h"
#include "engine/host_imports.h"

/* `scratch`: the one directory stateless calls use as /app (a worker's,
 * the one its jail allows); NULL: each pooled instance makes its own. */
wb_inprocess *wb_inprocess_new(const char *scratch, char *err, size_t errlen);
void wb_inprocess_free(wb_inprocess *ip);

/* Run `req` as `rs` resolved it; `wb->here` must be set. The guest's tool
 * requests go to `tools` (a worker's: to its parent; the library's:
 * api/guest_tools.h); `jw` says whether to record its journal and what to
 * replay (wasi/journal.h), and a result then holds the journal. */
int wb_inprocess_run(wasmbox *wb, const wasmbox_request *req, const wb_resolved *rs, const wb_tool_route *tools,
                     const wb_journal_wire *jw, wasmbox_result **out, char *err, size_t errlen);

/* Reset the instances calls have left since: a worker calls it once it has
 * answered, so that the next call finds them ready. */
void wb_inprocess_tidy(wb_inprocess *ip);

#endif
