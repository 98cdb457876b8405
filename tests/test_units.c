/* Unit tests of host pieces, without an interpreter: the WASI host's path
 * resolution and bounds checks driven directly through a fake guest memory,
 * the image reader, JSON output and guidance. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <wasm-rt.h>
#include <zstd.h>

#include "harness.h"
#include "api/guidance.h"
#include "engine/runtime.h"
#include "session/format.h"
#include "session/pagelog.h"
#include "util/json.h"
#include "util/options.h"
#include "util/os.h"
#include "util/patterns.h"
#include "wasi/calls.h"
#include "wasi/internal.h"

#define MEM (1u << 20)

static wasm_rt_memory_t mem;
static char *dir;
static wb_wasi *w;

static int setup(void **state) {
  (void)state;
  mem.data = calloc(1, MEM);
  mem.size = MEM;
  mem.pages = MEM / 65536;
  dir = make_dir();
  if (!mem.data || !dir) return -1;
  char p[4096];
  snprintf(p, sizeof p, "%s/sub", dir);
  mkdir(p, 0755);
  write_file(dir, "sub/inner.txt", "inner");
  write_file(dir, "hello.txt", "hello");
  snprintf(p, sizeof p, "%s/to_root", dir);
  if (symlink("/", p) != 0) return -1;
  snprintf(p, sizeof p, "%s/to_hello", dir);
  if (symlink("hello.txt", p) != 0) return -1;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  rm_tree(dir);
  free(dir);
  free(mem.data);
  return 0;
}

/* A fresh WASI host per test: fd 3 is the directory (/app), fd 4 the stdlib
 * image (/lib), at most 8 descriptors. */
static void new_host(void) {
  const wb_runtime *py = wb_runtime_find("python");
  char err[256];
  assert_true(py->prepare(err, sizeof err));
  size_t n;
  wb_mount mounts[] = {{.guest_path = "/app", .host_dir = dir, .writable = true},
                       {.guest_path = "/lib", .image = py->mounts(&n)[0].image}};
  wb_wasi_config c = {.mounts = mounts, .nmounts = 2, .max_output = 8, .max_fds = 8};
  w = wb_wasi_new(&c, err, sizeof err);
  assert_non_null(w);
  wb_wasi_bind_memory(w, &mem);
}

/* Put a string in guest memory at `at`; returns its length. */
static uint32_t put(uint32_t at, const char *s) {
  memcpy(mem.data + at, s, strlen(s));
  return (uint32_t)strlen(s);
}

static uint32_t open_path(uint32_t dirfd, const char *path, uint32_t oflags, uint64_t rights, uint32_t *fd) {
  uint32_t len = put(1000, path);
  uint32_t e = wasi_path_open(w, dirfd, WASI_LOOKUP_SYMLINK_FOLLOW, 1000, len, oflags, rights, 0, 0, 2000);
  memcpy(fd, mem.data + 2000, 4);
  return e;
}

/* open_path, closing the descriptor again when it opened */
static uint32_t try_open(uint32_t dirfd, const char *path, uint32_t oflags, uint64_t rights) {
  uint32_t fd, e = open_path(dirfd, path, oflags, rights, &fd);
  if (e == 0) wasi_fd_close(w, fd);
  return e;
}

static void test_path_resolution(void **s) {
  (void)s;
  new_host();
  uint32_t fd;
  assert_int_equal(try_open(3, "hello.txt", 0, WASI_RIGHT_FD_READ), 0);
  assert_int_equal(try_open(3, "sub/../hello.txt", 0, WASI_RIGHT_FD_READ), 0);
  assert_int_equal(try_open(3, "to_hello", 0, WASI_RIGHT_FD_READ), 0);
  assert_int_equal(try_open(3, "../etc/passwd", 0, WASI_RIGHT_FD_READ), WASI_EACCES);
  assert_int_equal(try_open(3, "sub/../../x", 0, WASI_RIGHT_FD_READ), WASI_EACCES);
  assert_int_equal(try_open(3, "/etc/passwd", 0, WASI_RIGHT_FD_READ), WASI_EACCES);
  assert_int_equal(try_open(3, "to_root/etc/passwd", 0, WASI_RIGHT_FD_READ), WASI_EACCES);
  assert_int_equal(try_open(3, "missing", 0, WASI_RIGHT_FD_READ), WASI_ENOENT);
  /* relative to a subdirectory fd, ".." may not climb out of it either */
  assert_int_equal(open_path(3, "sub", WASI_O_DIRECTORY, WASI_RIGHT_FD_READ, &fd), 0);
  uint32_t sub = fd;
  assert_int_equal(try_open(sub, "inner.txt", 0, WASI_RIGHT_FD_READ), 0);
  assert_int_equal(try_open(sub, "../hello.txt", 0, WASI_RIGHT_FD_READ), WASI_EACCES);
  /* image: read-only, same rules */
  assert_int_equal(try_open(4, "os.py", 0, WASI_RIGHT_FD_READ), 0);
  assert_int_equal(try_open(4, "os.py", 0, WASI_RIGHT_FD_WRITE), WASI_EROFS);
  assert_int_equal(try_open(4, "new.py", WASI_O_CREAT, WASI_RIGHT_FD_WRITE), WASI_EROFS);
  assert_int_equal(try_open(4, "../x", 0, WASI_RIGHT_FD_READ), WASI_EACCES);
  assert_int_equal(try_open(4, "os.py/x", 0, WASI_RIGHT_FD_READ), WASI_ENOTDIR);
  wb_wasi_free(w);
}

static void test_fd_limit(void **s) {
  (void)s;
  new_host();
  uint32_t fd, opened = 0;
  while (open_path(3, "hello.txt", 0, WASI_RIGHT_FD_READ, &fd) == 0) opened++;
  assert_int_equal(opened, 3); /* 8 slots: stdio, two preopens, three more */
  assert_int_equal(open_path(3, "hello.txt", 0, WASI_RIGHT_FD_READ, &fd), WASI_EMFILE);
  assert_int_equal(wasi_fd_close(w, 5), 0);
  assert_int_equal(open_path(3, "hello.txt", 0, WASI_RIGHT_FD_READ, &fd), 0);
  assert_int_equal(fd, 5);
  assert_int_equal(wasi_fd_close(w, 99), WASI_EBADF);
  wb_wasi_free(w);
}

