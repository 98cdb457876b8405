/* Sessions: state across calls (memory and files), fork, checkpoints,
 * rollback of failed calls, survival of a restart and of kill -9, and many
 * sessions without leaks. Each test uses its own state directory. With
 * WASMBOX_TEST_STORE (a postgres:// URL; tests/store.py) the same tests run
 * against the PostgreSQL backend, the state directory its cache. */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "harness.h"
#include "session/format.h"

static char *home;
static wasmbox *wb;

/* WASMBOX_TEST_STORE, a postgres:// URL, runs the suite against the
 * PostgreSQL backend (session/backend.h), with `home` as its cache; a new
 * library instance "after a restart" opens the same store. */
static wasmbox *open_home(void) {
  char err[256];
  wasmbox_options o = {.home = home, .store = getenv("WASMBOX_TEST_STORE")};
  wasmbox *w = wasmbox_open(&o, err, sizeof err);
  if (!w) fail_msg("open: %s", err);
  return w;
}

static int setup(void **state) {
  (void)state;
  home = make_dir();
  wb = open_home();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  wasmbox_free(wb);
  rm_tree(home);
  free(home);
  return 0;
}

static void new_session(char id[WASMBOX_ID_MAX]) {
  char err[256];
  int rc = wasmbox_session_create(wb, NULL, id, err, sizeof err);
  if (rc) fail_msg("session_create: %s", err);
}

static wasmbox_result *in_session(wasmbox *w, const char *id, const char *code, double timeout) {
  wasmbox_request req = {.code = code, .session_id = id, .timeout_seconds = timeout};
  wasmbox_result *r = NULL;
  char err[512];
  int rc = wasmbox_run(w, &req, &r, err, sizeof err);
  if (rc) fail_msg("run in %s: %s", id, err);
  return r;
}

/* Run code in the session; it must succeed and print `out`. */
static void sess_ok(const char *id, const char *code, const char *out) {
  wasmbox_result *r = in_session(wb, id, code, 0);
  expect_status(r, WASMBOX_STATUS_OK);
  if (strcmp(r->stdout_data, out)) dump(r);
  assert_string_equal(r->stdout_data, out);
  assert_false(r->session_rolled_back);
  assert_string_equal(r->session_id, id);
  wasmbox_result_free(r);
}

static char *ws_path(const char *id) {
  char *p;
  wasmbox_session_info info;
  char err[256];
  assert_int_equal(wasmbox_session_info_get(wb, id, &info, err, sizeof err), WASMBOX_OK);
  /* the workspace is whatever ws-N the session directory holds */
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/sessions/%s", home, id);
  DIR *d = opendir(dir);
  struct dirent *e;
  p = NULL;
  while (d && (e = readdir(d)))
    if (!strncmp(e->d_name, "ws-", 3)) assert_true(asprintf(&p, "%s/%s", dir, e->d_name) > 0);
  if (d) closedir(d);
  assert_non_null(p);
  return p;
}

static void test_state_kept(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX];
  new_session(id);
  sess_ok(id,
          "import fractions\n"
          "x = 41\n"
          "def twice(v):\n    return 2 * v\n"
          "class Counter:\n    def __init__(self): self.n = 0\n    def bump(self): self.n += 1; return self.n\n"
          "c = Counter()\n"
          "def gen():\n    i = 0\n    while True:\n        yield i\n        i += 1\n"
          "g = gen()\n"
          "print(next(g), c.bump())\n",
          "0 1\n");
  sess_ok(id, "print(x + 1, twice(21), c.bump(), next(g), next(g), fractions.Fraction(1, 3))\n", "42 42 2 1 2 1/3\n");
  sess_ok(id, "open('notes.txt', 'w').write('kept')\n", "");
  sess_ok(id, "print(open('/app/notes.txt').read(), c.n)\n", "kept 2\n");
  /* an exception ends a call normally: what ran before it stays */
  wasmbox_result *r = in_session(wb, id, "y = 'before'\nraise ValueError('boom')\n", 0);
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_false(r->session_rolled_back);
  wasmbox_result_free(r);
  sess_ok(id, "print(y)\n", "before\n");
}

static void rolled_back(const char *id, const char *code, double timeout, wasmbox_status want);

static void test_javascript_session(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], err[256];
  wasmbox_session_options o = {.language = "javascript"};
  wasmbox_result *r0;
  assert_int_equal(wasmbox_session_create(wb, &o, id, err, sizeof err), WASMBOX_OK);
  sess_ok(id,
          "globalThis.total = 40; class A { v() { return 2; } }; globalThis.a = new A();\n"
          "writeText('/app/j.txt', 'js');",
          "");
  sess_ok(id, "console.log(total + a.v(), readText('j.txt'));", "42 js\n");
  rolled_back(id, "total = 0; writeText('j.txt', 'no'); for (;;) {}", 0.3, WASMBOX_STATUS_TIMEOUT);
  sess_ok(id, "console.log(total, readText('j.txt'));", "40 js\n");
  /* the event loop's state crosses calls: an unref'd timer a later call refs
   * fires in that call; ticks a throw left run at the next call's turn */
  sess_ok(id, "globalThis.t = setTimeout(() => console.log('fired'), 5); t.unref(); console.log('set');", "set\n");
  sess_ok(id, "t.ref(); console.log('ref');", "ref\nfired\n");
  r0 = in_session(
      wb, id, "process.nextTick(() => { throw new Error('tick'); }); process.nextTick(() => console.log('left'));", 0);
  expect_status(r0, WASMBOX_STATUS_ERROR);
  wasmbox_result_free(r0);
  sess_ok(id, "console.log('next');", "next\nleft\n");
  sess_ok(id, "process.exitCode = { valueOf() { return 0; } }; console.log('code');", "code\n");
  /* a session runs its own language */
  wasmbox_request req = {.code = "print(1)", .session_id = id, .language = "python"};
  wasmbox_result *r = NULL;
  assert_int_equal(wasmbox_run(wb, &req, &r, err, sizeof err), WASMBOX_EUSAGE);
}

