/* mkimage DIR OUT: pack the tree under DIR into a read-only image (format in
 * src/wasi/image.h). Only directories and regular files are accepted: a
 * symlink or special file is an error, so an image can never point outside
 * itself. Output is deterministic (sorted names, fixed times). The image
 * written is read back and checked node by node (wb_image_open), so that the
 * binary it is built into need only check its header. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wasi/image.h"

#define IMAGE_MTIME_NS 1704067200000000000ull /* 2024-01-01T00:00:00Z */

typedef struct {
  char *host_path;
  char *name;
  wb_image_node node;
} entry;

static entry *entries;
static uint32_t count, cap;

static void die(const char *what, const char *path) {
  fprintf(stderr, "mkimage: %s: %s\n", what, path);
  exit(1);
}

static uint32_t add(const char *host_path, const char *name, uint32_t parent, uint32_t kind) {
  if (count == cap) {
    cap = cap ? cap * 2 : 1024;
    entries = realloc(entries, cap * sizeof *entries);
    if (!entries) die("out of memory", host_path);
  }
  entry *e = &entries[count];
  memset(e, 0, sizeof *e);
  e->host_path = strdup(host_path);
  e->name = strdup(name);
  e->node.parent = parent;
  e->node.kind = kind;
  return count++;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Children of directory `dir` become consecutive entries (breadth first). */
static void list_dir(uint32_t dir) {
  DIR *d = opendir(entries[dir].host_path);
  if (!d) die(strerror(errno), entries[dir].host_path);
  char **names = NULL;
  size_t n = 0, ncap = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    if (n == ncap) {
      ncap = ncap ? ncap * 2 : 64;
      names = realloc(names, ncap * sizeof *names);
      if (!names) die("out of memory", entries[dir].host_path);
    }
    names[n++] = strdup(de->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, by_name);
  entries[dir].node.first_child = count;
  entries[dir].node.child_count = (uint32_t)n;
  for (size_t i = 0; i < n; i++) {
    char *path;
    if (asprintf(&path, "%s/%s", entries[dir].host_path, names[i]) < 0) die("out of memory", names[i]);
    struct stat st;
    if (lstat(path, &st) != 0) die(strerror(errno), path);
    uint32_t kind = S_ISDIR(st.st_mode) ? WB_NODE_DIR : S_ISREG(st.st_mode) ? WB_NODE_FILE : 0;
    if (!kind) die("not a regular file or directory", path);
    uint32_t idx = add(path, names[i], dir, kind);
    entries[idx].node.size = kind == WB_NODE_FILE ? (uint64_t)st.st_size : 0;
    free(path);
    free(names[i]);
  }
  free(names);
}

static void write_all(FILE *f, const void *p, size_t n, const char *out) {
  if (n && fwrite(p, 1, n, f) != n) die("write failed", out);
}

/* The image as written passes every check wb_image_open makes. */
static void check(const char *out) {
  FILE *f = fopen(out, "rb");
  struct stat st;
  if (!f || fstat(fileno(f), &st) != 0) die(strerror(errno), out);
  void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
  if (p == MAP_FAILED) die(strerror(errno), out);
  wb_image img;
  char err[200];
  if (!wb_image_open(&img, p, (size_t)st.st_size, err, sizeof err)) {
    unlink(out);
    die(err, out);
  }
  munmap(p, (size_t)st.st_size);
  fclose(f);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: mkimage DIR OUT\n");
    return 2;
  }
  add(argv[1], "", 0, WB_NODE_DIR);
  for (uint32_t i = 0; i < count; i++)
    if (entries[i].node.kind == WB_NODE_DIR) list_dir(i);

  uint64_t names_size = 0;
  for (uint32_t i = 0; i < count; i++) {
    entries[i].node.name_off = (uint32_t)names_size;
    entries[i].node.name_len = (uint32_t)strlen(entries[i].name);
    names_size += entries[i].node.name_len;
  }
  if (names_size > UINT32_MAX) die("too many names", argv[1]);
  uint64_t names_offset = sizeof(wb_image_header) + (uint64_t)count * sizeof(wb_image_node);
  uint64_t data = (names_offset + names_size + 4095) & ~4095ull;
  for (uint32_t i = 0; i < count; i++) {
    if (entries[i].node.kind != WB_NODE_FILE) continue;
    entries[i].node.data_off = data;
    data = (data + entries[i].node.size + 7) & ~7ull;
  }

  FILE *f = fopen(argv[2], "wb");
  if (!f) die(strerror(errno), argv[2]);
  wb_image_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, WB_IMAGE_MAGIC, 8);
  h.count = count;
  h.names_size = (uint32_t)names_size;
  h.names_offset = names_offset;
  h.mtime_ns = IMAGE_MTIME_NS;
  write_all(f, &h, sizeof h, argv[2]);
  for (uint32_t i = 0; i < count; i++) write_all(f, &entries[i].node, sizeof entries[i].node, argv[2]);
  for (uint32_t i = 0; i < count; i++) write_all(f, entries[i].name, entries[i].node.name_len, argv[2]);
  uint64_t pos = names_offset + names_size;
  static char buf[1 << 16];
  for (uint32_t i = 0; i < count; i++) {
    if (entries[i].node.kind != WB_NODE_FILE) continue;
    for (; pos < entries[i].node.data_off; pos++) fputc(0, f);
    FILE *in = fopen(entries[i].host_path, "rb");
    if (!in) die(strerror(errno), entries[i].host_path);
    uint64_t left = entries[i].node.size;
    while (left) {
      size_t n = fread(buf, 1, left < sizeof buf ? left : sizeof buf, in);
      if (n == 0) die("short read", entries[i].host_path);
      write_all(f, buf, n, argv[2]);
      left -= n;
      pos += n;
    }
    fclose(in);
  }
  for (; pos < data; pos++) fputc(0, f);
  if (fclose(f) != 0) die("write failed", argv[2]);
  check(argv[2]);
  return 0;
}