static void test_guest_pointers_checked(void **s) {
  (void)s;
  new_host();
  /* path beyond memory */
  assert_int_equal(wasi_path_open(w, 3, 0, MEM - 2, 10, 0, WASI_RIGHT_FD_READ, 0, 0, 2000), WASI_EFAULT);
  /* result pointer beyond memory */
  uint32_t len = put(1000, "hello.txt");
  assert_int_equal(wasi_path_open(w, 3, 0, 1000, len, 0, WASI_RIGHT_FD_READ, 0, 0, MEM - 1), WASI_EFAULT);
  /* an iovec pointing outside memory */
  uint32_t iov[2] = {MEM - 4, 100};
  memcpy(mem.data + 3000, iov, 8);
  assert_int_equal(wasi_fd_write(w, 1, 3000, 1, 3100), WASI_EFAULT);
  /* huge iovec count */
  assert_int_equal(wasi_fd_write(w, 1, 3000, 0x7fffffff, 3100), WASI_EFAULT);
  /* a path with a NUL in it */
  memcpy(mem.data + 1000, "a\0b", 3);
  assert_int_equal(wasi_path_open(w, 3, 0, 1000, 3, 0, WASI_RIGHT_FD_READ, 0, 0, 2000), WASI_EINVAL);
  /* an overlong path */
  assert_int_equal(wasi_path_open(w, 3, 0, 0, WB_PATH_MAX + 1, 0, WASI_RIGHT_FD_READ, 0, 0, 2000), WASI_ENAMETOOLONG);
  wb_wasi_free(w);
}

static void test_stdout_bounded(void **s) {
  (void)s;
  new_host();
  uint32_t len = put(100, "0123456789");
  uint32_t iov[2] = {100, len};
  memcpy(mem.data + 3000, iov, 8);
  assert_int_equal(wasi_fd_write(w, 1, 3000, 1, 3100), 0);
  assert_int_equal(wasi_fd_write(w, 1, 3000, 1, 3100), 0);
  uint32_t wrote;
  memcpy(&wrote, mem.data + 3100, 4);
  assert_int_equal(wrote, 10); /* the guest is told all was written */
  wb_output o = wb_wasi_stdout(w);
  assert_int_equal(o.len, 8);
  assert_int_equal(o.total, 20);
  assert_true(o.truncated);
  assert_memory_equal(o.data, "01234567", 8);
  wb_wasi_free(w);
}

static void test_readdir_cut_entry(void **s) {
  (void)s;
  new_host();
  uint32_t fd;
  assert_int_equal(open_path(3, "sub", WASI_O_DIRECTORY, WASI_RIGHT_FD_READDIR, &fd), 0);
  /* a buffer too small for one whole entry is filled, never overrun */
  memset(mem.data + 5000, 0xAA, 64);
  assert_int_equal(wasi_fd_readdir(w, fd, 5000, 30, 0, 4000), 0);
  uint32_t used;
  memcpy(&used, mem.data + 4000, 4);
  assert_int_equal(used, 30);
  assert_int_equal((uint8_t)mem.data[5030], 0xAA);
  /* a big buffer holds ".", ".." and inner.txt */
  assert_int_equal(wasi_fd_readdir(w, fd, 5000, 4096, 0, 4000), 0);
  memcpy(&used, mem.data + 4000, 4);
  assert_int_equal(used, 3 * 24 + 1 + 2 + 9);
  wb_wasi_free(w);
}

