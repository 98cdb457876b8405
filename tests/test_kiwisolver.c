/* The Cassowary solver of our kiwisolver (runtimes/python/kiwisolver/
 * solver.c) on systems whose answers are known: equalities, strengths,
 * edit variables and their suggestions, removals, unsatisfiable required
 * constraints leaving the solution as it was, every refusal, the pivot
 * budget, a long chain, and allocation failing at each step in turn. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

/* The solver's allocations can be made to fail: after fail_after more succeed. */
static long fail_after = -1;
static int allocation_fails(void) { return fail_after >= 0 && fail_after-- == 0; }
static void *failing_calloc(size_t n, size_t size) { return allocation_fails() ? NULL : calloc(n, size); }
static void *failing_realloc(void *p, size_t size) { return allocation_fails() ? NULL : realloc(p, size); }
#define calloc failing_calloc
#define realloc failing_realloc
#include "solver.c"
#undef calloc
#undef realloc

#define CLOSE(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static uint32_t var(kw_solver *s) {
  uint32_t v = 0;
  assert_int_equal(kw_solver_new_variable(s, &v), KW_OK);
  return v;
}

/* terms as (variable, coefficient) pairs, n of them */
static kw_status add(kw_solver *s, uint32_t *handle, double constant, kw_op op, double strength, int n, ...) {
  kw_term terms[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) {
    terms[i].var = va_arg(ap, uint32_t);
    terms[i].coefficient = va_arg(ap, double);
  }
  va_end(ap);
  uint32_t h;
  kw_status st = kw_solver_add_constraint(s, terms, (size_t)n, constant, op, strength, handle ? handle : &h);
  return st;
}

static void equalities(void **state) {
  (void)state;
  kw_solver *s = kw_solver_new();
  uint32_t x = var(s), y = var(s), z = var(s);
  assert_int_equal(add(s, NULL, -10, KW_EQ, KW_REQUIRED, 1, x, 1.0), KW_OK);         /* x = 10 */
  assert_int_equal(add(s, NULL, -1, KW_EQ, KW_REQUIRED, 2, y, 1.0, x, -2.0), KW_OK); /* y = 2x + 1 */
  assert_int_equal(add(s, NULL, 0, KW_EQ, KW_REQUIRED, 3, z, 2.0, x, -1.0, y, -1.0), KW_OK);
  CLOSE(kw_solver_value(s, x), 10);
  CLOSE(kw_solver_value(s, y), 21);
  CLOSE(kw_solver_value(s, z), 15.5);
  CLOSE(kw_solver_value(s, 99), 0); /* no such variable */
  kw_solver_free(s);
}

static void strengths(void **state) {
  (void)state;
  kw_solver *s = kw_solver_new();
  uint32_t x = var(s), y = var(s);
  assert_int_equal(add(s, NULL, -100, KW_EQ, KW_REQUIRED, 2, x, 1.0, y, 1.0), KW_OK);
  assert_int_equal(add(s, NULL, -70, KW_EQ, KW_WEAK, 1, x, 1.0), KW_OK);
  assert_int_equal(add(s, NULL, -50, KW_EQ, KW_MEDIUM, 1, y, 1.0), KW_OK);
  CLOSE(kw_solver_value(s, x), 50); /* medium beats weak */
  assert_int_equal(add(s, NULL, -60, KW_GE, KW_STRONG, 1, x, 1.0), KW_OK);
  CLOSE(kw_solver_value(s, x), 60);
  CLOSE(kw_solver_value(s, y), 40);
  assert_int_equal(add(s, NULL, -55, KW_LE, KW_REQUIRED, 1, x, 1.0), KW_OK);
  CLOSE(kw_solver_value(s, x), 55);
  CLOSE(kw_solver_value(s, y), 45);
  /* weights add up: 3 weak pulls beat 2 */
  uint32_t z = var(s);
  for (int i = 0; i < 3; i++) assert_int_equal(add(s, NULL, -1, KW_EQ, KW_WEAK, 1, z, 1.0), KW_OK);
  for (int i = 0; i < 2; i++) assert_int_equal(add(s, NULL, -2, KW_EQ, KW_WEAK, 1, z, 1.0), KW_OK);
  CLOSE(kw_solver_value(s, z), 1);
  kw_solver_free(s);
}

