/* Faults from below the sandbox: a disk that fills up (a small tmpfs as the
 * state directory, in a mount namespace of a forked child) and writes,
 * syncs and renames that fail (EIO, ENOSPC: a seccomp filter in a forked
 * child makes the kernel refuse them). Each must end with a clear error to
 * the caller and leave the session at its previous or its new state, never
 * lost and never half; once the fault is gone the session goes on. And a
 * kernel that refuses namespaces: the calls still run, with less jail. */
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "harness.h"

static char *home;

static int setup(void **state) {
  (void)state;
  home = make_dir();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  rm_tree(home);
  free(home);
  return 0;
}

/* Run code in session `id` of `w`: WASMBOX_OK and the result, or the error. */
static int in_session(wasmbox *w, const char *id, const char *code, wasmbox_result **r, char *err, size_t n) {
  wasmbox_request req = {.code = code, .session_id = id};
  *r = NULL;
  return wasmbox_run(w, &req, r, err, n);
}

/* The call must have failed, saying `why` (in the error or the result's
 * message), and left nothing committed. */
static bool failed_with(int rc, wasmbox_result *r, const char *err, const char *why) {
  const char *msg = rc != WASMBOX_OK ? err : r && r->error_message ? r->error_message : "";
  bool ok = (rc != WASMBOX_OK || (r->status != WASMBOX_STATUS_OK && r->session_rolled_back)) && strstr(msg, why);
  if (!ok)
    fprintf(stderr, "rc %d, status %s, message '%s' (wanted '%s')\n", rc, r ? wasmbox_status_name(r->status) : "-", msg,
            why);
  return ok;
}

/* The session, seen by a new library instance, prints `want`. */
static void expect_state(const char *id, const char *code, const char *want) {
  char err[512];
  wasmbox_options o = {.home = home};
  wasmbox *w = wasmbox_open(&o, err, sizeof err);
  assert_non_null(w);
  wasmbox_result *r;
  int rc = in_session(w, id, code, &r, err, sizeof err);
  if (rc) fail_msg("%s", err);
  if (strcmp(r->stdout_data, want)) dump(r);
  assert_string_equal(r->stdout_data, want);
  wasmbox_result_free(r);
  wasmbox_free(w);
}

static void new_session(char id[WASMBOX_ID_MAX], const char *code) {
  char err[512];
  wasmbox_options o = {.home = home};
  wasmbox *w = wasmbox_open(&o, err, sizeof err);
  assert_non_null(w);
  assert_int_equal(wasmbox_session_create(w, NULL, id, err, sizeof err), WASMBOX_OK);
  wasmbox_result *r;
  assert_int_equal(in_session(w, id, code, &r, err, sizeof err), WASMBOX_OK);
  expect_status(r, WASMBOX_STATUS_OK);
  wasmbox_result_free(r);
  wasmbox_free(w);
}

