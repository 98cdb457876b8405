/* Cassowary (solver.h). The tableau holds a row per basic symbol:
 *   basic = constant + sum(coefficient * parametric symbol),
 * every parametric symbol being 0 in the current solution. Symbols are the
 * user's variables (unrestricted) and the solver's own: slacks and errors
 * (restricted to >= 0) and dummies (restricted to 0, marking required
 * equalities). The objective is a row too: the strength-weighted sum of the
 * error symbols, kept minimal by the primal simplex after a constraint is
 * added or removed, and by the dual simplex after an edit's suggestion.
 * Ties are broken by the lowest symbol (Bland's rule), so no cycle. */
#include "solver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SYM_EXTERNAL = 1, SYM_SLACK, SYM_ERROR, SYM_DUMMY };

#define EPS 1e-8
#define NO_POS UINT32_MAX
/* Symbols and handles stay far from wrapping, and arrays' byte sizes from overflowing. */
#define MAX_COUNT (UINT32_MAX / 64)

typedef struct {
  uint32_t sym;
  double coef;
} cell;

/* Cells sorted by symbol. */
typedef struct {
  double constant;
  uint32_t n, cap;
  cell *cells;
} row;

typedef struct {
  double strength;
  uint32_t marker, other; /* the symbols this constraint brought; other is 0 or an error */
  int live;
} constraint;

typedef struct {
  uint8_t kind;
  uint32_t pos; /* index in basics while basic */
  row *row;     /* while basic */
} symbol;

typedef struct {
  uint32_t sym;
  uint32_t edit; /* the constraint handle of its edit, 0 for none */
  double edit_value;
} variable;

struct kw_solver {
  symbol *syms; /* symbols are 1..nsyms; 0 is none */
  uint32_t nsyms, symcap;
  uint32_t *basics, nbasics, basiccap;
  variable *vars; /* by handle - 1 */
  uint32_t nvars, varcap;
  constraint *cons; /* by handle - 1 */
  uint32_t ncons, conscap;
  uint32_t *free_cons, nfree, freecap; /* handles to reuse */
  row objective;
  row *artificial; /* the phase-one objective while one runs */
  uint32_t *infeasible, ninf, infcap;
  uint64_t budget, pivots_left;
};

static int near_zero(double x) { return fabs(x) < EPS; }

static int grow(void **p, uint32_t *cap, uint32_t need, size_t size) {
  if (need <= *cap) return 1;
  if (need > MAX_COUNT) return 0;
  uint32_t c = *cap ? *cap : 8;
  while (c < need) c = c > MAX_COUNT / 2 ? MAX_COUNT : c * 2;
  void *q = realloc(*p, (size_t)c * size);
  if (!q) return 0;
  *p = q;
  *cap = c;
  return 1;
}

/* ---- rows --------------------------------------------------------------- */

static row *row_new(double constant) {
  row *r = calloc(1, sizeof *r);
  if (r) r->constant = constant;
  return r;
}

static void row_free(row *r) {
  if (!r) return;
  free(r->cells);
  free(r);
}

static void row_clear(row *r) {
  free(r->cells);
  memset(r, 0, sizeof *r);
}

