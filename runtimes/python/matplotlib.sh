#!/usr/bin/env bash
# matplotlib.sh CPYTHON_KIT: matplotlib 3.3.4 (Debian bullseye's .orig) for
# the wasm CPython of cpython.sh, with the Agg backend: its C++ is compiled
# with the C++ kit (runtimes/cxx.sh: exceptions work, so a C++ error in an
# extension is the Python exception matplotlib raises natively), FreeType is
# runtimes/freetype.sh's, the Delaunay triangulation is Debian's qhull
# 2020.2 (bookworm's, the reentrant libqhull_r), Agg and ttconv are
# matplotlib's own (extern/). numpy's C API headers are generated here from
# the numpy source numpy.sh builds, with its _numpyconfig.h.
#
# As numpy.sh does: each extension module is compiled to wasm objects that
# build.sh links into python.wasm and registers as a built-in module under
# its dotted name. matplotlib/sources.txt lists what is compiled and how;
# our patches are in matplotlib/patches, each with a line saying why.
#
# The Python side is matplotlib's package with its mpl-data (DejaVu fonts
# included), a matplotlibrc whose backend is Agg, and the font list
# (fontlist-v330.json) matplotlib's font_manager would otherwise build at
# the first import: generated here natively by the same font_manager over
# the same fonts, and read by the guest from mpl-data (patches/0002).
#
# Output (printed on stdout): a directory holding
#   libmatplotlib.a  the objects of the extensions, Agg, ttconv and qhull
#   inittab.tsv      dotted module name <TAB> its init function
#   site/            matplotlib, mpl_toolkits, pylab (+ unchecked-hash .pyc)
#   tests/           matplotlib's and mpl_toolkits' tests with their
#                    baseline images, for `make conformance`
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

