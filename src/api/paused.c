/* Paused runs on disk (see paused.h). */
#include "api/paused.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/library.h"
#include "util/os.h"

#define MAGIC "WBPAUSE2" /* 2: the owner and scope follow it */

static bool token_ok(const char *t) {
  if (!t || strlen(t) != WB_TOKEN_LEN) return false;
  for (; *t; t++)
    if (!((*t >= '0' && *t <= '9') || (*t >= 'a' && *t <= 'f'))) return false;
  return true;
}

static int new_token(char token[WB_TOKEN_LEN + 1], char *err, size_t errlen) {
  unsigned char r[WB_TOKEN_LEN / 2];
  if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
    snprintf(err, errlen, "no randomness for a resume token: %s", strerror(errno));
    return WASMBOX_EINTERNAL;
  }
  for (size_t i = 0; i < sizeof r; i++) snprintf(token + 2 * i, 3, "%02x", r[i]);
  return WASMBOX_OK;
}

/* The paused run's bytes (the file's, or the store's row). */
static void encode_run(wb_buf *b, const wasmbox_request *sent, uint64_t session_gen, const wb_tools *t,
                       const char *wasi_journal, size_t wasi_journal_len, double created) {
  wb_buf_append(b, MAGIC, 8);
  wb_put_str(b, sent->owner ? sent->owner : "");
  wb_put_str(b, sent->owner_scope ? sent->owner_scope : "");
  wb_encode_request(b, sent, NULL);
  wb_put_u32(b, (uint32_t)sent->allowed_tools_len);
  for (size_t i = 0; i < sent->allowed_tools_len; i++) wb_put_str(b, sent->allowed_tools[i]);
  wb_put_u32(b, t->max_calls);
  wb_put_u64(b, t->max_bytes);
  wb_put_u64(b, session_gen);
  wb_put_f64(b, created);
  wb_put_bytes(b, wasi_journal ? wasi_journal : "", wasi_journal ? wasi_journal_len : 0);
  wb_put_bytes(b, t->journal.data ? t->journal.data : "", t->journal.len);
  wb_put_bytes(b, t->paused, t->paused_len);
}

/* In a store several servers share, a run's mounts are named as the
 * session's are (rows are data): this server's directories become names on
 * the way in and names this server's directories on the way out (the local
 * backend's names are its directories). */
int wb_paused_save(wb_backend *b, const wasmbox_request *sent, uint64_t session_gen, const wb_tools *t,
                   const char *wasi_journal, size_t wasi_journal_len, char token[WB_TOKEN_LEN + 1], char *err,
                   size_t errlen) {
  wasmbox_request named = *sent;
  wasmbox_mount mounts[WASMBOX_MAX_MOUNTS];
  if (sent->mounts_len > WASMBOX_MAX_MOUNTS) return wb_usage(err, errlen, "too many mounts to keep");
  for (size_t i = 0; i < sent->mounts_len; i++) {
    const char *name = b->ops->mount_name(b, sent->mounts[i].host_dir);
    if (!name)
      return wb_usage(err, errlen, "its mount %s is not one of the named mounts the servers share",
                      sent->mounts[i].guest_path);
    mounts[i] = (wasmbox_mount){.host_dir = name, .guest_path = sent->mounts[i].guest_path};
  }
  named.mounts = mounts;
  named.workspace = NULL; /* the resuming call's own */
  int rc = new_token(token, err, errlen);
  if (rc) return rc;
  double created = wb_wall_s();
  wb_buf b2 = {0};
  encode_run(&b2, &named, session_gen, t, wasi_journal, wasi_journal_len, created);
  rc = b2.failed
           ? (snprintf(err, errlen, "out of memory"), WASMBOX_EINTERNAL)
           : b->ops->paused_put(b, token, named.owner ? named.owner : "", named.owner_scope ? named.owner_scope : "",
                                created, b2.data, b2.len, err, errlen);
  wb_buf_free(&b2);
  return rc;
}

static bool same_or_unchecked(const char *want, const char *have) { return !want || !strcmp(want, have); }

static const char none[] = "no paused run has this resume token (it was used, or never existed)";

/* The owner and scope at the head of p->bytes; false when the run is not
 * this caller's (owner NULL: anyone's). */
