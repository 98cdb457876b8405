/* What eval harnesses restrict. The Python import policy (request
 * allow_imports / deny_imports / deny_builtins): refused statically with
 * every violation and its line before anything runs, refused again at run
 * time however the code reaches a module or builtin, lifted when the call
 * ends; libraries keep working. And no_files. */
#include "harness.h"

static const char *const deny_socket[] = {"socket", "subprocess"};
static const char *const deny_eval[] = {"eval", "exec", "compile"};

static wasmbox_result *run_policy(const char *code, const char *const *allow, size_t nallow, const char *const *deny,
                                  size_t ndeny, const char *const *builtins, size_t nbuiltins) {
  wasmbox_request req = {.code = code,
                         .allow_imports = allow,
                         .allow_imports_len = nallow,
                         .deny_imports = deny,
                         .deny_imports_len = ndeny,
                         .deny_builtins = builtins,
                         .deny_builtins_len = nbuiltins};
  return run_req(&req);
}

static void expect_policy_error(wasmbox_result *r, const char *message) {
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_string_equal(r->error_type, "ImportPolicyError");
  if (strcmp(r->error_message, message)) fail_msg("message '%s', wanted '%s'", r->error_message, message);
  wasmbox_result_free(r);
}

static void test_static_check_reports_every_line(void **s) {
  (void)s;
  wasmbox_result *r = run_policy(
      "print('ran')\nimport json, socket\nfrom subprocess import run\n"
      "m = __import__('socket')\nimport importlib\nimportlib.import_module('subprocess')\n",
      NULL, 0, deny_socket, 2, NULL, 0);
  assert_string_equal(r->stdout_data, ""); /* nothing ran */
  expect_policy_error(r,
                      "line 2: import of 'socket' is not allowed; line 3: import of 'subprocess' is not allowed; "
                      "line 4: import of 'socket' is not allowed; line 6: import of 'subprocess' is not allowed");
  r = run_policy(
      "x = eval('1')\ny = getattr(__builtins__, 'exec')\nz = __builtins__['compile']\n"
      "import builtins\nbuiltins.eval('2')\n",
      NULL, 0, NULL, 0, deny_eval, 3);
  expect_policy_error(r,
                      "line 1: eval is not allowed; line 2: exec is not allowed; line 3: compile is not allowed; "
                      "line 5: eval is not allowed");
}

static void test_run_time_check(void **s) {
  (void)s;
  /* names the static check cannot see */
  wasmbox_result *r = run_policy("import importlib\nname = 'soc' + 'ket'\nimportlib.import_module(name)\n", NULL, 0,
                                 deny_socket, 2, NULL, 0);
  expect_policy_error(r, "import of 'socket' is not allowed");
  r = run_policy("n = 'subprocess'\n__import__(n)\n", NULL, 0, deny_socket, 2, NULL, 0);
  expect_policy_error(r, "import of 'subprocess' is not allowed");
  r = run_policy("exec('import ' + 'socket', {})\n", NULL, 0, deny_socket, 2, NULL, 0);
  expect_policy_error(r, "import of 'socket' is not allowed");
  r = run_policy("import builtins\nf = getattr(builtins, 'ev' + 'al')\nf('1')\n", NULL, 0, NULL, 0, deny_eval, 3);
  expect_policy_error(r, "eval is not allowed");
  r = run_policy(
      "f = __builtins__ if isinstance(__builtins__, dict) else vars(__builtins__)\n"
      "list(map(f['ex' + 'ec'], ['1']))\n",
      NULL, 0, NULL, 0, deny_eval, 3);
  expect_policy_error(r, "exec is not allowed");
}

static void test_allow_list(void **s) {
  (void)s;
  static const char *const allow[] = {"json", "math"};
  wasmbox_result *r = run_policy("import json, math\nimport json.decoder\nprint(json.dumps(math.floor(2.5)))\n", allow,
                                 2, NULL, 0, NULL, 0);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "2\n");
  wasmbox_result_free(r);
  r = run_policy("import json\nimport csv\n", allow, 2, NULL, 0, NULL, 0);
  expect_policy_error(r, "line 2: import of 'csv' is not allowed");
  /* an empty allow list allows nothing */
  r = run_policy("print(1)\nimport json\n", allow, 0, NULL, 0, NULL, 0);
  expect_policy_error(r, "line 2: import of 'json' is not allowed");
}

/* What the policy binds is the code: libraries it imports keep their own
 * imports and may use exec/eval themselves. */
static void test_libraries_are_theirs(void **s) {
  (void)s;
  wasmbox_result *r = run_policy(
      "import http.client, collections, dataclasses\n"
      "P = collections.namedtuple('P', 'x y')\n"
      "@dataclasses.dataclass\nclass D:\n    a: int\n"
      "print(P(1, 2).y, D(3).a, http.client.OK)\n",
      NULL, 0, deny_socket, 2, deny_eval, 3);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "2 3 200\n");
  wasmbox_result_free(r);
}

