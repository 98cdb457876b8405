/* libFuzzer: what a shared store's rows and a cache's `stored` marker hold
 * (session/rows.h), as another server, an old version or whoever can write
 * to the database leaves them. The input is two little-endian 16-bit
 * lengths, then a row's meta and its HEAD of those lengths, then the text
 * of a marker (the rest). Properties beyond "no crash, leak or UB":
 *   - a marker that parses formats and parses again to the same value;
 *   - a HEAD that parses is the header and its globals, byte for byte;
 *   - a meta that names a host path is always refused; a meta that is
 *     taken names only mounts of the server's named set, resolved to their
 *     directories, keeps its mounts' guest paths and its owner (the owner
 *     read from the row alone is the same), and goes back to the store and
 *     returns again to the same text;
 *   - every refusal says why.
 * With WB_FUZZ_SEEDS=DIR set, the harness writes its seeds there, made by
 * the real writers, and ends (tests/fuzz/make_seeds.py runs it so). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/rows.h"

/* the server's named mounts: two names for one directory, as an operator
 * may give them */
static const wasmbox_named_mount named[] = {
    {"external", "/srv/wasmbox/external"}, {"packages-0", "/srv/packages"}, {"data", "/srv/wasmbox/external"}};
#define NNAMED (sizeof named / sizeof *named)

static void check(int ok, const char *what) {
  if (ok) return;
  fprintf(stderr, "fuzz_store_rows: %s\n", what);
  abort();
}

static bool meta_of(const char *text, size_t len, wb_meta *m) {
  char *copy = malloc(len + 1);
  check(copy != NULL, "out of memory");
  memcpy(copy, text, len);
  copy[len] = 0;
  bool ok = wb_meta_parse(copy, m);
  free(copy);
  return ok;
}

static bool same_entry(const wb_entry *a, const wb_entry *b) {
  return a->kind == b->kind && a->ino == b->ino && a->size == b->size && a->mtime == b->mtime &&
         !memcmp(a->hash, b->hash, 32) && !strcmp(a->path, b->path);
}

static void marker_case(const char *text, size_t len) {
  wb_marker mk, again;
  if (!wb_marker_parse(text, len, &mk)) {
    check(mk.files.n == 0 && mk.files.v == NULL, "a refused marker left entries");
    return;
  }
  for (size_t i = 1; i < mk.files.n; i++)
    check(strcmp(mk.files.v[i - 1].path, mk.files.v[i].path) <= 0, "a marker's entries are not sorted");
  for (size_t i = 0; i < mk.files.n; i++) {
    check(wb_manifest_find(&mk.files, mk.files.v[i].path) != NULL, "an entry of a marker cannot be found");
    (void)wb_row_path_ok(mk.files.v[i].path);
  }
  char *out;
  size_t out_len;
  check(wb_marker_format(&mk, &out, &out_len), "a marker that parsed does not format");
  check(wb_marker_parse(out, out_len, &again), "a formatted marker does not parse");
  check(again.version == mk.version && again.gen == mk.gen && again.log_no == mk.log_no &&
            again.log_len == mk.log_len && again.ws_no == mk.ws_no && !strcmp(again.log_id, mk.log_id) &&
            again.files.n == mk.files.n,
        "a marker changed on its way through the file");
  for (size_t i = 0; i < mk.files.n; i++)
    check(same_entry(&mk.files.v[i], &again.files.v[i]), "a marker's entry changed on its way through the file");
  free(out);
  wb_marker_clear(&mk);
  wb_marker_clear(&again);
}

static void head_case(const uint8_t *p, size_t len) {
  wb_head h;
  uint8_t *globals = NULL;
  if (!wb_head_parse(p, len, &h, &globals)) return;
  check(len == sizeof h + h.globals_size && h.pages <= 65536, "a HEAD of the wrong size was taken");
  check(!memcmp(p, &h, sizeof h) && !memcmp(p + sizeof h, globals, h.globals_size), "a HEAD changed when parsed");
  free(globals);
}

static bool named_dir(const char *dir) {
  for (size_t k = 0; dir && k < NNAMED; k++)
    if (!strcmp(named[k].host_dir, dir)) return true;
  return false;
}

