/* Namespaces and the mount view of a worker (see jail.h).
 *
 * The view is built the way bubblewrap builds one: a tmpfs becomes the
 * root with the old root under /oldroot; each allowed path is bound from
 * /oldroot to the same path under /newroot; then /newroot becomes the root
 * and the old one is detached. What is not bound does not exist. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jail/jail.h"

static bool write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
  close(fd);
  return ok;
}

/* Root of the new user namespace is our own uid and gid outside: files the
 * guest writes belong to whoever runs wasmbox. */
static bool map_ids(uid_t uid, gid_t gid) {
  char m[64];
  snprintf(m, sizeof m, "0 %u 1\n", (unsigned)uid);
  if (!write_file("/proc/self/uid_map", m)) return false;
  write_file("/proc/self/setgroups", "deny\n");
  snprintf(m, sizeof m, "0 %u 1\n", (unsigned)gid);
  return write_file("/proc/self/gid_map", m);
}

void wb_jail_namespaces(wb_jail_report *rep) {
  uid_t uid = geteuid();
  gid_t gid = getegid();
  if (unshare(CLONE_NEWUSER) != 0) wb_report_set(rep, WB_LAYER_USER_NS, false, "unshare: %s", strerror(errno));
  else if (!map_ids(uid, gid)) wb_report_set(rep, WB_LAYER_USER_NS, false, "id maps: %s", strerror(errno));
  else wb_report_set(rep, WB_LAYER_USER_NS, true, "uid %u is root inside, nobody else exists", (unsigned)uid);
  static const struct {
    int flag;
    wb_layer layer;
    const char *what;
  } ns[] = {{CLONE_NEWNS, WB_LAYER_MOUNT_NS, "own mount table"},
            {CLONE_NEWIPC, WB_LAYER_IPC_NS, "own System V IPC and POSIX queues"},
            {CLONE_NEWUTS, WB_LAYER_UTS_NS, "own host name"}};
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
    if (unshare(ns[i].flag) != 0) wb_report_set(rep, ns[i].layer, false, "unshare: %s", strerror(errno));
    else wb_report_set(rep, ns[i].layer, true, "%s", ns[i].what);
  }
  /* a new UTS namespace starts with a copy of the host's name: replace it */
  if (rep->active[WB_LAYER_UTS_NS] && sethostname("wasmbox", 7) != 0)
    wb_report_set(rep, WB_LAYER_UTS_NS, true, "own host name (still the host's: sethostname: %s)", strerror(errno));
}

/* Making a network namespace costs ~0.4 ms, as long as the mount view, so
 * a worker's outer process makes it while the inner one builds its view:
 * it sends the namespace's descriptor (or its errno) over `sock`, and the
 * inner process enters it. ns_dir is the outer process's /proc/<pid>/ns,
 * opened before the fork: the inner process's pivot_root may already have
 * replaced /proc (they share the mount table). */
void wb_jail_net_send(int sock, int ns_dir) {
  int fd = unshare(CLONE_NEWNET) == 0 ? openat(ns_dir, "net", O_RDONLY | O_CLOEXEC) : -1;
  int e = fd < 0 ? errno : 0;
  union {
    char bytes[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } ctl;
  memset(&ctl, 0, sizeof ctl);
  struct iovec iov = {.iov_base = &e, .iov_len = sizeof e};
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
  if (fd >= 0) {
    m.msg_control = ctl.bytes;
    m.msg_controllen = sizeof ctl.bytes;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fd);
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
  }
  (void)!sendmsg(sock, &m, MSG_NOSIGNAL); /* if it fails, the inner process says so */
  if (fd >= 0) close(fd);
}

void wb_jail_net_join(int sock, wb_jail_report *rep) {
  static const char what[] = "no network interfaces but a down loopback";
  if (sock < 0) { /* no outer process: make it here */
    if (unshare(CLONE_NEWNET) != 0) wb_report_set(rep, WB_LAYER_NET_NS, false, "unshare: %s", strerror(errno));
    else wb_report_set(rep, WB_LAYER_NET_NS, true, "%s", what);
    return;
  }
  int e = 0, fd = -1;
  union {
    char bytes[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } ctl;
  struct iovec iov = {.iov_base = &e, .iov_len = sizeof e};
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.bytes, .msg_controllen = sizeof ctl.bytes};
  ssize_t n;
  while ((n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
  struct cmsghdr *c = n == (ssize_t)sizeof e ? CMSG_FIRSTHDR(&m) : NULL;
  if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof fd))
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
  if (n != (ssize_t)sizeof e) wb_report_set(rep, WB_LAYER_NET_NS, false, "the outer process sent no namespace");
  else if (e || fd < 0) wb_report_set(rep, WB_LAYER_NET_NS, false, "unshare: %s", strerror(e ? e : EBADF));
  else if (setns(fd, CLONE_NEWNET) != 0) wb_report_set(rep, WB_LAYER_NET_NS, false, "setns: %s", strerror(errno));
  else wb_report_set(rep, WB_LAYER_NET_NS, true, "%s", what);
  if (fd >= 0) close(fd);
}

static bool mkdirs(char *path) {
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    int r = mkdir(path, 0755);
    *p = '/';
    if (r != 0 && errno != EEXIST) return false;
  }
  return mkdir(path, 0755) == 0 || errno == EEXIST;
}

