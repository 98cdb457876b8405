/* libFuzzer: the WASI host (src/wasi) as a hostile guest drives it. An input
 * is a program of up to 64 steps; a step either writes bytes into the
 * guest's memory or calls one WASI function (through the entry points the
 * generated code calls) with arguments from the input: descriptors, flags,
 * pointers, lengths, offsets. The host has what a call has: stdio, a
 * writable /app (a host directory with a file, a directory, a symlink out of
 * it and an absolute one, under a quota), a read-only /data beside it and
 * the Python runtime's stdlib image.
 * Properties beyond "no crash, leak or UB": after each program the files
 * outside /app (a directory beside it, and /data) are exactly as they were,
 * and freeing the host leaves no host descriptor open. */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/runtime.h"
#include "util/os.h"
#include "wasi/imports.h"
#include "wasi/wasi.h"

#define MEM_PAGES 2
#define MEM_BYTES (MEM_PAGES * 65536u)

static char root[64], ws[96], ro[96], outside[96];
static uint64_t baseline; /* signature of what must not change */
static wb_mount mounts[3];
static size_t nmounts;

static void check(int ok, const char *what) {
  if (ok) return;
  fprintf(stderr, "fuzz_wasi: %s\n", what);
  abort();
}

static void put(const char *dir, const char *name, const char *text) {
  char p[256];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  FILE *f = fopen(p, "w");
  check(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write the fixture");
}

/* A hash of every name, type, mode, size, link target and content under
 * `dir` (and of the directory's own metadata). */
static uint64_t mix(uint64_t h, const void *p, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ ((const uint8_t *)p)[i]) * 0x100000001b3ull;
  return h;
}

static uint64_t signature(const char *dir, uint64_t h) {
  struct stat st;
  if (lstat(dir, &st)) return mix(h, "gone", 4);
  h = mix(h, &st.st_mode, sizeof st.st_mode);
  h = mix(h, &st.st_nlink, sizeof st.st_nlink);
  DIR *d = opendir(dir);
  if (!d) return mix(h, "unreadable", 10);
  char *names[64];
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 64)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) names[n++] = strdup(e->d_name);
  closedir(d);
  /* readdir order is the file system's: sort */
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      char *t = names[j];
      names[j] = names[j - 1], names[j - 1] = t;
    }
  for (size_t i = 0; i < n; i++) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, names[i]);
    h = mix(h, names[i], strlen(names[i]) + 1);
    if (!lstat(p, &st)) {
      h = mix(h, &st.st_mode, sizeof st.st_mode);
      h = mix(h, &st.st_size, sizeof st.st_size);
      h = mix(h, &st.st_nlink, sizeof st.st_nlink);
      h = mix(h, &st.st_mtim, sizeof st.st_mtim);
      if (S_ISDIR(st.st_mode)) h = signature(p, h);
      char buf[4096];
      ssize_t k = S_ISLNK(st.st_mode) ? readlink(p, buf, sizeof buf) : 0;
      if (S_ISREG(st.st_mode)) {
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        k = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
        if (fd >= 0) close(fd);
      }
      if (k > 0) h = mix(h, buf, (size_t)k);
    }
    free(names[i]);
  }
  return h;
}

static uint64_t protected_state(void) {
  uint64_t h = signature(outside, 0xcbf29ce484222325ull);
  h = signature(ro, h);
  /* nothing new beside the three directories (in any order) */
  DIR *d = opendir(root);
  struct dirent *e;
  while (d && (e = readdir(d))) h += mix(0xcbf29ce484222325ull, e->d_name, strlen(e->d_name) + 1);
  if (d) closedir(d);
  return h;
}

static int open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  while (d && readdir(d)) n++;
  if (d) closedir(d);
  return n;
}

static void fresh_workspace(void) {
  wb_remove_tree(ws);
  char p[256];
  check(mkdir(ws, 0700) == 0, "cannot make the workspace");
  put(ws, "a.txt", "in the workspace\n");
  snprintf(p, sizeof p, "%s/dir", ws);
  check(mkdir(p, 0700) == 0, "cannot make dir");
  put(p, "b.txt", "nested\n");
  snprintf(p, sizeof p, "%s/link-out", ws);
  check(symlink("../outside", p) == 0, "symlink");
  snprintf(p, sizeof p, "%s/abs", ws);
  char target[160];
  snprintf(target, sizeof target, "%s/secret", outside);
  check(symlink(target, p) == 0, "symlink");
}

