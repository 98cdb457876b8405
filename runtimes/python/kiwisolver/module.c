/* kiwisolver for CPython (module.h): the symbolic types, the strength
 * helpers and Solver, which maps Python objects to solver.h's handles. */
#define PY_SSIZE_T_CLEAN
#include "module.h"

#include <math.h>

#include "solver.h"

#define VERSION "1.3.1"

/* A method or slot with its own object type, through void (*)(void) so that
 * -Wcast-function-type accepts it (the call's ABI is the same). */
#define CAST(type, f) ((type)(void (*)(void))(f))

static PyObject *Unsatisfiable, *UnknownConstraint, *DuplicateConstraint, *UnknownEdit, *DuplicateEdit,
    *BadRequiredStrength;

/* ---- the types -------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD PyObject *name; /* str */
  PyObject *context;
  double value;
} Variable;

typedef struct {
  PyObject_HEAD PyObject *variable; /* Variable */
  double coefficient;
} Term;

typedef struct {
  PyObject_HEAD PyObject *terms; /* tuple of Term */
  double constant;
} Expression;

typedef struct {
  PyObject_HEAD PyObject *expression; /* Expression, like terms combined */
  kw_op op;
  double strength;
} Constraint;

static PyTypeObject VariableType, TermType, ExpressionType, ConstraintType;

#define IS_VARIABLE(o) PyObject_TypeCheck(o, &VariableType)
#define IS_TERM(o) PyObject_TypeCheck(o, &TermType)
#define IS_EXPRESSION(o) PyObject_TypeCheck(o, &ExpressionType)
#define IS_CONSTRAINT(o) PyObject_TypeCheck(o, &ConstraintType)
#define IS_SYMBOLIC(o) (IS_VARIABLE(o) || IS_TERM(o) || IS_EXPRESSION(o))
#define IS_NUMBER(o) (PyFloat_Check(o) || PyLong_Check(o))

static PyObject *new_term(PyObject *variable, double coefficient) {
  Term *t = PyObject_GC_New(Term, &TermType);
  if (!t) return NULL;
  Py_INCREF(variable);
  t->variable = variable;
  t->coefficient = coefficient;
  PyObject_GC_Track(t);
  return (PyObject *)t;
}

/* Steals terms. */
static PyObject *new_expression(PyObject *terms, double constant) {
  if (!terms) return NULL;
  Expression *e = PyObject_GC_New(Expression, &ExpressionType);
  if (!e) return Py_DECREF(terms), NULL;
  e->terms = terms;
  e->constant = constant;
  PyObject_GC_Track(e);
  return (PyObject *)e;
}

/* Steals expression. */
static PyObject *new_constraint(PyObject *expression, kw_op op, double strength) {
  if (!expression) return NULL;
  Constraint *c = PyObject_GC_New(Constraint, &ConstraintType);
  if (!c) return Py_DECREF(expression), NULL;
  c->expression = expression;
  c->op = op;
  c->strength = strength;
  PyObject_GC_Track(c);
  return (PyObject *)c;
}

/* Any symbolic value as a new Expression. */
static PyObject *as_expression(PyObject *o) {
  if (IS_EXPRESSION(o)) return Py_NewRef(o);
  PyObject *term = IS_TERM(o) ? Py_NewRef(o) : new_term(o, 1.0);
  if (!term) return NULL;
  PyObject *terms = PyTuple_Pack(1, term);
  Py_DECREF(term);
  return new_expression(terms, 0.0);
}

