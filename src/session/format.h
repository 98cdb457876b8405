/* The files of one session directory (session.h lists them): HEAD, meta,
 * the names of logs and workspaces, the repair of what an interrupted
 * process left; and the small helpers the session files share. Reading a
 * file that is missing, cut or corrupt fails (false); it never yields half
 * a value. */
#ifndef WASMBOX_SESSION_FORMAT_H
#define WASMBOX_SESSION_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wasmbox.h"
#include "util/fail.h" /* wb_fail, which the session layer uses throughout */

#define WB_HEAD_MAGIC "WBHEAD\0\1"
#define WB_SESSION_ENV_MAX 256

typedef struct {
  char magic[8];
  uint64_t gen; /* commits so far; 0: never run (the base snapshot) */
  uint64_t log_no, log_len, records;
  uint64_t ws_no;
  uint32_t pages, globals_size;
  double last_used;
  char build_id[64];
} wb_head; /* followed by globals_size bytes */

typedef struct {
  char language[16];
  double created, ttl;
  char *env[WB_SESSION_ENV_MAX];
  size_t nenv;
  wasmbox_mount mounts[WASMBOX_MAX_MOUNTS];
  /* parallel: a named mount's name (the shared store's meta holds these,
   * and no host_dir); NULL for a host path (a cache's own meta) */
  char *mount_names[WASMBOX_MAX_MOUNTS];
  size_t nmounts;
  char owner[WASMBOX_OWNER_MAX]; /* "" for nobody's */
} wb_meta;

/* HEAD (and the globals after it, malloc'd into *globals), replaced
 * atomically and flushed. A call's commit instead seals its state in the
 * log (wb_head_seal: h->log_len becomes the end of the seal), flushes the
 * log, then writes HEAD without a flush (wb_head_write_sealed): a read
 * takes HEAD's state and then any the log's seals carry past it, so a
 * HEAD write that a crash lost loses nothing. */
bool wb_head_read(int dir, wb_head *h, uint8_t **globals);
bool wb_head_write(int dir, const wb_head *h, const uint8_t *globals);
bool wb_head_seal(int log, uint64_t from, uint64_t at, wb_head *h, const uint8_t *globals);
bool wb_head_write_sealed(int dir, const wb_head *h, const uint8_t *globals);
/* meta: one "key value" line each, strings hex-encoded; written once. */
bool wb_meta_read(int dir, wb_meta *m);
bool wb_meta_parse(char *text, wb_meta *m); /* the file's text (changed in place) */
bool wb_meta_write(int dir, const wb_meta *m);
bool wb_meta_format(const wb_meta *m, char **text, size_t *len); /* the file's text, malloc'd */
void wb_meta_clear(wb_meta *m);
/* meta's and HEAD's bytes as they are (the shared store keeps them so) */
bool wb_meta_write_text(int dir, const void *text, size_t len);
char *wb_meta_read_text(int dir, size_t *len);
char *wb_head_read_bytes(int dir, size_t *len);
/* "KIND-NO": log-3, ws-2, pre-7 */
void wb_state_name(char *out, size_t n, const char *kind, uint64_t no);
/* Put back what an interrupted process left (see session.h). Lock held. */
bool wb_session_repair(int dir, const wb_head *h);
/* A call from state h on an empty workspace marks the session's lock file
 * (lockfd) instead of making pre-G (a directory made and removed per call);
 * repair empties the workspace of a marked call from the committed state
 * that never ended. Unmark when the call ends. */
bool wb_call_mark(int lockfd, const wb_head *h);
void wb_call_unmark(int lockfd);

/* Helpers. */
bool wb_id_valid(const char *id);
bool wb_owner_valid(const char *owner); /* printable ASCII, below WASMBOX_OWNER_MAX */
/* prefix + 24 random hex digits (ids, and names of temporary entries) */
void wb_random_name(char *out, size_t n, const char *prefix);
void wb_new_id(char prefix, char id[WASMBOX_ID_MAX]);
bool wb_copy_range(int from, int to, uint64_t len);
/* name in dir: replaced whole (temp file, fsync, rename) with a then b */
bool wb_write_atomic(int dir, const char *name, const void *a, size_t alen, const void *b, size_t blen);
/* The same without flushing: other processes see the old content or the
 * new, never a mix; after a crash of the machine the file may be old,
 * new, empty or damaged. For what is only a hint that readers check. */
bool wb_write_replace(int dir, const char *name, const void *a, size_t alen);
/* hex: n bytes as 2n lowercase digits and a NUL; back from len digits
 * (either case) into len / 2 bytes, false for anything else */
void wb_hex(char *out, const void *data, size_t n);
bool wb_unhex(const char *s, size_t len, void *out);
/* a file of less than 16 MiB, malloc'd and NUL-terminated; NULL if not */
char *wb_read_small(int dir, const char *name, size_t *len);

#endif
