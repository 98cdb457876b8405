"""Constraint systems run through whichever kiwisolver is imported: ours
(runtimes/python/kiwisolver) or Debian's python3-kiwisolver. Prints one JSON
object, case name -> what the case observed (values, exception names, types),
for tests/kiwisolver.py to compare between the two. Every random system pins
each variable with a stay of its own random weight, so its optimum is unique
and any correct solver must find the same values."""
import json
import random
import sys

import kiwisolver as kiwi

cases = {}


def case(fn):
    out = []
    try:
        fn(out)
    except Exception as e:  # a case that dies records how
        out.append(["died", type(e).__name__, str(e)])
    cases[fn.__name__] = out
    return fn


def attempt(out, f, *args):
    """f(*args); the exception's name if it raises, else "ok"."""
    try:
        f(*args)
        out.append("ok")
    except Exception as e:
        out.append(type(e).__name__)


def values(out, solver, variables):
    solver.updateVariables()
    out.append([v.value() for v in variables])


def error(c):
    x = c.expression().value()
    return {"==": abs(x), "<=": max(x, 0.0), ">=": max(-x, 0.0)}[c.op()]


def solved(out, solver, variables, required, soft=(), edits=None):
    """The values, how many of the required constraints do not hold and
    ["objective", the strength-weighted error of the others and the edits]."""
    values(out, solver, variables)
    out.append(sum(error(c) > 1e-6 for c in required if solver.hasConstraint(c)))
    if edits is not None:
        objective = sum(c.strength() * error(c) for c in soft if solver.hasConstraint(c))
        objective += sum(w * abs(v.value() - x) for v, w, x in edits.values() if solver.hasEditVariable(v))
        out.append(["objective", objective])


def linear(e):
    """An expression as (sorted {name: coefficient}, constant), like terms added."""
    coefficients = {}
    for t in e.terms():
        coefficients[t.variable().name()] = coefficients.get(t.variable().name(), 0.0) + t.coefficient()
    return [sorted(coefficients.items()), e.constant()]


@case
def equalities(out):
    x, y, z = kiwi.Variable("x"), kiwi.Variable("y"), kiwi.Variable("z")
    s = kiwi.Solver()
    for c in [x == 10, y == x * 2 + 1, z == (x + y) / 2, x + y + z >= 0]:
        s.addConstraint(c)
    values(out, s, [x, y, z])


@case
def inequalities_and_strengths(out):
    x, y = kiwi.Variable("x"), kiwi.Variable("y")
    s = kiwi.Solver()
    s.addConstraint(x + y == 100)
    s.addConstraint((x == 70) | "weak")
    s.addConstraint((y == 50) | "medium")
    values(out, s, [x, y])
    s.addConstraint((x >= 60) | "strong")
    values(out, s, [x, y])
    s.addConstraint(x <= 55)
    values(out, s, [x, y])
    s.addConstraint((x == 0) | kiwi.strength.create(0, 0, 500))
    values(out, s, [x, y])


@case
def edit_variables(out):
    left, right, width = kiwi.Variable("left"), kiwi.Variable("right"), kiwi.Variable("width")
    s = kiwi.Solver()
    s.addConstraint(width == right - left)
    s.addConstraint(left >= 0)
    s.addConstraint(right <= 500)
    s.addConstraint((width == 100) | "strong")
    s.addEditVariable(left, "medium")
    values(out, s, [left, right, width])
    for v in [10, 50, 450, 600, -30, 200, 200.5]:
        s.suggestValue(left, v)
        values(out, s, [left, right, width])
    s.addEditVariable(right, "strong")
    for v in [300, 120, 1000]:
        s.suggestValue(right, v)
        values(out, s, [left, right, width])
    s.removeEditVariable(right)
    values(out, s, [left, right, width])
    out.append([s.hasEditVariable(left), s.hasEditVariable(right)])


@case
def remove_constraints(out):
    a, b, c = kiwi.Variable("a"), kiwi.Variable("b"), kiwi.Variable("c")
    s = kiwi.Solver()
    cs = [a + b == c, (a == 3) | "strong", (b == 4) | "medium", (c <= 5) | "weak", (c >= 1) | "strong", a >= 2]
    for x in cs:
        s.addConstraint(x)
    values(out, s, [a, b, c])
    for x in [cs[1], cs[5], cs[3], cs[0]]:
        s.removeConstraint(x)
        out.append([s.hasConstraint(x) for x in cs])
        values(out, s, [a, b, c])
    for x in cs[1:]:
        if s.hasConstraint(x):
            s.removeConstraint(x)
    values(out, s, [a, b, c])


