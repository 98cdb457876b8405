/* Isolation for JavaScript: test_isolation.c's attempts, written with what a
 * JavaScript program has (the file helpers, globals a node or browser program
 * reaches for, dynamic import). Every attempt must fail with a clean JS
 * error, and the host side is checked for changes afterwards.
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
  const char *links[][2] = {
      {"/", "link_root"}, {"..", "link_up"}, {"/etc/passwd", "link_passwd"}, {"../canary.txt", "link_canary"}};
  for (size_t i = 0; i < 4; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", ws, links[i][1]);
    if (symlink(links[i][0], p) != 0) return -1;
  }
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

/* The code must throw `type` whose message holds `needle`; no host path may
 * appear in what it sees. */
static void denied(const char *code, const char *type, const char *needle) {
  wasmbox_result *r = expect_js_error(code, ws, type);
  if (needle && !strstr(r->error_message, needle)) fail_msg("'%s' lacks '%s'", r->error_message, needle);
  if (strstr(r->stdout_data, base) || strstr(r->stderr_data, base)) fail_msg("host path leaked: %s", base);
  wasmbox_result_free(r);
  host_intact();
}

static void test_read_host_files(void **s) {
  (void)s;
  denied("readText('/etc/passwd')", "Error", "EACCES: permission denied");
  denied("readText('../../etc/passwd')", "Error", "EACCES");
  denied("readText('/app/../canary.txt')", "Error", "EACCES");
  denied("readText('../canary.txt')", "Error", "EACCES");
  denied("readText('/proc/self/environ')", "Error", "EACCES");
  denied("readText('/dev/zero')", "Error", "EACCES");
  denied("await import('/etc/passwd')", "ReferenceError", "could not load module '/etc/passwd': permission denied");
  denied("await import('../canary.txt')", "ReferenceError", "permission denied");
  /* the guidance says where files may be */
  wasmbox_result *r = expect_js_error("readText('/etc/hostname')", ws, "Error");
  assert_true(r->guidance_len >= 1);
  assert_non_null(strstr(r->guidance[0], "Only /app"));
  wasmbox_result_free(r);
}

static void test_planted_symlinks(void **s) {
  (void)s;
  denied("listDir('/app/link_root')", "Error", "EACCES");
  denied("readText('/app/link_root/etc/passwd')", "Error", "EACCES");
  denied("listDir('link_up')", "Error", "EACCES");
  denied("readText('link_up/canary.txt')", "Error", "EACCES");
  denied("readText('link_passwd')", "Error", "EACCES");
  denied("readText('link_canary')", "Error", "EACCES");
  denied("writeText('link_canary', 'pwned')", "Error", "EACCES");
  /* the links themselves are listed, and harmless */
  expect_js_output("console.log(listDir().join(' '))", ws, "link_canary link_passwd link_root link_up\n");
}

static void test_write_outside(void **s) {
  (void)s;
  denied("writeText('/app/../evil.txt', 'x')", "Error", "EACCES");
  denied("writeText('/evil.txt', 'x')", "Error", "EACCES");
  denied("writeText('/tmp/evil.txt', 'x')", "Error", "EACCES");
  denied("writeJson('../evil.json', {})", "Error", "EACCES");
  denied("writeText('link_up/evil.txt', 'x')", "Error", "EACCES");
}

static void test_list_root(void **s) {
  (void)s;
  denied("listDir('/')", "Error", "EACCES");
  denied("listDir('/app/..')", "Error", "EACCES");
  denied("listDir('..')", "Error", "EACCES");
}

static void test_read_only_mount(void **s) {
  (void)s;
  char *dir = make_dir();
  write_file(dir, "data.txt", "shared");
  wasmbox_mount m = {.host_dir = dir, .guest_path = "/data"};
  wasmbox_request req = {.language = "javascript",
                         .code = "console.log(readText('/data/data.txt'));\nwriteText('/data/data.txt', 'x')",
                         .workspace = ws,
                         .mounts = &m,
                         .mounts_len = 1};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_string_equal(r->stdout_data, "shared\n");
  assert_non_null(strstr(r->error_message, "EROFS: read-only file system"));
  wasmbox_result_free(r);
  char *c = read_file(dir, "data.txt");
  assert_string_equal(c, "shared");
  free(c);
  rm_tree(dir);
  free(dir);
}

static void test_environment(void **s) {
  (void)s;
  setenv("WASMBOX_TEST_SECRET", "hunter2", 1);
  expect_js_output("console.log(process.env, process.env.WASMBOX_TEST_SECRET, process.env.HOME)", ws,
                   "{} undefined undefined\n");
}

