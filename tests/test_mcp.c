/* Unit tests of the MCP server's pieces (src/mcp) that the transport tests
 * reach only indirectly: UTF-8 and JSON-RPC framing, base64, argument
 * checks, settings precedence, /external preparation, and the protocol core
 * (mcp_handle) without a transport. */
#include <dirent.h>
#include "harness.h"

#include <cjson/cJSON.h>

#include "mcp/args.h"
#include "mcp/base64.h"
#include "mcp/config.h"
#include "mcp/external.h"
#include "mcp/jsonrpc.h"
#include "mcp/server.h"
#include "util/os.h"

static void test_utf8(void **state) {
  (void)state;
  assert_true(rpc_utf8_valid("", 0));
  assert_true(rpc_utf8_valid("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 10)); /* a é € 😀 */
  assert_false(rpc_utf8_valid("\xc0\xaf", 2));                              /* overlong / */
  assert_false(rpc_utf8_valid("\xe0\x80\xaf", 3));                          /* overlong */
  assert_false(rpc_utf8_valid("\xed\xa0\x80", 3));                          /* surrogate */
  assert_false(rpc_utf8_valid("\xf4\x90\x80\x80", 4));                      /* > U+10FFFF */
  assert_false(rpc_utf8_valid("\xe2\x82", 2));                              /* cut short */
  assert_false(rpc_utf8_valid("\x80", 1));                                  /* lone continuation */
  assert_false(rpc_utf8_valid("\xff", 1));
}

static void test_parse(void **state) {
  (void)state;
  const char *why;
  cJSON *v = rpc_parse(" {\"a\":1} \r\n", 12, &why);
  assert_non_null(v);
  cJSON_Delete(v);
  assert_null(rpc_parse("{\"a\":1} x", 9, &why));
  assert_null(rpc_parse("{\"a\":\"\xff\"}", 9, &why));
  assert_null(rpc_parse("", 0, &why));
  char deep[2100];
  memset(deep, '[', 1050);
  memset(deep + 1050, ']', 1050);
  assert_null(rpc_parse(deep, 2100, &why)); /* deeper than cJSON's limit */
  /* U+0000 in a string would be cut there (cJSON strings end at NUL):
   * refused, in values and keys; an escaped backslash before "u0000" is
   * text, and \u0001 is kept */
  const char *nul[] = {"{\"code\":\"a\\u0000b\"}", "[\"\\u0000\"]", "{\"k\\u0000\":1}"};
  for (size_t i = 0; i < sizeof nul / sizeof nul[0]; i++) {
    assert_null(rpc_parse(nul[i], strlen(nul[i]), &why));
    assert_non_null(strstr(why, "u0000"));
  }
  const char *fine[] = {"{\"a\":\"\\\\u0000\"}", "{\"a\":\"\\u0001\"}", "{\"a\":\"x\\\"y\",\"b\":\"u0000\"}"};
  for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
    v = rpc_parse(fine[i], strlen(fine[i]), &why);
    if (!v) fail_msg("%s refused: %s", fine[i], why);
    cJSON_Delete(v);
  }
  /* a lone surrogate (Python's json.dumps writes them) is refused, saying so */
  const char *lone[] = {"[\"\\ud800\"]", "[\"\\udc00x\"]", "[\"\\ud83d\\u0041\"]"};
  for (size_t i = 0; i < sizeof lone / sizeof lone[0]; i++) {
    assert_null(rpc_parse(lone[i], strlen(lone[i]), &why));
    if (!strstr(why, "surrogate")) fail_msg("%s: %s", lone[i], why);
  }
  v = rpc_parse("[\"\\ud83d\\ude00\"]", 16, &why); /* a pair is a character */
  assert_non_null(v);
  cJSON_Delete(v);
  assert_null(rpc_parse("[\"\\ud83d\\ude00\"", 15, &why)); /* not JSON, for another reason */
  assert_null(strstr(why, "surrogate"));
  v = rpc_parse(fine[0], strlen(fine[0]), &why);
  assert_string_equal(cJSON_GetObjectItem(v, "a")->valuestring, "\\u0000");
  cJSON_Delete(v);
}

static rpc_kind kind_of(const char *json) {
  cJSON *v = cJSON_Parse(json);
  const cJSON *id;
  const char *why;
  rpc_kind k = rpc_check(v, &id, &why);
  cJSON_Delete(v);
  return k;
}

static void test_check(void **state) {
  (void)state;
  assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"), RPC_REQUEST);
  assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"ping\",\"params\":{}}"), RPC_REQUEST);
  assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"), RPC_NOTIFICATION);
  assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"), RPC_RESPONSE);
  assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1,\"message\":\"m\"}}"), RPC_RESPONSE);
  assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}"), RPC_INVALID);
  assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}"), RPC_INVALID);
  assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}"), RPC_INVALID);
  assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\",\"params\":3}"), RPC_INVALID);
  assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\",\"result\":{}}"), RPC_INVALID);
  assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{}}"), RPC_INVALID);
  assert_int_equal(kind_of("{\"id\":1,\"method\":\"ping\"}"), RPC_INVALID);
  assert_int_equal(kind_of("[]"), RPC_INVALID);
  assert_int_equal(kind_of("7"), RPC_INVALID);
}

