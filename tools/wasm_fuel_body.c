/* One function body for tools/wasm_fuel: decoding every instruction we
 * accept (and refusing the rest), and placing its charges. */
#include <stdlib.h>
#include <string.h>

#include "wasm_fuel.h"

/* ---- the module's functions ------------------------------------------------------ */

void wf_module_init(wf_module *m, uint32_t declared) {
  m->declared = declared;
  m->funcs = calloc(declared ? declared : 1, sizeof *m->funcs);
  if (!m->funcs) wf_fail(NULL, "out of memory");
}

void wf_module_free(wf_module *m) {
  for (uint32_t i = 0; i < m->declared; i++) free(m->funcs[i].callees);
  free(m->funcs);
  free(m->type_params);
  free(m->type_sig);
  free(m->sig_cost);
  m->funcs = NULL;
  m->type_params = m->type_sig = NULL;
  m->sig_cost = NULL;
}

wf_func *wf_defined(wf_module *m, uint32_t index, const uint8_t *at) {
  if (index >= m->imported_funcs + m->declared) wf_fail(at, "function index %u out of range", index);
  return index < m->imported_funcs ? NULL : &m->funcs[index - m->imported_funcs];
}

void wf_value_type(wf_reader *r) {
  uint8_t t = wf_byte(r);
  if (t == 0x7b) wf_fail(r->p - 1, "SIMD (v128) is not supported");
  if (t != 0x7f && t != 0x7e && t != 0x7d && t != 0x7c && t != 0x70 && t != 0x6f)
    wf_fail(r->p - 1, "unknown value type 0x%02x", t);
}

/* ---- decoding --------------------------------------------------------------------- */

static void block_type(wf_reader *r, const wf_module *m) {
  if (r->p >= r->end) wf_fail(r->p, "unexpected end of %s", r->what);
  uint8_t b = *r->p;
  if (b == 0x40) {
    r->p++;
  } else if (b & 0x40) { /* a negative s33 is one of the single-byte value types */
    wf_value_type(r);
  } else {
    int64_t t = wf_sleb(r, 33);
    if (t < 0 || (uint64_t)t >= m->ntypes) wf_fail(r->p, "block type %lld out of range", (long long)t);
  }
}

static uint32_t tag_index(wf_reader *r, const wf_module *m) {
  uint32_t t = wf_u32(r);
  if (t >= m->tags) wf_fail(r->p - 1, "tag %u out of range", t);
  return t;
}

static void memory_index(wf_reader *r) {
  if (wf_u32(r) != 0) wf_fail(r->p - 1, "multiple memories are not supported");
}

static void mem_arg(wf_reader *r) {
  if (wf_u32(r) >= 64) wf_fail(r->p - 1, "multiple memories are not supported");
  wf_u32(r);
}

/* One instruction at r->p into `in` (kind, start, index, table); r->p is
 * left after it. */
