/* Page log (see pagelog.h). */
#include "session/pagelog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "util/os.h"

#define MAGIC_PAGES 0x47504257u /* "WBPG": pages as they are */
#define MAGIC_XOR 0x58504257u   /* "WBPX": pages XOR what they were (read only) */
#define MAGIC_WORDS 0x57504257u /* "WBPW": the words that changed, XOR what they were */
#define MAGIC_SEAL 0x4c534257u  /* "WBSL": the end of a commit */
#define BATCH 1024              /* pages per record */
#define WORD_MAP 64u            /* a page's map of its 512 words, one bit each */

/* a record's bytes, uncompressed, at most */
#define RAW_MAX (BATCH * (WB_HOST_PAGE + WORD_MAP))
/* zstd levels, fast: a save sits on the call's critical path. */
#define LEVEL 1
#define LEVEL_WORDS (-1)

/* page ^ other, in one pass: a page's map of the 8-byte words that differ,
 * then those words' XOR, at `out`; their length, 0 if the pages are the
 * same. A typical session call changes 1-2 % of the words of the pages
 * it writes (bench/load.c's: 370 of 24 000): zstd took ~28 us to skip the
 * zeros of their whole XOR, and takes ~6 for the words. */
static size_t diff_words(uint8_t *restrict out, const uint8_t *restrict page, const uint8_t *restrict other) {
  uint64_t map[WORD_MAP / 8] = {0};
  uint8_t *w = out + WORD_MAP;
  for (size_t i = 0; i < WB_HOST_PAGE / 8; i += 8) { /* 64 bytes at a time: most are the same */
    uint64_t a[8], any = 0, p, o, bits = 0;
    for (size_t j = 0; j < 8; j++) {
      memcpy(&p, page + (i + j) * 8, 8), memcpy(&o, other + (i + j) * 8, 8);
      a[j] = p ^ o, any |= a[j];
    }
    if (!any) continue;
    for (size_t j = 0; j < 8; j++) { /* each word stored, kept if it changed: no branch to mispredict */
      uint64_t changed = a[j] != 0;
      memcpy(w, &a[j], 8);
      bits |= changed << j, w += 8 * changed;
    }
    map[i / 64] |= bits << (i % 64);
  }
  if (w == out + WORD_MAP) return 0;
  memcpy(out, map, WORD_MAP);
  return (size_t)(w - out);
}

/* The inverse, onto `page`, from `rec` (`avail` bytes left in the record);
 * the bytes it took, 0 if the record ends too soon. */
static size_t undiff_words(uint8_t *page, const uint8_t *rec, size_t avail) {
  uint64_t map[WORD_MAP / 8], x, v;
  size_t n = 0;
  if (avail < WORD_MAP) return 0;
  memcpy(map, rec, WORD_MAP);
  for (size_t j = 0; j < WORD_MAP / 8; j++) n += (size_t)__builtin_popcountll(map[j]);
  if (avail - WORD_MAP < 8 * n) return 0;
  const uint8_t *w = rec + WORD_MAP;
  for (size_t j = 0; j < WORD_MAP / 8; j++)
    for (uint64_t m = map[j]; m; m &= m - 1, w += 8) {
      uint8_t *at = page + 8 * (64 * j + (size_t)__builtin_ctzll(m));
      memcpy(&x, w, 8), memcpy(&v, at, 8);
      v ^= x;
      memcpy(at, &v, 8);
    }
  return WORD_MAP + 8 * n;
}

/* page ^= rec (an older log's whole-page XOR) */
static void xor_page(uint8_t *restrict page, const uint8_t *restrict rec) {
  uint64_t a, b;
  for (size_t i = 0; i < WB_HOST_PAGE; i += 8) {
    memcpy(&a, page + i, 8), memcpy(&b, rec + i, 8);
    a ^= b;
    memcpy(page + i, &a, 8);
  }
}

