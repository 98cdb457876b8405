/* cgroup v1 pids and memory limits of a worker (see jail.h). A child group
 * of the parent's own group per controller, so limits set above us still
 * hold; removed when the worker is gone. The unified (v2) hierarchy has
 * neither controller on this kernel's setup and is not used. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jail/jail.h"

static const char *const controllers[2] = {"pids", "memory"};

/* Our own group of `controller` from /proc/self/cgroup ("4:memory:/a/b"). */
static bool own_group(const char *controller, char *out, size_t n) {
  FILE *f = fopen("/proc/self/cgroup", "re");
  char line[1024];
  bool found = false;
  while (f && !found && fgets(line, sizeof line, f)) {
    char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
    if (!b) continue;
    *b = 0;
    if (strcmp(a + 1, controller) != 0) continue;
    b[1 + strcspn(b + 1, "\n")] = 0;
    snprintf(out, n, "/sys/fs/cgroup/%s%s", controller, strcmp(b + 1, "/") ? b + 1 : "");
    found = true;
  }
  if (f) fclose(f);
  return found;
}

static bool write_value(const char *dir, const char *file, const char *value) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = write(fd, value, strlen(value)) == (ssize_t)strlen(value);
  int e = errno;
  close(fd);
  errno = e;
  return ok;
}

/* Groups left by a parent that died: empty ones whose process is gone. */
static void sweep(const char *group) {
  DIR *d = opendir(group);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    unsigned long owner, n;
    if (sscanf(e->d_name, "wasmbox-%lu-%lu", &owner, &n) != 2) continue;
    if (kill((pid_t)owner, 0) == 0 || errno != ESRCH) continue;
    char path[4096 + 256 + 2];
    snprintf(path, sizeof path, "%s/%s", group, e->d_name);
    rmdir(path);
  }
  if (d) closedir(d);
}

void wb_cgroup_create(wb_cgroup *cg, pid_t pid, unsigned max_pids, uint64_t max_memory, wb_jail_report *rep) {
  static int swept[2]; /* each hierarchy once per process */
  for (int c = 0; c < 2; c++) {
    wb_layer layer = c == 0 ? WB_LAYER_CGROUP_PIDS : WB_LAYER_CGROUP_MEMORY;
    char group[4096], value[32];
    cg->dir[c] = NULL;
    if (!own_group(controllers[c], group, sizeof group)) {
      wb_report_set(rep, layer, false, "no cgroup v1 %s hierarchy", controllers[c]);
      continue;
    }
    if (!__atomic_exchange_n(&swept[c], 1, __ATOMIC_RELAXED)) sweep(group);
    if (asprintf(&cg->dir[c], "%s/wasmbox-%d-%d", group, (int)getpid(), (int)pid) < 0) {
      cg->dir[c] = NULL;
      continue;
    }
    if (c == 0) snprintf(value, sizeof value, "%u", max_pids);
    else snprintf(value, sizeof value, "%" PRIu64, max_memory);
    /* a group of this name is a dead parent's whose pid, and its worker's,
     * were both used again: left empty, it goes */
    bool made =
        mkdir(cg->dir[c], 0755) == 0 || (errno == EEXIST && rmdir(cg->dir[c]) == 0 && mkdir(cg->dir[c], 0755) == 0);
    bool ok = made && write_value(cg->dir[c], c == 0 ? "pids.max" : "memory.limit_in_bytes", value);
    if (ok && c == 1) write_value(cg->dir[c], "memory.swappiness", "0");
    snprintf(value, sizeof value, "%d", (int)pid);
    ok = ok && write_value(cg->dir[c], "cgroup.procs", value);
    if (!ok) {
      wb_report_set(rep, layer, false, "%s: %s", cg->dir[c], strerror(errno));
      rmdir(cg->dir[c]);
      free(cg->dir[c]);
      cg->dir[c] = NULL;
    } else if (c == 0) {
      wb_report_set(rep, layer, true, "at most %u tasks", max_pids);
    } else {
      wb_report_set(rep, layer, true, "at most %" PRIu64 " MB", max_memory >> 20);
    }
  }
}

void wb_cgroup_set_memory(wb_cgroup *cg, uint64_t max_memory) {
  if (!cg->dir[1]) return;
  char value[32];
  snprintf(value, sizeof value, "%" PRIu64, max_memory);
  write_value(cg->dir[1], "memory.limit_in_bytes", value);
}

bool wb_cgroup_oom_killed(const wb_cgroup *cg) {
  if (!cg->dir[1]) return false;
  char path[4200], line[128];
  snprintf(path, sizeof path, "%s/memory.oom_control", cg->dir[1]);
  FILE *f = fopen(path, "re");
  bool killed = false;
  unsigned long long n;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "oom_kill %llu", &n) == 1 && n > 0) killed = true;
  if (f) fclose(f);
  return killed;
}

void wb_cgroup_destroy(wb_cgroup *cg) {
  for (int c = 0; c < 2; c++) {
    if (!cg->dir[c]) continue;
    /* the last task may take a moment to leave after its exit is reaped */
    for (int i = 0; i < 100 && rmdir(cg->dir[c]) != 0 && errno == EBUSY; i++) usleep(1000);
    free(cg->dir[c]);
    cg->dir[c] = NULL;
  }
}