static void decode(wf_reader *r, const wf_module *m, wf_op *in) {
  memset(in, 0, sizeof *in);
  in->start = r->p;
  in->kind = K_PLAIN;
  uint8_t op = wf_byte(r);
  switch (op) {
    case 0x00: in->kind = K_UNREACHABLE; return;
    case 0x01: in->kind = K_FREE; return; /* nop */
    case 0x02: in->kind = K_BLOCK; block_type(r, m); return;
    case 0x03: in->kind = K_LOOP; block_type(r, m); return;
    case 0x04: in->kind = K_IF; block_type(r, m); return;
    case 0x05: in->kind = K_ELSE; return;
    case 0x06: in->kind = K_TRY; block_type(r, m); return;
    case 0x07: in->kind = K_CATCH; in->index = tag_index(r, m); return;
    case 0x08: in->kind = K_THROW; in->index = tag_index(r, m); return;
    case 0x09: in->kind = K_THROW; in->index = wf_u32(r); return; /* rethrow */
    case 0x18: in->kind = K_DELEGATE; in->index = wf_u32(r); return;
    case 0x19: in->kind = K_CATCH; in->index = WF_NONE; return;   /* catch_all */
    case 0x0b: in->kind = K_END; return;
    case 0x0c: in->kind = K_BR; in->index = wf_u32(r); return;
    case 0x0d: in->kind = K_BR_IF; in->index = wf_u32(r); return;
    case 0x0e:
      in->kind = K_BR_TABLE;
      in->ntable = wf_u32(r);
      if (in->ntable == UINT32_MAX) wf_fail(r->p, "br_table too large");
      in->ntable++;
      in->table = (wf_reader){r->p, r->end, r->what};
      for (uint32_t i = 0; i < in->ntable; i++) wf_u32(r);
      return;
    case 0x0f: in->kind = K_RETURN; return;
    case 0x10: in->kind = K_CALL; in->index = wf_u32(r); return;
    case 0x11:
      in->kind = K_CALL_INDIRECT;
      in->index = wf_u32(r);
      if (in->index >= m->ntypes) wf_fail(r->p, "call_indirect type out of range");
      wf_u32(r); /* table */
      return;
    case 0x1a: case 0x1b: return; /* drop, select */
    case 0x1c:
      for (uint32_t n = wf_u32(r); n; n--) wf_value_type(r);
      return;
    case 0x20: case 0x21: case 0x22: case 0x23: case 0x24: case 0x25: case 0x26:
      wf_u32(r); /* local, global or table index */
      return;
    case 0x3f: case 0x40: memory_index(r); return; /* memory.size, memory.grow */
    case 0x41: wf_sleb(r, 32); return;
    case 0x42: wf_sleb(r, 64); return;
    case 0x43: wf_skip(r, 4); return;
    case 0x44: wf_skip(r, 8); return;
    case 0xd0: {
      uint8_t t = wf_byte(r);
      if (t != 0x70 && t != 0x6f) wf_fail(r->p - 1, "unknown reference type 0x%02x", t);
      return;
    }
    case 0xd1: return; /* ref.is_null */
    case 0xd2: in->kind = K_REF_FUNC; in->index = wf_u32(r); return;
    case 0xfc: {
      uint32_t sub = wf_u32(r);
      switch (sub) {
        case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7: return; /* trunc_sat */
        case 8: wf_u32(r); memory_index(r); in->kind = K_BULK; in->names_data = true; return; /* memory.init */
        case 9: wf_u32(r); in->names_data = true; return;                                     /* data.drop */
        case 10: memory_index(r); memory_index(r); in->kind = K_BULK; return; /* memory.copy */
        case 11: memory_index(r); in->kind = K_BULK; return;                /* memory.fill */
        case 12: wf_u32(r); wf_u32(r); in->kind = K_BULK; return;           /* table.init */
        case 13: wf_u32(r); return;                                         /* elem.drop */
        case 14: wf_u32(r); wf_u32(r); in->kind = K_BULK; return;           /* table.copy */
        case 15: case 16: wf_u32(r); return;                                /* table.grow, size */
        case 17: wf_u32(r); in->kind = K_BULK; return;                      /* table.fill */
        default: wf_fail(in->start, "unsupported instruction 0xfc %u", sub);
      }
    }
    default:
      break;
  }
  if (op >= 0x28 && op <= 0x3e) { /* loads and stores */
    mem_arg(r);
    return;
  }
  if (op >= 0x45 && op <= 0xc4) return; /* numeric, sign extension */
  const char *what = op == 0xfd ? "SIMD" : op == 0xfe ? "threads (atomics)"
                     : op == 0x1f || op == 0x0a ? "exception handling (exnref)"
                     : op == 0x12 || op == 0x13 ? "tail calls" : "an unknown instruction";
  wf_fail(in->start, "unsupported instruction 0x%02x (%s)", op, what);
}

void *wf_grow(void *p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return p;
  size_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  void *q = realloc(p, c * elem);
  if (!q) wf_fail(NULL, "out of memory");
  *cap = c;
  return q;
}

struct wf_frame {
  enum wf_kind kind; /* K_BLOCK, K_IF, K_LOOP, or K_END for the function */
  int64_t label;     /* block, if: cost from its end to the next charge point */
  int64_t else_dist; /* if: cost from the start of the else arm */
  bool has_else;
  int64_t tail;      /* loop: cost from its end (leaving it by falling out) */
  int64_t exits;     /* loop: most the code after a branch out of it costs */
};

void wf_body_free(wf_body *b) {
  free(b->ops);
  free(b->open);
  free(b->frames);
}

/* The locals of a body: the reader is left at its first instruction;
 * returns how many locals it declares. */
static uint64_t read_locals(wf_reader *r) {
  uint64_t total = 0;
  for (uint32_t n = wf_u32(r); n; n--) {
    total += wf_u32(r);
    if (total > 50000) wf_fail(r->p, "too many locals");
    wf_value_type(r);
  }
  return total;
}

/* A call in the innermost open loop (among the first `nopen` open blocks);
 * its end passes it on to the next loop out. */
static void mark_calls(wf_body *b, size_t nopen) {
  for (size_t k = nopen; k-- > 0;) {
    wf_op *o = &b->ops[b->open[k]];
    if (o->kind == K_LOOP) {
      o->calls = true;
      return;
    }
  }
}

