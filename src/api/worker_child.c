/* A worker process (see worker_child.h). A second thread runs the call so
 * that this one can still hear a cancel, and hand it the parent's replies
 * to its tool requests; it is a guest thread (engine.h), so the guest code
 * runs on it, not on a third. It also answers the parent itself. */
#include "api/worker_child.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/inprocess.h"
#include "api/library.h"
#include "api/guest_tools.h"
#include "api/worker_protocol.h"
#include "engine/engine.h"
#include "engine/runtime.h"
#include "session/dirty.h"
#include "session/pagelog.h"
#include "session/session.h"
#include "util/os.h"
#include "wasm_rt/tracker.h"

const char wb_worker_fd_env[] = "WASMBOX_WORKER_FD";

typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  wasmbox *wb;
  const wasmbox_request *req; /* the call to run, or NULL */
  const wb_resolved *rs;
  const wb_journal_wire *journal;
  bool running;  /* a call is on, not yet answered */
  bool answered; /* and then: its answer reached the socket */
  /* the call's tool requests: the call thread sends one (TOOL, seq) and
   * waits; this thread reads the TOOL_REPLY and hands it over */
  int sock;
  uint64_t deadline_ns; /* the call's */
  uint32_t seq;
  char *reply; /* the reply to `seq`, once here */
  size_t reply_len;
  uint64_t image_release_ns; /* see wait_for_call */
  bool pause;                /* or: the parent stops the run for approval */
  bool stopped;              /* cancelled, or the parent is gone */
} runner;

/* The call's tool route: to the parent and back. Waits at most until the
 * call's deadline (and a little: the parent answers a tool that overran
 * with ToolTimeout itself); the guest's own timeout fires on return. */
static char *ask_parent(void *ctx, const uint8_t *request, size_t len, size_t *reply_len, bool *pause) {
  runner *r = ctx;
  pthread_mutex_lock(&r->mu);
  uint32_t seq = ++r->seq;
  free(r->reply);
  r->reply = NULL;
  bool stopped = r->stopped;
  pthread_mutex_unlock(&r->mu);
  if (stopped) return wb_tools_error(reply_len, "ToolError", "the call was cancelled");
  wb_buf b = {0};
  wb_encode_tool(&b, seq, 0, request, len);
  bool sent = !b.failed && wb_frame_write(r->sock, WB_FRAME_TOOL, &b, r->deadline_ns);
  wb_buf_free(&b);
  if (!sent)
    return wb_tools_error(reply_len, "ToolTimeout", "the tool request could not be sent (the call's timeout passed)");
  struct timespec until;
  uint64_t wake = r->deadline_ns + 1000000000ull; /* CLOCK_MONOTONIC, as the cv's clock */
  until.tv_sec = (time_t)(wake / 1000000000ull);
  until.tv_nsec = (long)(wake % 1000000000ull);
  pthread_mutex_lock(&r->mu);
  int rc = 0;
  while (!r->reply && !r->pause && !r->stopped && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&r->cv, &r->mu, &until);
  char *reply = r->reply;
  *reply_len = r->reply_len;
  *pause = r->pause;
  bool paused = r->pause;
  r->reply = NULL;
  r->pause = false;
  pthread_mutex_unlock(&r->mu);
  if (reply || paused) return reply;
  return rc == ETIMEDOUT ? wb_tools_error(reply_len, "ToolTimeout", "the call's timeout passed while the tool ran")
                         : wb_tools_error(reply_len, "ToolError", "the call was cancelled while the tool ran");
}

static bool send_error(int sock, int rc, const char *msg) {
  wb_buf b = {0};
  wb_encode_error(&b, rc, msg);
  bool ok = wb_frame_write(sock, WB_FRAME_ERROR, &b, 0);
  wb_buf_free(&b);
  return ok;
}

/* A call's answer: its result, or why it could not run. False: the
 * parent is gone. */
static bool answer(int sock, int rc, const wasmbox_result *res, const char *err) {
  if (rc != WASMBOX_OK) return send_error(sock, rc, err);
  wb_buf b = {0};
  const wb_result *wr = (const wb_result *)res;
  wb_encode_result(&b, res, wr->journal, wr->journal_len, wr->journal_overflowed);
  bool ok = wb_frame_write(sock, WB_FRAME_RESULT, &b, 0);
  wb_buf_free(&b);
  return ok;
}

