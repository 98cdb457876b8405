/* The seccomp-bpf allowlist (see jail.h): what a worker needs to run guest
 * code through the WASI host, serve its parent over the socket it already
 * has, and keep a session on disk. Anything else ends the process (SIGSYS):
 * no sockets, exec, processes, ptrace, mounts, bpf, keys, io_uring,
 * userfaultfd, perf events, personality, namespaces. */
#include <errno.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "wasm_rt/tracker.h"
#include "jail/jail.h"

/* one group of calls a line */
/* clang-format off */
static const int allowed[] = {
    /* files, beneath the Landlocked paths */
    SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev), SCMP_SYS(pread64), SCMP_SYS(pwrite64),
    SCMP_SYS(preadv), SCMP_SYS(pwritev), SCMP_SYS(preadv2), SCMP_SYS(pwritev2), SCMP_SYS(lseek), SCMP_SYS(close),
    SCMP_SYS(openat), SCMP_SYS(openat2), SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(statx),
    SCMP_SYS(getdents64), SCMP_SYS(mkdirat), SCMP_SYS(unlinkat), SCMP_SYS(renameat), SCMP_SYS(renameat2),
    SCMP_SYS(linkat), SCMP_SYS(symlinkat), SCMP_SYS(readlinkat), SCMP_SYS(fchmod), SCMP_SYS(fchmodat),
    SCMP_SYS(ftruncate), SCMP_SYS(fallocate), SCMP_SYS(fsync), SCMP_SYS(fdatasync), SCMP_SYS(utimensat),
    SCMP_SYS(faccessat), SCMP_SYS(faccessat2), SCMP_SYS(fcntl), SCMP_SYS(flock), SCMP_SYS(dup), SCMP_SYS(dup3),
    SCMP_SYS(copy_file_range), SCMP_SYS(fadvise64), SCMP_SYS(statfs), SCMP_SYS(fstatfs), SCMP_SYS(getcwd),
    SCMP_SYS(fchdir), SCMP_SYS(umask), SCMP_SYS(memfd_create), SCMP_SYS(eventfd2), SCMP_SYS(poll), SCMP_SYS(ppoll),
    SCMP_SYS(sendmsg), /* frames to the parent, on the socket it already has */
    /* memory */
    SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mprotect), SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(brk),
    SCMP_SYS(mincore),
    /* threads, signals, time */
    SCMP_SYS(futex), SCMP_SYS(set_robust_list), SCMP_SYS(get_robust_list), SCMP_SYS(rseq),
    SCMP_SYS(set_tid_address), SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(getpid), SCMP_SYS(gettid),
    SCMP_SYS(getppid), SCMP_SYS(sched_yield), SCMP_SYS(sched_getaffinity), SCMP_SYS(rt_sigaction),
    SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn), SCMP_SYS(sigaltstack), SCMP_SYS(restart_syscall),
    SCMP_SYS(timer_create), SCMP_SYS(timer_settime), SCMP_SYS(timer_gettime), SCMP_SYS(timer_delete),
    SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres), SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep),
    SCMP_SYS(gettimeofday), SCMP_SYS(getrandom),
    /* its own limits and identity */
    SCMP_SYS(prlimit64), SCMP_SYS(getrlimit), SCMP_SYS(setrlimit), SCMP_SYS(getrusage), SCMP_SYS(uname),
    SCMP_SYS(getuid), SCMP_SYS(geteuid), SCMP_SYS(getgid), SCMP_SYS(getegid),
    SCMP_SYS(sysinfo), /* glibc's qsort sizes its buffer by the machine's memory */
};
/* clang-format on */

void wb_jail_seccomp(wb_jail_report *rep) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
  if (!ctx) {
    wb_report_set(rep, WB_LAYER_SECCOMP, false, "seccomp_init failed");
    return;
  }
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < sizeof allowed / sizeof allowed[0]; i++)
    rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0);
  /* threads only: a clone without CLONE_THREAD would be a new process;
   * clone3 hides its flags from the filter, so glibc is told it does not
   * exist and falls back to clone */
  if (rc == 0)
    rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                          SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
  if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  /* signals to its own threads only (the guest timer, cancellation) */
  if (rc == 0)
    rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid()));
  /* isatty() on the standard streams; following the guest's writes to its
   * own memory (wasm_rt/tracker.h, on descriptors opened before the jail) */
  if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, TCGETS));
  for (int i = 0; rc == 0 && i < WB_TRACK_IOCTLS; i++)
    rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, wb_track_ioctls[i]));
  if (rc == 0) rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc != 0) wb_report_set(rep, WB_LAYER_SECCOMP, false, "cannot load the filter: %s", strerror(-rc));
  else
    wb_report_set(rep, WB_LAYER_SECCOMP, true, "allowlist of %zu system calls, kill on any other",
                  sizeof allowed / sizeof allowed[0] + 4);
}