static int to_double(PyObject *o, double *x) {
  *x = PyFloat_Check(o) ? PyFloat_AS_DOUBLE(o) : PyLong_AsDouble(o);
  return *x == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* Variable and Term times a number make a Term, Expression an Expression. */
static PyObject *scale(PyObject *o, double k) {
  if (IS_VARIABLE(o)) return new_term(o, k);
  if (IS_TERM(o)) return new_term(((Term *)o)->variable, ((Term *)o)->coefficient * k);
  Expression *e = (Expression *)o;
  Py_ssize_t n = PyTuple_GET_SIZE(e->terms);
  PyObject *terms = PyTuple_New(n);
  if (!terms) return NULL;
  for (Py_ssize_t i = 0; i < n; i++) {
    Term *t = (Term *)PyTuple_GET_ITEM(e->terms, i);
    PyObject *scaled = new_term(t->variable, t->coefficient * k);
    if (!scaled) return Py_DECREF(terms), NULL;
    PyTuple_SET_ITEM(terms, i, scaled);
  }
  return new_expression(terms, e->constant * k);
}

/* a + k * b as an Expression, a and b symbolic or numbers (not both numbers). */
static PyObject *combine(PyObject *a, PyObject *b, double k) {
  PyObject *ea = NULL, *eb = NULL, *terms = NULL;
  double ca = 0.0, cb = 0.0;
  if (IS_NUMBER(a) ? to_double(a, &ca) : !(ea = as_expression(a))) goto done;
  if (IS_NUMBER(b) ? to_double(b, &cb) : !(eb = as_expression(b))) goto done;
  if (eb && k != 1.0) {
    PyObject *s = scale(eb, k);
    Py_SETREF(eb, s);
    if (!eb) goto done;
  }
  Py_ssize_t na = ea ? PyTuple_GET_SIZE(((Expression *)ea)->terms) : 0;
  Py_ssize_t nb = eb ? PyTuple_GET_SIZE(((Expression *)eb)->terms) : 0;
  if (!(terms = PyTuple_New(na + nb))) goto done;
  for (Py_ssize_t i = 0; i < na; i++)
    PyTuple_SET_ITEM(terms, i, Py_NewRef(PyTuple_GET_ITEM(((Expression *)ea)->terms, i)));
  for (Py_ssize_t i = 0; i < nb; i++)
    PyTuple_SET_ITEM(terms, na + i, Py_NewRef(PyTuple_GET_ITEM(((Expression *)eb)->terms, i)));
  double constant = (ea ? ((Expression *)ea)->constant : ca) + (eb ? ((Expression *)eb)->constant : cb * k);
  Py_XDECREF(ea);
  Py_XDECREF(eb);
  return new_expression(terms, constant);
done:
  Py_XDECREF(ea);
  Py_XDECREF(eb);
  return NULL;
}

static int operands_ok(PyObject *a, PyObject *b) {
  return (IS_SYMBOLIC(a) || IS_NUMBER(a)) && (IS_SYMBOLIC(b) || IS_NUMBER(b));
}

static PyObject *sym_add(PyObject *a, PyObject *b) {
  if (!operands_ok(a, b)) Py_RETURN_NOTIMPLEMENTED;
  return combine(a, b, 1.0);
}

static PyObject *sym_sub(PyObject *a, PyObject *b) {
  if (!operands_ok(a, b)) Py_RETURN_NOTIMPLEMENTED;
  return combine(a, b, -1.0);
}

static PyObject *sym_mul(PyObject *a, PyObject *b) {
  double k;
  if (IS_SYMBOLIC(a) && IS_NUMBER(b)) return to_double(b, &k) ? NULL : scale(a, k);
  if (IS_NUMBER(a) && IS_SYMBOLIC(b)) return to_double(a, &k) ? NULL : scale(b, k);
  Py_RETURN_NOTIMPLEMENTED;
}

static PyObject *sym_div(PyObject *a, PyObject *b) {
  double k;
  if (!IS_SYMBOLIC(a) || !IS_NUMBER(b)) Py_RETURN_NOTIMPLEMENTED;
  if (to_double(b, &k)) return NULL;
  if (k == 0.0) return PyErr_SetString(PyExc_ZeroDivisionError, "float division by zero"), NULL;
  return scale(a, 1.0 / k);
}

static PyObject *sym_neg(PyObject *a) { return scale(a, -1.0); }

/* The expression with each variable once (first appearance order). */
static PyObject *reduce_expression(PyObject *expression) {
  Expression *e = (Expression *)expression;
  Py_ssize_t n = PyTuple_GET_SIZE(e->terms), m = 0;
  PyObject *seen = PyDict_New(); /* id(variable) -> index in coefficients */
  double *coefficients = PyMem_Calloc(n ? (size_t)n : 1, sizeof *coefficients);
  PyObject **variables = PyMem_Calloc(n ? (size_t)n : 1, sizeof *variables);
  PyObject *terms = NULL;
  if (!seen || !coefficients || !variables) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    Term *t = (Term *)PyTuple_GET_ITEM(e->terms, i);
    PyObject *key = PyLong_FromVoidPtr(t->variable);
    if (!key) goto done;
    PyObject *at = PyDict_GetItemWithError(seen, key);
    if (at) {
      coefficients[PyLong_AsSsize_t(at)] += t->coefficient;
    } else if (!PyErr_Occurred()) {
      PyObject *index = PyLong_FromSsize_t(m);
      int failed = !index || PyDict_SetItem(seen, key, index) < 0;
      Py_XDECREF(index);
      if (failed) {
        Py_DECREF(key);
        goto done;
      }
      variables[m] = t->variable;
      coefficients[m++] = t->coefficient;
    }
    Py_DECREF(key);
    if (PyErr_Occurred()) goto done;
  }
  if (!(terms = PyTuple_New(m))) goto done;
  for (Py_ssize_t i = 0; i < m; i++) {
    PyObject *t = new_term(variables[i], coefficients[i]);
    if (!t) {
      Py_CLEAR(terms);
      goto done;
    }
    PyTuple_SET_ITEM(terms, i, t);
  }
done:
  Py_XDECREF(seen);
  PyMem_Free(coefficients);
  PyMem_Free(variables);
  return terms ? new_expression(terms, e->constant) : NULL;
}

/* a OP b as the required constraint "a - b OP 0"; <, > and != are errors
 * (never Python's identity comparison). */
