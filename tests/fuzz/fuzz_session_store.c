/* libFuzzer: a session's files as they lie on disk, corrupted or cut. Each
 * input takes a copy of a session that has committed state (two calls) and
 * damages one of its files: HEAD, meta or the page log, replaced by the
 * input, cut to a length it gives, or patched at an offset it gives. Then
 * the library is asked about the copy and runs a call in it. Properties
 * beyond "no crash, leak or UB" in the host: every operation either works
 * or fails with a message (a damaged session is reported, never loaded
 * half into the host), and a sibling session stays usable throughout.
 * Guest code runs in this process (in_process), so that a loader bug would
 * crash here rather than in a worker; tests/fuzz/NAME.options lets the
 * engine, not libFuzzer, take the guest's traps. */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/os.h"
#include "wasmbox.h"

static wasmbox *wb;
static char home[64], pristine[WASMBOX_ID_MAX], sibling[WASMBOX_ID_MAX];

static void check(int ok, const char *what, const char *err) {
  if (ok) return;
  fprintf(stderr, "fuzz_session_store: %s%s%s\n", what, err ? ": " : "", err ? err : "");
  abort();
}

static void run(const char *id, const char *code, const char *want) {
  wasmbox_request req = {.code = code, .session_id = id, .timeout_seconds = 2};
  wasmbox_result *r;
  char err[512] = "";
  int rc = wasmbox_run(wb, &req, &r, err, sizeof err);
  if (!want) {
    check(rc == WASMBOX_OK || ((rc == WASMBOX_EUSAGE || rc == WASMBOX_EINTERNAL) && err[0]), "a silent failure", err);
    if (rc == WASMBOX_OK) wasmbox_result_free(r);
    return;
  }
  check(rc == WASMBOX_OK, "a call in a healthy session failed", err);
  check(r->status == WASMBOX_STATUS_OK && r->stdout_len == strlen(want) && !memcmp(r->stdout_data, want, r->stdout_len),
        "a healthy session lost its state", r->stderr_data);
  wasmbox_result_free(r);
}

static void cleanup(void) {
  wasmbox_free(wb);
  wb_remove_tree(home);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  snprintf(home, sizeof home, "/tmp/wasmbox-fuzz-store-%d", (int)getpid());
  char err[512];
  wasmbox_options o = {.home = home, .in_process = true};
  check((wb = wasmbox_open(&o, err, sizeof err)) != NULL, "open", err);
  atexit(cleanup);
  check(wasmbox_session_create(wb, NULL, pristine, err, sizeof err) == WASMBOX_OK, "create", err);
  check(wasmbox_session_create(wb, NULL, sibling, err, sizeof err) == WASMBOX_OK, "create", err);
  run(pristine, "x = 41\nopen('f.txt', 'w').write('kept')", "");
  run(pristine, "x += 1\nimport json\nbig = [str(i) * 50 for i in range(20000)]", "");
  run(sibling, "y = 1", "");
  return 0;
}

/* A copy of session `from` as `to`: its files by content, not by link. */
static void copy_tree(const char *from, const char *to) {
  check(mkdir(to, 0700) == 0, "mkdir", to);
  DIR *d = opendir(from);
  check(d != NULL, "opendir", from);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/%s", from, e->d_name);
    snprintf(b, sizeof b, "%s/%s", to, e->d_name);
    struct stat st;
    check(lstat(a, &st) == 0, "lstat", a);
    if (S_ISDIR(st.st_mode)) {
      copy_tree(a, b);
      continue;
    }
    int in = open(a, O_RDONLY), out = open(b, O_WRONLY | O_CREAT | O_TRUNC, st.st_mode & 0777);
    check(in >= 0 && out >= 0, "copy", a);
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0) check(write(out, buf, (size_t)n) == n, "write", b);
    close(in);
    close(out);
  }
  closedir(d);
}

/* The file of `dir` whose name starts with `prefix` ("HEAD", "meta", "log-"). */
static int find(const char *dir, const char *prefix, char *out, size_t n) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int found = 0;
  while (d && !found && (e = readdir(d)))
    if (!strncmp(e->d_name, prefix, strlen(prefix)) && !strstr(e->d_name, ".tmp"))
      found = snprintf(out, n, "%s/%s", dir, e->d_name) > 0;
  if (d) closedir(d);
  return found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3 || size > (1u << 20)) return 0;
  static unsigned counter;
  char id[WASMBOX_ID_MAX], from[256], to[256], file[512], err[512];
  snprintf(id, sizeof id, "fuzz%u", counter++);
  snprintf(from, sizeof from, "%s/sessions/%s", home, pristine);
  snprintf(to, sizeof to, "%s/sessions/%s", home, id);
  copy_tree(from, to);
  static const char *const which[] = {"HEAD", "meta", "log-"};
  check(find(to, which[data[0] % 3], file, sizeof file), "no such file in a session", which[data[0] % 3]);
  int fd = open(file, O_RDWR);
  check(fd >= 0, "open", file);
  struct stat st;
  fstat(fd, &st);
  const uint8_t *p = data + 3;
  size_t n = size - 3;
  uint64_t where = st.st_size ? ((uint64_t)data[1] << 8 | data[2]) * (uint64_t)st.st_size / 65536 : 0;
  switch (data[0] / 3 % 3) {
    case 0: /* replaced */ check(ftruncate(fd, 0) == 0 && pwrite(fd, p, n, 0) == (ssize_t)n, "replace", file); break;
    case 1: /* cut */ check(ftruncate(fd, (off_t)where) == 0, "cut", file); break;
    default: /* patched */ check(pwrite(fd, p, n, (off_t)where) == (ssize_t)n, "patch", file);
  }
  close(fd);
  wasmbox_session_info info;
  int rc = wasmbox_session_info_get(wb, id, &info, err, sizeof err);
  check(rc == WASMBOX_OK || err[0], "info failed without a message", NULL);
  run(id, "print(x)", NULL);
  run(id, "print(open('f.txt').read())", NULL);
  run(sibling, "print(y)", "1\n");
  if (wasmbox_session_destroy(wb, id, err, sizeof err) != WASMBOX_OK) wb_remove_tree(to);
  return 0;
}
