/* The escape corpus: hostile programs in tests/escape/, each stating in its
 * header what must happen (lines "# expect ..." or "// expect ...", and
 * "option ..." for the call's limits). For every program the runner also
 * checks what must always hold: the host file beside the workspace is
 * untouched, nothing new appeared outside the workspace, no host path or
 * name shows up in the result, and the next call works.
 *
 *   option timeout S | memory MB | max_output BYTES | quota MB
 *   expect status NAME | error_type NAME | stdout_is TEXT | stdout_has TEXT
 *          stdout_lacks TEXT | stdout_truncated | guidance_has TEXT
 * TEXT takes \n for a newline; stdout_is '' means empty. */
#include <dirent.h>

#include "harness.h"

#define CORPUS_MAX 200
#define LINE_MAX_LEN 1024

static char *corpus_dir;

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  fclose(f);
  if (s) s[n] = 0;
  if (len) *len = (size_t)n;
  return s;
}

static void unescape(char *s) {
  char *o = s;
  if (!strcmp(s, "''")) {
    *s = 0;
    return;
  }
  for (; *s; s++) {
    if (s[0] == '\\' && s[1] == 'n') {
      *o++ = '\n';
      s++;
    } else {
      *o++ = *s;
    }
  }
  *o = 0;
}

static bool host_leak(const char *json, const char *what) { return what && strlen(what) > 1 && strstr(json, what); }

static void run_program(void **state) {
  const char *path = *state;
  size_t code_len;
  char *code = read_all(path, &code_len);
  assert_non_null(code);
  const char *name = strrchr(path, '/') + 1;
  bool js = strstr(name, ".js") || strstr(name, ".mjs");

  /* the workspace sits beside a canary file that must stay as it is */
  char *parent = make_dir();
  char ws[4200], canary[4200];
  snprintf(ws, sizeof ws, "%s/ws", parent);
  snprintf(canary, sizeof canary, "%s/canary", parent);
  assert_int_equal(mkdir(ws, 0700), 0);
  write_file(parent, "canary", "host data");

  wasmbox_request req = {.code = code,
                         .code_len = code_len,
                         .filename = name,
                         .workspace = ws,
                         .language = js ? "javascript" : "python",
                         .timeout_seconds = 10};
  /* options first (the call), expectations after (the result) */
  char line[LINE_MAX_LEN];
  const char *p = code;
  while (*p) {
    size_t n = strcspn(p, "\n");
    snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
    p += n + (p[n] == '\n');
    const char *body = !strncmp(line, "# ", 2) ? line + 2 : !strncmp(line, "// ", 3) ? line + 3 : NULL;
    if (!body || strncmp(body, "option ", 7)) continue;
    char key[32];
    double v;
    assert_int_equal(sscanf(body + 7, "%31s %lf", key, &v), 2);
    if (!strcmp(key, "timeout")) req.timeout_seconds = v;
    else if (!strcmp(key, "memory")) req.memory_bytes = (uint64_t)v << 20;
    else if (!strcmp(key, "max_output")) req.max_output_bytes = (size_t)v;
    else if (!strcmp(key, "quota")) req.quota_bytes = (uint64_t)v << 20;
    else fail_msg("%s: unknown option %s", name, key);
  }
  wasmbox_result *r = run_req(&req);
  char *json = wasmbox_result_json(r);
  assert_non_null(json);
  int expectations = 0;
  p = code;
  while (*p) {
    size_t n = strcspn(p, "\n");
    snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
    p += n + (p[n] == '\n');
    const char *body = !strncmp(line, "# ", 2) ? line + 2 : !strncmp(line, "// ", 3) ? line + 3 : NULL;
    if (!body || strncmp(body, "expect ", 7)) continue;
    expectations++;
    char key[32], arg[LINE_MAX_LEN] = "";
    int k = sscanf(body + 7, "%31s %1023[^\n]", key, arg);
    assert_true(k >= 1);
    unescape(arg);
    bool ok = false;
    if (!strcmp(key, "status")) ok = !strcmp(wasmbox_status_name(r->status), arg);
    else if (!strcmp(key, "error_type")) ok = r->error_type && !strcmp(r->error_type, arg);
    else if (!strcmp(key, "stdout_is")) ok = !strcmp(r->stdout_data, arg);
    else if (!strcmp(key, "stdout_has")) ok = strstr(r->stdout_data, arg) != NULL;
    else if (!strcmp(key, "stdout_lacks")) ok = strstr(r->stdout_data, arg) == NULL;
    else if (!strcmp(key, "stdout_truncated")) ok = r->stdout_truncated;
    else if (!strcmp(key, "guidance_has")) {
      ok = false;
      for (size_t i = 0; i < r->guidance_len; i++) ok |= strstr(r->guidance[i], arg) != NULL;
    } else {
      fail_msg("%s: unknown expectation %s", name, key);
    }
    if (!ok) {
      fprintf(stderr, "%s: expected %s %s\n%.3000s\n", name, key, arg, json);
      fail();
    }
  }
  assert_true(expectations > 0);

  /* what must hold for every program */
  char host[256] = "";
  gethostname(host, sizeof host);
  char cwd[4096];
  assert_non_null(getcwd(cwd, sizeof cwd));
  const char *leaks[] = {parent, cwd, getenv("HOME"), host, "/tmp/wasmbox-"};
  for (size_t i = 0; i < sizeof leaks / sizeof leaks[0]; i++) {
    if (host_leak(json, leaks[i])) {
      fprintf(stderr, "%s: the result shows host detail '%s'\n%.3000s\n", name, leaks[i], json);
      fail();
    }
  }
  char *canary_now = read_all(canary, NULL);
  assert_non_null(canary_now);
  assert_string_equal(canary_now, "host data");
  free(canary_now);
  DIR *d = opendir(parent);
  struct dirent *e;
  int entries = 0;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) entries++;
  closedir(d);
  assert_int_equal(entries, 2); /* ws and canary, nothing else */
  free(json);
  wasmbox_result_free(r);
  /* and the next call is served as if nothing happened */
  wasmbox_request next = {.code = js ? "console.log('alive')" : "print('alive')", .language = req.language};
  r = run_req(&next);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "alive\n");
  wasmbox_result_free(r);
  rm_tree(parent);
  free(parent);
  free(code);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(void) {
  const char *dir = getenv("WASMBOX_ESCAPE_DIR");
  corpus_dir = strdup(dir ? dir : "tests/escape");
  char *paths[CORPUS_MAX];
  size_t n = 0;
  DIR *d = opendir(corpus_dir);
  if (!d) {
    fprintf(stderr, "cannot open %s\n", corpus_dir);
    return 1;
  }
  struct dirent *e;
  while ((e = readdir(d)) && n < CORPUS_MAX) {
    const char *ext = strrchr(e->d_name, '.');
    if (!ext || (strcmp(ext, ".py") && strcmp(ext, ".js") && strcmp(ext, ".mjs"))) continue;
    if (asprintf(&paths[n], "%s/%s", corpus_dir, e->d_name) < 0) return 1;
    n++;
  }
  closedir(d);
  qsort(paths, n, sizeof *paths, by_name);
  struct CMUnitTest *tests = calloc(n, sizeof *tests);
  for (size_t i = 0; i < n; i++)
    tests[i] =
        (struct CMUnitTest){.name = strrchr(paths[i], '/') + 1, .test_func = run_program, .initial_state = paths[i]};
  int rc = _cmocka_run_group_tests("escape", tests, n, harness_setup, harness_teardown);
  for (size_t i = 0; i < n; i++) free(paths[i]);
  free(tests);
  free(corpus_dir);
  return rc;
}