static void test_sleep_bounded_by_deadline(void **s) {
  (void)s;
  new_host();
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  wb_wasi_set_deadline(w, (uint64_t)t0.tv_sec * 1000000000ull + (uint64_t)t0.tv_nsec + 50000000ull);
  uint8_t *sub = mem.data + 6000;
  memset(sub, 0, 48);
  sub[8] = WASI_EVENTTYPE_CLOCK;
  uint64_t ten_s = 10000000000ull;
  memcpy(sub + 24, &ten_s, 8); /* relative, monotonic clock (id 1) */
  uint32_t id = WASI_CLOCK_MONOTONIC;
  memcpy(sub + 16, &id, 4);
  assert_int_equal(wasi_poll_oneoff(w, 6000, 7000, 1, 8000), 0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  assert_true(took >= 0.045 && took < 0.5);
  assert_int_equal(wasi_poll_oneoff(w, 6000, 7000, 100000, 8000), WASI_EINVAL);
  wb_wasi_free(w);
}

static void test_changed_files(void **s) {
  (void)s;
  new_host();
  uint32_t fd;
  assert_int_equal(open_path(3, "sub/./new.txt", WASI_O_CREAT, WASI_RIGHT_FD_WRITE, &fd), 0);
  assert_int_equal(open_path(3, "hello.txt", 0, WASI_RIGHT_FD_READ, &fd), 0);
  size_t n;
  const char *const *f = wb_wasi_changed_files(w, &n);
  assert_int_equal(n, 1);
  assert_string_equal(f[0], "/app/sub/new.txt");
  wb_wasi_free(w);
  char p[4096];
  snprintf(p, sizeof p, "%s/sub/new.txt", dir);
  unlink(p);
}

static void test_join_guest_path(void **s) {
  (void)s;
  const char *cases[][3] = {{"/app", "x", "/app/x"}, {"/app", "a/./b/../c", "/app/a/c"}, {"/app/", "x//y/", "/app/x/y"},
                            {"/app", "..", "/"},     {"/app", "../../..", "/"},          {"/app", "", "/app"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *j = wb_join_guest_path(cases[i][0], cases[i][1]);
    assert_string_equal(j, cases[i][2]);
    free(j);
  }
}

static void test_image_rejects_corruption(void **s) {
  (void)s;
  const wb_runtime *py = wb_runtime_find("python");
  char err[256];
  assert_true(py->prepare(err, sizeof err));
  size_t nimg;
  const wb_image *img = py->mounts(&nimg)[0].image;
  size_t n = sizeof(wb_image_header) + 4 * sizeof(wb_image_node);
  uint8_t *copy = malloc(img->size);
  wb_image bad;
  /* a node whose data points past the end */
  memcpy(copy, img->base, img->size);
  wb_image_node *nodes = (wb_image_node *)(copy + sizeof(wb_image_header));
  for (uint32_t i = 0; i < img->count; i++)
    if (nodes[i].kind == WB_NODE_FILE) {
      nodes[i].data_off = img->size;
      nodes[i].size = 10;
      break;
    }
  assert_false(wb_image_open(&bad, copy, img->size, err, sizeof err));
  /* a child range that points backwards (a cycle) */
  memcpy(copy, img->base, img->size);
  nodes[0].first_child = 0;
  assert_false(wb_image_open(&bad, copy, img->size, err, sizeof err));
  /* truncated */
  assert_false(wb_image_open(&bad, img->base, n, err, sizeof err));
  assert_false(wb_image_open(&bad, "WBIMG", 5, err, sizeof err));
  /* the built-in image passes every check (tools/mkimage made them); the
   * open for built-in images checks the header and the areas it names */
  assert_true(wb_image_open(&bad, img->base, img->size, err, sizeof err));
  assert_true(wb_image_open_built(&bad, img->base, img->size, err, sizeof err));
  assert_int_equal(bad.count, img->count);
  assert_false(wb_image_open_built(&bad, img->base, n, err, sizeof err));
  assert_false(wb_image_open_built(&bad, "WBIMG", 5, err, sizeof err));
  memcpy(copy, img->base, img->size);
  ((wb_image_header *)copy)->names_size = (uint32_t)img->size;
  assert_false(wb_image_open_built(&bad, copy, img->size, err, sizeof err));
  assert_string_equal(err, "invalid image: names area");
  free(copy);
}

static void test_json_strings(void **s) {
  (void)s;
  wb_buf b = {0};
  wb_json_str(&b, "a\"\\\n\x01\x7f", 6);
  wb_json_str(&b, "\0x", 2);
  wb_json_str(&b, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9); /* valid UTF-8 passes */
  wb_json_str(&b, "\xff\xc3\x28\xed\xa0\x80\xf0\x9f", 8);     /* invalid: U+FFFD each */
  wb_json_num(&b, 1.5);
  wb_json_num(&b, 1.0 / 0.0);
  char *out = wb_buf_take(&b);
  assert_string_equal(
      out,
      "\"a\\\"\\\\\\n\\u0001\\u007f\"\"\\u0000x\"\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\""
      "\"\xef\xbf\xbd\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"1.5null");
  free(out);
}

static void test_guidance(void **s) {
  (void)s;
  char *g[WB_GUIDANCE_MAX];
  const char *t[WB_GUIDANCE_MAX], *docs = NULL;
  wb_guidance_input in = {.language = "python",
                          .status = WASMBOX_STATUS_ERROR,
                          .error_type = "ModuleNotFoundError",
                          .error_message = "No module named 'scipy'"};
  size_t n = wb_guidance(&in, g, t);
  assert_int_equal(n, 1);
  assert_non_null(strstr(g[0], "'scipy' is not installed"));
  assert_string_equal(t[0], "package_not_installed");
  free(g[0]);
  /* a wrong name for a built-in package names the right one */
  static const char *const near[][2] = {{"No module named 'pyyaml'", "PyYAML 6.0 is imported as 'yaml'"},
                                        {"No module named 'python_dateutil'", "imported as 'dateutil'"},
                                        {"No module named 'dateutils'", "imported as 'dateutil'"},
                                        {"No module named 'beautifulsoup4.element'", "imported as 'bs4'"},
                                        {"No module named 'Tabulate'", "imported as 'tabulate'"}};
  for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
    in.error_message = near[i][0];
    assert_int_equal(wb_guidance(&in, g, t), 1);
    if (!strstr(g[0], near[i][1])) fail_msg("%s: %s", near[i][0], g[0]);
    assert_string_equal(t[0], "module_renamed");
    free(g[0]);
  }
  in.error_message = "No module named 'zz'";
  assert_int_equal(wb_guidance(&in, g, t), 1);
  assert_non_null(strstr(g[0], "Check the module name 'zz'"));
  assert_string_equal(t[0], "module_not_found");
  free(g[0]);
  in = (wb_guidance_input){.language = "python", .status = WASMBOX_STATUS_TIMEOUT, .timeout_seconds = 2.5};
  n = wb_guidance(&in, g, t);
  assert_int_equal(n, 1);
  assert_non_null(strstr(g[0], "2.5 s"));
  assert_string_equal(t[0], "timeout");
  free(g[0]);
  in = (wb_guidance_input){.language = "python", .status = WASMBOX_STATUS_OK};
  assert_int_equal(wb_guidance(&in, g, t), 0);
  /* kinds and their docs; a name that is no kind has none */
  assert_string_equal(wb_guidance_kind("no_network", &docs), "no_network");
  assert_string_equal(docs, "docs/security.md#security-model");
  assert_string_equal(wb_guidance_kind("out_of_fuel", &docs), "out_of_fuel");
  assert_string_equal(docs, "docs/security.md#fuel");
  assert_null(wb_guidance_kind("made_up", &docs));
  assert_null(wb_guidance_kind(NULL, &docs));
}

/* The option tables of the CLI and the MCP settings (util/options.h). */
typedef struct {
  const char *name;
  double secs;
  uint64_t n;
  const char *tags[2];
  size_t ntags;
  bool flag;
  char buf[8];
} opts_t;

static const wb_option opt_table[] = {
    {"--name", WB_OPT_TEXT, offsetof(opts_t, name), 0, 0, 0, 0, NULL, "NAME", "a name", 0},
    {"--secs", WB_OPT_DOUBLE, offsetof(opts_t, secs), 0, 0, 0.5, 10, "seconds from 0.5 to 10", "S", "time", 0},
    {"-n", WB_OPT_U64, offsetof(opts_t, n), 0, 0, 1, 100, NULL, "N", "count\nsecond line", 0},
    {"--tag", WB_OPT_LIST, offsetof(opts_t, tags), offsetof(opts_t, ntags), 2, 0, 0, NULL, "T", "a tag", 0},
    {"--flag", WB_OPT_FLAG, offsetof(opts_t, flag), 0, 0, 0, 0, NULL, NULL, "a flag", 0},
    {"--buf", WB_OPT_TEXT, offsetof(opts_t, buf), 8, 0, 0, 0, NULL, "B", "a copy", 0},
};

static int parse_opts(opts_t *o, char *err, const char *pos[2], size_t *npos, int argc, ...) {
  char *argv[16];
  va_list ap;
  va_start(ap, argc);
  for (int i = 0; i < argc; i++) argv[i] = va_arg(ap, char *);
  va_end(ap);
  memset(o, 0, sizeof *o);
  return wb_opt_parse(opt_table, 6, o, argc, argv, 0, pos, 2, npos, "cmd", err, 256);
}

/* Patterns over several names of one thing: a match on any counts, and an
 * exclusion on any wins (an upstream tool's own name and its alias). */
static void test_patterns(void **s) {
  (void)s;
  const char *allow[] = {"*", "!admin.*"}, *names[] = {"admin.drop", "admin_drop"}, *other[] = {"read.file", NULL};
  assert_int_equal(wb_patterns_match(allow, 2, names, 2), -1);
  assert_int_equal(wb_patterns_match(allow, 2, names + 1, 1), 1); /* the alias alone does not match "admin.*" */
  assert_int_equal(wb_patterns_match(allow, 2, other, 2), 1);
  const char *approve[] = {"read.*"};
  assert_int_equal(wb_patterns_match(approve, 1, names, 2), 0);
  assert_int_equal(wb_patterns_match(approve, 1, other, 2), 1);
  assert_int_equal(wb_patterns_match(approve, 0, other, 2), 0);
  assert_true(wb_patterns_allow(allow, 2, "x"));
  assert_false(wb_patterns_allow(allow, 2, "admin.x"));
  assert_false(wb_patterns_allow(allow, 0, "x"));
}

/* util/os.c's one remover of trees: read-only and unreadable directories
 * go too, a symlink is removed and never followed, emptying keeps the
 * directory, and a tree deeper than its bound is refused, not recursed. */
static void make_file(const char *path) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("x", f);
  fclose(f);
}

/* root/rel in p (4096 bytes) */
static const char *in(char *p, const char *root, const char *rel) {
  snprintf(p, 4096, "%s/%s", root, rel);
  return p;
}

static void make_tree(const char *root, const char *outside) {
  char p[4096];
  assert_true(wb_mkdirs(in(p, root, "a/b/c")));
  make_file(in(p, root, "a/b/c/f"));
  assert_int_equal(mkdir(in(p, root, "ro"), 0700), 0);
  make_file(in(p, root, "ro/f"));
  assert_int_equal(chmod(in(p, root, "ro"), 0500), 0);
  assert_int_equal(mkdir(in(p, root, "closed"), 0700), 0);
  make_file(in(p, root, "closed/f"));
  assert_int_equal(chmod(in(p, root, "closed"), 0), 0);
  assert_int_equal(symlink(outside, in(p, root, "out")), 0);
}

/* A new scratch directory, open; its path in *top */
static int scratch_open(const char *name, char **top) {
  char err[256];
  *top = wb_scratch_dir(name, err, sizeof err);
  assert_non_null(*top);
  int dir = open(*top, O_RDONLY | O_DIRECTORY);
  assert_true(dir >= 0);
  return dir;
}

/* A scratch directory removed with all it holds */
static void scratch_remove(char *top) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
  assert_int_equal(system(cmd), 0);
  free(top);
}

