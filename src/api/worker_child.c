/* A worker process (see worker_child.h). Its call thread reads the
 * socket, runs each call, asks the parent for the guest's tools and
 * answers; it is a guest thread (engine.h), so the guest code runs on it,
 * not on a third. The main thread only listens on the cancel socket (a
 * cancel, or the parent's end). So a call wakes one thread of the worker:
 * handing each call from a reading thread to the call thread cost the
 * waker tens of microseconds when the call thread's CPU had gone idle
 * (the wake-up's IPI is a VM exit; perf: 3.7 % of a loop of MCP calls). */
#include "api/worker_child.h"

#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
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
#include "wasm_rt/guest.h"
#include "wasm_rt/tracker.h"

const char wb_worker_fd_env[] = "WASMBOX_WORKER_FD";

typedef struct {
  wasmbox *wb;
  int sock;
  uint64_t *taken;           /* calls taken, shared with the parent (worker_child.h) */
  uint64_t image_release_ns; /* see wait_for_frame */
  /* Shared with the main thread, under mu: */
  pthread_mutex_t mu;
  pthread_cond_t ended; /* a call ended (a main thread waits only when the parent is gone) */
  uint64_t call;        /* the number of the call on (*taken when it was taken), 0 between calls */
  wb_cancel *cancel;    /* the calls' token (reset for each: no eventfd made per call) */
  uint64_t cancelled;   /* the last call the parent cancelled before it was taken */
  /* The call thread's own: */
  uint64_t deadline_ns; /* the call's */
  uint32_t seq;         /* of its last tool request */
  bool parent_lost;     /* the socket failed or spoke nonsense during the call: end after it */
} runner;

/* The call's socket has failed (or the parent spoke nonsense): stop the
 * guest; the worker ends once the call has. */
static char *lose_parent(runner *r, size_t *reply_len) {
  r->parent_lost = true;
  wb_cancel_fire(r->cancel);
  return wb_tools_error(reply_len, "ToolError", "the call was cancelled while the tool ran");
}

/* The call's tool route: to the parent and back. Waits at most until the
 * call's deadline (and a little: the parent answers a tool that overran
 * with ToolTimeout itself), or until the call is cancelled; the guest's own
 * timeout fires on return. A late reply to an abandoned request (another
 * number) is dropped. */
