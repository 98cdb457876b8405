/* The metered code section for tools/wasm_fuel: every body again, with its
 * charges (wasm_fuel_body.c decided where they go and what each pays). */
#include <stdlib.h>

#include "wasm_fuel.h"

/* Where charges go: the global counter, or, inside a loop, a local copy of
 * it. A loop-carried dependency through memory costs a store-to-load round
 * trip per iteration (several cycles, more than many small loops take); a
 * local is a register. The copy is loaded before the loop and stored back
 * on every way out of it (falling out, branching out, returning), before a
 * trap, and around calls that may read or change the counter. Which loops
 * (m->cache): none, those that make no such calls (the default: no stores
 * in the loop), or all. Where the translation keeps the global in a
 * register (r15: tools/w2c_split.py, gcc on x86-64) a copy is only moves,
 * and runtimes/native.sh asks for none. */
typedef struct {
  wf_buf *out;
  uint32_t global;  /* the counter */
  uint32_t local;   /* its copy (i64) */
  bool cached;      /* charging the copy now */
} meter;

static void put_op_idx(wf_buf *b, uint8_t op, uint32_t idx) {
  wf_put_byte(b, op);
  wf_put_u32(b, idx);
}

static void put_store(const meter *mt) { /* counter = copy */
  put_op_idx(mt->out, 0x20, mt->local);
  put_op_idx(mt->out, 0x24, mt->global);
}

static void put_load(const meter *mt) { /* copy = counter */
  put_op_idx(mt->out, 0x23, mt->global);
  put_op_idx(mt->out, 0x21, mt->local);
}

static void put_counter(const meter *mt) { /* push the counter, or its copy */
  put_op_idx(mt->out, mt->cached ? 0x20 : 0x23, mt->cached ? mt->local : mt->global);
}

/* The new value on the stack: keep it, and trap if it is below zero (the
 * copy stored first, for the host to see). */
static void put_take(const meter *mt) {
  const uint8_t check[] = {0x42, 0x00, 0x53, 0x04, 0x40}; /* i64.const 0 i64.lt_s if */
  if (mt->cached) {
    put_op_idx(mt->out, 0x22, mt->local); /* local.tee */
    wf_put(mt->out, check, sizeof check);
    put_store(mt);
  } else {
    put_op_idx(mt->out, 0x24, mt->global);
    put_op_idx(mt->out, 0x23, mt->global);
    wf_put(mt->out, check, sizeof check);
  }
  const uint8_t trap[] = {0x00, 0x0b}; /* unreachable end */
  wf_put(mt->out, trap, sizeof trap);
}

static void put_charge(const meter *mt, int64_t cost) {
  put_counter(mt);
  wf_put_byte(mt->out, 0x42); /* i64.const */
  wf_put_s64(mt->out, cost);
  wf_put_byte(mt->out, 0x7d); /* i64.sub */
  put_take(mt);
}

/* Before a bulk operation (its length n on top of the stack): charge
 * n / 16, by way of the scratch local `t`, which then gives n back. */
static void put_bulk_charge(const meter *mt, uint32_t t) {
  put_op_idx(mt->out, 0x21, t);
  put_counter(mt);
  put_op_idx(mt->out, 0x20, t);
  const uint8_t mid[] = {0xad, 0x42, 0x04, 0x88, 0x7d}; /* i64.extend_i32_u i64.const 4 i64.shr_u i64.sub */
  wf_put(mt->out, mid, sizeof mid);
  put_take(mt);
  put_op_idx(mt->out, 0x20, t);
}

/* Does a branch from inside `open` blocks to label l leave the block at
 * index `cached`? (the function's own label is below every block) */
static bool leaves(size_t open, uint32_t l, size_t cached) { return (int64_t)open - 1 - l < (int64_t)cached; }

