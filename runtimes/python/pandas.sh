#!/usr/bin/env bash
# pandas.sh CPYTHON_KIT: pandas 2.2.3 for the wasm CPython of cpython.sh,
# against numpy.sh's numpy 1.19.5. The source, patched and run through
# Tempita and Cython, is pandas_source.sh's; pandas/sources.txt lists what
# is compiled and how.
#
# As numpy.sh does: each extension module is compiled to wasm objects that
# build.sh links into python.wasm and registers as a built-in module under
# its dotted name. pandas' code is compiled with -Oz: Cython's fused types
# make it 2.5 times numpy's, and its size is what the native build's time
# follows (groupby: 39 % smaller than at -O2, compiled in 43 % less time).
#
# Output (printed on stdout): a directory holding
#   libpandas.a    the objects of pandas' 44 extension modules
#   inittab.tsv    dotted module name <TAB> its init function
#   site/          pandas' Python files (+ unchecked-hash .pyc), without tests
#   tests/         the whole package, tests included, for `make conformance`
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

[ $# -eq 1 ] && [ -f "$1/link.args" ] || die "usage: pandas.sh CPYTHON_KIT (cpython.sh's output)"
kit=$1

wb_apt_install clang-19 lld-19 llvm-19 wasi-libc python3.11

src=$(wb_recipe bash "$here/pandas_source.sh")
numpy=$(wb_recipe bash "$here/numpy.sh" "$kit")
cxx=$(wb_recipe bash "$here/../cxx.sh")
[ -f "$numpy/include/numpy/__multiarray_api.h" ] || die "numpy.sh's output $numpy has no C API headers"
key=$( (wb_recipe_hash "$here/../lib.sh" "$here/pandas.sh" "$here/fpcast.py" "$here/pandas/sources.txt"
        echo "$kit $src $numpy $cxx") | sha256sum | cut -c1-16)
out="$WB_CACHE/runtimes/pandas-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi
wb_lock "pandas-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi

work="$WB_CACHE/build/pandas-$key"
rm -rf "$work"; mkdir -p "$work"
sdk="$work/sdk"; wb_wasi_sdk "$sdk"
AR="$sdk/bin/llvm-ar"
tree="$src/tree"
# -w: third-party warnings are not ours to fix; the prefix maps keep the
# entries' paths out of the objects, as in numpy.sh. -DNDEBUG as meson's
# release build.
common="-Oz -DNDEBUG -w -mbulk-memory -ffile-prefix-map=$src=pandas -ffile-prefix-map=$kit=cpython
  -ffile-prefix-map=$numpy=numpy -I$tree/pandas/_libs/include -I$numpy/include -I$kit/include
  -DNPY_NO_DEPRECATED_API=0"
CC="$sdk/bin/clang -std=c11"
# CPython's WASI pthread stubs (cpython/pthread_stubs.h) say restrict,
# which C++ spells __restrict.
CXX="$sdk/bin/clang++ $(cat "$cxx/cxxflags") -Drestrict=__restrict"

# pandas' copy of numpy's datetime code defines functions numpy 1.19.5's
# multiarray defines too, with other signatures: in one static link they
# would clash. Every global those files define gets a name of its own.
datetime_files=$(awk '$1 == "datetime" {print $3}' "$here/pandas/sources.txt")
for f in $datetime_files; do
  $CC $common -c "$tree/$f" -o "$work/names-$(basename "$f").o" || die "compiling $f failed"
done
"$sdk/bin/llvm-nm" --defined-only -g "$work"/names-*.o | awk '$2 ~ /^[TDB]$/ && $3 !~ /^PyInit_/ {print $3}' |
  sort -u | sed 's/.*/#define & wb_pandas_&/' > "$work/datetime_names.h"
grep -q 'wb_pandas_is_leapyear' "$work/datetime_names.h" || die "no names from pandas' datetime code"
group_flags() {
  case $1 in
    cython|c) echo "$CC $common" ;;
    cython-cxx) echo "$CXX $common" ;;
    datetime) echo "$CC $common -include $work/datetime_names.h" ;;
    *) die "sources.txt: unknown flag group $1" ;;
  esac
}