static bool write_record(int fd, uint64_t *at, ZSTD_CCtx *cctx, uint32_t magic, const uint8_t *raw, size_t len,
                         const uint32_t *pages, size_t k, uint8_t *comp, size_t cap, uint32_t *head) {
  size_t c = ZSTD_compress2(cctx, comp, cap, raw, len);
  if (ZSTD_isError(c)) return false;
  head[0] = magic;
  head[1] = (uint32_t)k;
  head[2] = (uint32_t)c;
  memcpy(head + 3, pages, k * sizeof(uint32_t));
  size_t hlen = (3 + k) * sizeof(uint32_t);
  bool ok = wb_pwrite_all(fd, head, hlen, *at) && wb_pwrite_all(fd, comp, c, *at + hlen);
  *at += hlen + c;
  return ok;
}

/* The compression context, kept by the thread for its next save (creating
 * one costs more than a small save) until it releases it. */
static _Thread_local ZSTD_CCtx *cctx;

void wb_pagelog_release(void) {
  ZSTD_freeCCtx(cctx);
  cctx = NULL;
}

bool wb_pagelog_append(int fd, uint64_t at, const uint8_t *mem, uint32_t *pages, size_t *n,
                       const wb_memory_image *prior, uint64_t *end, char *err, size_t errlen) {
  /* buffers for the pages of this save only (most saves are small: big
   * ones would be mapped and unmapped, and an unmap costs every CPU a TLB
   * flush) */
  size_t most = (*n < BATCH ? (*n ? *n : 1) : BATCH) * (WB_HOST_PAGE + WORD_MAP);
  size_t cap = ZSTD_compressBound(most);
  uint8_t *raw = malloc(most), *comp = malloc(cap), old[WB_HOST_PAGE];
  uint32_t head[3 + BATCH];
  bool ok = raw && comp;
  errno = 0;
  if (ok && !cctx) {
    cctx = ZSTD_createCCtx();
    ok = cctx && !ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1));
  }
  ok = ok && cctx && !ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, prior ? LEVEL_WORDS : LEVEL));
  uint32_t magic = prior ? MAGIC_WORDS : MAGIC_PAGES;
  /* pages[0..kept) recorded; the last `batched` of them in raw[0..used) */
  size_t kept = 0, batched = 0, used = 0;
  for (size_t i = 0; ok && i < *n; i++) {
    uint64_t addr = (uint64_t)pages[i] * WB_HOST_PAGE;
    if (prior) {
      const uint8_t *was = wb_image_at(prior, addr, WB_HOST_PAGE);
      if (!was) ok = wb_image_read(prior, addr, old, WB_HOST_PAGE), was = old;
      size_t len = ok ? diff_words(raw + used, mem + addr, was) : 0;
      if (!len) continue; /* written, but the same bytes */
      used += len;
    } else {
      memcpy(raw + used, mem + addr, WB_HOST_PAGE);
      used += WB_HOST_PAGE;
    }
    pages[kept++] = pages[i];
    if (++batched == BATCH) {
      ok = write_record(fd, &at, cctx, magic, raw, used, pages + kept - batched, batched, comp, cap, head);
      batched = used = 0;
    }
  }
  if (ok && batched)
    ok = write_record(fd, &at, cctx, magic, raw, used, pages + kept - batched, batched, comp, cap, head);
  if (!ok)
    snprintf(err, errlen, "cannot write the session's memory: %s", errno ? strerror(errno) : "compression failed");
  free(raw);
  free(comp);
  *n = kept;
  *end = at;
  return ok;
}

/* Room: zeros past the log's end. A commit that writes into blocks the
 * file already has leaves its size alone, so its flush writes the data and
 * not the inode too: on ext4, a flush of a few KB took 0.17 ms in place
 * against 0.26 ms past the end of the file. A commit of n bytes that leaves
 * less than n of room makes 8n more (64 KB to 4 MB), so one commit in
 * about eight pays for growing the file. A new log gets none: a session
 * called once keeps the disk use of one commit. */
