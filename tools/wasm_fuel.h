/* Shared by the parts of tools/wasm_fuel, the metering pass (its cost model
 * is described in wasm_fuel.c):
 *   wasm_fuel.c       the module: sections, the new global and export, main
 *   wasm_fuel_body.c  one function body: decoding every instruction, and
 *                     where its charges go and what each pays
 *   wasm_fuel_fold.c  the call graph: which functions their callers pay for
 *   wasm_fuel_emit.c  the metered code section
 *   wasm_fuel_data.c  --merge-data: fewer data segments for wasm2c
 * Errors never return: wf_fail() prints where and why, and exits 1. */
#ifndef WASMBOX_TOOLS_WASM_FUEL_H
#define WASMBOX_TOOLS_WASM_FUEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WF_EXPORT "wasmbox_fuel"
#define WF_FOLD_MAX 200    /* most a folded function may add to its callers' charges */
#define WF_FOLD_INDIRECT_MAX 32 /* the same for one in a table (every call_indirect
                                   of its signature pays the costliest) */
#define WF_SPLIT 128       /* default: code after a branch point that may cost this
                              much or more gets its own charge */

_Noreturn void wf_fail(const uint8_t *at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void *wf_grow(void *p, size_t *cap, size_t need, size_t elem); /* room for `need` elements */

/* Bounds-checked reading; `what` names the part for error messages. */
typedef struct {
  const uint8_t *p, *end;
  const char *what;
} wf_reader;

uint8_t wf_byte(wf_reader *r);
void wf_skip(wf_reader *r, size_t n);
uint32_t wf_u32(wf_reader *r);
int64_t wf_sleb(wf_reader *r, int bits); /* signed LEB128 of at most `bits` */
void wf_value_type(wf_reader *r);        /* i32 i64 f32 f64 funcref externref */

typedef struct {
  uint8_t *data;
  size_t len, cap;
} wf_buf;

void wf_put(wf_buf *b, const void *data, size_t n);
void wf_put_byte(wf_buf *b, uint8_t v);
void wf_put_u32(wf_buf *b, uint32_t v);
void wf_put_s64(wf_buf *b, int64_t v);

/* ---- the module ------------------------------------------------------------ */

/* A function defined in the module (index = function index - imports). */
typedef struct {
  uint32_t type;               /* its type index */
  bool entered;                /* called by the host: exported, or the start function */
  bool referenced;             /* in a table or named by ref.func: call_indirect may call it */
  bool has_loop;
  bool calls_out;              /* calls an import, or has call_indirect */
  bool eh;                     /* has exception handling: try, throw, rethrow */
  bool folded;                 /* no charge of its own: callers pay fold_cost */
  bool pure;                   /* folded, charges nothing itself (no bulk
                                  operation), throws nothing and calls
                                  nothing but pure functions: a call to it
                                  never touches the counter */
  uint64_t fold_cost;
  uint32_t *callees;           /* call graph nodes it calls: defined functions by
                                  index, then signatures (see wasm_fuel_fold.c) */
  uint32_t ncallees;
  size_t capcallees;
  const uint8_t *body;         /* its code entry, after the size */
  uint32_t size;
} wf_func;

typedef struct {
  uint32_t imported_funcs, imported_globals, globals;
  uint32_t tags;               /* exception tags, imported and defined */
  uint32_t ntypes;
  uint32_t *type_params;       /* parameter count of each type */
  uint32_t *type_sig;          /* each type's signature: equal types share one */
  uint32_t nsigs;
  uint64_t *sig_cost;          /* per signature: most a folded function that
                                  call_indirect may reach costs */
  bool tables_shared;          /* a table is imported or exported: the host may
                                  put anything in it, so no indirect folding */
  uint32_t declared;           /* functions defined here */
  uint32_t bodies;             /* bodies found in the code section */
  int64_t split;               /* see WF_SPLIT */
  enum { WF_CACHE_NONE, WF_CACHE_CALLFREE, WF_CACHE_LOOPS } cache; /* which loops charge a local copy */
  wf_func *funcs;
  bool names_data;             /* the code has memory.init or data.drop */
  struct {
    uint32_t entry_charges, folded, loop_charges, split_charges, bulk_charges, cached_loops;
  } stats;
} wf_module;

void wf_module_init(wf_module *m, uint32_t declared);
void wf_module_free(wf_module *m);
/* The defined function with this function index, NULL for an import. */
wf_func *wf_defined(wf_module *m, uint32_t index, const uint8_t *at);

/* ---- one body (wasm_fuel_body.c) ----------------------------------------------- */

/* K_TRY, K_CATCH (catch and catch_all), K_DELEGATE (the end of a try
 * without handlers), K_THROW (throw and rethrow): the legacy exception
 * handling proposal, as clang-19 emits it for -fwasm-exceptions. */
enum wf_kind { K_PLAIN, K_FREE, K_BLOCK, K_LOOP, K_IF, K_ELSE, K_END, K_BR, K_BR_IF, K_BR_TABLE, K_RETURN,
               K_UNREACHABLE, K_CALL, K_CALL_INDIRECT, K_REF_FUNC, K_BULK, K_TRY, K_CATCH, K_DELEGATE, K_THROW };

#define WF_NONE UINT32_MAX

typedef struct {
  enum wf_kind kind;
  const uint8_t *start, *end; /* its bytes */
  uint32_t index;             /* br, rethrow, delegate: depth; call, ref.func:
                                 function index; call_indirect: type index;
                                 if: its else, try: its last handler (WF_NONE);
                                 throw, catch: tag index (catch_all: WF_NONE) */
  uint32_t match;             /* opener <-> end (an end without opener: the function's) */
  wf_reader table;            /* br_table: its labels */
  uint32_t ntable;
  int64_t charge;             /* a charge inserted right after it (0: none) */
  bool calls;                 /* loop: its body calls something not pure,
                                 or handles or throws exceptions */
  bool catch_all;             /* try: has its catch_all */
  bool names_data;            /* memory.init, data.drop */
} wf_op;

typedef struct wf_frame wf_frame;

/* A decoded body, and scratch space reused between bodies. */
typedef struct {
  const uint8_t *locals, *code; /* the body's local declarations, its first instruction */
  uint64_t nlocals;
  wf_op *ops;
  size_t n, cap;
  uint32_t *open;               /* decoding: openers not yet closed */
  size_t capopen;
  wf_frame *frames;             /* placing: the blocks around the current point */
  size_t capframes;
  int64_t entry;                /* charge at the function's entry */
  bool bulk;                    /* has bulk operations */
} wf_body;

/* Decode function `f` into b->ops, matching every end to its opener. When
 * `first`, also record its loops, calls and references in `f` and `m`. */
void wf_decode_body(wf_module *m, wf_func *f, wf_body *b, bool first);
/* Decide b->ops[].charge and b->entry from the costs folding decided. */
void wf_place_charges(const wf_module *m, wf_body *b);
void wf_body_free(wf_body *b);

/* ---- the code section ------------------------------------------------------------ */

/* Read every body and decide which functions fold (wasm_fuel_fold.c), then
 * write the metered section, or only copy it when counter_only
 * (wasm_fuel_emit.c). */
void wf_code_analyse(wf_module *m, const uint8_t *code, size_t size);
void wf_code_rewrite(wf_module *m, uint32_t fuel_global, bool counter_only, wf_buf *out);

/* ---- data segments (wasm_fuel_data.c) ------------------------------------------ */

/* --merge-data GAP: a data section's segments with at most GAP bytes
 * between them, merged (the file says when and why). Writes the new section
 * body to `out` and the counts before and after; false, writing nothing,
 * when the section must stay as it is. */
#define WF_MERGE_GAP_MAX 256
bool wf_data_merge(const uint8_t *body, size_t size, uint32_t gap, wf_buf *out, uint32_t *before,
                   uint32_t *after);
/* A custom section's body: when it is the "name" section, `out` becomes
 * it without its data segment names, which a merge made wrong. */
bool wf_names_without_data(const uint8_t *body, size_t size, wf_buf *out);

#endif
