/* numpy built into the Python runtime (runtimes/python/numpy.sh): what
 * native numpy prints for the same code (the reference: the same patched
 * 1.19.5 built natively for python3.11), random streams bit for bit,
 * linalg and fft, float errors under np.seterr, the limits (memory,
 * timeout, fuel) inside numpy's own loops, arrays in sessions, and a
 * package that imports numpy. */
#include "harness.h"

/* Each snippet and what native numpy 1.19.5 printed. */
static const snippet uses[] = {
    {"the documents' line",
     "import numpy as np\n"
     "print(np.linalg.solve([[3,1],[1,2]],[9,8]), np.fft.fft([1,0,0,0]).real.tolist(), "
     "np.random.default_rng(0).integers(0,10,3).tolist())\n",
     "[2. 3.] [1.0, 1.0, 1.0, 1.0] [8, 6, 5]\n"},
    {"every bit generator and the legacy RandomState",
     "import numpy as np\n"
     "from numpy.random import Generator, MT19937, PCG64, Philox, SFC64, RandomState\n"
     "print([Generator(b(7)).random() for b in (MT19937, PCG64, Philox, SFC64)])\n"
     "print(RandomState(1).normal(size=3).tolist(), np.random.default_rng(3).standard_normal(2).tolist())\n",
     "[0.3063046070659432, 0.625095466604667, 0.46881748695593284, 0.04386058169831253]\n"
     "[1.6243453636632417, -0.6117564136500754, -0.5281717522634557] [2.0409191213851825, -2.5556650313141818]\n"},
    {"float32 matmul and reductions",
     "import numpy as np\n"
     "a = np.arange(12, dtype=np.float32).reshape(3, 4); print(a.T @ a, a.mean(axis=0), np.median(a), np.std(a))\n",
     "[[ 80.  92. 104. 116.]\n"
     " [ 92. 107. 122. 137.]\n"
     " [104. 122. 140. 158.]\n"
     " [116. 137. 158. 179.]] [4. 5. 6. 7.] 5.5 3.4520526\n"},
    {"lapack_lite",
     "import numpy as np\n"
     "print(np.linalg.inv([[2.,1],[1,3]]), np.linalg.eigvalsh([[2.,1],[1,3]]), np.linalg.svd([[1.,2],[3,4]])[1])\n",
     "[[ 0.6 -0.2]\n"
     " [-0.2  0.4]] [1.38196601 3.61803399] [5.4649857  0.36596619]\n"},
    {"sorting, dtypes, polynomials",
     "import numpy as np\n"
     "print(np.sort(np.array([3,1,2])), np.argsort([3,1,2]), np.unique([1,1,2]), np.float16(0.1))\n"
     "print(np.polyfit([0,1,2,3],[1,3,5,7],1).round(6).tolist(), np.finfo(np.longdouble).eps < np.finfo(float).eps)\n",
     "[1 2 3] [1 2 0] [1 2] 0.1\n"
     "[2.0, 1.0] True\n"},
    {"a dtype compared with what is not one is unequal (patch 0107, as numpy 1.20+)",
     "import numpy as np\n"
     "print(np.dtype('bool') == 'boolean', np.dtype('f8') != 'category', np.dtype('f8') == 'float64', "
     "np.dtype('i4') == object())\n",
     "False True True False\n"},
    {"files: np.save/np.load, tofile/fromfile at a file's position",
     "import numpy as np\n"
     "a = np.arange(6.0).reshape(2, 3); np.save('a.npy', a); print(np.load('a.npy').tolist())\n"
     "with open('c.bin', 'wb') as f: f.write(b'xx'); a.tofile(f); f.write(b'yy')\n"
     "with open('c.bin', 'rb') as f: print(f.read(2), np.fromfile(f, count=6).tolist(), f.read())\n",
     "[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]\n"
     "b'xx' [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] b'yy'\n"},
};

static void test_numpy_prints_what_native_numpy_prints(void **s) {
  (void)s;
  expect_snippets("numpy", uses, sizeof uses / sizeof uses[0]);
}

/* The extensions are built-in modules under their dotted names, with the
 * names native numpy gives them; the package's metadata is there. */