static void edits(void **state) {
  (void)state;
  kw_solver *s = kw_solver_new();
  uint32_t left = var(s), right = var(s), width = var(s);
  assert_int_equal(add(s, NULL, 0, KW_EQ, KW_REQUIRED, 3, width, 1.0, right, -1.0, left, 1.0), KW_OK);
  assert_int_equal(add(s, NULL, 0, KW_GE, KW_REQUIRED, 1, left, 1.0), KW_OK);
  assert_int_equal(add(s, NULL, -500, KW_LE, KW_REQUIRED, 1, right, 1.0), KW_OK);
  assert_int_equal(add(s, NULL, -100, KW_EQ, KW_STRONG, 1, width, 1.0), KW_OK);
  assert_int_equal(kw_solver_add_edit(s, left, KW_MEDIUM), KW_OK);
  CLOSE(kw_solver_value(s, left), 0); /* an edit starts at 0 */
  const double suggested[] = {10, 50, 450, 600, -30, 200};
  const double expected[] = {10, 50, 400, 400, 0, 200}; /* right <= 500 and left >= 0 are required */
  for (int i = 0; i < 6; i++) {
    assert_int_equal(kw_solver_suggest(s, left, suggested[i]), KW_OK);
    CLOSE(kw_solver_value(s, left), expected[i]);
    CLOSE(kw_solver_value(s, right), expected[i] + 100);
  }
  /* a stronger edit wins over the width */
  assert_int_equal(kw_solver_add_edit(s, right, KW_STRONG * 2), KW_OK);
  assert_int_equal(kw_solver_suggest(s, right, 300), KW_OK);
  CLOSE(kw_solver_value(s, left), 200);
  CLOSE(kw_solver_value(s, width), 100);
  assert_int_equal(kw_solver_suggest(s, right, 250), KW_OK); /* the width (strong) beats left (medium) */
  CLOSE(kw_solver_value(s, right), 250);
  CLOSE(kw_solver_value(s, left), 150);
  CLOSE(kw_solver_value(s, width), 100);
  assert_int_equal(kw_solver_remove_edit(s, right), KW_OK);
  CLOSE(kw_solver_value(s, width), 100);
  /* the refusals */
  assert_int_equal(kw_solver_add_edit(s, left, KW_WEAK), KW_DUPLICATE_EDIT);
  assert_int_equal(kw_solver_add_edit(s, right, KW_REQUIRED), KW_BAD_STRENGTH);
  assert_int_equal(kw_solver_suggest(s, right, 1), KW_UNKNOWN_EDIT);
  assert_int_equal(kw_solver_remove_edit(s, right), KW_UNKNOWN_EDIT);
  assert_int_equal(kw_solver_add_edit(s, 77, KW_WEAK), KW_UNKNOWN_VARIABLE);
  assert_int_equal(kw_solver_suggest(s, 0, 1), KW_UNKNOWN_VARIABLE);
  CLOSE(kw_solver_value(s, left), 200);
  kw_solver_free(s);
}

