/* Isolation: the guest reaches nothing of the host but its workspace. Every
 * attempt must fail with a clean Python exception, and the test then checks
 * on the host side that nothing outside the workspace changed.
 *
 * Layout on the host:  base/canary.txt  base/ws/ (the workspace, /app)
 * with symlinks planted in ws pointing to /, .., /etc/passwd and the canary. */
#include <dirent.h>

#include "harness.h"

static char *base, *ws;

static int setup(void **state) {
  (void)state;
  base = make_dir();
  if (!base || asprintf(&ws, "%s/ws", base) < 0 || mkdir(ws, 0755) != 0) return -1;
  write_file(base, "canary.txt", "original");
  char p[4096];
  snprintf(p, sizeof p, "%s/link_root", ws);
  if (symlink("/", p) != 0) return -1;
  snprintf(p, sizeof p, "%s/link_up", ws);
  if (symlink("..", p) != 0) return -1;
  snprintf(p, sizeof p, "%s/link_passwd", ws);
  if (symlink("/etc/passwd", p) != 0) return -1;
  snprintf(p, sizeof p, "%s/link_canary", ws);
  if (symlink("../canary.txt", p) != 0) return -1;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  rm_tree(base);
  free(base);
  free(ws);
  return 0;
}

/* Nothing outside the workspace changed: base holds exactly canary.txt and
 * ws, and the canary still says "original". */
static void host_intact(void) {
  char *c = read_file(base, "canary.txt");
  assert_non_null(c);
  assert_string_equal(c, "original");
  free(c);
  DIR *d = opendir(base);
  assert_non_null(d);
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (strcmp(e->d_name, "canary.txt") && strcmp(e->d_name, "ws")) fail_msg("unexpected host file %s", e->d_name);
    n++;
  }
  closedir(d);
  assert_int_equal(n, 2);
}

/* The code must raise `type`; no host path may appear in what it sees. */
static void denied(const char *code, const char *type) {
  wasmbox_result *r = expect_exception(code, ws, type);
  if (strstr(r->stdout_data, base) || strstr(r->stderr_data, base)) fail_msg("host path leaked: %s", base);
  wasmbox_result_free(r);
  host_intact();
}

static void test_read_host_files(void **s) {
  (void)s;
  denied("open('/etc/passwd').read()", "PermissionError");
  denied("open('../../etc/passwd').read()", "PermissionError");
  denied("open('/app/../canary.txt').read()", "PermissionError");
  denied("open('../canary.txt').read()", "PermissionError");
  denied("open('/proc/self/environ').read()", "PermissionError");
  denied("open('/dev/zero', 'rb').read(1)", "PermissionError");
  denied("import os\nos.stat('/etc/passwd')", "PermissionError");
}

static void test_planted_symlinks(void **s) {
  (void)s;
  denied("import os\nos.listdir('/app/link_root')", "PermissionError");
  denied("open('/app/link_root/etc/passwd').read()", "PermissionError");
  denied("import os\nos.listdir('link_up')", "PermissionError");
  denied("open('link_up/canary.txt').read()", "PermissionError");
  denied("open('link_passwd').read()", "PermissionError");
  denied("open('link_canary').read()", "PermissionError");
  denied("open('link_canary', 'w').write('pwned')", "PermissionError");
  /* the links themselves are visible as links, and harmless */
  expect_output("import os\nprint(os.readlink('link_up'), os.path.islink('link_root'))", ws, ".. True\n");
}

static void test_guest_symlinks(void **s) {
  (void)s;
  denied("import os\nos.symlink('/etc', 'etc_link')\nos.listdir('etc_link')", "PermissionError");
  denied("import os\nos.symlink('../..', 'up2')\nopen('up2/etc/passwd').read()", "PermissionError");
  denied("import os\nos.symlink('../canary.txt', 'c2')\nopen('c2', 'a').write('x')", "PermissionError");
  /* a link that stays inside the workspace works */
  expect_output(
      "import os\nopen('real.txt', 'w').write('in')\nos.symlink('real.txt', 'ok_link')\n"
      "print(open('ok_link').read())",
      ws, "in\n");
}