/* A try or a throw: its function is not pure, and the loop around it
 * charges the counter itself (a handler may run in another function, or
 * be reached from one). */
static void eh_op(wf_func *f, wf_body *b, size_t nopen, bool first) {
  if (first) f->eh = true;
  mark_calls(b, nopen);
}

static void check_label(uint32_t label, size_t open, const uint8_t *at) {
  if (label > open) wf_fail(at, "branch depth %u out of range", label);
}

static void add_callee(wf_func *f, uint32_t node) {
  f->callees = wf_grow(f->callees, &f->capcallees, (size_t)f->ncallees + 1, sizeof *f->callees);
  f->callees[f->ncallees++] = node;
}

void wf_decode_body(wf_module *m, wf_func *f, wf_body *b, bool first) {
  wf_reader r = {f->body, f->body + f->size, "function body"};
  b->locals = r.p;
  b->nlocals = read_locals(&r);
  b->code = r.p;
  b->n = 0;
  b->bulk = false;
  size_t nopen = 0;
  for (;;) {
    b->ops = wf_grow(b->ops, &b->cap, b->n + 1, sizeof *b->ops);
    if (b->n >= WF_NONE - 1) wf_fail(r.p, "function body too large");
    uint32_t i = (uint32_t)b->n++;
    wf_op *in = &b->ops[i];
    decode(&r, m, in);
    in->end = r.p;
    if (in->names_data) m->names_data = true;
    in->match = WF_NONE;
    switch (in->kind) {
      case K_BLOCK:
      case K_LOOP:
      case K_IF:
      case K_TRY:
        if (in->kind == K_LOOP && first) f->has_loop = true;
        if (in->kind == K_IF || in->kind == K_TRY) in->index = WF_NONE;
        if (in->kind == K_TRY) eh_op(f, b, nopen, first);
        b->open = wf_grow(b->open, &b->capopen, nopen + 1, sizeof *b->open);
        b->open[nopen++] = i;
        break;
      case K_CATCH: {
        wf_op *o = nopen ? &b->ops[b->open[nopen - 1]] : NULL;
        if (!o || o->kind != K_TRY || o->catch_all) wf_fail(in->start, "catch without try");
        o->index = i;
        o->catch_all = in->index == WF_NONE;
        in->match = b->open[nopen - 1];
        break;
      }
      case K_DELEGATE: {
        wf_op *o = nopen ? &b->ops[b->open[nopen - 1]] : NULL;
        if (!o || o->kind != K_TRY || o->index != WF_NONE) wf_fail(in->start, "delegate without a try of its own");
        in->match = b->open[--nopen];
        o->match = i;
        check_label(in->index, nopen, in->start);
        break;
      }
      case K_THROW:
        if (in->start[0] == 0x09) check_label(in->index, nopen, in->start); /* rethrow */
        eh_op(f, b, nopen, first);
        break;
      case K_ELSE: {
        wf_op *o = nopen ? &b->ops[b->open[nopen - 1]] : NULL;
        if (!o || o->kind != K_IF || o->index != WF_NONE) wf_fail(in->start, "else without if");
        o->index = i;
        in->match = b->open[nopen - 1];
        break;
      }
      case K_END: {
        if (!nopen) { /* the function's own end */
          if (r.p != r.end) wf_fail(r.p, "code after the end of a function body");
          return;
        }
        wf_op *o = &b->ops[b->open[--nopen]];
        in->match = b->open[nopen];
        o->match = i;
        if (o->calls) mark_calls(b, nopen); /* the enclosing loop calls too */
        break;
      }
      case K_BR:
      case K_BR_IF:
        check_label(in->index, nopen, in->start);
        break;
      case K_BR_TABLE: {
        wf_reader t = in->table;
        for (uint32_t k = 0; k < in->ntable; k++) check_label(wf_u32(&t), nopen, in->start);
        break;
      }
      case K_CALL: {
        wf_func *g = wf_defined(m, in->index, in->start);
        if (first && g) add_callee(f, (uint32_t)(g - m->funcs));
        if (first && !g) f->calls_out = true;
        if (!g || !g->pure) mark_calls(b, nopen);
        break;
      }
      case K_CALL_INDIRECT:
        if (first) {
          f->calls_out = true;
          add_callee(f, m->declared + m->type_sig[in->index]);
        }
        mark_calls(b, nopen);
        break;
      case K_REF_FUNC:
        if (first) {
          wf_func *g = wf_defined(m, in->index, in->start);
          if (g) g->referenced = true;
        }
        break;
      case K_BULK:
        b->bulk = true;
        break;
      default:
        break;
    }
  }
}

