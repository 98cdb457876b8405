#!/usr/bin/env bash
# pandas_native.sh: the reference pandas for `make conformance`: the same
# generated C as the runtime's (runtimes/python/pandas_source.sh: pandas
# 2.2.3, its patches, Tempita and Cython 3.0.11), compiled natively for the
# host's python3.11 against the reference numpy (numpy_native.sh), module by
# module as runtimes/python/pandas/sources.txt lists them, with meson's
# flags; the Python package, tests included, beside the .so files. Cached
# under the build cache; prints the directory to put on PYTHONPATH (after
# numpy's).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../runtimes/lib.sh"
sources="$here/../../runtimes/python/pandas/sources.txt"
wb_apt_install python3.11 python3.11-dev gcc g++
numpy=$(bash "$here/numpy_native.sh") || die "the reference numpy failed"
src=$(bash "$here/../../runtimes/python/pandas_source.sh") || die "pandas' source failed"
key=$( (wb_recipe_hash "$here/../../runtimes/lib.sh" "$here/pandas_native.sh" "$sources"; echo "$numpy $src") |
  sha256sum | cut -c1-16)
out="$WB_CACHE/conformance/pandas-native-$key"
if [ -f "$out/.done" ]; then echo "$out/site"; exit 0; fi
wb_lock "pandas-native-$key"
if [ -f "$out/.done" ]; then echo "$out/site"; exit 0; fi
work="$WB_CACHE/build/pandas-native-$key"
rm -rf "$work"; mkdir -p "$work/obj" "$work/out/site"
log "pandas 2.2.3, natively (the reference)"

# meson compiles the parser's shared sources into each of these modules
# (pandas/_libs/meson.build, tslibs/meson.build)
declare -A shared=([pandas/_libs/src/parser/tokenizer.c]="pandas._libs.lib pandas._libs.parsers pandas._libs.tslibs.parsing pandas._libs.pandas_parser"
                   [pandas/_libs/src/parser/io.c]="pandas._libs.parsers pandas._libs.pandas_parser")
# -O0: this copy only has to give the same answers as the runtime's, and at
# -O2 its compile was 6.6 CPU-minutes of a cold CI run (hashtable.c: 47 s at
# -O2, 9 s at -O0)
common="-O0 -fPIC -I $src/tree/pandas/_libs/include -I $numpy/numpy/core/include -I /usr/include/python3.11"
common+=" -DNPY_NO_DEPRECATED_API=0 -DNDEBUG"
# one line a source: compiler, flags, source, object; and each module's objects
declare -A objs lang
: > "$work/compile"
while read -r group module path; do
  case $group in
    cython|c|datetime) cc="gcc -std=c11" ;;
    cython-cxx) cc=g++ ;;
    *) die "sources.txt: unknown flag group '$group'" ;;
  esac
  file=${path/@GEN@/$src/gen}; [ "$file" != "$path" ] || file="$src/tree/$path"
  [ -f "$file" ] || die "sources.txt: no $file"
  obj="$work/obj/${path#@GEN@/}.o"
  echo "$cc $common $file $obj" >> "$work/compile"
  if [ "$module" = lib ]; then
    [ -n "${shared[$path]:-}" ] || die "sources.txt: $path is shared, but not by meson's modules known here"
    for m in ${shared[$path]}; do objs[$m]="${objs[$m]:-} $obj"; done
  else
    objs[$module]="${objs[$module]:-} $obj"
  fi
  [ "$group" = cython-cxx ] && lang[$module]=cxx
done < <(sed -e 's/#.*//' "$sources" | grep -v '^[[:space:]]*$')
[ ${#objs[@]} -eq 44 ] || die "sources.txt: expected pandas' 44 extension modules, found ${#objs[@]}"
log "pandas: compiling $(wc -l < "$work/compile") sources, $WB_JOBS at a time"
# (the last two words are the source and the object)
xargs -P "$WB_JOBS" -L1 bash -c 'o=${!#}; s=${@:$#-1:1}; mkdir -p "$(dirname "$o")"
  "${@:1:$#-2}" -c "$s" -o "$o" >"$o.log" 2>&1 || { cat "$o.log"; exit 255; }' _ < "$work/compile" ||
  die "native pandas: a compile failed (above)"
for m in "${!objs[@]}"; do
  so="$work/out/site/${m//.//}.cpython-311-x86_64-linux-gnu.so"
  mkdir -p "$(dirname "$so")"
  ld=gcc; [ "${lang[$m]:-}" = cxx ] && ld=g++
  # shellcheck disable=SC2086 (a list of objects)
  $ld -shared ${objs[$m]} -o "$so" || die "native pandas: linking $m failed"
done
# the package as meson installs it: its Python (tests and their data
# included) and the stubs; not the Cython and C sources it was built from
site="$work/out/site"
cp -r "$src/tree/pandas/." "$site/pandas/"
rm -rf "$site/pandas/_libs/src" "$site/pandas/_libs/include"
find "$site/pandas/_libs" \( -name '*.pyx' -o -name '*.pxd' -o -name '*.pxi' -o -name '*.pxi.in' -o -name '*.c' \
  -o -name '*.h' -o -name '*.cpp' \) -delete
find "$site/pandas" -name meson.build -delete
cp "$src/tree/pyproject.toml" "$site/pandas/"  # (meson copies it there for pandas.test() and our runner's ini)
[ -f "$site/pandas/tests/frame/test_api.py" ] || die "native pandas: no tests"
builtin=$(bash "$here/../../runtimes/python/packages.sh") || die "the built-in packages failed"
PYTHONPATH="$numpy:$site:$builtin/site-packages" /usr/bin/python3.11 -c '
import pandas, numpy
assert pandas.__version__ == "2.2.3", pandas.__version__
assert numpy.__version__ == "1.19.5", numpy.__version__
df = pandas.DataFrame({"a": [1, 2, 1], "b": [3, 4, 5]})
assert df.groupby("a").sum()["b"].tolist() == [8, 4]
assert pandas.read_csv(__import__("io").StringIO("x,y\n1,2\n"))["y"][0] == 2
assert pandas.Series([1.0, 2.0, 3.0]).rolling(2).mean().tolist()[1:] == [1.5, 2.5]' \
  || die "native pandas does not import or work"
mkdir -p "$(dirname "$out")"
rm -rf "$out"; mv "$work/out" "$out"
touch "$out/.done"
rm -rf "$work"
echo "$out/site"
