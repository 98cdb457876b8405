/* wasm_fuel [-v] [--counter-only] [--initial N] [--split N] [--cache none|callfree|loops]
 *           [--merge-data GAP] IN.wasm OUT.wasm
 *
 * Adds deterministic fuel metering to a WebAssembly module, before wasm2c.
 *
 * The output module has one more global, a mutable i64 exported as
 * "wasmbox_fuel" (appended, so no existing global index moves; initial value
 * INT64_MAX unless --initial), and its code charges that counter at charge
 * points: `counter -= cost; if (counter < 0) unreachable`. The host sets the
 * counter before a call and reads it after; a trap with a negative counter
 * is "out of fuel". No import is added, so no function index moves, and the
 * inserted `if` closes at once, so no branch depth changes either.
 *
 * Cost model (static: the same path through the code always costs the same,
 * and what is charged is never less than what runs):
 *   - every instruction costs 1, except block, loop, end, else and nop
 *     (structure, no work of their own);
 *   - charge points are the entry of every function and the header of every
 *     loop, plus the start of an if arm and the point after a block's end
 *     (where branches of a switch land) when the code from there to the next
 *     charge point may cost --split (default 128; 0: never) or more;
 *   - a charge point pays, before it runs, the most the code from it to the
 *     next charge point can cost: its longest path. So an iteration that
 *     takes a short arm of a long `if` pays for the longer arm too, but an
 *     arm or switch case of --split or more pays for itself, where it starts:
 *     the error is bounded by --split per branch taken;
 *   - a function with no loop that the host never calls (not exported, not
 *     the start function), that is on no cycle of such functions, and whose
 *     longest path costs at most 200 is "folded": it has no charge of its
 *     own; a direct call to it costs its longest path at the caller's charge
 *     point, and if it is in a table, every call_indirect of its signature
 *     costs the longest path of the costliest such function. That saves a
 *     charge on every call of the small functions that make up most calls;
 *     every loop and every cycle of calls still passes a charge point, so
 *     nothing runs unbounded without paying;
 *   - memory.copy, memory.fill, memory.init and the table bulk operations
 *     pay 1 more per 16 units of their length operand, just before they run;
 *   - host functions (imports) cost only their call instruction.
 *
 *   - exceptions (the legacy proposal: try, catch, catch_all, throw,
 *     rethrow, delegate): the start of every handler is a charge point, as
 *     it is entered from wherever its exception was thrown, in this
 *     function or in one it called; a throw ends a path as a return does.
 *     A loop around a try or a throw counts as one that calls (--cache),
 *     and a function with either is never "pure".
 *
 * --counter-only adds the counter and export but no charges: the unmetered
 * baseline `make bench` compares against. --merge-data GAP (at most 256)
 * also merges data segments at most GAP bytes apart, for wasm2c's sake
 * (wasm_fuel_data.c). Every opcode is decoded (MVP,
 * sign extension, saturating truncation, bulk memory, reference types,
 * multi-value block types, legacy exception handling); anything else (SIMD,
 * threads, exnref exceptions, tail calls, memory64, multi-memory) is
 * refused with an error, never passed through unexamined. Exit status 0, 1 with a message on stderr, 2 for bad
 * usage. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasm_fuel.h"

static const char *in_path = "";
static const uint8_t *module_start;

_Noreturn void wf_fail(const uint8_t *at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "wasm_fuel: %s", in_path);
  if (at && module_start) fprintf(stderr, " (offset 0x%zx)", (size_t)(at - module_start));
  fputs(": ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

/* ---- reading ------------------------------------------------------------- */

uint8_t wf_byte(wf_reader *r) {
  if (r->p >= r->end) wf_fail(r->p, "unexpected end of %s", r->what);
  return *r->p++;
}

void wf_skip(wf_reader *r, size_t n) {
  if ((size_t)(r->end - r->p) < n) wf_fail(r->p, "unexpected end of %s", r->what);
  r->p += n;
}

