/* The jail, layer by layer, in forked children: each child applies one
 * layer and tries what it forbids; the parent checks how the child ended.
 * Then workers through the library: a worker that dies or hangs is
 * replaced, and the call says why. */
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "harness.h"
#include "jail/jail.h"
#include "util/os.h"

/* Run fn in a child; its wait status. */
static int in_child(int (*fn)(void *), void *arg) {
  fflush(NULL);
  pid_t p = fork();
  assert_true(p >= 0);
  if (p == 0) _exit(fn(arg));
  int st;
  assert_int_equal(waitpid(p, &st, 0), p);
  return st;
}

static void expect_exit(int st, int code) {
  if (!WIFEXITED(st)) fprintf(stderr, "child killed by signal %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : -1);
  assert_true(WIFEXITED(st));
  if (WEXITSTATUS(st) != code) fprintf(stderr, "child failed at step %d\n", WEXITSTATUS(st));
  assert_int_equal(WEXITSTATUS(st), code);
}

static void expect_signal(int st, int sig) {
  if (!WIFSIGNALED(st)) fprintf(stderr, "child exited with %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  assert_true(WIFSIGNALED(st));
  assert_int_equal(WTERMSIG(st), sig);
}

/* ---- seccomp ------------------------------------------------------------------ */

typedef struct {
  const char *name;
  long nr;
  long a[3];
} forbidden;

/* Arguments chosen so that each call would be harmless if it got through. */
static const forbidden forbidden_calls[] = {
    {"socket", SYS_socket, {AF_INET, SOCK_STREAM, 0}},
    {"connect", SYS_connect, {-1, 0, 0}},
    {"execve", SYS_execve, {0, 0, 0}},
    {"clone (a process)", SYS_clone, {CLONE_FS | CLONE_NEWNS, 0, 0}},
    {"fork", SYS_fork, {0, 0, 0}},
    {"vfork", SYS_vfork, {0, 0, 0}},
    {"ptrace", SYS_ptrace, {-1, 0, 0}},
    {"mount", SYS_mount, {0, 0, 0}},
    {"umount2", SYS_umount2, {0, 0, 0}},
    {"bpf", SYS_bpf, {-1, 0, 0}},
    {"keyctl", SYS_keyctl, {-1, 0, 0}},
    {"add_key", SYS_add_key, {0, 0, 0}},
    {"io_uring_setup", SYS_io_uring_setup, {0, 0, 0}},
    {"userfaultfd", SYS_userfaultfd, {0, 0, 0}},
    {"perf_event_open", SYS_perf_event_open, {0, 0, 0}},
    {"personality", SYS_personality, {0xffffffff, 0, 0}},
    {"unshare", SYS_unshare, {0, 0, 0}},
    {"setns", SYS_setns, {-1, 0, 0}},
    {"kill", SYS_kill, {0, 0, 0}},
    {"chroot", SYS_chroot, {0, 0, 0}},
    {"pivot_root", SYS_pivot_root, {0, 0, 0}},
    {"init_module", SYS_init_module, {0, 0, 0}},
    {"open_by_handle_at", SYS_open_by_handle_at, {-1, 0, 0}},
    {"process_vm_readv", SYS_process_vm_readv, {0, 0, 0}},
    {"prctl", SYS_prctl, {-1, 0, 0}},
    {"setuid", SYS_setuid, {0, 0, 0}},
    {"open (not openat)", SYS_open, {0, 0, 0}},
    {"landlock_create_ruleset", 444, {0, 0, 0}},
};

static int try_forbidden(void *arg) {
  const forbidden *f = arg;
  wb_jail_report rep = {0};
  wb_jail_seccomp(&rep);
  if (!rep.active[WB_LAYER_SECCOMP]) return 3;
  syscall(f->nr, f->a[0], f->a[1], f->a[2], 0, 0, 0);
  return 0; /* got through */
}

static void test_seccomp_kills_forbidden_calls(void **s) {
  (void)s;
  for (size_t i = 0; i < sizeof forbidden_calls / sizeof forbidden_calls[0]; i++) {
    int st = in_child(try_forbidden, (void *)&forbidden_calls[i]);
    if (!WIFSIGNALED(st)) fprintf(stderr, "%s was not stopped\n", forbidden_calls[i].name);
    expect_signal(st, SIGSYS);
  }
}

static void *thread_fn(void *arg) { return arg; }

static int threads_but_no_clone3(void *arg) {
  (void)arg;
  wb_jail_report rep = {0};
  wb_jail_seccomp(&rep);
  pthread_t t;
  if (pthread_create(&t, NULL, thread_fn, NULL) != 0 || pthread_join(t, NULL) != 0) return 1;
  errno = 0;
  if (syscall(SYS_clone3, NULL, 0) != -1 || errno != ENOSYS) return 2;
  /* signals to itself are fine, to anyone else they end it */
  if (syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), 0) != 0) return 3;
  syscall(SYS_tgkill, getppid(), getppid(), 0);
  return 4;
}

