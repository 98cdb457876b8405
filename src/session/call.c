/* A call on a session: begin (lock, repair, an instance live or loaded,
 * the workspace saved for a rollback) and end (commit or roll back). See
 * session.h. */
#include "session/store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "session/dirty.h"
#include "session/pagelog.h"
#include "session/tree.h"
#include "util/os.h"
#include "wasm_rt/wasm_rt_ext.h"

struct wb_session {
  wb_store *st;
  char id[WASMBOX_ID_MAX];
  int dir, lockfd;
  wb_head head;
  uint8_t *globals;
  wb_meta meta;
  const wb_runtime *rt;
  wb_live *live;
  bool saved_workspace; /* pre-G is complete: a rollback may use it */
  bool marked;          /* the workspace was empty: the lock file says so (format.h) */
};

/* ---- a call ---------------------------------------------------------------------------- */

static void session_free(wb_session *s) {
  if (!s) return;
  if (s->lockfd >= 0) close(s->lockfd); /* releases the flock */
  if (s->dir >= 0) close(s->dir);
  wb_meta_clear(&s->meta);
  free(s->globals);
  free(s);
}

/* A live slot for this call: the session's own if it holds the current
 * state, else a free one, else the least recently used idle one. Store
 * lock held. */
static wb_live *live_slot(wb_store *st, const char *id, uint64_t gen, bool *reuse) {
  wb_live *free_slot = NULL, *lru = NULL;
  *reuse = false;
  for (size_t i = 0; i < WB_LIVE_MAX; i++) {
    wb_live *l = &st->live[i];
    if (l->busy) continue;
    if (!strcmp(l->id, id)) {
      if (l->gen == gen && l->instance) {
        *reuse = true;
        return l;
      }
      wb_live_drop(l);
    }
    if (!l->id[0]) {
      if (!free_slot) free_slot = l;
    } else if (!lru || l->used < lru->used) {
      lru = l;
    }
  }
  wb_live *pick = free_slot ? free_slot : lru;
  if (pick && pick->id[0]) wb_live_drop(pick);
  return pick;
}

/* Rebuild the committed memory from disk: an overlay on the base
 * snapshot (wasm_rt_ext.h) with the page log applied to it, so that only
 * the pages the log holds take memory. */