@case
def unsatisfiable(out):
    x, y = kiwi.Variable("x"), kiwi.Variable("y")
    s = kiwi.Solver()
    required = [x >= 10, y == x + 1]
    for c in required:
        s.addConstraint(c)
    solved(out, s, [x, y], required)
    for c in [x <= 5, y == 2, x + 0 * y == x + 1]:
        attempt(out, s.addConstraint, c)
        solved(out, s, [x, y], required)
    attempt(out, s.addConstraint, y - x == 1)  # redundant, not a conflict
    solved(out, s, [x, y], required)
    attempt(out, s.addConstraint, (x <= 5) | "strong")
    solved(out, s, [x, y], required)


@case
def exceptions(out):
    x, y = kiwi.Variable("x"), kiwi.Variable("y")
    s = kiwi.Solver()
    c = x == 1
    attempt(out, s.addConstraint, c)
    attempt(out, s.addConstraint, c)
    attempt(out, s.removeConstraint, x == 1)
    attempt(out, s.removeConstraint, c)
    attempt(out, s.removeConstraint, c)
    attempt(out, s.addEditVariable, x, "strong")
    attempt(out, s.addEditVariable, x, "weak")
    attempt(out, s.addEditVariable, y, "required")
    attempt(out, s.addEditVariable, y, kiwi.strength.required * 2)
    attempt(out, s.suggestValue, y, 1.0)
    attempt(out, s.removeEditVariable, y)
    attempt(out, s.removeEditVariable, x)
    attempt(out, s.removeEditVariable, x)
    attempt(out, s.addConstraint, "x == 1")
    attempt(out, lambda: c | "very strong")
    attempt(out, lambda: c | None)
    attempt(out, lambda: x * y)
    attempt(out, lambda: 2 / x)
    attempt(out, lambda: x / 0)
    attempt(out, lambda: x < y)
    attempt(out, lambda: x > 1)
    attempt(out, lambda: x != y)
    attempt(out, lambda: x + "a")
    attempt(out, lambda: kiwi.Constraint(x + 1, "<", 1))
    attempt(out, hash, x)
    attempt(out, lambda: x == None)  # noqa: E711 (not a constraint: False)
    out.append(x == None)  # noqa: E711
    out.append([issubclass(e, Exception) for e in [kiwi.UnsatisfiableConstraint, kiwi.UnknownConstraint,
                                                      kiwi.DuplicateConstraint, kiwi.UnknownEditVariable,
                                                      kiwi.DuplicateEditVariable, kiwi.BadRequiredStrength]])
    try:
        s.addConstraint(c)
        s.addConstraint(c)
    except kiwi.DuplicateConstraint as e:
        out.append(e.args[0] is c)


@case
def symbolic_api(out):
    x, y = kiwi.Variable("x"), kiwi.Variable("y")
    out.append([x.name(), kiwi.Variable().name(), x.value()])
    x.setName("x2")
    out.append(x.name())
    x.setName("x")
    exprs = [x + y, x - y, x * 2, 2 * x, x / 4, -x, x + 1, 1 + x, x - 1, 1 - x, (x + y) * 3, 3 * (x + y),
             (x + y) / 2, -(x + y), (2 * x) + (3 * y), 2 * x - 1, x + y + x, (x + 1) - (y - 2)]
    out.append([type(e).__name__ for e in exprs])
    out.append([linear(e if isinstance(e, kiwi.Expression) else e + 0) for e in exprs])
    t = 3 * x
    out.append([t.variable().name(), t.coefficient()])
    for c in [x == y, x <= 2 * y + 1, 1 <= x, x + y >= x - y, (x == 1) | "weak", (x >= y) | 123.5, "strong" | (x <= 1),
              kiwi.Constraint(x + 0, ">=", "medium"), kiwi.Constraint(x - 2, "=="), (x == 1) | -4, (x == 1) | 1e12]:
        out.append([linear(c.expression()), c.op(), c.strength()])
    st = kiwi.strength
    out.append([st.required, st.strong, st.medium, st.weak, st.create(1, 2, 3), st.create(1, 2, 3, 2),
                st.create(2000, -1, 0.5), st.create(0, 0, 1, 0.25)])
    s = kiwi.Solver()
    s.addConstraint(x == 4)
    s.addConstraint(y == 2)
    s.updateVariables()
    out.append([(x * 3).value(), (x + y + 1).value(), (2 * x - y).value()])
    out.append(kiwi.__version__ >= "1.3")


