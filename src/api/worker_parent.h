/* Jailed worker processes, the parent's side (worker_child.h is the
 * child's): guest code never runs in the process that holds the caller's
 * sockets and other sessions. Each call goes to a worker jailed for its
 * placement (stateless with its own scratch, a workspace, or a session);
 * workers stay for the next call of the same placement. A worker that
 * dies, hangs or speaks nonsense is killed and replaced, and the call
 * gets a result that says why (worker_protocol.h: what it cannot do). */
#ifndef WASMBOX_API_WORKER_PARENT_H
#define WASMBOX_API_WORKER_PARENT_H

#include <stdbool.h>

#include "api/library.h"
#include "api/resolve_request.h"
#include "api/guest_tools.h"
#include "api/worker_protocol.h"
#include "jail/jail.h"

/* Workers as `opts` says (NULL: the defaults): warm_workers started now,
 * one_shot, session_idle_release_s (checked by the caller). */
wb_workers *wb_workers_new(const char *home, const wasmbox_options *opts, char *err, size_t errlen);
void wb_workers_free(wb_workers *ws);

/* Run `req` as `rs` resolved it, in a worker of `wb->workers`; its guest's
 * tool requests are answered here by `tools`, and `jw` goes with it. */
int wb_workers_run(wasmbox *wb, const wasmbox_request *req, const wb_resolved *rs, wb_tools *tools,
                   const wb_journal_wire *jw, wasmbox_result **out, char *err, size_t errlen);

/* End the idle workers of sessions that no longer exist (destroyed, pruned). */
void wb_workers_forget_sessions(wb_workers *ws, wb_store *st);
/* End the idle worker that holds session `id` live (its state changed elsewhere). */
void wb_workers_forget_session(wb_workers *ws, const char *id);

/* How many workers wait, run a call, or start. */
void wb_workers_count(wb_workers *ws, size_t *idle, size_t *busy, size_t *starting);

/* The jail of a stateless worker on this machine. */
bool wb_workers_report(wb_workers *ws, wb_jail_report *out, char *err, size_t errlen);

#endif