static char *ask_parent(void *ctx, const uint8_t *request, size_t len, size_t *reply_len, bool *pause) {
  runner *r = ctx;
  if (r->parent_lost || wb_cancel_fired(r->cancel))
    return wb_tools_error(reply_len, "ToolError", "the call was cancelled");
  uint32_t seq = ++r->seq;
  wb_buf b = {0};
  wb_encode_tool(&b, seq, 0, request, len);
  bool sent = !b.failed && wb_frame_write(r->sock, WB_FRAME_TOOL, &b, r->deadline_ns);
  wb_buf_free(&b);
  if (!sent)
    return wb_tools_error(reply_len, "ToolTimeout", "the tool request could not be sent (the call's timeout passed)");
  uint64_t until = r->deadline_ns + 1000000000ull;
  for (;;) {
    uint64_t now = wb_monotonic_ns();
    if (now >= until) return wb_tools_error(reply_len, "ToolTimeout", "the call's timeout passed while the tool ran");
    struct pollfd p[2] = {{.fd = r->sock, .events = POLLIN}, {.fd = wb_cancel_fd(r->cancel), .events = POLLIN}};
    int n = poll(p, 2, (int)((until - now) / 1000000 + 1));
    if (n < 0 && errno != EINTR) return lose_parent(r, reply_len);
    if (n > 0 && p[1].revents)
      return wb_tools_error(reply_len, "ToolError", "the call was cancelled while the tool ran");
    if (n <= 0 || !p[0].revents) continue;
    uint8_t type, *msg;
    size_t got;
    if (!wb_frame_read(r->sock, &type, &msg, &got, WB_FRAME_MAX, until)) return lose_parent(r, reply_len);
    wb_reader rd = {.p = msg, .len = got};
    uint32_t at;
    uint8_t flags;
    const char *bytes;
    size_t blen;
    if (type != WB_FRAME_TOOL_REPLY || !wb_decode_tool(&rd, &at, &flags, &bytes, &blen)) {
      free(msg);
      return lose_parent(r, reply_len);
    }
    if (at != seq) {
      free(msg);
      continue;
    }
    *pause = flags == WB_TOOL_PAUSE;
    char *reply = *pause ? NULL : malloc(blen ? blen : 1);
    if (reply) memcpy(reply, bytes, blen);
    *reply_len = blen;
    free(msg);
    if (reply || *pause) return reply;
    return wb_tools_error(reply_len, "ToolError", "out of memory");
  }
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

/* Wait for the parent's next frame, giving back on the way what idle allows. */
static void wait_for_frame(runner *r) {
  uint64_t since = wb_monotonic_ns(), light_at = since + IDLE_RELEASE_NS, images_at = since + r->image_release_ns;
  bool light = false, images = false;
  struct pollfd p = {.fd = r->sock, .events = POLLIN};
  for (;;) {
    int ms = -1;
    if (!images) {
      uint64_t due = light || images_at < light_at ? images_at : light_at, now = wb_monotonic_ns();
      ms = due > now ? (int)((due - now) / 1000000 + 1) : 0;
    }
    int n = poll(&p, 1, ms);
    if (n > 0) return;
    if (n == 0) {
      images = wb_monotonic_ns() >= images_at;
      give_back(r->wb, images);
      light = true;
    }
  }
}

/* Run one call, numbered `number`, and answer it. False: the parent is
 * gone or spoke nonsense. */
static bool serve_call(runner *r, uint64_t number, const uint8_t *payload, size_t len) {
  wb_reader rd = {.p = payload, .len = len};
  wasmbox_request req;
  wb_request_storage storage;
  wb_journal_wire jw;
  if (!wb_decode_request(&rd, &req, &storage, &jw)) {
    wb_request_storage_free(&storage);
    return send_error(r->sock, WASMBOX_EUSAGE, "malformed request");
  }
  /* resolved again: what crossed the boundary is a new request */
  wb_resolved rs;
  char err[1024] = "";
  int rc = wb_resolve(&req, &rs, err, sizeof err);
  if (rc) {
    wb_request_storage_free(&storage);
    return send_error(r->sock, rc, err);
  }
  req.cancel = (wasmbox_cancel *)r->cancel;
  wb_jail_cpu_budget(rs.timeout_s + 10);
  r->deadline_ns = wb_monotonic_ns() + (uint64_t)(rs.timeout_s * 1e9);
  r->parent_lost = false;
  pthread_mutex_lock(&r->mu);
  r->call = number;
  wb_cancel_reset(r->cancel);
  if (r->cancelled == number) wb_cancel_fire(r->cancel); /* it came before the call */
  pthread_mutex_unlock(&r->mu);
  wasmbox_result *res = NULL;
  wb_tool_route route = {.answer = ask_parent, .ctx = r};
  rc = wb_inprocess_run(r->wb, &req, &rs, &route, &jw, &res, err, sizeof err);
  bool answered = answer(r->sock, rc, res, err);
  pthread_mutex_lock(&r->mu);
  r->call = 0;
  pthread_cond_broadcast(&r->ended); /* no syscall unless the main thread waits */
  pthread_mutex_unlock(&r->mu);
  wasmbox_result_free(res);
  wb_request_storage_free(&storage);
  /* after the answer: the next call waits for this, not this one */
  wb_inprocess_tidy(r->wb->here);
  return answered && !r->parent_lost;
}

/* The call thread: frames from the parent until it goes. A TOOL_REPLY
 * here is late (the call it meant is over). */
static void *runner_main(void *arg) {
  runner *r = arg;
  for (;;) {
    wait_for_frame(r);
    uint8_t type, *msg;
    size_t len;
    if (!wb_frame_read(r->sock, &type, &msg, &len, WB_FRAME_MAX, 0)) break;
    bool ok = type == WB_FRAME_TOOL_REPLY;
    /* counted before anything is done for it (worker_child.h) */
    if (type == WB_FRAME_RUN) ok = serve_call(r, __atomic_add_fetch(r->taken, 1, __ATOMIC_RELEASE), msg, len);
    free(msg);
    if (!ok) break;
  }
  _exit(0);
}

/* The main thread: the parent's cancels (the number of the call), until
 * it goes (end of stream); then the call on is stopped and the worker ends
 * after it. A cancel of a call not yet taken waits for it. */
static void listen_for_cancels(runner *r, int cancel_sock) {
  for (;;) {
    uint64_t number;
    ssize_t got = read(cancel_sock, &number, sizeof number);
    if (got < 0 && errno == EINTR) continue;
    pthread_mutex_lock(&r->mu);
    if (got == (ssize_t)sizeof number) {
      if (r->call && number == r->call) wb_cancel_fire(r->cancel);
      else if (number > r->call) r->cancelled = number;
      pthread_mutex_unlock(&r->mu);
      continue;
    }
    if (r->call) wb_cancel_fire(r->cancel);
    while (r->call) pthread_cond_wait(&r->ended, &r->mu);
    pthread_mutex_unlock(&r->mu);
    return;
  }
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

int wb_worker_main(int sock, int cancel_sock, int taken_fd) {
  uint64_t *taken = mmap(NULL, sizeof *taken, PROT_READ | PROT_WRITE, MAP_SHARED, taken_fd, 0);
  close(taken_fd);
  if (taken == MAP_FAILED) return 1;
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);    /* a file over RLIMIT_FSIZE is an error, not death */
  wb_guest_handlers_settled(); /* nothing here but our own code installs handlers */
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
  runner rn = {.mu = PTHREAD_MUTEX_INITIALIZER,
               .ended = PTHREAD_COND_INITIALIZER,
               .wb = wb,
               .sock = sock,
               .taken = taken,
               .image_release_ns = su.image_release_ns,
               .cancel = wb ? wb_cancel_new() : NULL};
  if (wb && !rn.cancel) {
    snprintf(err, sizeof err, "out of memory");
    wb = NULL;
  }
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
  if (ok) listen_for_cancels(&rn, cancel_sock);
  return 0;
}

__attribute__((constructor)) static void worker_entry(void) {
  const char *v = getenv(wb_worker_fd_env);
  if (!v) return;
  char *end;
  long fd = strtol(v, &end, 10);
  struct stat st, cancel, page;
  if (*end || fd != WB_WORKER_SOCKET_FD || fstat((int)fd, &st) != 0 || !S_ISSOCK(st.st_mode) ||
      fstat(WB_WORKER_CANCEL_FD, &cancel) != 0 || !S_ISSOCK(cancel.st_mode) || fstat(WB_WORKER_TAKEN_FD, &page) != 0 ||
      !S_ISREG(page.st_mode))
    return;
  _exit(wb_worker_main((int)fd, WB_WORKER_CANCEL_FD, WB_WORKER_TAKEN_FD));
}
