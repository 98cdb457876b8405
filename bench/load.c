/* load: calls through the library (include/wasmbox.h) in one long-lived
 * process, the way an embedder or the MCP server makes them.
 *
 *   load calls CALLS ROUNDS     stateless print(1) at 1, 2 and 8 threads:
 *                               each round runs CALLS calls at every
 *                               concurrency in turn (interleaved, so all see
 *                               the same machine load); then session calls
 *                               on a 50 MB heap (bench/warm.c's workload)
 *   load session CALLS          the session calls alone (with $WASMBOX_STORE
 *                               set, through the shared store: bench/store.py)
 *   load memory SESSIONS        what idle sessions and a stateless call keep
 *
 * Prints one JSON object; raw samples, statistics are bench/peers.py's job.
 * State goes to a temporary $WASMBOX_HOME that is removed afterwards.
 *
 * Memory: guest code runs in jailed worker processes, children of this one
 * (src/api/worker_parent.c); a session's interpreter stays live in its worker
 * between calls, so what an idle session keeps is that process (plus its
 * files on disk). We find workers as our child processes and read their
 * /proc/PID/smaps_rollup: Pss (shared pages split between the processes
 * that map them) and Private_* (what this one process alone costs). */
#include <ctype.h>
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wasmbox.h"

static const int levels[] = {1, 2, 8};
#define NLEVELS 3
#define MAX_CHILDREN 64

static wasmbox *wb;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void die(const char *what, const char *detail) {
  fprintf(stderr, "load: %s: %s\n", what, detail);
  exit(1);
}

/* One call that must succeed; returns its result (caller frees). */
static wasmbox_result *call(const wasmbox_request *req) {
  wasmbox_result *r;
  char err[512];
  if (wasmbox_run(wb, req, &r, err, sizeof err) != WASMBOX_OK) die("run", err);
  if (r->status != WASMBOX_STATUS_OK) die(wasmbox_status_name(r->status), r->stderr_data);
  return r;
}

static void call_free(const wasmbox_request *req) { wasmbox_result_free(call(req)); }

static void print_array(const char *name, const double *v, int n) {
  printf("\"%s\": [", name);
  for (int i = 0; i < n; i++) printf("%s%.4f", i ? ", " : "", v[i]);
  printf("]");
}

/* A session with a 50 MB heap, then one small change per call, each
 * committed before the call returns (as bench/warm.c does): the latencies
 * of `calls` such calls. */
static double *session_latencies(int calls) {
  char id[WASMBOX_ID_MAX], err[512];
  if (wasmbox_session_create(wb, NULL, id, err, sizeof err)) die("session", err);
  wasmbox_request big = {.session_id = id, .code = "heap = [bytes([i % 251]) * 1000 for i in range(50000)]\nn = 0\n"};
  call_free(&big);
  wasmbox_request step = {.session_id = id, .code = "n += 1\nheap[n % 50000] = b'x' * 1000\n"};
  double *lat = malloc(sizeof(double) * (size_t)calls);
  if (!lat) die("malloc", "latencies");
  for (int i = 0; i < 5; i++) call_free(&step);
  for (int i = 0; i < calls; i++) {
    double t = now_ms();
    call_free(&step);
    lat[i] = now_ms() - t;
  }
  if (wasmbox_session_destroy(wb, id, err, sizeof err)) die("session rm", err);
  return lat;
}

static int mode_session(int calls) {
  double *lat = session_latencies(calls);
  printf("{");
  print_array("session_latency_ms", lat, calls);
  printf("}\n");
  free(lat);
  return 0;
}

/* ---- calls/s at a given concurrency ---------------------------------------- */

typedef struct {
  atomic_int next; /* calls handed out so far */
  int calls;
  double *lat; /* per call, ms */
} round_state;

static void *caller(void *arg) {
  round_state *rs = arg;
  wasmbox_request req = {.code = "print(1)"};
  for (int i; (i = atomic_fetch_add(&rs->next, 1)) < rs->calls;) {
    double t = now_ms();
    call_free(&req);
    rs->lat[i] = now_ms() - t;
  }
  return NULL;
}

/* Runs `calls` calls on `threads` threads; returns calls per second. */
static double run_round(int threads, int calls, double *lat) {
  round_state rs = {.calls = calls, .lat = lat};
  atomic_init(&rs.next, 0);
  pthread_t t[8];
  double start = now_ms();
  for (int i = 0; i < threads; i++)
    if (pthread_create(&t[i], NULL, caller, &rs)) die("pthread_create", "failed");
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  return calls / ((now_ms() - start) / 1e3);
}