static void test_write_outside(void **s) {
  (void)s;
  denied("open('/app/../evil.txt', 'w').write('x')", "PermissionError");
  denied("open('/evil.txt', 'w').write('x')", "PermissionError");
  denied("open('/tmp/evil.txt', 'w').write('x')", "PermissionError");
  denied("import os\nos.mkdir('/app/../evildir')", "PermissionError");
  denied("import os\nopen('m.txt', 'w').write('m')\nos.rename('m.txt', '../moved.txt')", "PermissionError");
  denied("import os\nopen('h.txt', 'w').write('h')\nos.link('h.txt', '../hard.txt')", "PermissionError");
  denied("import os\nos.link('/etc/passwd', 'passwd_hard')", "PermissionError");
  denied("import os\nos.remove('../canary.txt')", "PermissionError");
  denied("import os\nos.rmdir('/app/..')", "OSError"); /* EINVAL: ".." names no entry */
  denied("import shutil\nshutil.rmtree('link_up')", "OSError");
}

static void test_list_root(void **s) {
  (void)s;
  denied("import os\nos.listdir('/')", "PermissionError");
  denied("import os\nos.listdir('/app/..')", "PermissionError");
  denied("import os\nos.chdir('/app/..')\nos.listdir('.')", "PermissionError");
}

static void test_stdlib_read_only(void **s) {
  (void)s;
  wasmbox_result *r = expect_exception("open('/usr/local/lib/python3.11/os.py', 'a').write('x')", ws, "OSError");
  assert_non_null(strstr(r->error_message, "Read-only file system"));
  wasmbox_result_free(r);
  denied("import os\nos.remove('/usr/local/lib/python3.11/os.py')", "OSError");
  /* and it can be read, as a standard library should */
  expect_output("print(len(open('/usr/local/lib/python3.11/os.py').read()) > 1000)", ws, "True\n");
}

static void test_environment(void **s) {
  (void)s;
  setenv("WASMBOX_TEST_SECRET", "hunter2", 1);
  wasmbox_result *r =
      run_py_in("import os\nprint(dict(os.environ), os.getenv('WASMBOX_TEST_SECRET'), os.getenv('HOME'))", ws);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "{} None None\n");
  wasmbox_result_free(r);
}

static void test_network(void **s) {
  (void)s;
  denied("import socket\nsocket.socket()", "OSError");
  /* no resolver and no sockets: the module lacks the functions */
  denied("import socket\nsocket.create_connection(('127.0.0.1', 22), timeout=1)", "AttributeError");
  wasmbox_result *r =
      expect_exception("import urllib.request\nurllib.request.urlopen('http://127.0.0.1:1/')", ws, "AttributeError");
  assert_true(r->guidance_len >= 1);
  assert_non_null(strstr(r->guidance[0], "no network"));
  wasmbox_result_free(r);
}

static void test_processes(void **s) {
  (void)s;
  denied("import os\nos.system('touch /tmp/pwned')", "AttributeError");
  denied("import os\nos.fork()", "AttributeError");
  wasmbox_result *r = expect_exception("import subprocess\nsubprocess.run(['touch', '/tmp/pwned'])", ws, "OSError");
  assert_non_null(strstr(r->guidance[0], "Processes cannot be started"));
  wasmbox_result_free(r);
  denied("import os\nos.execv('/bin/sh', ['sh'])", "AttributeError");
  assert_int_equal(access("/tmp/pwned", F_OK), -1);
}

static void test_bad_paths(void **s) {
  (void)s;
  denied("open('a\\x00b')", "ValueError");
  denied("open('x' * 5000, 'w')", "OSError");
  denied("open('/app/' + 'd/' * 3000 + 'f')", "OSError");
  /* names that are not UTF-8 stay inside the workspace */
  expect_output("import os\nopen(b'\\xff\\xfe.bin', 'wb').write(b'1')\nprint(os.path.exists(b'\\xff\\xfe.bin'))", ws,
                "True\n");
}