#define ROOM_MIN (64u << 10)
#define ROOM_MAX (4u << 20)

bool wb_pagelog_room(int fd, uint64_t from, uint64_t end) {
  uint64_t n = end - from, size;
  if (from == 0 || !wb_fd_size(fd, &size) || size >= end + n) return true;
  uint64_t room = 8 * n < ROOM_MIN ? ROOM_MIN : 8 * n > ROOM_MAX ? ROOM_MAX : 8 * n;
  static const uint8_t zeros[64 << 10];
  for (uint64_t at = size > end ? size : end; at < end + room;) {
    size_t k = end + room - at < sizeof zeros ? (size_t)(end + room - at) : sizeof zeros;
    if (!wb_pwrite_all(fd, zeros, k, at)) return false;
    at += k;
  }
  return true;
}

bool wb_pagelog_is_room(int fd, uint64_t end, uint64_t size) {
  uint32_t word;
  return size > end && size - end >= sizeof word && wb_pread_all(fd, &word, sizeof word, end) && word == 0;
}

/* The checksum of records and seals: FNV-1a's step over 8-byte words, with
 * a shift that folds high bits down. It is there to catch a write torn or
 * lost by a crash, not a forger (HEAD's checksums are no stronger). */
static uint64_t sum_bytes(uint64_t h, const uint8_t *p, size_t n) {
  uint64_t w;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

#define SUM_SEED 0xcbf29ce484222325ull

/* the bytes [from, to) of the log, summed in chunks of the same size (a
 * multiple of 8) whoever sums them */
static bool sum_range(int fd, uint64_t from, uint64_t to, uint64_t *sum) {
  uint8_t chunk[16384];
  uint64_t h = SUM_SEED;
  for (uint64_t at = from; at < to;) {
    size_t k = to - at < sizeof chunk ? (size_t)(to - at) : sizeof chunk;
    if (!wb_pread_all(fd, chunk, k, at)) return false;
    h = sum_bytes(h, chunk, k);
    at += k;
  }
  *sum = h;
  return true;
}

/* a seal's own checksum: its magic, length, records' sum and payload */
static uint64_t seal_sum(const uint8_t *seal, uint32_t len) {
  return sum_bytes(sum_bytes(SUM_SEED, seal, 16), seal + WB_SEAL_HEADER, len);
}

bool wb_pagelog_seal(int fd, uint64_t from, uint64_t at, const void *payload, uint32_t len, uint64_t *end) {
  uint8_t seal[WB_SEAL_HEADER + WB_SEAL_MAX];
  if (len > WB_SEAL_MAX) return errno = EFBIG, false;
  uint32_t head[2] = {MAGIC_SEAL, len};
  uint64_t records, check;
  if (!sum_range(fd, from, at, &records)) return false;
  memcpy(seal, head, 8);
  memcpy(seal + 8, &records, 8);
  memcpy(seal + WB_SEAL_HEADER, payload, len);
  check = seal_sum(seal, len);
  memcpy(seal + 16, &check, 8);
  if (!wb_pwrite_all(fd, seal, WB_SEAL_HEADER + len, at)) return false;
  *end = at + WB_SEAL_HEADER + len;
  return true;
}

uint64_t wb_pagelog_follow(int fd, uint64_t from, uint64_t size, wb_seal_accept *accept, void *ctx) {
  uint64_t at = from, sealed = from;
  uint32_t head[3];
  uint8_t *seal = malloc(WB_SEAL_HEADER + WB_SEAL_MAX);
  while (seal && at < size && size - at >= 12 && wb_pread_all(fd, head, 12, at)) {
    if (head[0] == MAGIC_PAGES || head[0] == MAGIC_XOR || head[0] == MAGIC_WORDS) { /* summed when a seal comes */
      uint64_t len = (3 + (uint64_t)head[1]) * sizeof(uint32_t) + head[2];
      if (head[1] == 0 || head[1] > BATCH || size - at < len) break;
      at += len;
      continue;
    }
    uint32_t len = head[1];
    uint64_t records, check, mine;
    if (head[0] != MAGIC_SEAL || len > WB_SEAL_MAX || size - at < WB_SEAL_HEADER + len ||
        !wb_pread_all(fd, seal, WB_SEAL_HEADER + len, at))
      break;
    memcpy(&records, seal + 8, 8), memcpy(&check, seal + 16, 8);
    if (check != seal_sum(seal, len) || !sum_range(fd, sealed, at, &mine) || mine != records) break;
    at += WB_SEAL_HEADER + len;
    if (!accept(seal + WB_SEAL_HEADER, len, at, ctx)) break;
    sealed = at;
  }
  free(seal);
  return sealed;
}

bool wb_pagelog_apply(int fd, uint64_t length, uint8_t *mem, uint64_t mem_size, uint64_t *changed, uint64_t *records,
                      char *err, size_t errlen) {
  uint64_t at = 0;
  *records = 0;
  uint32_t head[3 + BATCH];
  size_t cap = ZSTD_compressBound(RAW_MAX);
  uint8_t *raw = malloc(RAW_MAX), *comp = malloc(cap);
  ZSTD_DCtx *dctx = ZSTD_createDCtx();
  bool ok = raw && comp && dctx;
  const char *why = "out of memory";
  while (ok && at < length) {
    bool whole = length - at >= 12 && wb_pread_all(fd, head, 12, at);
    if (whole && head[0] == MAGIC_SEAL && head[1] <= WB_SEAL_MAX && length - at >= WB_SEAL_HEADER + head[1]) {
      at += WB_SEAL_HEADER + head[1]; /* the state, which HEAD holds too */
      continue;
    }
    if (!whole || (head[0] != MAGIC_PAGES && head[0] != MAGIC_XOR && head[0] != MAGIC_WORDS) || head[1] == 0 ||
        head[1] > BATCH || head[2] > cap) {
      ok = false, why = "a damaged record";
      break;
    }
    uint32_t k = head[1], c = head[2];
    size_t hlen = (3 + (size_t)k) * sizeof(uint32_t);
    if (length - at < hlen + c || !wb_pread_all(fd, head + 3, k * sizeof(uint32_t), at + 12) ||
        !wb_pread_all(fd, comp, c, at + hlen)) {
      ok = false, why = "a truncated record";
      break;
    }
    bool words = head[0] == MAGIC_WORDS;
    size_t d = ZSTD_decompressDCtx(dctx, raw, RAW_MAX, comp, c);
    if (ZSTD_isError(d) || (words ? d > (size_t)k * (WB_HOST_PAGE + WORD_MAP) : d != (size_t)k * WB_HOST_PAGE)) {
      ok = false, why = "a record that does not decompress";
      break;
    }
    size_t used = 0; /* of raw[0..d) */
    for (uint32_t j = 0; ok && j < k; j++) {
      if ((uint64_t)head[3 + j] * WB_HOST_PAGE + WB_HOST_PAGE > mem_size) {
        ok = false, why = "a page beyond the memory";
        break;
      }
      uint8_t *page = mem + (size_t)head[3 + j] * WB_HOST_PAGE, *rec = raw + used;
      if (changed) changed[head[3 + j] / 64] |= 1ull << (head[3 + j] % 64);
      size_t took = words ? undiff_words(page, rec, d - used) : WB_HOST_PAGE;
      if (!took) ok = false, why = "a record that ends too soon";
      else if (head[0] == MAGIC_XOR) xor_page(page, rec);
      else if (head[0] == MAGIC_PAGES) memcpy(page, rec, WB_HOST_PAGE);
      used += took;
    }
    if (ok && used != d) ok = false, why = "a record longer than its pages";
    if (!ok) break;
    *records += k;
    at += hlen + c;
  }
  if (!ok) snprintf(err, errlen, "the session's memory log has %s", why);
  ZSTD_freeDCtx(dctx);
  free(raw);
  free(comp);
  return ok;
}