@case
def reset_and_reuse(out):
    x, y = kiwi.Variable("x"), kiwi.Variable("y")
    s = kiwi.Solver()
    c = x == 3
    s.addConstraint(c)
    s.addConstraint(y == x + 1)
    s.addEditVariable(y, "weak")
    values(out, s, [x, y])
    s.reset()
    values(out, s, [x, y])  # an empty solver leaves the values alone
    out.append([s.hasConstraint(c), s.hasEditVariable(y)])
    s.addConstraint(c)
    s.addConstraint(y == 2 * x)
    values(out, s, [x, y])
    s.removeConstraint(c)
    values(out, s, [x, y])
    s2 = kiwi.Solver()
    s2.addConstraint(x == 7)
    values(out, s2, [x, y])


@case
def layout_like_matplotlib(out):
    """The shapes of matplotlib 3.3's _layoutbox: boxes with hard
    constraints, children inside parents, edit variables at 1e9 and
    'strong', margins suggested, boxes stacked."""
    s = kiwi.Solver()

    class Box:
        def __init__(self, name, parent=None):
            for a in ["top", "bottom", "left", "right", "width", "height", "h_center", "v_center", "min_width",
                      "min_height", "left_margin_min"]:
                setattr(self, a, kiwi.Variable(name + a))
            for i in [self.min_width, self.min_height]:
                s.addEditVariable(i, 1e9)
                s.suggestValue(i, 0.0)
            for c in [self.width == self.right - self.left, self.height == self.top - self.bottom,
                      self.h_center == (self.left + self.right) * 0.5, self.v_center == (self.top + self.bottom) * 0.5,
                      self.width >= self.min_width, self.height >= self.min_height]:
                s.addConstraint(c | "required")
            if parent:
                for c in [self.left >= parent.left, self.bottom >= parent.bottom, self.top <= parent.top,
                          self.right <= parent.right]:
                    s.addConstraint(c | "required")

        def rect(self):
            return [self.left.value(), self.bottom.value(), self.width.value(), self.height.value()]

    fig = Box("fig")
    for c in [fig.left == 0, fig.bottom == 0, fig.right == 1, fig.top == 1]:
        s.addConstraint(c | "required")
    a, b = Box("a", fig), Box("b", fig)
    for box, lo, hi in [(a, 0.0, 0.45), (b, 0.55, 1.0)]:
        for c in [box.left == fig.left + fig.width * lo, box.width == fig.width * (hi - lo),
                  box.bottom == fig.bottom + fig.height * 0.1, box.height == fig.height * 0.8]:
            s.addConstraint(c | "required")
    inner = [Box("ia", a), Box("ib", b)]
    for box, parent in zip(inner, [a, b]):
        s.addEditVariable(box.left_margin_min, "strong")
        s.suggestValue(box.left_margin_min, 0.0001)
        s.addConstraint((box.left >= parent.left + box.left_margin_min) | "required")
        s.addConstraint((box.top == parent.top - 0.05) | "strong")
        s.addConstraint((box.bottom == parent.bottom + 0.05) | "strong")
        s.addConstraint((box.right == parent.right - 0.01) | "strong")
    s.addConstraint((inner[0].width == inner[1].width) | "strong")
    s.addConstraint((inner[0].height == inner[1].height * 1.0) | "strong")
    s.updateVariables()
    out.append([box.rect() for box in [fig, a, b] + inner])
    for margin in [0.05, 0.1, 0.02, 0.2]:
        s.suggestValue(inner[0].left_margin_min, margin)
        s.suggestValue(inner[1].left_margin_min, margin / 2)
        s.updateVariables()
        out.append([box.rect() for box in inner])
    for box in [a, b]:
        for v in [box.height, box.width]:
            if not s.hasEditVariable(v):
                s.addEditVariable(v, "strong")
        s.suggestValue(box.height, 0.5)
    s.updateVariables()
    out.append([box.rect() for box in [fig, a, b] + inner])