uint32_t wf_u32(wf_reader *r) {
  uint32_t v = 0;
  for (int shift = 0;; shift += 7) {
    uint8_t b = wf_byte(r);
    if (shift == 28 && (b & 0x70)) wf_fail(r->p - 1, "u32 out of range in %s", r->what);
    v |= (uint32_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
    if (shift == 28) wf_fail(r->p - 1, "u32 too long in %s", r->what);
  }
}

int64_t wf_sleb(wf_reader *r, int bits) {
  uint64_t v = 0;
  int shift = 0, max = (bits + 6) / 7;
  for (int i = 0;; i++) {
    if (i == max) wf_fail(r->p, "s%d too long in %s", bits, r->what);
    uint8_t b = wf_byte(r);
    v |= (uint64_t)(b & 0x7f) << shift;
    shift += 7;
    if (!(b & 0x80)) {
      if (shift < 64 && (b & 0x40)) v |= ~0ull << shift;
      return (int64_t)v;
    }
  }
}

/* ---- writing -------------------------------------------------------------- */

void wf_put(wf_buf *b, const void *data, size_t n) {
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n) cap *= 2;
    uint8_t *d = realloc(b->data, cap);
    if (!d) wf_fail(NULL, "out of memory");
    b->data = d;
    b->cap = cap;
  }
  if (n) memcpy(b->data + b->len, data, n);
  b->len += n;
}

void wf_put_byte(wf_buf *b, uint8_t v) { wf_put(b, &v, 1); }

void wf_put_u32(wf_buf *b, uint32_t v) {
  do {
    uint8_t c = v & 0x7f;
    v >>= 7;
    wf_put_byte(b, c | (v ? 0x80 : 0));
  } while (v);
}

void wf_put_s64(wf_buf *b, int64_t v) {
  for (;;) {
    uint8_t c = v & 0x7f;
    v >>= 7; /* arithmetic: C11 leaves it implementation-defined, gcc and clang shift in the sign */
    bool done = (v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40));
    wf_put_byte(b, c | (done ? 0 : 0x80));
    if (done) return;
  }
}

/* ---- sections ------------------------------------------------------------- */

enum { SEC_CUSTOM, SEC_TYPE, SEC_IMPORT, SEC_FUNCTION, SEC_TABLE, SEC_MEMORY, SEC_GLOBAL, SEC_EXPORT,
       SEC_START, SEC_ELEMENT, SEC_CODE, SEC_DATA, SEC_DATACOUNT, SEC_TAG };

/* Position of each known section in the required order (custom: none). */
static int section_rank(uint8_t id) {
  static const int rank[] = {[SEC_TYPE] = 1, [SEC_IMPORT] = 2, [SEC_FUNCTION] = 3, [SEC_TABLE] = 4,
                             [SEC_MEMORY] = 5, [SEC_TAG] = 6, [SEC_GLOBAL] = 7, [SEC_EXPORT] = 8,
                             [SEC_START] = 9, [SEC_ELEMENT] = 10, [SEC_DATACOUNT] = 11, [SEC_CODE] = 12,
                             [SEC_DATA] = 13};
  return id < sizeof rank / sizeof rank[0] ? rank[id] : 0;
}

typedef struct {
  uint8_t id;
  const uint8_t *body; /* contents, without id and size */
  size_t size;
} section;

#define MAX_SECTIONS 64

static void limits(wf_reader *r) {
  uint8_t flags = wf_byte(r);
  if (flags > 1) wf_fail(r->p - 1, "shared or 64-bit limits are not supported (flags 0x%02x)", flags);
  wf_u32(r);
  if (flags & 1) wf_u32(r);
}

static void ref_type(wf_reader *r) {
  uint8_t t = wf_byte(r);
  if (t != 0x70 && t != 0x6f) wf_fail(r->p - 1, "unknown reference type 0x%02x", t);
}

/* Function `index` may be called by call_indirect. */
static void mark_referenced(wf_module *m, uint32_t index, const uint8_t *at) {
  wf_func *f = wf_defined(m, index, at);
  if (f) f->referenced = true;
}

/* A constant expression (global initialisers, segment offsets, element
 * items); functions it names with ref.func are marked as referenced. */
static void const_expr(wf_reader *r, wf_module *m) {
  for (;;) {
    uint8_t op = wf_byte(r);
    switch (op) {
      case 0x0b: return;
      case 0x41: wf_sleb(r, 32); break;
      case 0x42: wf_sleb(r, 64); break;
      case 0x43: wf_skip(r, 4); break;
      case 0x44: wf_skip(r, 8); break;
      case 0x23: wf_u32(r); break;
      case 0xd0: ref_type(r); break;
      case 0xd2: mark_referenced(m, wf_u32(r), r->p); break;
      default: wf_fail(r->p - 1, "unsupported instruction 0x%02x in a constant expression", op);
    }
  }
}