# One line per compile; each extension's init function renamed after its
# dotted name (pandas._libs.json's PyInit_json, tslibs' base and index
# would clash with other packages').
mkdir -p "$work/obj"
: > "$work/compiles"
: > "$work/inittab.tsv"
sed 's/#.*//' "$here/pandas/sources.txt" | while read -r group module source; do
  [ -n "$group" ] || continue
  path=${source//@GEN@/$src/gen}
  [ "$path" = "$source" ] && path="$tree/$source"
  [ -f "$path" ] || die "sources.txt: $source is not in pandas_source.sh's output"
  rename=""
  case $module in
    pandas.*) init="WbInit_${module//./_}"; rename="-DPyInit_${module##*.}=$init"
              grep -q "^$module	" "$work/inittab.tsv" || printf '%s\t%s\n' "$module" "$init" >> "$work/inittab.tsv" ;;
  esac
  obj="$work/obj/$module-$(basename "$source").o"
  echo "$(group_flags "$group") $rename -c $path -o $obj" | tr '\n' ' ' >> "$work/compiles"
  echo >> "$work/compiles"
done
# function pointer casts that would trap under call_indirect (fpcast.py)
/usr/bin/python3 "$here/fpcast.py" "$work/compiles" >&2 || die "fpcast failed"
log "compiling pandas ($(wc -l < "$work/compiles") sources, $WB_JOBS jobs)"
# largest first, so that no big file starts last
while read -r cmd; do
  path=$(echo "$cmd" | sed 's/.* -c \([^ ]*\) -o .*/\1/')
  echo "$(stat -c %s "$path") $cmd"
done < "$work/compiles" | sort -rn | cut -d' ' -f2- |
  xargs -P "$WB_JOBS" -I{} sh -c '{} 2>>"$0/cc.log" || { echo "failed: {}" >>"$0/cc.log"; exit 255; }' "$work" \
  || { tail -30 "$work/cc.log"; die "compiling pandas failed"; }
stage="$work/out"; mkdir -p "$stage"
"$AR" rcs "$stage/libpandas.a" "$work"/obj/*.o
cp "$work/inittab.tsv" "$stage/"
[ "$(wc -l < "$stage/inittab.tsv")" -eq 44 ] || die "expected pandas' 44 extensions in inittab.tsv"

# --- the Python package ----------------------------------------------------
log "pandas' Python files"
mkdir -p "$stage/tests"
cp -r "$tree/pandas" "$stage/tests/"
# what was compiled is in libpandas.a; the build's inputs go
rm -rf "$stage/tests/pandas/_libs/src" "$stage/tests/pandas/_libs/include"
find "$stage/tests/pandas" \( -name '*.c' -o -name '*.cpp' -o -name '*.h' -o -name '*.pyx' -o -name '*.pxd' \
  -o -name '*.pxi' -o -name '*.in' -o -name 'meson.build' \) -delete
# pandas.test() and the suite's conftest read it (meson installs it there)
cp "$tree/pyproject.toml" "$stage/tests/pandas/"
mkdir -p "$stage/site"
cp -r "$stage/tests/pandas" "$stage/site/"
rm -rf "$stage/site/pandas/tests"
dist="$stage/site/pandas-2.2.3.dist-info"; mkdir -p "$dist"
printf 'Metadata-Version: 2.1\nName: pandas\nVersion: 2.2.3\nSummary: Powerful data structures for data analysis, time series, and statistics\nRequires-Dist: numpy>=1.19.5\nRequires-Dist: python-dateutil>=2.8.2\nRequires-Dist: pytz>=2020.1\n' > "$dist/METADATA"
printf 'wasmbox\n' > "$dist/INSTALLER"
printf 'pandas\n' > "$dist/top_level.txt"
/usr/bin/python3.11 -m compileall -q -j0 --invalidation-mode unchecked-hash "$stage/site" >/dev/null \
  || die "compileall pandas failed"

mkdir -p "$(dirname "$out")"
rm -rf "$out"; mv "$stage" "$out"
touch "$out/.done"
rm -rf "$work"
log "pandas ready: $out"
echo "$out"