static PyObject *sym_richcompare(PyObject *a, PyObject *b, int op) {
  static const char *names[] = {"<", "<=", "==", "!=", ">", ">="};
  kw_op kop;
  switch (op) {
    case Py_EQ: kop = KW_EQ; break;
    case Py_LE: kop = KW_LE; break;
    case Py_GE: kop = KW_GE; break;
    default:
      return PyErr_Format(PyExc_TypeError, "unsupported operand type(s) for %s: '%s' and '%s'", names[op],
                          Py_TYPE(a)->tp_name, Py_TYPE(b)->tp_name),
             NULL;
  }
  if (!operands_ok(a, b)) Py_RETURN_NOTIMPLEMENTED;
  PyObject *diff = combine(a, b, -1.0);
  if (!diff) return NULL;
  PyObject *reduced = reduce_expression(diff);
  Py_DECREF(diff);
  return new_constraint(reduced, kop, KW_REQUIRED);
}

static PyNumberMethods sym_number = {
    .nb_add = sym_add,
    .nb_subtract = sym_sub,
    .nb_multiply = sym_mul,
    .nb_true_divide = sym_div,
    .nb_negative = sym_neg,
};

static double variable_value(PyObject *v) { return ((Variable *)v)->value; }

/* ---- Variable ------------------------------------------------------------------ */

static PyObject *Variable_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *names[] = {"name", "context", NULL};
  PyObject *name = NULL, *context = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|UO:Variable", names, &name, &context)) return NULL;
  Variable *v = (Variable *)type->tp_alloc(type, 0);
  if (!v) return NULL;
  v->name = name ? Py_NewRef(name) : PyUnicode_FromString("");
  v->context = Py_XNewRef(context);
  v->value = 0.0;
  if (!v->name) return Py_DECREF(v), NULL;
  return (PyObject *)v;
}

static int Variable_traverse(Variable *v, visitproc visit, void *arg) {
  Py_VISIT(v->context);
  return 0;
}

static int Variable_clear(Variable *v) {
  Py_CLEAR(v->context);
  return 0;
}

static void Variable_dealloc(Variable *v) {
  PyObject_GC_UnTrack(v);
  Variable_clear(v);
  Py_CLEAR(v->name);
  Py_TYPE(v)->tp_free((PyObject *)v);
}

static PyObject *Variable_repr(Variable *v) { return Py_NewRef(v->name); }
static PyObject *Variable_name(Variable *v, PyObject *unused) { return (void)unused, Py_NewRef(v->name); }

static PyObject *Variable_setName(Variable *v, PyObject *name) {
  if (!PyUnicode_Check(name)) return PyErr_Format(PyExc_TypeError, "Expected object of type `str`."), NULL;
  Py_SETREF(v->name, Py_NewRef(name));
  Py_RETURN_NONE;
}

static PyObject *Variable_context(Variable *v, PyObject *unused) {
  (void)unused;
  return v->context ? Py_NewRef(v->context) : Py_NewRef(Py_None);
}

static PyObject *Variable_setContext(Variable *v, PyObject *context) {
  Py_XSETREF(v->context, Py_NewRef(context));
  Py_RETURN_NONE;
}

static PyObject *Variable_value(Variable *v, PyObject *unused) { return (void)unused, PyFloat_FromDouble(v->value); }

static PyMethodDef Variable_methods[] = {
    {"name", CAST(PyCFunction, Variable_name), METH_NOARGS, "The variable's name."},
    {"setName", CAST(PyCFunction, Variable_setName), METH_O, "Set the variable's name."},
    {"context", CAST(PyCFunction, Variable_context), METH_NOARGS, "The user's context object."},
    {"setContext", CAST(PyCFunction, Variable_setContext), METH_O, "Set the user's context object."},
    {"value", CAST(PyCFunction, Variable_value), METH_NOARGS, "The value the last updateVariables gave."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject VariableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kiwisolver.Variable",
    .tp_basicsize = sizeof(Variable),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = Variable_new,
    .tp_dealloc = CAST(destructor, Variable_dealloc),
    .tp_traverse = CAST(traverseproc, Variable_traverse),
    .tp_clear = CAST(inquiry, Variable_clear),
    .tp_repr = CAST(reprfunc, Variable_repr),
    .tp_richcompare = sym_richcompare,
    .tp_as_number = &sym_number,
    .tp_methods = Variable_methods,
    .tp_doc = "A variable of constraints, solved for by a Solver.",
};

/* ---- Term ---------------------------------------------------------------------- */

static PyObject *Term_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *names[] = {"variable", "coefficient", NULL};
  PyObject *variable;
  double coefficient = 1.0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!|d:Term", names, &VariableType, &variable, &coefficient))
    return NULL;
  (void)type;
  return new_term(variable, coefficient);
}

static int Term_traverse(Term *t, visitproc visit, void *arg) {
  Py_VISIT(t->variable);
  return 0;
}

static int Term_clear(Term *t) {
  Py_CLEAR(t->variable);
  return 0;
}

static void Term_dealloc(Term *t) {
  PyObject_GC_UnTrack(t);
  Term_clear(t);
  PyObject_GC_Del(t);
}

static PyObject *Term_repr(Term *t) {
  PyObject *k = PyFloat_FromDouble(t->coefficient);
  if (!k) return NULL;
  PyObject *r = PyUnicode_FromFormat("%R * %R", k, t->variable);
  Py_DECREF(k);
  return r;
}