static void test_base64(void **state) {
  (void)state;
  unsigned char data[10];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 37 + 200);
  for (size_t n = 0; n <= sizeof data; n++) {
    char *e = b64_encode(data, n);
    size_t len = 99;
    unsigned char *d = b64_decode(e, strlen(e), &len);
    assert_non_null(d);
    assert_int_equal(len, n);
    assert_memory_equal(d, data, n);
    free(e), free(d);
  }
  char *e = b64_encode("hi!?", 4);
  assert_string_equal(e, "aGkhPw==");
  free(e);
  size_t len;
  assert_null(b64_decode("aGk", 3, &len));      /* not a multiple of 4 */
  assert_null(b64_decode("aG=k", 4, &len));     /* padding inside */
  assert_null(b64_decode("aGk*", 4, &len));     /* not the alphabet */
  assert_null(b64_decode("aG==aGk=", 8, &len)); /* padding before the end */
  assert_null(b64_decode("aGk ", 4, &len));
  /* base64url without padding, as in JSON Web Tokens: every length, both
     alphabets' last two digits, no other encoding of the same bytes */
  for (size_t n = 0; n <= sizeof data; n++) {
    char *p = b64_encode(data, n);
    size_t m = strcspn(p, "=");
    for (char *c = p; *c; c++) *c = *c == '+' ? '-' : *c == '/' ? '_' : *c;
    unsigned char *d = b64url_decode(p, m, &len);
    assert_non_null(d);
    assert_int_equal(len, n);
    assert_memory_equal(d, data, n);
    free(p), free(d);
  }
  unsigned char *d = b64url_decode("-_8", 3, &len);
  assert_non_null(d);
  assert_int_equal(len, 2);
  assert_int_equal(d[0], 0xfb), assert_int_equal(d[1], 0xff);
  free(d);
  assert_null(b64url_decode("+_8", 3, &len));   /* base64's alphabet */
  assert_null(b64url_decode("aGk=", 4, &len));  /* padding */
  assert_null(b64url_decode("aGl", 3, &len));   /* "hi" is aGk: nonzero unused bits */
  assert_null(b64url_decode("aGkha", 5, &len)); /* a lone digit */
}

static void test_args(void **state) {
  (void)state;
  static const char *const allowed[] = {"s", "n", "i", "b", "e", NULL};
  static const char *const choices[] = {"x", "y", NULL};
  cJSON *o = cJSON_Parse("{\"s\":\"abc\",\"n\":2.5,\"i\":3,\"b\":true,\"e\":\"y\"}");
  mcp_args a;
  args_init(&a, o, allowed);
  size_t len;
  assert_string_equal(args_str(&a, "s", true, 10, &len), "abc");
  assert_int_equal(len, 3);
  assert_true(args_num(&a, "n", 0, 10, 0) == 2.5);
  assert_int_equal(args_int(&a, "i", 0, 10, 0), 3);
  assert_true(args_bool(&a, "b", false));
  assert_string_equal(args_enum(&a, "e", choices, "x"), "y");
  assert_false(a.bad);
  assert_null(args_str(&a, "s", true, 2, NULL)); /* too long */
  assert_true(a.bad);
  assert_non_null(strstr(a.msg, "limit"));
  cJSON_Delete(o);
  const char *bad[] = {"{\"zz\":1}", "{\"n\":\"1\"}", "{\"n\":11}", "{\"i\":1.5}",
                       "{\"b\":1}",  "{\"e\":\"z\"}", "[]",         "{}"};
  const char *names[] = {"zz", "'n'", "'n'", "'i'", "'b'", "'e'", "object", "'s'"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    o = cJSON_Parse(bad[k]);
    args_init(&a, o, allowed);
    args_str(&a, "s", k == 7, 10, NULL);
    args_num(&a, "n", 0, 10, 0);
    args_int(&a, "i", 0, 10, 0);
    args_bool(&a, "b", false);
    args_enum(&a, "e", choices, "x");
    assert_true(a.bad);
    if (!strstr(a.msg, names[k])) fprintf(stderr, "%s -> %s\n", bad[k], a.msg);
    assert_non_null(strstr(a.msg, names[k]));
    cJSON_Delete(o);
  }
  o = cJSON_Parse("{\"n\":null}"); /* null is "not given" */
  args_init(&a, o, allowed);
  assert_true(args_num(&a, "n", 0, 10, 7) == 7);
  assert_false(a.bad);
  cJSON_Delete(o);
}