static void test_survives_restart(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX];
  new_session(id);
  sess_ok(id, "data = {'k': list(range(5))}\nimport statistics\nopen('f', 'w').write('1')\n", "");
  /* a new library instance, as after a restart: state comes from disk */
  wasmbox *other = open_home();
  wasmbox_result *r = in_session(other, id, "print(data['k'][-1], statistics.mean(data['k']), open('f').read())", 0);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "4 2 1\n");
  wasmbox_result_free(r);
  /* and it goes on from there, in either instance */
  r = in_session(other, id, "data['k'].append(5)", 0);
  wasmbox_result_free(r);
  wasmbox_free(other);
  sess_ok(id, "print(len(data['k']))", "6\n");
}

static void rolled_back(const char *id, const char *code, double timeout, wasmbox_status want) {
  wasmbox_result *r = in_session(wb, id, code, timeout);
  expect_status(r, want);
  assert_true(r->session_rolled_back);
  wasmbox_result_free(r);
}

/* A session's worker idle for session_idle_release_s gives back its copy
 * of the committed memory (src/api/worker_child.c); the next call copies
 * it back from the memory first. A commit after that records the right
 * changes (a new library instance loads them from disk), and a rollback
 * after that goes back to the right state. The option takes seconds, 0 or
 * more. */
static void test_idle_worker_gives_back(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], err[256];
  wasmbox_options o = {.home = home, .store = getenv("WASMBOX_TEST_STORE"), .session_idle_release_s = 0.5};
  wasmbox *w = wasmbox_open(&o, err, sizeof err);
  assert_non_null(w);
  assert_int_equal(wasmbox_session_create(w, NULL, id, err, sizeof err), WASMBOX_OK);
  const char *steps[][2] = {
      {"x = 1\nbig = bytearray(b'a' * (1 << 20))\n", ""},
      {"x += 1\nbig[0] = 7\nbig[-1] = 9\nprint(x)", "2\n"},
  };
  for (size_t i = 0; i < 2; i++) {
    wasmbox_result *r = in_session(w, id, steps[i][0], 0);
    assert_string_equal(r->stdout_data, steps[i][1]);
    wasmbox_result_free(r);
    usleep(1200 * 1000);
  }
  wasmbox_result *r = in_session(w, id, "x = 100\nbig[:] = b'z' * len(big)\nwhile True: pass\n", 0.3);
  expect_status(r, WASMBOX_STATUS_TIMEOUT);
  assert_true(r->session_rolled_back);
  wasmbox_result_free(r);
  r = in_session(w, id, "print(x, big[0], big[1], big[-1], len(big))", 0);
  assert_string_equal(r->stdout_data, "2 7 97 9 1048576\n");
  wasmbox_result_free(r);
  wasmbox_free(w);
  r = in_session(wb, id, "print(x, big[0], big[1], big[-1], len(big))", 0);
  assert_string_equal(r->stdout_data, "2 7 97 9 1048576\n");
  wasmbox_result_free(r);
  double bad[] = {-1, NAN, INFINITY};
  for (size_t i = 0; i < 3; i++) {
    o.session_idle_release_s = bad[i];
    assert_null(wasmbox_open(&o, err, sizeof err));
    assert_non_null(strstr(err, "session_idle_release_s must be a number of seconds"));
  }
}

static void test_rollback_of_failed_calls(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX];
  new_session(id);
  sess_ok(id, "x = 1\nlog = ['a']\nopen('keep.txt', 'w').write('v1')\nopen('gone.txt', 'w').write('g')\n", "");
  const char *damage =
      "x = 2\nlog.append('b')\nopen('keep.txt', 'w').write('v2')\nimport os\n"
      "os.remove('gone.txt')\nopen('new.txt', 'w').write('n')\nos.mkdir('d')\n";
  char code[1024];
  snprintf(code, sizeof code, "%swhile True: pass\n", damage);
  rolled_back(id, code, 0.5, WASMBOX_STATUS_TIMEOUT);
  snprintf(code, sizeof code, "%sbig = bytearray(300 << 20)\n", damage);
  rolled_back(id, code, 0, WASMBOX_STATUS_OUT_OF_MEMORY);
  snprintf(code, sizeof code,
           "%simport sys\nsys.setrecursionlimit(10**6)\nl = []\n"
           "for i in range(10**5):\n    l = [l]\nrepr(l)\n",
           damage);
  rolled_back(id, code, 0, WASMBOX_STATUS_CRASHED);
  /* a call on an empty workspace keeps no copy of it, only a mark: its
   * files go all the same */
  char empty[WASMBOX_ID_MAX];
  new_session(empty);
  sess_ok(empty, "y = 1", "");
  rolled_back(empty, "y = 2\nimport os\nopen('made.txt', 'w').write('m')\nos.mkdir('d')\nwhile True: pass\n", 0.5,
              WASMBOX_STATUS_TIMEOUT);
  sess_ok(empty, "import os\nprint(y, os.listdir('.'))", "1 []\n");
  /* exactly the state before: memory and files */
  sess_ok(id, "import os\nprint(x, log, open('keep.txt').read(), open('gone.txt').read(), sorted(os.listdir('.')))\n",
          "1 ['a'] v1 g ['gone.txt', 'keep.txt']\n");
  char *ws = ws_path(id);
  char *v = read_file(ws, "keep.txt");
  assert_string_equal(v, "v1");
  free(v);
  assert_null(read_file(ws, "new.txt"));
  free(ws);
}