static void meta_case(const char *meta, size_t len) {
  char err[512] = "", owner[WASMBOX_OWNER_MAX];
  wb_meta in, got;
  bool parsed = meta_of(meta, len, &in), host_path = false;
  for (size_t i = 0; parsed && i < in.nmounts; i++) host_path |= in.mount_names[i] == NULL;
  wb_meta_owner((const uint8_t *)meta, len, owner);
  check(!strcmp(owner, parsed ? in.owner : ""), "the owner read alone is not the meta's");
  size_t local_len = 0;
  char *local = wb_meta_from_store(named, NNAMED, "s1", (const uint8_t *)meta, len, &local_len, err, sizeof err);
  check(local || err[0], "a meta was refused without a message");
  check(!local || (parsed && !host_path), "a meta with a host path, or a damaged one, was taken");
  if (local) {
    check(strlen(local) == local_len && meta_of(local, local_len, &got), "a resolved meta does not parse");
    check(got.nmounts == in.nmounts && !strcmp(got.owner, in.owner) && !strcmp(got.language, in.language),
          "a resolved meta lost its mounts, owner or language");
    for (size_t i = 0; i < got.nmounts; i++)
      check(!got.mount_names[i] && named_dir(got.mounts[i].host_dir) &&
                !strcmp(got.mounts[i].guest_path, in.mounts[i].guest_path),
            "a resolved meta mounts a directory outside the named set");
    /* back to the store (names) and here again: the same text */
    size_t store_len = 0, again_len = 0;
    char *store = wb_meta_to_store(named, NNAMED, local, local_len, &store_len, err, sizeof err);
    check(store != NULL, "a resolved meta cannot go back to the store");
    char *again =
        wb_meta_from_store(named, NNAMED, "s1", (const uint8_t *)store, store_len, &again_len, err, sizeof err);
    check(again && again_len == local_len && !memcmp(again, local, local_len), "a meta changed on its way round");
    free(store);
    free(again);
    wb_meta_clear(&got);
  }
  /* the same bytes as a cache's own meta (host paths) on the way to the store */
  size_t store_len = 0;
  err[0] = 0;
  char *store = wb_meta_to_store(named, NNAMED, meta, len, &store_len, err, sizeof err);
  check(store || err[0], "a cache's meta was refused without a message");
  if (store) {
    check(parsed && meta_of(store, store_len, &got), "a store's meta does not parse");
    for (size_t i = 0; i < got.nmounts; i++)
      check(got.mount_names[i] && !got.mounts[i].host_dir, "a host path went to the store");
    wb_meta_clear(&got);
  }
  free(store);
  free(local);
  if (parsed) wb_meta_clear(&in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4 || size > (1u << 20)) return 0;
  size_t meta_len = (size_t)(data[0] | data[1] << 8), head_len = (size_t)(data[2] | data[3] << 8);
  size_t rest = size - 4;
  if (meta_len > rest) meta_len = rest;
  if (head_len > rest - meta_len) head_len = rest - meta_len;
  /* each part an exact-size copy, so that ASan sees any overread */
  char *meta = malloc(meta_len ? meta_len : 1), *marker = malloc(rest - meta_len - head_len + 1);
  uint8_t *head = malloc(head_len ? head_len : 1);
  check(meta && head && marker, "out of memory");
  memcpy(meta, data + 4, meta_len);
  memcpy(head, data + 4 + meta_len, head_len);
  memcpy(marker, data + 4 + meta_len + head_len, rest - meta_len - head_len);
  meta_case(meta, meta_len);
  head_case(head, head_len);
  marker_case(marker, rest - meta_len - head_len);
  free(meta);
  free(head);
  free(marker);
  return 0;
}

/* ---- seeds, by the real writers ------------------------------------------------------ */