static char tmpdir_[64];

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void test_config(void **state) {
  (void)state;
  strcpy(tmpdir_, "/tmp/wasmbox-mcp-unit-XXXXXX");
  assert_non_null(mkdtemp(tmpdir_));
  char file[128], err[512];
  snprintf(file, sizeof file, "%s/c.json", tmpdir_);
  write_text(file,
             "{\"timeout\": 5, \"max_timeout\": 50, \"memory\": 64, \"listen\": \"127.0.0.1:1\","
             " \"external-files\": [\"/a\", \"/b\"]}");
  setenv("WASMBOX_MCP_MEMORY", "128", 1);
  char *argv[] = {"mcp", "--config", file,        "--memory=32", "--external-files",
                  "/c",  "/d",       "--workers", "3",           "--session-idle-release",
                  "2.5", NULL};
  mcp_config c;
  assert_int_equal(mcp_config_load(&c, false, 11, argv, err, sizeof err), 0);
  assert_true(c.session_idle_release == 2.5);
  assert_true(c.timeout == 5 && c.max_timeout == 50); /* the file */
  assert_int_equal(c.memory_mb, 32);                  /* a flag beats the environment and the file */
  assert_int_equal(c.workers, 3);
  assert_int_equal(c.n_external, 2); /* flags replace the file's list */
  assert_string_equal(c.external[1], "/d");
  mcp_config_free(&c);
  char *argv2[] = {"mcp", "--config", file, NULL};
  assert_int_equal(mcp_config_load(&c, false, 3, argv2, err, sizeof err), 0);
  assert_int_equal(c.memory_mb, 128); /* the environment beats the file */
  mcp_config_free(&c);
  unsetenv("WASMBOX_MCP_MEMORY");
  const char *bad_files[] = {"{\"nope\": 1}",
                             "{\"timeout\": \"x\"}",
                             "{\"memory\": 1.5}",
                             "[1]",
                             "{",
                             "{\"external-files\": [1]}",
                             "{\"timeout\": 100, \"max-timeout\": 10}"};
  for (size_t k = 0; k < sizeof bad_files / sizeof bad_files[0]; k++) {
    write_text(file, bad_files[k]);
    assert_int_equal(mcp_config_load(&c, false, 3, argv2, err, sizeof err), -1);
    mcp_config_free(&c);
  }
  char *bad_flags[][3] = {{"mcp", "--timeout", "0"},
                          {"mcp", "--memory", "99999"},
                          {"mcp", "--listen", "x"},
                          {"mcp", "--bogus", "1"},
                          {"mcp", "--log-level", "loud"},
                          {"mcp", "--workers", "-1"},
                          {"mcp", "--session-idle-release", "0"},
                          {"mcp", "--session-idle-release", "x"}};
  for (size_t k = 0; k < sizeof bad_flags / sizeof bad_flags[0]; k++) {
    assert_int_equal(mcp_config_load(&c, false, 3, bad_flags[k], err, sizeof err), -1);
    mcp_config_free(&c);
  }
  char *serve[] = {"serve", "--token", "short"};
  assert_int_equal(mcp_config_load(&c, true, 3, serve, err, sizeof err), -1);
  mcp_config_free(&c);
}

/* --external-files: a copy at a stable place, replaced whole by the next
 * start; what a failed start refused leaves the last copy as it was. */
