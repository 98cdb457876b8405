/* A worker process: the child side of workers.c.
 *
 * The library starts /proc/self/exe with WASMBOX_WORKER_FD in the
 * environment; a constructor here takes over before the host program's
 * main() ever runs: it reads its setup, jails itself (jail/jail.h), and
 * runs the calls its parent sends, one at a time, until the socket closes.
 * A second thread runs the call so that this one can still hear a cancel. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/internal.h"
#include "engine/runtime.h"
#include "engine/tracker.h"
#include "session/dirty.h"

const char wb_worker_fd_env[] = "WASMBOX_WORKER_FD";

typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  wasmbox *wb;
  const wasmbox_request *req; /* the call to run, or NULL */
  int rc;
  wasmbox_result *res;
  char err[1024];
  int done; /* eventfd: the call ended */
} runner;

static void *runner_main(void *arg) {
  runner *r = arg;
  pthread_mutex_lock(&r->mu);
  for (;;) {
    while (!r->req) pthread_cond_wait(&r->cv, &r->mu);
    const wasmbox_request *req = r->req;
    pthread_mutex_unlock(&r->mu);
    wasmbox_result *res = NULL;
    char err[sizeof r->err] = "";
    int rc = wb_run_here(r->wb, req, &res, err, sizeof err);
    pthread_mutex_lock(&r->mu);
    r->rc = rc;
    r->res = res;
    memcpy(r->err, err, sizeof err);
    r->req = NULL;
    uint64_t one = 1;
    if (write(r->done, &one, sizeof one) != sizeof one) abort();
  }
  return NULL;
}

/* Before the mount view hides them and seccomp forbids them: this
 * process's pagemap and userfaultfd (which pages a call wrote) and the
 * runtimes' snapshots (mapped from our binary). */
static void before_view(void *ctx) {
  (void)ctx;
  char err[256];
  wb_dirty_keep_open();
  wb_track_init(); /* userfaultfd: forbidden once jailed */
  for (size_t i = 0; wb_runtimes[i]; i++) wb_runtimes[i]->prepare(err, sizeof err);
}

static bool send_error(int sock, int rc, const char *msg) {
  wb_buf b = {0};
  wb_put_u32(&b, (uint32_t)rc);
  wb_put_str(&b, msg);
  bool ok = wb_frame_write(sock, WB_FRAME_ERROR, &b, 0);
  wb_buf_free(&b);
  return ok;
}

/* Run one call; the socket is watched meanwhile for a cancel. False: the
 * parent is gone or spoke nonsense. */
static bool serve_call(int sock, runner *rn, const uint8_t *payload, size_t len) {
  wb_reader rd = {.p = payload, .len = len};
  wasmbox_request req;
  wb_request_storage storage;
  if (!wb_decode_request(&rd, &req, &storage)) {
    wb_request_storage_free(&storage);
    return send_error(sock, WASMBOX_EUSAGE, "malformed request");
  }
  wasmbox_cancel *cancel = wasmbox_cancel_new();
  if (!cancel) {
    wb_request_storage_free(&storage);
    return send_error(sock, WASMBOX_EINTERNAL, "out of memory");
  }
  req.cancel = cancel;
  wb_jail_cpu_budget((req.timeout_seconds > 0 && req.timeout_seconds < 1e6 ? req.timeout_seconds
                                                                             : WASMBOX_DEFAULT_TIMEOUT_S) + 10);
  pthread_mutex_lock(&rn->mu);
  rn->req = &req;
  pthread_cond_signal(&rn->cv);
  pthread_mutex_unlock(&rn->mu);
  bool alive = true;
  for (;;) {
    struct pollfd p[2] = {{.fd = rn->done, .events = POLLIN}, {.fd = sock, .events = POLLIN}};
    if (poll(p, alive ? 2 : 1, -1) < 0) continue;
    if (p[0].revents) break;
    uint8_t type, *msg;
    size_t n;
    if (!wb_frame_read(sock, &type, &msg, &n, 0, 0) || type != WB_FRAME_CANCEL) alive = false;
    free(msg);
    /* a cancel; or the parent is gone or confused: stop the guest, then leave */
    wasmbox_cancel_fire(cancel);
  }
  uint64_t v;
  if (read(rn->done, &v, sizeof v) != sizeof v) abort();
  wb_request_storage_free(&storage);
  wasmbox_cancel_free(cancel);
  if (!alive) _exit(0);
  bool ok;
  if (rn->rc != WASMBOX_OK) {
    ok = send_error(sock, rn->rc, rn->err);
  } else {
    wb_buf b = {0};
    wb_encode_result(&b, rn->res);
    ok = wb_frame_write(sock, WB_FRAME_RESULT, &b, 0);
    wb_buf_free(&b);
  }
  wasmbox_result_free(rn->res);
  rn->res = NULL;
  return ok;
}