static bool load_memory(wb_session *s, const wb_snapshot *base, wb_snapshot *out, char *err, size_t n) {
  wb_memory_image img;
  bool ok = wb_overlay_new(&img, &base->memory, s->head.pages);
  char log[64];
  wb_state_name(log, sizeof log, "log", s->head.log_no);
  int lf = ok ? openat(s->dir, log, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
  uint64_t records = 0;
  ok = ok && lf >= 0 &&
       wb_pagelog_apply(lf, s->head.log_len, (uint8_t *)img.view, (uint64_t)s->head.pages * WB_WASM_PAGE, img.changed,
                        &records, err, n);
  if (lf >= 0) close(lf);
  if (!ok) {
    if (!err[0]) snprintf(err, n, "cannot load session %s: %s", s->id, strerror(errno));
    wb_overlay_free(&img);
    return false;
  }
  *out = (wb_snapshot){.runtime = s->rt, .memory = img, .globals = s->globals};
  s->globals = NULL; /* now the snapshot's */
  return true;
}

/* End a call that changed nothing: unlock, give the live slot back. */
static void release(wb_session *s) {
  wb_live *l = s->live;
  if (l) {
    pthread_mutex_lock(&s->st->lock);
    if (!l->instance) wb_live_drop(l);
    l->busy = false;
    pthread_mutex_unlock(&s->st->lock);
  }
  session_free(s);
}

int wb_session_begin(wb_store *st, const char *id, wb_session **out, wb_session_call *call, char *err, size_t n) {
  *out = NULL;
  memset(call, 0, sizeof *call);
  err[0] = 0;
  wb_session *s = calloc(1, sizeof *s);
  if (!s) return wb_fail(err, n, WASMBOX_EINTERNAL, "out of memory");
  s->st = st;
  s->lockfd = -1;
  int code;
  s->dir = wb_open_locked(st, id, &s->lockfd, true, err, n, &code);
  if (s->dir < 0) {
    session_free(s);
    return code;
  }
  snprintf(s->id, sizeof s->id, "%s", id);
  if (!wb_head_read(s->dir, &s->head, &s->globals) || !wb_meta_read(s->dir, &s->meta)) {
    session_free(s);
    return wb_fail(err, n, WASMBOX_EINTERNAL, "session %s is damaged (HEAD or meta unreadable)", id);
  }
  s->rt = wb_runtime_find(s->meta.language);
  if (!s->rt) {
    session_free(s);
    return wb_fail(err, n, WASMBOX_EINTERNAL, "session %s is of unknown language", id);
  }
  if (!s->rt->prepare(err, n)) {
    session_free(s);
    return WASMBOX_EINTERNAL;
  }
  const wb_runtime *rt = s->rt; /* outlives s in the messages below */
  if (s->head.gen && strcmp(s->head.build_id, rt->build_id) != 0) {
    session_free(s);
    return wb_fail(err, n, WASMBOX_EUSAGE,
                   "session %s was saved by another build of the %s runtime; its memory cannot be used here", id,
                   rt->language);
  }
  const wb_snapshot *base = rt->base_snapshot();
  if (!base) {
    session_free(s);
    return wb_fail(err, n, WASMBOX_EINTERNAL, "this build has no %s snapshot to start sessions from", rt->language);
  }
  if (!wb_session_repair(s->dir, &s->head)) {
    session_free(s);
    return wb_fail(err, n, WASMBOX_EINTERNAL, "cannot repair session %s: %s", id, strerror(errno));
  }

  pthread_mutex_lock(&st->lock);
  bool reuse;
  wb_live *l = live_slot(st, id, s->head.gen, &reuse);
  if (l) {
    l->busy = true;
    l->used = ++st->tick;
  }
  pthread_mutex_unlock(&st->lock);
  if (!l) {
    session_free(s);
    return wb_fail(err, n, WASMBOX_EINTERNAL, "too many sessions are running in this process");
  }
  s->live = l;
  if (reuse && l->image_dropped) { /* idle since its last call: the memory is the committed image */
    wb_overlay_refill(&l->image.memory, wb_instance_memory(l->instance)->data);
    l->image_dropped = false;
  }
  if (!reuse) {
    snprintf(l->id, sizeof l->id, "%s", id);
    l->gen = s->head.gen;
    l->image.memory.fd = -1;
    l->instance = wb_instance_new(s->rt, err, n);
    if (!l->instance || (s->head.gen && !load_memory(s, base, &l->image, err, n))) {
      wb_instance_free(l->instance);
      l->instance = NULL;
      release(s);
      return WASMBOX_EINTERNAL;
    }
    call->job_from = s->head.gen ? &l->image : base;
  }
  /* a session that never ran is a fresh copy of the base snapshot */
  call->job_fresh = s->head.gen == 0;

  /* the workspace as it is now, for a rollback: a link copy, or for an
   * empty one (most calls) only a mark */
  char ws[64], pre[64], done[80];
  wb_state_name(ws, sizeof ws, "ws", s->head.ws_no);
  wb_state_name(pre, sizeof pre, "pre", s->head.gen);
  snprintf(done, sizeof done, "%s.done", pre);
  int wsfd = openat(s->dir, ws, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  int dfd = -1;
  s->marked = wsfd >= 0 && wb_dir_fd_is_empty(wsfd);
  bool ok = s->marked ? wb_call_mark(s->lockfd, &s->head)
                      : wsfd >= 0 && wb_tree_link(wsfd, s->dir, pre) &&
                            (dfd = openat(s->dir, done, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) >= 0;
  int e = errno;
  if (wsfd >= 0) close(wsfd);
  if (dfd >= 0) close(dfd);
  if (!ok) {
    if (s->marked) wb_call_unmark(s->lockfd);
    s->marked = false;
    wb_tree_remove(s->dir, pre);
    release(s);
    return wb_fail(err, n, WASMBOX_EINTERNAL, "cannot save the workspace of session %s: %s", id, strerror(e));
  }
  s->saved_workspace = !s->marked;
  call->runtime = s->rt;
  snprintf(call->workspace, sizeof call->workspace, "%s/sessions/%s/%s", st->home, id, ws);
  call->env = (const char *const *)s->meta.env;
  call->env_len = s->meta.nenv;
  call->mounts = s->meta.mounts;
  call->mounts_len = s->meta.nmounts;
  call->fd_base = (uint32_t)(s->head.gen % 256) * 128;
  call->instance = l->instance;
  *out = s;
  return WASMBOX_OK;
}

/* Pages of `mem` that differ from the image `ref` (or lie beyond it). */
static ssize_t differing_pages(const uint8_t *mem, size_t bytes, const wb_memory_image *ref, uint32_t *out,
                               size_t max) {
  uint8_t page[WB_HOST_PAGE];
  size_t ref_bytes = (size_t)ref->pages * WB_WASM_PAGE, m = 0;
  for (size_t i = 0; i < bytes / WB_HOST_PAGE && m < max; i++) {
    size_t at = i * WB_HOST_PAGE;
    bool same = at < ref_bytes && wb_image_read(ref, at, page, WB_HOST_PAGE) && !memcmp(page, mem + at, WB_HOST_PAGE);
    if (!same) out[m++] = (uint32_t)i;
  }
  return (ssize_t)m;
}

/* Pages of `mem` written since it was mapped from `ref`: pagemap, or
 * (without /proc) a comparison with the image. */
static ssize_t dirty_pages(const uint8_t *mem, size_t bytes, const wb_memory_image *ref, uint32_t *out, size_t max) {
  ssize_t k = wb_dirty_pages(mem, bytes, out, max);
  return k >= 0 ? k : differing_pages(mem, bytes, ref, out, max);
}

/* Save the call's memory: pages written since the committed image go into
 * the log, then a seal of the new state (HEAD's content), and one flush of
 * the log commits it; the image (an overlay in memory) takes the same
 * pages; HEAD is then written without a flush (format.h). A compaction
 * starts a new log, which only a flushed HEAD can name. Until the commit
 * nothing committed has changed, and a failure cuts the log back. */
static bool commit(wb_session *s, char *err, size_t n) {
  wb_live *l = s->live;
  const wb_runtime *rt = s->rt;
  wasm_rt_memory_t *mem = wb_instance_memory(l->instance);
  size_t bytes = (size_t)mem->pages * WB_WASM_PAGE, npages = bytes / WB_HOST_PAGE;
  bool have_image = l->image.memory.under != NULL;
  const wb_memory_image *ref = have_image ? &l->image.memory : &rt->base_snapshot()->memory;
  uint8_t *globals = malloc(rt->globals_size() ? rt->globals_size() : 1);
  /* what the kernel saw written since the last save, counting from here
   * at once (one pass over the memory, not a second to rebase it); else
   * what pagemap or a comparison with the image says */
  uint32_t *dirty = NULL;
  ssize_t nd = wb_instance_take_written(l->instance, &dirty);
  bool taken = nd >= 0;
  if (nd < 0) {
    dirty = malloc((npages ? npages : 1) * sizeof *dirty);
    nd = dirty && globals ? dirty_pages(mem->data, bytes, ref, dirty, npages) : -1;
  }
  if (!globals) nd = -1;
  bool ok = nd >= 0;
  /* The log keeps every page each call changed, as its difference from the
   * committed memory (`ref`, read before the image below takes the new
   * pages). Once it holds more records than twice the memory's pages, the
   * new state goes to a new log of only the pages that differ from the base
   * snapshot, whole: a session's disk use, the copy a fork makes and the
   * time a load takes follow its memory, not its age. Amortised, a record
   * is written at most twice. */
  wb_head h = s->head;
  uint32_t *pages = dirty;
  size_t count = nd > 0 ? (size_t)nd : 0;
  uint32_t *differ = NULL;
  bool compact = false;
  if (ok && h.records + count > 2 * (uint64_t)npages && (differ = malloc(npages * sizeof *differ))) {
    ssize_t nf = differing_pages(mem->data, bytes, &rt->base_snapshot()->memory, differ, npages);
    if (nf >= 0) {
      compact = true;
      pages = differ;
      count = (size_t)nf;
      h.log_no++;
      h.log_len = h.records = 0;
    }
  }
  char log[64];
  wb_state_name(log, sizeof log, "log", h.log_no);
  int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | (compact ? O_CREAT | O_TRUNC : 0);
  int lf = ok ? openat(s->dir, log, flags, 0600) : -1;
  uint64_t from = h.log_len, end = from;
  ok = ok && lf >= 0 && wb_pagelog_append(lf, from, mem->data, pages, &count, compact ? NULL : ref, &end, err, n);
  free(differ);
  /* the image: the pages written (without a compaction `dirty` now holds
   * only those that changed; the first time, those that differ from the
   * base snapshot), over the base snapshot the first time */
  size_t written = compact ? (size_t)nd : count;
  wb_memory_image fresh = {.fd = -1};
  wb_memory_image *img = have_image ? &l->image.memory : &fresh;
  ok = ok && (have_image || wb_overlay_new(&fresh, &rt->base_snapshot()->memory, mem->pages)) &&
       wb_overlay_put(img, mem->pages, mem->data, dirty, written);
  bool sealed = false;
  if (ok) {
    wb_instance_save_globals(l->instance, globals);
    h.gen++;
    h.records += count;
    h.pages = mem->pages;
    h.globals_size = rt->globals_size();
    h.last_used = wb_wall_s();
    snprintf(h.build_id, sizeof h.build_id, "%s", rt->build_id);
    ok = sealed = wb_head_seal(lf, from, end, &h, globals);
  }
  /* zeros for the next commits to write into, flushed with this one;
   * without them the commit is as whole, only its successors slower */
  if (ok) (void)wb_pagelog_room(lf, from, h.log_len);
  /* the commit: the seal, durable. A new log only a flushed HEAD names. */
  ok = ok && fdatasync(lf) == 0;
  if (ok && compact) ok = fsync(s->dir) == 0 && wb_head_write(s->dir, &h, globals);
  /* a seal that failed to reach the disk may yet: cut it off, so that no
   * read takes a state this call reports as not saved */
  bool cut = !sealed || ok || compact || ftruncate(lf, (off_t)from) == 0;
  if (lf >= 0) close(lf);
  /* HEAD, unflushed: after a failure here reads still find the seal */
  if (ok && !compact) wb_head_write_sealed(s->dir, &h, globals);
  free(dirty);
  if (compact && ok) { /* the old log is no longer named (after a failure, the next repair drops the unnamed one) */
    wb_state_name(log, sizeof log, "log", s->head.log_no);
    unlinkat(s->dir, log, 0);
  }
  if (!ok) {
    if (!err[0])
      snprintf(err, n, "cannot save session %s: %s%s", s->id, strerror(errno),
               cut ? "" : " (and cannot cut its log back: its next load may hold this call)");
    if (!have_image) wb_overlay_free(&fresh);
    free(globals);
    /* the image may hold this call's pages: it no longer matches HEAD; and
     * the memory's writes were taken, so no reset can undo them: the next
     * call loads the state from disk */
    wb_snapshot_release(&l->image);
    wb_instance_free(l->instance);
    l->instance = NULL;
    return false;
  }
  if (s->marked) {
    wb_call_unmark(s->lockfd);
    s->marked = false;
  } else {
    char pre[64], done[80];
    wb_state_name(pre, sizeof pre, "pre", s->head.gen);
    snprintf(done, sizeof done, "%s.done", pre);
    unlinkat(s->dir, done, 0);
    wb_tree_remove(s->dir, pre);
    s->saved_workspace = false;
  }
  free(l->image.globals);
  l->image = (wb_snapshot){.runtime = rt, .memory = *img, .globals = globals};
  l->gen = h.gen;
  s->head = h;
  /* the memory is the new image: count the next call's writes from here
   * (taken writes already do) */
  char e2[256];
  if (!taken && !wb_instance_rebase(l->instance, &l->image, e2, sizeof e2)) {
    wb_instance_free(l->instance);
    l->instance = NULL;
  }
  return true;
}

static bool rollback(wb_session *s, char *err, size_t n) {
  bool ok = true;
  if (s->saved_workspace) {
    char ws[64], pre[64], done[80], trash[64];
    wb_state_name(ws, sizeof ws, "ws", s->head.ws_no);
    wb_state_name(pre, sizeof pre, "pre", s->head.gen);
    snprintf(done, sizeof done, "%s.done", pre);
    wb_random_name(trash, sizeof trash, "trash-");
    ok = renameat(s->dir, ws, s->dir, trash) == 0 && renameat(s->dir, pre, s->dir, ws) == 0 &&
         unlinkat(s->dir, done, 0) == 0;
    if (!ok) snprintf(err, n, "cannot roll back the workspace of session %s: %s", s->id, strerror(errno));
    wb_tree_remove(s->dir, trash);
  }
  if (s->marked) { /* the workspace was empty: empty it again (and cut the log back) */
    ok = wb_session_repair(s->dir, &s->head);
    if (!ok) snprintf(err, n, "cannot roll back the workspace of session %s: %s", s->id, strerror(errno));
    s->marked = false;
  }
  wb_live *l = s->live;
  if (l && l->instance && wb_instance_started(l->instance)) {
    /* back to the committed image; none (a failed save dropped it) means
     * the instance must go, and the next call loads the state from disk */
    const wb_snapshot *to = l->image.memory.under ? &l->image : s->head.gen == 0 ? s->rt->base_snapshot() : NULL;
    char e2[256];
    if (!to || !wb_instance_reset(l->instance, to, e2, sizeof e2)) {
      wb_instance_free(l->instance); /* cannot be trusted; the disk state is intact */
      l->instance = NULL;
    }
  }
  return ok;
}

int wb_session_end(wb_session *s, bool keep, bool *rolled_back, char *err, size_t n) {
  int code = WASMBOX_OK;
  wb_live *l = s->live;
  bool started = l && l->instance && wb_instance_started(l->instance);
  bool kept = keep && started && commit(s, err, n);
  if (keep && started && !kept) code = WASMBOX_EINTERNAL; /* say why, but leave no half state */
  if (!kept) {
    char e2[256] = "";
    if (!rollback(s, e2, sizeof e2) && code == WASMBOX_OK) code = wb_fail(err, n, WASMBOX_EINTERNAL, "%s", e2);
  }
  if (rolled_back) *rolled_back = !kept;
  release(s);
  return code;
}
