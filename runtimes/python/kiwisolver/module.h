/* The CPython module `kiwisolver`: kiwisolver 1.3's Python API (as
 * matplotlib uses it) over the Cassowary solver of solver.h.
 *
 *   Variable, Term, Expression: built with + - * / and unary -, numbers on
 *     either side (/ and * only with a number); ==, <=, >= make a Constraint
 *     ("a OP b" is "a - b OP 0", required); <, >, != are TypeErrors.
 *   Constraint(expr, op, strength='required'); `constraint | strength` (either
 *     order) makes a copy at that strength: 'required', 'strong', 'medium',
 *     'weak' or a number, clipped to [0, strength.required].
 *   strength: required, strong, medium, weak and create(a, b, c, w=1.0).
 *   Solver: addConstraint, removeConstraint, hasConstraint, addEditVariable,
 *     removeEditVariable, hasEditVariable, suggestValue, updateVariables,
 *     reset; constraints are told apart by identity.
 *   The exceptions UnsatisfiableConstraint, UnknownConstraint,
 *     DuplicateConstraint, UnknownEditVariable, DuplicateEditVariable,
 *     BadRequiredStrength (the offending constraint or variable as argument).
 *
 * A solver that runs out of memory raises MemoryError, one whose pivot budget
 * runs out raises RuntimeError; either is reset to empty. */
#ifndef KIWI_MODULE_H
#define KIWI_MODULE_H

#include <Python.h>

PyMODINIT_FUNC PyInit_kiwisolver(void);

#endif