static void test_seccomp_allows_threads_only(void **s) {
  (void)s;
  expect_signal(in_child(threads_but_no_clone3, NULL), SIGSYS);
}

/* ---- Landlock -------------------------------------------------------------------- */

typedef struct {
  char *rw, *ro, *outside;
  int port;
} dirs;

static int landlock_paths(void *arg) {
  dirs *d = arg;
  wb_jail_spec spec = {.npaths = 2};
  spec.paths[0] = (wb_jail_path){.path = d->rw, .writable = true};
  spec.paths[1] = (wb_jail_path){.path = d->ro};
  wb_jail_report rep = {0};
  wb_jail_landlock(&spec, &rep);
  if (!rep.active[WB_LAYER_LANDLOCK]) return 1;
  char p[4200];
  snprintf(p, sizeof p, "%s/secret", d->outside);
  if (open(p, O_RDONLY) >= 0 || errno != EACCES) return 2;
  if (open("/etc/passwd", O_RDONLY) >= 0 || errno != EACCES) return 3;
  snprintf(p, sizeof p, "%s/data", d->ro);
  if (open(p, O_RDONLY) < 0) return 4;
  if (open(p, O_WRONLY) >= 0 || errno != EACCES) return 5;
  snprintf(p, sizeof p, "%s/new", d->ro);
  if (mkdir(p, 0700) == 0 || errno != EACCES) return 6;
  snprintf(p, sizeof p, "%s/new", d->rw);
  int fd = open(p, O_WRONLY | O_CREAT, 0600);
  if (fd < 0 || write(fd, "x", 1) != 1) return 7;
  close(fd);
  /* a symlink inside that points out leads nowhere */
  snprintf(p, sizeof p, "%s/link", d->rw);
  char target[4200];
  snprintf(target, sizeof target, "%s/secret", d->outside);
  if (symlink(target, p) != 0) return 8;
  if (open(p, O_RDONLY) >= 0 || errno != EACCES) return 9;
  /* no device nodes, fifos or sockets, even in the writable tree */
  snprintf(p, sizeof p, "%s/fifo", d->rw);
  if (mkfifo(p, 0600) == 0 || errno != EACCES) return 10;
  return 0;
}

static dirs make_dirs(void) {
  dirs d = {make_dir(), make_dir(), make_dir(), 0};
  assert_non_null(d.rw);
  write_file(d.ro, "data", "readable");
  write_file(d.outside, "secret", "not for the guest");
  return d;
}

static void free_dirs(dirs *d) {
  rm_tree(d->rw);
  rm_tree(d->ro);
  rm_tree(d->outside);
  free(d->rw);
  free(d->ro);
  free(d->outside);
}

static void test_landlock_paths(void **s) {
  (void)s;
  dirs d = make_dirs();
  expect_exit(in_child(landlock_paths, &d), 0);
  free_dirs(&d);
}