/* Idle this long, the call thread gives back what it keeps for the next
 * call and makes again cheaply (a session's compression context, the pages
 * of the snapshots it mapped, freed heap); idle image_release_ns (the
 * library's session_idle_release_s), a session's copy of its committed
 * state, whose copying back costs more. */
#define IDLE_RELEASE_NS 1000000000ull

static void give_back(wasmbox *wb, bool images) {
  wb_pagelog_release();
  if (images && wb->store) wb_session_idle(wb->store);
  for (size_t i = 0; wb_runtimes[i]; i++) {
    const wb_snapshot *base = wb_runtimes[i]->base_snapshot();
    if (base) wb_image_unmap_pages(&base->memory);
  }
  malloc_trim(0);
}

/* Wait for a call (r->mu held), giving back on the way what idle allows. */
static void wait_for_call(runner *r) {
  uint64_t since = wb_monotonic_ns(), light_at = since + IDLE_RELEASE_NS, images_at = since + r->image_release_ns;
  bool light = false, images = false;
  while (!r->req) {
    if (images) {
      pthread_cond_wait(&r->cv, &r->mu);
      continue;
    }
    uint64_t due = light || images_at < light_at ? images_at : light_at;
    struct timespec until = {(time_t)(due / 1000000000ull), (long)(due % 1000000000ull)};
    if (pthread_cond_timedwait(&r->cv, &r->mu, &until) == ETIMEDOUT && !r->req) {
      images = wb_monotonic_ns() >= images_at;
      give_back(r->wb, images);
      light = true;
    }
  }
}

static void *runner_main(void *arg) {
  runner *r = arg;
  pthread_mutex_lock(&r->mu);
  for (;;) {
    wait_for_call(r);
    const wasmbox_request *req = r->req;
    const wb_resolved *rs = r->rs;
    const wb_journal_wire *jw = r->journal;
    pthread_mutex_unlock(&r->mu);
    wasmbox_result *res = NULL;
    char err[1024] = "";
    wb_tool_route route = {.answer = ask_parent, .ctx = r};
    int rc = wb_inprocess_run(r->wb, req, rs, &route, jw, &res, err, sizeof err);
    /* The answer goes out from here, and nobody is woken to send it: a
     * wake-up of the other thread (an eventfd it polled) cost this one
     * 0.04 ms of CPU per call on a VM (perf: 12 % of a loop of warm
     * calls). The other thread learns that the call ended from the
     * parent's next frame, or waits for it (serve_call). */
    bool answered = answer(r->sock, rc, res, err);
    wasmbox_result_free(res);
    pthread_mutex_lock(&r->mu);
    r->answered = answered;
    r->running = false;
    r->req = NULL;
    pthread_cond_broadcast(&r->cv);
    /* after the answer: the next call waits for this, not this one */
    pthread_mutex_unlock(&r->mu);
    wb_inprocess_tidy(r->wb->here);
    pthread_mutex_lock(&r->mu);
  }
  return NULL;
}

/* Before the mount view hides them and seccomp forbids them: this
 * process's pagemap and userfaultfd (which pages a call wrote) and the
 * runtimes' snapshots (mapped from our binary): every runtime's, or only
 * the one named by `ctx` (wb_worker_setup.runtime). */
static void before_view(void *ctx) {
  const char *only = ctx;
  char err[256];
  wb_dirty_keep_open();
  wb_track_init(); /* userfaultfd: forbidden once jailed */
  for (size_t i = 0; wb_runtimes[i]; i++)
    if (!only || !strcmp(only, wb_runtimes[i]->language)) wb_runtimes[i]->prepare(err, sizeof err);
}

/* A tmpfs path of the setup (its /app) needs a mount view. Without one
 * (the kernel refused the namespaces), the worker makes a directory on the
 * host in its stead, before its Landlock rules name the path, and tells the
 * parent (READY), which removes it with the worker. */
static bool scratch_on_host(wb_worker_setup *su, wb_jail_spec *spec, char **made, char *err, size_t errlen) {
  for (size_t i = 0; i < spec->npaths; i++) {
    if (!spec->paths[i].tmpfs) continue;
    if (!*made && !(*made = wb_scratch_dir("wasmbox", err, errlen))) return false;
    if (su->scratch && !strcmp(su->scratch, spec->paths[i].path)) su->scratch = *made;
    spec->paths[i] = (wb_jail_path){.path = *made, .writable = true};
  }
  return true;
}