/* A tag's attribute (0: an exception) and its function type. */
static void tag_type(wf_reader *r, const wf_module *m) {
  if (wf_byte(r) != 0) wf_fail(r->p - 1, "unknown tag attribute");
  if (wf_u32(r) >= m->ntypes) wf_fail(r->p - 1, "tag type out of range");
}

static void parse_tags(wf_reader *r, wf_module *m) {
  uint32_t n = wf_u32(r);
  for (uint32_t i = 0; i < n; i++) tag_type(r, m);
  if (n > UINT32_MAX - m->tags) wf_fail(r->p, "too many tags");
  m->tags += n;
}

static void parse_imports(wf_reader *r, wf_module *m) {
  for (uint32_t n = wf_u32(r); n; n--) {
    wf_skip(r, wf_u32(r)); /* module */
    wf_skip(r, wf_u32(r)); /* field */
    uint8_t kind = wf_byte(r);
    switch (kind) {
      case 0: wf_u32(r); m->imported_funcs++; break;
      case 1: ref_type(r); limits(r); m->tables_shared = true; break;
      case 2: limits(r); break;
      case 3: wf_value_type(r); wf_byte(r); m->imported_globals++; break;
      case 4: tag_type(r, m); m->tags++; break;
      default: wf_fail(r->p - 1, "unsupported import kind %u", kind);
    }
  }
}

/* Function types; call_indirect compares signatures, not indices, so equal
 * types share a signature number. */
static void parse_types(wf_reader *r, wf_module *m) {
  m->ntypes = wf_u32(r);
  m->type_params = calloc(m->ntypes ? m->ntypes : 1, sizeof *m->type_params);
  m->type_sig = calloc(m->ntypes ? m->ntypes : 1, sizeof *m->type_sig);
  const uint8_t **text = calloc(m->ntypes ? m->ntypes : 1, sizeof *text);
  size_t *len = calloc(m->ntypes ? m->ntypes : 1, sizeof *len);
  if (!m->type_params || !m->type_sig || !text || !len) wf_fail(NULL, "out of memory");
  for (uint32_t i = 0; i < m->ntypes; i++) {
    text[i] = r->p;
    if (wf_byte(r) != 0x60) wf_fail(r->p - 1, "unsupported type (not a function type)");
    m->type_params[i] = wf_u32(r);
    for (uint32_t k = 0; k < m->type_params[i]; k++) wf_value_type(r);
    for (uint32_t k = wf_u32(r); k; k--) wf_value_type(r);
    len[i] = (size_t)(r->p - text[i]);
    m->type_sig[i] = m->nsigs;
    for (uint32_t k = 0; k < i; k++) {
      if (len[k] == len[i] && !memcmp(text[k], text[i], len[i])) {
        m->type_sig[i] = m->type_sig[k];
        break;
      }
    }
    if (m->type_sig[i] == m->nsigs) m->nsigs++;
  }
  free(text);
  free(len);
}

static void parse_functions(wf_reader *r, wf_module *m) {
  wf_u32(r);
  for (uint32_t i = 0; i < m->declared; i++) {
    m->funcs[i].type = wf_u32(r);
    if (m->funcs[i].type >= m->ntypes) wf_fail(r->p, "function type out of range");
  }
}

static void parse_globals(wf_reader *r, wf_module *m) {
  m->globals = wf_u32(r);
  for (uint32_t i = 0; i < m->globals; i++) {
    wf_value_type(r);
    wf_byte(r);
    const_expr(r, m);
  }
}

static void parse_exports(wf_reader *r, wf_module *m) {
  for (uint32_t n = wf_u32(r); n; n--) {
    uint32_t len = wf_u32(r);
    const uint8_t *name = r->p;
    wf_skip(r, len);
    if (len == strlen(WF_EXPORT) && !memcmp(name, WF_EXPORT, len))
      wf_fail(name, "the module already exports \"%s\"", WF_EXPORT);
    uint8_t kind = wf_byte(r);
    uint32_t idx = wf_u32(r);
    if (kind == 0) {
      wf_func *f = wf_defined(m, idx, r->p);
      if (f) f->entered = true;
    }
    if (kind == 1) m->tables_shared = true;
  }
}

