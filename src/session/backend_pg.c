/* The PostgreSQL backend (backend.h): the operations of remote.h, whose
 * lease is a transaction's hold, and paused runs and ended ids as rows. */
#include "session/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/format.h"

typedef struct {
  wb_backend b;
  wb_remote *r;
} pg;

struct wb_hold {
  wb_backend *b;
  wb_lease *lease;
};

static wb_remote *remote(wb_backend *b) { return ((pg *)b)->r; }

static int create(wb_backend *b, const wasmbox_session_options *o, char id[WASMBOX_ID_MAX], char *err, size_t n) {
  return wb_remote_create(remote(b), o, id, err, n);
}

static int fork_session(wb_backend *b, const char *id, char new_id[WASMBOX_ID_MAX], char *err, size_t n) {
  return wb_remote_fork(remote(b), id, new_id, err, n);
}

static int checkpoint(wb_backend *b, const char *id, char cid[WASMBOX_ID_MAX], char *err, size_t n) {
  return wb_remote_checkpoint(remote(b), id, cid, err, n);
}

static int restore(wb_backend *b, const char *id, const char *cid, char *err, size_t n) {
  int code = wb_remote_restore(remote(b), id, cid, err, n);
  if (!code) b->hooks.stale(b->hooks.ctx, id);
  return code;
}

static int destroy(wb_backend *b, const char *id, char *err, size_t n) {
  return wb_remote_destroy(remote(b), id, err, n);
}

static int list(wb_backend *b, wasmbox_session_info **out, size_t *count, char *err, size_t n) {
  return wb_remote_list(remote(b), out, count, err, n);
}

static int info(wb_backend *b, const char *id, wasmbox_session_info *out, char *err, size_t n) {
  return wb_remote_info(remote(b), id, out, err, n);
}

static int owner(wb_backend *b, const char *id, char who[WASMBOX_OWNER_MAX], char *err, size_t n) {
  return wb_remote_owner(remote(b), id, who, err, n);
}

/* paused files too: a state directory used locally before keeps none past
 * their time */
static int prune(wb_backend *b, size_t *removed, char *err, size_t n) {
  int code = wb_remote_prune(remote(b), removed, err, n);
  wb_paused_files_prune(b->home, WASMBOX_RESUME_TTL_S);
  return code;
}

static int begin(wb_backend *b, const char *id, wb_hold **out, char *err, size_t n) {
  *out = NULL;
  wb_hold *h = calloc(1, sizeof *h);
  if (!h) return wb_fail(err, n, WASMBOX_EINTERNAL, "out of memory");
  h->b = b;
  bool reloaded = false;
  int code = wb_remote_acquire(remote(b), id, &h->lease, &reloaded, err, n);
  if (reloaded) b->hooks.stale(b->hooks.ctx, id);
  if (code) {
    free(h);
    return code;
  }
  *out = h;
  return WASMBOX_OK;
}

static int end(wb_hold *h, bool publish, char *err, size_t n) {
  char id[WASMBOX_ID_MAX];
  snprintf(id, sizeof id, "%s", wb_lease_id(h->lease));
  int code = wb_remote_release(h->lease, publish, err, n);
  if (code) h->b->hooks.stale(h->b->hooks.ctx, id);
  free(h);
  return code;
}

static int commit(wb_hold *h, char *err, size_t n) { return end(h, true, err, n); }

static void rollback(wb_hold *h) {
  char e[256];
  end(h, false, e, sizeof e);
}

static int ended_add(wb_backend *b, const char *id, double keep_s, char *err, size_t n) {
  return wb_remote_ended_add(remote(b), id, keep_s, err, n);
}

static int ended_has(wb_backend *b, const char *id, double keep_s, char *err, size_t n) {
  return wb_remote_ended_has(remote(b), id, keep_s, err, n);
}

static int paused_put(wb_backend *b, const char *token, const char *who, const char *scope, double created,
                      const void *data, size_t len, char *err, size_t n) {
  return wb_remote_paused_put(remote(b), token, who, scope, created, data, len, err, n);
}

/* the store claims a run only when it is the caller's: mine() is not needed */
static int paused_take(wb_backend *b, const char *token, const char *who, const char *scope, wb_paused_mine mine,
                       void *ctx, uint8_t **data, size_t *len, char *err, size_t n) {
  (void)mine, (void)ctx;
  return wb_remote_paused_take(remote(b), token, who, scope, data, len, err, n);
}

static const char *mount_name(wb_backend *b, const char *host_dir) { return wb_remote_mount_name(remote(b), host_dir); }

static const char *mount_dir(wb_backend *b, const char *name) { return wb_remote_mount_dir(remote(b), name); }

static void stats(wb_backend *b, uint64_t *ops, uint64_t *failures, double *seconds) {
  wb_remote_stats(remote(b), ops, failures, seconds);
}

static void free_pg(wb_backend *b) {
  wb_remote_free(remote(b));
  free(b->home);
  free(b);
}

static const struct wb_store_ops pg_ops = {
    .name = "postgresql",
    .free = free_pg,
    .create = create,
    .fork = fork_session,
    .checkpoint = checkpoint,
    .restore = restore,
    .destroy = destroy,
    .list = list,
    .info = info,
    .owner = owner,
    .prune = prune,
    .begin = begin,
    .commit = commit,
    .rollback = rollback,
    .ended_add = ended_add,
    .ended_has = ended_has,
    .paused_put = paused_put,
    .paused_take = paused_take,
    .mount_name = mount_name,
    .mount_dir = mount_dir,
    .stats = stats,
};

wb_backend *wb_backend_pg(const char *url, const char *home, const wb_backend_hooks *hooks, const wb_remote_limits *lim,
                          const wasmbox_named_mount *named, size_t nnamed, char *err, size_t n) {
  pg *p = calloc(1, sizeof *p);
  if (p) p->b = (wb_backend){.ops = &pg_ops, .hooks = *hooks, .home = strdup(home)};
  if (!p || !p->b.home) {
    if (p) free(p->b.home);
    free(p);
    wb_fail(err, n, 0, "out of memory");
    return NULL;
  }
  wb_store *cache = hooks->dir(hooks->ctx, err, n);
  if (!cache || !(p->r = wb_remote_open(url, cache, lim, named, nnamed, err, n))) {
    free(p->b.home);
    free(p);
    return NULL;
  }
  return &p->b;
}