/* ---- placing charges ------------------------------------------------------------- */

static int64_t plus(int64_t a, uint64_t b) { return b > (uint64_t)(INT64_MAX - a) ? INT64_MAX : a + (int64_t)b; }

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* A point where a charge may go: if the code from here to the next charge
 * point may cost `split` or more, it gets its own; the cost seen from
 * before the point is then 0. */
static int64_t maybe_split(wf_op *o, int64_t d, int64_t split) {
  if (d < split) return d;
  o->charge = d;
  return 0;
}

/* The cost, seen from a branch, of going to label `l`: the target block's
 * label cost, unless the branch leaves a loop on the way. A pass through a
 * loop ends where it leaves the loop: what follows is paid once, by the
 * code around the loop (the outermost loop left records it in its exits),
 * not by every iteration. A loop's header and the function's end (return)
 * are charge points: 0. */
static int64_t to_label(wf_frame *frames, size_t nf, uint32_t l) {
  wf_frame *t = &frames[nf - 1 - l];
  if (t->kind == K_LOOP || t->kind == K_END) return 0;
  wf_frame *left = NULL;
  for (size_t j = nf - 1; j > nf - 1 - l; j--)
    if (frames[j].kind == K_LOOP) left = &frames[j];
  if (!left) return t->label;
  left->exits = max64(left->exits, t->label);
  return 0;
}

/* Walking the body backwards, `d` is the most the code from the current
 * point to the next charge point can cost; every branch goes forward to the
 * end of a block or back to a loop header (a charge point), so what follows
 * a point is always known already. The entry and loop headers always
 * charge: a loop header for one pass through the body, the code before the
 * loop for the code after it. The start of an if arm and the point after a
 * block's end (where the cases of a switch begin) charge when what follows
 * may cost `split` or more, so that a charge does not include every long arm
 * or case its pass may skip. */
void wf_place_charges(const wf_module *m, wf_body *b) {
  size_t nf = 0;
  int64_t d = 0;
  for (size_t i = b->n; i-- > 0;) {
    wf_op *o = &b->ops[i];
    o->charge = 0;
    wf_frame *top = nf ? &b->frames[nf - 1] : NULL;
    switch (o->kind) {
      case K_END:
      case K_DELEGATE: {
        enum wf_kind k = o->match == WF_NONE ? K_END : b->ops[o->match].kind;
        if (k == K_BLOCK || k == K_IF || k == K_TRY) d = maybe_split(o, d, m->split);
        b->frames = wf_grow(b->frames, &b->capframes, nf + 1, sizeof *b->frames);
        b->frames[nf++] = (wf_frame){.kind = k, .label = d, .tail = d};
        if (k == K_END || k == K_LOOP) d = 0; /* falling out of the body ends a pass */
        break;
      }
      case K_ELSE:
        top->else_dist = maybe_split(o, d, m->split);
        top->has_else = true;
        d = top->label; /* the then arm ends at the end */
        break;
      case K_IF:
        d = maybe_split(o, d, m->split);
        d = plus(max64(d, top->has_else ? top->else_dist : top->label), 1);
        nf--;
        break;
      case K_CATCH:
        o->charge = d; /* a handler is entered from wherever its exception was thrown */
        d = top->label; /* the arm before it ends at the end */
        break;
      case K_BLOCK:
      case K_TRY:
        nf--;
        break;
      case K_LOOP:
        o->charge = d; /* the header pays for each pass */
        d = max64(top->tail, top->exits);
        nf--;
        break;
      case K_BR:
        d = plus(to_label(b->frames, nf, o->index), 1);
        break;
      case K_BR_IF:
        d = plus(max64(d, to_label(b->frames, nf, o->index)), 1);
        break;
      case K_BR_TABLE: {
        int64_t most = 0;
        wf_reader t = o->table;
        for (uint32_t k = 0; k < o->ntable; k++) most = max64(most, to_label(b->frames, nf, wf_u32(&t)));
        d = plus(most, 1);
        break;
      }
      case K_RETURN:
      case K_UNREACHABLE:
      case K_THROW:
        d = 1;
        break;
      case K_CALL: {
        const wf_func *g = o->index >= m->imported_funcs ? &m->funcs[o->index - m->imported_funcs] : NULL;
        d = plus(d, 1 + (g && g->folded ? g->fold_cost : 0));
        break;
      }
      case K_CALL_INDIRECT:
        d = plus(d, 1 + m->sig_cost[m->type_sig[o->index]]);
        break;
      case K_FREE:
        break;
      default:
        d = plus(d, 1);
        break;
    }
  }
  b->entry = d;
}