/* libFuzzer ends a -max_total_time run with exit(): the fixture goes with it */
static void remove_fixture(void) { wb_remove_tree(root); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  snprintf(root, sizeof root, "/tmp/wasmbox-fuzz-wasi-%d", (int)getpid());
  snprintf(ws, sizeof ws, "%s/ws", root);
  snprintf(ro, sizeof ro, "%s/ro", root);
  snprintf(outside, sizeof outside, "%s/outside", root);
  wb_remove_tree(root);
  atexit(remove_fixture);
  check(mkdir(root, 0700) == 0 && mkdir(ro, 0700) == 0 && mkdir(outside, 0700) == 0, "cannot make the fixture");
  put(outside, "secret", "the host's\n");
  put(ro, "data.csv", "a,b\n1,2\n");
  fresh_workspace();
  mounts[nmounts++] = (wb_mount){.guest_path = "/app", .host_dir = ws, .writable = true};
  mounts[nmounts++] = (wb_mount){.guest_path = "/data", .host_dir = ro};
  const wb_runtime *py = wb_runtime_find("python");
  char err[256];
  check(py && py->prepare(err, sizeof err), "cannot prepare the python runtime");
  size_t n;
  const wb_runtime_mount *m = py->mounts(&n);
  if (n) mounts[nmounts++] = (wb_mount){.guest_path = m[0].guest_path, .image = m[0].image};
  baseline = protected_state();
  return 0;
}

typedef struct {
  const uint8_t *p, *end;
} input;

static uint8_t get8(input *in) { return in->p < in->end ? *in->p++ : 0; }
static uint32_t get16(input *in) { return get8(in) | (uint32_t)get8(in) << 8; }

/* Most arguments are small (descriptors, lengths, addresses in 128 KiB):
 * two bytes; 0xfff0 and up escape to a full 32 or 64 bits. */
static uint32_t arg32(input *in) {
  uint32_t v = get16(in);
  return v < 0xfff0 ? v : get16(in) | get16(in) << 16;
}

static uint64_t arg64(input *in) {
  uint32_t v = get16(in);
  return v < 0xfff0 ? v : (uint64_t)arg32(in) << 32 | get16(in) | get16(in) << 16;
}

static void step(wb_wasi *w, uint8_t *mem, input *in) {
  uint8_t op = get8(in) % 44;
  uint32_t a = arg32(in), b = arg32(in), c = arg32(in), d = arg32(in), e = arg32(in), f = arg32(in);
  uint64_t x = arg64(in), y = arg64(in);
  switch (op) {
    case 0: { /* guest memory: a[0..len) = the next bytes */
      uint32_t len = get8(in);
      for (uint32_t i = 0; i < len && in->p < in->end; i++) mem[(a + i) % MEM_BYTES] = get8(in);
      break;
    }
    case 1: Z_wasi_snapshot_preview1Z_args_get(w, a, b); break;
    case 2: Z_wasi_snapshot_preview1Z_args_sizes_get(w, a, b); break;
    case 3: Z_wasi_snapshot_preview1Z_clock_res_get(w, a, b); break;
    case 4: Z_wasi_snapshot_preview1Z_clock_time_get(w, a, x, b); break;
    case 5: Z_wasi_snapshot_preview1Z_environ_get(w, a, b); break;
    case 6: Z_wasi_snapshot_preview1Z_environ_sizes_get(w, a, b); break;
    case 7: Z_wasi_snapshot_preview1Z_fd_advise(w, a, x, y, b); break;
    case 8: Z_wasi_snapshot_preview1Z_fd_allocate(w, a, x, y); break;
    case 9: Z_wasi_snapshot_preview1Z_fd_close(w, a); break;
    case 10: Z_wasi_snapshot_preview1Z_fd_datasync(w, a); break;
    case 11: Z_wasi_snapshot_preview1Z_fd_fdstat_get(w, a, b); break;
    case 12: Z_wasi_snapshot_preview1Z_fd_fdstat_set_flags(w, a, b); break;
    case 13: Z_wasi_snapshot_preview1Z_fd_fdstat_set_rights(w, a, x, y); break;
    case 14: Z_wasi_snapshot_preview1Z_fd_filestat_get(w, a, b); break;
    case 15: Z_wasi_snapshot_preview1Z_fd_filestat_set_size(w, a, x); break;
    case 16: Z_wasi_snapshot_preview1Z_fd_filestat_set_times(w, a, x, y, b); break;
    case 17: Z_wasi_snapshot_preview1Z_fd_pread(w, a, b, c, x, d); break;
    case 18: Z_wasi_snapshot_preview1Z_fd_prestat_dir_name(w, a, b, c); break;
    case 19: Z_wasi_snapshot_preview1Z_fd_prestat_get(w, a, b); break;
    case 20: Z_wasi_snapshot_preview1Z_fd_pwrite(w, a, b, c, x, d); break;
    case 21: Z_wasi_snapshot_preview1Z_fd_read(w, a, b, c, d); break;
    case 22: Z_wasi_snapshot_preview1Z_fd_readdir(w, a, b, c, x, d); break;
    case 23: Z_wasi_snapshot_preview1Z_fd_renumber(w, a, b); break;
    case 24: Z_wasi_snapshot_preview1Z_fd_seek(w, a, x, b, c); break;
    case 25: Z_wasi_snapshot_preview1Z_fd_sync(w, a); break;
    case 26: Z_wasi_snapshot_preview1Z_fd_tell(w, a, b); break;
    case 27: Z_wasi_snapshot_preview1Z_fd_write(w, a, b, c, d); break;
    case 28: Z_wasi_snapshot_preview1Z_path_create_directory(w, a, b, c); break;
    case 29: Z_wasi_snapshot_preview1Z_path_filestat_get(w, a, b, c, d, e); break;
    case 30: Z_wasi_snapshot_preview1Z_path_filestat_set_times(w, a, b, c, d, x, y, e); break;
    case 31: Z_wasi_snapshot_preview1Z_path_link(w, a, b, c, d, e, f, get16(in)); break;
    case 32: Z_wasi_snapshot_preview1Z_path_open(w, a, b, c, d, e, x, y, f, get16(in)); break;
    case 33: Z_wasi_snapshot_preview1Z_path_readlink(w, a, b, c, d, e, f); break;
    case 34: Z_wasi_snapshot_preview1Z_path_remove_directory(w, a, b, c); break;
    case 35: Z_wasi_snapshot_preview1Z_path_rename(w, a, b, c, d, e, f); break;
    case 36: Z_wasi_snapshot_preview1Z_path_symlink(w, a, b, c, d, e); break;
    case 37: Z_wasi_snapshot_preview1Z_path_unlink_file(w, a, b, c); break;
    case 38: Z_wasi_snapshot_preview1Z_poll_oneoff(w, a, b, c, d); break;
    case 39: Z_wasi_snapshot_preview1Z_random_get(w, a, b); break;
    case 40: Z_wasi_snapshot_preview1Z_sched_yield(w); break;
    case 41: Z_wasi_snapshot_preview1Z_sock_accept(w, a, b, c); break;
    case 42: Z_wasi_snapshot_preview1Z_sock_recv(w, a, b, c, d, e, f); break;
    default: Z_wasi_snapshot_preview1Z_sock_send(w, a, b, c, d, e); break;
  }
}

