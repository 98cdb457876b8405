#!/usr/bin/env bash
# numpy_native.sh: the reference numpy for `make conformance` and `make
# bench`: the same Debian numpy 1.19.5 source with the same patches as the
# runtime's (runtimes/python/numpy.sh), built natively for the host's
# python3.11 with lapack_lite as on wasm (no BLAS), tests included. Cached
# under the build cache; prints the directory to put on PYTHONPATH.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../runtimes/lib.sh"
patches="$here/../../runtimes/python/numpy/patches"
wb_apt_install python3.11 python3.11-dev python3-setuptools cython3 gcc xz-utils
key=$(wb_recipe_hash "$here/../../runtimes/lib.sh" "$here/numpy_native.sh" "$patches"/*)
out="$WB_CACHE/conformance/numpy-native-$key"
if [ -f "$out/.done" ]; then echo "$out/site"; exit 0; fi
wb_lock "numpy-native-$key"
if [ -f "$out/.done" ]; then echo "$out/site"; exit 0; fi
work="$WB_CACHE/build/numpy-native-$key"
rm -rf "$work"; mkdir -p "$work/out"
log "numpy 1.19.5, natively (the reference)"
wb_apt_source bullseye "$work/src" numpy=1:1.19.5-1
tree=$(wb_unpack_orig "$work/src" numpy "$work/numpy")
for p in "$patches"/*.patch; do
  patch -d "$tree" -p1 --forward --batch --quiet < "$p" || die "patch $(basename "$p") does not apply"
done
(cd "$tree" && BLAS=None LAPACK=None ATLAS=None NPY_NUM_BUILD_JOBS="$WB_JOBS" PATH=/usr/bin:/bin \
   /usr/bin/python3.11 setup.py build >"$work/build.log" 2>&1 &&
 BLAS=None LAPACK=None ATLAS=None PATH=/usr/bin:/bin /usr/bin/python3.11 setup.py install \
   --single-version-externally-managed --record="$work/record" --install-lib="$work/out/site" \
   --install-scripts="$work/out/bin" --install-headers="$work/out/include" --install-data="$work/out/data" \
   >>"$work/build.log" 2>&1) \
  || { tail -30 "$work/build.log"; die "native numpy build failed"; }
# every file in the entry: nothing may land elsewhere on the machine
grep -v "^$work/out/" "$work/record" && die "numpy's install wrote outside $work/out (above)"
[ -f "$work/out/site/numpy/core/tests/test_umath.py" ] || die "native numpy: no tests installed"
mkdir -p "$(dirname "$out")"
rm -rf "$out"; mv "$work/out" "$out"
touch "$out/.done"
rm -rf "$work"
echo "$out/site"
