/* Jailed worker processes, the parent's side (see worker_parent.h;
 * worker_child.c is the child's).
 *
 * Guest code never runs in the process that holds the caller's sockets and
 * other sessions: each call goes to a worker, a copy of this executable
 * that jailed itself for one placement before it took any call:
 *   stateless, own scratch   its scratch directory (/app) + read-only mounts;
 *                            a one-shot process's: a tmpfs in the jail
 *   stateless, a workspace   that directory + read-only mounts
 *   session ID               the session's directory + its mounts
 * Workers stay for the next call of the same placement (a session's memory
 * stays live in its worker), so the jail costs nothing per call. A worker
 * that dies or stops answering is replaced; the call gets a result that
 * says why, and a session call that died is rolled back on disk already
 * (its commit is atomic). */
#include "api/worker_parent.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/result.h"
#include "api/worker_child.h"
#include "api/guest_tools.h"
#include "engine/runtime.h"
#include "api/worker_protocol.h"
#include "wasi/journal.h"
#include "util/os.h"
#include "wasm_rt/wasm_rt_ext.h"

#define WORKERS_MAX 32                /* processes at once, busy or idle */
#define IDLE_MAX 12                   /* idle ones kept */
#define WORKER_FDS 256                /* RLIMIT_NOFILE: the guest's 128 and ours */
#define WORKER_TASKS 32               /* pids cgroup: threads count */
#define WORKER_FILE_MAX (16ull << 30) /* RLIMIT_FSIZE backstop; the quota is smaller */
/* A one-shot stateless worker's /app: a tmpfs at this path in its view */
static const char view_scratch[] = "/wasmbox-scratch";
#define READY_TIMEOUT_NS (20ull * 1000000000ull)
#ifdef __SANITIZE_ADDRESS__
#define WORKER_OVERHEAD (2ull << 30) /* shadow memory and quarantine */
#else
#define WORKER_OVERHEAD (256ull << 20)
#endif

typedef struct {
  pid_t pid;
  int sock;
  int cancel;    /* the cancel socket (worker_protocol.h) */
  char *key;     /* its placement */
  char *scratch; /* its own /app for stateless calls, or NULL */
  wb_cgroup cg;
  uint64_t cg_memory;
  bool busy;
  uint64_t used; /* when last taken */
  wb_jail_report report;
  bool unreaped;         /* a one-shot process's last worker: its exit is not awaited */
  const uint64_t *taken; /* calls the worker took (worker_child.h), shared */
  uint64_t sent;         /* calls sent to it */
} worker;

struct wb_workers {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  worker *all[WORKERS_MAX];
  size_t n, starting;
  uint64_t tick;
  char *home;
  char *program;             /* what a worker is started from (worker_program) */
  bool one_shot;             /* the process makes one call: see wasmbox_options */
  uint64_t image_release_ns; /* wasmbox_options.session_idle_release_s */
  bool logged;               /* layers that are off were reported once */
};

/* ---- placements ------------------------------------------------------------ */

typedef struct {
  wb_buf key;
  wb_jail_spec spec; /* paths malloc'd */
  bool own_scratch;
  bool session;         /* a session's worker, not a stateless one */
  char *home;           /* what the worker opens its store at */
  uint64_t session_gen; /* a session's generation when it was placed */
  const char *runtime;  /* the only runtime its worker prepares (NULL: all) */
} placement;

static void placement_clear(placement *pl) {
  wb_buf_free(&pl->key);
  for (size_t i = 0; i < pl->spec.npaths; i++) free(pl->spec.paths[i].path);
  free(pl->home);
  memset(pl, 0, sizeof *pl);
}

/* A path the worker's jail allows. The key names the directory itself
 * (device and inode), not only its path: a directory removed and made
 * again under the same name is another placement, since a worker's view
 * holds the one that was there when it started. */