def random_system(rng, out):
    n = rng.randint(2, 8)
    vs = [kiwi.Variable("v%d" % i) for i in range(n)]
    s = kiwi.Solver()
    soft = []
    for v in vs:  # a stay per variable, each its own weight: the optimum is unique
        stay = (v == rng.uniform(-50, 50)) | rng.uniform(0.5, 2.0)
        s.addConstraint(stay)
        soft.append(stay)
    added, edited = [], {}  # edited: name -> [variable, strength, suggested]
    for _ in range(rng.randint(1, 10)):
        e = rng.uniform(-20, 20)
        for v in rng.sample(vs, rng.randint(1, min(4, n))):
            e = e + v * rng.choice([-3, -2, -1, 1, 2, 3, rng.uniform(-4, 4)])
        c = rng.choice([e == 0, e <= 0, e >= 0])
        if rng.random() < 0.6:
            c = c | rng.uniform(3, 1e6)
        try:
            s.addConstraint(c)
            added.append(c)
            out.append("ok")
        except kiwi.UnsatisfiableConstraint:
            out.append("UnsatisfiableConstraint")
    required = [c for c in added if c.strength() >= kiwi.strength.required]
    soft += [c for c in added if c.strength() < kiwi.strength.required]
    solved(out, s, vs, required, soft, edited)
    edits = rng.sample(vs, rng.randint(0, min(3, n)))
    for v in edits:
        edited[v.name()] = [v, rng.uniform(2.5, 1e7), 0.0]
        s.addEditVariable(v, edited[v.name()][1])
    solved(out, s, vs, required, soft, edited)
    for _ in range(rng.randint(0, 6)):
        for v in edits:
            edited[v.name()][2] = rng.uniform(-100, 100)
            s.suggestValue(v, edited[v.name()][2])
        solved(out, s, vs, required, soft, edited)
    rng.shuffle(added)
    for c in added[: rng.randint(0, len(added))]:
        s.removeConstraint(c)
        solved(out, s, vs, required, soft, edited)
    for v in edits[:1]:
        s.removeEditVariable(v)
        solved(out, s, vs, required, soft, edited)


def tied_system(rng, out):
    """Named strengths and small integers, as in a layout: many optima tie,
    so values may part; the weighted error may not."""
    n = rng.randint(2, 6)
    vs = [kiwi.Variable("v%d" % i) for i in range(n)]
    s = kiwi.Solver()
    required, soft = [], []
    for v in vs:
        for c in [v >= 0, v <= 100]:
            s.addConstraint(c)
            required.append(c)
    for _ in range(rng.randint(1, 8)):
        e = rng.randint(-20, 20)
        for v in rng.sample(vs, rng.randint(1, min(3, n))):
            e = e + v * rng.choice([-2, -1, 1, 2])
        c = rng.choice([e == 0, e <= 0, e >= 0]) | rng.choice(["weak", "medium", "strong", "required"])
        try:
            s.addConstraint(c)
            (required if c.strength() >= kiwi.strength.required else soft).append(c)
            out.append("ok")
        except kiwi.UnsatisfiableConstraint:
            out.append("UnsatisfiableConstraint")
        solved(out, s, vs, required, soft, {})
    for c in soft[: rng.randint(0, len(soft))]:
        s.removeConstraint(c)
        solved(out, s, vs, required, soft, {})


families = {"random": random_system, "tied": tied_system}


def main():
    """kiwisolver_cases.py [FAMILY FIRST LAST]: the hand-written cases, or
    the systems of FAMILY (random, tied) of seeds FIRST..LAST-1 (only)."""
    seeds = range(int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else []
    if seeds:
        cases.clear()
    for seed in seeds:
        out = []
        try:
            families[sys.argv[1]](random.Random(seed), out)
        except Exception as e:
            out.append(["died", type(e).__name__, str(e)])
        cases["%s_%d" % (sys.argv[1], seed)] = out
    cases["_module"] = kiwi.__file__
    json.dump(cases, sys.stdout)


main()