static PyObject *Term_variable(Term *t, PyObject *unused) { return (void)unused, Py_NewRef(t->variable); }
static PyObject *Term_coefficient(Term *t, PyObject *unused) {
  return (void)unused, PyFloat_FromDouble(t->coefficient);
}
static PyObject *Term_value(Term *t, PyObject *unused) {
  return (void)unused, PyFloat_FromDouble(t->coefficient * variable_value(t->variable));
}

static PyMethodDef Term_methods[] = {
    {"variable", CAST(PyCFunction, Term_variable), METH_NOARGS, "The term's variable."},
    {"coefficient", CAST(PyCFunction, Term_coefficient), METH_NOARGS, "The term's coefficient."},
    {"value", CAST(PyCFunction, Term_value), METH_NOARGS, "coefficient * variable.value()"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TermType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kiwisolver.Term",
    .tp_basicsize = sizeof(Term),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = Term_new,
    .tp_dealloc = CAST(destructor, Term_dealloc),
    .tp_traverse = CAST(traverseproc, Term_traverse),
    .tp_clear = CAST(inquiry, Term_clear),
    .tp_repr = CAST(reprfunc, Term_repr),
    .tp_richcompare = sym_richcompare,
    .tp_as_number = &sym_number,
    .tp_methods = Term_methods,
    .tp_doc = "A coefficient times a variable.",
};

/* ---- Expression ------------------------------------------------------------------ */

static PyObject *Expression_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *names[] = {"terms", "constant", NULL};
  PyObject *iterable;
  double constant = 0.0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|d:Expression", names, &iterable, &constant)) return NULL;
  (void)type;
  PyObject *terms = PySequence_Tuple(iterable);
  if (!terms) return NULL;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(terms); i++)
    if (!IS_TERM(PyTuple_GET_ITEM(terms, i))) {
      Py_DECREF(terms);
      return PyErr_Format(PyExc_TypeError, "Expected object of type `Term`."), NULL;
    }
  return new_expression(terms, constant);
}

static int Expression_traverse(Expression *e, visitproc visit, void *arg) {
  Py_VISIT(e->terms);
  return 0;
}

static int Expression_clear(Expression *e) {
  Py_CLEAR(e->terms);
  return 0;
}

static void Expression_dealloc(Expression *e) {
  PyObject_GC_UnTrack(e);
  Expression_clear(e);
  PyObject_GC_Del(e);
}

static PyObject *Expression_repr(Expression *e) {
  PyObject *parts = PyList_New(0), *sep = NULL, *out = NULL;
  if (!parts) return NULL;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(e->terms); i++) {
    PyObject *s = PyObject_Repr(PyTuple_GET_ITEM(e->terms, i));
    if (!s || PyList_Append(parts, s) < 0) {
      Py_XDECREF(s);
      goto done;
    }
    Py_DECREF(s);
  }
  PyObject *k = PyFloat_FromDouble(e->constant);
  PyObject *s = k ? PyObject_Repr(k) : NULL;
  Py_XDECREF(k);
  if (!s || PyList_Append(parts, s) < 0) {
    Py_XDECREF(s);
    goto done;
  }
  Py_DECREF(s);
  if ((sep = PyUnicode_FromString(" + "))) out = PyUnicode_Join(sep, parts);
done:
  Py_XDECREF(sep);
  Py_DECREF(parts);
  return out;
}

static PyObject *Expression_terms(Expression *e, PyObject *unused) { return (void)unused, Py_NewRef(e->terms); }
static PyObject *Expression_constant(Expression *e, PyObject *unused) {
  return (void)unused, PyFloat_FromDouble(e->constant);
}

static double expression_value(const Expression *e) {
  double sum = e->constant;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(e->terms); i++) {
    Term *t = (Term *)PyTuple_GET_ITEM(e->terms, i);
    sum += t->coefficient * variable_value(t->variable);
  }
  return sum;
}

static PyObject *Expression_value(Expression *e, PyObject *unused) {
  return (void)unused, PyFloat_FromDouble(expression_value(e));
}