static int add_path(placement *pl, const char *path, bool writable, bool is_file, char *err, size_t errlen) {
  char *real = realpath(path, NULL);
  struct stat st;
  if (!real || stat(real, &st) != 0) {
    free(real);
    return wb_usage(err, errlen, "%s: %s", path, strerror(errno));
  }
  if (pl->spec.npaths == WB_JAIL_PATHS_MAX) {
    free(real);
    return wb_usage(err, errlen, "too many paths for one call");
  }
  pl->spec.paths[pl->spec.npaths++] = (wb_jail_path){.path = real, .writable = writable, .is_file = is_file};
  wb_buf_printf(&pl->key, "%c%llx:%llx:%s\n",
                writable  ? 'w'
                : is_file ? 'f'
                          : 'r',
                (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, real);
  return WASMBOX_OK;
}

/* The placement of a resolved call, and the request rewritten to the real
 * paths the worker's mount view has (symlinks in them would not resolve
 * there). */
static int place(wasmbox *wb, const wasmbox_request *req, wasmbox_request *out, wasmbox_mount *mounts, placement *pl,
                 char *err, size_t errlen) {
  memset(pl, 0, sizeof *pl);
  *out = *req;
  int rc = WASMBOX_OK;
  if (req->session_id) {
    wb_store *st = wb_store_of(wb, err, errlen);
    if (!st) return WASMBOX_EINTERNAL;
    wb_session_place sp;
    rc = wb_session_describe(st, req->session_id, &sp, err, errlen);
    if (rc) return rc;
    wb_buf_printf(&pl->key, "session %s\n", req->session_id);
    pl->session = true;
    char meta[4200];
    snprintf(meta, sizeof meta, "%s/meta", sp.dir);
    rc = add_path(pl, sp.dir, true, false, err, errlen);
    if (!rc) rc = add_path(pl, meta, false, true, err, errlen);
    for (size_t i = 0; !rc && i < sp.nmounts; i++) rc = add_path(pl, sp.mounts[i], false, false, err, errlen);
    pl->session_gen = sp.gen;
    wb_session_place_clear(&sp);
    if (!rc && !(pl->home = realpath(wb->home, NULL))) rc = wb_usage(err, errlen, "%s: %s", wb->home, strerror(errno));
    return rc;
  }
  wb_buf_puts(&pl->key, "stateless\n");
  if (req->workspace) {
    rc = add_path(pl, req->workspace, true, false, err, errlen);
    if (!rc) out->workspace = pl->spec.paths[pl->spec.npaths - 1].path;
  } else {
    pl->own_scratch = true;
  }
  for (size_t i = 0; !rc && i < req->mounts_len; i++) {
    rc = add_path(pl, req->mounts[i].host_dir, false, false, err, errlen);
    if (!rc) mounts[i] = (wasmbox_mount){pl->spec.paths[pl->spec.npaths - 1].path, req->mounts[i].guest_path};
  }
  out->mounts = mounts;
  if (!rc && !(pl->home = strdup(wb->home))) rc = wb_usage(err, errlen, "out of memory");
  if (!rc && pl->key.failed) rc = wb_usage(err, errlen, "out of memory");
  return rc;
}

/* ---- starting and ending workers -------------------------------------------- */

static void worker_end(worker *w) {
  if (!w) return;
  if (w->sock >= 0) close(w->sock);
  if (w->cancel >= 0) close(w->cancel);
  if (w->pid > 0) {
    kill(w->pid, SIGKILL);
    while (!w->unreaped && waitpid(w->pid, NULL, 0) < 0 && errno == EINTR) {}
  }
  wb_cgroup_destroy(&w->cg);
  if (w->taken) munmap((void *)w->taken, sizeof *w->taken);
  if (w->scratch) {
    wb_remove_tree(w->scratch);
    free(w->scratch);
  }
  free(w->key);
  free(w);
}

/* How a dead worker ended, for the result. */
static void death_reason(worker *w, char *out, size_t n) {
  int st;
  pid_t r;
  while ((r = waitpid(w->pid, &st, 0)) < 0 && errno == EINTR) {}
  w->pid = -1;
  if (r < 0) snprintf(out, n, "the worker process ended");
  else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS)
    snprintf(out, n, "the worker process was killed for a forbidden system call (seccomp)");
  else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && wb_cgroup_oom_killed(&w->cg))
    snprintf(out, n, "the worker process was killed for using more memory than its cgroup allows");
  else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGXCPU)
    snprintf(out, n, "the worker process used up its CPU time limit");
  else if (WIFSIGNALED(st))
    snprintf(out, n, "the worker process was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
  else snprintf(out, n, "the worker process exited with status %d", WEXITSTATUS(st));
}

/* The memory cgroup limit a call needs: a session keeps its committed
 * image beside the running one. */
static uint64_t memory_for(const wb_resolved *rs, size_t stdin_len) {
  return 2 * rs->memory + 2 * rs->max_output + rs->code_len + stdin_len + WORKER_OVERHEAD;
}

static char **worker_env(void) {
  static char *env[5];
  static char fd[32], asan[1024], tmpdir[PATH_MAX + 8];
  snprintf(fd, sizeof fd, "%s=%d", wb_worker_fd_env, WB_WORKER_SOCKET_FD);
  size_t n = 0;
  env[n++] = fd;
  /* where a worker without a mount view makes its /app (scratch_on_host) */
  const char *t = getenv("TMPDIR");
  if (t && strlen(t) < PATH_MAX) {
    snprintf(tmpdir, sizeof tmpdir, "TMPDIR=%s", t);
    env[n++] = tmpdir;
  }
#ifdef __SANITIZE_ADDRESS__
  /* LeakSanitizer stops the world with ptrace, which the jail forbids */
  const char *a = getenv("ASAN_OPTIONS");
  snprintf(asan, sizeof asan, "ASAN_OPTIONS=%s%sdetect_leaks=0", a ? a : "", a && *a ? ":" : "");
  env[n++] = asan;
  static char ubsan[1024];
  const char *u = getenv("UBSAN_OPTIONS");
  if (u) {
    snprintf(ubsan, sizeof ubsan, "UBSAN_OPTIONS=%s", u);
    env[n++] = ubsan;
  }
#else
  (void)asan;
#endif
  env[n] = NULL;
  return env;
}