static int mode_calls(int calls, int rounds) {
  double *lat[NLEVELS], rate[NLEVELS][64];
  if (rounds > 64) rounds = 64;
  for (int l = 0; l < NLEVELS; l++) lat[l] = malloc(sizeof(double) * (size_t)(calls * rounds));
  /* start a worker per thread before timing anything: 4 calls a thread */
  int warmup_max = 4 * levels[NLEVELS - 1];
  double *scratch = malloc(sizeof(double) * (size_t)(calls > warmup_max ? calls : warmup_max));
  for (int l = 0; l < NLEVELS; l++) run_round(levels[l], 4 * levels[l], scratch);
  for (int r = 0; r < rounds; r++)
    for (int l = 0; l < NLEVELS; l++) rate[l][r] = run_round(levels[l], calls, lat[l] + r * calls);

  int scalls = calls < 50 ? 50 : calls;
  double *slat = session_latencies(scalls);

  printf("{\"calls_per_round\": %d, \"rounds\": %d, \"concurrency\": {", calls, rounds);
  for (int l = 0; l < NLEVELS; l++) {
    printf("%s\"%d\": {", l ? ", " : "", levels[l]);
    print_array("calls_per_s", rate[l], rounds);
    printf(", ");
    print_array("latency_ms", lat[l], calls * rounds);
    printf("}");
  }
  printf("}, ");
  print_array("session_latency_ms", slat, scalls);
  printf("}\n");
  return 0;
}

/* ---- memory of idle sessions ------------------------------------------------- */

/* Child processes of `parent`, from /proc/PID/stat's ppid field. */
static int children_of(int parent, int *out, int max) {
  DIR *d = opendir("/proc");
  if (!d) die("opendir", "/proc");
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) && n < max;) {
    if (!isdigit((unsigned char)e->d_name[0])) continue;
    char path[300], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = 0;
    char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    int ppid;
    if (p && sscanf(p + 2, "%*c %d", &ppid) == 1 && ppid == parent) out[n++] = atoi(e->d_name);
  }
  closedir(d);
  return n;
}

/* Our children: the workers (each forks once more, into its own pid
 * namespace: the guest runs in that grandchild). */
static int children(int *out, int max) { return children_of(getpid(), out, max); }

/* Adds the Pss and private kB of a process (smaps_rollup) and of all its
 * descendants; dies when one is unreadable rather than report too little. */
static void pss_tree(int pid, long *pss_kb, long *private_kb, int recurse) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/smaps_rollup", pid);
  FILE *f = fopen(path, "r");
  if (!f) die("cannot read", path);
  long v;
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "Pss: %ld", &v) == 1) *pss_kb += v;
    if (sscanf(line, "Private_Clean: %ld", &v) == 1) *private_kb += v;
    if (sscanf(line, "Private_Dirty: %ld", &v) == 1) *private_kb += v;
  }
  fclose(f);
  int kids[MAX_CHILDREN];
  int n = recurse ? children_of(pid, kids, MAX_CHILDREN) : 0;
  for (int i = 0; i < n; i++) pss_tree(kids[i], pss_kb, private_kb, 1);
}

/* kB held by the memfds named `name` that a process and its descendants
 * have open: a session's committed image, which is in no mapping, so in
 * no PSS. */
static long memfd_kb(int pid, const char *name) {
  char dir[64], link[400], target[300];
  snprintf(dir, sizeof dir, "/proc/%d/fd", pid);
  DIR *d = opendir(dir);
  if (!d) die("cannot read", dir);
  long kb = 0;
  for (struct dirent *e; (e = readdir(d));) {
    snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
    ssize_t n = readlink(link, target, sizeof target - 1);
    struct stat st;
    if (n <= 0) continue;
    target[n] = 0;
    if (!strncmp(target, name, strlen(name)) && stat(link, &st) == 0) kb += (long)st.st_blocks / 2;
  }
  closedir(d);
  int kids[MAX_CHILDREN];
  int n = children_of(pid, kids, MAX_CHILDREN);
  for (int i = 0; i < n; i++) kb += memfd_kb(kids[i], name);
  return kb;
}

static void pss(int pid, long *pss_kb, long *private_kb) {
  *pss_kb = *private_kb = 0;
  pss_tree(pid, pss_kb, private_kb, pid != getpid());
}

static int contains(const int *v, int n, int x) {
  for (int i = 0; i < n; i++)
    if (v[i] == x) return 1;
  return 0;
}

#define IDLE_RELEASE_S 1

