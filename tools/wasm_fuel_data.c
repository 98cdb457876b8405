/* --merge-data GAP: fewer data segments for wasm2c (wasm_fuel.h).
 *
 * wasm-opt's memory packing splits a module's data at runs of zeros
 * (python.wasm: 31,392 segments), and wasm2c 1.0.32 copies its set of
 * global names, each segment's among them, once per function it writes:
 * python.wasm took 159 s to translate, 35 s with its segments merged.
 *
 * Active segments of memory 0 at i32.const offsets, in increasing order and
 * not overlapping, whose gap to the next is at most GAP bytes, become one
 * segment with zeros in the gaps. A fresh instance's memory is zero where
 * no segment writes, so it starts with the same bytes. The section is left
 * as it is when the code names segments (memory.init, data.drop: their
 * indices would move) or any segment is passive, of another memory, at a
 * global's offset, or out of order. After a merge the "name" section's
 * data segment names (subsection 9) would name segments that are gone:
 * they are left out. */
#include <stdlib.h>
#include <string.h>

#include "wasm_fuel.h"

typedef struct {
  uint32_t offset;
  const uint8_t *bytes;
  uint32_t size;
} segment;

/* the bytes between segment i - 1 and segment i */
static uint32_t gap_before(const segment *s, uint32_t i) {
  return (uint32_t)(s[i].offset - ((uint64_t)s[i - 1].offset + s[i - 1].size));
}

/* The segments of a data section, or NULL when one is not a plain active
 * segment of memory 0 at a constant offset, or they are out of order or
 * overlap. */
static segment *read_segments(const uint8_t *body, size_t size, uint32_t *count) {
  wf_reader r = {body, body + size, "data section"};
  uint32_t n = wf_u32(&r);
  if (n > size) wf_fail(body, "%u data segments in %zu bytes", n, size);
  segment *s = calloc(n ? n : 1, sizeof *s);
  if (!s) wf_fail(NULL, "out of memory");
  for (uint32_t i = 0; i < n; i++) {
    if (wf_u32(&r) != 0 || wf_byte(&r) != 0x41) { /* flags 0: active, memory 0; i32.const */
      free(s);
      return NULL;
    }
    s[i].offset = (uint32_t)wf_sleb(&r, 32);
    if (wf_byte(&r) != 0x0b) {
      free(s);
      return NULL;
    }
    s[i].size = wf_u32(&r);
    s[i].bytes = r.p;
    wf_skip(&r, s[i].size);
    bool ordered = i == 0 || (uint64_t)s[i - 1].offset + s[i - 1].size <= s[i].offset;
    if (!ordered || (uint64_t)s[i].offset + s[i].size > UINT32_MAX + 1ull) {
      free(s);
      return NULL;
    }
  }
  if (r.p != r.end) wf_fail(r.p, "data section: bytes after its last segment");
  *count = n;
  return s;
}

bool wf_data_merge(const uint8_t *body, size_t size, uint32_t gap, wf_buf *out, uint32_t *before, uint32_t *after) {
  uint32_t n;
  segment *s = read_segments(body, size, &n);
  if (!s) return false;
  uint32_t runs = 0;
  for (uint32_t i = 0; i < n; i++)
    if (i == 0 || gap_before(s, i) > gap) runs++;
  wf_put_u32(out, runs);
  static const uint8_t zeros[WF_MERGE_GAP_MAX];
  for (uint32_t i = 0; i < n;) {
    uint32_t j = i + 1;
    while (j < n && gap_before(s, j) <= gap) j++;
    uint64_t start = s[i].offset, end = (uint64_t)s[j - 1].offset + s[j - 1].size;
    wf_put_u32(out, 0);
    wf_put_byte(out, 0x41);
    wf_put_s64(out, (int32_t)start);
    wf_put_byte(out, 0x0b);
    if (end - start > UINT32_MAX) wf_fail(NULL, "a merged data segment of 4 GiB");
    wf_put_u32(out, (uint32_t)(end - start));
    for (uint32_t k = i; k < j; k++) {
      if (k > i) wf_put(out, zeros, gap_before(s, k));
      wf_put(out, s[k].bytes, s[k].size);
    }
    i = j;
  }
  *before = n;
  *after = runs;
  free(s);
  return true;
}

bool wf_names_without_data(const uint8_t *body, size_t size, wf_buf *out) {
  wf_reader r = {body, body + size, "custom section"};
  uint32_t len = wf_u32(&r);
  const uint8_t *name = r.p;
  wf_skip(&r, len);
  if (len != 4 || memcmp(name, "name", 4) != 0) return false;
  r.what = "name section";
  out->len = 0; /* (a second "name" section, against the spec, gets its own copy) */
  wf_put(out, body, (size_t)(r.p - body));
  while (r.p < r.end) {
    const uint8_t *start = r.p;
    uint8_t id = wf_byte(&r);
    wf_skip(&r, wf_u32(&r));
    if (id != 9) wf_put(out, start, (size_t)(r.p - start));
  }
  return true;
}
