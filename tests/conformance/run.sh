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
set +e  # lib.sh sets -e: run both suites, then fail if either did
python3 "$here/conformance.py" "$1" "$2"; py=$?
echo
bash "$here/packages.sh" "$1" "$4"; pk=$?
echo
native=$(bash "$here/numpy_native.sh") && pytest=$(bash "$here/../../runtimes/python/packages.sh" "$here/pytest-packages.txt") &&
  python3 "$here/numpy_suite.py" "$1" "$5" "$native" "$pytest/site-packages" "$4/site-packages"; np=$?
echo
python3 "$here/pillow_suite.py" "$1" "$6" "$pytest/site-packages" "$4/site-packages"; pil=$?
echo
mpl=$(bash "$here/matplotlib_native.sh") &&
  python3 "$here/matplotlib_suite.py" "$1" "$7" "$native" "$mpl" "$pytest/site-packages" "$4/site-packages"; mp=$?
echo
pdn=$(bash "$here/pandas_native.sh") &&
  python3 "$here/pandas_suite.py" ${WB_CONFORMANCE_FULL:+--full} "$1" "$8" "$native" "$pdn" "$pytest/site-packages" \
    "$4/site-packages"; pd=$?
echo
python3 "$here/js_conformance.py" "$1" "$3"; js=$?
[ "$py" -eq 0 ] && [ "$pk" -eq 0 ] && [ "$np" -eq 0 ] && [ "$pil" -eq 0 ] && [ "$mp" -eq 0 ] && [ "$pd" -eq 0 ] && [ "$js" -eq 0 ]