static void removals(void **state) {
  (void)state;
  kw_solver *s = kw_solver_new();
  uint32_t a = var(s), b = var(s), c = var(s), h[4];
  assert_int_equal(add(s, &h[0], 0, KW_EQ, KW_REQUIRED, 3, a, 1.0, b, 1.0, c, -1.0), KW_OK); /* a + b = c */
  assert_int_equal(add(s, &h[1], -3, KW_EQ, KW_STRONG, 1, a, 1.0), KW_OK);
  assert_int_equal(add(s, &h[2], -4, KW_EQ, KW_MEDIUM, 1, b, 1.0), KW_OK);
  assert_int_equal(add(s, &h[3], -5, KW_LE, KW_REQUIRED, 1, c, 1.0), KW_OK);
  CLOSE(kw_solver_value(s, a), 3);
  CLOSE(kw_solver_value(s, b), 2);
  assert_int_equal(kw_solver_remove_constraint(s, h[3]), KW_OK);
  CLOSE(kw_solver_value(s, b), 4);
  CLOSE(kw_solver_value(s, c), 7);
  assert_int_equal(kw_solver_remove_constraint(s, h[3]), KW_UNKNOWN_CONSTRAINT);
  assert_int_equal(kw_solver_remove_constraint(s, 0), KW_UNKNOWN_CONSTRAINT);
  assert_int_equal(kw_solver_remove_constraint(s, 1000), KW_UNKNOWN_CONSTRAINT);
  assert_int_equal(kw_solver_remove_constraint(s, h[0]), KW_OK);
  CLOSE(kw_solver_value(s, c), 0); /* nothing pins it now */
  /* a freed handle is reused, and means the new constraint */
  uint32_t again;
  assert_int_equal(add(s, &again, -9, KW_EQ, KW_REQUIRED, 1, c, 1.0), KW_OK);
  CLOSE(kw_solver_value(s, c), 9);
  assert_int_equal(kw_solver_remove_constraint(s, again), KW_OK);
  CLOSE(kw_solver_value(s, c), 0);
  /* the same requirement twice is no conflict; either may go */
  assert_int_equal(add(s, &h[0], -2, KW_EQ, KW_REQUIRED, 1, a, 1.0), KW_OK);
  assert_int_equal(add(s, &h[3], -2, KW_EQ, KW_REQUIRED, 1, a, 1.0), KW_OK);
  assert_int_equal(kw_solver_remove_constraint(s, h[0]), KW_OK);
  CLOSE(kw_solver_value(s, a), 2);
  assert_int_equal(kw_solver_remove_constraint(s, h[3]), KW_OK);
  CLOSE(kw_solver_value(s, a), 3);
  kw_solver_free(s);
}

static void unsatisfiable(void **state) {
  (void)state;
  kw_solver *s = kw_solver_new();
  uint32_t x = var(s), y = var(s);
  assert_int_equal(add(s, NULL, -10, KW_GE, KW_REQUIRED, 1, x, 1.0), KW_OK);
  assert_int_equal(add(s, NULL, -1, KW_EQ, KW_REQUIRED, 2, y, 1.0, x, -1.0), KW_OK);
  assert_int_equal(add(s, NULL, -5, KW_LE, KW_REQUIRED, 1, x, 1.0), KW_UNSATISFIABLE);
  assert_int_equal(add(s, NULL, -2, KW_EQ, KW_REQUIRED, 1, y, 1.0), KW_UNSATISFIABLE);
  assert_int_equal(add(s, NULL, 1, KW_EQ, KW_REQUIRED, 0), KW_UNSATISFIABLE); /* 1 == 0 */
  assert_int_equal(add(s, NULL, 1, KW_LE, KW_REQUIRED, 0), KW_UNSATISFIABLE); /* 1 <= 0 */
  assert_int_equal(add(s, NULL, 0, KW_EQ, KW_REQUIRED, 0), KW_OK);
  assert_int_equal(add(s, NULL, -1, KW_LE, KW_REQUIRED, 0), KW_OK);
  /* the refused constraints left nothing behind: a weak pull moves x freely upwards only */
  CLOSE(kw_solver_value(s, x), 10);
  CLOSE(kw_solver_value(s, y), 11);
  assert_int_equal(add(s, NULL, -30, KW_EQ, KW_WEAK, 1, x, 1.0), KW_OK);
  CLOSE(kw_solver_value(s, x), 30);
  CLOSE(kw_solver_value(s, y), 31);
  assert_int_equal(add(s, NULL, -3, KW_LE, KW_STRONG, 1, x, 1.0), KW_OK); /* not required: met as far as it can be */
  CLOSE(kw_solver_value(s, x), 10);
  assert_int_equal(add(s, NULL, 0, KW_EQ, KW_REQUIRED, 1, 42, 1.0), KW_UNKNOWN_VARIABLE);
  kw_solver_free(s);
}