static void parse_elements(wf_reader *r, wf_module *m) {
  for (uint32_t n = wf_u32(r); n; n--) {
    uint32_t flags = wf_u32(r);
    if (flags > 7) wf_fail(r->p, "unknown element segment kind %u", flags);
    if (flags == 2 || flags == 6) wf_u32(r);         /* table index */
    if (!(flags & 1)) const_expr(r, m);              /* offset of an active segment */
    if (flags & 4) {
      if (flags != 4) ref_type(r);
      for (uint32_t k = wf_u32(r); k; k--) const_expr(r, m);
    } else {
      if (flags != 0 && wf_byte(r) != 0) wf_fail(r->p - 1, "unknown element kind");
      for (uint32_t k = wf_u32(r); k; k--) mark_referenced(m, wf_u32(r), r->p);
    }
  }
}

static void expect_end(const wf_reader *r, const char *what) {
  if (r->p != r->end) wf_fail(r->p, "%s section has trailing bytes", what);
}

static void put_section(wf_buf *out, uint8_t id, const uint8_t *body, size_t size) {
  if (size > UINT32_MAX) wf_fail(NULL, "section too large");
  wf_put_byte(out, id);
  wf_put_u32(out, (uint32_t)size);
  wf_put(out, body, size);
}

/* The global section with the counter appended (or a new one). */
static void put_globals(wf_buf *out, const section *old, const wf_module *m, int64_t initial) {
  wf_buf b = {0};
  wf_put_u32(&b, m->globals + 1);
  if (old) {
    wf_reader r = {old->body, old->body + old->size, "global section"};
    wf_u32(&r);
    wf_put(&b, r.p, (size_t)(r.end - r.p));
  }
  const uint8_t head[] = {0x7e, 0x01, 0x42}; /* i64, mutable, i64.const */
  wf_put(&b, head, sizeof head);
  wf_put_s64(&b, initial);
  wf_put_byte(&b, 0x0b);
  put_section(out, SEC_GLOBAL, b.data, b.len);
  free(b.data);
}

static void put_exports(wf_buf *out, const section *old, uint32_t fuel_global) {
  wf_buf b = {0};
  uint32_t n = 0;
  wf_reader r = {NULL, NULL, "export section"};
  if (old) {
    r = (wf_reader){old->body, old->body + old->size, "export section"};
    n = wf_u32(&r);
  }
  wf_put_u32(&b, n + 1);
  if (old) wf_put(&b, r.p, (size_t)(r.end - r.p));
  wf_put_u32(&b, (uint32_t)strlen(WF_EXPORT));
  wf_put(&b, WF_EXPORT, strlen(WF_EXPORT));
  wf_put_byte(&b, 0x03); /* global */
  wf_put_u32(&b, fuel_global);
  put_section(out, SEC_EXPORT, b.data, b.len);
  free(b.data);
}

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) wf_fail(NULL, "cannot open: %s", strerror(errno));
  wf_buf b = {0};
  uint8_t chunk[1 << 16];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) wf_put(&b, chunk, n);
  bool bad = ferror(f);
  fclose(f);
  if (bad) wf_fail(NULL, "cannot read: %s", strerror(errno));
  *len = b.len;
  return b.data;
}

static void usage(void) {
  fputs("usage: wasm_fuel [-v] [--counter-only] [--initial N] [--split N] [--cache none|callfree|loops] "
        "[--merge-data GAP] IN.wasm OUT.wasm\n",
        stderr);
  exit(2);
}