static void test_external(void **state) {
  (void)state;
  char a[160], d[160], l[160], sub[200], dir[200], err[512];
  snprintf(a, sizeof a, "%s/a.txt", tmpdir_);
  snprintf(d, sizeof d, "%s/d", tmpdir_);
  snprintf(l, sizeof l, "%s/l", tmpdir_);
  snprintf(sub, sizeof sub, "%s/b.txt", d);
  snprintf(dir, sizeof dir, "%s/external", tmpdir_);
  write_text(a, "hello");
  mkdir(d, 0700);
  write_text(sub, "world");
  const char *paths[] = {a, d}, *only_a[] = {a};
  assert_int_equal(mcp_external_prepare(paths, 2, 1 << 20, dir, err, sizeof err), 0);
  char p[300], q[300];
  snprintf(p, sizeof p, "%s/d/b.txt", dir);
  snprintf(q, sizeof q, "%s/a.txt", dir);
  assert_int_equal(access(p, R_OK), 0);
  assert_int_equal(mcp_external_prepare(only_a, 1, 1 << 20, dir, err, sizeof err), 0);
  assert_int_not_equal(access(p, F_OK), 0); /* replaced whole */
  assert_int_equal(access(q, R_OK), 0);
  assert_int_equal(mcp_external_prepare(paths, 2, 6, dir, err, sizeof err), -1); /* 10 bytes > 6 */
  assert_int_equal(access(q, R_OK), 0);                                          /* the last copy stays */
  assert_int_equal(symlink("/etc/passwd", l), 0);
  const char *link[] = {l};
  assert_int_equal(mcp_external_prepare(link, 1, 1 << 20, dir, err, sizeof err), -1);
  assert_non_null(strstr(err, "symlink"));
  const char *twice[] = {a, a};
  assert_int_equal(mcp_external_prepare(twice, 2, 1 << 20, dir, err, sizeof err), -1);
  const char *missing[] = {"/no/such/file"};
  assert_int_equal(mcp_external_prepare(missing, 1, 1 << 20, dir, err, sizeof err), -1);
  wb_remove_tree(dir);
  assert_int_not_equal(access(dir, F_OK), 0);
  DIR *left = opendir(tmpdir_);
  for (struct dirent *e; left && (e = readdir(left));) assert_null(strstr(e->d_name, "external."));
  if (left) closedir(left);
}

/* ---- the protocol core ---------------------------------------------------- */

static mcp_config core_cfg;
static mcp_server *core;

static cJSON *handle(mcp_msg *m, const char *json) {
  cJSON *msg = cJSON_Parse(json);
  assert_non_null(msg);
  cJSON *r = mcp_handle(m, msg);
  cJSON_Delete(msg);
  return r;
}

static int code_of(const cJSON *r) {
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "error"), "code");
  return c ? (int)c->valuedouble : 0;
}

static void test_core(void **state) {
  (void)state;
  char err[512], home[200];
  snprintf(home, sizeof home, "%s/home", tmpdir_);
  char *argv[] = {"mcp", "--home", home};
  assert_int_equal(mcp_config_load(&core_cfg, true, 3, argv, err, sizeof err), 0);
  core = mcp_server_new(&core_cfg, err, sizeof err);
  assert_non_null(core);
  /* HTTP without a session: 2026 rules */
  mcp_msg m = {.srv = core, .http = true};
  cJSON *r = handle(&m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
  assert_int_equal(code_of(r), RPC_INVALID_PARAMS);
  assert_int_equal(m.http_status, 400);
  cJSON_Delete(r);
  mcp_msg m2 = {.srv = core, .http = true, .h_version = "2026-07-28", .h_method = "tools/list"};
  r = handle(&m2,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
             "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
             "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
  const cJSON *res = cJSON_GetObjectItemCaseSensitive(r, "result");
  assert_string_equal(cJSON_GetObjectItemCaseSensitive(res, "resultType")->valuestring, "complete");
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res, "tools")), 14);
  assert_int_equal(m2.http_status, 0);
  cJSON_Delete(r);
  /* initialize over HTTP makes a session */
  mcp_msg m3 = {.srv = core, .http = true};
  r = handle(&m3,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
             "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"u\",\"version\":\"1\"}}}");
  assert_int_equal((int)strlen(m3.new_session), 32); /* unsigned: no --session-key */
  assert_non_null(m3.conn);
  assert_string_equal(m3.conn->version, "2025-06-18");
  cJSON_Delete(r);
  mcp_conn *c = mcp_conn_get(core, m3.new_session);
  assert_ptr_equal(c, m3.conn);
  mcp_conn_put(core, c);
  mcp_conn_put(core, m3.conn);
  /* legacy errors keep HTTP 200 (the SDK reads them as JSON-RPC errors) */
  mcp_msg m4 = {.srv = core, .http = true, .conn = mcp_conn_get(core, m3.new_session)};
  r = handle(&m4, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nope\"}");
  assert_int_equal(code_of(r), RPC_METHOD_NOT_FOUND);
  assert_int_equal(m4.http_status, 0);
  cJSON_Delete(r);
  r = handle(&m4, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  assert_null(r);
  assert_true(atomic_load(&m4.conn->initialized));
  mcp_conn_put(core, m4.conn);
  assert_true(mcp_conn_remove(core, m3.new_session));
  assert_false(mcp_conn_remove(core, m3.new_session));
  assert_null(mcp_conn_get(core, m3.new_session));
  /* stdio: a connection, no headers; a response from the client is ignored */
  mcp_conn stdio_conn = {.id = ""};
  mcp_msg m5 = {.srv = core, .conn = &stdio_conn};
  assert_null(handle(&m5, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}"));
  r = handle(&m5,
             "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"execute_code\","
             "\"arguments\":{\"code\":\"print(40+2)\"}}}");
  res = cJSON_GetObjectItemCaseSensitive(r, "result");
  const cJSON *sc = cJSON_GetObjectItemCaseSensitive(res, "structuredContent");
  assert_string_equal(cJSON_GetObjectItemCaseSensitive(sc, "stdout")->valuestring, "42\n");
  assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "isError")));
  cJSON_Delete(r);
  mcp_msg_done(&m5);
  /* a full session table evicts the least recently used idle session */
  core_cfg.max_sessions = 2;
  mcp_conn *c1 = mcp_conn_create(core, "2025-11-25"), *c2 = mcp_conn_create(core, "2025-06-18");
  assert_int_equal(strlen(c1->id), 32); /* no key: random, known here only */
  assert_string_equal(c2->version, "2025-06-18");
  char first[MCP_SESSION_ID_LEN + 1];
  strcpy(first, c1->id);
  mcp_conn_put(core, c1);
  mcp_conn *c3 = mcp_conn_create(core, "2025-11-25"); /* c2 is in use: c1 goes */
  assert_non_null(c3);
  assert_null(mcp_conn_get(core, first));
  assert_null(mcp_conn_create(core, "2025-11-25")); /* both in use: no room */
  mcp_conn_put(core, c2), mcp_conn_put(core, c3);
  mcp_server_free(core);
  mcp_config_free(&core_cfg);
  wb_remove_tree(tmpdir_);
}