/* Flags a bind remount must keep: in a user namespace the kernel refuses to
 * clear the atime and nosuid/nodev/noexec flags a mount came with. */
static unsigned long locked_flags(const char *path) {
  struct statvfs v;
  unsigned long f = 0;
  if (statvfs(path, &v) != 0) return 0;
  if (v.f_flag & ST_NOATIME) f |= MS_NOATIME;
  if (v.f_flag & ST_NODIRATIME) f |= MS_NODIRATIME;
  if (v.f_flag & ST_RELATIME) f |= MS_RELATIME;
  return f;
}

#define FAIL(...) (snprintf(err, errlen, __VA_ARGS__), false)

static bool bind_one(const wb_jail_path *p, char *err, size_t errlen) {
  char from[4200], to[4200];
  snprintf(from, sizeof from, "/oldroot%s", p->path);
  snprintf(to, sizeof to, "/newroot%s", p->path);
  if (p->tmpfs) {
    if (!mkdirs(to) || mount("tmpfs", to, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700") != 0)
      return FAIL("cannot make a tmpfs at %s in the view: %s", p->path, strerror(errno));
    return true;
  }
  if (p->is_file) {
    char *slash = strrchr(to, '/');
    *slash = 0;
    bool ok = mkdirs(to);
    *slash = '/';
    int fd = ok ? open(to, O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;
    if (fd < 0 && errno != EROFS && errno != EEXIST)
      return FAIL("cannot make %s in the view: %s", p->path, strerror(errno));
    if (fd >= 0) close(fd);
  } else if (!mkdirs(to)) {
    return FAIL("cannot make %s in the view: %s", p->path, strerror(errno));
  }
  if (mount(from, to, NULL, MS_BIND | MS_REC, NULL) != 0) return FAIL("cannot bind %s: %s", p->path, strerror(errno));
  unsigned long f = MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | MS_NOEXEC | locked_flags(to);
  if (!p->writable) f |= MS_RDONLY;
  if (mount(NULL, to, NULL, f, NULL) != 0) return FAIL("cannot restrict %s: %s", p->path, strerror(errno));
  return true;
}

bool wb_jail_mount_view(const wb_jail_spec *spec, wb_jail_report *rep, char *err, size_t errlen) {
  if (!rep->active[WB_LAYER_MOUNT_NS]) {
    wb_report_set(rep, WB_LAYER_MOUNT_VIEW, false, "needs a mount namespace");
    return true;
  }
  if (geteuid() != 0) { /* an unmapped user namespace cannot make files */
    wb_report_set(rep, WB_LAYER_MOUNT_VIEW, false, "needs root of a user namespace");
    return true;
  }
  /* Until the tmpfs is in place nothing has changed: a refusal here only
   * leaves the layer off. */
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
      mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") != 0) {
    wb_report_set(rep, WB_LAYER_MOUNT_VIEW, false, "tmpfs: %s", strerror(errno));
    return true;
  }
  if (mkdir("/tmp/newroot", 0755) != 0 || mkdir("/tmp/oldroot", 0755) != 0 ||
      syscall(SYS_pivot_root, "/tmp", "/tmp/oldroot") != 0 || chdir("/") != 0)
    return FAIL("mount view: cannot switch to the new root: %s", strerror(errno));
  if (mount("/newroot", "/newroot", NULL, MS_BIND | MS_REC, NULL) != 0) return FAIL("mount view: %s", strerror(errno));
  /* directories first (longest paths last, so inner binds land on outer
   * ones), then single files bound over entries of those directories */
  for (int files = 0; files < 2; files++) {
    bool done[WB_JAIL_PATHS_MAX] = {false};
    for (size_t k = 0; k < spec->npaths; k++) {
      size_t pick = spec->npaths;
      for (size_t i = 0; i < spec->npaths; i++) {
        if (done[i] || spec->paths[i].is_file != (files == 1)) continue;
        if (pick == spec->npaths || strlen(spec->paths[i].path) < strlen(spec->paths[pick].path)) pick = i;
      }
      if (pick == spec->npaths) break;
      done[pick] = true;
      if (!bind_one(&spec->paths[pick], err, errlen)) return false;
    }
  }
  bool proc = mkdir("/newroot/proc", 0555) == 0 &&
              mount("proc", "/newroot/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0;
  int proc_errno = errno;
  if (umount2("/oldroot", MNT_DETACH) != 0 || chdir("/newroot") != 0 || syscall(SYS_pivot_root, ".", ".") != 0 ||
      umount2(".", MNT_DETACH) != 0 || chdir("/") != 0)
    return FAIL("mount view: cannot leave the old root: %s", strerror(errno));
  if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
    return FAIL("mount view: cannot make the root read-only: %s", strerror(errno));
  wb_report_set(rep, WB_LAYER_MOUNT_VIEW, true, "%zu host paths%s", spec->npaths, proc ? " and its own /proc" : "");
  if (!proc)
    snprintf(rep->detail[WB_LAYER_MOUNT_VIEW], sizeof rep->detail[0], "%zu host paths, no /proc (%s)", spec->npaths,
             strerror(proc_errno));
  return true;
}