int main(int argc, char **argv) {
  bool verbose = false, counter_only = false;
  int64_t initial = INT64_MAX, split = WF_SPLIT, merge_gap = -1; /* -1: no merge */
  int cache = WF_CACHE_CALLFREE;
  const char *paths[2];
  int npaths = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-v")) {
      verbose = true;
    } else if (!strcmp(argv[i], "--cache") && i + 1 < argc) {
      const char *v = argv[++i];
      if (!strcmp(v, "none")) cache = WF_CACHE_NONE;
      else if (!strcmp(v, "callfree")) cache = WF_CACHE_CALLFREE;
      else if (!strcmp(v, "loops")) cache = WF_CACHE_LOOPS;
      else usage();
    } else if (!strcmp(argv[i], "--counter-only")) {
      counter_only = true;
    } else if ((!strcmp(argv[i], "--initial") || !strcmp(argv[i], "--split") || !strcmp(argv[i], "--merge-data")) &&
               i + 1 < argc) {
      char *end;
      errno = 0;
      long long v = strtoll(argv[i + 1], &end, 10);
      if (errno || *end || end == argv[i + 1]) usage();
      if (!strcmp(argv[i], "--merge-data")) {
        if (v < 0 || v > WF_MERGE_GAP_MAX) usage();
        merge_gap = v;
        i++;
        continue;
      }
      if (!strcmp(argv[i], "--split") && v < 0) usage();
      if (!strcmp(argv[i], "--split") && v == 0) v = INT64_MAX; /* never */
      *(!strcmp(argv[i], "--split") ? &split : &initial) = v;
      i++;
    } else if (argv[i][0] == '-' || npaths == 2) {
      usage();
    } else {
      paths[npaths++] = argv[i];
    }
  }
  if (npaths != 2) usage();
  in_path = paths[0];

  size_t len;
  uint8_t *data = read_file(in_path, &len);
  module_start = data;
  static const uint8_t magic[] = {0, 'a', 's', 'm', 1, 0, 0, 0};
  if (len < 8 || memcmp(data, magic, 8)) wf_fail(data, "not a WebAssembly 1.0 binary module");

  /* Split into sections and read what the rewrite needs. */
  section secs[MAX_SECTIONS];
  size_t nsecs = 0;
  wf_module m = {.split = split, .cache = cache};
  const section *globals = NULL, *exports = NULL, *code = NULL, *data_sec = NULL;
  uint32_t declared_funcs = 0;
  int last_rank = 0;
  wf_reader r = {data + 8, data + len, "module"};
  while (r.p < r.end) {
    if (nsecs == MAX_SECTIONS) wf_fail(r.p, "more than %d sections", MAX_SECTIONS);
    section *s = &secs[nsecs++];
    s->id = wf_byte(&r);
    s->size = wf_u32(&r);
    s->body = r.p;
    wf_skip(&r, s->size);
    int rank = section_rank(s->id);
    if (s->id != SEC_CUSTOM && rank == 0) wf_fail(s->body, "unknown section id %u", s->id);
    if (rank && rank <= last_rank) wf_fail(s->body, "section %u out of order or repeated", s->id);
    if (rank) last_rank = rank;
  }
  /* Imports and function counts first: the other sections name functions. */
  for (size_t i = 0; i < nsecs; i++) {
    wf_reader sr = {secs[i].body, secs[i].body + secs[i].size, "section"};
    if (secs[i].id == SEC_TYPE) {
      sr.what = "type section";
      parse_types(&sr, &m);
      expect_end(&sr, "type");
    } else if (secs[i].id == SEC_IMPORT) {
      sr.what = "import section";
      parse_imports(&sr, &m);
      expect_end(&sr, "import");
    } else if (secs[i].id == SEC_FUNCTION) {
      declared_funcs = wf_u32(&sr);
    }
  }
  wf_module_init(&m, declared_funcs);
  m.sig_cost = calloc(m.nsigs ? m.nsigs : 1, sizeof *m.sig_cost);
  if (!m.sig_cost) wf_fail(NULL, "out of memory");
  for (size_t i = 0; i < nsecs; i++) {
    section *s = &secs[i];
    wf_reader sr = {s->body, s->body + s->size, "section"};
    switch (s->id) {
      case SEC_FUNCTION:
        sr.what = "function section";
        parse_functions(&sr, &m);
        expect_end(&sr, "function");
        break;
      case SEC_TAG:
        sr.what = "tag section";
        parse_tags(&sr, &m);
        expect_end(&sr, "tag");
        break;
      case SEC_GLOBAL:
        sr.what = "global section";
        parse_globals(&sr, &m);
        expect_end(&sr, "global");
        globals = s;
        break;
      case SEC_EXPORT:
        sr.what = "export section";
        parse_exports(&sr, &m);
        expect_end(&sr, "export");
        exports = s;
        break;
      case SEC_START: {
        wf_func *f = wf_defined(&m, wf_u32(&sr), sr.p);
        if (f) f->entered = true;
        break;
      }
      case SEC_ELEMENT:
        sr.what = "element section";
        parse_elements(&sr, &m);
        expect_end(&sr, "element");
        break;
      case SEC_CODE:
        code = s;
        break;
      case SEC_DATA:
        data_sec = s;
        break;
      default:
        break;
    }
  }
  uint32_t fuel_global = m.imported_globals + m.globals;
  wf_buf new_code = {0};
  if (code) {
    wf_code_analyse(&m, code->body, code->size);
    if (m.bodies != declared_funcs) wf_fail(code->body, "%u function bodies for %u functions", m.bodies, declared_funcs);
    wf_code_rewrite(&m, fuel_global, counter_only, &new_code);
  } else if (declared_funcs) {
    wf_fail(NULL, "functions declared without a code section");
  }

  wf_buf new_data = {0}, new_count = {0}, names = {0};
  uint32_t segments = 0, merged = 0;
  bool merge = merge_gap >= 0 && data_sec && !m.names_data &&
               wf_data_merge(data_sec->body, data_sec->size, (uint32_t)merge_gap, &new_data, &segments, &merged);
  if (merge) wf_put_u32(&new_count, merged);

  /* Write: the new global and export sections go where the old ones were,
   * or where their place in the order is. */
  wf_buf out = {0};
  wf_put(&out, magic, sizeof magic);
  bool wrote_globals = false, wrote_exports = false;
  for (size_t i = 0; i <= nsecs; i++) {
    const section *s = i < nsecs ? &secs[i] : NULL;
    int rank = s ? section_rank(s->id) : 100;
    if (!wrote_globals && (rank >= section_rank(SEC_GLOBAL))) {
      put_globals(&out, globals, &m, initial);
      wrote_globals = true;
      if (s && s->id == SEC_GLOBAL) continue;
    }
    if (!wrote_exports && (rank >= section_rank(SEC_EXPORT))) {
      put_exports(&out, exports, fuel_global);
      wrote_exports = true;
      if (s && s->id == SEC_EXPORT) continue;
    }
    if (!s) break;
    if (s->id == SEC_CODE) put_section(&out, SEC_CODE, new_code.data, new_code.len);
    else if (merge && s->id == SEC_DATA) put_section(&out, SEC_DATA, new_data.data, new_data.len);
    else if (merge && s->id == SEC_DATACOUNT) put_section(&out, SEC_DATACOUNT, new_count.data, new_count.len);
    else if (merge && s->id == SEC_CUSTOM && wf_names_without_data(s->body, s->size, &names))
      put_section(&out, SEC_CUSTOM, names.data, names.len);
    else put_section(&out, s->id, s->body, s->size);
  }

  FILE *f = fopen(paths[1], "wb");
  if (!f) wf_fail(NULL, "cannot create %s: %s", paths[1], strerror(errno));
  bool ok = fwrite(out.data, 1, out.len, f) == out.len;
  ok = fclose(f) == 0 && ok;
  if (!ok) wf_fail(NULL, "cannot write %s: %s", paths[1], strerror(errno));
  uint32_t eh = 0; /* runtimes/native.sh translates these modules with exceptions */
  for (uint32_t i = 0; i < m.bodies; i++) eh += m.funcs[i].eh;
  if (verbose) {
    char data_note[96] = "";
    if (merge) snprintf(data_note, sizeof data_note, ", %u data segments merged into %u", segments, merged);
    else if (merge_gap >= 0 && data_sec) snprintf(data_note, sizeof data_note, ", data segments left as they are");
    fprintf(stderr,
            "wasm_fuel: %s: %u functions (%u charged at entry, %u folded into callers), %u loops charged, "
            "%u more charge points (split %lld), %u bulk operations, %u loops on a local copy, "
            "%u functions with exceptions, %zu -> %zu bytes%s%s\n",
            in_path, m.bodies, m.stats.entry_charges, m.stats.folded, m.stats.loop_charges, m.stats.split_charges,
            (long long)split, m.stats.bulk_charges, m.stats.cached_loops, eh, len, out.len,
            counter_only ? " (counter only)" : "", data_note);
  }
  wf_module_free(&m);
  free(new_code.data);
  free(new_data.data);
  free(new_count.data);
  free(names.data);
  free(out.data);
  free(data);
  return 0;
}