static void test_fork_independent(void **s) {
  (void)s;
  char a[WASMBOX_ID_MAX], b[WASMBOX_ID_MAX], err[256];
  new_session(a);
  sess_ok(a, "v = ['parent']\nopen('shared.txt', 'w').write('orig')\n", "");
  assert_int_equal(wasmbox_session_fork(wb, a, b, err, sizeof err), WASMBOX_OK);
  assert_string_not_equal(a, b);
  sess_ok(b, "v.append('child')\nopen('shared.txt', 'w').write('child')\nopen('only_b', 'w')\n", "");
  sess_ok(a, "import os\nprint(v, open('shared.txt').read(), os.path.exists('only_b'))\n", "['parent'] orig False\n");
  sess_ok(a, "v.append('parent2')\nopen('shared.txt', 'a').write('+a')\n", "");
  sess_ok(b, "print(v, open('shared.txt').read())\n", "['parent', 'child'] child\n");
  sess_ok(a, "print(v, open('shared.txt').read())\n", "['parent', 'parent2'] orig+a\n");
}

/* Bytes in the session's page logs, how many there are, and its memory. */
static uint64_t log_bytes(const char *id, int *logs, uint64_t *memory) {
  char dir[2048], path[4096];
  snprintf(dir, sizeof dir, "%s/sessions/%s", home, id);
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *e;
  uint64_t total = 0;
  *logs = 0;
  while ((e = readdir(d))) {
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (strncmp(e->d_name, "log-", 4) || stat(path, &st)) continue;
    total += (uint64_t)st.st_size;
    (*logs)++;
  }
  int fd = dirfd(d);
  wb_head h;
  uint8_t *globals = NULL;
  assert_true(wb_head_read(fd, &h, &globals));
  free(globals);
  closedir(d);
  *memory = (uint64_t)h.pages * 65536;
  return total;
}

/* 48 calls each rewrite 4 MiB of random bytes (192 MiB written): the log is
 * compacted, so the disk holds about the memory, not the history, and the
 * state still loads from disk, forks and checkpoints exactly. */
static void test_log_stays_bounded(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], kid[WASMBOX_ID_MAX], cp[WASMBOX_ID_MAX], err[256];
  new_session(id);
  sess_ok(id, "import os, hashlib\nx = bytearray(4 << 20)\nn = 0\n", "");
  char last[128] = "";
  for (int i = 0; i < 48; i++) {
    wasmbox_result *r =
        in_session(wb, id, "x[:] = os.urandom(len(x)); n += 1\nprint(n, hashlib.sha256(x).hexdigest())", 0);
    expect_status(r, WASMBOX_STATUS_OK);
    snprintf(last, sizeof last, "%s", r->stdout_data);
    wasmbox_result_free(r);
  }
  int logs;
  uint64_t memory, bytes = log_bytes(id, &logs, &memory);
  assert_int_equal(logs, 1);
  /* the snapshot's heap (59 MB with the data stack) and x's 4 MB */
  assert_true(memory > (4u << 20) && memory < (96u << 20));
  if (bytes > memory * 21 / 10)
    fail_msg("%llu bytes of log for %llu of memory", (unsigned long long)bytes, (unsigned long long)memory);
  const char *check = "print(n, hashlib.sha256(x).hexdigest())";
  assert_int_equal(wasmbox_session_checkpoint(wb, id, cp, err, sizeof err), WASMBOX_OK);
  assert_int_equal(wasmbox_session_fork(wb, id, kid, err, sizeof err), WASMBOX_OK);
  sess_ok(kid, check, last);
  /* from disk, in a new library instance */
  wasmbox *other = open_home();
  wasmbox_result *r = in_session(other, id, check, 0);
  assert_string_equal(r->stdout_data, last);
  wasmbox_result_free(r);
  r = in_session(other, id, "x[:] = bytes(len(x)); n = -1", 0);
  wasmbox_result_free(r);
  wasmbox_free(other);
  assert_int_equal(wasmbox_session_restore(wb, id, cp, err, sizeof err), WASMBOX_OK);
  sess_ok(id, check, last);
}

static void test_checkpoint_restore(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], cp[WASMBOX_ID_MAX], err[256];
  new_session(id);
  sess_ok(id, "n = 1\nopen('f', 'w').write('one')\n", "");
  assert_int_equal(wasmbox_session_checkpoint(wb, id, cp, err, sizeof err), WASMBOX_OK);
  sess_ok(id, "n = 2\nopen('f', 'w').write('two')\nopen('later', 'w')\n", "");
  assert_int_equal(wasmbox_session_restore(wb, id, cp, err, sizeof err), WASMBOX_OK);
  sess_ok(id, "import os\nprint(n, open('f').read(), os.path.exists('later'))\n", "1 one False\n");
  /* a checkpoint can be restored again after more changes */
  sess_ok(id, "n = 3\n", "");
  assert_int_equal(wasmbox_session_restore(wb, id, cp, err, sizeof err), WASMBOX_OK);
  sess_ok(id, "print(n)\n", "1\n");
  assert_int_equal(wasmbox_session_restore(wb, id, "cdeadbeef", err, sizeof err), WASMBOX_EUSAGE);
  wasmbox_session_info info;
  assert_int_equal(wasmbox_session_info_get(wb, id, &info, err, sizeof err), WASMBOX_OK);
  assert_int_equal(info.checkpoints, 1);
}

/* A restore makes the session's copies outside the store stale, and the
 * idle worker that kept its instance is dropped, with either backend
 * (session/backend.h: the stale hook). */
static void test_restore_drops_worker(void **s) {
  (void)s;
  wasmbox *w = wb;
  char id[WASMBOX_ID_MAX], cp[WASMBOX_ID_MAX], err[256];
  int rc = wasmbox_session_create(w, NULL, id, err, sizeof err);
  if (rc) fail_msg("session_create: %s", err);
  wasmbox_result_free(in_session(w, id, "n = 1\n", 0));
  assert_int_equal(wasmbox_session_checkpoint(w, id, cp, err, sizeof err), WASMBOX_OK);
  wasmbox_result_free(in_session(w, id, "n = 2\n", 0));
  wasmbox_stats before, after;
  wasmbox_stats_get(w, &before);
  assert_true(before.workers_idle >= 1);
  assert_int_equal(wasmbox_session_restore(w, id, cp, err, sizeof err), WASMBOX_OK);
  wasmbox_stats_get(w, &after);
  assert_int_equal(after.workers_idle, before.workers_idle - 1);
  wasmbox_result *r = in_session(w, id, "print(n)\n", 0);
  assert_string_equal(r->stdout_data, "1\n");
  wasmbox_result_free(r);
  assert_int_equal(wasmbox_session_destroy(w, id, err, sizeof err), WASMBOX_OK);
}