/* Emptiness: "." and ".." do not count, one entry does (also the last of
 * more than one read of the directory holds), and the descriptor is left
 * at the directory's start. */
static void test_dir_emptiness(void **state) {
  (void)state;
  char err[256], p[4200];
  char *top = wb_scratch_dir("wb-units-empty", err, sizeof err);
  assert_non_null(top);
  int fd = open(top, O_RDONLY | O_DIRECTORY);
  assert_true(fd >= 0);
  assert_true(wb_dir_fd_is_empty(fd));
  assert_true(wb_dir_is_empty(top));
  snprintf(p, sizeof p, "%s/only", top);
  assert_int_equal(mkdir(p, 0700), 0);
  assert_false(wb_dir_fd_is_empty(fd));
  assert_false(wb_dir_is_empty(top));
  assert_int_equal(rmdir(p), 0);
  assert_true(wb_dir_fd_is_empty(fd));
  /* 400 entries with long names, then all but the one that sorts last in the directory's own order */
  char name[200];
  memset(name, 'n', sizeof name - 8);
  for (int i = 0; i < 400; i++) {
    snprintf(p, sizeof p, "%s/%.*s%04d", top, 150, name, i);
    make_file(p);
  }
  assert_false(wb_dir_fd_is_empty(fd));
  DIR *d = opendir(top);
  assert_non_null(d);
  char last[256] = "";
  for (struct dirent *e; (e = readdir(d));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) snprintf(last, sizeof last, "%s", e->d_name);
  closedir(d);
  for (int i = 0; i < 400; i++) {
    snprintf(p, sizeof p, "%s/%.*s%04d", top, 150, name, i);
    if (strcmp(strrchr(p, '/') + 1, last)) assert_int_equal(unlink(p), 0);
  }
  assert_false(wb_dir_fd_is_empty(fd));
  assert_int_equal(lseek(fd, 0, SEEK_CUR), 0);
  close(fd);
  scratch_remove(top);
}

/* A file's size by seeking: the bytes written, sparse ends included; a
 * descriptor that is not a file's fails with errno set. */
static void test_fd_size(void **state) {
  (void)state;
  char path[] = "/tmp/wb-units-size-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  unlink(path);
  uint64_t size = 1;
  assert_true(wb_fd_size(fd, &size));
  assert_int_equal(size, 0);
  assert_true(wb_pwrite_all(fd, "abc", 3, 5000));
  assert_true(wb_fd_size(fd, &size));
  assert_int_equal(size, 5003);
  close(fd);
  int pipes[2];
  assert_int_equal(pipe(pipes), 0);
  errno = 0;
  assert_false(wb_fd_size(pipes[0], &size));
  assert_int_equal(errno, ESPIPE);
  close(pipes[0]);
  close(pipes[1]);
}

static void test_tree_removal(void **state) {
  (void)state;
  char err[256], p[4096];
  char *top = wb_scratch_dir("wb-units-rm", err, sizeof err);
  assert_non_null(top);
  char root[2048], outside[2048];
  snprintf(root, sizeof root, "%s/root", top);
  snprintf(outside, sizeof outside, "%s/outside", top);
  assert_int_equal(mkdir(root, 0700), 0);
  assert_int_equal(mkdir(outside, 0700), 0);
  snprintf(p, sizeof p, "%s/keep", outside);
  make_file(p);

  make_tree(root, outside);
  wb_empty_dir(root);
  assert_true(wb_dir_is_empty(root));
  assert_int_equal(access(p, F_OK), 0); /* the symlink's target stays */

  make_tree(root, outside);
  assert_true(wb_tree_remove(AT_FDCWD, root));
  assert_int_equal(access(root, F_OK), -1);
  assert_int_equal(access(p, F_OK), 0);
  assert_true(wb_tree_remove(AT_FDCWD, root)); /* gone already: done */

  /* deeper than its bound (256 levels): refused, and what is left is not followed down */
  int fd = open(top, O_RDONLY | O_DIRECTORY);
  assert_true(fd >= 0);
  int dir = dup(fd);
  for (int i = 0; i < 300; i++) {
    assert_int_equal(mkdirat(dir, "d", 0700), 0);
    int next = openat(dir, "d", O_RDONLY | O_DIRECTORY);
    close(dir);
    dir = next;
    assert_true(dir >= 0);
  }
  close(dir);
  assert_false(wb_tree_remove(fd, "d"));
  assert_int_equal(faccessat(fd, "d", F_OK, 0), 0);
  close(fd);
  scratch_remove(top);
}

static void test_options(void **state) {
  (void)state;
  opts_t o;
  char err[256];
  const char *pos[2];
  size_t npos;
  assert_int_equal(
      parse_opts(&o, err, pos, &npos, 9, "--name", "x", "--secs=2.5", "-n", "7", "--tag", "a", "f1", "--flag"), 0);
  assert_string_equal(o.name, "x");
  assert_true(o.secs == 2.5 && o.n == 7 && o.flag && o.ntags == 1 && npos == 1);
  assert_string_equal(pos[0], "f1");
  assert_int_equal(parse_opts(&o, err, pos, &npos, 2, "--tag", "a"), 0);
  /* given twice; a list repeats up to its limit */
  assert_int_equal(parse_opts(&o, err, pos, &npos, 4, "-n", "1", "-n", "2"), -1);
  assert_string_equal(err, "-n is given twice");
  assert_int_equal(parse_opts(&o, err, pos, &npos, 6, "--tag", "a", "--tag", "b", "--tag", "c"), -1);
  assert_string_equal(err, "--tag is given more than 2 times");
  assert_int_equal(parse_opts(&o, err, pos, &npos, 2, "--tag", ""), -1);
  /* missing values, unknown options, values on flags, too many words */
  assert_int_equal(parse_opts(&o, err, pos, &npos, 1, "--secs"), -1);
  assert_string_equal(err, "--secs needs a value");
  assert_int_equal(parse_opts(&o, err, pos, &npos, 1, "--nope"), -1);
  assert_string_equal(err, "unknown option --nope (see cmd --help)");
  assert_int_equal(parse_opts(&o, err, pos, &npos, 1, "--flag=1"), -1);
  assert_int_equal(parse_opts(&o, err, pos, &npos, 3, "a", "b", "c"), -1);
  assert_int_equal(parse_opts(&o, err, pos, &npos, 2, "x", "-h"), 1);
  /* numbers: plain decimals in range, each refused with the option's words */
  const char *bad[] = {" 1", "+5", "-1", "0x10", "inf", "nan", "1 ", "", "0.1", "11", "1e9"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(parse_opts(&o, err, pos, &npos, 2, "--secs", bad[i]), -1);
    assert_non_null(strstr(err, "--secs wants seconds from 0.5 to 10"));
  }
  assert_int_equal(parse_opts(&o, err, pos, &npos, 2, "-n", "101"), -1);
  assert_string_equal(err, "-n wants a whole number from 1 to 100, not '101'");
  assert_int_equal(parse_opts(&o, err, pos, &npos, 2, "-n", "18446744073709551616"), -1); /* 2^64 */
  assert_int_equal(parse_opts(&o, err, pos, &npos, 2, "--secs", ".5"), 0);
  /* a copied value that does not fit is refused, not cut */
  assert_int_equal(parse_opts(&o, err, pos, &npos, 2, "--buf", "1234567"), 0);
  assert_string_equal(o.buf, "1234567");
  assert_int_equal(parse_opts(&o, err, pos, &npos, 2, "--buf", "12345678"), -1);
  /* lookup by bare name, '_' for '-'; the help has every line */
  assert_ptr_equal(wb_opt_find(opt_table, 6, "secs", 4), &opt_table[1]);
  assert_null(wb_opt_find(opt_table, 6, "sec", 3));
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  wb_opt_usage(opt_table, 6, f);
  fclose(f);
  assert_non_null(strstr(text, "  -n N                 count\n                       second line\n"));
  assert_non_null(strstr(text, "  --flag               a flag\n"));
  free(text);
}