/* Whether this process has opened a runtime's built-in snapshot (a
 * session made in it, say): a worker that is a plain fork would find the
 * runtime prepared but not its descriptor, which the fork closes, so then
 * a one-shot worker too starts from a clean image. */
static bool runtime_prepared(void) {
  for (size_t i = 0; wb_runtimes[i]; i++)
    if (wb_runtimes[i]->base_snapshot()) return true;
  return false;
}

static worker *spawn(wb_workers *ws, const placement *pl, uint64_t cg_memory, char *err, size_t errlen) {
  worker *w = calloc(1, sizeof *w);
  if (!w || !(w->key = strdup(pl->key.data ? pl->key.data : ""))) {
    free(w);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  w->sock = w->cancel = -1;
  w->pid = -1;
  wb_jail_spec spec = pl->spec;
  const char *scratch = NULL;
  if (pl->own_scratch && ws->one_shot) {
    /* Its one call's files need no directory on the host: making one and
     * removing it cost 0.1 ms of every `wasmbox run` (ext4), and a killed
     * process left it behind. A worker without a mount view makes one
     * itself, and says so in READY. */
    scratch = view_scratch;
    spec.paths[spec.npaths++] = (wb_jail_path){.path = (char *)view_scratch, .writable = true, .tmpfs = true};
  } else if (pl->own_scratch) {
    if (!(w->scratch = wb_scratch_dir("wasmbox", err, errlen))) {
      worker_end(w);
      return NULL;
    }
    scratch = w->scratch;
    spec.paths[spec.npaths++] = (wb_jail_path){.path = w->scratch, .writable = true};
  }
  int sv[2], cv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, cv) != 0) {
    snprintf(err, errlen, "socketpair: %s", strerror(errno));
    worker_end(w);
    return NULL;
  }
  w->cancel = cv[0]; /* worker_end closes it */
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    snprintf(err, errlen, "socketpair: %s", strerror(errno));
    close(cv[1]);
    worker_end(w);
    return NULL;
  }
  spec.max_file_bytes = WORKER_FILE_MAX;
  spec.max_fds = WORKER_FDS;
  wb_buf b = {0};
  wb_encode_setup(&b, &(wb_worker_setup){.home = pl->home,
                                         .scratch = scratch,
                                         .session = pl->session,
                                         .spec = spec,
                                         .image_release_ns = ws->image_release_ns,
                                         .runtime = pl->runtime});
  uint64_t deadline = wb_monotonic_ns() + READY_TIMEOUT_NS;
  /* A one-shot worker that is a plain fork (below) finds its setup in the
   * socket when it starts: no cgroup to join first and no exec that may
   * fail, so the parent need not wait for it (those two wake-ups cost 0.1
   * ms of every `wasmbox run`). */
  bool plain = ws->one_shot && !runtime_prepared();
  bool sent = plain && wb_frame_write(sv[0], WB_FRAME_SETUP, &b, deadline);
  if (plain && !sent) {
    snprintf(err, errlen, "cannot set up a worker: %s", strerror(errno));
    wb_buf_free(&b);
    close(sv[0]);
    close(sv[1]);
    close(cv[1]);
    worker_end(w);
    return NULL;
  }
  /* fork, not posix_spawn: glibc's vfork-style spawn unmaps the child's
   * stack from the shared address space, a TLB shootdown that costs
   * milliseconds on a VM. Between fork and exec: system calls only. */
  char **env = worker_env();
  char *argv[] = {"wasmbox-worker", NULL};
  int out_of_band[2];
  int taken_fd = memfd_create("wasmbox-worker-taken", MFD_CLOEXEC);
  void *taken = MAP_FAILED;
  if (taken_fd >= 0 && ftruncate(taken_fd, sizeof *w->taken) == 0)
    taken = mmap(NULL, sizeof *w->taken, PROT_READ, MAP_SHARED, taken_fd, 0);
  if (taken != MAP_FAILED) w->taken = taken; /* worker_end unmaps it */
  if (taken == MAP_FAILED || pipe2(out_of_band, O_CLOEXEC) != 0) {
    snprintf(err, errlen, "cannot set up a worker: %s", strerror(errno));
    wb_buf_free(&b);
    if (taken_fd >= 0) close(taken_fd);
    close(sv[0]);
    close(sv[1]);
    close(cv[1]);
    worker_end(w);
    return NULL;
  }
  pid_t pid = fork();
  if (pid == 0) {
    /* out of the way first, so that no dup lands on its own source */
    int sock = fcntl(sv[1], F_DUPFD_CLOEXEC, 10), report = fcntl(out_of_band[1], F_DUPFD_CLOEXEC, 10);
    int page = fcntl(taken_fd, F_DUPFD_CLOEXEC, 10), cancel = fcntl(cv[1], F_DUPFD_CLOEXEC, 10);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (sock < 0 || report < 0 || page < 0 || cancel < 0 || null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
        dup2(sock, WB_WORKER_SOCKET_FD) < 0 || dup2(page, WB_WORKER_TAKEN_FD) < 0 ||
        dup2(cancel, WB_WORKER_CANCEL_FD) < 0)
      _exit(127);
    /* A one-shot process holds nothing but this call: its worker is a plain
     * fork (an exec costs milliseconds). Others start from a clean image,
     * so that no data of other calls is in a worker's memory. */
    if (plain) {
      if (syscall(SYS_close_range, 6u, ~0u, 0u) != 0) _exit(127);
      /* its one stateless call is never undone: following its writes would
       * only cost faults (a tracked range gets no fault-around) */
      if (!pl->session) wb_rt_tracking_disable();
      _exit(wb_worker_main(WB_WORKER_SOCKET_FD, WB_WORKER_CANCEL_FD, WB_WORKER_TAKEN_FD));
    }
    if (dup3(report, 6, O_CLOEXEC) < 0 || syscall(SYS_close_range, 7u, ~0u, 0u) != 0) _exit(127);
    execve(ws->program, argv, env);
    int e = errno;
    if (write(6, &e, sizeof e) < 0) _exit(126);
    _exit(127);
  }
  close(taken_fd);
  close(out_of_band[1]);
  close(sv[1]);
  close(cv[1]);
  w->sock = sv[0];
  int exec_errno = 0;
  ssize_t got_errno = pid > 0 && !plain ? read(out_of_band[0], &exec_errno, sizeof exec_errno) : 0;
  close(out_of_band[0]);
  if (pid < 0 || got_errno > 0) {
    snprintf(err, errlen, "cannot start a worker process: %s", strerror(pid < 0 ? errno : exec_errno));
    if (pid > 0) waitpid(pid, NULL, 0);
    wb_buf_free(&b);
    worker_end(w);
    return NULL;
  }
  w->pid = pid;
  wb_jail_report rep;
  memset(&rep, 0, sizeof rep);
  w->cg_memory = cg_memory;
  if (!ws->one_shot) {
    wb_cgroup_create(&w->cg, w->pid, WORKER_TASKS, w->cg_memory, &rep);
  } else {
    wb_report_set(&rep, WB_LAYER_CGROUP_PIDS, false, "not for a one-shot process (placement costs ~10 ms)");
    wb_report_set(&rep, WB_LAYER_CGROUP_MEMORY, false, "not for a one-shot process (placement costs ~10 ms)");
  }

  bool ok = sent || wb_frame_write(w->sock, WB_FRAME_SETUP, &b, deadline);
  wb_buf_free(&b);
  uint8_t type = 0, *msg = NULL;
  size_t len = 0;
  ok = ok && wb_frame_read(w->sock, &type, &msg, &len, WB_SMALL_FRAME_MAX, deadline);
  wb_reader rd = {.p = msg, .len = len};
  wb_jail_report theirs;
  const char *host_scratch;
  if (ok && type == WB_FRAME_READY) {
    if (wb_decode_ready(&rd, &theirs, &host_scratch)) {
      for (int l = 0; l < WB_LAYER_COUNT; l++)
        if (l != WB_LAYER_CGROUP_PIDS && l != WB_LAYER_CGROUP_MEMORY) /* those are ours */
          wb_report_set(&rep, (wb_layer)l, theirs.active[l], "%s", theirs.detail[l]);
      /* removed with the worker; READY comes before the worker has read
       * any call, so what it names here is the jail's own doing */
      if (host_scratch && scratch == view_scratch && !(w->scratch = strdup(host_scratch))) {
        snprintf(err, errlen, "out of memory");
        ok = false;
      }
    }
  } else if (ok && type == WB_FRAME_ERROR) {
    int code;
    const char *m;
    snprintf(err, errlen, "the worker could not start: %s", wb_decode_error(&rd, &code, &m) ? m : "no reason given");
    ok = false;
  } else {
    char why[160];
    if (ok) snprintf(why, sizeof why, "it sent frame %u", type);
    else if (errno == ETIMEDOUT) snprintf(why, sizeof why, "it did not answer in time");
    else death_reason(w, why, sizeof why);
    snprintf(err, errlen, "the worker could not start: %s", why);
    ok = false;
  }
  free(msg);
  if (!ok || rd.bad) {
    if (ok) snprintf(err, errlen, "the worker sent a malformed report");
    worker_end(w);
    return NULL;
  }
  w->report = rep;
  pthread_mutex_lock(&ws->mu);
  bool log = !ws->logged;
  ws->logged = true;
  pthread_mutex_unlock(&ws->mu);
  for (int l = 0; log && l < WB_LAYER_COUNT; l++)
    if (!rep.active[l] && !(ws->one_shot && (l == WB_LAYER_CGROUP_PIDS || l == WB_LAYER_CGROUP_MEMORY)))
      fprintf(stderr, "wasmbox: jail layer %s is off: %s\n", wb_layer_name((wb_layer)l), rep.detail[l]);
  return w;
}