/* A TOOL_REPLY: to the call thread if it is the one it waits for (a late
 * reply to an abandoned request is dropped). False: malformed. */
static bool hand_reply(runner *rn, const uint8_t *msg, size_t n) {
  wb_reader rd = {.p = msg, .len = n};
  uint32_t seq;
  uint8_t flags;
  const char *bytes;
  size_t len;
  if (!wb_decode_tool(&rd, &seq, &flags, &bytes, &len)) return false;
  pthread_mutex_lock(&rn->mu);
  if (seq == rn->seq && flags == WB_TOOL_PAUSE) {
    rn->pause = true;
    pthread_cond_broadcast(&rn->cv);
  } else if (seq == rn->seq && !rn->reply && (rn->reply = malloc(len ? len : 1))) {
    memcpy(rn->reply, bytes, len);
    rn->reply_len = len;
    pthread_cond_broadcast(&rn->cv);
  }
  pthread_mutex_unlock(&rn->mu);
  return true;
}

/* A frame read after a call ended: the next one's business. */
typedef struct {
  bool have;
  uint8_t type, *msg;
  size_t len;
} frame;

/* Run one call; the socket is watched meanwhile for a cancel. The call
 * thread answers; this one returns at the parent's next frame (in *next),
 * which a parent sends only once it has the answer. False: the parent is
 * gone or spoke nonsense. */
static bool serve_call(int sock, runner *rn, const uint8_t *payload, size_t len, frame *next) {
  next->have = false;
  wb_reader rd = {.p = payload, .len = len};
  wasmbox_request req;
  wb_request_storage storage;
  wb_journal_wire jw;
  if (!wb_decode_request(&rd, &req, &storage, &jw)) {
    wb_request_storage_free(&storage);
    return send_error(sock, WASMBOX_EUSAGE, "malformed request");
  }
  /* resolved again: what crossed the boundary is a new request */
  wb_resolved rs;
  char err[1024];
  int rc = wb_resolve(&req, &rs, err, sizeof err);
  wb_cancel *cancel = rc ? NULL : wb_cancel_new();
  if (!cancel) {
    wb_request_storage_free(&storage);
    return send_error(sock, rc ? rc : WASMBOX_EINTERNAL, rc ? err : "out of memory");
  }
  req.cancel = (wasmbox_cancel *)cancel;
  wb_jail_cpu_budget(rs.timeout_s + 10);
  pthread_mutex_lock(&rn->mu);
  rn->deadline_ns = wb_monotonic_ns() + (uint64_t)(rs.timeout_s * 1e9);
  rn->stopped = false;
  rn->rs = &rs;
  rn->journal = &jw;
  rn->pause = false;
  rn->running = true;
  rn->req = &req;
  pthread_cond_signal(&rn->cv);
  pthread_mutex_unlock(&rn->mu);
  bool alive = true;
  for (;;) {
    uint8_t type, *msg = NULL;
    size_t n;
    bool got = wb_frame_read(sock, &type, &msg, &n, WB_FRAME_MAX, 0);
    pthread_mutex_lock(&rn->mu);
    /* the answer is out (or about to be marked so) */
    while (got && type == WB_FRAME_RUN && rn->running) pthread_cond_wait(&rn->cv, &rn->mu);
    bool running = rn->running;
    pthread_mutex_unlock(&rn->mu);
    if (!running) {
      *next = (frame){.have = got, .type = type, .msg = msg, .len = n};
      alive = got;
      break;
    }
    bool handed = got && type == WB_FRAME_TOOL_REPLY && hand_reply(rn, msg, n);
    bool cancelled = got && type == WB_FRAME_CANCEL;
    free(msg);
    if (handed) continue;
    /* a cancel; or the parent is gone or confused: stop the guest (and
     * then, unless cancelled, leave) */
    pthread_mutex_lock(&rn->mu);
    rn->stopped = true;
    pthread_cond_broadcast(&rn->cv);
    pthread_mutex_unlock(&rn->mu);
    wb_cancel_fire(cancel);
    if (cancelled) continue;
    alive = false;
    pthread_mutex_lock(&rn->mu);
    while (rn->running) pthread_cond_wait(&rn->cv, &rn->mu);
    pthread_mutex_unlock(&rn->mu);
    break;
  }
  free(rn->reply);
  rn->reply = NULL;
  wb_request_storage_free(&storage);
  wb_cancel_free(cancel);
  if (!alive) _exit(0);
  return rn->answered;
}