/* The page log replays to exactly the memory saved: difference records
 * against what the memory was (pages written with the same bytes left out,
 * pages beyond the old memory taken as zeros), whole-page records, in any
 * order; a damaged or cut record fails the load. */
static int memfd_with(const uint8_t *bytes, size_t n) {
  int fd = memfd_create("units-pagelog", MFD_CLOEXEC);
  assert_true(fd >= 0);
  assert_true(wb_pwrite_all(fd, bytes, n, 0));
  return fd;
}

static void replay_equals(int log, uint64_t len, const uint8_t *base, size_t base_n, const uint8_t *want, size_t n,
                          uint64_t want_records) {
  uint8_t *mem = calloc(1, n);
  assert_non_null(mem);
  memcpy(mem, base, base_n);
  uint64_t records;
  char err[256] = "";
  assert_true(wb_pagelog_apply(log, len, mem, n, NULL, &records, err, sizeof err));
  assert_int_equal(records, want_records);
  assert_memory_equal(mem, want, n);
  free(mem);
}

typedef struct {
  int count;
  bool refuse;
  uint64_t ends[4];
  char last[16];
} seals_seen;

static bool note_seal(const uint8_t *payload, uint32_t len, uint64_t end, void *ctx) {
  seals_seen *s = ctx;
  if (s->refuse || s->count == 4 || len >= sizeof s->last) return false;
  s->ends[s->count++] = end;
  memcpy(s->last, payload, len);
  s->last[len] = 0;
  return true;
}

static void test_page_log(void **state) {
  (void)state;
  enum { P = WB_HOST_PAGE, BASE = 16, GROWN = 32 }; /* one wasm page, then two */
  uint8_t *base = malloc(BASE * P), *m1 = calloc(GROWN, P), *m2 = malloc(GROWN * P);
  assert_true(base && m1 && m2);
  for (size_t i = 0; i < BASE * P; i++) base[i] = (uint8_t)(i * 7 + i / 4096);
  int basefd = memfd_with(base, BASE * P), log = memfd_create("units-log", MFD_CLOEXEC);
  assert_true(log >= 0);
  char err[256] = "";

  /* a first save over the base: page 1 changed, 3 written back the same,
   * 16 (beyond the base) still zero, 17 (beyond it) filled */
  memcpy(m1, base, BASE * P);
  m1[1 * P + 5] ^= 0x40;
  m1[1 * P + 4000] = 0;
  memset(m1 + 17 * P, 0xab, P);
  uint32_t pages[] = {1, 3, 16, 17};
  size_t n = 4;
  uint64_t end;
  wb_memory_image prior = {.fd = basefd, .offset = 0, .pages = 1};
  assert_true(wb_pagelog_append(log, 0, m1, pages, &n, &prior, &end, err, sizeof err));
  assert_int_equal(n, 2);
  assert_int_equal(pages[0], 1);
  assert_int_equal(pages[1], 17);
  replay_equals(log, end, base, BASE * P, m1, GROWN * P, 2);
  uint64_t changed[1] = {0}, records;
  uint8_t *replay = calloc(GROWN, P);
  assert_true(wb_pagelog_apply(log, end, replay, GROWN * P, changed, &records, err, sizeof err));
  assert_int_equal(changed[0], (1u << 1) | (1u << 17)); /* the pages the records hold */
  free(replay);

  /* a second save, against the first's memory */
  int img = memfd_with(m1, GROWN * P);
  memcpy(m2, m1, GROWN * P);
  m2[0] ^= 1;
  m2[1 * P + 5] ^= 0x40; /* back to the base's byte */
  uint32_t again[] = {0, 1};
  n = 2;
  prior = (wb_memory_image){.fd = img, .offset = 0, .pages = 2};
  uint64_t end2;
  assert_true(wb_pagelog_append(log, end, m2, again, &n, &prior, &end2, err, sizeof err));
  assert_int_equal(n, 2);
  replay_equals(log, end2, base, BASE * P, m2, GROWN * P, 4);
  /* the same against an image read in place (a session's overlay has a
   * view) writes the same record */
  int other = memfd_create("units-log-view", MFD_CLOEXEC);
  uint32_t same[] = {0, 1};
  uint64_t other_end;
  n = 2;
  prior = (wb_memory_image){.fd = -1, .view = m1, .pages = 2};
  assert_true(other >= 0 && wb_pagelog_append(other, 0, m2, same, &n, &prior, &other_end, err, sizeof err));
  assert_int_equal(n, 2);
  assert_int_equal(other_end, end2 - end);
  uint8_t *want = malloc(other_end), *got = malloc(other_end);
  assert_true(want && got && wb_pread_all(log, want, other_end, end) && wb_pread_all(other, got, other_end, 0));
  assert_memory_equal(got, want, other_end);
  free(want);
  free(got);
  close(other);

  /* a whole-page record (as a compaction writes) over the differences,
   * after the thread gave its compression context back (an idle worker
   * does): the append makes another */
  wb_pagelog_release();
  wb_pagelog_release();
  memset(m2 + 5 * P, 0x11, P);
  uint32_t whole[] = {5};
  n = 1;
  uint64_t end3;
  assert_true(wb_pagelog_append(log, end2, m2, whole, &n, NULL, &end3, err, sizeof err));
  assert_int_equal(n, 1);
  replay_equals(log, end3, base, BASE * P, m2, GROWN * P, 5);

  /* a seal after each commit's records: apply steps over it, follow
   * takes each seal whose records are whole, in order */
  uint64_t sealed1, sealed2;
  assert_true(wb_pagelog_seal(log, 0, end3, "first", 5, &sealed1));
  assert_int_equal(sealed1, end3 + WB_SEAL_HEADER + 5);
  replay_equals(log, sealed1, base, BASE * P, m2, GROWN * P, 5);
  uint32_t once[] = {6};
  n = 1;
  uint64_t end4;
  memset(m2 + 6 * P, 0x22, P);
  assert_true(wb_pagelog_append(log, sealed1, m2, once, &n, NULL, &end4, err, sizeof err));
  assert_true(wb_pagelog_seal(log, sealed1, end4, "second", 6, &sealed2));
  replay_equals(log, sealed2, base, BASE * P, m2, GROWN * P, 6);
  seals_seen seen = {0};
  assert_int_equal(wb_pagelog_follow(log, 0, sealed2, note_seal, &seen), sealed2);
  assert_int_equal(seen.count, 2);
  assert_string_equal(seen.last, "second");
  assert_int_equal(seen.ends[0], sealed1);
  /* from the first seal on; a seal cut short; one whose records changed */
  seen = (seals_seen){0};
  assert_int_equal(wb_pagelog_follow(log, sealed1, sealed2, note_seal, &seen), sealed2);
  assert_int_equal(seen.count, 1);
  seen = (seals_seen){0};
  assert_int_equal(wb_pagelog_follow(log, 0, sealed2 - 1, note_seal, &seen), sealed1);
  assert_int_equal(seen.count, 1);
  uint8_t flip;
  assert_true(wb_pread_all(log, &flip, 1, sealed1 + 14));
  flip ^= 1;
  assert_true(wb_pwrite_all(log, &flip, 1, sealed1 + 14));
  seen = (seals_seen){0};
  assert_int_equal(wb_pagelog_follow(log, 0, sealed2, note_seal, &seen), sealed1);
  assert_string_equal(seen.last, "first");
  /* and one the caller refuses stops the walk there */
  seen = (seals_seen){.refuse = true};
  assert_int_equal(wb_pagelog_follow(log, 0, sealed2, note_seal, &seen), 0);

  /* damage: a cut record, a flipped byte in the last frame */
  uint8_t *mem = calloc(GROWN, P);
  assert_false(wb_pagelog_apply(log, end3 - 1, mem, GROWN * P, NULL, &records, err, sizeof err));
  assert_non_null(strstr(err, "truncated"));
  uint8_t b;
  assert_true(wb_pread_all(log, &b, 1, end3 - 6));
  b ^= 0xff;
  assert_true(wb_pwrite_all(log, &b, 1, end3 - 6));
  assert_false(wb_pagelog_apply(log, end3, mem, GROWN * P, NULL, &records, err, sizeof err));
  assert_non_null(strstr(err, "decompress"));
  /* a page beyond the memory it is applied to */
  assert_false(wb_pagelog_apply(log, end, mem, BASE * P, NULL, &records, err, sizeof err));
  assert_non_null(strstr(err, "beyond"));
  free(mem);
  close(img), close(log), close(basefd);
  free(base), free(m1), free(m2);
}

