/* Paused runs (wasmbox.h "Approval"), kept by the session store's backend
 * (session/backend.h: files in $home/paused, or rows shared by servers)
 * when a run pauses and taken by the resume that uses it, so a token works
 * once, from any process. A run holds its owner and scope
 * (wasmbox_request), the request as the library sent it (worker_protocol's
 * encoding), the tool settings that do not travel with it, the session's
 * generation, the WASI journal (wasi/journal.h), the tool journal and the
 * pending request (api/guest_tools.h). Reading trusts nothing: a run is whole and
 * well-formed or refused as damaged. */
#ifndef WASMBOX_API_PAUSED_H
#define WASMBOX_API_PAUSED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/guest_tools.h"
#include "api/worker_protocol.h"
#include "session/backend.h"
#include "wasmbox.h"

#define WB_TOKEN_LEN 32 /* hex characters */

typedef struct {
  wasmbox_request req; /* points into `bytes` and `storage` */
  wb_request_storage storage;
  const char *allowed[WASMBOX_MAX_ALLOWED_TOOLS];
  const char *owner, *scope; /* of the request that paused; "" for none */
  uint64_t session_gen;
  double created; /* seconds since the epoch */
  const char *wasi_journal;
  size_t wasi_journal_len;
  const char *tool_journal;
  size_t tool_journal_len;
  const char *pending;
  size_t pending_len;
  uint8_t *bytes; /* the file */
} wb_paused;

/* Keep a paused run in the store (session/backend.h), so that any server
 * sharing it resumes it: `sent` as it was run, `t` its tools (journal and
 * the request that waits), `wasi_journal` from its result; its mounts go in
 * by the store's names (wasmbox_options.named_mounts). token: NUL-ended. */
int wb_paused_save(wb_backend *b, const wasmbox_request *sent, uint64_t session_gen, const wb_tools *t,
                   const char *wasi_journal, size_t wasi_journal_len, char token[WB_TOKEN_LEN + 1], char *err,
                   size_t errlen);
/* Take a paused run (EUSAGE: no such token, used, expired or damaged).
 * With an owner (and a scope), another owner's (or scope's) run is "no such
 * token" and is left where it is; NULL owner: any, NULL scope: any scope. */
int wb_paused_take(wb_backend *b, const char *token, const char *owner, const char *scope, wb_paused *p, char *err,
                   size_t errlen);
void wb_paused_free(wb_paused *p);
#endif