static void test_stale_descriptors(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX];
  new_session(id);
  sess_ok(id, "f = open('log.txt', 'w')\nf.write('first')\nf.flush()\n", "");
  /* the descriptor did not survive the call; it must not name another file */
  wasmbox_result *r = in_session(wb, id, "g = open('other.txt', 'w')\nf.write('stale')\nf.flush()\n", 0);
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_string_equal(r->error_type, "OSError");
  wasmbox_result_free(r);
  sess_ok(id, "print(repr(open('other.txt').read()), open('log.txt').read())\n", "'' first\n");
}

static void test_env_and_mounts_fixed(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], err[256];
  char *ro = make_dir();
  write_file(ro, "in.txt", "mounted");
  const char *env[] = {"MODE=session"};
  wasmbox_mount m[] = {{.host_dir = ro, .guest_path = "/data"}};
  wasmbox_session_options o = {.env = env, .env_len = 1, .mounts = m, .mounts_len = 1};
  if (getenv("WASMBOX_TEST_STORE")) {
    /* servers sharing a store mount by name only (tests/store.py): a
     * directory of this host is refused, saying why */
    assert_int_equal(wasmbox_session_create(wb, &o, id, err, sizeof err), WASMBOX_EUSAGE);
    if (!strstr(err, "named mount")) fail_msg("create with a host directory: %s", err);
    o.mounts_len = 0;
    m[0].host_dir = NULL;
  }
  assert_int_equal(wasmbox_session_create(wb, &o, id, err, sizeof err), WASMBOX_OK);
  if (m[0].host_dir)
    sess_ok(id, "import os\nprint(os.environ['MODE'], open('/data/in.txt').read())\n", "session mounted\n");
  sess_ok(id, "import os\nprint(os.environ['MODE'])\n", "session\n");
  const char *more[] = {"X=1"};
  wasmbox_request req = {.code = "1", .session_id = id, .env = more, .env_len = 1};
  wasmbox_result *r = NULL;
  assert_int_equal(wasmbox_run(wb, &req, &r, err, sizeof err), WASMBOX_EUSAGE);
  rm_tree(ro);
  free(ro);
}

static void test_file_tools(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], fork_id[WASMBOX_ID_MAX], cp[WASMBOX_ID_MAX], err[256];
  new_session(id);
  assert_int_equal(wasmbox_session_write_file(wb, id, "/app/in/data.csv", "a,b\n1,2\n", 8, err, sizeof err),
                   WASMBOX_OK);
  sess_ok(id, "import csv\nprint(list(csv.reader(open('in/data.csv'))))\nopen('out.txt', 'w').write('result')\n",
          "[['a', 'b'], ['1', '2']]\n");
  char *data;
  size_t len;
  assert_int_equal(wasmbox_session_read_file(wb, id, "out.txt", &data, &len, err, sizeof err), WASMBOX_OK);
  assert_int_equal(len, 6);
  assert_string_equal(data, "result");
  free(data);
  wasmbox_file_info *files;
  size_t n;
  assert_int_equal(wasmbox_session_list_files(wb, id, "/app", true, &files, &n, err, sizeof err), WASMBOX_OK);
  int seen = 0;
  for (size_t i = 0; i < n; i++) {
    if (!strcmp(files[i].path, "/app/in") && files[i].is_dir) seen |= 1;
    if (!strcmp(files[i].path, "/app/in/data.csv") && files[i].size == 8) seen |= 2;
    if (!strcmp(files[i].path, "/app/out.txt") && !files[i].is_dir) seen |= 4;
  }
  wasmbox_file_info_free(files, n);
  assert_int_equal(seen, 7);
  /* the guest's own rules: nothing outside /app, no way out by a symlink */
  sess_ok(id, "import os\nos.symlink('/etc', 'etc')\nos.symlink('../..', 'up')\n", "");
  /* listed as what they are, never followed */
  assert_int_equal(wasmbox_session_list_files(wb, id, "/app", false, &files, &n, err, sizeof err), WASMBOX_OK);
  seen = 0;
  for (size_t i = 0; i < n; i++) {
    if (!strcmp(files[i].path, "/app/etc") && files[i].is_symlink && !files[i].is_dir) seen |= 1;
    if (!strcmp(files[i].path, "/app/up") && files[i].is_symlink && !files[i].is_dir) seen |= 2;
    if (!strcmp(files[i].path, "/app/out.txt") && !files[i].is_symlink) seen |= 4;
  }
  wasmbox_file_info_free(files, n);
  assert_int_equal(seen, 7);
  const char *outside[] = {"/etc/passwd", "../../etc/passwd", "/app/../etc/passwd", "etc/passwd", "up/x", "missing"};
  for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
    if (wasmbox_session_read_file(wb, id, outside[i], &data, &len, err, sizeof err) != WASMBOX_EUSAGE)
      fail_msg("read of %s was not refused", outside[i]);
    if (wasmbox_session_write_file(wb, id, outside[i], "x", 1, err, sizeof err) != WASMBOX_EUSAGE &&
        strcmp(outside[i], "missing"))
      fail_msg("write to %s was not refused", outside[i]);
  }
  /* writing a file a fork and a checkpoint share changes only this session */
  assert_int_equal(wasmbox_session_fork(wb, id, fork_id, err, sizeof err), WASMBOX_OK);
  assert_int_equal(wasmbox_session_checkpoint(wb, id, cp, err, sizeof err), WASMBOX_OK);
  assert_int_equal(wasmbox_session_write_file(wb, id, "out.txt", "changed", 7, err, sizeof err), WASMBOX_OK);
  assert_int_equal(wasmbox_session_read_file(wb, fork_id, "out.txt", &data, &len, err, sizeof err), WASMBOX_OK);
  assert_string_equal(data, "result");
  free(data);
  assert_int_equal(wasmbox_session_restore(wb, id, cp, err, sizeof err), WASMBOX_OK);
  assert_int_equal(wasmbox_session_read_file(wb, id, "out.txt", &data, &len, err, sizeof err), WASMBOX_OK);
  assert_string_equal(data, "result");
  free(data);
  assert_int_equal(wasmbox_session_reset_workspace(wb, id, err, sizeof err), WASMBOX_OK);
  assert_int_equal(wasmbox_session_list_files(wb, id, "/app", false, &files, &n, err, sizeof err), WASMBOX_OK);
  assert_int_equal(n, 0);
  wasmbox_file_info_free(files, n);
  sess_ok(id, "import os\nprint(os.listdir('.'))\n", "[]\n");
}