static void test_extensions_are_built_in(void **s) {
  (void)s;
  expect_output(
      "import numpy, sys, importlib.metadata\n"
      "from numpy.core import _multiarray_umath as m\n"
      "import numpy.random._generator as g, numpy.linalg.lapack_lite as l\n"
      "print(numpy.__version__, m.__name__, m.add_docstring.__module__ if hasattr(m.add_docstring, "
      "'__module__') else '', g.__name__, l.__name__)\n"
      "print(importlib.metadata.version('numpy'), 'numpy.fft._pocketfft_internal' in "
      "sys.builtin_module_names)\n",
      NULL,
      "1.19.5 numpy.core._multiarray_umath numpy.core._multiarray_umath numpy.random._generator "
      "numpy.linalg.lapack_lite\n"
      "1.19.5 True\n");
}

/* Each call draws its own sequence from numpy's global RandomState (the
 * snapshot's copy is reseeded from the host's entropy), and an explicit seed
 * still gives native numpy's stream. */
static void test_each_call_has_its_own_numpy_random(void **s) {
  (void)s;
  const char *code = "import numpy as np\nprint(np.random.randint(0, 2**31, 4).tolist(), np.random.rand())";
  wasmbox_result *a = run_py(code), *b = run_py(code);
  expect_status(a, WASMBOX_STATUS_OK);
  expect_status(b, WASMBOX_STATUS_OK);
  assert_string_not_equal(a->stdout_data, b->stdout_data);
  wasmbox_result_free(a);
  wasmbox_result_free(b);
  expect_output("import numpy as np\nnp.random.seed(1)\nprint(np.random.rand(), np.random.randint(0, 100, 3).tolist())",
                NULL, "0.417022004702574 [12, 72, 9]\n");
}

/* np.seterr and np.errstate see float events as natively (WebAssembly
 * raises no float flags: patch 0106 derives them from each result): the
 * warnings, the FloatingPointError of 'raise', 'ignore', reductions,
 * scalars, underflow, and an exact complex result that raises nothing. */
static void test_float_errors_as_natively(void **s) {
  (void)s;
  expect_output(
      "import numpy as np, warnings\n"
      "def seen(f):\n"
      "    with warnings.catch_warnings(record=True) as w:\n"
      "        warnings.simplefilter('always')\n"
      "        try:\n"
      "            f()\n"
      "        except FloatingPointError as e:\n"
      "            return 'raised ' + str(e)\n"
      "    return '; '.join(str(x.message) for x in w) or 'quiet'\n"
      "a = np.array([1.0, 0.0, 1e308, -1.0, 1e-300])\n"
      "print(seen(lambda: a / 0), '|', seen(lambda: np.exp(a * 1000)), '|', seen(lambda: np.sqrt(a)))\n"
      "print(seen(lambda: a.sum() * 10), '|', seen(lambda: np.array([1e308, 1e308]).sum()), '|', seen(lambda: np.log(a)))\n"
      "with np.errstate(all='raise'):\n"
      "    print(seen(lambda: np.float64(1) / 0), '|', seen(lambda: a[4:] * a[4:]), '|', seen(lambda: np.array([np.inf]) - np.inf))\n"
      "with np.errstate(divide='ignore', invalid='ignore', under='raise'):\n"
      "    print(seen(lambda: a / 0), '|', seen(lambda: np.array([1 + 1j]) * np.array([1 + 1j])), '|', seen(lambda: np.float32(3e38) * np.float32(2)))\n",
      NULL,
      "divide by zero encountered in true_divide; invalid value encountered in true_divide | overflow encountered in multiply; overflow encountered in exp | invalid value encountered in sqrt\n"
      "overflow encountered in double_scalars | overflow encountered in reduce | divide by zero encountered in log; invalid value encountered in log\n"
      "raised divide by zero encountered in double_scalars | raised underflow encountered in multiply | raised invalid value encountered in subtract\n"
      "quiet | quiet | overflow encountered in float_scalars\n");
}

/* Beyond the 32-bit address space or the call's memory limit, an array ends
 * as MemoryError (out_of_memory), never as a crash or a trap. */