static bool owned(wb_paused *p, size_t len, wb_reader *r, const char *owner, const char *scope) {
  *r = (wb_reader){.p = p->bytes + 8, .len = len >= 8 ? len - 8 : 0};
  bool ok = len >= 8 && !memcmp(p->bytes, MAGIC, 8);
  p->owner = ok ? wb_get_str(r) : NULL;
  p->scope = ok ? wb_get_str(r) : NULL;
  return !owner || (p->owner && p->scope && !strcmp(owner, p->owner) && same_or_unchecked(scope, p->scope));
}

/* The rest of a claimed run; p->bytes is freed on failure. */
static int decode_run(wb_paused *p, wb_reader *r, char *err, size_t errlen) {
  wb_journal_wire nowire;
  bool ok = p->owner && p->scope && wb_decode_request(r, &p->req, &p->storage, &nowire);
  uint32_t n = ok ? wb_get_u32(r) : 0;
  if (n > WASMBOX_MAX_ALLOWED_TOOLS) ok = false;
  for (uint32_t i = 0; ok && i < n; i++) ok = (p->allowed[i] = wb_get_str(r)) != NULL;
  p->req.allowed_tools = p->allowed;
  p->req.allowed_tools_len = n;
  p->req.max_tool_calls = wb_get_u32(r);
  p->req.max_tool_bytes = wb_get_u64(r);
  p->req.owner = p->owner && p->owner[0] ? p->owner : NULL;
  p->req.owner_scope = p->scope && p->scope[0] ? p->scope : NULL;
  p->session_gen = wb_get_u64(r);
  p->created = wb_get_f64(r);
  p->wasi_journal = wb_get_bytes(r, &p->wasi_journal_len);
  p->tool_journal = wb_get_bytes(r, &p->tool_journal_len);
  p->pending = wb_get_bytes(r, &p->pending_len);
  if (!ok || r->bad || r->at != r->len || !p->pending || !p->wasi_journal || !p->tool_journal) {
    wb_paused_free(p);
    return wb_usage(err, errlen, "the paused run of this token is damaged");
  }
  if (!(wb_wall_s() - p->created <= WASMBOX_RESUME_TTL_S)) {
    wb_paused_free(p);
    return wb_usage(err, errlen, "this resume token has expired (a paused run is kept %g hours)",
                    WASMBOX_RESUME_TTL_S / 3600);
  }
  return WASMBOX_OK;
}

typedef struct {
  const char *owner, *scope;
} asker;

/* paused_files' question: whether the bytes are the asker's run */
static bool mine(const uint8_t *data, size_t len, void *ctx) {
  const asker *a = ctx;
  wb_paused p = {.bytes = (uint8_t *)data};
  wb_reader r;
  return owned(&p, len, &r, a->owner, a->scope);
}

int wb_paused_take(wb_backend *b, const char *token, const char *owner, const char *scope, wb_paused *p, char *err,
                   size_t errlen) {
  memset(p, 0, sizeof *p);
  if (!token_ok(token)) return wb_usage(err, errlen, "a resume token is %d hexadecimal characters", WB_TOKEN_LEN);
  size_t len = 0;
  /* another's run is, to this caller, none at all: the backend claims it
     (one resume wins) only when it is this caller's */
  asker a = {.owner = owner, .scope = scope};
  int rc = b->ops->paused_take(b, token, owner, scope, mine, &a, &p->bytes, &len, err, errlen);
  if (rc) return rc == WASMBOX_EUSAGE ? wb_usage(err, errlen, "%s", none) : rc;
  wb_reader r;
  if (!owned(p, len, &r, owner, scope)) {
    wb_paused_free(p);
    return wb_usage(err, errlen, "the paused run of this token is damaged");
  }
  rc = decode_run(p, &r, err, errlen);
  /* its mounts' names, as this server has them */
  wasmbox_mount *m = (wasmbox_mount *)p->req.mounts;
  for (size_t i = 0; !rc && i < p->req.mounts_len; i++) {
    const char *dir = b->ops->mount_dir(b, m[i].host_dir);
    if (!dir) {
      rc = wb_usage(err, errlen, "the paused run mounts '%.64s', which this server does not have", m[i].host_dir);
      wb_paused_free(p);
    } else {
      m[i].host_dir = dir;
    }
  }
  return rc;
}

void wb_paused_free(wb_paused *p) {
  wb_request_storage_free(&p->storage);
  free(p->bytes);
  memset(p, 0, sizeof *p);
}