/* A record written by hand: header, pages, one zstd frame of `payload`. */
static uint64_t put_record(int log, uint64_t at, uint32_t magic, const uint32_t *pages, uint32_t k, const void *payload,
                           size_t len) {
  size_t cap = ZSTD_compressBound(len);
  uint8_t *comp = malloc(cap);
  assert_non_null(comp);
  size_t c = ZSTD_compress(comp, cap, payload, len, 1);
  assert_false(ZSTD_isError(c));
  uint32_t head[3] = {magic, k, (uint32_t)c};
  assert_true(wb_pwrite_all(log, head, sizeof head, at));
  assert_true(wb_pwrite_all(log, pages, k * sizeof *pages, at + sizeof head));
  assert_true(wb_pwrite_all(log, comp, c, at + sizeof head + k * sizeof *pages));
  free(comp);
  return at + sizeof head + k * sizeof *pages + c;
}

/* Difference records hold only the 8-byte words that changed: the first
 * and last word of a page and of each 64-word run of its map, and a page
 * of which every word changed, replay exactly. A log written before them
 * (whole-page XOR records, "WBPX") replays too. A map that promises more
 * words than the record holds, or a record with bytes past its pages,
 * fails the load. */
static void test_page_log_words(void **state) {
  (void)state;
  enum { P = WB_HOST_PAGE, N = 4 };
  uint8_t *base = malloc(N * P), *mem = malloc(N * P);
  assert_true(base && mem);
  for (size_t i = 0; i < N * P; i++) base[i] = (uint8_t)(i * 13 + i / 4096);
  memcpy(mem, base, N * P);
  size_t edges[] = {0, 63 * 8, 64 * 8, 127 * 8 + 7, 448 * 8, 511 * 8 + 7};
  for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) mem[1 * P + edges[i]] ^= 0x81;
  for (size_t i = 0; i < P; i += 8) mem[2 * P + i + (i / 8) % 8] ^= 0x5a; /* every word of page 2 */
  int basefd = memfd_with(base, N * P), log = memfd_create("units-log-words", MFD_CLOEXEC);
  assert_true(log >= 0);
  char err[256] = "";
  uint32_t pages[] = {1, 2, 3};
  size_t n = 3;
  uint64_t end, records;
  wb_memory_image prior = {.fd = basefd, .offset = 0, .pages = 1};
  assert_true(wb_pagelog_append(log, 0, mem, pages, &n, &prior, &end, err, sizeof err));
  assert_int_equal(n, 2); /* page 3 written back the same */
  uint32_t magic;
  assert_true(wb_pread_all(log, &magic, sizeof magic, 0));
  assert_int_equal(magic, 0x57504257u);
  replay_equals(log, end, base, N * P, mem, N * P, 2);

  /* an older log: page 1's whole XOR */
  uint8_t *x = malloc(P), *out = malloc(N * P);
  assert_true(x && out);
  for (size_t i = 0; i < P; i++) x[i] = base[P + i] ^ mem[P + i];
  memcpy(out, base, N * P);
  memcpy(out + P, mem + P, P);
  uint32_t one[] = {1};
  int old = memfd_create("units-log-xor", MFD_CLOEXEC);
  assert_true(old >= 0);
  uint64_t old_end = put_record(old, 0, 0x58504257u, one, 1, x, P);
  replay_equals(old, old_end, base, N * P, out, N * P, 1);
  close(old);

  /* a map of three words with two of them there; then one extra byte */
  uint8_t rec[64 + 3 * 8 + 1] = {0};
  rec[0] = 0x07;
  uint8_t *copy = malloc(N * P);
  assert_non_null(copy);
  int bad = memfd_create("units-log-bad", MFD_CLOEXEC);
  assert_true(bad >= 0);
  uint64_t bad_end = put_record(bad, 0, 0x57504257u, one, 1, rec, 64 + 2 * 8);
  memcpy(copy, base, N * P);
  assert_false(wb_pagelog_apply(bad, bad_end, copy, N * P, NULL, &records, err, sizeof err));
  assert_non_null(strstr(err, "ends too soon"));
  bad_end = put_record(bad, 0, 0x57504257u, one, 1, rec, sizeof rec);
  memcpy(copy, base, N * P);
  assert_false(wb_pagelog_apply(bad, bad_end, copy, N * P, NULL, &records, err, sizeof err));
  assert_non_null(strstr(err, "longer than its pages"));
  close(bad);
  free(copy), free(x), free(out);
  close(log), close(basefd);
  free(base), free(mem);
}