/* Where a guest would keep its strings and iovecs, so programs can start
 * from names that mean something. */
static void seed_memory(uint8_t *mem) {
  static const char *names[] = {"a.txt",       "dir/b.txt", "..",  "link-out/secret",          "abs",
                                "/etc/passwd", "dir",       "new", "dir/../../outside/secret", "data.csv",
                                "os.py"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) strcpy((char *)mem + 0x100 + 0x20 * i, names[i]);
  uint32_t iov[4] = {0x800, 64, 0x900, 16};
  memcpy(mem + 0x400, iov, sizeof iov);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0;
  static const char *args[] = {"prog", "x"}, *env[] = {"A=1", "PATH=/"};
  wb_wasi_config cfg = {.args = args,
                        .nargs = 2,
                        .env = env,
                        .nenv = 2,
                        .mounts = mounts,
                        .nmounts = nmounts,
                        .cwd = "/app",
                        .stdin_data = (const uint8_t *)"stdin bytes\n",
                        .stdin_len = 12,
                        .max_output = 256,
                        .max_fds = 32,
                        .fd_base = size ? data[0] : 0,
                        .quota = 1 << 20};
  char err[256];
  int fds = open_fds();
  wb_wasi *w = wb_wasi_new(&cfg, err, sizeof err);
  check(w != NULL, err);
  /* exactly the guest's memory, so a host read past it is ASan's to see */
  uint8_t *bytes = calloc(1, MEM_BYTES);
  wasm_rt_memory_t mem = {.data = bytes, .pages = MEM_PAGES, .max_pages = MEM_PAGES, .size = MEM_BYTES};
  seed_memory(bytes);
  wb_wasi_bind_memory(w, &mem);
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  wb_wasi_set_deadline(w, (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec + 20000000ull);
  input in = {data + (size ? 1 : 0), data + size};
  for (int i = 0; i < 64 && in.p < in.end; i++) step(w, bytes, &in);
  wb_wasi_changed_files(w, &(size_t){0});
  wb_wasi_free(w);
  free(bytes);
  check(open_fds() == fds, "a host descriptor outlived the WASI host");
  check(protected_state() == baseline, "a file outside /app changed");
  fresh_workspace();
  return 0;
}