/* Signed session ids (session_ids.h): made by one key, checked by the same
 * key only; the version rides along; a changed character fails. */
static void test_session_ids(void **st) {
  (void)st;
  char dir[] = "/tmp/wasmbox-ids-XXXXXX", path[64], err[256], id[MCP_SESSION_ID_LEN + 1], v[16];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/key", dir);
  FILE *f = fopen(path, "w");
  fputs("0123456789abcdef0123456789abcdef-one", f);
  fclose(f);
  chmod(path, 0600);
  mcp_ids *k = mcp_ids_load(path, err, sizeof err);
  assert_non_null(k);
  mcp_ids_make(k, "2025-06-18", id);
  assert_int_equal(strlen(id), MCP_SESSION_ID_LEN);
  assert_true(mcp_ids_check(k, id, mcp_legacy_versions, v));
  assert_string_equal(v, "2025-06-18");
  char forged[MCP_SESSION_ID_LEN + 1];
  for (size_t i = 0; i < MCP_SESSION_ID_LEN; i++) { /* any one character changed */
    strcpy(forged, id);
    forged[i] = forged[i] == 'a' ? 'b' : 'a';
    assert_false(mcp_ids_check(k, forged, mcp_legacy_versions, v));
  }
  assert_false(mcp_ids_check(k, "short", mcp_legacy_versions, v));
  assert_false(mcp_ids_check(NULL, id, mcp_legacy_versions, v));
  static const char *const only_new[] = {"2025-11-25", NULL};
  assert_false(mcp_ids_check(k, id, only_new, v)); /* a version this server does not speak */
  f = fopen(path, "w");                            /* another key */
  fputs("fedcba9876543210fedcba9876543210-two", f);
  fclose(f);
  mcp_ids *other = mcp_ids_load(path, err, sizeof err);
  assert_non_null(other);
  assert_false(mcp_ids_check(other, id, mcp_legacy_versions, v));
  mcp_ids_free(other);
  mcp_ids_free(k);
  chmod(path, 0644);
  assert_null(mcp_ids_load(path, err, sizeof err));
  assert_non_null(strstr(err, "readable or writable by others"));
  unlink(path);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_utf8),     cmocka_unit_test(test_parse), cmocka_unit_test(test_check),
      cmocka_unit_test(test_base64),   cmocka_unit_test(test_args),  cmocka_unit_test(test_config),
      cmocka_unit_test(test_external), cmocka_unit_test(test_core),  cmocka_unit_test(test_session_ids),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