int wb_worker_main(int sock) {
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN); /* a file over RLIMIT_FSIZE is an error, not death */
  uint8_t type, *setup;
  size_t len;
  if (!wb_frame_read(sock, &type, &setup, &len, 1u << 20, 0) || type != WB_FRAME_SETUP) return 1;
  wb_reader rd = {.p = setup, .len = len};
  const char *home = wb_get_str(&rd), *scratch = wb_get_str(&rd);
  wb_jail_spec spec = {0};
  spec.npaths = wb_get_u32(&rd);
  if (spec.npaths > WB_JAIL_PATHS_MAX) rd.bad = true;
  for (size_t i = 0; !rd.bad && i < spec.npaths; i++) {
    spec.paths[i].path = (char *)wb_get_str(&rd);
    spec.paths[i].writable = wb_get_u8(&rd);
    spec.paths[i].is_file = wb_get_u8(&rd);
    if (!spec.paths[i].path || spec.paths[i].path[0] != '/') rd.bad = true;
  }
  spec.max_file_bytes = wb_get_u64(&rd);
  spec.max_fds = wb_get_u32(&rd);
  if (rd.bad || !home) {
    send_error(sock, WASMBOX_EINTERNAL, "malformed worker setup");
    return 1;
  }

  wb_jail_report rep;
  memset(&rep, 0, sizeof rep);
  char err[1024] = "";
  wasmbox *wb = NULL;
  if (wb_jail_enter(&spec, &rep, before_view, NULL, err, sizeof err)) wb = wb_open_here(home, scratch, err, sizeof err);
  runner rn = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .wb = wb};
  rn.done = eventfd(0, EFD_CLOEXEC);
  pthread_t t;
  if (wb && (rn.done < 0 || pthread_create(&t, NULL, runner_main, &rn) != 0)) {
    snprintf(err, sizeof err, "cannot start the worker's call thread: %s", strerror(errno));
    wb = NULL;
  }
  if (!wb) {
    send_error(sock, WASMBOX_EINTERNAL, err);
    return 1;
  }
  wb_jail_lock(&spec, &rep);
  free(setup);

  wb_buf b = {0};
  for (int l = 0; l < WB_LAYER_COUNT; l++) {
    wb_put_u8(&b, rep.active[l]);
    wb_put_str(&b, rep.detail[l]);
  }
  bool ok = wb_frame_write(sock, WB_FRAME_READY, &b, 0);
  wb_buf_free(&b);
  while (ok) {
    uint8_t *msg;
    if (!wb_frame_read(sock, &type, &msg, &len, WB_FRAME_MAX, 0)) break;
    if (type == WB_FRAME_RUN) ok = serve_call(sock, &rn, msg, len);
    else ok = type == WB_FRAME_CANCEL; /* late: the call it meant is over */
    free(msg);
  }
  return 0;
}

__attribute__((constructor)) static void worker_entry(void) {
  const char *v = getenv(wb_worker_fd_env);
  if (!v) return;
  char *end;
  long fd = strtol(v, &end, 10);
  struct stat st;
  if (*end || fd < 3 || fd > 1024 || fstat((int)fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return;
  _exit(wb_worker_main((int)fd));
}