static void test_huge_arrays_are_memory_errors(void **s) {
  (void)s;
  expect_out_of_memory("import numpy as np\nnp.zeros(10**10)");
  expect_out_of_memory("import numpy as np\nnp.ones((10**5, 10**5), dtype=np.uint8)");
  expect_out_of_memory("import numpy as np\nnp.arange(10**10)");
  /* within the address space, beyond the call's memory limit: numpy's own
   * _ArrayMemoryError, a MemoryError */
  expect_out_of_memory("import numpy as np\nnp.ones(2 * 10**8)");
  /* and the next call has its memory */
  expect_output("import numpy as np\nprint(np.ones(10**6).sum())", NULL, "1000000.0\n");
}

/* A long numpy operation (C loops, no bytecode) is stopped by the deadline
 * and by the fuel budget. */
static void test_limits_stop_numpy_loops(void **s) {
  (void)s;
  wasmbox_request req = {.code =
                             "import numpy as np\na = np.random.default_rng(0).random((400, 400))\n"
                             "while True:\n    a = np.sort(a @ a, axis=None).reshape(400, 400)\n",
                         .timeout_seconds = 0.5};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_TIMEOUT);
  wasmbox_result_free(r);
  req.timeout_seconds = 0;
  req.code = "import numpy as np\na = np.ones((1000, 1000))\nfor _ in range(1000): a = a @ a\n";
  req.fuel = 200000000;
  r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OUT_OF_FUEL);
  wasmbox_result_free(r);
  expect_output("import numpy as np\nprint(int(np.arange(5).sum()))", NULL, "10\n");
}

/* Arrays live in sessions, fork with them and roll back with them. */
static void test_arrays_live_in_sessions(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], fork[WASMBOX_ID_MAX], err[256];
  assert_int_equal(wasmbox_session_create(test_wb, NULL, id, err, sizeof err), WASMBOX_OK);
  wasmbox_request req = {.session_id = id, .code = "import numpy as np\na = np.arange(6.0).reshape(2, 3)\n"};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  wasmbox_result_free(r);
  assert_int_equal(wasmbox_session_fork(test_wb, id, fork, err, sizeof err), WASMBOX_OK);
  wasmbox_request freq = {.session_id = fork, .code = "a *= 10\nprint(a.sum())"};
  r = run_req(&freq);
  assert_string_equal(r->stdout_data, "150.0\n");
  wasmbox_result_free(r);
  req.code = "a += 1\nwhile True: pass";
  req.timeout_seconds = 0.5;
  r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_TIMEOUT);
  assert_true(r->session_rolled_back);
  wasmbox_result_free(r);
  req.timeout_seconds = 0;
  req.code = "np.save('a.npy', a)\nprint(a.sum(), np.load('a.npy').tolist())";
  r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "15.0 [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]\n");
  wasmbox_result_free(r);
  assert_int_equal(wasmbox_session_destroy(test_wb, fork, err, sizeof err), WASMBOX_OK);
  assert_int_equal(wasmbox_session_destroy(test_wb, id, err, sizeof err), WASMBOX_OK);
}

/* An operator's package that imports numpy finds the built-in one. */
static void test_a_package_imports_numpy(void **s) {
  (void)s;
  char *dir = make_dir();
  write_file(dir, "trend.py",
             "import numpy as np\ndef slope(y):\n    return float(np.polyfit(np.arange(len(y)), y, 1)[0])\n");
  const char *packages[] = {dir};
  wasmbox_request req = {
      .code = "import trend\nprint(trend.slope([1, 3, 5, 7]))", .packages = packages, .packages_len = 1};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "2.000000000000001\n"); /* as native numpy 1.19.5 */
  wasmbox_result_free(r);
  rm_tree(dir);
  free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_numpy_prints_what_native_numpy_prints),
      cmocka_unit_test(test_extensions_are_built_in),
      cmocka_unit_test(test_each_call_has_its_own_numpy_random),
      cmocka_unit_test(test_float_errors_as_natively),
      cmocka_unit_test(test_huge_arrays_are_memory_errors),
      cmocka_unit_test(test_limits_stop_numpy_loops),
      cmocka_unit_test(test_arrays_live_in_sessions),
      cmocka_unit_test(test_a_package_imports_numpy),
  };
  /* sessions here live in a state directory of their own */
  char *home = make_dir();
  setenv("WASMBOX_HOME", home, 1);
  int rc = RUN("numpy", tests);
  rm_tree(home);
  free(home);
  return rc;
}