static void long_chain(void **state) {
  (void)state;
  enum { N = 1000 };
  kw_solver *s = kw_solver_new();
  uint32_t v[N];
  for (int i = 0; i < N; i++) v[i] = var(s);
  for (int i = N - 1; i > 0; i--)
    assert_int_equal(add(s, NULL, -1, KW_EQ, KW_REQUIRED, 2, v[i], 1.0, v[i - 1], -1.0), KW_OK);
  assert_int_equal(add(s, NULL, 0, KW_EQ, KW_REQUIRED, 1, v[0], 1.0), KW_OK);
  CLOSE(kw_solver_value(s, v[N - 1]), N - 1);
  assert_int_equal(kw_solver_add_edit(s, v[0], KW_STRONG), KW_OK);
  assert_int_equal(kw_solver_suggest(s, v[0], 5), KW_OK); /* required beats the edit */
  CLOSE(kw_solver_value(s, v[N - 1]), N - 1);
  kw_solver_free(s);
}

/* Non-finite input ends (whatever it solves to) and the solver stays usable after a reset. */
static void non_finite(void **state) {
  (void)state;
  kw_solver *s = kw_solver_new();
  uint32_t x = var(s), y = var(s);
  add(s, NULL, NAN, KW_EQ, KW_REQUIRED, 1, x, 1.0);
  add(s, NULL, 0, KW_LE, KW_STRONG, 2, x, INFINITY, y, 1.0);
  add(s, NULL, 1, KW_GE, NAN, 2, x, NAN, y, -1.0);
  kw_solver_add_edit(s, y, KW_STRONG);
  kw_solver_suggest(s, y, NAN);
  kw_solver_reset(s);
  x = var(s);
  assert_int_equal(add(s, NULL, -4, KW_EQ, KW_REQUIRED, 1, x, 1.0), KW_OK);
  CLOSE(kw_solver_value(s, x), 4);
  kw_solver_free(s);
}

/* Random systems like tests/kiwisolver_cases.py's, strengths up to 1e7:
 * every call succeeds or is refused as unsatisfiable, and the required
 * constraints hold after each, through suggestions and removals. */
static uint64_t lcg = 88172645463325252u;
static double uniform(double lo, double hi) {
  lcg = lcg * 6364136223846793005u + 1442695040888963407u;
  return lo + (hi - lo) * (double)(lcg >> 11) / 9007199254740992.0;
}

typedef struct {
  kw_term terms[4];
  int n, required;
  double constant;
  kw_op op;
  uint32_t handle;
} random_constraint;

static void assert_required_hold(kw_solver *s, const random_constraint *cs, int n) {
  for (int i = 0; i < n; i++) {
    if (!cs[i].required || !cs[i].handle) continue;
    double x = cs[i].constant;
    for (int t = 0; t < cs[i].n; t++) x += cs[i].terms[t].coefficient * kw_solver_value(s, cs[i].terms[t].var);
    assert_true(cs[i].op == KW_EQ ? fabs(x) < 1e-6 : cs[i].op == KW_LE ? x < 1e-6 : x > -1e-6);
  }
}

static void random_systems(void **state) {
  (void)state;
  for (int system = 0; system < 1500; system++) {
    kw_solver *s = kw_solver_new();
    uint32_t v[8];
    int nv = 2 + (int)uniform(0, 7), nc = 1 + (int)uniform(0, 10);
    for (int i = 0; i < nv; i++) {
      v[i] = var(s);
      kw_term stay = {v[i], 1.0};
      uint32_t h;
      assert_int_equal(kw_solver_add_constraint(s, &stay, 1, uniform(-50, 50), KW_EQ, uniform(0.5, 2), &h), KW_OK);
    }
    random_constraint cs[10];
    for (int i = 0; i < nc; i++) {
      random_constraint *c = &cs[i];
      c->n = 1 + (int)uniform(0, nv < 4 ? nv : 4);
      for (int t = 0; t < c->n; t++) c->terms[t] = (kw_term){v[(int)uniform(0, nv)], uniform(-4, 4)};
      c->constant = uniform(-20, 20);
      c->op = (kw_op)(int)uniform(0, 3);
      c->required = uniform(0, 1) < 0.4;
      kw_status st = kw_solver_add_constraint(s, c->terms, (size_t)c->n, c->constant, c->op,
                                              c->required ? KW_REQUIRED : uniform(3, 1e6), &c->handle);
      if (st == KW_UNSATISFIABLE) c->handle = 0;
      else assert_int_equal(st, KW_OK);
      assert_required_hold(s, cs, i + 1);
    }
    int ne = (int)uniform(0, 4) % (nv + 1);
    for (int i = 0; i < ne; i++) assert_int_equal(kw_solver_add_edit(s, v[i], uniform(2.5, 1e7)), KW_OK);
    for (int round = (int)uniform(0, 7); round > 0; round--) {
      for (int i = 0; i < ne; i++) assert_int_equal(kw_solver_suggest(s, v[i], uniform(-100, 100)), KW_OK);
      assert_required_hold(s, cs, nc);
    }
    for (int i = 0; i < nc; i++) {
      if (!cs[i].handle || uniform(0, 1) < 0.3) continue;
      assert_int_equal(kw_solver_remove_constraint(s, cs[i].handle), KW_OK);
      cs[i].handle = 0;
      assert_required_hold(s, cs, nc);
    }
    for (int i = 0; i < ne; i++) assert_int_equal(kw_solver_remove_edit(s, v[i]), KW_OK);
    assert_required_hold(s, cs, nc);
    kw_solver_free(s);
  }
}

