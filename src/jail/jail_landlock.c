/* Landlock (see jail.h). Debian 12's headers know ABI 2; the constants of
 * later ABIs are defined here and used only when the running kernel says
 * it has them. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jail/jail.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

#define LL_CREATE_RULESET_VERSION (1u << 0)
#define LL_RULE_PATH_BENEATH 1

/* file system rights, by the ABI that brought them */
#define LL_EXECUTE (1ull << 0)
#define LL_WRITE_FILE (1ull << 1)
#define LL_READ_FILE (1ull << 2)
#define LL_READ_DIR (1ull << 3)
#define LL_REMOVE_DIR (1ull << 4)
#define LL_REMOVE_FILE (1ull << 5)
#define LL_MAKE_CHAR (1ull << 6)
#define LL_MAKE_DIR (1ull << 7)
#define LL_MAKE_REG (1ull << 8)
#define LL_MAKE_SOCK (1ull << 9)
#define LL_MAKE_FIFO (1ull << 10)
#define LL_MAKE_BLOCK (1ull << 11)
#define LL_MAKE_SYM (1ull << 12)
#define LL_REFER (1ull << 13)     /* ABI 2 */
#define LL_TRUNCATE (1ull << 14)  /* ABI 3 */
#define LL_IOCTL_DEV (1ull << 15) /* ABI 5 */
/* network (ABI 4) and scopes (ABI 6) */
#define LL_NET_BIND_TCP (1ull << 0)
#define LL_NET_CONNECT_TCP (1ull << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ull << 0)
#define LL_SCOPE_SIGNAL (1ull << 1)

struct ll_ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net; /* ABI 4 */
  uint64_t scoped;             /* ABI 6 */
};

struct ll_path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

int wb_landlock_abi(void) {
  long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  return v > 0 ? (int)v : 0;
}

void wb_jail_landlock(const wb_jail_spec *spec, wb_jail_report *rep) {
  int abi = wb_landlock_abi();
  if (abi == 0) {
    wb_report_set(rep, WB_LAYER_LANDLOCK, false, "not in this kernel (%s)", strerror(errno));
    return;
  }
  struct ll_ruleset_attr attr = {.handled_access_fs = (LL_MAKE_SYM << 1) - 1};
  size_t attr_size = sizeof attr.handled_access_fs;
  if (abi >= 2) attr.handled_access_fs |= LL_REFER;
  if (abi >= 3) attr.handled_access_fs |= LL_TRUNCATE;
  if (abi >= 5) attr.handled_access_fs |= LL_IOCTL_DEV;
  if (abi >= 4) {
    attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP; /* and no rule allows any port */
    attr_size = offsetof(struct ll_ruleset_attr, scoped);
  }
  if (abi >= 6) {
    attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
    attr_size = sizeof attr;
  }
  int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0u);
  if (rs < 0) {
    wb_report_set(rep, WB_LAYER_LANDLOCK, false, "create_ruleset: %s", strerror(errno));
    return;
  }
  uint64_t dir_rw = attr.handled_access_fs &
                    ~(LL_EXECUTE | LL_MAKE_CHAR | LL_MAKE_BLOCK | LL_MAKE_SOCK | LL_MAKE_FIFO | LL_IOCTL_DEV);
  uint64_t file_rw = attr.handled_access_fs & (LL_WRITE_FILE | LL_READ_FILE | LL_TRUNCATE);
  for (size_t i = 0; i < spec->npaths; i++) {
    const wb_jail_path *p = &spec->paths[i];
    struct ll_path_beneath_attr rule = {.allowed_access = p->is_file ? LL_READ_FILE : LL_READ_FILE | LL_READ_DIR};
    if (p->writable) rule.allowed_access = p->is_file ? file_rw : dir_rw;
    rule.parent_fd = open(p->path, O_PATH | O_CLOEXEC);
    if (rule.parent_fd < 0 || syscall(SYS_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &rule, 0u) != 0) {
      wb_report_set(rep, WB_LAYER_LANDLOCK, false, "rule for %s: %s", p->path, strerror(errno));
      if (rule.parent_fd >= 0) close(rule.parent_fd);
      close(rs);
      return;
    }
    close(rule.parent_fd);
  }
  if (syscall(SYS_landlock_restrict_self, rs, 0u) != 0) {
    wb_report_set(rep, WB_LAYER_LANDLOCK, false, "restrict_self: %s", strerror(errno));
  } else {
    wb_report_set(rep, WB_LAYER_LANDLOCK, true, "ABI %d: %zu paths%s%s", abi, spec->npaths, abi >= 4 ? ", no TCP" : "",
                  abi >= 6 ? ", no signals or abstract sockets out" : "");
  }
  close(rs);
}