static int child_status(pid_t p) {
  int st;
  assert_int_equal(waitpid(p, &st, 0), p);
  if (!WIFEXITED(st)) fprintf(stderr, "child killed by signal %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : -1);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- a full disk -------------------------------------------------------------- */

/* Fill the file system of `dir` up to its last byte. */
static void fill(const char *dir) {
  char p[4200];
  snprintf(p, sizeof p, "%s/filler", dir);
  int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  static char block[1 << 16];
  size_t k = sizeof block;
  while (fd >= 0 && k) {
    ssize_t w = write(fd, block, k);
    if (w < 0) k /= 2; /* down to the last pages */
  }
  if (fd >= 0) close(fd);
}

static void drain(const char *dir) {
  char p[4200];
  snprintf(p, sizeof p, "%s/filler", dir);
  unlink(p);
}

static int disk_full_child(const char *state) {
  /* a 64 MiB tmpfs over the state directory, seen by this child and its
   * workers only */
  if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) return 10;
  if (mount("tmpfs", state, "tmpfs", 0, "size=64m")) return 11;
  char err[512];
  wasmbox_options o = {.home = state};
  wasmbox *w = wasmbox_open(&o, err, sizeof err);
  char sid[WASMBOX_ID_MAX];
  if (!w || wasmbox_session_create(w, NULL, sid, err, sizeof err)) return 12;
  wasmbox_result *r;
  int rc = in_session(w, sid, "import os\nn = 1\nkeep = os.urandom(4 << 20)\nopen('f', 'w').write('one')", &r, err,
                      sizeof err);
  if (rc || r->status != WASMBOX_STATUS_OK) return 13;
  wasmbox_result_free(r);
  char ws[2100];
  snprintf(ws, sizeof ws, "%s/ws", state);
  if (mkdir(ws, 0700)) return 14;
  fill(state);
  /* the memory a call writes cannot be saved */
  rc = in_session(w, sid, "n = 2\nmore = os.urandom(8 << 20)", &r, err, sizeof err);
  if (!failed_with(rc, r, err, "No space left on device")) return 15;
  wasmbox_result_free(r);
  /* a guest's write fails in the guest, as on any full disk (51: WASI's ENOSPC) */
  wasmbox_request req = {.code = "open('f', 'w').write('x' * (1 << 22))", .workspace = ws};
  if (wasmbox_run(w, &req, &r, err, sizeof err) || r->status != WASMBOX_STATUS_ERROR ||
      strcmp(r->error_type, "OSError") || strcmp(r->error_message, "[Errno 51] No space left on device"))
    return 16;
  wasmbox_result_free(r);
  drain(state);
  rc = in_session(w, sid, "print(n, len(keep), open('f').read())\nn = 3", &r, err, sizeof err);
  if (rc || r->status != WASMBOX_STATUS_OK || strcmp(r->stdout_data, "1 4194304 one\n")) return 17;
  wasmbox_result_free(r);
  /* and a new instance, from the disk */
  wasmbox_free(w);
  w = wasmbox_open(&o, err, sizeof err);
  rc = in_session(w, sid, "print(n)", &r, err, sizeof err);
  if (rc || strcmp(r->stdout_data, "3\n")) return 18;
  wasmbox_result_free(r);
  wasmbox_free(w);
  return 0;
}

/* Directory `sub` of the home made, `child` run on it in a forked process,
 * which must succeed (else `what` and the step that failed are printed). */
static void child_on_dir(const char *sub, int (*child)(const char *dir), const char *what) {
  char dir[2048];
  snprintf(dir, sizeof dir, "%s/%s", home, sub);
  assert_int_equal(mkdir(dir, 0700), 0);
  fflush(NULL);
  pid_t p = fork();
  if (p == 0) _exit(child(dir));
  int code = child_status(p);
  if (code) fprintf(stderr, "%s failed at step %d\n", what, code);
  assert_int_equal(code, 0);
}

static void test_disk_fills_up(void **s) {
  (void)s;
  child_on_dir("full", disk_full_child, "the full-disk child");
}

/* ---- failing system calls ----------------------------------------------------------- */

typedef struct {
  const char *name;
  int syscalls[3];
  int err;
  const char *message;
} fault;

/* What a call on a session with files writes: the link copy of its
 * workspace (linkat), the page log with its seal (pwrite), one fdatasync of
 * the log, then HEAD in place (pwrite). A failed fdatasync must cut the
 * seal off again: else the next load would take the failed call's state. */
static const fault faults[] = {
    {"fdatasync: EIO", {SCMP_SYS(fdatasync), -1, -1}, EIO, "Input/output error"},
    {"pwrite: ENOSPC", {SCMP_SYS(pwrite64), SCMP_SYS(pwritev), -1}, ENOSPC, "No space left on device"},
    {"linkat: EMLINK", {SCMP_SYS(linkat), SCMP_SYS(link), -1}, EMLINK, "Too many links"},
};

/* In a child: every call of the fault's system calls fails; one session
 * call, which must fail and say why. */
static int faulty_child(const fault *f, const char *id) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) return 10;
  for (int i = 0; i < 3 && f->syscalls[i] >= 0; i++)
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO((uint32_t)f->err), f->syscalls[i], 0)) return 11;
  if (seccomp_load(ctx)) return 12;
  seccomp_release(ctx);
  char err[512];
  wasmbox_options o = {.home = home};
  wasmbox *w = wasmbox_open(&o, err, sizeof err);
  if (!w) return 13;
  wasmbox_result *r;
  int rc = in_session(w, id, "n += 1\nimport os\nblob = os.urandom(1 << 20)\nopen('f', 'w').write(str(n))", &r, err,
                      sizeof err);
  if (!failed_with(rc, r, err, f->message)) return 14;
  wasmbox_result_free(r);
  wasmbox_free(w);
  return 0;
}