static void test_special_files_refused(void **s) {
  (void)s;
  char p[4096];
  snprintf(p, sizeof p, "%s/fifo", ws);
  assert_int_equal(mkfifo(p, 0600), 0);
  /* a fifo planted in the workspace must not block the host */
  denied("open('/app/fifo').read()", "PermissionError");
  /* and the hint says what it is, not only "outside /app" */
  wasmbox_result *r = expect_exception("open('fifo').read()", ws, "PermissionError");
  bool named = false;
  for (size_t i = 0; i < r->guidance_len; i++) named |= strstr(r->guidance[i], "FIFO or device") != NULL;
  assert_true(named);
  wasmbox_result_free(r);
  unlink(p);
}

static void test_read_only_mount(void **s) {
  (void)s;
  char *ro = make_dir();
  write_file(ro, "data.txt", "shared");
  wasmbox_mount m[] = {{.host_dir = ro, .guest_path = "/data"}};
  wasmbox_request req = {.code = "print(open('/data/data.txt').read())", .workspace = ws, .mounts = m, .mounts_len = 1};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "shared\n");
  wasmbox_result_free(r);
  const char *writes[] = {"open('/data/data.txt', 'w').write('x')", "open('/data/new.txt', 'w')",
                          "import os\nos.remove('/data/data.txt')", "import os\nos.mkdir('/data/d')",
                          "open('/data/../escape', 'w')"};
  for (size_t i = 0; i < sizeof writes / sizeof writes[0]; i++) {
    req.code = writes[i];
    r = run_req(&req);
    expect_status(r, WASMBOX_STATUS_ERROR);
    wasmbox_result_free(r);
  }
  char *c = read_file(ro, "data.txt");
  assert_string_equal(c, "shared");
  free(c);
  assert_null(read_file(ro, "new.txt"));
  host_intact();
  rm_tree(ro);
  free(ro);
}

static void test_bad_mounts(void **s) {
  (void)s;
  const char *bad[] = {"relative", "/", "/app", "/app/x", "/a/../b", "/a//b", "/a/", "/x/."};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    wasmbox_mount m[] = {{.host_dir = ws, .guest_path = bad[i]}};
    wasmbox_request req = {.code = "1", .mounts = m, .mounts_len = 1};
    wasmbox_result *r = NULL;
    char err[256];
    if (wasmbox_run(test_wb, &req, &r, err, sizeof err) != WASMBOX_EUSAGE) fail_msg("mount %s accepted", bad[i]);
  }
  wasmbox_mount m[] = {{.host_dir = "/nonexistent", .guest_path = "/data"}};
  wasmbox_request req = {.code = "1", .mounts = m, .mounts_len = 1};
  wasmbox_result *r = NULL;
  char err[256];
  assert_int_equal(wasmbox_run(test_wb, &req, &r, err, sizeof err), WASMBOX_EUSAGE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_read_host_files),
      cmocka_unit_test(test_planted_symlinks),
      cmocka_unit_test(test_guest_symlinks),
      cmocka_unit_test(test_write_outside),
      cmocka_unit_test(test_list_root),
      cmocka_unit_test(test_stdlib_read_only),
      cmocka_unit_test(test_environment),
      cmocka_unit_test(test_network),
      cmocka_unit_test(test_processes),
      cmocka_unit_test(test_bad_paths),
      cmocka_unit_test(test_special_files_refused),
      cmocka_unit_test(test_read_only_mount),
      cmocka_unit_test(test_bad_mounts),
  };
  harness_setup(NULL);
  int rc = _cmocka_run_group_tests("isolation", tests, sizeof tests / sizeof tests[0], setup, teardown);
  harness_teardown(NULL);
  return rc;
}
