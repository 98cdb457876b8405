/* The jail's order of layers (see jail.h), its report, rlimits, and the
 * fork that makes a worker pid 1 of its own pid namespace. */
#include "jail/jail.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

const char *wb_layer_name(wb_layer l) {
  static const char *const names[WB_LAYER_COUNT] = {
      "rlimits", "cgroup_pids", "cgroup_memory", "user_ns",      "mount_ns", "pid_ns",       "net_ns",
      "ipc_ns",  "uts_ns",      "mount_view",    "no_new_privs", "landlock", "capabilities", "seccomp"};
  return (unsigned)l < WB_LAYER_COUNT ? names[l] : "unknown";
}

void wb_report_set(wb_jail_report *r, wb_layer l, bool active, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  r->active[l] = active;
  vsnprintf(r->detail[l], sizeof r->detail[l], fmt, ap);
  va_end(ap);
}

void wb_jail_rlimits(const wb_jail_spec *spec, wb_jail_report *rep) {
  struct rlimit core = {0, 0};
  struct rlimit fds = {spec->max_fds, spec->max_fds};
  struct rlimit fsize = {spec->max_file_bytes, spec->max_file_bytes};
  /* a lifetime cap; each call narrows the soft limit (wb_jail_cpu_budget) */
  struct rlimit cpu = {48 * 3600, 48 * 3600};
  const char *failed = setrlimit(RLIMIT_CORE, &core)                             ? "core"
                       : spec->max_fds && setrlimit(RLIMIT_NOFILE, &fds)         ? "nofile"
                       : spec->max_file_bytes && setrlimit(RLIMIT_FSIZE, &fsize) ? "fsize"
                       : setrlimit(RLIMIT_CPU, &cpu)                             ? "cpu"
                                                                                 : NULL;
  if (failed) wb_report_set(rep, WB_LAYER_RLIMITS, false, "setrlimit(%s): %s", failed, strerror(errno));
  else
    wb_report_set(rep, WB_LAYER_RLIMITS, true, "no core dumps, %u fds, files up to %llu MB, CPU per call",
                  spec->max_fds, (unsigned long long)(spec->max_file_bytes >> 20));
}

void wb_jail_cpu_budget(double seconds) {
  /* The limit is in whole seconds, so from one call to the next it mostly
   * stays: it is set only when it changes (two system calls fewer a call).
   * One caller, a worker's call thread: plain statics. */
  static struct rlimit cpu;
  static bool known;
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0 || (!known && getrlimit(RLIMIT_CPU, &cpu) != 0)) return;
  rlim_t used = (rlim_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec);
  rlim_t soft = used + (rlim_t)seconds + 2;
  if (cpu.rlim_max != RLIM_INFINITY && soft > cpu.rlim_max) soft = cpu.rlim_max;
  if (known && soft == cpu.rlim_cur) return;
  cpu.rlim_cur = soft;
  known = setrlimit(RLIMIT_CPU, &cpu) == 0; /* if not, the next call reads the limit again */
}

/* Wait for the pid-1 child and end the same way, so that the worker's
 * parent sees the real cause (a seccomp kill is SIGSYS, not "exit 0"). */
static void mirror(pid_t child) {
  int st;
  while (waitpid(child, &st, 0) < 0 && errno == EINTR) {}
  if (WIFSIGNALED(st)) {
    int sig = WTERMSIG(st);
    signal(sig, SIG_DFL);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    raise(sig);
    _exit(128 + sig);
  }
  _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}

bool wb_jail_enter(const wb_jail_spec *spec, wb_jail_report *rep, void (*before_view)(void *), void *ctx, char *err,
                   size_t errlen) {
  wb_jail_rlimits(spec, rep);
  wb_jail_namespaces(rep);
  int net[2] = {-1, -1}; /* the network namespace, from the outer process to the inner one */
  if (unshare(CLONE_NEWPID) != 0) {
    wb_report_set(rep, WB_LAYER_PID_NS, false, "unshare: %s", strerror(errno));
  } else {
    int ns_dir = open("/proc/self/ns", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (ns_dir < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, net) != 0) net[0] = net[1] = -1;
    pid_t child = fork();
    if (child < 0) {
      wb_report_set(rep, WB_LAYER_PID_NS, false, "fork: %s", strerror(errno));
      if (net[0] >= 0) close(net[0]), close(net[1]);
      net[0] = net[1] = -1;
    } else if (child > 0) {
      if (net[0] >= 0) wb_jail_net_send(net[0], ns_dir);
      syscall(SYS_close_range, 3u, ~0u, 0u);
      mirror(child);
    } else {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      wb_report_set(rep, WB_LAYER_PID_NS, getpid() == 1, "pid %d of its own namespace", (int)getpid());
      if (net[0] >= 0) close(net[0]);
    }
    if (ns_dir >= 0) close(ns_dir);
  }
  if (before_view) before_view(ctx);
  bool ok = wb_jail_mount_view(spec, rep, err, errlen);
  wb_jail_net_join(net[1], rep); /* -1: made here */
  if (net[1] >= 0) close(net[1]);
  return ok;
}

void wb_jail_capabilities(wb_jail_report *rep) {
  for (int c = 0; c <= 63; c++)
    if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0 && errno == EINVAL) break;
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  struct __user_cap_data_struct d[2];
  memset(d, 0, sizeof d);
  if (syscall(SYS_capset, &h, d) != 0) wb_report_set(rep, WB_LAYER_CAPABILITIES, false, "capset: %s", strerror(errno));
  else wb_report_set(rep, WB_LAYER_CAPABILITIES, true, "none left (bounding, ambient, effective)");
}

/* The process's thread count from /proc/self/status; 0 if unreadable. */
static long thread_count(void) {
  FILE *f = fopen("/proc/self/status", "re");
  char line[256];
  long n = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %ld", &n) == 1) break;
  if (f) fclose(f);
  return n;
}

void wb_jail_lock(const wb_jail_spec *spec, wb_jail_report *rep) {
  long threads = thread_count();
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    wb_report_set(rep, WB_LAYER_NO_NEW_PRIVS, false, "prctl: %s", strerror(errno));
  else wb_report_set(rep, WB_LAYER_NO_NEW_PRIVS, true, "set");
  wb_jail_landlock(spec, rep);
  wb_jail_capabilities(rep);
  wb_jail_seccomp(rep);
  /* each of these binds the calling thread and the threads it starts later,
   * not a thread already running: say so rather than claim them */
  if (threads != 1) {
    static const wb_layer per_thread[] = {WB_LAYER_NO_NEW_PRIVS, WB_LAYER_LANDLOCK, WB_LAYER_CAPABILITIES,
                                          WB_LAYER_SECCOMP};
    for (size_t i = 0; i < sizeof per_thread / sizeof per_thread[0]; i++)
      if (threads) wb_report_set(rep, per_thread[i], false, "%ld threads were running: it binds only one", threads);
      else wb_report_set(rep, per_thread[i], false, "cannot count the threads (/proc/self/status)");
  }
}