/* The index of sym's cell, or where it would go. */
static uint32_t row_slot(const row *r, uint32_t sym) {
  uint32_t lo = 0, hi = r->n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (r->cells[mid].sym < sym) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static double row_coef(const row *r, uint32_t sym) {
  uint32_t i = row_slot(r, sym);
  return i < r->n && r->cells[i].sym == sym ? r->cells[i].coef : 0.0;
}

static void row_remove(row *r, uint32_t sym) {
  uint32_t i = row_slot(r, sym);
  if (i == r->n || r->cells[i].sym != sym) return;
  memmove(r->cells + i, r->cells + i + 1, (r->n - i - 1) * sizeof *r->cells);
  r->n--;
}

/* coef * sym added; a coefficient that cancels leaves the row. */
static int row_add(row *r, uint32_t sym, double coef) {
  uint32_t i = row_slot(r, sym);
  if (i < r->n && r->cells[i].sym == sym) {
    r->cells[i].coef += coef;
    if (near_zero(r->cells[i].coef)) row_remove(r, sym);
    return 1;
  }
  if (near_zero(coef)) return 1;
  if (!grow((void **)&r->cells, &r->cap, r->n + 1, sizeof *r->cells)) return 0;
  memmove(r->cells + i + 1, r->cells + i, (r->n - i) * sizeof *r->cells);
  r->cells[i] = (cell){sym, coef};
  r->n++;
  return 1;
}

/* r += mult * other, merging the sorted cells (a row's size added, not multiplied). */
static int row_add_row(row *r, const row *other, double mult) {
  if (other->n == 0) {
    r->constant += other->constant * mult;
    return 1;
  }
  if (other->n == 1) {
    r->constant += other->constant * mult;
    return row_add(r, other->cells[0].sym, other->cells[0].coef * mult);
  }
  uint32_t cap = 0;
  cell *merged = NULL;
  if ((uint64_t)r->n + other->n > MAX_COUNT || !grow((void **)&merged, &cap, r->n + other->n, sizeof *merged)) return 0;
  uint32_t i = 0, j = 0, n = 0;
  while (i < r->n || j < other->n) {
    cell c;
    if (j == other->n || (i < r->n && r->cells[i].sym < other->cells[j].sym)) {
      c = r->cells[i++];
    } else if (i == r->n || other->cells[j].sym < r->cells[i].sym) {
      c = (cell){other->cells[j].sym, other->cells[j].coef * mult};
      j++;
    } else {
      c = (cell){r->cells[i].sym, r->cells[i].coef + other->cells[j].coef * mult};
      i++, j++;
    }
    if (!near_zero(c.coef)) merged[n++] = c;
  }
  free(r->cells);
  r->cells = merged;
  r->n = n;
  r->cap = cap;
  r->constant += other->constant * mult;
  return 1;
}

static void row_scale(row *r, double mult) {
  r->constant *= mult;
  for (uint32_t i = 0; i < r->n; i++) r->cells[i].coef *= mult;
}

/* r read as "0 = r", rewritten as "sym = ..." (sym must be in r). */
static void row_solve_for(row *r, uint32_t sym) {
  double c = row_coef(r, sym);
  row_remove(r, sym);
  row_scale(r, -1.0 / c);
}

/* Replaces sym in r by its row. */
static int row_substitute(row *r, uint32_t sym, const row *by) {
  double c = row_coef(r, sym);
  if (c == 0.0) return 1;
  row_remove(r, sym);
  return row_add_row(r, by, c);
}

/* ---- symbols and the tableau ----------------------------------------------- */

static int restricted(const kw_solver *s, uint32_t sym) { return s->syms[sym].kind != SYM_EXTERNAL; }

static kw_status new_symbol(kw_solver *s, int kind, uint32_t *sym) {
  uint32_t n = s->nsyms + 1;
  if (!grow((void **)&s->syms, &s->symcap, n + 1, sizeof *s->syms)) return KW_NOMEM;
  s->syms[n] = (symbol){(uint8_t)kind, NO_POS, NULL};
  s->nsyms = n;
  *sym = n;
  return KW_OK;
}

static kw_status make_basic(kw_solver *s, uint32_t sym, row *r) {
  if (!grow((void **)&s->basics, &s->basiccap, s->nbasics + 1, sizeof *s->basics)) return KW_NOMEM;
  s->syms[sym].row = r;
  s->syms[sym].pos = s->nbasics;
  s->basics[s->nbasics++] = sym;
  return KW_OK;
}

/* Takes sym out of the basis and hands back its row. */
static row *unmake_basic(kw_solver *s, uint32_t sym) {
  row *r = s->syms[sym].row;
  uint32_t i = s->syms[sym].pos, last = s->basics[--s->nbasics];
  s->basics[i] = last;
  s->syms[last].pos = i;
  s->syms[sym].pos = NO_POS;
  s->syms[sym].row = NULL;
  return r;
}

static kw_status push_infeasible(kw_solver *s, uint32_t sym) {
  return grow((void **)&s->infeasible, &s->infcap, s->ninf + 1, sizeof *s->infeasible)
             ? (s->infeasible[s->ninf++] = sym, KW_OK)
             : KW_NOMEM;
}

/* sym's row put in place of sym everywhere; restricted rows that turn negative are noted. */
static kw_status substitute_all(kw_solver *s, uint32_t sym, const row *by) {
  for (uint32_t i = 0; i < s->nbasics; i++) {
    uint32_t b = s->basics[i];
    row *r = s->syms[b].row;
    if (row_coef(r, sym) == 0.0) continue;
    if (!row_substitute(r, sym, by)) return KW_NOMEM;
    if (restricted(s, b) && r->constant < 0.0 && push_infeasible(s, b) != KW_OK) return KW_NOMEM;
  }
  if (!row_substitute(&s->objective, sym, by)) return KW_NOMEM;
  if (s->artificial && !row_substitute(s->artificial, sym, by)) return KW_NOMEM;
  return KW_OK;
}

/* leaving out of the basis, entering (in leaving's row) in. */
static kw_status pivot(kw_solver *s, uint32_t leaving, uint32_t entering) {
  if (s->pivots_left == 0) return KW_NO_PROGRESS;
  s->pivots_left--;
  row *r = unmake_basic(s, leaving);
  if (!row_add(r, leaving, -1.0)) return row_free(r), KW_NOMEM;
  row_solve_for(r, entering);
  kw_status st = substitute_all(s, entering, r);
  if (st != KW_OK) return row_free(r), st;
  st = make_basic(s, entering, r);
  if (st != KW_OK) row_free(r);
  return st;
}

/* ---- the simplex ---------------------------------------------------------- */

static int in_any_row(const kw_solver *s, uint32_t sym) {
  for (uint32_t i = 0; i < s->nbasics; i++)
    if (row_coef(s->syms[s->basics[i]].row, sym) != 0.0) return 1;
  return 0;
}

/* Primal simplex: lowers obj while every restricted row stays >= 0. A
 * restricted symbol can only grow from 0; a user variable may go either way. */
static kw_status optimize(kw_solver *s, row *obj) {
  for (;;) {
    uint32_t entering = 0;
    double dir = 0.0;
    for (uint32_t i = 0; i < obj->n && !entering; i++) {
      const cell *c = &obj->cells[i];
      if (s->syms[c->sym].kind == SYM_DUMMY || near_zero(c->coef)) continue;
      if (c->coef < 0.0) entering = c->sym, dir = 1.0;
      else if (s->syms[c->sym].kind == SYM_EXTERNAL) entering = c->sym, dir = -1.0;
    }
    if (!entering) return KW_OK;
    uint32_t leaving = 0;
    double best = INFINITY;
    for (uint32_t i = 0; i < s->nbasics; i++) {
      uint32_t b = s->basics[i];
      if (!restricted(s, b)) continue;
      double a = row_coef(s->syms[b].row, entering) * dir;
      if (a >= 0.0) continue;
      double ratio = s->syms[b].row->constant / -a;
      if (ratio < best || (ratio == best && b < leaving)) best = ratio, leaving = b;
    }
    if (!leaving) {
      /* Unbounded, though the objective is a sum of errors >= 0: rounding
       * left a symbol no row holds in it. Dropped; anything else is a failure. */
      if (in_any_row(s, entering)) return KW_NO_PROGRESS;
      row_remove(obj, entering);
      continue;
    }
    kw_status st = pivot(s, leaving, entering);
    if (st != KW_OK) return st;
  }
}

/* Dual simplex: brings the noted negative rows back to >= 0, the objective staying minimal. */
static kw_status dual_optimize(kw_solver *s) {
  while (s->ninf) {
    uint32_t leaving = s->infeasible[--s->ninf];
    row *r = s->syms[leaving].row;
    if (!r || r->constant >= 0.0) continue;
    uint32_t entering = 0;
    double best = INFINITY;
    for (uint32_t i = 0; i < r->n; i++) {
      const cell *c = &r->cells[i];
      int external = s->syms[c->sym].kind == SYM_EXTERNAL;
      if (s->syms[c->sym].kind == SYM_DUMMY || (!external && c->coef <= 0.0)) continue;
      double ratio = fabs(row_coef(&s->objective, c->sym) / c->coef);
      if (ratio < best) best = ratio, entering = c->sym;
    }
    if (!entering) {
      if (near_zero(r->constant)) continue; /* below 0 by rounding only */
      return KW_NO_PROGRESS;                /* only a required constraint could forbid it: edits never are */
    }
    kw_status st = pivot(s, leaving, entering);
    if (st != KW_OK) return st;
  }
  return KW_OK;
}

/* ---- adding a constraint --------------------------------------------------- */

/* The row "0 = expression +/- its slack and errors", with the basic
 * symbols substituted; the errors enter the objective. */
static kw_status build_row(kw_solver *s, const kw_term *terms, size_t nterms, double constant, kw_op op,
                           double strength, constraint *c, row **out) {
  row *r = row_new(constant);
  if (!r) return KW_NOMEM;
  kw_status st = KW_NOMEM;
  for (size_t i = 0; i < nterms; i++) {
    uint32_t sym = s->vars[terms[i].var - 1].sym;
    int ok = s->syms[sym].row ? row_add_row(r, s->syms[sym].row, terms[i].coefficient)
                              : row_add(r, sym, terms[i].coefficient);
    if (!ok) goto fail;
  }
  int required = strength >= KW_REQUIRED;
  if (op == KW_EQ && required) {
    if ((st = new_symbol(s, SYM_DUMMY, &c->marker)) != KW_OK || (st = KW_NOMEM, !row_add(r, c->marker, 1.0))) goto fail;
  } else if (op == KW_EQ) {
    /* expression = plus - minus */
    if ((st = new_symbol(s, SYM_ERROR, &c->marker)) != KW_OK || (st = new_symbol(s, SYM_ERROR, &c->other)) != KW_OK)
      goto fail;
    st = KW_NOMEM;
    if (!row_add(r, c->marker, -1.0) || !row_add(r, c->other, 1.0) || !row_add(&s->objective, c->marker, strength) ||
        !row_add(&s->objective, c->other, strength))
      goto fail;
  } else {
    /* LE: expression + slack = error; GE: expression - slack = -error */
    double sign = op == KW_LE ? 1.0 : -1.0;
    if ((st = new_symbol(s, SYM_SLACK, &c->marker)) != KW_OK) goto fail;
    st = KW_NOMEM;
    if (!row_add(r, c->marker, sign)) goto fail;
    if (!required) {
      if ((st = new_symbol(s, SYM_ERROR, &c->other)) != KW_OK) goto fail;
      st = KW_NOMEM;
      if (!row_add(r, c->other, -sign) || !row_add(&s->objective, c->other, strength)) goto fail;
    }
  }
  if (r->constant < 0.0) row_scale(r, -1.0);
  *out = r;
  return KW_OK;
fail:
  row_free(r);
  return st;
}

static int in_restricted_row(const kw_solver *s, uint32_t sym) {
  for (uint32_t i = 0; i < s->nbasics; i++)
    if (restricted(s, s->basics[i]) && row_coef(s->syms[s->basics[i]].row, sym) != 0.0) return 1;
  return 0;
}

/* The symbol the new row can be solved for without leaving the solution
 * infeasible: a user variable (if moving it moves no restricted row), else
 * the constraint's own slack or error when its coefficient is negative
 * (the row's constant being >= 0, it comes out >= 0). 0 if none. */
static uint32_t choose_subject(const kw_solver *s, const row *r, const constraint *c) {
  for (uint32_t i = 0; i < r->n; i++) {
    uint32_t sym = r->cells[i].sym;
    if (s->syms[sym].kind == SYM_EXTERNAL && (near_zero(r->constant) || !in_restricted_row(s, sym))) return sym;
  }
  if (s->syms[c->marker].kind != SYM_DUMMY && row_coef(r, c->marker) < 0.0) return c->marker;
  if (c->other && row_coef(r, c->other) < 0.0) return c->other;
  return 0;
}

static int only_dummies(const kw_solver *s, const row *r) {
  for (uint32_t i = 0; i < r->n; i++)
    if (s->syms[r->cells[i].sym].kind != SYM_DUMMY) return 0;
  return 1;
}

/* Phase one: a new restricted symbol equal to the row, minimised; the
 * constraint can hold exactly when it reaches 0. On failure the row is
 * dropped, which leaves the tableau equivalent to what it was. */
static kw_status add_with_artificial(kw_solver *s, row *r) {
  uint32_t art;
  kw_status st = new_symbol(s, SYM_SLACK, &art);
  if (st != KW_OK) return row_free(r), st;
  row goal = {0};
  if (!row_add_row(&goal, r, 1.0)) return row_clear(&goal), row_free(r), KW_NOMEM;
  if ((st = make_basic(s, art, r)) != KW_OK) return row_clear(&goal), row_free(r), st;
  s->artificial = &goal;
  st = optimize(s, &goal);
  s->artificial = NULL;
  int satisfiable = near_zero(goal.constant);
  row_clear(&goal);
  if (st != KW_OK) return st;
  row *ar = s->syms[art].row;
  if (ar) {
    if (!satisfiable || ar->n == 0) {
      row_free(unmake_basic(s, art));
    } else {
      uint32_t entering = ar->cells[0].sym;
      for (uint32_t i = 0; i < ar->n; i++)
        if (s->syms[ar->cells[i].sym].kind == SYM_SLACK || s->syms[ar->cells[i].sym].kind == SYM_ERROR) {
          entering = ar->cells[i].sym;
          break;
        }
      if ((st = pivot(s, art, entering)) != KW_OK) return st;
    }
  }
  if (!satisfiable) return KW_UNSATISFIABLE;
  for (uint32_t i = 0; i < s->nbasics; i++) row_remove(s->syms[s->basics[i]].row, art);
  row_remove(&s->objective, art);
  return KW_OK;
}

static kw_status new_handle(kw_solver *s, uint32_t *handle) {
  if (s->nfree) {
    *handle = s->free_cons[--s->nfree];
    return KW_OK;
  }
  if (!grow((void **)&s->cons, &s->conscap, s->ncons + 1, sizeof *s->cons)) return KW_NOMEM;
  s->cons[s->ncons].live = 0;
  *handle = ++s->ncons;
  return KW_OK;
}

static kw_status release_handle(kw_solver *s, uint32_t handle) {
  if (!grow((void **)&s->free_cons, &s->freecap, s->nfree + 1, sizeof *s->free_cons)) return KW_NOMEM;
  s->cons[handle - 1].live = 0;
  s->free_cons[s->nfree++] = handle;
  return KW_OK;
}

static uint64_t default_budget(const kw_solver *s) { return 10000 + 100 * (uint64_t)s->nsyms; }

static void start_call(kw_solver *s) {
  s->pivots_left = s->budget ? s->budget : default_budget(s);
  s->ninf = 0;
}

kw_status kw_solver_add_constraint(kw_solver *s, const kw_term *terms, size_t nterms, double constant, kw_op op,
                                   double strength, uint32_t *handle) {
  for (size_t i = 0; i < nterms; i++)
    if (terms[i].var == 0 || terms[i].var > s->nvars) return KW_UNKNOWN_VARIABLE;
  start_call(s);
  if (!(strength > 0.0)) strength = 0.0; /* NaN too */
  if (strength > KW_REQUIRED) strength = KW_REQUIRED;
  uint32_t h;
  kw_status st = new_handle(s, &h);
  if (st != KW_OK) return st;
  constraint c = {strength, 0, 0, 1};
  row *r;
  if ((st = build_row(s, terms, nterms, constant, op, strength, &c, &r)) != KW_OK) return st;
  uint32_t subject = choose_subject(s, r, &c);
  if (!subject && only_dummies(s, r)) {
    if (!near_zero(r->constant)) {
      row_free(r);
      return release_handle(s, h) == KW_OK ? KW_UNSATISFIABLE : KW_NOMEM;
    }
    subject = c.marker;
  }
  if (subject) {
    row_solve_for(r, subject);
    if ((st = substitute_all(s, subject, r)) != KW_OK || (st = make_basic(s, subject, r)) != KW_OK)
      return row_free(r), st;
  } else if ((st = add_with_artificial(s, r)) != KW_OK) {
    if (st == KW_UNSATISFIABLE && release_handle(s, h) != KW_OK) return KW_NOMEM;
    return st;
  }
  s->cons[h - 1] = c;
  if ((st = optimize(s, &s->objective)) != KW_OK) return st;
  s->ninf = 0;
  *handle = h;
  return KW_OK;
}

/* ---- removing one ------------------------------------------------------------ */

/* The row to pivot the constraint's marker into, keeping restricted rows
 * >= 0: the tightest of those the marker lowers, else of those it raises,
 * else a user variable's row; 0 if the marker is in no row. */
static uint32_t marker_leaving_row(const kw_solver *s, uint32_t marker) {
  uint32_t lowers = 0, raises = 0, other = 0;
  double best_lowers = INFINITY, best_raises = INFINITY;
  for (uint32_t i = 0; i < s->nbasics; i++) {
    uint32_t b = s->basics[i];
    const row *r = s->syms[b].row;
    double a = row_coef(r, marker);
    if (a == 0.0) continue;
    if (!restricted(s, b)) {
      if (!other || b < other) other = b;
    } else if (a < 0.0) {
      double ratio = -r->constant / a;
      if (ratio < best_lowers || (ratio == best_lowers && b < lowers)) best_lowers = ratio, lowers = b;
    } else {
      double ratio = r->constant / a;
      if (ratio < best_raises || (ratio == best_raises && b < raises)) best_raises = ratio, raises = b;
    }
  }
  return lowers ? lowers : raises ? raises : other;
}

static kw_status remove_constraint(kw_solver *s, uint32_t handle) {
  constraint *c = &s->cons[handle - 1];
  uint32_t errors[2] = {c->marker, c->other};
  for (int i = 0; i < 2; i++) {
    uint32_t e = errors[i];
    if (!e || s->syms[e].kind != SYM_ERROR) continue;
    int ok = s->syms[e].row ? row_add_row(&s->objective, s->syms[e].row, -c->strength)
                            : row_add(&s->objective, e, -c->strength);
    if (!ok) return KW_NOMEM;
  }
  kw_status st;
  if (!s->syms[c->marker].row) {
    uint32_t leaving = marker_leaving_row(s, c->marker);
    if (leaving && (st = pivot(s, leaving, c->marker)) != KW_OK) return st;
  }
  if (s->syms[c->marker].row) row_free(unmake_basic(s, c->marker));
  /* The constraint's symbols are in no row now, exactly; rounding may have left traces. */
  for (int i = 0; i < 2; i++) {
    if (!errors[i]) continue;
    for (uint32_t j = 0; j < s->nbasics; j++) row_remove(s->syms[s->basics[j]].row, errors[i]);
    row_remove(&s->objective, errors[i]);
  }
  if ((st = release_handle(s, handle)) != KW_OK) return st;
  st = optimize(s, &s->objective);
  s->ninf = 0;
  return st;
}

kw_status kw_solver_remove_constraint(kw_solver *s, uint32_t handle) {
  if (handle == 0 || handle > s->ncons || !s->cons[handle - 1].live) return KW_UNKNOWN_CONSTRAINT;
  start_call(s);
  return remove_constraint(s, handle);
}

/* ---- edit variables ------------------------------------------------------------ */

kw_status kw_solver_add_edit(kw_solver *s, uint32_t var, double strength) {
  if (var == 0 || var > s->nvars) return KW_UNKNOWN_VARIABLE;
  if (s->vars[var - 1].edit) return KW_DUPLICATE_EDIT;
  if (strength >= KW_REQUIRED) return KW_BAD_STRENGTH;
  kw_term t = {var, 1.0};
  uint32_t h;
  kw_status st = kw_solver_add_constraint(s, &t, 1, 0.0, KW_EQ, strength, &h);
  if (st != KW_OK) return st;
  s->vars[var - 1].edit = h;
  s->vars[var - 1].edit_value = 0.0;
  return KW_OK;
}

kw_status kw_solver_remove_edit(kw_solver *s, uint32_t var) {
  if (var == 0 || var > s->nvars) return KW_UNKNOWN_VARIABLE;
  uint32_t h = s->vars[var - 1].edit;
  if (!h) return KW_UNKNOWN_EDIT;
  s->vars[var - 1].edit = 0;
  start_call(s);
  return remove_constraint(s, h);
}

/* The edit's equation "var - value = plus - minus": moving value by delta
 * moves plus (or minus) by the same, and every row holding it. */
kw_status kw_solver_suggest(kw_solver *s, uint32_t var, double value) {
  if (var == 0 || var > s->nvars) return KW_UNKNOWN_VARIABLE;
  uint32_t h = s->vars[var - 1].edit;
  if (!h) return KW_UNKNOWN_EDIT;
  start_call(s);
  const constraint *c = &s->cons[h - 1];
  double delta = value - s->vars[var - 1].edit_value;
  s->vars[var - 1].edit_value = value;
  row *r;
  if ((r = s->syms[c->marker].row)) {
    r->constant -= delta;
    if (r->constant < 0.0 && push_infeasible(s, c->marker) != KW_OK) return KW_NOMEM;
  } else if ((r = s->syms[c->other].row)) {
    r->constant += delta;
    if (r->constant < 0.0 && push_infeasible(s, c->other) != KW_OK) return KW_NOMEM;
  } else {
    for (uint32_t i = 0; i < s->nbasics; i++) {
      uint32_t b = s->basics[i];
      double a = row_coef(s->syms[b].row, c->marker);
      if (a == 0.0) continue;
      s->syms[b].row->constant += a * delta;
      if (restricted(s, b) && s->syms[b].row->constant < 0.0 && push_infeasible(s, b) != KW_OK) return KW_NOMEM;
    }
  }
  return dual_optimize(s);
}

/* ---- variables and the solver itself ------------------------------------------- */

kw_status kw_solver_new_variable(kw_solver *s, uint32_t *var) {
  uint32_t n = s->nvars + 1, sym;
  if (!grow((void **)&s->vars, &s->varcap, n, sizeof *s->vars)) return KW_NOMEM;
  kw_status st = new_symbol(s, SYM_EXTERNAL, &sym);
  if (st != KW_OK) return st;
  s->vars[n - 1] = (variable){sym, 0, 0.0};
  s->nvars = n;
  *var = n;
  return KW_OK;
}

double kw_solver_value(const kw_solver *s, uint32_t var) {
  if (var == 0 || var > s->nvars) return 0.0;
  const row *r = s->syms[s->vars[var - 1].sym].row;
  return r ? r->constant : 0.0;
}

kw_solver *kw_solver_new(void) { return calloc(1, sizeof(kw_solver)); }

void kw_solver_reset(kw_solver *s) {
  for (uint32_t i = 0; i < s->nbasics; i++) row_free(s->syms[s->basics[i]].row);
  free(s->syms);
  free(s->basics);
  free(s->vars);
  free(s->cons);
  free(s->free_cons);
  free(s->infeasible);
  row_clear(&s->objective);
  uint64_t budget = s->budget;
  memset(s, 0, sizeof *s);
  s->budget = budget;
}

void kw_solver_free(kw_solver *s) {
  if (!s) return;
  kw_solver_reset(s);
  free(s);
}

void kw_solver_set_pivot_budget(kw_solver *s, uint64_t pivots) { s->budget = pivots; }
