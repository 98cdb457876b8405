/* The worker protocol: everything that crosses the process boundary
 * between the library (worker_parent.c) and a jailed worker
 * (worker_child.c), in one place.
 *
 * Frames: [u32 length][u8 type][payload] over a stream socket. The parent
 * sends SETUP once, then RUN (a request); the worker answers SETUP with
 * READY (its jail report) or ERROR, and each RUN with RESULT or ERROR.
 * A cancel goes apart, on a second socket (worker_child.h), so that the
 * thread that runs the calls reads the first alone: it is the number of
 * the call it stops (the parent's count of calls sent, the worker's of
 * calls taken), a u64 in host order.
 *
 * While a RUN runs, the worker may send TOOL (a guest's tool request,
 * numbered) and the parent answers each with TOOL_REPLY (the same number,
 * the reply); the parent checks and answers them itself (api/guest_tools.h), so
 * a worker can ask only what its guest could. Payloads are built with
 * wb_put_* and read with wb_get_*.
 *
 * Trust: the worker runs guest code, so the parent treats it as
 * compromised. Whatever it sends, the parent reads at most the `max` it
 * passes to wb_frame_read (the caller bounds it from the request), and a
 * decoder here either returns a whole, well-formed value (every count
 * bounded, every string NUL-terminated with no NUL inside, no bytes left
 * over, status and counts in range) or fails; it never reads past the
 * frame or allocates more than the frame's size. So a worker can make the
 * parent report any result the request's limits allow, or an error
 * (usage or internal, with its message), or, by sending nothing valid,
 * get itself killed and the call reported as crashed. It cannot make the
 * parent write anywhere, run anything, or hang past the call's deadline. */
#ifndef WASMBOX_API_WORKER_PROTOCOL_H
#define WASMBOX_API_WORKER_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/resolve_request.h"
#include "api/result.h"
#include "jail/jail.h"
#include "util/buf.h"
#include "wasmbox.h"

enum {
  WB_FRAME_SETUP = 1,
  WB_FRAME_READY,
  WB_FRAME_RUN,
  WB_FRAME_RESULT,
  WB_FRAME_ERROR,
  WB_FRAME_TOOL,
  WB_FRAME_TOOL_REPLY
};

#define WB_FRAME_MAX (3ull << 30)     /* two 1 GiB output streams and the rest */
#define WB_SMALL_FRAME_MAX (1u << 20) /* SETUP, READY */

/* ---- payloads ---- */
void wb_put_u8(wb_buf *b, uint8_t v);
void wb_put_u32(wb_buf *b, uint32_t v);
void wb_put_u64(wb_buf *b, uint64_t v);
void wb_put_f64(wb_buf *b, double v);
/* bytes with their length; NULL is kept apart from "" */
void wb_put_bytes(wb_buf *b, const void *p, size_t n);
void wb_put_str(wb_buf *b, const char *s);

/* A reader never trusts a length: every read is bounds-checked, and a
 * short or malformed payload marks the reader bad (reads then give 0/NULL). */
typedef struct {
  const uint8_t *p;
  size_t len, at;
  bool bad;
} wb_reader;

uint8_t wb_get_u8(wb_reader *r);
uint32_t wb_get_u32(wb_reader *r);
uint64_t wb_get_u64(wb_reader *r);
double wb_get_f64(wb_reader *r);
/* Points into the payload (NUL-terminated there), NULL for a NULL; *n its length. */
const char *wb_get_bytes(wb_reader *r, size_t *n);
/* As wb_get_bytes, and a string with a NUL inside is bad. */
const char *wb_get_str(wb_reader *r);

/* ---- frames ---- */
/* False on a closed or failed socket (errno says which: 0 at a clean end
 * of stream, ETIMEDOUT past `deadline_ns`, EMSGSIZE for a frame over
 * `max`, EPROTO for a cut or empty frame). deadline_ns: CLOCK_MONOTONIC,
 * 0 for none. A read frame's payload is malloc'd and NUL-terminated. */
bool wb_frame_write(int fd, uint8_t type, const wb_buf *payload, uint64_t deadline_ns);
bool wb_frame_read(int fd, uint8_t *type, uint8_t **payload, size_t *len, uint64_t max, uint64_t deadline_ns);

/* ---- messages ---- */
/* SETUP: where the worker's store is, its scratch directory, its jail.
 * Decoded paths point into the payload. */
typedef struct {
  const char *home, *scratch;
  bool session; /* a session's worker: it opens the store before its jail is locked */
  wb_jail_spec spec;
  uint64_t image_release_ns; /* wasmbox_options.session_idle_release_s */
  /* The one runtime (language) the worker prepares before its jail, or NULL
   * for every runtime. The runtime is part of the worker's placement, so
   * its calls are of that runtime (src/api/worker_parent.c). */
  const char *runtime;
} wb_worker_setup;
void wb_encode_setup(wb_buf *b, const wb_worker_setup *s);
bool wb_decode_setup(wb_reader *r, wb_worker_setup *s);

/* READY: the jail's layers as the worker set them up, and the directory it
 * made on the host for its /app when its setup asked for a tmpfs there but
 * it has no mount view (NULL: none; the parent removes it with the worker). */
void wb_encode_ready(wb_buf *b, const wb_jail_report *rep, const char *host_scratch);
bool wb_decode_ready(wb_reader *r, wb_jail_report *rep, const char **host_scratch);

/* ERROR: a wasmbox_run() return code and its message. Decoding maps any
 * code but WASMBOX_EUSAGE to WASMBOX_EINTERNAL. */
void wb_encode_error(wb_buf *b, int rc, const char *message);
bool wb_decode_error(wb_reader *r, int *rc, const char **message);

/* RUN: a request. A decoded request points into the payload and `storage`. */
typedef struct {
  const char **env;
  wasmbox_mount mounts[WASMBOX_MAX_MOUNTS];
} wb_request_storage;
/* A run that may pause records its journal; a resumed one replays one
 * (wasi/journal.h): both travel with the request. */
typedef struct {
  bool record;
  const char *replay; /* NULL: none */
  size_t replay_len;
} wb_journal_wire;
void wb_encode_request(wb_buf *b, const wasmbox_request *q, const wb_journal_wire *j);
bool wb_decode_request(wb_reader *r, wasmbox_request *q, wb_request_storage *s, wb_journal_wire *j);
void wb_request_storage_free(wb_request_storage *s);

/* TOOL and TOOL_REPLY: a number, flags (a reply's WB_TOOL_PAUSE: the run
 * stops for approval, and has no bytes) and bytes (pointing into the
 * payload). */
enum { WB_TOOL_PAUSE = 1 };
void wb_encode_tool(wb_buf *b, uint32_t seq, uint8_t flags, const void *bytes, size_t n);
bool wb_decode_tool(wb_reader *r, uint32_t *seq, uint8_t *flags, const char **bytes, size_t *n);

/* RESULT: a result, and the journal of a run that may pause (NULL: none;
 * api/result.h); decoding copies it out (NULL: malformed or out of memory). */
void wb_encode_result(wb_buf *b, const wasmbox_result *p, const char *journal, size_t journal_len,
                      bool journal_overflowed);
wb_result *wb_decode_result(wb_reader *r);

#endif