static void test_network(void **s) {
  (void)s;
  wasmbox_result *r = expect_js_error("await fetch('http://127.0.0.1:1/')", ws, "ReferenceError");
  assert_true(r->guidance_len >= 1);
  assert_non_null(strstr(r->guidance[0], "no network"));
  wasmbox_result_free(r);
  denied("new XMLHttpRequest()", "ReferenceError", "is not defined");
  denied("new WebSocket('ws://127.0.0.1:1')", "ReferenceError", "is not defined");
  /* node's network modules exist only to say so, required or imported */
  const char *net[] = {"require('net')",   "require('node:http')", "await import('https')",
                       "require('dgram')", "require('dns')",       "await import('node:tls')"};
  for (size_t i = 0; i < sizeof net / sizeof net[0]; i++) {
    r = expect_js_error(net[i], ws, "Error");
    assert_non_null(strstr(r->error_message, "is not available in the wasmbox sandbox: there is no network"));
    assert_true(r->guidance_len >= 1);
    assert_non_null(strstr(r->guidance[0], "no network"));
    wasmbox_result_free(r);
  }
  r = expect_js_error("await import('zlib')", ws, "ReferenceError");
  assert_non_null(strstr(r->guidance[0], "'zlib' module does not exist"));
  wasmbox_result_free(r);
}

static void test_processes(void **s) {
  (void)s;
  wasmbox_result *r = expect_js_error("require('child_process').execSync('touch /tmp/pwned')", ws, "Error");
  assert_string_equal(r->error_message,
                      "The module 'child_process' is not available in the wasmbox sandbox: there are no processes");
  assert_non_null(strstr(r->guidance[0], "no processes"));
  wasmbox_result_free(r);
  denied("await import('node:child_process')", "Error", "not available in the wasmbox sandbox");
  denied("require('cluster')", "Error", "there are no processes");
  denied("require('worker_threads')", "Error", "there are no threads");
  /* process has none of node's ways to native code or other processes */
  expect_js_output(
      "console.log(typeof process.binding, typeof process.dlopen, typeof process.kill, "
      "typeof process._linkedBinding, typeof process.execve)",
      ws, "undefined undefined undefined undefined undefined\n");
  /* quickjs-libc's std and os modules (exec, sockets, fds) are not linked:
   * 'os' is node's module of fixed values, 'std' does not exist */
  expect_js_output("const os = await import('os'); console.log(os.hostname(), typeof os.default.exec)", ws,
                   "sandbox undefined\n");
  denied("await import('std')", "ReferenceError", "could not load module");
  expect_js_output("console.log(typeof std, typeof os, typeof scriptArgs, typeof print, typeof Deno, typeof Bun)", ws,
                   "undefined undefined undefined undefined undefined undefined\n");
  assert_int_equal(access("/tmp/pwned", F_OK), -1);
}

static void test_bad_paths(void **s) {
  (void)s;
  denied("readText('a\\x00b')", "TypeError", "null bytes");
  denied("writeText('x'.repeat(5000), 'a')", "Error", "ENAMETOOLONG");
  denied("readText('/app/' + 'd/'.repeat(3000) + 'f')", "Error", "ENAMETOOLONG");
  /* names that are any Unicode stay inside the workspace */
  expect_js_output("writeText('ünï €.txt', '1'); console.log(listDir().includes('ünï €.txt'))", ws, "true\n");
}

static void test_special_files_refused(void **s) {
  (void)s;
  char p[4096];
  snprintf(p, sizeof p, "%s/fifo", ws);
  assert_int_equal(mkfifo(p, 0600), 0);
  /* a fifo planted in the workspace must not block the host */
  denied("readText('/app/fifo')", "Error", "EACCES");
  unlink(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_read_host_files), cmocka_unit_test(test_planted_symlinks),
      cmocka_unit_test(test_write_outside),   cmocka_unit_test(test_list_root),
      cmocka_unit_test(test_read_only_mount), cmocka_unit_test(test_environment),
      cmocka_unit_test(test_network),         cmocka_unit_test(test_processes),
      cmocka_unit_test(test_bad_paths),       cmocka_unit_test(test_special_files_refused),
  };
  harness_setup(NULL);
  int rc = _cmocka_run_group_tests("js_isolation", tests, sizeof tests / sizeof tests[0], setup, teardown);
  harness_teardown(NULL);
  return rc;
}