/* A listening TCP socket on loopback; its port. */
static int listen_tcp(int *fd) {
  *fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t n = sizeof a;
  assert_int_equal(bind(*fd, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(listen(*fd, 4), 0);
  assert_int_equal(getsockname(*fd, (struct sockaddr *)&a, &n), 0);
  return ntohs(a.sin_port);
}

static int connect_to(int port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) return -errno;
  struct sockaddr_in a = {
      .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  int r = connect(s, (struct sockaddr *)&a, sizeof a) == 0 ? 0 : -errno;
  close(s);
  return r;
}

static int landlock_network_and_signals(void *arg) {
  dirs *d = arg;
  if (connect_to(d->port) != 0) return 1; /* reachable before */
  wb_jail_spec spec = {.npaths = 1};
  spec.paths[0] = (wb_jail_path){.path = d->rw, .writable = true};
  wb_jail_report rep = {0};
  wb_jail_landlock(&spec, &rep);
  if (!rep.active[WB_LAYER_LANDLOCK]) return 2;
  if (connect_to(d->port) != -EACCES) return 3;
  if (kill(getppid(), 0) == 0 || errno != EPERM) return 4;
  return 0;
}

static void test_landlock_network_and_signals(void **s) {
  (void)s;
  if (wb_landlock_abi() < 6) skip();
  dirs d = make_dirs();
  int lfd;
  d.port = listen_tcp(&lfd);
  expect_exit(in_child(landlock_network_and_signals, &d), 0);
  close(lfd);
  free_dirs(&d);
}

/* ---- namespaces and the mount view ------------------------------------------------- */

#define VIEW_TMPFS "/wasmbox-test-tmpfs"

static int in_namespaces(void *arg) {
  dirs *d = arg;
  wb_jail_spec spec = {.npaths = 3};
  spec.paths[0] = (wb_jail_path){.path = d->rw, .writable = true};
  spec.paths[1] = (wb_jail_path){.path = d->ro};
  spec.paths[2] = (wb_jail_path){.path = (char *)VIEW_TMPFS, .writable = true, .tmpfs = true};
  wb_jail_report rep = {0};
  char err[256];
  if (!wb_jail_enter(&spec, &rep, NULL, NULL, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  struct statfs fs;
  if (statfs(VIEW_TMPFS, &fs) != 0 || fs.f_type != TMPFS_MAGIC) return 27; /* a tmpfs of its own */
  int made = open(VIEW_TMPFS "/file", O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (made < 0 || write(made, "x", 1) != 1) return 28;
  close(made);
  for (int l = WB_LAYER_USER_NS; l <= WB_LAYER_MOUNT_VIEW; l++)
    if (!rep.active[l]) return fprintf(stderr, "%s: %s\n", wb_layer_name(l), rep.detail[l]), 10 + l;
  if (getpid() != 1) return 2;
  char host[64];
  if (gethostname(host, sizeof host) != 0 || strcmp(host, "wasmbox")) return 3;
  struct stat st;
  if (stat("/etc/passwd", &st) == 0 || errno != ENOENT) return 4; /* not in the view */
  if (stat(d->outside, &st) == 0 || errno != ENOENT) return 5;
  char p[4200];
  snprintf(p, sizeof p, "%s/made-inside", d->rw);
  int fd = open(p, O_WRONLY | O_CREAT, 0600);
  if (fd < 0) return 6;
  close(fd);
  snprintf(p, sizeof p, "%s/data", d->ro);
  if (open(p, O_WRONLY) >= 0 || errno != EROFS) return 7;
  if (mkdir("/new", 0700) == 0 || errno != EROFS) return 8;
  if (stat("/proc/self/status", &st) != 0) return 9; /* its own /proc */
  if (connect_to(d->port) == 0) return 25;           /* the host's loopback is not ours */
  DIR *pd = opendir("/proc");
  struct dirent *e;
  int pids = 0;
  while (pd && (e = readdir(pd)))
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9') pids++;
  if (pd) closedir(pd);
  if (pids != 1) return 26; /* nobody else in its pid namespace */
  return 0;
}

static void test_namespaces_and_mount_view(void **s) {
  (void)s;
  dirs d = make_dirs();
  int lfd;
  d.port = listen_tcp(&lfd);
  struct stat st;
  assert_int_not_equal(stat(VIEW_TMPFS, &st), 0); /* the tmpfs is not on the host, before or after */
  expect_exit(in_child(in_namespaces, &d), 0);
  assert_int_not_equal(stat(VIEW_TMPFS, &st), 0);
  /* what the jailed root made belongs to whoever ran it */
  char p[4200];
  snprintf(p, sizeof p, "%s/made-inside", d.rw);
  assert_int_equal(stat(p, &st), 0);
  assert_int_equal(st.st_uid, geteuid());
  close(lfd);
  free_dirs(&d);
}

/* The pid-1 child is the one that dies; its parent ends the same way. */
static int seccomp_death_is_mirrored(void *arg) {
  dirs *d = arg;
  wb_jail_spec spec = {.npaths = 1};
  spec.paths[0] = (wb_jail_path){.path = d->rw, .writable = true};
  wb_jail_report rep = {0};
  char err[256];
  if (!wb_jail_enter(&spec, &rep, NULL, NULL, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  wb_jail_lock(&spec, &rep);
  for (int l = WB_LAYER_NO_NEW_PRIVS; l <= WB_LAYER_SECCOMP; l++)
    if (!rep.active[l]) return 10 + l;
  syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
  return 0;
}

static void test_full_jail_death_reaches_the_parent(void **s) {
  (void)s;
  dirs d = make_dirs();
  expect_signal(in_child(seccomp_death_is_mirrored, &d), SIGSYS);
  free_dirs(&d);
}

/* ---- rlimits, capabilities, cgroups ---------------------------------------------------- */

static int limited(void *arg) {
  dirs *d = arg;
  wb_jail_spec spec = {.max_fds = 16, .max_file_bytes = 1 << 20};
  wb_jail_report rep = {0};
  signal(SIGXFSZ, SIG_IGN);
  wb_jail_rlimits(&spec, &rep);
  if (!rep.active[WB_LAYER_RLIMITS]) return 1;
  struct rlimit r;
  if (getrlimit(RLIMIT_CORE, &r) != 0 || r.rlim_cur != 0 || r.rlim_max != 0) return 2;
  int opened = 0;
  for (int i = 0; i < 32; i++)
    if (open("/dev/null", O_RDONLY) >= 0) opened++;
  if (opened >= 16 || errno != EMFILE) return 3;
  for (int fd = 3; fd < 16; fd++) close(fd);
  char p[4200];
  snprintf(p, sizeof p, "%s/big", d->rw);
  int fd = open(p, O_WRONLY | O_CREAT, 0600);
  static char block[1 << 16];
  ssize_t w = 0;
  for (int i = 0; i < 32 && w >= 0; i++) w = write(fd, block, sizeof block);
  if (w >= 0 || errno != EFBIG) return 4;
  close(fd);
  return 0;
}

static void test_rlimits(void **s) {
  (void)s;
  dirs d = make_dirs();
  expect_exit(in_child(limited, &d), 0);
  free_dirs(&d);
}

static int cpu_budget(void *arg) {
  (void)arg;
  wb_jail_spec spec = {.max_fds = 64, .max_file_bytes = 1 << 20};
  wb_jail_report rep = {0};
  wb_jail_rlimits(&spec, &rep);
  wb_jail_cpu_budget(0);
  for (volatile unsigned long i = 0;; i++) {}
  return 0;
}

static void test_cpu_budget_ends_a_spinning_worker(void **s) {
  (void)s;
  expect_signal(in_child(cpu_budget, NULL), SIGXCPU);
}

static int capabilities_dropped(void *arg) {
  (void)arg;
  wb_jail_report rep = {0};
  wb_jail_namespaces(&rep);
  if (!rep.active[WB_LAYER_USER_NS] || !rep.active[WB_LAYER_MOUNT_NS]) return 1;
  /* root of its namespace may mount ... */
  if (mount("none", "/tmp", "tmpfs", 0, NULL) != 0) return 2;
  wb_jail_capabilities(&rep);
  if (!rep.active[WB_LAYER_CAPABILITIES]) return 3;
  /* ... and after the drop may not */
  if (mount("none", "/tmp", "tmpfs", 0, NULL) == 0 || errno != EPERM) return 4;
  struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
  struct __user_cap_data_struct c[2];
  if (syscall(SYS_capget, &h, c) != 0 || c[0].effective || c[0].permitted || c[1].effective) return 5;
  return 0;
}

static void test_capabilities_dropped(void **s) {
  (void)s;
  expect_exit(in_child(capabilities_dropped, NULL), 0);
}

static void *park(void *arg) {
  (void)arg;
  pause();
  return NULL;
}

static void test_cgroup_pids(void **s) {
  (void)s;
  int go[2], count[2];
  assert_int_equal(pipe(go), 0);
  assert_int_equal(pipe(count), 0);
  pid_t p = fork();
  if (p == 0) {
    char c;
    if (read(go[0], &c, 1) != 1) _exit(1);
    int n = 0;
    pthread_t t;
    for (int i = 0; i < 10; i++)
      if (pthread_create(&t, NULL, park, NULL) == 0) n++;
    if (write(count[1], &n, sizeof n) != sizeof n) _exit(1);
    _exit(0);
  }
  wb_cgroup cg;
  wb_jail_report rep = {0};
  wb_cgroup_create(&cg, p, 4, 64 << 20, &rep);
  assert_true(rep.active[WB_LAYER_CGROUP_PIDS]);
  assert_int_equal(write(go[1], "x", 1), 1);
  int n = -1;
  assert_int_equal(read(count[0], &n, sizeof n), sizeof n);
  assert_int_equal(n, 3); /* four tasks: the process and three threads */
  waitpid(p, NULL, 0);
  wb_cgroup_destroy(&cg);
  close(go[0]);
  close(go[1]);
  close(count[0]);
  close(count[1]);
}

static void test_cgroup_memory(void **s) {
  (void)s;
  int go[2];
  assert_int_equal(pipe(go), 0);
  pid_t p = fork();
  if (p == 0) {
    char c;
    if (read(go[0], &c, 1) != 1) _exit(1);
    for (int i = 0; i < 64; i++) {
      char *m = malloc(8 << 20);
      if (!m) _exit(2);
      memset(m, i, 8 << 20);
    }
    _exit(0); /* 512 MB touched: should not get here */
  }
  wb_cgroup cg;
  wb_jail_report rep = {0};
  wb_cgroup_create(&cg, p, 8, 64 << 20, &rep);
  assert_true(rep.active[WB_LAYER_CGROUP_MEMORY]);
  assert_int_equal(write(go[1], "x", 1), 1);
  int st;
  waitpid(p, &st, 0);
  expect_signal(st, SIGKILL);
  assert_true(wb_cgroup_oom_killed(&cg));
  wb_cgroup_destroy(&cg);
  close(go[0]);
  close(go[1]);
}

static pid_t parked_child(void) {
  pid_t p = fork();
  if (p == 0) {
    pause();
    _exit(0);
  }
  assert_true(p > 0);
  return p;
}

static void end_child(pid_t p) {
  kill(p, SIGKILL);
  waitpid(p, NULL, 0);
}

/* A group left under the name a new worker's takes (by a parent that died
 * without removing it, whose pid and its worker's were both used again)
 * is made again for the new worker, which keeps its limits. */
static void test_cgroup_stale_name(void **s) {
  (void)s;
  pid_t q = parked_child(), p = parked_child();
  wb_cgroup probe, cg;
  wb_jail_report rep = {0};
  wb_cgroup_create(&probe, q, 4, 64 << 20, &rep);
  if (!rep.active[WB_LAYER_CGROUP_PIDS] || !rep.active[WB_LAYER_CGROUP_MEMORY]) {
    wb_cgroup_destroy(&probe);
    end_child(q), end_child(p);
    skip(); /* no cgroup v1 hierarchies of our own here */
  }
  char stale[2][4200];
  for (int c = 0; c < 2; c++) {
    snprintf(stale[c], sizeof stale[c], "%s", probe.dir[c]);
    char *slash = strrchr(stale[c], '/');
    snprintf(slash, sizeof stale[c] - (size_t)(slash - stale[c]), "/wasmbox-%d-%d", (int)getpid(), (int)p);
    assert_int_equal(mkdir(stale[c], 0755), 0);
  }
  rep = (wb_jail_report){0};
  wb_cgroup_create(&cg, p, 4, 64 << 20, &rep);
  assert_true(rep.active[WB_LAYER_CGROUP_PIDS]);
  assert_true(rep.active[WB_LAYER_CGROUP_MEMORY]);
  char procs[4300], want[32];
  snprintf(procs, sizeof procs, "%s/cgroup.procs", stale[1]);
  FILE *f = fopen(procs, "r");
  assert_non_null(f);
  char line[32] = "";
  assert_non_null(fgets(line, sizeof line, f));
  fclose(f);
  snprintf(want, sizeof want, "%d\n", (int)p);
  assert_string_equal(line, want);
  end_child(p), end_child(q);
  wb_cgroup_destroy(&cg);
  wb_cgroup_destroy(&probe);
}

/* ---- workers through the library ---------------------------------------------------- */

static void test_every_layer_active(void **s) {
  (void)s;
  wasmbox_layer layers[WASMBOX_LAYERS_MAX];
  size_t n;
  char err[256];
  assert_int_equal(wasmbox_isolation(test_wb, layers, &n, err, sizeof err), WASMBOX_OK);
  assert_int_equal(n, WB_LAYER_COUNT);
  for (size_t i = 0; i < n; i++) {
    if (!layers[i].active) fprintf(stderr, "%s is off: %s\n", layers[i].name, layers[i].detail);
    assert_true(layers[i].active);
  }
}

/* Children of process `parent` now. */
static size_t children_of(pid_t parent, pid_t *out, size_t max) {
  DIR *d = opendir("/proc");
  struct dirent *e;
  size_t n = 0;
  while (d && (e = readdir(d)) && n < max) {
    char path[300], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = 0;
    char *rp = strrchr(buf, ')');
    int ppid;
    if (rp && sscanf(rp + 2, "%*c %d", &ppid) == 1 && ppid == parent) out[n++] = atoi(e->d_name);
  }
  if (d) closedir(d);
  return n;
}

static size_t children(pid_t *out, size_t max) { return children_of(getpid(), out, max); }

/* A worker is its process and the pid-1 process of its namespace under it. */
static void signal_worker(pid_t worker, int sig) {
  pid_t inner[8];
  size_t n = children_of(worker, inner, 8);
  for (size_t i = 0; i < n; i++) kill(inner[i], sig);
  kill(worker, sig);
}

typedef struct {
  wasmbox_request req;
  wasmbox_result *res;
} call_t;

static void *call_thread(void *arg) {
  call_t *c = arg;
  char err[256];
  if (wasmbox_run(test_wb, &c->req, &c->res, err, sizeof err) != WASMBOX_OK) fprintf(stderr, "%s\n", err);
  return NULL;
}

/* Start c in thread t; its (new) worker, once it exists. */
static pid_t start_call_on_new_worker(call_t *c, pthread_t *t) {
  pid_t before[64], after[64];
  size_t nb = children(before, 64);
  assert_int_equal(pthread_create(t, NULL, call_thread, c), 0);
  pid_t worker = 0;
  for (int tries = 0; tries < 200 && !worker; tries++) {
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    size_t na = children(after, 64);
    for (size_t i = 0; i < na; i++) {
      bool old = false;
      for (size_t j = 0; j < nb; j++) old |= after[i] == before[j];
      if (!old) worker = after[i];
    }
  }
  assert_true(worker > 0);
  struct timespec ts = {0, 300 * 1000 * 1000}; /* well into the call */
  nanosleep(&ts, NULL);
  return worker;
}

/* Start c in a thread; once its (new) worker exists, send it `sig`. */
static void signal_worker_mid_call(call_t *c, int sig) {
  pthread_t t;
  signal_worker(start_call_on_new_worker(c, &t), sig);
  pthread_join(t, NULL);
  assert_non_null(c->res);
}

/* The layers that bind one thread at a time (no_new_privs, capabilities,
 * seccomp) hold on every thread of a worker, the one running guest code
 * included: the report says what the locking thread did, this looks. */
static void test_every_thread_of_a_worker_is_locked(void **s) {
  (void)s;
  char *ws = make_dir();
  call_t c = {.req = {.code = "while True: pass", .workspace = ws, .timeout_seconds = 20}};
  pthread_t t;
  pid_t worker = start_call_on_new_worker(&c, &t);
  pid_t inner[8];
  assert_int_equal(children_of(worker, inner, 8), 1);
  char dir[64];
  snprintf(dir, sizeof dir, "/proc/%d/task", (int)inner[0]);
  DIR *d = opendir(dir);
  assert_non_null(d);
  int threads = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char path[400], line[256];
    snprintf(path, sizeof path, "%s/%s/status", dir, e->d_name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int locked = 0;
    while (fgets(line, sizeof line, f)) {
      if (!strcmp(line, "Seccomp:\t2\n") || !strcmp(line, "NoNewPrivs:\t1\n") ||
          !strcmp(line, "CapEff:\t0000000000000000\n") || !strcmp(line, "CapBnd:\t0000000000000000\n"))
        locked++;
    }
    fclose(f);
    if (locked != 4) fprintf(stderr, "thread %s of the worker is not locked\n", e->d_name);
    assert_int_equal(locked, 4);
    threads++;
  }
  closedir(d);
  assert_true(threads >= 2); /* the one listening for cancels, the one running the guest */
  signal_worker(worker, SIGKILL);
  pthread_join(t, NULL);
  assert_non_null(c.res);
  wasmbox_result_free(c.res);
  rm_tree(ws);
  free(ws);
}

static void test_worker_killed_mid_call(void **s) {
  (void)s;
  char *ws = make_dir(); /* a placement of its own: a new worker */
  call_t c = {.req = {.code = "while True: pass", .workspace = ws, .timeout_seconds = 20}};
  signal_worker_mid_call(&c, SIGKILL);
  expect_status(c.res, WASMBOX_STATUS_CRASHED);
  assert_non_null(strstr(c.res->error_message, "killed by signal 9"));
  assert_true(c.res->duration_ms < 5000);
  wasmbox_result_free(c.res);
  expect_output("print('next call fine')", ws, "next call fine\n");
  rm_tree(ws);
  free(ws);
}

/* A cancel reaches a worker apart from its calls (worker_protocol.h): the
 * guest stops, and the worker stays for the next call. */
static void test_cancel_keeps_the_worker(void **s) {
  (void)s;
  char *ws = make_dir();
  wasmbox_cancel *tok = wasmbox_cancel_new();
  call_t c = {.req = {.code = "while True: pass", .workspace = ws, .timeout_seconds = 20, .cancel = tok}};
  pthread_t t;
  pid_t worker = start_call_on_new_worker(&c, &t);
  double t0 = wb_monotonic_s();
  wasmbox_cancel_fire(tok);
  pthread_join(t, NULL);
  assert_true(wb_monotonic_s() - t0 < 1);
  expect_status(c.res, WASMBOX_STATUS_CANCELLED);
  wasmbox_result_free(c.res);
  wasmbox_cancel_free(tok);
  expect_output("print('after the cancel')", ws, "after the cancel\n");
  pid_t now[64];
  size_t n = children(now, 64);
  bool same = false;
  for (size_t i = 0; i < n; i++) same |= now[i] == worker;
  assert_true(same); /* the call ran in the worker that was cancelled */
  rm_tree(ws);
  free(ws);
}

/* A worker whose parent dies mid-call stops its guest and ends: it is
 * not left spinning until the call's timeout. (This process takes the
 * orphans as their subreaper, to see them end.) */
static void test_worker_ends_with_its_parent(void **s) {
  (void)s;
  char *ws = make_dir();
  assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  fflush(NULL);
  pid_t parent = fork();
  assert_true(parent >= 0);
  if (parent == 0) {
    char err[256];
    wasmbox *w = wasmbox_new(err, sizeof err);
    wasmbox_request req = {.code = "while True: pass", .workspace = ws, .timeout_seconds = 60};
    wasmbox_result *r = NULL;
    if (w) wasmbox_run(w, &req, &r, err, sizeof err);
    _exit(1);
  }
  pid_t worker[8];
  size_t n = 0;
  for (int tries = 0; tries < 500 && !n; tries++) {
    usleep(20 * 1000);
    n = children_of(parent, worker, 8);
  }
  assert_int_equal(n, 1);
  usleep(500 * 1000); /* well into the call */
  kill(parent, SIGKILL);
  assert_int_equal(waitpid(parent, NULL, 0), parent);
  double t0 = wb_monotonic_s();
  pid_t got = 0;
  while (got == 0 && wb_monotonic_s() - t0 < 20) {
    got = waitpid(worker[0], NULL, WNOHANG);
    if (got == 0) usleep(10 * 1000);
  }
  assert_int_equal(got, worker[0]);
  assert_true(wb_monotonic_s() - t0 < 10); /* far from the 60 s, with room for a loaded machine under ASan */
  assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
  rm_tree(ws);
  free(ws);
}

static void test_worker_seccomp_death_is_named(void **s) {
  (void)s;
  char *ws = make_dir();
  call_t c = {.req = {.code = "while True: pass", .workspace = ws, .timeout_seconds = 20}};
  signal_worker_mid_call(&c, SIGSYS);
  expect_status(c.res, WASMBOX_STATUS_CRASHED);
  assert_non_null(strstr(c.res->error_message, "forbidden system call"));
  wasmbox_result_free(c.res);
  expect_output("print(1)", ws, "1\n");
  rm_tree(ws);
  free(ws);
}

static void test_stuck_worker_is_stopped_at_its_deadline(void **s) {
  (void)s;
  char *ws = make_dir();
  call_t c = {.req = {.code = "while True: pass", .workspace = ws, .timeout_seconds = 0.5, .memory_bytes = 64 << 20}};
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  signal_worker_mid_call(&c, SIGSTOP); /* it can no longer stop the guest or answer */
  clock_gettime(CLOCK_MONOTONIC, &t1);
  expect_status(c.res, WASMBOX_STATUS_TIMEOUT);
  assert_non_null(strstr(c.res->error_message, "worker was stopped"));
  double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  assert_true(took < 6); /* 0.5 s + a grace of 2 s and change */
  wasmbox_result_free(c.res);
  expect_output("print(2)", ws, "2\n");
  rm_tree(ws);
  free(ws);
}

static void test_session_survives_its_worker(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], err[256];
  assert_int_equal(wasmbox_session_create(test_wb, NULL, id, err, sizeof err), WASMBOX_OK);
  wasmbox_request first = {.code = "x = 1\nopen('f', 'w').write('one')", .session_id = id};
  wasmbox_result *r = run_req(&first);
  expect_status(r, WASMBOX_STATUS_OK);
  wasmbox_result_free(r);
  call_t c = {
      .req = {.code = "x = 2\nopen('f', 'w').write('two')\nwhile True: pass", .session_id = id, .timeout_seconds = 20}};
  /* the session's worker already exists: kill whichever child runs it */
  pid_t before[64];
  size_t nb = children(before, 64);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, call_thread, &c), 0);
  struct timespec ts = {0, 500 * 1000 * 1000};
  nanosleep(&ts, NULL);
  for (size_t i = 0; i < nb; i++) signal_worker(before[i], SIGKILL); /* the session's is among them */
  pthread_join(t, NULL);
  assert_non_null(c.res);
  expect_status(c.res, WASMBOX_STATUS_CRASHED);
  assert_true(c.res->session_rolled_back);
  wasmbox_result_free(c.res);
  wasmbox_request check = {.code = "print(x, open('f').read())", .session_id = id};
  r = run_req(&check);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "1 one\n");
  wasmbox_result_free(r);
  assert_int_equal(wasmbox_session_destroy(test_wb, id, err, sizeof err), WASMBOX_OK);
}

/* Workers killed at random points of session calls (while the guest runs,
 * while the state is saved, while the answer goes back, while idle): each
 * call says whether its state was kept, and the session's counter always
 * equals the calls that said so; a worker killed idle fails no call. */
static void test_session_worker_killed_at_random_points(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], err[256];
  assert_int_equal(wasmbox_session_create(test_wb, NULL, id, err, sizeof err), WASMBOX_OK);
  wasmbox_request first = {.code = "import os\nn = 0", .session_id = id};
  wasmbox_result *r = run_req(&first);
  wasmbox_result_free(r);
  srand((unsigned)time(NULL));
  int committed = 0, crashed = 0;
  for (int round = 0; round < 30; round++) {
    call_t c = {.req = {.code = "n += 1\nblob = os.urandom(4 << 20)\nprint(n)", .session_id = id}};
    pid_t workers[64];
    size_t nw = children(workers, 64);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, call_thread, &c), 0);
    struct timespec ts = {0, (long)(rand() % 40) * 1000 * 1000};
    nanosleep(&ts, NULL);
    for (size_t i = 0; i < nw; i++) signal_worker(workers[i], SIGKILL); /* the session's is among them */
    pthread_join(t, NULL);
    assert_non_null(c.res);
    if (c.res->status != WASMBOX_STATUS_OK) {
      expect_status(c.res, WASMBOX_STATUS_CRASHED);
      crashed++;
    }
    /* killed after its commit, a call says it crashed but was kept */
    if (!c.res->session_rolled_back) committed++;
    wasmbox_result_free(c.res);
    wasmbox_request check = {.code = "print(n)", .session_id = id};
    r = run_req(&check);
    expect_status(r, WASMBOX_STATUS_OK);
    if (atoi(r->stdout_data) != committed)
      fail_msg("round %d: the session counts %d, the callers were told of %d commits", round, atoi(r->stdout_data),
               committed);
    wasmbox_result_free(r);
  }
  fprintf(stderr, "%d calls committed, %d killed\n", committed, crashed);
  assert_true(crashed > 0);
  assert_int_equal(wasmbox_session_destroy(test_wb, id, err, sizeof err), WASMBOX_OK);
}