/* Directories nest at most WB_DEPTH_MAX (64) deep in a workspace, made
 * one by one, moved there whole, or written from outside: a tree deeper
 * than the session can copy once stopped every later call of it. */
static void test_nesting_is_bounded(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], err[256];
  new_session(id);
  sess_ok(id,
          "import errno, os\n"
          "x = 'kept'\n"
          "p = 'deep'\n"
          "try:\n"
          "    for i in range(300):\n"
          "        os.mkdir(p)\n"
          "        p += '/d'\n"
          "except OSError as e:\n"
          "    print(i, e.errno == errno.ENAMETOOLONG)\n",
          "64 True\n");
  /* two chains of 40, one moved into the other: 80 deep, refused; moved
   * beside it: fine */
  sess_ok(id,
          "import errno, os, shutil\n"
          "shutil.rmtree('deep')\n"
          "os.makedirs('a/' + '/'.join(['d'] * 39))\n"
          "os.makedirs('b/' + '/'.join(['d'] * 39))\n"
          "try:\n"
          "    os.rename('b', 'a/' + '/'.join(['d'] * 39) + '/b')\n"
          "except OSError as e:\n"
          "    print(e.errno == errno.ENAMETOOLONG)\n"
          "os.rename('b', 'a/b')\n"
          "print(os.path.isdir('a/b/d'))\n",
          "True\nTrue\n");
  sess_ok(id, "print(x)\n", "kept\n");
  char fork_id[WASMBOX_ID_MAX], cp[WASMBOX_ID_MAX];
  assert_int_equal(wasmbox_session_fork(wb, id, fork_id, err, sizeof err), WASMBOX_OK);
  assert_int_equal(wasmbox_session_checkpoint(wb, id, cp, err, sizeof err), WASMBOX_OK);
  /* from outside: the same bound, said plainly (not an internal error) */
  char path[512] = "/app";
  for (int i = 0; i < 70; i++) strcat(path, "/n");
  strcat(path, "/f.txt");
  assert_int_equal(wasmbox_session_write_file(wb, id, path, "x", 1, err, sizeof err), WASMBOX_EUSAGE);
  assert_non_null(strstr(err, "nested more than 64 deep"));
  char longname[300] = "/app/", long_err[1024];
  memset(longname + 5, 'a', 280);
  assert_int_equal(wasmbox_session_write_file(wb, id, longname, "x", 1, long_err, sizeof long_err), WASMBOX_EUSAGE);
  assert_non_null(strstr(long_err, "longer than 255 bytes"));
  sess_ok(fork_id, "print(x)\n", "kept\n");
  assert_int_equal(wasmbox_session_destroy(wb, fork_id, err, sizeof err), WASMBOX_OK);
  assert_int_equal(wasmbox_session_destroy(wb, id, err, sizeof err), WASMBOX_OK);
}

/* A session's owner is recorded with it (and survives a restart), kept by
 * its forks, reported by info, list and wasmbox_session_owner; a session
 * made without one is nobody's (""); an owner that is not printable ASCII
 * below WASMBOX_OWNER_MAX is refused. */
static void test_owner_recorded(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], fork[WASMBOX_ID_MAX], plain[WASMBOX_ID_MAX], err[256], owner[WASMBOX_OWNER_MAX];
  wasmbox_session_options o = {.owner = "oauth:alice@example.com"};
  assert_int_equal(wasmbox_session_create(wb, &o, id, err, sizeof err), WASMBOX_OK);
  assert_int_equal(wasmbox_session_fork(wb, id, fork, err, sizeof err), WASMBOX_OK);
  new_session(plain);
  wasmbox_free(wb); /* from disk */
  wb = open_home();
  assert_int_equal(wasmbox_session_owner(wb, id, owner, err, sizeof err), WASMBOX_OK);
  assert_string_equal(owner, "oauth:alice@example.com");
  assert_int_equal(wasmbox_session_owner(wb, fork, owner, err, sizeof err), WASMBOX_OK);
  assert_string_equal(owner, "oauth:alice@example.com");
  assert_int_equal(wasmbox_session_owner(wb, plain, owner, err, sizeof err), WASMBOX_OK);
  assert_string_equal(owner, "");
  wasmbox_session_info info;
  assert_int_equal(wasmbox_session_info_get(wb, id, &info, err, sizeof err), WASMBOX_OK);
  assert_string_equal(info.owner, "oauth:alice@example.com");
  wasmbox_session_info *all = NULL;
  size_t n = 0, seen = 0;
  assert_int_equal(wasmbox_session_list(wb, &all, &n, err, sizeof err), WASMBOX_OK);
  for (size_t i = 0; i < n; i++) seen += !strcmp(all[i].id, fork) && !strcmp(all[i].owner, "oauth:alice@example.com");
  free(all);
  assert_int_equal(seen, 1);
  assert_int_equal(wasmbox_session_owner(wb, "s000000000000000000000000", owner, err, sizeof err), WASMBOX_EUSAGE);
  assert_string_equal(err, "no session s000000000000000000000000");
  assert_int_equal(wasmbox_session_owner(wb, "../x", owner, err, sizeof err), WASMBOX_EUSAGE);
  char longer[WASMBOX_OWNER_MAX + 1];
  memset(longer, 'a', WASMBOX_OWNER_MAX);
  longer[WASMBOX_OWNER_MAX] = 0;
  const char *bad[] = {"line\nbreak", longer};
  for (size_t i = 0; i < 2; i++) {
    o.owner = bad[i];
    assert_int_equal(wasmbox_session_create(wb, &o, plain, err, sizeof err), WASMBOX_EUSAGE);
    assert_non_null(strstr(err, "an owner is printable ASCII"));
  }
}