/* The strengths scenario; KW_OK if every step went through. */
static kw_status scenario(kw_solver *s) {
  uint32_t x, y, h;
  kw_status st;
  if ((st = kw_solver_new_variable(s, &x)) || (st = kw_solver_new_variable(s, &y))) return st;
  kw_term sum[2] = {{x, 1.0}, {y, 1.0}}, tx = {x, 1.0}, ty = {y, 1.0};
  if ((st = kw_solver_add_constraint(s, sum, 2, -100, KW_EQ, KW_REQUIRED, &h)) ||
      (st = kw_solver_add_constraint(s, &tx, 1, -70, KW_EQ, KW_WEAK, &h)) ||
      (st = kw_solver_add_constraint(s, &ty, 1, -50, KW_EQ, KW_MEDIUM, &h)) ||
      (st = kw_solver_add_constraint(s, &tx, 1, -60, KW_GE, KW_STRONG, &h)) ||
      (st = kw_solver_add_edit(s, y, KW_STRONG * 10)) || (st = kw_solver_suggest(s, y, 20)) ||
      (st = kw_solver_suggest(s, y, 45)) || (st = kw_solver_remove_constraint(s, h)) ||
      (st = kw_solver_remove_edit(s, y)))
    return st;
  return fabs(kw_solver_value(s, x) - 50) < 1e-9 ? KW_OK : KW_UNSATISFIABLE;
}

static void pivot_budget(void **state) {
  (void)state;
  kw_solver *s = kw_solver_new();
  kw_solver_set_pivot_budget(s, 1);
  assert_int_equal(scenario(s), KW_NO_PROGRESS);
  kw_solver_reset(s);
  kw_solver_set_pivot_budget(s, 0);
  assert_int_equal(scenario(s), KW_OK);
  kw_solver_free(s);
}

/* Every allocation of the scenario failing in turn: KW_NOMEM, nothing
 * leaked or broken (ASan watches), and the solver works after a reset. */
static void allocation_failures(void **state) {
  (void)state;
  int failures = 0;
  for (long n = 0;; n++) {
    kw_solver *s = kw_solver_new();
    assert_non_null(s);
    fail_after = n;
    kw_status st = scenario(s);
    fail_after = -1;
    if (st == KW_OK) {
      kw_solver_free(s);
      break;
    }
    assert_int_equal(st, KW_NOMEM);
    failures++;
    kw_solver_reset(s);
    assert_int_equal(scenario(s), KW_OK);
    kw_solver_free(s);
  }
  assert_true(failures > 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(equalities),     cmocka_unit_test(strengths),
      cmocka_unit_test(edits),          cmocka_unit_test(removals),
      cmocka_unit_test(unsatisfiable),  cmocka_unit_test(long_chain),
      cmocka_unit_test(non_finite),     cmocka_unit_test(pivot_budget),
      cmocka_unit_test(random_systems), cmocka_unit_test(allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