/* A worker sees the directory that was there when it started: a workspace
 * removed and made again under the same name gets a worker of its own. */
static void test_workspace_made_again(void **s) {
  (void)s;
  char *ws = make_dir();
  expect_output("open('a', 'w').write('first')", ws, "");
  rm_tree(ws);
  assert_int_equal(mkdir(ws, 0700), 0);
  expect_output("import os\nprint(os.listdir('.'))\nopen('b', 'w').write('second')", ws, "[]\n");
  char p[4200];
  snprintf(p, sizeof p, "%s/b", ws);
  struct stat st;
  assert_int_equal(stat(p, &st), 0); /* landed in the new directory */
  rm_tree(ws);
  free(ws);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_seccomp_kills_forbidden_calls),
      cmocka_unit_test(test_seccomp_allows_threads_only),
      cmocka_unit_test(test_landlock_paths),
      cmocka_unit_test(test_landlock_network_and_signals),
      cmocka_unit_test(test_namespaces_and_mount_view),
      cmocka_unit_test(test_full_jail_death_reaches_the_parent),
      cmocka_unit_test(test_rlimits),
      cmocka_unit_test(test_cpu_budget_ends_a_spinning_worker),
      cmocka_unit_test(test_capabilities_dropped),
      cmocka_unit_test(test_cgroup_pids),
      cmocka_unit_test(test_cgroup_memory),
      cmocka_unit_test(test_cgroup_stale_name),
      cmocka_unit_test(test_every_layer_active),
      cmocka_unit_test(test_every_thread_of_a_worker_is_locked),
      cmocka_unit_test(test_worker_killed_mid_call),
      cmocka_unit_test(test_session_worker_killed_at_random_points),
      cmocka_unit_test(test_worker_seccomp_death_is_named),
      cmocka_unit_test(test_cancel_keeps_the_worker),
      cmocka_unit_test(test_worker_ends_with_its_parent),
      cmocka_unit_test(test_stuck_worker_is_stopped_at_its_deadline),
      cmocka_unit_test(test_session_survives_its_worker),
      cmocka_unit_test(test_workspace_made_again),
  };
  return cmocka_run_group_tests_name("jail", tests, harness_setup, harness_teardown);
}