static void test_bad_ids(void **s) {
  (void)s;
  char err[256], out[WASMBOX_ID_MAX];
  const char *bad[] = {"", "../x", "a/b", "nosuch", ".trash-x"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    wasmbox_request req = {.code = "1", .session_id = bad[i]};
    wasmbox_result *r = NULL;
    assert_int_equal(wasmbox_run(wb, &req, &r, err, sizeof err), WASMBOX_EUSAGE);
    assert_int_equal(wasmbox_session_fork(wb, bad[i], out, err, sizeof err), WASMBOX_EUSAGE);
    assert_int_equal(wasmbox_session_destroy(wb, bad[i], err, sizeof err), WASMBOX_EUSAGE);
  }
}

/* A HEAD damaged on disk: its build id another build's, or no string at
 * all. Each is reported as what it is (once a message read freed memory);
 * a sibling session is untouched. */
/* HEAD rewritten as if by another build: its newest copy names `build` */
static void head_from_build(const char *id, const char *build) {
  char path[4200];
  snprintf(path, sizeof path, "%s/sessions/%s", home, id);
  int dir = open(path, O_RDONLY | O_DIRECTORY);
  assert_true(dir >= 0);
  wb_head h;
  uint8_t *globals;
  assert_true(wb_head_read(dir, &h, &globals));
  snprintf(h.build_id, sizeof h.build_id, "%s", build);
  assert_true(wb_head_write(dir, &h, globals));
  free(globals);
  close(dir);
}

/* bytes written over HEAD at `at` */
static void patch_head(const char *id, const void *bytes, size_t n, off_t at) {
  char path[4200];
  snprintf(path, sizeof path, "%s/sessions/%s/HEAD", home, id);
  int fd = open(path, O_WRONLY);
  assert_true(fd >= 0);
  assert_int_equal(pwrite(fd, bytes, n, at), (ssize_t)n);
  close(fd);
}

/* HEAD's bytes as they are (both copies) */
typedef struct {
  uint8_t bytes[8192];
  ssize_t len;
} head_bytes;

static void session_file(const char *id, const char *name, char *path, size_t n) {
  snprintf(path, n, "%s/sessions/%s/%s", home, id, name);
}

static void head_save(const char *id, head_bytes *b) {
  char path[4200];
  session_file(id, "HEAD", path, sizeof path);
  int fd = open(path, O_RDONLY);
  assert_true(fd >= 0);
  b->len = pread(fd, b->bytes, sizeof b->bytes, 0);
  assert_true(b->len > 0);
  close(fd);
}

/* HEAD put back as it was: the writes since never reached the disk */
static void head_put_back(const char *id, const head_bytes *b) {
  char path[4200];
  session_file(id, "HEAD", path, sizeof path);
  int fd = open(path, O_WRONLY | O_TRUNC);
  assert_true(fd >= 0);
  assert_int_equal(pwrite(fd, b->bytes, (size_t)b->len, 0), b->len);
  close(fd);
}

/* Where the session's log ends, as a read of HEAD finds it */
static uint64_t log_end(const char *id) {
  char path[4200];
  snprintf(path, sizeof path, "%s/sessions/%s", home, id);
  int dir = open(path, O_RDONLY | O_DIRECTORY);
  assert_true(dir >= 0);
  wb_head h;
  uint8_t *g = NULL;
  assert_true(wb_head_read(dir, &h, &g));
  free(g);
  close(dir);
  return h.log_len;
}

/* A new session after one call (x = 1), and the path of its log, for
 * tests of the local directory's files (skipped with a store, whose files
 * are a cache it repairs) */
static void one_call_session(char id[WASMBOX_ID_MAX], char *log, size_t n) {
  if (getenv("WASMBOX_TEST_STORE")) skip();
  new_session(id);
  session_file(id, "log-0", log, n);
  sess_ok(id, "x = 1", "");
}

/* A call writes into room its log already holds (zeros past its end), so
 * that its flush need not write the file's new size too; the first call's
 * new log has none. */
static void test_log_room(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], log[4200];
  one_call_session(id, log, sizeof log);
  struct stat first, second, third;
  assert_int_equal(stat(log, &first), 0);
  assert_int_equal((uint64_t)first.st_size, log_end(id));
  sess_ok(id, "x = 2", "");
  assert_int_equal(stat(log, &second), 0);
  uint64_t end = log_end(id);
  assert_true((uint64_t)second.st_size >= end + 64 * 1024);
  sess_ok(id, "x = 3", "");
  assert_int_equal(stat(log, &third), 0);
  assert_true(log_end(id) > end);
  assert_int_equal(third.st_size, second.st_size);
  sess_ok(id, "print(x)", "3\n");
}

/* A call commits with one flush, of its log, which ends with a seal of the
 * new state; HEAD is written after it without a flush. A HEAD write that a
 * crash lost or cut short loses nothing: the seal holds the state. A seal
 * cut short (the log's flush never ended, the call never answered) leaves
 * the state before that call, which goes on from there. */