static void seed(const char *dir, int i, const char *meta, size_t meta_len, const void *head, size_t head_len,
                 const char *marker, size_t marker_len) {
  char path[4200];
  snprintf(path, sizeof path, "%s/seed-%02d", dir, i);
  FILE *f = fopen(path, "wb");
  check(f != NULL, "cannot write a seed");
  uint8_t lens[4] = {(uint8_t)meta_len, (uint8_t)(meta_len >> 8), (uint8_t)head_len, (uint8_t)(head_len >> 8)};
  fwrite(lens, 1, 4, f);
  fwrite(meta, 1, meta_len, f);
  fwrite(head, 1, head_len, f);
  fwrite(marker, 1, marker_len, f);
  check(fclose(f) == 0, "cannot write a seed");
}

/* A cache's meta (wb_meta_format) as the store keeps it (wb_meta_to_store). */
static char *store_meta(const char *owner, size_t nmounts, size_t *len) {
  wb_meta m = {.language = "python", .created = 1750000000.25, .ttl = 3600, .nenv = 1, .nmounts = nmounts};
  snprintf(m.owner, sizeof m.owner, "%s", owner);
  m.env[0] = strdup("GREETING=hi there");
  static const char *const guest[] = {"/external", "/packages/0", "/data"};
  for (size_t i = 0; i < nmounts; i++)
    m.mounts[i] = (wasmbox_mount){strdup(named[i % NNAMED].host_dir), strdup(guest[i % 3])};
  char *local, err[256], *out;
  size_t local_len;
  check(wb_meta_format(&m, &local, &local_len), "format");
  check((out = wb_meta_to_store(named, NNAMED, local, local_len, len, err, sizeof err)) != NULL, err);
  free(local);
  wb_meta_clear(&m);
  return out;
}

static void write_seeds(const char *dir) {
  uint8_t head[sizeof(wb_head) + 24];
  wb_head h = {.magic = WB_HEAD_MAGIC,
               .gen = 3,
               .log_no = 2,
               .log_len = 8192,
               .records = 2,
               .ws_no = 1,
               .pages = 300,
               .globals_size = 24,
               .last_used = 1750000100.5,
               .build_id = "python-0123abcd"};
  memcpy(head, &h, sizeof h);
  memset(head + sizeof h, 0x5a, 24);
  wb_head bare = h; /* no globals */
  bare.globals_size = 0;
  wb_marker mk = {
      .version = 7, .gen = 3, .log_no = 2, .log_len = 8192, .ws_no = 1, .log_id = "l0123456789abcdef01234567"};
  static const char *const paths[] = {"f.txt", "sub", "sub/deep file", "link"};
  static const char kinds[] = "fdfl";
  for (int i = 0; i < 4; i++) {
    wb_entry *e = wb_manifest_add(&mk.files, paths[i]);
    check(e != NULL, "out of memory");
    e->kind = kinds[i], e->ino = 1000 + (uint64_t)i, e->size = 5 * (uint64_t)i, e->mtime = 1750000000123456789u;
    memset(e->hash, 0x11 * (i + 1), 32);
  }
  wb_manifest_sort(&mk.files);
  char *marker, *empty_marker;
  size_t marker_len, empty_len;
  check(wb_marker_format(&mk, &marker, &marker_len), "format");
  wb_manifest files = mk.files;
  mk.files = (wb_manifest){0};
  check(wb_marker_format(&mk, &empty_marker, &empty_len), "format");
  mk.files = files;
  size_t l0, l1, l2;
  char *m0 = store_meta("", 0, &l0), *m1 = store_meta("alice", 1, &l1), *m2 = store_meta("oauth:bob", 3, &l2);
  seed(dir, 0, m0, l0, head, sizeof head, marker, marker_len);
  seed(dir, 1, m1, l1, &bare, sizeof bare, empty_marker, empty_len);
  seed(dir, 2, m2, l2, head, sizeof head, marker, marker_len);
  /* a cache's meta (a host path) where the store's belongs */
  static const char host[] = "language python\ncreated 1.0\nttl 60.000\nmount 2f746d70 2f78\n";
  seed(dir, 3, host, sizeof host - 1, head, sizeof head, empty_marker, empty_len);
  free(marker);
  free(empty_marker);
  free(m0), free(m1), free(m2);
  wb_marker_clear(&mk);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *dir = getenv("WB_FUZZ_SEEDS");
  if (dir) {
    write_seeds(dir);
    exit(0);
  }
  return 0;
}
