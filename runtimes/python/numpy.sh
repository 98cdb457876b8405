#!/usr/bin/env bash
# numpy.sh CPYTHON_KIT: numpy 1.19.5 (Debian bullseye's .orig, the newest
# numpy source Debian serves) for the wasm CPython of cpython.sh.
#
# WASI has no dlopen, so each of numpy's extension modules is compiled to
# wasm objects that build.sh links into python.wasm and registers as a
# built-in module under its dotted name. numpy's own generators (the .c.src
# templates, the API tables, Cython for numpy.random) run natively with the
# host's python3.11; config.h and _numpyconfig.h are ours, for wasm32
# (numpy/config.h says how they were answered). Our patches are in
# numpy/patches, each with a line saying why; numpy/sources.txt lists what is
# compiled and how.
#
# Output (printed on stdout): a directory holding
#   libnumpy.a     the objects of every extension and of numpy's libraries
#   inittab.tsv    dotted module name <TAB> its init function
#   site/          numpy's Python files (+ unchecked-hash .pyc), without tests
#   tests/         the whole package, tests included, for `make conformance`
#   include/       numpy's C API headers as numpy.get_include() gives them
#                  (the generated API tables, our _numpyconfig.h), for the
#                  kits that compile against numpy (pandas.sh)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

[ $# -eq 1 ] && [ -f "$1/link.args" ] || die "usage: numpy.sh CPYTHON_KIT (cpython.sh's output)"
kit=$1

wb_apt_install clang-19 lld-19 llvm-19 wasi-libc python3.11 python3.11-dev python3-setuptools cython3 xz-utils

key=$( (wb_recipe_hash "$here/../lib.sh" "$here/numpy.sh" "$here/fpcast.py" "$here"/numpy/*.* "$here"/numpy/patches/*; echo "$kit") | sha256sum | cut -c1-16)
out="$WB_CACHE/runtimes/numpy-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi
wb_lock "numpy-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi

work="$WB_CACHE/build/numpy-$key"
rm -rf "$work"; mkdir -p "$work"
sdk="$work/sdk"; wb_wasi_sdk "$sdk"
CC="$sdk/bin/clang"
AR="$sdk/bin/llvm-ar"
# -w: third-party warnings are not ours to fix. The prefix maps keep this
# entry's path (its key) out of the objects (__FILE__ in numpy's messages),
# so the module is the same whatever the key.
CFLAGS="-O2 -w -mbulk-memory -ffile-prefix-map=$work=numpy -ffile-prefix-map=$kit=cpython"

log "fetching numpy"
wb_apt_source bullseye "$work/src" numpy=1:1.19.5-1
tree=$(wb_unpack_orig "$work/src" numpy "$work/numpy")
tree=${tree%/}
for p in "$here"/numpy/patches/*.patch; do
  patch -d "$tree" -p1 --forward --batch --quiet < "$p" || die "patch $(basename "$p") does not apply"
done

# numpy's generators, natively: templates, API tables, Cython. Without BLAS
# and LAPACK, as on wasm: linalg uses its bundled lapack_lite.
log "numpy build_src (generated sources, Cython)"
(cd "$tree" && BLAS=None LAPACK=None ATLAS=None NPY_NUM_BUILD_JOBS=1 PATH=/usr/bin:/bin \
   /usr/bin/python3.11 setup.py build_src >"$work/build_src.log" 2>&1) \
  || { tail -30 "$work/build_src.log"; die "numpy build_src failed"; }
gen=$(ls -d "$tree"/build/src.*) || die "build_src made no output directory"
[ -f "$tree/numpy/random/_generator.c" ] || die "Cython did not generate numpy.random's C (see $work/build_src.log)"
# The probed configuration is the host's; numpy's sources read ours.
cp "$here/numpy/config.h" "$here/numpy/_numpyconfig.h" "$gen/numpy/core/include/numpy/"

# Flag groups of sources.txt (numpy's setup.py, per extension).
base="-I$tree/numpy/core/include -I$gen/numpy/core/include/numpy -I$tree/numpy/core/src/common
  -I$tree/numpy/core/src -I$tree/numpy/core -I$tree/numpy/core/src/npymath -I$tree/numpy/core/src/multiarray
  -I$tree/numpy/core/src/umath -I$tree/numpy/core/src/npysort -I$kit/include -I$gen/numpy/core/src/common
  -I$gen/numpy/core/src/npymath -std=c99"
core="-DNPY_INTERNAL_BUILD=1 -DHAVE_NPY_CONFIG_H=1 -D_FILE_OFFSET_BITS=64 -D_LARGEFILE_SOURCE=1 -D_LARGEFILE64_SOURCE=1"
random="-D_FILE_OFFSET_BITS=64 -D_LARGEFILE_SOURCE=1 -D_LARGEFILE64_SOURCE=1 -DNPY_NO_DEPRECATED_API=0
  -U__GNUC_GNU_INLINE__ -I$tree/numpy/random -I$tree/numpy/random/src"
group_flags() {
  case $1 in
    npymath) echo "-I$gen/numpy/core/src/npymath" ;;
    npysort) echo "-I$gen/numpy/core/src/common" ;;
    plain) echo "" ;;
    internal) echo "$core" ;;
    umath) echo "$core -I$gen/numpy/core/src/umath -I$gen/numpy/core/src/npymath -I$gen/numpy/core/src/common" ;;
    random) echo "$random" ;;
    random-legacy) echo "$random -DNP_RANDOM_LEGACY=1 -I$tree/numpy/random/src/legacy -include $work/legacy_names.h" ;;
    random-*) echo "$random -I$tree/numpy/random/src/${1#random-}" ;;
    *) die "sources.txt: unknown flag group $1" ;;
  esac
}

# mtrand's own copy of the distributions (sources.txt), under names of its
# own: every function distributions.c defines, as a compile lists them.
"$CC" $CFLAGS $random $base -c "$tree/numpy/random/src/distributions/distributions.c" -o "$work/names.o"
"$sdk/bin/llvm-nm" --defined-only -g "$work/names.o" | awk '$2 == "T" || $2 == "D" || $2 == "B" {print $3}' |
  sed 's/.*/#define & wb_legacy_&/' > "$work/legacy_names.h"
grep -q wb_legacy_random_poisson "$work/legacy_names.h" || die "no legacy names from distributions.c"

# One line per compile; each extension's init function renamed after its
# dotted name, so that no later package's `PyInit_mtrand` or `_common`
# can clash with numpy's.
mkdir -p "$work/obj"
: > "$work/compiles"
: > "$work/inittab.tsv"
while read -r group module source; do
  case $group in ''|'#'*) continue ;; esac
  src=${source//@GEN@/$gen}
  [ "$src" = "$source" ] && src="$tree/$source"
  [ -f "$src" ] || die "sources.txt: $source is not in the tree"
  rename=""
  case $module in
    numpy.*) init="WbInit_${module//./_}"; rename="-DPyInit_${module##*.}=$init"
             grep -q "^$module	" "$work/inittab.tsv" || printf '%s\t%s\n' "$module" "$init" >> "$work/inittab.tsv" ;;
  esac
  obj="$work/obj/$module-$(basename "$source").o"
  echo "$CC $CFLAGS $(group_flags "$group") $base $rename -c $src -o $obj" | tr '\n' ' ' >> "$work/compiles"
  echo >> "$work/compiles"
done < "$here/numpy/sources.txt"
# WebAssembly checks a function pointer's type at each call: fpcast.py
# rewrites the casts that would trap. The templates' #line directives go, so
# that clang names the generated file, which is what is compiled.
find "$gen" -name '*.c' -o -name '*.h' | xargs sed -i '/^#line /d'
/usr/bin/python3 "$here/fpcast.py" "$work/compiles" >&2 || die "fpcast failed"
log "compiling numpy ($(wc -l < "$work/compiles") sources, $WB_JOBS jobs)"
# largest first, so that no big file starts last
while read -r cmd; do
  src=$(echo "$cmd" | sed 's/.* -c \([^ ]*\) -o .*/\1/')
  echo "$(stat -c %s "$src") $cmd"
done < "$work/compiles" | sort -rn | cut -d' ' -f2- |
  xargs -P "$WB_JOBS" -I{} sh -c '{} 2>>"$0/cc.log" || { echo "failed: {}" >>"$0/cc.log"; exit 255; }' "$work" \
  || { tail -30 "$work/cc.log"; die "compiling numpy failed"; }
stage="$work/out"; mkdir -p "$stage"
"$AR" rcs "$stage/libnumpy.a" "$work"/obj/*.o
cp "$work/inittab.tsv" "$stage/"
mkdir -p "$stage/include"
cp -r "$tree/numpy/core/include/numpy" "$stage/include/"
cp "$gen"/numpy/core/include/numpy/*.h "$stage/include/numpy/"
[ -f "$stage/include/numpy/__ufunc_api.h" ] || die "numpy's generated C API headers are not in $gen"
[ "$(wc -l < "$stage/inittab.tsv")" -eq 18 ] || die "expected numpy's 18 extensions in inittab.tsv"

# --- the Python package ----------------------------------------------------
log "numpy's Python files"
pkg="$stage/tests/numpy"; mkdir -p "$pkg"
cp -r "$tree/numpy/." "$pkg/"
# sources and build inputs: what was compiled is in libnumpy.a
rm -rf "$pkg/core/src" "$pkg/random/src" "$pkg/linalg/lapack_lite" "$pkg/fft/_pocketfft.c"
find "$pkg" \( -name '*.c' -o -name '*.src' -o -name '*.pyx' -o -name '*.in' -o -name '*.o' -o -name '*.so' \
  -o -name '*.cpp' -o -name '*.f' -o -name '*.f90' -o -name '*.pyf' \) -delete
cp "$gen/numpy/__config__.py" "$pkg/"
[ -f "$pkg/version.py" ] || die "setup.py did not write numpy/version.py"
cp -r "$stage/tests" "$stage/site"
find "$stage/site/numpy" -depth -type d -name tests -exec rm -rf {} +
rm -rf "$stage/site/numpy/core/include" "$stage/site/numpy/random/include"
# what importlib.metadata and installers read to see that numpy is there
dist="$stage/site/numpy-1.19.5.dist-info"; mkdir -p "$dist"
printf 'Metadata-Version: 2.1\nName: numpy\nVersion: 1.19.5\nSummary: NumPy is the fundamental package for array computing with Python.\n' > "$dist/METADATA"
printf 'wasmbox\n' > "$dist/INSTALLER"
printf 'numpy\n' > "$dist/top_level.txt"
/usr/bin/python3.11 -m compileall -q -j0 --invalidation-mode unchecked-hash "$stage/site" >/dev/null \
  || die "compileall numpy failed"

mkdir -p "$(dirname "$out")"
rm -rf "$out"; mv "$stage" "$out"
touch "$out/.done"
rm -rf "$work"
log "numpy ready: $out"
echo "$out"