static void test_cut_head_write(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], log[4200];
  one_call_session(id, log, sizeof log);
  head_bytes after_first;
  head_save(id, &after_first);
  sess_ok(id, "x = 2", "");
  head_put_back(id, &after_first); /* the second call's HEAD write lost */
  sess_ok(id, "print(x)", "2\n");
  /* HEAD's unflushed copy cut short: the flushed one (the create's) and the log's seals */
  char cut[32];
  memset(cut, 0, sizeof cut);
  patch_head(id, cut, sizeof cut, 4096 + 40);
  sess_ok(id, "print(x)", "2\n");
  /* the next call's seal cut, its HEAD write lost */
  head_bytes before;
  head_save(id, &before);
  uint64_t was = log_end(id);
  sess_ok(id, "x = 3", "");
  uint64_t now = log_end(id);
  assert_true(now > was);
  assert_int_equal(truncate(log, (off_t)now - 1), 0);
  head_put_back(id, &before);
  sess_ok(id, "print(x)", "2\n");
  sess_ok(id, "x += 10\nprint(x)", "12\n");
  wasmbox *other = open_home();
  wasmbox_result *r = in_session(other, id, "print(x)", 0);
  assert_string_equal(r->stdout_data, "12\n");
  wasmbox_result_free(r);
  wasmbox_free(other);
}

static void test_damaged_head(void **s) {
  (void)s;
  /* with a shared store the directory is its cache, which the store repairs
   * (a damaged copy is reloaded: tests/store.py tampers with caches) */
  if (getenv("WASMBOX_TEST_STORE")) skip();
  char id[WASMBOX_ID_MAX], other[WASMBOX_ID_MAX], err[512];
  new_session(id);
  new_session(other);
  sess_ok(id, "x = 1", "");
  sess_ok(other, "y = 2", "");
  head_from_build(id, "another-build");
  wasmbox_request req = {.code = "print(x)", .session_id = id};
  wasmbox_result *r = NULL;
  assert_int_equal(wasmbox_run(wb, &req, &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_non_null(strstr(err, "saved by another build of the python runtime"));
  /* both copies of the state in HEAD damaged (its two slots, 4 KiB apart) */
  char damage[64];
  memset(damage, 'A', sizeof damage);
  patch_head(id, damage, sizeof damage, 100);
  patch_head(id, damage, sizeof damage, 4096 + 100);
  assert_int_equal(wasmbox_run(wb, &req, &r, err, sizeof err), WASMBOX_EINTERNAL);
  assert_non_null(strstr(err, "is damaged"));
  sess_ok(other, "print(y)", "2\n");
  /* list cannot show it; prune removes it once it has been untouched for the default TTL */
  size_t removed;
  assert_int_equal(wasmbox_session_prune(wb, &removed, err, sizeof err), WASMBOX_OK);
  assert_int_equal(removed, 0);
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/sessions/%s", home, id);
  struct timespec two_days_ago[2] = {{time(NULL) - 2 * 86400, 0}, {time(NULL) - 2 * 86400, 0}};
  assert_int_equal(utimensat(AT_FDCWD, dir, two_days_ago, 0), 0);
  /* a HEAD written since keeps it (a commit writes HEAD in place, not the directory) */
  assert_int_equal(wasmbox_session_prune(wb, &removed, err, sizeof err), WASMBOX_OK);
  assert_int_equal(removed, 0);
  char head[4300];
  snprintf(head, sizeof head, "%s/HEAD", dir);
  assert_int_equal(utimensat(AT_FDCWD, head, two_days_ago, 0), 0);
  /* and an old .new- entry of a create that never finished goes with it (prune's walk once
   * started where list's had ended, and saw nothing) */
  char stale[4200];
  snprintf(stale, sizeof stale, "%s/sessions/.new-sstale", home);
  assert_int_equal(mkdir(stale, 0700), 0);
  assert_int_equal(utimensat(AT_FDCWD, stale, two_days_ago, 0), 0);
  assert_int_equal(wasmbox_session_prune(wb, &removed, err, sizeof err), WASMBOX_OK);
  assert_int_equal(removed, 1);
  assert_int_not_equal(access(dir, F_OK), 0);
  assert_int_not_equal(access(stale, F_OK), 0);
  sess_ok(other, "print(y)", "2\n");
  new_session(id);
  assert_int_equal(wasmbox_session_destroy(wb, other, err, sizeof err), WASMBOX_OK);
}

static int count_fds(void) {
  int n = 0;
  DIR *d = opendir("/proc/self/fd");
  while (d && readdir(d)) n++;
  if (d) closedir(d);
  return n;
}

static long rss_kb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, rss = 0;
  if (f && fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = 0;
  if (f) fclose(f);
  return rss * 4;
}

static int count_entries(void) {
  char sessions[4096];
  snprintf(sessions, sizeof sessions, "%s/sessions", home);
  DIR *d = opendir(sessions);
  int entries = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) entries++;
  if (d) closedir(d);
  return entries;
}

static void test_many_sessions_no_leaks(void **s) {
  (void)s;
  char err[256];
  int fds = count_fds();
  int entries = count_entries(); /* the other tests' sessions (24 h TTL) */
  wasmbox_session_info *all;
  size_t before, n;
  assert_int_equal(wasmbox_session_list(wb, &all, &before, err, sizeof err), WASMBOX_OK);
  free(all);
  /* warm up once so one-time allocations are not counted as leaks */
  char id[WASMBOX_ID_MAX];
  new_session(id);
  sess_ok(id, "x = 1", "");
  assert_int_equal(wasmbox_session_destroy(wb, id, err, sizeof err), WASMBOX_OK);
  long rss = rss_kb();
  wasmbox_session_options o = {.ttl_seconds = 0.001};
  for (int i = 0; i < 1000; i++) {
    assert_int_equal(wasmbox_session_create(wb, &o, id, err, sizeof err), WASMBOX_OK);
    char code[64];
    snprintf(code, sizeof code, "v = %d\nprint(v * 2)", i);
    char want[32];
    snprintf(want, sizeof want, "%d\n", i * 2);
    sess_ok(id, code, want);
  }
  struct timespec ts = {0, 20 * 1000 * 1000};
  nanosleep(&ts, NULL);
  size_t removed;
  assert_int_equal(wasmbox_session_prune(wb, &removed, err, sizeof err), WASMBOX_OK);
  assert_int_equal(removed, 1000);
  assert_int_equal(wasmbox_session_list(wb, &all, &n, err, sizeof err), WASMBOX_OK);
  assert_int_equal(n, before);
  free(all);
  /* no more descriptors than before (fewer: earlier tests' live sessions
   * were evicted from the in-process cache meanwhile) */
  if (count_fds() > fds) fail_msg("%d descriptors open, %d before", count_fds(), fds);
  /* live sessions keep a few instances; growth beyond that is a leak */
  long grew = rss_kb() - rss;
  if (grew > 96 * 1024) fail_msg("resident memory grew by %ld KB over 1000 sessions", grew);
  assert_int_equal(count_entries(), entries); /* no directory left behind */
}

/* A child process runs calls that bump a counter in memory and append the
 * same number to a file; it is killed with SIGKILL at a random moment. The
 * session must then hold a consistent committed state: the counter equals
 * the file's line count, and is at least the last value the child saw
 * committed. */
static void test_kill_9_loses_nothing(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], err[256];
  new_session(id);
  sess_ok(id, "n = 0\nopen('lines', 'w').close()\n", "");
  srand((unsigned)time(NULL));
  for (int round = 0; round < 25; round++) {
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) {
      close(p[0]);
      wasmbox *w = open_home();
      for (;;) {
        wasmbox_request req = {.code = "n += 1\nopen('lines', 'a').write('%d\\n' % n)\nprint(n)", .session_id = id};
        wasmbox_result *r = NULL;
        if (wasmbox_run(w, &req, &r, err, sizeof err) || r->status != WASMBOX_STATUS_OK) _exit(3);
        int v = atoi(r->stdout_data);
        if (write(p[1], &v, sizeof v) != sizeof v) _exit(4);
        wasmbox_result_free(r);
      }
    }
    close(p[1]);
    struct timespec ts = {0, (long)(rand() % 60 + 5) * 1000 * 1000};
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    assert_true(WIFSIGNALED(st));
    int v, last = -1;
    while (read(p[0], &v, sizeof v) == sizeof v) last = v;
    close(p[0]);
    /* a fresh library instance sees the committed state */
    wasmbox *w = open_home();
    wasmbox_result *r = in_session(w, id, "print(n, len(open('lines').read().split()))", 0);
    expect_status(r, WASMBOX_STATUS_OK);
    int n = -1, lines = -2;
    assert_int_equal(sscanf(r->stdout_data, "%d %d", &n, &lines), 2);
    if (n != lines || n < last)
      fail_msg("round %d: counter %d, file lines %d, last committed %d", round, n, lines, last);
    wasmbox_result_free(r);
    wasmbox_free(w);
  }
}