void wf_code_rewrite(wf_module *m, uint32_t fuel_global, bool counter_only, wf_buf *out) {
  wf_put_u32(out, m->bodies);
  wf_body b = {0};
  wf_buf text = {0};
  for (uint32_t i = 0; i < m->bodies; i++) {
    wf_func *f = &m->funcs[i];
    if (counter_only) {
      wf_put_u32(out, f->size);
      wf_put(out, f->body, f->size);
      continue;
    }
    wf_decode_body(m, f, &b, false);
    wf_place_charges(m, &b);
    bool copies = false;
    for (size_t k = 0; k < b.n && !copies; k++)
      copies = b.ops[k].kind == K_LOOP && m->cache != WF_CACHE_NONE && (m->cache == WF_CACHE_LOOPS || !b.ops[k].calls);

    /* locals: the declared ones, then the bulk scratch (i32) and the
     * counter's copy (i64) when needed */
    text.len = 0;
    wf_reader l = {b.locals, b.code, "locals"};
    uint32_t groups = wf_u32(&l);
    wf_put_u32(&text, groups + b.bulk + copies);
    wf_put(&text, l.p, (size_t)(b.code - l.p));
    uint64_t next = m->type_params[f->type] + b.nlocals;
    uint32_t scratch = (uint32_t)next;
    const uint8_t one_i32[] = {0x01, 0x7f}, one_i64[] = {0x01, 0x7e};
    if (b.bulk) wf_put(&text, one_i32, sizeof one_i32), next++;
    if (copies) wf_put(&text, one_i64, sizeof one_i64);
    meter mt = {.out = &text, .global = fuel_global, .local = (uint32_t)next};

    if (f->folded) {
      m->stats.folded++;
    } else if (b.entry > 0) {
      put_charge(&mt, b.entry);
      m->stats.entry_charges++;
    }
    size_t open = 0, cached = 0; /* blocks open; the cached loop's index */
    for (size_t k = 0; k < b.n; k++) {
      const wf_op *o = &b.ops[k];
      bool leaving = false; /* this op may leave the cached loop */
      switch (o->kind) {
        case K_LOOP:
          if (!mt.cached && m->cache != WF_CACHE_NONE && (m->cache == WF_CACHE_LOOPS || !o->calls)) {
            put_load(&mt);
            mt.cached = true;
            cached = open;
            m->stats.cached_loops++;
          }
          open++;
          break;
        case K_BLOCK:
        case K_IF:
        case K_TRY:
          open++;
          break;
        case K_BR:
        case K_BR_IF:
          leaving = leaves(open, o->index, cached);
          break;
        case K_BR_TABLE: {
          wf_reader t = o->table;
          for (uint32_t j = 0; j < o->ntable; j++) leaving |= leaves(open, wf_u32(&t), cached);
          break;
        }
        case K_RETURN:
        case K_UNREACHABLE:
        case K_THROW: /* its handler may be anywhere */
          leaving = true;
          break;
        case K_BULK:
          put_bulk_charge(&mt, scratch);
          m->stats.bulk_charges++;
          break;
        default:
          break;
      }
      /* a call that may read or change the counter sees the copy, and the
       * copy takes what the callee left */
      bool touches = mt.cached && (o->kind == K_CALL_INDIRECT ||
                                   (o->kind == K_CALL && !(o->index >= m->imported_funcs &&
                                                           m->funcs[o->index - m->imported_funcs].pure)));
      if (mt.cached && (leaving || touches)) put_store(&mt);
      wf_put(&text, o->start, (size_t)(o->end - o->start));
      /* a handler: whoever threw stored its copy or charged the counter */
      if (touches || (mt.cached && o->kind == K_CATCH)) put_load(&mt);
      if (o->charge > 0) {
        put_charge(&mt, o->charge);
        if (o->kind == K_LOOP) m->stats.loop_charges++;
        else m->stats.split_charges++;
      }
      if ((o->kind == K_END || o->kind == K_DELEGATE) && open > 0 && --open == cached && mt.cached) {
        put_store(&mt); /* falling out of the cached loop */
        mt.cached = false;
      }
    }
    if (text.len > UINT32_MAX) wf_fail(f->body, "function body too large");
    wf_put_u32(out, (uint32_t)text.len);
    wf_put(out, text.data, text.len);
  }
  free(text.data);
  wf_body_free(&b);
}