[ $# -eq 1 ] && [ -f "$1/link.args" ] || die "usage: matplotlib.sh CPYTHON_KIT (cpython.sh's output)"
kit=$1

# the host side (the font list): g++, FreeType, numpy and what matplotlib imports
wb_apt_install clang-19 lld-19 llvm-19 wasi-libc python3.11 python3.11-dev xz-utils g++ libfreetype-dev \
  python3-numpy python3-cycler python3-kiwisolver python3-dateutil python3-pyparsing

cxx=$(wb_recipe bash "$here/../cxx.sh")
ft=$(wb_recipe bash "$here/../freetype.sh")
sjlj="$here/../common/sjlj"
[ -f "$sjlj/setjmp.h" ] || die "no $sjlj/setjmp.h (qhull's setjmp and longjmp)"
key=$( (wb_recipe_hash "$here/../lib.sh" "$here/matplotlib.sh" "$here/fpcast.py" "$here"/matplotlib/*.* \
          "$here"/matplotlib/patches/* "$here/numpy/_numpyconfig.h" "$here"/numpy/patches/* \
          "$sjlj/setjmp.h"; echo "$kit $cxx $ft") |
  sha256sum | cut -c1-16)
out="$WB_CACHE/runtimes/matplotlib-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi
wb_lock "matplotlib-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi

work="$WB_CACHE/build/matplotlib-$key"
rm -rf "$work"; mkdir -p "$work"
sdk="$work/sdk"; wb_wasi_sdk "$sdk"
AR="$sdk/bin/llvm-ar"
# -w: third-party warnings are not ours to fix; the prefix maps keep this
# entry's path (its key) out of the objects, as in numpy.sh. -DNDEBUG as
# setuptools compiles extensions (Python's OPT): _tri's asserts abort on
# what natively is its RuntimeError "Triangulation is invalid".
common="-O2 -DNDEBUG -w -mbulk-memory -ffile-prefix-map=$work=matplotlib -ffile-prefix-map=$kit=cpython"

log "fetching matplotlib, numpy's source (its C API headers), qhull"
wb_apt_source bullseye "$work/src" matplotlib=3.3.4-1 numpy=1:1.19.5-1
wb_apt_source bookworm "$work/src" qhull=2020.2-5
tree=$(wb_unpack_orig "$work/src" matplotlib "$work/matplotlib"); tree=${tree%/}
np=$(wb_unpack_orig "$work/src" numpy "$work/numpy"); np=${np%/}
qhull=$(wb_unpack_orig "$work/src" qhull "$work/qhull"); qhull=${qhull%/}
for p in "$here"/matplotlib/patches/*.patch; do
  patch -d "$tree" -p1 --forward --batch --quiet < "$p" || die "patch $(basename "$p") does not apply"
done

# numpy's headers as numpy.sh patches them (npy_cpu.h knows wasm32)
for p in "$here"/numpy/patches/*.patch; do
  patch -d "$np" -p1 --forward --batch --quiet < "$p" || die "numpy's patch $(basename "$p") does not apply"
done
# numpy's C API tables (__multiarray_api.h), by numpy's own generator as
# its setup.py runs it (numpy not imported: __NUMPY_SETUP__), and the
# configuration numpy.sh compiled numpy with.
npgen="$work/numpy-api"; mkdir -p "$npgen"
(cd "$np/numpy/core/code_generators" && /usr/bin/python3.11 -c '
import builtins, sys
builtins.__NUMPY_SETUP__ = True
sys.path[:0] = [".", "..", sys.argv[2]]
import generate_numpy_api
generate_numpy_api.generate_api(sys.argv[1])' "$npgen" "$np" >"$work/numpy-api.log" 2>&1) \
  || { cat "$work/numpy-api.log"; die "generating numpy's C API headers failed"; }
cp "$here/numpy/_numpyconfig.h" "$npgen/"
# Every extension's numpy API table is one variable: setupext.py names one
# per extension (each its own .so), but here the extensions share their
# inline code and py_converters.cpp, so they must share the table too;
# each extension's import_array sets it to the same value. Weak, as each
# wrapper defines it.
cat > "$work/array_api.h" <<'H'
#ifdef __cplusplus
extern "C"
#endif
void **MPL_ARRAY_API __attribute__((weak));
H
numpy="-I$np/numpy/core/include -I$npgen -I$kit/include -DPY_ARRAY_UNIQUE_SYMBOL=MPL_ARRAY_API
  -DNPY_NO_DEPRECATED_API=NPY_1_7_API_VERSION -D__STDC_FORMAT_MACROS=1 -include $work/array_api.h"

# CPython's WASI pthread stubs (cpython/pthread_stubs.h) say restrict,
# which C++ spells __restrict.
# -simplifycfg-sink-common=false: clang-19 merged ttconv's
# `if (type 3) stream.printf("] def\n"); else stream.putline(...)` into one
# indirect call of putline's type, a variadic virtual function called
# without its varargs argument; WebAssembly checks the callee's type and
# trapped ("invalid indirect call") on every PostScript Type 3 font.
CXX="$sdk/bin/clang++ $(cat "$cxx/cxxflags") -std=c++11 -Drestrict=__restrict -mllvm -simplifycfg-sink-common=false"
CC="$sdk/bin/clang -std=gnu99"
# qhull reports its errors by longjmp to qh_new_qhull's setjmp; FreeType's
# headers include <setjmp.h>
sjljflags="-mllvm -wasm-enable-sjlj -mexception-handling -isystem $sjlj"
group_flags() {
  case $1 in
    cxx) echo "$CXX $common -I$tree/extern/agg24-svn/include -I$tree/extern -I$tree/src $numpy" ;;
    contour) echo "$(group_flags cxx) -DXY=WbContourXY -DContourLine=WbContourLine -DContour=WbContour" ;;
    tri) echo "$(group_flags cxx) -DXY=WbTriXY -DXYZ=WbTriXYZ -DContourLine=WbTriContourLine -DContour=WbTriContour" ;;
    ft2font) echo "$CXX $common $sjljflags -I$tree/extern/agg24-svn/include -I$tree/src -I$ft/include/freetype2 $numpy" ;;
    qhull) echo "$CC $common $sjljflags -I$qhull/src" ;;
    qhullwrap) echo "$CC $common $sjljflags -I$qhull/src -DMPL_DEVNULL=/dev/null $numpy" ;;
    *) die "sources.txt: unknown flag group $1" ;;
  esac
}

# One line per compile; each module's init function renamed after its
# dotted name, so that no other package's PyInit__path can clash.
mkdir -p "$work/obj"
: > "$work/compiles"
: > "$work/inittab.tsv"
while read -r group module source; do
  case $group in ''|'#'*) continue ;; esac
  src=${source//@QHULL@/$qhull}
  [ "$src" = "$source" ] && src="$tree/$source"
  [ -f "$src" ] || die "sources.txt: $source is not in the tree"
  rename=""
  case $module in
    matplotlib.*) init="WbInit_${module//./_}"; rename="-DPyInit_${module##*.}=$init"
                  grep -q "^$module	" "$work/inittab.tsv" || printf '%s\t%s\n' "$module" "$init" >> "$work/inittab.tsv" ;;
  esac
  obj="$work/obj/$module-$(basename "$source").o"
  echo "$(group_flags "$group") $rename -c $src -o $obj" | tr '\n' ' ' >> "$work/compiles"
  echo >> "$work/compiles"
done < "$here/matplotlib/sources.txt"
# function pointer casts that would trap under call_indirect (fpcast.py)
/usr/bin/python3 "$here/fpcast.py" "$work/compiles" >&2 || die "fpcast failed"
log "compiling matplotlib, Agg, ttconv and qhull ($(wc -l < "$work/compiles") sources, $WB_JOBS jobs)"
while read -r cmd; do
  src=$(echo "$cmd" | sed 's/.* -c \([^ ]*\) -o .*/\1/')
  echo "$(stat -c %s "$src") $cmd"
done < "$work/compiles" | sort -rn | cut -d' ' -f2- |
  xargs -P "$WB_JOBS" -I{} sh -c '{} 2>>"$0/cc.log" || { echo "failed: {}" >>"$0/cc.log"; exit 255; }' "$work" \
  || { tail -30 "$work/cc.log"; die "compiling matplotlib failed"; }
stage="$work/out"; mkdir -p "$stage"
"$AR" rcs "$stage/libmatplotlib.a" "$work"/obj/*.o
cp "$work/inittab.tsv" "$stage/"
[ "$(wc -l < "$stage/inittab.tsv")" -eq 8 ] || die "expected matplotlib's 8 extensions in inittab.tsv"

# --- the Python package ----------------------------------------------------
log "matplotlib's Python files"
mkdir -p "$stage/tests"
cp -r "$tree/lib/matplotlib" "$tree/lib/mpl_toolkits" "$stage/tests/"
# what setup.py's build writes: the version (the sdist's short
# _version.py) and the default matplotlibrc, its backend Agg
cat > "$stage/tests/matplotlib/_version.py" <<'V'
# written by runtimes/python/matplotlib.sh, as matplotlib's sdist has it
def get_versions():
    return {"version": "3.3.4", "full-revisionid": "396e8c72b132f9a659d6f86388da6b40275b9290",
            "dirty": False, "error": None}
V
rc="$stage/tests/matplotlib/mpl-data/matplotlibrc"
sed 's/^#backend:.*/backend: Agg/' "$tree/matplotlibrc.template" > "$rc"
[ "$(grep -c '^backend: Agg$' "$rc")" -eq 1 ] || die "matplotlibrc.template has no single #backend: line"
# The font list, as font_manager builds it when it finds no cache: by the
# same code over the same fonts, natively, with an ft2font built for the
# host from the same sources against Debian's FreeType (fontlist.py).
log "the font list (fontlist-v330.json)"
host="$work/host"; mkdir -p "$host"
cp -r "$stage/tests/matplotlib" "$host/"
suffix=$(/usr/bin/python3.11 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
npinc=$(/usr/bin/python3.11 -c 'import numpy; print(numpy.get_include())')
# shellcheck disable=SC2046
g++ -O1 -w -shared -fPIC -I"$tree/src" -I"$tree/extern/agg24-svn/include" -I/usr/include/freetype2 \
  $(/usr/bin/python3.11-config --includes) -I"$npinc" -DPY_ARRAY_UNIQUE_SYMBOL=MPL_matplotlib_ft2font_ARRAY_API \
  -DNPY_NO_DEPRECATED_API=NPY_1_7_API_VERSION -D__STDC_FORMAT_MACROS=1 "$tree"/src/{ft2font,ft2font_wrapper,mplutils,py_converters}.cpp \
  -lfreetype -o "$host/matplotlib/ft2font$suffix" 2>"$work/host-ft2font.log" \
  || { cat "$work/host-ft2font.log"; die "building ft2font for the host failed"; }
MPLCONFIGDIR="$work/mplconfig" PYTHONPATH="$host" /usr/bin/python3.11 "$here/matplotlib/fontlist.py" \
  "$stage/tests/matplotlib/mpl-data/fontlist-v330.json" >&2 || die "building the font list failed"
mkdir -p "$stage/site"
cp -r "$stage/tests/matplotlib" "$stage/tests/mpl_toolkits" "$tree/lib/pylab.py" "$stage/site/"
find "$stage/site" -depth -type d -name tests -exec rm -rf {} +
dist="$stage/site/matplotlib-3.3.4.dist-info"; mkdir -p "$dist"
printf 'Metadata-Version: 2.1\nName: matplotlib\nVersion: 3.3.4\nSummary: Python plotting package\n' > "$dist/METADATA"
printf 'wasmbox\n' > "$dist/INSTALLER"
printf 'matplotlib\nmpl_toolkits\npylab\n' > "$dist/top_level.txt"
/usr/bin/python3.11 -m compileall -q -j0 --invalidation-mode unchecked-hash "$stage/site" >/dev/null \
  || die "compileall matplotlib failed"

mkdir -p "$(dirname "$out")"
rm -rf "$out"; mv "$stage" "$out"
touch "$out/.done"
rm -rf "$work"
log "matplotlib ready: $out"
echo "$out"
