/* Sessions on disk and in memory.
 *
 * A session directory ($home/sessions/ID) holds:
 *   lock        flock()ed by whoever works on the session (any process);
 *               marks a call on an empty workspace (format.h)
 *   meta        language, times, TTL, environment, mounts (written once)
 *   HEAD        the committed state: generation, memory size, globals, which
 *               log and workspace are current. Two checksummed copies
 *               (format.c): a state exists once HEAD, or a seal in the log
 *               past HEAD's, names it, and never half.
 *   log-N       the memory: page log over the base snapshot (pagelog.h);
 *               each call's pages end with a seal of its state, and one
 *               flush of the log commits the call
 *   ws-N/       the workspace, the guest's /app
 *   pre-G/      during a call from generation G on a workspace that is not
 *               empty: a hard-link copy of it (the guest's writes copy up
 *               first), which replaces it if the call fails or never
 *               finished; an empty one is emptied again instead
 *   checkpoints/C/  a HEAD, log and workspace of their own
 * Opening a session repairs what an interrupted process left: a workspace
 * whose call never committed is put back, unreferenced files removed.
 *
 * A call: wb_session_begin() locks and repairs the session and hands out
 * what the call needs (workspace, environment, mounts, an instance: live
 * from an earlier call in this process, or loaded from disk, or from the
 * base snapshot for a first call); wb_session_end() commits (memory pages
 * written since, then HEAD) or rolls back, and unlocks. */
#ifndef WASMBOX_SESSION_SESSION_H
#define WASMBOX_SESSION_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "wasmbox.h"

typedef struct wb_store wb_store;
typedef struct wb_session wb_session;

wb_store *wb_store_open(const char *home, char *err, size_t errlen);
void wb_store_free(wb_store *st);

/* Session operations; they return WASMBOX_OK, WASMBOX_EUSAGE (no such
 * session, bad arguments) or WASMBOX_EINTERNAL, with a message in err. */
int wb_session_create(wb_store *st, const wasmbox_session_options *o, char id[WASMBOX_ID_MAX], char *err, size_t n);
int wb_session_fork(wb_store *st, const char *id, char new_id[WASMBOX_ID_MAX], char *err, size_t n);
int wb_session_checkpoint(wb_store *st, const char *id, char cid[WASMBOX_ID_MAX], char *err, size_t n);
int wb_session_restore(wb_store *st, const char *id, const char *cid, char *err, size_t n);
int wb_session_destroy(wb_store *st, const char *id, char *err, size_t n);
int wb_session_list(wb_store *st, wasmbox_session_info **out, size_t *count, char *err, size_t n);
int wb_session_info(wb_store *st, const char *id, wasmbox_session_info *out, char *err, size_t n);
int wb_session_owner(wb_store *st, const char *id, char owner[WASMBOX_OWNER_MAX], char *err, size_t n);
int wb_session_prune(wb_store *st, size_t *removed, char *err, size_t n);

/* For a process going idle: each idle live session gives back its copy of
 * the committed memory (the memory itself holds the same bytes, which the
 * next call copies back first). */
void wb_session_idle(wb_store *st);

/* What a call on a session works with. */
typedef struct {
  const wb_runtime *runtime;
  char workspace[4096];   /* host path of the current workspace */
  const char *const *env; /* the session's environment */
  size_t env_len;
  const wasmbox_mount *mounts; /* the session's read-only mounts */
  size_t mounts_len;
  uint32_t fd_base;            /* descriptor numbering for this call */
  wb_instance *instance;       /* started, or to be started from job_from */
  const wb_snapshot *job_from; /* when the instance is not started */
  bool job_fresh;              /* a first call: refresh the base copy */
} wb_session_call;

/* The workspace of session `id`, locked against calls and other changes
 * (api/session_files.c works on it): *ws is its directory fd, valid until
 * wb_session_unlock_workspace(). */
typedef struct wb_ws_lock wb_ws_lock;
int wb_session_lock_workspace(wb_store *st, const char *id, int *ws, wb_ws_lock **lk, char *err, size_t n);
void wb_session_unlock_workspace(wb_ws_lock *lk);

/* What a worker for session `id` needs to know before it is jailed: the
 * session's directory, its read-only mounts (host directories), and the
 * generation of its committed state (to tell afterwards whether a call
 * that never answered committed). No lock: a snapshot of a moment. */
typedef struct {
  char dir[4096];
  char *mounts[WASMBOX_MAX_MOUNTS];
  size_t nmounts;
  uint64_t gen;
} wb_session_place;
int wb_session_describe(wb_store *st, const char *id, wb_session_place *out, char *err, size_t n);
void wb_session_place_clear(wb_session_place *p);
/* Whether session `id` exists (now). */
bool wb_session_exists(wb_store *st, const char *id);
/* The generation of the committed state; false if unreadable. */
bool wb_session_generation(wb_store *st, const char *id, uint64_t *gen);

int wb_session_begin(wb_store *st, const char *id, wb_session **out, wb_session_call *call, char *err, size_t n);
/* keep: commit the call's state; else roll it back. *rolled_back says which
 * happened (a failed commit also rolls back). Unlocks and ends the call. */
int wb_session_end(wb_session *s, bool keep, bool *rolled_back, char *err, size_t n);

#endif