int wb_worker_main(int sock, int taken_fd) {
  uint64_t *taken = mmap(NULL, sizeof *taken, PROT_READ | PROT_WRITE, MAP_SHARED, taken_fd, 0);
  close(taken_fd);
  if (taken == MAP_FAILED) return 1;
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN); /* a file over RLIMIT_FSIZE is an error, not death */
  uint8_t type, *setup;
  size_t len;
  if (!wb_frame_read(sock, &type, &setup, &len, WB_SMALL_FRAME_MAX, 0) || type != WB_FRAME_SETUP) return 1;
  wb_reader rd = {.p = setup, .len = len};
  wb_worker_setup su;
  if (!wb_decode_setup(&rd, &su)) {
    send_error(sock, WASMBOX_EINTERNAL, "malformed worker setup");
    return 1;
  }
  wb_jail_spec spec = su.spec;

  wb_jail_report rep;
  memset(&rep, 0, sizeof rep);
  char err[1024] = "";
  wasmbox *wb = NULL;
  /* A session's store is opened before the lock: Landlock lets the worker
   * reach only its session's directory, not the store's one above it. */
  char *host_scratch = NULL;
  if (wb_jail_enter(&spec, &rep, before_view, (void *)su.runtime, err, sizeof err) &&
      (rep.active[WB_LAYER_MOUNT_VIEW] || scratch_on_host(&su, &spec, &host_scratch, err, sizeof err)) &&
      (wb = wb_library_new(su.home, err, sizeof err)) &&
      (!(wb->here = wb_inprocess_new(su.scratch, err, sizeof err)) ||
       (su.session && !wb_store_of(wb, err, sizeof err))))
    wb = NULL; /* the process ends: nothing to free */
  runner rn = {.mu = PTHREAD_MUTEX_INITIALIZER, .wb = wb, .sock = sock, .image_release_ns = su.image_release_ns};
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&rn.cv, &ca);
  /* Locked before the call thread starts, which inherits every layer: no_new_privs, capabilities, Landlock and
   * seccomp hold for the thread that calls them and the threads it starts afterwards, not for one already running. */
  if (wb) wb_jail_lock(&spec, &rep);
  pthread_t t;
  char why[256];
  if (wb && !wb_guest_thread_start(&t, runner_main, &rn, why, sizeof why)) {
    snprintf(err, sizeof err, "cannot start the worker's call thread: %s", why);
    wb = NULL;
  }
  if (!wb) {
    if (host_scratch) rmdir(host_scratch); /* still empty; refused once Landlock holds */
    send_error(sock, WASMBOX_EINTERNAL, err);
    return 1;
  }
  free(setup);

  wb_buf b = {0};
  wb_encode_ready(&b, &rep, host_scratch);
  bool ok = wb_frame_write(sock, WB_FRAME_READY, &b, 0);
  wb_buf_free(&b);
  frame next = {0};
  while (ok) {
    uint8_t *msg;
    if (next.have) type = next.type, msg = next.msg, len = next.len;
    else if (!wb_frame_read(sock, &type, &msg, &len, WB_FRAME_MAX, 0)) break;
    if (type == WB_FRAME_RUN) {
      __atomic_add_fetch(taken, 1, __ATOMIC_RELEASE);
      ok = serve_call(sock, &rn, msg, len, &next);
    } else {
      next.have = false;
      ok = type == WB_FRAME_CANCEL || type == WB_FRAME_TOOL_REPLY; /* late: the call it meant is over */
    }
    free(msg);
  }
  return 0;
}

__attribute__((constructor)) static void worker_entry(void) {
  const char *v = getenv(wb_worker_fd_env);
  if (!v) return;
  char *end;
  long fd = strtol(v, &end, 10);
  struct stat st, page;
  if (*end || fd != WB_WORKER_SOCKET_FD || fstat((int)fd, &st) != 0 || !S_ISSOCK(st.st_mode) ||
      fstat(WB_WORKER_TAKEN_FD, &page) != 0 || !S_ISREG(page.st_mode))
    return;
  _exit(wb_worker_main((int)fd, WB_WORKER_TAKEN_FD));
}