static void test_failing_writes_syncs_and_links(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX];
  new_session(id, "n = 1\nopen('f', 'w').write('1')");
  for (size_t i = 0; i < sizeof faults / sizeof *faults; i++) {
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) _exit(faulty_child(&faults[i], id));
    int code = child_status(p);
    if (code) fprintf(stderr, "%s: the child failed at step %d\n", faults[i].name, code);
    assert_int_equal(code, 0);
    /* the state before the failed call, and the session goes on */
    expect_state(id, "print(n, open('f').read())", "1 1\n");
  }
  expect_state(id, "n += 1\nopen('f', 'w').write(str(n))\nprint(n)", "2\n");
  expect_state(id, "print(n, open('f').read())", "2 2\n");
}

/* ---- a kernel without namespaces --------------------------------------------------- */

/* One stateless call of a one-shot handle that writes a file in /app: its
 * worker made its /app in `tmp` (the host: no mount view), gone once the
 * handle is freed. 0 or the step that failed. */
static int one_shot_scratch_on_host(const char *tmp, int step) {
  char err[512];
  wasmbox_options o = {.home = home, .one_shot = true};
  wasmbox *w = wasmbox_open(&o, err, sizeof err);
  if (!w) return step;
  wasmbox_request req = {.code = "import os\nopen('/app/f', 'w').write('x')\nprint(os.listdir('/app'))"};
  wasmbox_result *r;
  if (wasmbox_run(w, &req, &r, err, sizeof err)) return fprintf(stderr, "%s\n", err), step + 1;
  if (r->status != WASMBOX_STATUS_OK) return dump(r), step + 1;
  if (strcmp(r->stdout_data, "['f']\n")) return step + 2;
  wasmbox_result_free(r);
  if (dir_entries(tmp) != 1) return step + 3; /* the worker's directory, with the call's file */
  wasmbox_free(w);
  if (dir_entries(tmp) != 0) return step + 4;
  return 0;
}

/* In a child where unshare fails (EPERM, as in a container that forbids
 * namespaces): a one-shot stateless call has no mount view for a tmpfs /app,
 * so its worker makes the directory on the host, in TMPDIR, and it is gone
 * once the library is freed: a worker that is a plain fork, then, once a
 * session made in this process has opened the runtime, one started anew. */
static int no_namespaces_child(const char *tmp) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0) || seccomp_load(ctx)) return 10;
  seccomp_release(ctx);
  if (setenv("TMPDIR", tmp, 1)) return 11;
  int step = one_shot_scratch_on_host(tmp, 20);
  if (step) return step;
  char err[512], id[WASMBOX_ID_MAX];
  wasmbox_options o = {.home = home};
  wasmbox *w = wasmbox_open(&o, err, sizeof err);
  if (!w || wasmbox_session_create(w, NULL, id, err, sizeof err)) return 12;
  wasmbox_free(w);
  return one_shot_scratch_on_host(tmp, 30);
}

static void test_one_shot_scratch_without_namespaces(void **s) {
  (void)s;
  child_on_dir("tmp", no_namespaces_child, "the child without namespaces");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      /* first: this process has opened no runtime yet */
      cmocka_unit_test_setup_teardown(test_one_shot_scratch_without_namespaces, setup, teardown),
      cmocka_unit_test_setup_teardown(test_disk_fills_up, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failing_writes_syncs_and_links, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