static uint64_t file_size(int fd) {
  struct stat st;
  assert_int_equal(fstat(fd, &st), 0);
  return (uint64_t)st.st_size;
}

/* a commit of n bytes at `from`, then room made for the next */
static void commit_bytes(int log, uint64_t from, size_t n) {
  static uint8_t bytes[40000];
  memset(bytes, 0x5a, sizeof bytes);
  assert_true(n <= sizeof bytes);
  assert_true(wb_pwrite_all(log, bytes, n, from));
  assert_true(wb_pagelog_room(log, from, from + n));
}

/* Room past a log's end: none in a new log; a commit that leaves less
 * than its own size makes 8 times it (64 KB at least) of zeros; one that
 * fits leaves the size alone; a walk stops at room; a repair keeps room
 * and cuts off what a save that did not commit left (a record). */
static void test_pagelog_room(void **state) {
  (void)state;
  char *top;
  int dir = scratch_open("wb-units-room", &top);
  int log = openat(dir, "log-0", O_RDWR | O_CREAT, 0600);
  assert_true(log >= 0);
  commit_bytes(log, 0, 1000);
  assert_int_equal(file_size(log), 1000);
  commit_bytes(log, 1000, 1000);
  assert_int_equal(file_size(log), 2000 + 64 * 1024);
  uint8_t *tail = malloc(64 * 1024), zeros[64 * 1024] = {0};
  assert_true(wb_pread_all(log, tail, 64 * 1024, 2000));
  assert_memory_equal(tail, zeros, 64 * 1024);
  free(tail);
  commit_bytes(log, 2000, 1000);
  commit_bytes(log, 3000, 30000);
  assert_int_equal(file_size(log), 2000 + 64 * 1024);
  commit_bytes(log, 33000, 40000); /* 40000 past 73000: more than the room left */
  assert_int_equal(file_size(log), 73000 + 8 * 40000);
  assert_true(wb_pagelog_is_room(log, 73000, file_size(log)));
  assert_false(wb_pagelog_is_room(log, 72000, file_size(log)));
  assert_false(wb_pagelog_is_room(log, file_size(log), file_size(log)));
  assert_false(wb_pagelog_is_room(log, file_size(log) + 4096, file_size(log)));
  seals_seen seen = {0};
  assert_int_equal(wb_pagelog_follow(log, 73000, file_size(log), note_seal, &seen), 73000);
  assert_int_equal(seen.count, 0);

  wb_head h = {.log_no = 0, .log_len = 73000};
  assert_true(wb_session_repair(dir, &h));
  assert_int_equal(file_size(log), 73000 + 8 * 40000);
  uint32_t record = 0x57504257u; /* "WBPW": the start of a save's records */
  assert_true(wb_pwrite_all(log, &record, sizeof record, 73000));
  assert_true(wb_session_repair(dir, &h));
  assert_int_equal(file_size(log), 73000);
  close(log);
  close(dir);
  scratch_remove(top);
}

/* The /proc/self/pagemap entry of the page at `p`. */
static uint64_t pagemap_entry(const void *p) {
  int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  assert_true(fd >= 0);
  uint64_t e;
  assert_int_equal(pread(fd, &e, 8, (off_t)((uintptr_t)p / 4096 * 8)), 8);
  close(fd);
  return e;
}

static bool present_page(const void *p) { return pagemap_entry(p) >> 63 & 1; }

/* in this process's page tables as its own: present, and not a file or
 * shared page (a private copy) */
static bool private_page(const void *p) {
  uint64_t e = pagemap_entry(p);
  return (e >> 63 & 1) && !(e >> 61 & 1);
}

/* What an idle process gives back: an overlay's changed pages (the view
 * reads as the image under it, or zeros past it, until a refill copies
 * them back from the memory), and the page table entries of an image
 * mapped from a file (its bytes stay readable). */
/* A signature of n params (types t), no results. */
static uint32_t func_type_of(int n, const wasm_rt_type_t *t) {
  switch (n) {
    case 0: return wasm_rt_register_func_type(0, 0);
    case 1: return wasm_rt_register_func_type(1, 0, t[0]);
    case 2: return wasm_rt_register_func_type(2, 0, t[0], t[1]);
    case 3: return wasm_rt_register_func_type(3, 0, t[0], t[1], t[2]);
    case 4: return wasm_rt_register_func_type(4, 0, t[0], t[1], t[2], t[3]);
    default: return wasm_rt_register_func_type(5, 0, t[0], t[1], t[2], t[3], t[4]);
  }
}

