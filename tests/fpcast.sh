#!/usr/bin/env bash
# fpcast.sh: tests of runtimes/python/fpcast.py (function pointer casts that
# would trap on WebAssembly, rewritten to wrappers of the exact type) on a
# small C file with the shapes numpy has: a one-parameter getter, a
# METH_NOARGS method declared with one parameter, a fill function returning
# void cast to one returning int; the casts that are harmless left as they
# are (same WebAssembly signature, METH_KEYWORDS functions, a function
# pointer variable); and a cast that cannot be wrapped (the function needs
# an argument the caller does not pass) failing with its place.
# Prints "ok N - what" / "not ok N - what".
set -u
here=$(cd "$(dirname "$0")" && pwd)
tool="$here/../runtimes/python/fpcast.py"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
check() { # check "what" CONDITION...
  local what=$1; shift
  n=$((n + 1))
  if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; fi
}

cat > "$tmp/casts.c" <<'EOF'
#define NULL ((void *)0)
typedef struct _object { int refs; } PyObject;
typedef PyObject *(*getter)(PyObject *, void *);
typedef PyObject *(*PyCFunction)(PyObject *, PyObject *);
typedef PyObject *(*unaryfunc)(PyObject *);
typedef int (*fill_fn)(void *, long, void *);
typedef struct { const char *name; getter get; } GetSet;
typedef struct { const char *name; PyCFunction meth; int flags; const char *doc; } MethodDef;
#define METH_VARARGS 1
#define METH_KEYWORDS 2
typedef struct { PyObject base; int value; } Array;

static PyObject *array_value_get(Array *a) { return &a->base; }
static PyObject *array_base_get(Array *a, void *closure) { (void)closure; return &a->base; }
static PyObject *method_noargs(PyObject *self) { return self; }
static PyObject *method_keywords(PyObject *self, PyObject *args, PyObject *kw) { (void)args; (void)kw; return self; }
static void int_fill(int *buf, long n, int *delta) { for (long i = 2; i < n; i++) buf[i] = buf[i - 1] + *delta; }

static GetSet getset[] = {{"value", (getter)array_value_get}, {"base", (getter)array_base_get}};
static PyObject *method_two(PyObject *self, PyObject *args) { (void)args; return self; }
static PyCFunction methods[] = {(PyCFunction)method_noargs, (PyCFunction)method_keywords};
static PyCFunction through[] = {(PyCFunction)(void (*)(void))method_keywords};
static MethodDef table[] = {
    {"two", (PyCFunction)method_two, METH_VARARGS | METH_KEYWORDS, NULL},
    {"three", (PyCFunction)method_keywords, METH_VARARGS | METH_KEYWORDS, NULL},
    {"varargs", (PyCFunction)method_two, METH_VARARGS, NULL},
};

int use(Array *a, int *buf) {
  fill_fn fill = (fill_fn)int_fill;
  getter g = getset[0].get;
  unaryfunc variable = (unaryfunc)0;
  getter again = (getter)variable;
  int d = 1;
  (void)table;
  (void)through;
  PyCFunction back = (PyCFunction)(void (*)(void))methods[1];
  (void)back;
  return (g(&a->base, 0) == &a->base) + (variable ? again(&a->base, 0) == &a->base : 0) + fill(buf, 4, &d);
}
EOF
cp "$tmp/casts.c" "$tmp/orig.c"
cc="clang-19 --target=wasm32-wasi -O2 -w"
echo "$cc -c $tmp/casts.c -o $tmp/casts.o" > "$tmp/compiles"
out=$(WB_JOBS=1 python3 "$tool" "$tmp/compiles" 2>&1); rc=$?
check "fpcast succeeds on casts it can fix" test "$rc" -eq 0
check "it says how many it rewrote" grep -q "fpcast: 3 casts and 1 method table entries now call wrappers" <<<"$out"
check "the one-parameter getter goes through a wrapper" grep -q '(getter)wb_fpcast_[0-9]*}' "$tmp/casts.c"
check "its wrapper has the getter's type and drops the closure" \
  grep -q 'static struct _object \* wb_fpcast_[0-9]*(struct _object \* a0, void \* a1) { return (struct _object \*)array_value_get(' "$tmp/casts.c"
check "the METH_NOARGS method declared with one parameter is wrapped" grep -q '(PyCFunction)wb_fpcast_' "$tmp/casts.c"
check "the void fill function cast to one returning int returns 0" grep -q 'int_fill(.*); return 0; }' "$tmp/casts.c"
check "a getter of the exact WebAssembly type is left alone" grep -q '(getter)array_base_get' "$tmp/casts.c"
check "a METH_KEYWORDS method (three parameters) is left alone" grep -q '(PyCFunction)method_keywords' "$tmp/casts.c"
check "a cast of a function pointer variable is left alone and listed" \
  bash -c 'grep -q "(getter)variable" "$1" && grep -q "casts.c:[0-9]*:[0-9]*: variable" <<<"$2"' _ "$tmp/casts.c" "$out"
check "a METH_KEYWORDS entry of a two-parameter function goes through a three-parameter wrapper" \
  grep -q '"two", (PyCFunction)wb_fpcast_m0,' "$tmp/casts.c"
check "entries whose functions take what their flags pass are left alone" \
  bash -c 'grep -q "\"three\", (PyCFunction)method_keywords" "$1" && grep -q "\"varargs\", (PyCFunction)method_two" "$1"' _ "$tmp/casts.c"
check "a METH_KEYWORDS method cast through void (*)(void) is left alone" \
  grep -q '(PyCFunction)(void (\*)(void))method_keywords' "$tmp/casts.c"
check "a pointer cast back from void (*)(void) is left alone" grep -q 'back = (PyCFunction)(void (\*)(void))methods' "$tmp/casts.c"
check "the rewritten file compiles" $cc -c "$tmp/casts.c" -o "$tmp/casts.o"
out2=$(WB_JOBS=1 python3 "$tool" "$tmp/compiles" 2>&1)
check "a second run finds nothing left to rewrite" grep -q "fpcast: 0 casts" <<<"$out2"

# a function that needs more arguments than its callers pass cannot be wrapped
cat > "$tmp/bad.c" <<'EOF'
typedef int (*unary)(int);
static int add(int a, int b) { return a + b; }
unary table[] = {(unary)add};
unary through[] = {(unary)(void (*)(void))add};
EOF
echo "$cc -c $tmp/bad.c -o $tmp/bad.o" > "$tmp/compiles"
out=$(WB_JOBS=1 python3 "$tool" "$tmp/compiles" 2>&1); rc=$?
check "a cast that cannot be wrapped fails the build" test "$rc" -ne 0
check "and names its place" bash -c 'grep -q "would trap" <<<"$1" && grep -q "bad.c:3:" <<<"$1"' _ "$out"
check "a cast through void (*)(void) is judged from the function's own type" grep -q "bad.c:4:.*int (\*)(int, int) -> int (\*)(int)" <<<"$out"
