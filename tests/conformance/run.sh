#!/usr/bin/env bash
# make conformance: CPython's own regression tests (Lib/test of the same
# source) inside wasmbox next to native python3.11, then QuickJS's own tests
# (tests/*.js of the same tarball) inside wasmbox next to the same QuickJS
# built natively.
#   run.sh WASMBOX PYTHON_TESTDIR JAVASCRIPT_RUNTIME_DIR PYTHON_PACKAGES_DIR NUMPY_TESTS PILLOW_TESTS MPL_TESTS
#          PANDAS_TESTS
# (between the two: the built-in Python packages' own suites, packages.sh,
# numpy's, numpy_suite.py, against the same numpy built natively, a
# subset of Pillow's, pillow_suite.py, against Debian's python3-pil, a
# subset of matplotlib's, matplotlib_suite.py, against the same matplotlib
# built natively, and of pandas', pandas_suite.py, against the same pandas
# built natively: CI's selection, or with WB_CONFORMANCE_FULL=1 (make
# conformance-full) its seven subsets whole)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../runtimes/lib.sh"
wb_apt_install python3.11 python3 python3-pil
# the native references first (cached builds, each using every core)
native=$(bash "$here/numpy_native.sh") || die "the reference numpy failed"
pytest=$(bash "$here/../../runtimes/python/packages.sh" "$here/pytest-packages.txt") || die "pytest's packages failed"
mpl=$(bash "$here/matplotlib_native.sh") || die "the reference matplotlib failed"
pdn=$(bash "$here/pandas_native.sh") || die "the reference pandas failed"
# Then the suites, as many at once as there are cores: most of a suite's
# time is one sandbox running one test file after another, on one core.
# Each suite's output is kept and printed whole, in this order; the run
# fails if any suite did.
out=$(mktemp -d "${TMPDIR:-/tmp}/wasmbox-conformance-XXXXXX")
trap 'rm -rf "$out"' EXIT
wasmbox=$1 py_tests=$2 js_runtime=$3 packages=$4 numpy_tests=$5 pillow_tests=$6 mpl_tests=$7 pandas_tests=$8
suite() {  # suite N: the Nth suite
  case $1 in
    0) python3 "$here/conformance.py" "$wasmbox" "$py_tests" ;;
    1) bash "$here/packages.sh" "$wasmbox" "$packages" ;;
    2) python3 "$here/numpy_suite.py" "$wasmbox" "$numpy_tests" "$native" "$pytest/site-packages" "$packages/site-packages" ;;
    3) python3 "$here/pillow_suite.py" "$wasmbox" "$pillow_tests" "$pytest/site-packages" "$packages/site-packages" ;;
    4) python3 "$here/matplotlib_suite.py" "$wasmbox" "$mpl_tests" "$native" "$mpl" "$pytest/site-packages" \
         "$packages/site-packages" ;;
    5) python3 "$here/pandas_suite.py" ${WB_CONFORMANCE_FULL:+--full} "$wasmbox" "$pandas_tests" "$native" "$pdn" \
         "$pytest/site-packages" "$packages/site-packages" ;;
    6) python3 "$here/js_conformance.py" "$wasmbox" "$js_runtime" ;;
  esac
}
set +e  # lib.sh sets -e: run every suite, then fail if one did
. "$here/../pool.sh"
suite_to() { suite "$1" > "$out/$1" 2>&1; }  # suite_to N: suite N's output in its file
for i in 0 1 2 3 4 5 6; do pool_start suite_to "$i"; done
pool_wait
for i in 0 1 2 3 4 5 6; do cat "$out/$i"; echo; done
[ "$pool_failed" -eq 0 ]