/* ---- the pool ------------------------------------------------------------------ */

/* This program (its copy of the library becomes the worker), or, in the
 * shared library, which any program may have loaded, the worker program in
 * the library's own directory (wasmbox.h: wasmbox_options). */
static char *worker_program(char *err, size_t errlen) {
#ifdef WB_SHARED
  Dl_info self;
  if (!dladdr((void *)worker_program, &self) || !self.dli_fname) {
    snprintf(err, errlen, "cannot tell where libwasmbox.so is (dladdr)");
    return NULL;
  }
  const char *slash = strrchr(self.dli_fname, '/');
  char *path = NULL;
  if (asprintf(&path, "%.*s/libwasmbox/wasmbox-worker", slash ? (int)(slash - self.dli_fname) : 1,
               slash ? self.dli_fname : ".") < 0) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  if (access(path, X_OK) != 0) {
    snprintf(err, errlen, "cannot run the worker program %s (installed beside libwasmbox.so): %s", path,
             strerror(errno));
    free(path);
    return NULL;
  }
  return path;
#else
  char *path = strdup("/proc/self/exe");
  if (!path) snprintf(err, errlen, "out of memory");
  return path;
#endif
}

wb_workers *wb_workers_new(const char *home, const wasmbox_options *opts, char *err, size_t errlen) {
  unsigned warm = opts ? opts->warm_workers : 0;
  wb_workers *ws = calloc(1, sizeof *ws);
  if (!ws || !(ws->home = strdup(home))) {
    free(ws);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  if (!(ws->program = worker_program(err, errlen))) {
    free(ws->home);
    free(ws);
    return NULL;
  }
  ws->one_shot = opts && opts->one_shot;
  double idle_s = opts && opts->session_idle_release_s > 0 ? opts->session_idle_release_s : 30;
  ws->image_release_ns = (uint64_t)(idle_s * 1e9);
  pthread_mutex_init(&ws->mu, NULL);
  pthread_cond_init(&ws->cv, NULL);
  placement pl = {.own_scratch = true, .home = ws->home};
  wb_buf_puts(&pl.key, "stateless\n");
  wb_resolved defaults;
  wb_resolve(&(wasmbox_request){.code = ""}, &defaults, err, errlen);
  for (unsigned i = 0; i < warm && i < IDLE_MAX; i++) {
    worker *w = spawn(ws, &pl, memory_for(&defaults, 0), err, errlen);
    if (!w) {
      wb_buf_free(&pl.key);
      wb_workers_free(ws);
      return NULL;
    }
    w->used = ++ws->tick;
    ws->all[ws->n++] = w;
  }
  wb_buf_free(&pl.key);
  return ws;
}

void wb_workers_free(wb_workers *ws) {
  if (!ws) return;
  /* a one-shot process exits next: the system reaps its idle workers */
  for (size_t i = 0; i < ws->n; i++) {
    ws->all[i]->unreaped = ws->one_shot;
    worker_end(ws->all[i]);
  }
  pthread_mutex_destroy(&ws->mu);
  pthread_cond_destroy(&ws->cv);
  free(ws->home);
  free(ws->program);
  free(ws);
}

static void remove_at(wb_workers *ws, size_t i) { ws->all[i] = ws->all[--ws->n]; }

/* An idle worker has nothing to say: anything readable is its end. */
static bool alive(const worker *w) {
  struct pollfd p = {.fd = w->sock, .events = POLLIN};
  return poll(&p, 1, 0) == 0;
}

/* A worker for `pl`, busy for the caller: an idle one of the same placement,
 * else a new one. A session has one worker at most; its calls wait their
 * turn here. */
static worker *take(wb_workers *ws, const placement *pl, bool is_session, uint64_t cg_memory, char *err,
                    size_t errlen) {
  pthread_mutex_lock(&ws->mu);
  for (;;) {
    worker *same_busy = NULL, *lru_idle = NULL;
    size_t lru_at = 0;
    for (size_t i = 0; i < ws->n; i++) {
      worker *w = ws->all[i];
      if (!strcmp(w->key, pl->key.data)) {
        if (!w->busy && !alive(w)) {
          /* died while idle (killed, or out of memory): replace it */
          remove_at(ws, i);
          pthread_mutex_unlock(&ws->mu);
          worker_end(w);
          pthread_mutex_lock(&ws->mu);
          i = (size_t)-1;
          same_busy = lru_idle = NULL;
          continue;
        }
        if (!w->busy) {
          w->busy = true;
          w->used = ++ws->tick;
          pthread_mutex_unlock(&ws->mu);
          return w;
        }
        same_busy = w;
      } else if (!w->busy && (!lru_idle || w->used < lru_idle->used)) {
        lru_idle = w;
        lru_at = i;
      }
    }
    if (is_session && same_busy) {
      pthread_cond_wait(&ws->cv, &ws->mu);
      continue;
    }
    if (ws->n + ws->starting >= WORKERS_MAX) {
      if (!lru_idle) {
        pthread_cond_wait(&ws->cv, &ws->mu);
        continue;
      }
      remove_at(ws, lru_at);
      pthread_mutex_unlock(&ws->mu);
      worker_end(lru_idle);
      pthread_mutex_lock(&ws->mu);
      continue;
    }
    ws->starting++;
    pthread_mutex_unlock(&ws->mu);
    worker *w = spawn(ws, pl, cg_memory, err, errlen);
    pthread_mutex_lock(&ws->mu);
    ws->starting--;
    if (w) {
      w->busy = true;
      w->used = ++ws->tick;
      ws->all[ws->n++] = w;
    }
    pthread_cond_broadcast(&ws->cv);
    pthread_mutex_unlock(&ws->mu);
    return w;
  }
}

/* Back to the pool (healthy), or ended (not). Keeps at most IDLE_MAX idle. */
static void give(wb_workers *ws, worker *w, bool healthy) {
  worker *drop = NULL;
  pthread_mutex_lock(&ws->mu);
  w->busy = false;
  size_t idle = 0, lru_at = 0;
  for (size_t i = 0; i < ws->n; i++) {
    if (ws->all[i] == w && !healthy) {
      remove_at(ws, i);
      drop = w;
      break;
    }
  }
  for (size_t i = 0; !drop && i < ws->n; i++) {
    if (ws->all[i]->busy) continue;
    if (idle++ == 0 || ws->all[i]->used < ws->all[lru_at]->used) lru_at = i;
  }
  if (!drop && idle > IDLE_MAX) {
    drop = ws->all[lru_at];
    remove_at(ws, lru_at);
  }
  pthread_cond_broadcast(&ws->cv);
  pthread_mutex_unlock(&ws->mu);
  worker_end(drop);
}

void wb_workers_forget_sessions(wb_workers *ws, wb_store *st) {
  for (;;) {
    worker *drop = NULL;
    pthread_mutex_lock(&ws->mu);
    for (size_t i = 0; !drop && i < ws->n; i++) {
      worker *w = ws->all[i];
      if (w->busy || strncmp(w->key, "session ", 8) != 0) continue;
      char id[WASMBOX_ID_MAX];
      snprintf(id, sizeof id, "%.*s", (int)strcspn(w->key + 8, "\n"), w->key + 8);
      if (!wb_session_exists(st, id)) {
        drop = w;
        remove_at(ws, i);
      }
    }
    pthread_mutex_unlock(&ws->mu);
    if (!drop) return;
    worker_end(drop);
  }
}

void wb_workers_forget_session(wb_workers *ws, const char *id) {
  char key[WASMBOX_ID_MAX + 16];
  snprintf(key, sizeof key, "session %s\n", id);
  worker *drop = NULL;
  pthread_mutex_lock(&ws->mu);
  for (size_t i = 0; !drop && i < ws->n; i++)
    if (!ws->all[i]->busy && !strncmp(ws->all[i]->key, key, strlen(key))) {
      drop = ws->all[i];
      remove_at(ws, i);
    }
  pthread_mutex_unlock(&ws->mu);
  if (drop) worker_end(drop);
}

/* ---- a call ----------------------------------------------------------------------- */

/* Is a decoded result one this call can have? (Its own session, within
 * its output limit.) */
static bool result_fits(const wasmbox_result *p, const wasmbox_request *req, const wb_resolved *rs) {
  if (req->session_id ? !p->session_id || strcmp(p->session_id, req->session_id) : p->session_id != NULL) return false;
  return p->stdout_len <= rs->max_output && p->stderr_len <= rs->max_output;
}

/* A TOOL frame from a worker: checked and answered as if the guest asked
 * here (api/guest_tools.h). False: malformed, or the reply could not be sent. */
static bool answer_tool(int sock, wb_tools *tools, const uint8_t *msg, size_t len, uint64_t deadline) {
  wb_reader rd = {.p = msg, .len = len};
  uint32_t seq;
  uint8_t flags;
  const char *request;
  size_t n;
  if (!wb_decode_tool(&rd, &seq, &flags, &request, &n) || flags) return false;
  size_t reply_len = 0;
  bool pause = false;
  char *reply = wb_tools_answer(tools, (const uint8_t *)request, n, &reply_len, &pause);
  if (pause) {
    wb_buf b = {0};
    wb_encode_tool(&b, seq, WB_TOOL_PAUSE, NULL, 0);
    bool ok = !b.failed && wb_frame_write(sock, WB_FRAME_TOOL_REPLY, &b, deadline);
    wb_buf_free(&b);
    return ok;
  }
  static const char no_memory[] =
      "{\"ok\":false,\"error\":{\"type\":\"ToolError\",\"message\":\"the host ran out of memory\"}}";
  wb_buf b = {0};
  wb_encode_tool(&b, seq, 0, reply ? reply : no_memory, reply ? reply_len : sizeof no_memory - 1);
  free(reply);
  bool ok = !b.failed && wb_frame_write(sock, WB_FRAME_TOOL_REPLY, &b, deadline);
  wb_buf_free(&b);
  return ok;
}

int wb_workers_run(wasmbox *wb, const wasmbox_request *req, const wb_resolved *rs, wb_tools *tools,
                   const wb_journal_wire *jw, wasmbox_result **out, char *err, size_t errlen) {
  wb_workers *ws = wb->workers;
  wb_limits_used lim = {.rt = rs->rt, .timeout_s = rs->timeout_s, .memory_limit = rs->memory};
  wasmbox_request sent;
  wasmbox_mount mounts[WASMBOX_MAX_MOUNTS];
  placement pl;
  int rc = place(wb, req, &sent, mounts, &pl, err, errlen);
  if (rc) {
    placement_clear(&pl);
    return rc;
  }
  /* A one-shot process's stateless call: its worker need not open the
   * other runtimes (0.04 ms for JavaScript's, of a `wasmbox run` of
   * Python). A session's runtime is the session's, known in the worker. */
  if (ws->one_shot && !pl.session && rs->rt) {
    pl.runtime = rs->rt->language;
    wb_buf_printf(&pl.key, "runtime %s\n", pl.runtime);
  }
  sent.code_len = rs->code_len;
  sent.cancel = NULL;
  uint64_t start = wb_monotonic_ns();
  int cfd = req->cancel ? wb_cancel_fd((const wb_cancel *)req->cancel) : -1;
  if (req->cancel && wb_cancel_fired((wb_cancel *)req->cancel)) {
    placement_clear(&pl);
    *out = wb_result_failure(WASMBOX_STATUS_CANCELLED, "Cancelled", "the call was cancelled before it started", req,
                             &lim, 0, req->session_id != NULL);
    if (*out) return WASMBOX_OK;
    snprintf(err, errlen, "out of memory");
    return WASMBOX_EINTERNAL;
  }
  /* The worker stops the guest at the timeout itself; this deadline is for
   * a worker that stops answering (a host bug, or a subverted worker), with
   * time to save a session's memory. */
  uint64_t grace_ns = 2000000000ull + rs->memory * 4; /* 2 s, and 4 ns a byte (256 MB/s) */
  uint64_t deadline = start + (uint64_t)(rs->timeout_s * 1e9) + grace_ns;

  wb_buf b = {0};
  wb_encode_request(&b, &sent, jw);
  uint64_t need = memory_for(rs, sent.stdin_data ? sent.stdin_len : 0);
  uint64_t frame_max = 2 * (uint64_t)rs->max_output + (64ull << 20); /* outputs, tracebacks, file names */
  if (frame_max < tools->max_bytes + WB_JOURNAL_MAX + 64) frame_max = tools->max_bytes + WB_JOURNAL_MAX + 64;
  worker *w = NULL;
  bool sent_ok = false, cancel_sent = false, timed_out = false, got = false;
  int read_errno = 0;
  uint8_t type = 0, *msg = NULL;
  size_t len = 0;
  /* A worker that died idle (killed, out of memory) can look alive to
   * take() while the kernel tears it down. If it never took the call
   * (EPIPE on sending, or its count of calls taken says so), nothing ran:
   * the call goes to another worker, once. */
  for (int attempt = 0; attempt < 2; attempt++) {
    if (w) {
      kill(w->pid, SIGKILL);
      give(ws, w, false);
    }
    if (!(w = take(ws, &pl, req->session_id != NULL, need, err, errlen))) {
      wb_buf_free(&b);
      placement_clear(&pl);
      return WASMBOX_EINTERNAL;
    }
    if (need > w->cg_memory) {
      wb_cgroup_set_memory(&w->cg, need);
      w->cg_memory = need;
    }
    w->sent++;
    sent_ok = wb_frame_write(w->sock, WB_FRAME_RUN, &b, deadline);
    if (!sent_ok && errno == EPIPE) continue;
    while (sent_ok) {
      struct pollfd p[2] = {{.fd = w->sock, .events = POLLIN}, {.fd = cfd, .events = POLLIN}};
      uint64_t now = wb_monotonic_ns();
      if (now >= deadline) {
        timed_out = true;
        break;
      }
      int r = poll(p, cfd >= 0 && !cancel_sent ? 2 : 1, (int)((deadline - now) / 1000000 + 1));
      if (r < 0 && errno != EINTR) break;
      if (r <= 0) continue;
      if (cfd >= 0 && !cancel_sent && p[1].revents) {
        /* 8 bytes into an empty buffer: a worker that does not drain it
         * is stopped at the deadline; one that is gone, at the next read */
        cancel_sent = true;
        if (send(w->cancel, &w->sent, sizeof w->sent, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && errno != EAGAIN) break;
        continue;
      }
      got = wb_frame_read(w->sock, &type, &msg, &len, frame_max, deadline);
      if (!got && errno == ETIMEDOUT) timed_out = true;
      read_errno = got ? 0 : errno;
      if (got && type == WB_FRAME_TOOL) {
        /* the guest asks for a tool: answered here, under this call's checks */
        bool answered = answer_tool(w->sock, tools, msg, len, deadline);
        free(msg);
        msg = NULL;
        got = false;
        if (answered) continue;
        type = WB_FRAME_TOOL; /* malformed: the worker is stopped below */
        got = true;
      }
      break;
    }
    if (!sent_ok || got || timed_out || cancel_sent || __atomic_load_n(w->taken, __ATOMIC_ACQUIRE) >= w->sent) break;
  }
  wb_buf_free(&b);
  double ms = (double)(wb_monotonic_ns() - start) / 1e6;
  wb_reader rd = {.p = msg, .len = len};
  if (got && type == WB_FRAME_RESULT) {
    wb_result *res = wb_decode_result(&rd);
    free(msg);
    placement_clear(&pl);
    if (res && !result_fits(&res->pub, req, rs)) {
      wasmbox_result_free(&res->pub);
      res = NULL;
    }
    give(ws, w, res != NULL);
    if (!res) {
      snprintf(err, errlen, "the worker sent a malformed result");
      return WASMBOX_EINTERNAL;
    }
    *out = &res->pub;
    return WASMBOX_OK;
  }
  if (got && type == WB_FRAME_ERROR) {
    const char *m;
    bool well_formed = wb_decode_error(&rd, &rc, &m);
    snprintf(err, errlen, "%s", well_formed ? m : "the worker failed");
    free(msg);
    placement_clear(&pl);
    give(ws, w, well_formed);
    return well_formed ? rc : WASMBOX_EINTERNAL;
  }
  free(msg);
  /* No answer: the worker died, hung or spoke nonsense. It is replaced;
   * a session is as its disk says (a commit is atomic), so compare. */
  char why[200];
  kill(w->pid, SIGKILL); /* whatever it was doing, it must not linger */
  if (timed_out)
    snprintf(why, sizeof why, "the call did not end within its %g s timeout and its worker was stopped", rs->timeout_s);
  else if (got) snprintf(why, sizeof why, "the worker sent an unexpected frame (%u) and was stopped", type);
  else if (read_errno == EMSGSIZE || read_errno == EPROTO)
    snprintf(why, sizeof why, "the worker sent a malformed or oversized answer and was stopped");
  else death_reason(w, why, sizeof why); /* it ended first: say how */
  bool rolled_back = false;
  if (req->session_id) {
    uint64_t gen = 0;
    wb_store *st = wb_store_of(wb, err, errlen);
    rolled_back = st && pl.session && wb_session_generation(st, req->session_id, &gen) && gen == pl.session_gen;
  }
  placement_clear(&pl);
  give(ws, w, false);
  *out = timed_out ? wb_result_failure(WASMBOX_STATUS_TIMEOUT, "Timeout", why, req, &lim, ms, rolled_back)
                   : wb_result_failure(WASMBOX_STATUS_CRASHED, "Crash", why, req, &lim, ms, rolled_back);
  if (!*out) {
    snprintf(err, errlen, "out of memory");
    return WASMBOX_EINTERNAL;
  }
  return WASMBOX_OK;
}

void wb_workers_count(wb_workers *ws, size_t *idle, size_t *busy, size_t *starting) {
  pthread_mutex_lock(&ws->mu);
  *idle = *busy = 0;
  for (size_t i = 0; i < ws->n; i++) ++*(ws->all[i]->busy ? busy : idle);
  *starting = ws->starting;
  pthread_mutex_unlock(&ws->mu);
}

/* ---- the jail's report ---------------------------------------------------------------- */

bool wb_workers_report(wb_workers *ws, wb_jail_report *out, char *err, size_t errlen) {
  placement pl = {.own_scratch = true, .home = ws->home};
  wb_buf_puts(&pl.key, "stateless\n");
  wb_resolved defaults;
  wb_resolve(&(wasmbox_request){.code = ""}, &defaults, err, errlen);
  worker *w = take(ws, &pl, false, memory_for(&defaults, 0), err, errlen);
  wb_buf_free(&pl.key);
  if (!w) return false;
  *out = w->report;
  give(ws, w, true);
  return true;
}