/* Tracebacks show the code's frames only, with its lines. */
static void test_tracebacks_are_the_codes(void **s) {
  (void)s;
  wasmbox_result *r = run_policy("def f():\n    return 1 / 0\n\nf()\n", NULL, 0, deny_socket, 2, NULL, 0);
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_string_equal(r->error_type, "ZeroDivisionError");
  assert_non_null(strstr(r->error_traceback, "File \"<string>\", line 4, in <module>\n    f()"));
  assert_non_null(strstr(r->error_traceback, "line 2, in f\n    return 1 / 0"));
  assert_null(strstr(r->error_traceback, "wasmbox"));
  wasmbox_result_free(r);
  r = run_policy("x = (\n", NULL, 0, deny_socket, 2, NULL, 0);
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_string_equal(r->error_type, "SyntaxError");
  assert_null(strstr(r->error_traceback, "wasmbox"));
  wasmbox_result_free(r);
}

/* In a session the policy is the call's: the next call has its own. */
static void test_policy_is_per_call(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], err[512];
  assert_int_equal(wasmbox_session_create(test_wb, NULL, id, err, sizeof err), WASMBOX_OK);
  wasmbox_request req = {.session_id = id,
                         .code = "kept = 41\n",
                         .deny_imports = deny_socket,
                         .deny_imports_len = 2,
                         .deny_builtins = deny_eval,
                         .deny_builtins_len = 3};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  wasmbox_result_free(r);
  wasmbox_request next = {.session_id = id, .code = "import socket\nprint(eval('kept + 1'))\n"};
  r = run_req(&next);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "42\n");
  wasmbox_result_free(r);
  assert_int_equal(wasmbox_session_destroy(test_wb, id, err, sizeof err), WASMBOX_OK);
}

static void test_bad_policies_refused(void **s) {
  (void)s;
  static const char *const bad_module[] = {"os; import sys"}, *const bad_builtin[] = {"os.system"};
  wasmbox_result *r = NULL;
  char err[512];
  wasmbox_request req = {.code = "pass", .deny_imports = bad_module, .deny_imports_len = 1};
  assert_int_equal(wasmbox_run(test_wb, &req, &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_non_null(strstr(err, "deny_imports: 'os; import sys' is not a module name"));
  wasmbox_request req2 = {.code = "pass", .deny_builtins = bad_builtin, .deny_builtins_len = 1};
  assert_int_equal(wasmbox_run(test_wb, &req2, &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_non_null(strstr(err, "is not a builtin name"));
  wasmbox_request js = {.language = "javascript", .code = "1", .deny_imports = deny_socket, .deny_imports_len = 1};
  assert_int_equal(wasmbox_run(test_wb, &js, &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_non_null(strstr(err, "import policies are Python's"));
}

/* no_files: the code finds no file and can write none, in either language;
 * the standard library still imports. */
static void test_no_files(void **s) {
  (void)s;
  wasmbox_request req = {.no_files = true,
                         .code =
                             "import os, json\n"
                             "print(os.listdir('/app'), json.dumps(1))\n"
                             "for f in (lambda: open('x', 'w'), lambda: os.mkdir('d'),\n"
                             "          lambda: __import__('sqlite3').connect('db').execute('create table t(x)')):\n"
                             "    try:\n"
                             "        f(); print('written')\n"
                             "    except Exception as e:\n"
                             "        print(type(e).__name__)\n"};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "[] 1\nOSError\nOSError\nOperationalError\n");
  assert_int_equal(r->files_changed_len, 0);
  wasmbox_result_free(r);
  wasmbox_request js = {.language = "javascript",
                        .no_files = true,
                        .code =
                            "try { writeText('a', 'b') } catch (e) { console.log(e.code) }\n"
                            "console.log(listDir('/app').length)\n"};
  r = run_req(&js);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "EROFS\n0\n");
  wasmbox_result_free(r);
  char err[512], id[WASMBOX_ID_MAX];
  wasmbox_request both = {.no_files = true, .workspace = "/tmp", .code = "pass"};
  assert_int_equal(wasmbox_run(test_wb, &both, &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_non_null(strstr(err, "contradict"));
  assert_int_equal(wasmbox_session_create(test_wb, NULL, id, err, sizeof err), WASMBOX_OK);
  wasmbox_request ses = {.no_files = true, .session_id = id, .code = "pass"};
  assert_int_equal(wasmbox_run(test_wb, &ses, &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_non_null(strstr(err, "no_files is for stateless calls"));
  assert_int_equal(wasmbox_session_destroy(test_wb, id, err, sizeof err), WASMBOX_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_static_check_reports_every_line),
      cmocka_unit_test(test_run_time_check),
      cmocka_unit_test(test_allow_list),
      cmocka_unit_test(test_libraries_are_theirs),
      cmocka_unit_test(test_tracebacks_are_the_codes),
      cmocka_unit_test(test_policy_is_per_call),
      cmocka_unit_test(test_bad_policies_refused),
      cmocka_unit_test(test_no_files),
  };
  char *home = make_dir();
  setenv("WASMBOX_HOME", home, 1);
  int rc = RUN("policy", tests);
  rm_tree(home);
  free(home);
  return rc;
}