/* A call on an empty workspace (no copy of it is made, only a mark) is
 * killed with SIGKILL once it has written files: they are gone when the
 * session is next used, and the memory is the committed one. */
static void test_kill_9_empty_workspace(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], err[256];
  new_session(id);
  sess_ok(id, "n = 1", "");
  char *ws = ws_path(id), half[4200];
  snprintf(half, sizeof half, "%s/half.txt", ws);
  pid_t pid = fork();
  if (pid == 0) {
    wasmbox *w = open_home();
    wasmbox_request req = {
        .code = "n = 2\nimport os\nos.mkdir('d')\nopen('half.txt', 'w').write('x')\nwhile True: pass",
        .session_id = id,
        .timeout_seconds = 30};
    wasmbox_result *r = NULL;
    wasmbox_run(w, &req, &r, err, sizeof err);
    _exit(0);
  }
  for (int i = 0; i < 2000 && access(half, F_OK) != 0; i++) usleep(10000);
  assert_int_equal(access(half, F_OK), 0);
  kill(pid, SIGKILL);
  int st;
  waitpid(pid, &st, 0);
  assert_true(WIFSIGNALED(st));
  wasmbox *w = open_home();
  wasmbox_result *r = in_session(w, id, "import os\nprint(n, os.listdir('.'))", 0);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "1 []\n");
  wasmbox_result_free(r);
  wasmbox_free(w);
  free(ws);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_state_kept),
      cmocka_unit_test(test_javascript_session),
      cmocka_unit_test(test_survives_restart),
      cmocka_unit_test(test_rollback_of_failed_calls),
      cmocka_unit_test(test_idle_worker_gives_back),
      cmocka_unit_test(test_fork_independent),
      cmocka_unit_test(test_checkpoint_restore),
      cmocka_unit_test(test_restore_drops_worker),
      cmocka_unit_test(test_log_stays_bounded),
      cmocka_unit_test(test_stale_descriptors),
      cmocka_unit_test(test_env_and_mounts_fixed),
      cmocka_unit_test(test_file_tools),
      cmocka_unit_test(test_nesting_is_bounded),
      cmocka_unit_test(test_owner_recorded),
      cmocka_unit_test(test_bad_ids),
      cmocka_unit_test(test_damaged_head),
      cmocka_unit_test(test_cut_head_write),
      cmocka_unit_test(test_log_room),
      cmocka_unit_test(test_kill_9_loses_nothing),
      cmocka_unit_test(test_kill_9_empty_workspace),
      cmocka_unit_test(test_many_sessions_no_leaks),
  };
  harness_setup(NULL);
  int rc = _cmocka_run_group_tests("sessions", tests, sizeof tests / sizeof tests[0], setup, teardown);
  harness_teardown(NULL);
  return rc;
}
