/* The Cassowary linear constraint solver (Badros, Borning and Stuckey, "The
 * Cassowary Linear Arithmetic Constraint Solving Algorithm", 2001): an
 * incremental simplex over a tableau of rows, one per basic symbol. Required
 * constraints must hold; the others are met as well as their strengths
 * allow (the weighted sum of their errors is minimised). Pure C, no Python.
 *
 * Variables, constraints and edit variables are small integer handles the
 * solver hands out. A call returns KW_OK or the reason it refused; a refused
 * call (unsatisfiable, unknown, duplicate, bad strength) leaves the solver
 * as it was. After KW_NOMEM or KW_NO_PROGRESS the contents are lost: only
 * kw_solver_reset and kw_solver_free may follow. Each call's simplex work is
 * bounded by a pivot budget, so a degenerate or non-finite system ends. */
#ifndef KIWI_SOLVER_H
#define KIWI_SOLVER_H

#include <stddef.h>
#include <stdint.h>

typedef struct kw_solver kw_solver;

typedef enum {
  KW_OK,
  KW_NOMEM,
  KW_UNSATISFIABLE,      /* a required constraint cannot hold with the others */
  KW_UNKNOWN_CONSTRAINT, /* no such constraint handle */
  KW_UNKNOWN_EDIT,       /* the variable is not an edit variable */
  KW_DUPLICATE_EDIT,     /* the variable is already an edit variable */
  KW_BAD_STRENGTH,       /* an edit variable cannot be required */
  KW_UNKNOWN_VARIABLE,   /* no such variable handle */
  KW_NO_PROGRESS,        /* the pivot budget ran out */
} kw_status;

typedef enum { KW_EQ, KW_LE, KW_GE } kw_op; /* expression OP 0 */

typedef struct {
  uint32_t var; /* a handle from kw_solver_new_variable */
  double coefficient;
} kw_term;

/* Strengths: a constraint's is clipped to [0, KW_REQUIRED]; KW_REQUIRED must hold. */
#define KW_STRONG 1e6
#define KW_MEDIUM 1e3
#define KW_WEAK 1.0
#define KW_REQUIRED (1000.0 * 1e6 + 1000.0 * 1e3 + 1000.0)

kw_solver *kw_solver_new(void);
void kw_solver_free(kw_solver *s);
/* Forgets every variable, constraint and edit variable. */
void kw_solver_reset(kw_solver *s);
/* Pivots allowed per call (0: the default, a generous multiple of the size). */
void kw_solver_set_pivot_budget(kw_solver *s, uint64_t pivots);

kw_status kw_solver_new_variable(kw_solver *s, uint32_t *var);
/* The value in the current solution (0 for a variable no constraint pins). */
double kw_solver_value(const kw_solver *s, uint32_t var);

/* Adds "constant + sum(terms) OP 0" at strength; repeated variables add up. */
kw_status kw_solver_add_constraint(kw_solver *s, const kw_term *terms, size_t nterms, double constant, kw_op op,
                                   double strength, uint32_t *constraint);
kw_status kw_solver_remove_constraint(kw_solver *s, uint32_t constraint);

/* An edit variable is held at a suggested value (0 at first) at strength. */
kw_status kw_solver_add_edit(kw_solver *s, uint32_t var, double strength);
kw_status kw_solver_remove_edit(kw_solver *s, uint32_t var);
kw_status kw_solver_suggest(kw_solver *s, uint32_t var, double value);

#endif
