/* Shared helpers for the C tests (cmocka). Each helper runs a request through
 * the library exactly as a user would and hands back the result; on a failed
 * expectation it prints what the guest printed, so a red test explains itself. */
#ifndef WASMBOX_TESTS_HARNESS_H
#define WASMBOX_TESTS_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wasmbox.h"

static wasmbox *test_wb;

static inline int harness_setup(void **state) {
  (void)state;
  char err[256];
  test_wb = wasmbox_new(err, sizeof err);
  return test_wb ? 0 : -1;
}

static inline int harness_teardown(void **state) {
  (void)state;
  wasmbox_free(test_wb);
  return 0;
}

static inline void dump(const wasmbox_result *r) {
  fprintf(stderr, "status=%s exit=%d error=%s: %s\n--- stdout\n%.*s\n--- stderr\n%.*s\n",
          wasmbox_status_name(r->status), r->exit_code, r->error_type ? r->error_type : "-",
          r->error_message ? r->error_message : "-", (int)r->stdout_len, r->stdout_data, (int)r->stderr_len,
          r->stderr_data);
}

/* Run a request; the call itself must succeed (the guest may fail). */
static inline wasmbox_result *run_req(const wasmbox_request *req) {
  wasmbox_result *r = NULL;
  char err[512];
  int rc = wasmbox_run(test_wb, req, &r, err, sizeof err);
  if (rc != WASMBOX_OK) fprintf(stderr, "wasmbox_run: %s\n", err);
  assert_int_equal(rc, WASMBOX_OK);
  return r;
}

static inline wasmbox_result *run_py(const char *code) {
  wasmbox_request req = {.code = code};
  return run_req(&req);
}

static inline wasmbox_result *run_py_in(const char *code, const char *workspace) {
  wasmbox_request req = {.code = code, .workspace = workspace};
  return run_req(&req);
}

/* The same for JavaScript. */
static inline wasmbox_result *run_js_in(const char *code, const char *workspace) {
  wasmbox_request req = {.language = "javascript", .code = code, .workspace = workspace};
  return run_req(&req);
}

static inline wasmbox_result *run_js(const char *code) { return run_js_in(code, NULL); }

static inline void expect_status(const wasmbox_result *r, wasmbox_status s) {
  if (r->status != s) dump(r);
  assert_string_equal(wasmbox_status_name(r->status), wasmbox_status_name(s));
}

/* Run code that must finish ok and print exactly `out`. */
static inline void expect_output(const char *code, const char *workspace, const char *out) {
  wasmbox_result *r = run_py_in(code, workspace);
  expect_status(r, WASMBOX_STATUS_OK);
  if (strcmp(r->stdout_data, out) != 0) dump(r);
  assert_string_equal(r->stdout_data, out);
  wasmbox_result_free(r);
}

/* Run code that must fail with exception `type`; returns the result. */
static inline wasmbox_result *expect_exception(const char *code, const char *workspace, const char *type) {
  wasmbox_result *r = run_py_in(code, workspace);
  expect_status(r, WASMBOX_STATUS_ERROR);
  if (!r->error_type || strcmp(r->error_type, type) != 0) dump(r);
  assert_non_null(r->error_type);
  assert_string_equal(r->error_type, type);
  return r;
}

/* JavaScript code that must finish ok and print exactly `out`. */
/* A snippet and what it must print: what the native reference printed. */
typedef struct {
  const char *name, *code, *out;
} snippet;

/* Each snippet, in a stateless call, ends ok and prints exactly its out. */
static inline void expect_snippets(const char *what, const snippet *uses, size_t n) {
  for (size_t i = 0; i < n; i++) {
    wasmbox_result *r = run_py(uses[i].code);
    if (r->status != WASMBOX_STATUS_OK || strcmp(r->stdout_data, uses[i].out)) {
      fprintf(stderr, "%s, %s:\n", what, uses[i].name);
      dump(r);
    }
    expect_status(r, WASMBOX_STATUS_OK);
    assert_string_equal(r->stdout_data, uses[i].out);
    wasmbox_result_free(r);
  }
}

/* The code ends as out_of_memory with MemoryError, never a crash or a trap. */
static inline void expect_out_of_memory(const char *code) {
  wasmbox_result *r = run_py(code);
  if (r->status != WASMBOX_STATUS_OUT_OF_MEMORY) dump(r);
  expect_status(r, WASMBOX_STATUS_OUT_OF_MEMORY);
  assert_string_equal(r->error_type, "MemoryError");
  wasmbox_result_free(r);
}

static inline void expect_js_output(const char *code, const char *workspace, const char *out) {
  wasmbox_result *r = run_js_in(code, workspace);
  expect_status(r, WASMBOX_STATUS_OK);
  if (strcmp(r->stdout_data, out) != 0) dump(r);
  assert_string_equal(r->stdout_data, out);
  wasmbox_result_free(r);
}

/* JavaScript code that must fail with an uncaught error of `type`. */
static inline wasmbox_result *expect_js_error(const char *code, const char *workspace, const char *type) {
  wasmbox_result *r = run_js_in(code, workspace);
  expect_status(r, WASMBOX_STATUS_ERROR);
  if (!r->error_type || strcmp(r->error_type, type) != 0) dump(r);
  assert_non_null(r->error_type);
  assert_string_equal(r->error_type, type);
  return r;
}

static inline int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f) {
  (void)st;
  (void)f;
  return flag == FTW_DP ? rmdir(p) : unlink(p);
}

static inline void rm_tree(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* How many entries directory `dir` holds (. and .. aside); -1 if unreadable. */
static inline int dir_entries(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  if (d) closedir(d);
  return d ? n : -1;
}

/* A fresh directory under $TMPDIR; caller frees and removes it. */
static inline char *make_dir(void) {
  const char *t = getenv("TMPDIR");
  char *p;
  if (asprintf(&p, "%s/wasmbox-test-XXXXXX", t && *t ? t : "/tmp") < 0) return NULL;
  if (!mkdtemp(p)) {
    free(p);
    return NULL;
  }
  return p;
}

static inline void write_file(const char *dir, const char *name, const char *text) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* Contents of dir/name (malloc'd), or NULL if it does not exist. */
static inline char *read_file(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  char *buf = calloc(1, 1 << 20);
  size_t n = fread(buf, 1, (1 << 20) - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

static inline int run_group(const char *name, const struct CMUnitTest *tests, size_t n) {
  return _cmocka_run_group_tests(name, tests, n, harness_setup, harness_teardown);
}
#define RUN(name, tests) run_group(name, tests, sizeof(tests) / sizeof((tests)[0]))

#endif
