/* The jail: what a worker process does to itself before it runs guest code,
 * the second wall behind WebAssembly's own.
 *
 * Contract
 *   wb_jail_enter()  rlimits, then new user, mount, pid, net, ipc and uts
 *                    namespaces; it forks so that the caller becomes pid 1
 *                    of the new pid namespace and returns in that child
 *                    only (the parent mirrors the child's end and never
 *                    returns). Then the mount view: an empty read-only root
 *                    holding only spec->paths (at their host paths; a
 *                    tmpfs path as a new tmpfs) and a /proc of the new pid
 *                    namespace. Call it single-threaded.
 *   wb_jail_lock()   no_new_privs, Landlock (spec->paths only; no TCP; no
 *                    signals or abstract sockets outside the worker),
 *                    capabilities dropped, and a seccomp-bpf allowlist that
 *                    kills the process on any other system call. Nothing
 *                    can be undone after it. Call it single-threaded: the
 *                    layers bind the caller and the threads it starts
 *                    later, not one already running (reported off if so).
 * Each layer that the kernel refuses is skipped with its reason in the
 * report: defence in depth degrades, it does not fail. cgroups are set by the parent (wb_cgroup_*, before the
 * worker starts its work), since a process must not place itself. */
#ifndef WASMBOX_JAIL_JAIL_H
#define WASMBOX_JAIL_JAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define WB_JAIL_PATHS_MAX 24

typedef struct {
  char *path;    /* absolute, symlinks resolved */
  bool writable; /* else read-only */
  bool is_file;  /* a single file (bound over a writable directory's entry) */
  bool tmpfs;    /* not a host path: an empty tmpfs made at `path` in the
                    view (writable, gone with the jail), when there is a view */
} wb_jail_path;

typedef struct {
  wb_jail_path paths[WB_JAIL_PATHS_MAX];
  size_t npaths;
  uint64_t max_file_bytes; /* RLIMIT_FSIZE; 0: unchanged */
  unsigned max_fds;        /* RLIMIT_NOFILE; 0: unchanged */
} wb_jail_spec;

typedef enum {
  WB_LAYER_RLIMITS,
  WB_LAYER_CGROUP_PIDS,
  WB_LAYER_CGROUP_MEMORY,
  WB_LAYER_USER_NS,
  WB_LAYER_MOUNT_NS,
  WB_LAYER_PID_NS,
  WB_LAYER_NET_NS,
  WB_LAYER_IPC_NS,
  WB_LAYER_UTS_NS,
  WB_LAYER_MOUNT_VIEW,
  WB_LAYER_NO_NEW_PRIVS,
  WB_LAYER_LANDLOCK,
  WB_LAYER_CAPABILITIES,
  WB_LAYER_SECCOMP,
  WB_LAYER_COUNT
} wb_layer;

typedef struct {
  bool active[WB_LAYER_COUNT];
  char detail[WB_LAYER_COUNT][120]; /* what is in force, or why it is not */
} wb_jail_report;

const char *wb_layer_name(wb_layer l);
void wb_report_set(wb_jail_report *r, wb_layer l, bool active, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* `before_view` runs in the final process before the mount view replaces
 * the root (open what must stay open: /proc/self/pagemap). False: the view
 * failed half-way (err says why); the process must not go on. */
bool wb_jail_enter(const wb_jail_spec *spec, wb_jail_report *rep, void (*before_view)(void *), void *ctx, char *err,
                   size_t errlen);
void wb_jail_lock(const wb_jail_spec *spec, wb_jail_report *rep);

/* The layers one by one (jail_*.c), for wb_jail_enter/lock and for tests. */
void wb_jail_rlimits(const wb_jail_spec *spec, wb_jail_report *rep);
void wb_jail_namespaces(wb_jail_report *rep); /* user, mount, ipc, uts; no fork */
/* The network namespace: made by the outer process of a worker and sent
 * over sock (send; ns_dir: its /proc/self/ns, opened before the fork),
 * entered by the inner one (join); join with sock -1 makes it in the
 * caller. */
void wb_jail_net_send(int sock, int ns_dir);
void wb_jail_net_join(int sock, wb_jail_report *rep);
bool wb_jail_mount_view(const wb_jail_spec *spec, wb_jail_report *rep, char *err, size_t errlen);
void wb_jail_landlock(const wb_jail_spec *spec, wb_jail_report *rep);
void wb_jail_capabilities(wb_jail_report *rep);
void wb_jail_seccomp(wb_jail_report *rep);
int wb_landlock_abi(void); /* 0: not available */

/* Before each call: the worker's CPU time may grow by at most `seconds`
 * (SIGXCPU ends it beyond). */
void wb_jail_cpu_budget(double seconds);

/* cgroup v1 pids and memory limits for a worker, made by its parent under
 * the parent's own cgroups. */
typedef struct {
  char *dir[2]; /* pids, memory: created directories, or NULL */
} wb_cgroup;
void wb_cgroup_create(wb_cgroup *cg, pid_t pid, unsigned max_pids, uint64_t max_memory, wb_jail_report *rep);
/* Raise (never lower) the memory limit. */
void wb_cgroup_set_memory(wb_cgroup *cg, uint64_t max_memory);
/* The memory cgroup killed a process for being over its limit. */
bool wb_cgroup_oom_killed(const wb_cgroup *cg);
void wb_cgroup_destroy(wb_cgroup *cg);

#endif
