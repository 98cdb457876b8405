/* mkseccomp OUT.h: the jail's seccomp-bpf allowlist (src/jail/jail.h),
 * compiled by libseccomp at build time into a C header that
 * src/jail/jail_seccomp.c loads with one system call.
 *
 * Why at build time: in every worker, libseccomp spent 0.18 ms building and
 * compiling the filter (its rule tree, its export, its probes of the
 * kernel), and the kernel 0.13 ms checking the linear program it made (125
 * instructions) against every system call number. Here libseccomp is asked
 * for a binary tree of comparisons (SCMP_FLTATR_CTL_OPTIMIZE 2), which the
 * kernel checks in 0.04 ms. A whole `wasmbox run -c 'print(1)'` went from
 * 3.74 to 3.45 ms (medians of 100 alternating runs).
 *
 * The one rule that depends on the process, tgkill to itself only, is
 * compiled against a placeholder pid (no real pid exceeds 2^22); the header
 * lists the instructions that hold it, and the loader writes its own pid
 * there. The API level is pinned to 3 (KILL_PROCESS, nothing newer), so the
 * output does not depend on the kernel of the machine that builds it.
 * Exit status 0, or 1 with a message. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "wasm_rt/tracker.h"

#define PLACEHOLDER_PID 0x5ecc0de5u
#define MAX_INSNS 4096

/* What a worker needs to run guest code through the WASI host, serve its
 * parent over the socket it already has, and keep a session on disk.
 * Anything else ends the process (SIGSYS): no sockets, exec, processes,
 * ptrace, mounts, bpf, keys, io_uring, userfaultfd, perf events,
 * personality, namespaces. One group of calls a line. */
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

static void fail(const char *what, int rc) {
  fprintf(stderr, "mkseccomp: %s: %s\n", what, strerror(rc < 0 ? -rc : rc));
  exit(1);
}

/* The rules: the plain allowlist, then those that look at an argument. */
static int add_rules(scmp_filter_ctx ctx) {
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
  if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, PLACEHOLDER_PID));
  /* isatty() on the standard streams; following the guest's writes to its
   * own memory (wasm_rt/tracker.h, on descriptors opened before the jail) */
  if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, TCGETS));
  for (int i = 0; rc == 0 && i < WB_TRACK_IOCTLS; i++)
    rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, wb_track_ioctls[i]));
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: mkseccomp OUT.h\n");
    return 2;
  }
  int rc = seccomp_api_set(3);
  if (rc) fail("seccomp_api_set(3)", rc);
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
  if (!ctx) fail("seccomp_init", EINVAL);
  if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2))) fail("a binary tree (SCMP_FLTATR_CTL_OPTIMIZE)", rc);
  if ((rc = add_rules(ctx))) fail("seccomp_rule_add", rc);

  /* libseccomp 2.5 exports to a descriptor only */
  FILE *bpf = tmpfile();
  if (!bpf) fail("tmpfile", errno);
  if ((rc = seccomp_export_bpf(ctx, fileno(bpf)))) fail("seccomp_export_bpf", rc);
  seccomp_release(ctx);
  static struct sock_filter insns[MAX_INSNS + 1];
  rewind(bpf);
  size_t bytes = fread(insns, 1, sizeof insns, bpf);
  if (bytes == 0 || bytes % sizeof insns[0] || bytes > MAX_INSNS * sizeof insns[0])
    fail("the exported program", EINVAL);
  size_t n = bytes / sizeof insns[0];

  /* where the placeholder pid is: compared with, by jeq, and nowhere else */
  size_t pid_at[8], npid = 0;
  for (size_t i = 0; i < n; i++) {
    if (insns[i].k != PLACEHOLDER_PID) continue;
    if (insns[i].code != (BPF_JMP | BPF_JEQ | BPF_K) || npid == sizeof pid_at / sizeof pid_at[0])
      fail("the placeholder pid is used other than as a jeq operand", EINVAL);
    pid_at[npid++] = i;
  }
  if (npid == 0) fail("the placeholder pid is not in the program", EINVAL);

  FILE *out = fopen(argv[1], "w");
  if (!out) fail(argv[1], errno);
  fprintf(out, "/* generated by tools/mkseccomp from its allowlist: the worker's seccomp filter */\n");
  fprintf(out, "#define WB_SECCOMP_CALLS %zu /* system calls allowed, with or without conditions */\n",
          sizeof allowed / sizeof allowed[0] + 4);
  fprintf(out, "static const struct sock_filter wb_seccomp_program[%zu] = {\n", n);
  for (size_t i = 0; i < n; i++)
    fprintf(out, "    {0x%04x, %u, %u, 0x%08x},\n", insns[i].code, insns[i].jt, insns[i].jf, insns[i].k);
  fprintf(out, "};\n/* the instructions that compare with the worker's own pid (tgkill) */\n");
  fprintf(out, "static const unsigned short wb_seccomp_pid_at[%zu] = {", npid);
  for (size_t i = 0; i < npid; i++) fprintf(out, "%s%zu", i ? ", " : "", pid_at[i]);
  fprintf(out, "};\n");
  if (fclose(out) != 0) fail(argv[1], errno);
  return 0;
}