static int by_value(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Identical signatures share one index, different ones never do, however
 * many are registered (the registry's hash table grows as they come). */
static void test_func_types(void **state) {
  (void)state;
  uint32_t a = wasm_rt_register_func_type(2, 1, WASM_RT_I32, WASM_RT_I64, WASM_RT_F64);
  assert_int_equal(wasm_rt_register_func_type(2, 1, WASM_RT_I32, WASM_RT_I64, WASM_RT_F64), a);
  assert_int_not_equal(wasm_rt_register_func_type(2, 1, WASM_RT_I64, WASM_RT_I32, WASM_RT_F64), a);
  assert_int_not_equal(wasm_rt_register_func_type(1, 2, WASM_RT_I32, WASM_RT_I64, WASM_RT_F64), a);
  /* every signature of up to 5 params of 4 types: 1365 of them */
  static const wasm_rt_type_t kinds[4] = {WASM_RT_I32, WASM_RT_I64, WASM_RT_F32, WASM_RT_F64};
  static uint32_t first[1365], again[1365];
  for (int round = 0; round < 2; round++) {
    size_t k = 0;
    for (int n = 0; n <= 5; n++)
      for (int code = 0; code < 1 << (2 * n); code++) {
        wasm_rt_type_t t[5];
        for (int i = 0; i < n; i++) t[i] = kinds[(code >> (2 * i)) & 3];
        (round ? again : first)[k++] = func_type_of(n, t);
      }
    assert_int_equal(k, 1365);
  }
  assert_memory_equal(first, again, sizeof first);
  qsort(again, 1365, sizeof *again, by_value);
  for (size_t i = 1; i < 1365; i++) assert_true(again[i] != again[i - 1]);
}

static void test_image_give_back(void **state) {
  (void)state;
  enum { P = WB_HOST_PAGE, WASM = WB_WASM_PAGE };
  uint8_t *base = malloc(WASM), *mem = malloc(2 * WASM);
  assert_true(base && mem);
  for (size_t i = 0; i < WASM; i++) base[i] = (uint8_t)(i * 13 + i / P);
  int basefd = memfd_with(base, WASM);
  wb_memory_image under = {.fd = basefd, .pages = 1}, img;
  assert_true(wb_overlay_new(&img, &under, 2));
  memcpy(mem, base, WASM);
  memset(mem + WASM, 0, WASM);
  memset(mem + 3 * P, 0x33, P);
  memset(mem + 4 * P, 0x44, P);
  memset(mem + 20 * P, 0x20, P); /* past the image under */
  uint32_t pages[] = {3, 4, 20};
  assert_true(wb_overlay_put(&img, 2, mem, pages, 3));
  assert_memory_equal(img.view, mem, 2 * WASM);
  for (size_t i = 0; i < 3; i++) assert_true(private_page(img.view + pages[i] * P));
  wb_overlay_drop(&img);
  for (size_t i = 0; i < 3; i++) assert_false(private_page(img.view + pages[i] * P));
  assert_memory_equal(img.view + 3 * P, base + 3 * P, 2 * P);
  uint8_t zero[P];
  memset(zero, 0, P);
  assert_memory_equal(img.view + 20 * P, zero, P);
  wb_overlay_refill(&img, mem);
  assert_memory_equal(img.view, mem, 2 * WASM);
  wb_overlay_free(&img);

  /* a file's image, read through a view */
  uint8_t *view = mmap(NULL, WASM, PROT_READ, MAP_PRIVATE, basefd, 0);
  assert_true(view != MAP_FAILED);
  wb_memory_image file = {.fd = basefd, .pages = 1, .view = view};
  uint8_t page[P];
  assert_true(wb_image_read(&file, 5 * P, page, P));
  assert_true(present_page(view + 5 * P));
  wb_image_unmap_pages(&file);
  assert_false(present_page(view + 5 * P));
  assert_memory_equal(view, base, WASM);
  munmap(view, WASM);
  close(basefd);
  free(base), free(mem);
}

/* HEAD: the newest of its two copies wins; one cut or damaged leaves the
 * other; a HEAD of the older one-copy format reads, and is written over;
 * globals too big for a copy are refused, not cut; an unflushed write
 * keeps the newest flushed copy. */
static void head_at(int dir, uint64_t gen) {
  wb_head h;
  uint8_t *g;
  assert_true(wb_head_read(dir, &h, &g));
  assert_int_equal(h.gen, gen);
  assert_int_equal(h.globals_size, 3);
  assert_memory_equal(g, "abc", 3);
  free(g);
}

/* generations [from, to] written in turn (unflushed when `sealed`), each
 * read back as the state */
static void write_gens(int dir, wb_head *h, uint64_t from, uint64_t to, bool sealed) {
  for (uint64_t gen = from; gen <= to; gen++) {
    h->gen = gen;
    const uint8_t *g = (const uint8_t *)"abc";
    assert_true(sealed ? wb_head_write_sealed(dir, h, g) : wb_head_write(dir, h, g));
    head_at(dir, gen);
  }
}

/* HEAD's copy at `slot` (0 or 4096) cut short: its wb_head damaged */
static void cut_copy(int dir, off_t slot) {
  int fd = openat(dir, "HEAD", O_WRONLY);
  assert_true(fd >= 0);
  assert_true(wb_pwrite_all(fd, "\xff\xff\xff\xff", 4, (uint64_t)slot + 60));
  close(fd);
}

static void test_head_copies(void **state) {
  (void)state;
  char *top;
  int dir = scratch_open("wb-units-head", &top);
  wb_head h = {.gen = 7, .pages = 10, .globals_size = 3};
  memcpy(h.magic, WB_HEAD_MAGIC, 8);
  snprintf(h.build_id, sizeof h.build_id, "build");
  /* the older format: one wb_head and its globals */
  int fd = openat(dir, "HEAD", O_WRONLY | O_CREAT, 0600);
  assert_true(fd >= 0);
  assert_true(wb_pwrite_all(fd, &h, sizeof h, 0) && wb_pwrite_all(fd, "abc", 3, sizeof h));
  close(fd);
  head_at(dir, 7);
  write_gens(dir, &h, 8, 10, false);
  /* gen 10 is in the second copy (4 KiB in): cut it, and gen 9 is the state */
  cut_copy(dir, 4096);
  head_at(dir, 9);
  write_gens(dir, &h, 11, 11, false); /* the next write goes over the damaged copy */
  /* damage in one copy, then in both */
  fd = openat(dir, "HEAD", O_WRONLY);
  assert_true(fd >= 0);
  assert_true(wb_pwrite_all(fd, "XXXXXXXXXXXXXXXX", 16, 24 + offsetof(wb_head, build_id) + 60));
  head_at(dir, 11);
  assert_true(wb_pwrite_all(fd, "XXXXXXXXXXXXXXXX", 16, 4096 + 24 + offsetof(wb_head, build_id) + 60));
  wb_head any;
  uint8_t *g;
  assert_false(wb_head_read(dir, &any, &g));
  close(fd);
  /* globals that do not fit a copy */
  h.globals_size = 8192;
  uint8_t *big = calloc(1, 8192);
  assert_false(wb_head_write(dir, &h, big));
  assert_int_equal(errno, EFBIG);
  free(big);
  /* a sealed state (written unflushed) never goes over the newest flushed
   * copy: a crash that cuts it leaves that one */
  h.globals_size = 3;
  write_gens(dir, &h, 20, 20, false); /* both copies damaged: into the first */
  write_gens(dir, &h, 21, 22, true);
  cut_copy(dir, 4096);
  head_at(dir, 20);
  write_gens(dir, &h, 23, 23, false); /* flushed: over the second copy again, the first kept */
  write_gens(dir, &h, 24, 24, true);  /* sealed: over the first, the older flushed copy */
  cut_copy(dir, 0);
  head_at(dir, 23);
  close(dir);
  scratch_remove(top);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_patterns),
      cmocka_unit_test(test_path_resolution),
      cmocka_unit_test(test_fd_limit),
      cmocka_unit_test(test_guest_pointers_checked),
      cmocka_unit_test(test_stdout_bounded),
      cmocka_unit_test(test_readdir_cut_entry),
      cmocka_unit_test(test_sleep_bounded_by_deadline),
      cmocka_unit_test(test_changed_files),
      cmocka_unit_test(test_join_guest_path),
      cmocka_unit_test(test_image_rejects_corruption),
      cmocka_unit_test(test_json_strings),
      cmocka_unit_test(test_guidance),
      cmocka_unit_test(test_options),
      cmocka_unit_test(test_tree_removal),
      cmocka_unit_test(test_dir_emptiness),
      cmocka_unit_test(test_fd_size),
      cmocka_unit_test(test_page_log),
      cmocka_unit_test(test_page_log_words),
      cmocka_unit_test(test_pagelog_room),
      cmocka_unit_test(test_head_copies),
      cmocka_unit_test(test_image_give_back),
      cmocka_unit_test(test_func_types),
  };
  return _cmocka_run_group_tests("units", tests, sizeof tests / sizeof tests[0], setup, teardown);
}