static PyMethodDef Expression_methods[] = {
    {"terms", CAST(PyCFunction, Expression_terms), METH_NOARGS, "The expression's terms (a tuple)."},
    {"constant", CAST(PyCFunction, Expression_constant), METH_NOARGS, "The expression's constant."},
    {"value", CAST(PyCFunction, Expression_value), METH_NOARGS, "The expression's value from its variables' values."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ExpressionType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kiwisolver.Expression",
    .tp_basicsize = sizeof(Expression),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = Expression_new,
    .tp_dealloc = CAST(destructor, Expression_dealloc),
    .tp_traverse = CAST(traverseproc, Expression_traverse),
    .tp_clear = CAST(inquiry, Expression_clear),
    .tp_repr = CAST(reprfunc, Expression_repr),
    .tp_richcompare = sym_richcompare,
    .tp_as_number = &sym_number,
    .tp_methods = Expression_methods,
    .tp_doc = "A sum of terms and a constant.",
};

/* ---- strengths ------------------------------------------------------------------- */

static double clip(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

/* 'required', 'strong', 'medium', 'weak' or a number, clipped; -1 with an error set. */
static int to_strength(PyObject *o, double *strength) {
  if (PyUnicode_Check(o)) {
    static const struct {
      const char *name;
      double value;
    } names[] = {{"required", KW_REQUIRED}, {"strong", KW_STRONG}, {"medium", KW_MEDIUM}, {"weak", KW_WEAK}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
      if (PyUnicode_CompareWithASCIIString(o, names[i].name) == 0) {
        *strength = names[i].value;
        return 0;
      }
    PyErr_Format(PyExc_ValueError, "string strength must be 'required', 'strong', 'medium', or 'weak', not '%U'", o);
    return -1;
  }
  if (!IS_NUMBER(o)) {
    PyErr_Format(PyExc_TypeError, "Expected object of type `float, int, or str`. Got object of type `%s` instead.",
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  if (to_double(o, strength)) return -1;
  *strength = isnan(*strength) ? 0.0 : clip(*strength, 0.0, KW_REQUIRED);
  return 0;
}

static PyObject *strength_create(PyObject *self, PyObject *args) {
  double a, b, c, w = 1.0;
  (void)self;
  if (!PyArg_ParseTuple(args, "ddd|d:create", &a, &b, &c, &w)) return NULL;
  return PyFloat_FromDouble(clip(a * w, 0.0, 1000.0) * 1e6 + clip(b * w, 0.0, 1000.0) * 1e3 + clip(c * w, 0.0, 1000.0));
}

static PyObject *strength_get(PyObject *self, void *value) {
  (void)self;
  return PyFloat_FromDouble(*(const double *)value);
}

static const double strengths[] = {KW_REQUIRED, KW_STRONG, KW_MEDIUM, KW_WEAK};

static PyGetSetDef strength_getset[] = {
    {"required", strength_get, NULL, "A constraint that must hold.", (void *)&strengths[0]},
    {"strong", strength_get, NULL, NULL, (void *)&strengths[1]},
    {"medium", strength_get, NULL, NULL, (void *)&strengths[2]},
    {"weak", strength_get, NULL, NULL, (void *)&strengths[3]},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef strength_methods[] = {
    {"create", strength_create, METH_VARARGS, "create(a, b, c, w=1.0): a strength from its three levels."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject StrengthType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kiwisolver.strength",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_getset = strength_getset,
    .tp_methods = strength_methods,
    .tp_doc = "The predefined strengths and create().",
};

/* ---- Constraint ------------------------------------------------------------------- */

static const char *op_names[] = {"==", "<=", ">="};

static PyObject *Constraint_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *names[] = {"expression", "op", "strength", NULL};
  PyObject *expression, *op, *strength_obj = NULL;
  double strength = KW_REQUIRED;
  (void)type;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!U|O:Constraint", names, &ExpressionType, &expression, &op,
                                   &strength_obj))
    return NULL;
  int kop = -1;
  for (int i = 0; i < 3; i++)
    if (PyUnicode_CompareWithASCIIString(op, op_names[i]) == 0) kop = i;
  if (kop < 0)
    return PyErr_Format(PyExc_ValueError, "Invalid relational operator: expected '==', '<=' or '>=', got '%U'", op),
           NULL;
  if (strength_obj && to_strength(strength_obj, &strength)) return NULL;
  return new_constraint(reduce_expression(expression), (kw_op)kop, strength);
}

static int Constraint_traverse(Constraint *c, visitproc visit, void *arg) {
  Py_VISIT(c->expression);
  return 0;
}

static int Constraint_clear(Constraint *c) {
  Py_CLEAR(c->expression);
  return 0;
}

static void Constraint_dealloc(Constraint *c) {
  PyObject_GC_UnTrack(c);
  Constraint_clear(c);
  PyObject_GC_Del(c);
}

static PyObject *Constraint_repr(Constraint *c) {
  PyObject *k = PyFloat_FromDouble(c->strength);
  if (!k) return NULL;
  PyObject *r = PyUnicode_FromFormat("%R %s 0 | strength = %R", c->expression, op_names[c->op], k);
  Py_DECREF(k);
  return r;
}

static PyObject *Constraint_expression(Constraint *c, PyObject *unused) {
  return (void)unused, Py_NewRef(c->expression);
}
static PyObject *Constraint_op(Constraint *c, PyObject *unused) {
  return (void)unused, PyUnicode_FromString(op_names[c->op]);
}
static PyObject *Constraint_strength(Constraint *c, PyObject *unused) {
  return (void)unused, PyFloat_FromDouble(c->strength);
}

/* constraint | strength, either way round: a copy at that strength. */
static PyObject *Constraint_or(PyObject *a, PyObject *b) {
  PyObject *c = IS_CONSTRAINT(a) ? a : b, *s = c == a ? b : a;
  double strength;
  if (!IS_CONSTRAINT(c)) Py_RETURN_NOTIMPLEMENTED;
  if (to_strength(s, &strength)) return NULL;
  Constraint *old = (Constraint *)c;
  return new_constraint(Py_NewRef(old->expression), old->op, strength);
}

static PyNumberMethods Constraint_number = {.nb_or = Constraint_or};

static PyMethodDef Constraint_methods[] = {
    {"expression", CAST(PyCFunction, Constraint_expression), METH_NOARGS, "The expression (compared with 0)."},
    {"op", CAST(PyCFunction, Constraint_op), METH_NOARGS, "'==', '<=' or '>='."},
    {"strength", CAST(PyCFunction, Constraint_strength), METH_NOARGS, "The strength."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ConstraintType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kiwisolver.Constraint",
    .tp_basicsize = sizeof(Constraint),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = Constraint_new,
    .tp_dealloc = CAST(destructor, Constraint_dealloc),
    .tp_traverse = CAST(traverseproc, Constraint_traverse),
    .tp_clear = CAST(inquiry, Constraint_clear),
    .tp_repr = CAST(reprfunc, Constraint_repr),
    .tp_as_number = &Constraint_number,
    .tp_methods = Constraint_methods,
    .tp_doc = "expression OP 0 at a strength.",
};

/* ---- Solver ----------------------------------------------------------------------- */

/* Each map is id(object) -> (object, handle): the tuple keeps the object
 * (so its id) alive while the solver knows it. */
typedef struct {
  PyObject_HEAD kw_solver *solver;
  PyObject *variables;   /* Variable -> variable handle */
  PyObject *constraints; /* Constraint -> constraint handle */
  PyObject *edits;       /* Variable -> variable handle */
} Solver;

static PyTypeObject SolverType;

static void solver_forget(Solver *s) {
  kw_solver_reset(s->solver);
  PyDict_Clear(s->variables);
  PyDict_Clear(s->constraints);
  PyDict_Clear(s->edits);
}

/* Raises the exception a status stands for (about obj); NULL. */
static PyObject *raise_status(Solver *s, kw_status st, PyObject *obj) {
  switch (st) {
    case KW_UNSATISFIABLE: PyErr_SetObject(Unsatisfiable, obj); break;
    case KW_UNKNOWN_CONSTRAINT: PyErr_SetObject(UnknownConstraint, obj); break;
    case KW_UNKNOWN_EDIT: PyErr_SetObject(UnknownEdit, obj); break;
    case KW_DUPLICATE_EDIT: PyErr_SetObject(DuplicateEdit, obj); break;
    case KW_BAD_STRENGTH:
      PyErr_SetString(BadRequiredStrength, "A required strength cannot be used in this context.");
      break;
    case KW_NOMEM:
      solver_forget(s);
      PyErr_SetString(PyExc_MemoryError, "kiwisolver: out of memory; the solver was reset");
      break;
    case KW_NO_PROGRESS:
      solver_forget(s);
      PyErr_SetString(PyExc_RuntimeError, "kiwisolver: the simplex made no progress; the solver was reset");
      break;
    default: PyErr_SetString(PyExc_SystemError, "kiwisolver: unexpected solver status"); break;
  }
  return NULL;
}

/* The handle map's entry for obj: borrowed, NULL (no error) if none. */
static PyObject *map_get(PyObject *map, PyObject *obj) {
  PyObject *key = PyLong_FromVoidPtr(obj);
  if (!key) return NULL;
  PyObject *entry = PyDict_GetItemWithError(map, key);
  Py_DECREF(key);
  return entry;
}

static int map_set(PyObject *map, PyObject *obj, uint32_t handle) {
  PyObject *key = PyLong_FromVoidPtr(obj), *h = PyLong_FromUnsignedLong(handle), *entry = NULL;
  int rc = -1;
  if (key && h && (entry = PyTuple_Pack(2, obj, h))) rc = PyDict_SetItem(map, key, entry);
  Py_XDECREF(key);
  Py_XDECREF(h);
  Py_XDECREF(entry);
  return rc;
}

static int map_del(PyObject *map, PyObject *obj) {
  PyObject *key = PyLong_FromVoidPtr(obj);
  int rc = key ? PyDict_DelItem(map, key) : -1;
  Py_XDECREF(key);
  return rc;
}

static uint32_t entry_handle(PyObject *entry) { return (uint32_t)PyLong_AsUnsignedLong(PyTuple_GET_ITEM(entry, 1)); }

/* The solver's handle for a Variable, made on first sight; 0 with an error set. */
static uint32_t variable_handle(Solver *s, PyObject *v) {
  PyObject *entry = map_get(s->variables, v);
  if (entry) return entry_handle(entry);
  if (PyErr_Occurred()) return 0;
  uint32_t h;
  kw_status st = kw_solver_new_variable(s->solver, &h);
  if (st != KW_OK) return raise_status(s, st, v), 0;
  return map_set(s->variables, v, h) < 0 ? 0 : h;
}

static PyObject *Solver_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  if (!PyArg_ParseTuple(args, ":Solver") || (kwargs && PyDict_GET_SIZE(kwargs))) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "Solver() takes no arguments");
    return NULL;
  }
  Solver *s = (Solver *)type->tp_alloc(type, 0);
  if (!s) return NULL;
  s->solver = kw_solver_new();
  s->variables = PyDict_New();
  s->constraints = PyDict_New();
  s->edits = PyDict_New();
  if (!s->solver || !s->variables || !s->constraints || !s->edits) {
    Py_DECREF(s);
    return PyErr_NoMemory();
  }
  return (PyObject *)s;
}

static int Solver_traverse(Solver *s, visitproc visit, void *arg) {
  Py_VISIT(s->variables);
  Py_VISIT(s->constraints);
  Py_VISIT(s->edits);
  return 0;
}

static int Solver_clear(Solver *s) {
  Py_CLEAR(s->variables);
  Py_CLEAR(s->constraints);
  Py_CLEAR(s->edits);
  return 0;
}

static void Solver_dealloc(Solver *s) {
  PyObject_GC_UnTrack(s);
  Solver_clear(s);
  kw_solver_free(s->solver);
  Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *expect(PyObject *o, PyTypeObject *type) {
  if (PyObject_TypeCheck(o, type)) return o;
  PyErr_Format(PyExc_TypeError, "Expected object of type `%s`. Got object of type `%s` instead.", type->tp_name,
               Py_TYPE(o)->tp_name);
  return NULL;
}

static PyObject *Solver_addConstraint(Solver *s, PyObject *obj) {
  if (!expect(obj, &ConstraintType)) return NULL;
  if (map_get(s->constraints, obj)) return PyErr_SetObject(DuplicateConstraint, obj), NULL;
  if (PyErr_Occurred()) return NULL;
  Constraint *c = (Constraint *)obj;
  Expression *e = (Expression *)c->expression;
  Py_ssize_t n = PyTuple_GET_SIZE(e->terms);
  kw_term *terms = PyMem_Calloc(n ? (size_t)n : 1, sizeof *terms);
  if (!terms) return PyErr_NoMemory();
  for (Py_ssize_t i = 0; i < n; i++) {
    Term *t = (Term *)PyTuple_GET_ITEM(e->terms, i);
    if (!(terms[i].var = variable_handle(s, t->variable))) return PyMem_Free(terms), NULL;
    terms[i].coefficient = t->coefficient;
  }
  uint32_t h;
  kw_status st = kw_solver_add_constraint(s->solver, terms, (size_t)n, e->constant, c->op, c->strength, &h);
  PyMem_Free(terms);
  if (st != KW_OK) return raise_status(s, st, obj);
  if (map_set(s->constraints, obj, h) < 0) {
    kw_solver_remove_constraint(s->solver, h);
    return NULL;
  }
  Py_RETURN_NONE;
}

static PyObject *Solver_removeConstraint(Solver *s, PyObject *obj) {
  if (!expect(obj, &ConstraintType)) return NULL;
  PyObject *entry = map_get(s->constraints, obj);
  if (!entry) return PyErr_Occurred() ? NULL : (PyErr_SetObject(UnknownConstraint, obj), NULL);
  kw_status st = kw_solver_remove_constraint(s->solver, entry_handle(entry));
  if (st != KW_OK) return raise_status(s, st, obj);
  if (map_del(s->constraints, obj) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *Solver_hasConstraint(Solver *s, PyObject *obj) {
  if (!expect(obj, &ConstraintType)) return NULL;
  PyObject *entry = map_get(s->constraints, obj);
  if (PyErr_Occurred()) return NULL;
  return PyBool_FromLong(entry != NULL);
}

static PyObject *Solver_addEditVariable(Solver *s, PyObject *args) {
  PyObject *v, *strength_obj;
  double strength;
  if (!PyArg_ParseTuple(args, "O!O:addEditVariable", &VariableType, &v, &strength_obj)) return NULL;
  if (to_strength(strength_obj, &strength)) return NULL;
  if (map_get(s->edits, v)) return PyErr_SetObject(DuplicateEdit, v), NULL;
  if (PyErr_Occurred()) return NULL;
  if (strength >= KW_REQUIRED) return raise_status(s, KW_BAD_STRENGTH, v);
  uint32_t h = variable_handle(s, v);
  if (!h) return NULL;
  kw_status st = kw_solver_add_edit(s->solver, h, strength);
  if (st != KW_OK) return raise_status(s, st, v);
  if (map_set(s->edits, v, h) < 0) {
    kw_solver_remove_edit(s->solver, h);
    return NULL;
  }
  Py_RETURN_NONE;
}

static PyObject *Solver_removeEditVariable(Solver *s, PyObject *v) {
  if (!expect(v, &VariableType)) return NULL;
  PyObject *entry = map_get(s->edits, v);
  if (!entry) return PyErr_Occurred() ? NULL : (PyErr_SetObject(UnknownEdit, v), NULL);
  kw_status st = kw_solver_remove_edit(s->solver, entry_handle(entry));
  if (st != KW_OK) return raise_status(s, st, v);
  if (map_del(s->edits, v) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *Solver_hasEditVariable(Solver *s, PyObject *v) {
  if (!expect(v, &VariableType)) return NULL;
  PyObject *entry = map_get(s->edits, v);
  if (PyErr_Occurred()) return NULL;
  return PyBool_FromLong(entry != NULL);
}

static PyObject *Solver_suggestValue(Solver *s, PyObject *args) {
  PyObject *v, *value_obj;
  double value;
  if (!PyArg_ParseTuple(args, "O!O:suggestValue", &VariableType, &v, &value_obj)) return NULL;
  if (!IS_NUMBER(value_obj))
    return PyErr_Format(PyExc_TypeError, "Expected object of type `float`. Got object of type `%s` instead.",
                        Py_TYPE(value_obj)->tp_name),
           NULL;
  if (to_double(value_obj, &value)) return NULL;
  PyObject *entry = map_get(s->edits, v);
  if (!entry) return PyErr_Occurred() ? NULL : (PyErr_SetObject(UnknownEdit, v), NULL);
  kw_status st = kw_solver_suggest(s->solver, entry_handle(entry), value);
  if (st != KW_OK) return raise_status(s, st, v);
  Py_RETURN_NONE;
}

static PyObject *Solver_updateVariables(Solver *s, PyObject *unused) {
  (void)unused;
  Py_ssize_t pos = 0;
  PyObject *key, *entry;
  while (PyDict_Next(s->variables, &pos, &key, &entry))
    ((Variable *)PyTuple_GET_ITEM(entry, 0))->value = kw_solver_value(s->solver, entry_handle(entry));
  Py_RETURN_NONE;
}

static PyObject *Solver_reset(Solver *s, PyObject *unused) {
  (void)unused;
  solver_forget(s);
  Py_RETURN_NONE;
}

static PyMethodDef Solver_methods[] = {
    {"addConstraint", CAST(PyCFunction, Solver_addConstraint), METH_O, "Add a constraint."},
    {"removeConstraint", CAST(PyCFunction, Solver_removeConstraint), METH_O, "Remove a constraint."},
    {"hasConstraint", CAST(PyCFunction, Solver_hasConstraint), METH_O, "Whether the constraint was added."},
    {"addEditVariable", CAST(PyCFunction, Solver_addEditVariable), METH_VARARGS,
     "Make a variable editable at a strength."},
    {"removeEditVariable", CAST(PyCFunction, Solver_removeEditVariable), METH_O, "Stop editing a variable."},
    {"hasEditVariable", CAST(PyCFunction, Solver_hasEditVariable), METH_O, "Whether the variable is editable."},
    {"suggestValue", CAST(PyCFunction, Solver_suggestValue), METH_VARARGS, "Suggest a value for an edit variable."},
    {"updateVariables", CAST(PyCFunction, Solver_updateVariables), METH_NOARGS, "Store the solution in the variables."},
    {"reset", CAST(PyCFunction, Solver_reset), METH_NOARGS, "Forget every constraint and edit variable."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SolverType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kiwisolver.Solver",
    .tp_basicsize = sizeof(Solver),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = Solver_new,
    .tp_dealloc = CAST(destructor, Solver_dealloc),
    .tp_traverse = CAST(traverseproc, Solver_traverse),
    .tp_clear = CAST(inquiry, Solver_clear),
    .tp_methods = Solver_methods,
    .tp_doc = "A Cassowary constraint solver.",
};

/* ---- the module ------------------------------------------------------------------- */

static struct PyModuleDef kiwisolver_module = {PyModuleDef_HEAD_INIT, .m_name = "kiwisolver",
                                               .m_doc = "The Cassowary constraint solver, kiwisolver's API.",
                                               .m_size = -1};

static int add_exception(PyObject *m, PyObject **slot, const char *name) {
  char qualified[64];
  PyOS_snprintf(qualified, sizeof qualified, "kiwisolver.%s", name);
  if (!(*slot = PyErr_NewException(qualified, NULL, NULL))) return -1;
  return PyModule_AddObjectRef(m, name, *slot);
}

PyMODINIT_FUNC PyInit_kiwisolver(void) {
  PyTypeObject *types[] = {&VariableType, &TermType, &ExpressionType, &ConstraintType, &SolverType, &StrengthType};
  const char *names[] = {"Variable", "Term", "Expression", "Constraint", "Solver"};
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (PyType_Ready(types[i]) < 0) return NULL;
  PyObject *m = PyModule_Create(&kiwisolver_module);
  if (!m) return NULL;
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (PyModule_AddObjectRef(m, names[i], (PyObject *)types[i]) < 0) goto fail;
  PyObject *strength = PyObject_New(PyObject, &StrengthType);
  if (!strength || PyModule_AddObject(m, "strength", strength) < 0) {
    Py_XDECREF(strength);
    goto fail;
  }
  if (add_exception(m, &Unsatisfiable, "UnsatisfiableConstraint") < 0 ||
      add_exception(m, &UnknownConstraint, "UnknownConstraint") < 0 ||
      add_exception(m, &DuplicateConstraint, "DuplicateConstraint") < 0 ||
      add_exception(m, &UnknownEdit, "UnknownEditVariable") < 0 ||
      add_exception(m, &DuplicateEdit, "DuplicateEditVariable") < 0 ||
      add_exception(m, &BadRequiredStrength, "BadRequiredStrength") < 0 ||
      PyModule_AddStringConstant(m, "__version__", VERSION) < 0 ||
      PyModule_AddStringConstant(m, "__kiwi_version__", VERSION) < 0)
    goto fail;
  return m;
fail:
  Py_DECREF(m);
  return NULL;
}