static int mode_memory(int sessions) {
  char err[512];
  int before[MAX_CHILDREN], after[MAX_CHILDREN], nb, na;
  int workers[MAX_CHILDREN];
  long spss[MAX_CHILDREN], spriv[MAX_CHILDREN], simg[MAX_CHILDREN];
  double disk[MAX_CHILDREN];
  if (sessions > 12) sessions = 12; /* the library keeps at most 12 idle workers */
  /* A binary just built is dirty in the page cache until written back, and
   * dirty file pages count as Private_Dirty to a process that alone maps
   * them: one worker then showed 50 MB of our binary as its own. */
  sync();
  int found = 0;
  for (int s = 0; s < sessions; s++) {
    char id[WASMBOX_ID_MAX];
    if (wasmbox_session_create(wb, NULL, id, err, sizeof err)) die("session", err);
    nb = children(before, MAX_CHILDREN);
    /* a session holding a few small variables (bench/warm.c's) */
    wasmbox_request small = {.session_id = id, .code = "a = 1\nb = 'text'\nc = [1, 2, 3]\nd = {'k': 'v'}\n"};
    call_free(&small);
    na = children(after, MAX_CHILDREN);
    wasmbox_session_info info;
    if (wasmbox_session_info_get(wb, id, &info, err, sizeof err)) die("session info", err);
    disk[s] = (double)info.disk_bytes;
    for (int i = 0; i < na; i++)
      if (!contains(before, nb, after[i]) && found < MAX_CHILDREN) workers[found++] = after[i];
  }
  /* measured once all are idle: Pss splits shared pages by how many map
   * them; and after a second of it, when a worker gives back what it keeps
   * for a next call (src/api/worker_child.c) */
  sleep(2);
  for (int i = 0; i < found; i++) {
    pss(workers[i], &spss[i], &spriv[i]);
    simg[i] = memfd_kb(workers[i], "/memfd:wasmbox-session");
  }
  /* one stateless call: its worker, idle afterwards (as the sessions'
   * are), and the call's peak */
  nb = children(before, MAX_CHILDREN);
  wasmbox_request req = {.code = "print(1)"};
  wasmbox_result *r = call(&req);
  unsigned long long peak = (unsigned long long)r->memory_peak_bytes;
  wasmbox_result_free(r);
  sleep(2);
  na = children(after, MAX_CHILDREN);
  long wpss = -1, wpriv = -1;
  for (int i = 0; i < na; i++)
    if (!contains(before, nb, after[i])) pss(after[i], &wpss, &wpriv);
  long self_pss, self_priv; /* this process alone, not its workers */
  pss(getpid(), &self_pss, &self_priv);

  printf("{\"sessions\": %d, \"workers_found\": %d, ", sessions, found);
  double v[MAX_CHILDREN] = {0};
  for (int i = 0; i < found; i++) v[i] = (double)spss[i];
  print_array("session_worker_pss_kb", v, found);
  printf(", ");
  for (int i = 0; i < found; i++) v[i] = (double)spriv[i];
  print_array("session_worker_private_kb", v, found);
  printf(", ");
  for (int i = 0; i < found; i++) v[i] = (double)simg[i];
  print_array("session_worker_image_kb", v, found);
  printf(", ");
  print_array("session_disk_bytes", disk, sessions);
  printf(
      ", \"stateless_worker_pss_kb\": %ld, \"stateless_worker_private_kb\": %ld, "
      "\"call_memory_peak_bytes\": %llu, \"host_process_pss_kb\": %ld, \"session_idle_release_s\": %d}\n",
      wpss, wpriv, peak, self_pss, IDLE_RELEASE_S);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) die("usage", "load calls CALLS ROUNDS | load session CALLS | load memory SESSIONS");
  char home[] = "/tmp/wasmbox-bench-load-XXXXXX", err[512];
  if (!mkdtemp(home)) die("mkdtemp", home);
  /* no pre-started workers: the memory mode tells workers apart by when
   * they appear; the calls mode starts its own before it times anything.
   * The memory mode measures sessions idle long enough to have given back
   * their copy of the committed state: 1 s here, 30 s by default. */
  wasmbox_options o = {.home = home, .session_idle_release_s = strcmp(argv[1], "memory") == 0 ? IDLE_RELEASE_S : 0};
  wb = wasmbox_open(&o, err, sizeof err);
  if (!wb) die("open", err);
  int rc = strcmp(argv[1], "calls") == 0     ? mode_calls(atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 3)
           : strcmp(argv[1], "session") == 0 ? mode_session(atoi(argv[2]))
           : strcmp(argv[1], "memory") == 0  ? mode_memory(atoi(argv[2]))
                                             : (die("usage", argv[1]), 2);
  wasmbox_free(wb);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", home);
  if (system(cmd)) return 1;
  return rc;
}
