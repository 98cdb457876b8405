#!/usr/bin/env bash
# pandas_source.sh: pandas 2.2.3 (Debian trixie's .orig), patched and made
# ready to compile, for the wasm kit (pandas.sh) and the native reference
# (tests/conformance/pandas_native.sh) alike, so that both compile the same C.
#
# pandas' build runs meson, Tempita and Cython 3. Here: Tempita and Cython
# 3.0.11 come from trixie's cython3 .deb, unpacked (its compiled parts are
# for python3.13; every one has its pure-Python twin, which python3.11 runs).
# Cython runs with -S, so that it reads the numpy declarations it bundles
# and not those of the host's python3-numpy (1.24), a numpy we do not build
# against. The generated C does not depend on the target.
#
# Output (printed on stdout): a directory holding
#   tree/pandas/   the patched package, .pxi generated, _version_meson.py
#   gen/pandas/    Cython's output, one .c (.cpp) beside each .pyx's path
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

wb_apt_install python3.11 dpkg xz-utils

key=$(wb_recipe_hash "$here/../lib.sh" "$here/pandas_source.sh" "$here"/pandas/patches/*)
out="$WB_CACHE/runtimes/pandas-source-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi
wb_lock "pandas-source-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi

work="$WB_CACHE/build/pandas-source-$key"
rm -rf "$work"; mkdir -p "$work/debs" "$work/out"

log "fetching pandas and Cython"
# trixie's index lists a pandas_2.2.3+dfsg-9.dsc the mirror does not serve,
# so apt-get source fails after fetching the two tarballs (which apt checks
# against the index's hashes): what counts is that the orig tarball is there.
wb_apt_source trixie "$work/src" pandas=2.2.3+dfsg-9 2>"$work/fetch.log" || true
ls "$work"/src/pandas_2.2.3+dfsg.orig.tar.* >/dev/null 2>&1 || { cat "$work/fetch.log" >&2; die "apt-get source did not fetch pandas' orig tarball"; }
root="$WB_CACHE/apt/trixie-binary"
mkdir -p "$root/lists/partial" "$root/archives/partial"
echo "deb [arch=amd64] $(wb_debian_mirror) trixie main" > "$root/sources.list"
opts=(-o Dir::Etc::SourceList="$root/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o Dir::State::Lists="$root/lists" -o Dir::Cache="$root" -o APT::Architecture=amd64
      -o APT::Sandbox::User=root -qq)
if [ -z "$(find "$root/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null)" ]; then
  apt-get "${opts[@]}" update >/dev/null || die "apt-get update (trixie binary index) failed"
fi
(cd "$work/debs" && apt-get "${opts[@]}" download cython3=3.0.11+dfsg-2+b1 >/dev/null) || die "apt-get download cython3 failed"
dpkg-deb -x "$work"/debs/cython3_*.deb "$work/cython"
cy="$work/cython/usr/lib/python3/dist-packages"
cython() { PYTHONPATH="$cy" /usr/bin/python3.11 -S "$@"; }
[ "$(cython -m cython --version 2>&1)" = "Cython version 3.0.11" ] || die "trixie's Cython does not run on python3.11"

tree=$(wb_unpack_orig "$work/src" pandas "$work/pandas")
tree=${tree%/}
for p in "$here"/pandas/patches/*.patch; do
  patch -d "$tree" -p1 --forward --batch --quiet < "$p" || die "patch $(basename "$p") does not apply"
done
# meson writes it from git; Debian's tarball has no git, and without it
# pandas says its version is 0+unknown
printf '__version__ = "2.2.3"\n__git_version__ = ""\n' > "$tree/pandas/_version_meson.py"

log "pandas: Tempita and Cython"
for t in "$tree"/pandas/_libs/*.pxi.in; do
  (cd "$(dirname "$t")" && cython "$tree/generate_pxi.py" "$(basename "$t")" -o .) || die "Tempita failed on $t"
done
gen="$work/out/gen"
# meson's arguments (pandas/_libs/meson.build); window.aggregations is C++
(cd "$tree" && find pandas/_libs -name '*.pyx' | sort) | while read -r pyx; do
  lang=c flag=""; [ "$pyx" = pandas/_libs/window/aggregations.pyx ] && lang=cpp flag=" --cplus"
  mkdir -p "$gen/$(dirname "$pyx")"
  echo "$pyx $gen/${pyx%.pyx}.$lang$flag"  # (no trailing blank: xargs -L would join the next line)
done > "$work/pyx"
[ "$(wc -l < "$work/pyx")" -eq 41 ] || die "expected pandas' 41 Cython modules"
export -f cython; export cy
(cd "$tree" && xargs -P "$WB_JOBS" -L1 bash -c 'cython -m cython -3 -X always_allow_keywords=true -I pandas/_libs $2 "$0" -o "$1" \
   >"$1.log" 2>&1 || { cat "$1.log"; exit 255; }' < "$work/pyx") || die "Cython failed (above)"
# the numpy declarations must be Cython's own (see the top)
grep -l 'numpy/__init__.cython-30.pxd\|dist-packages/numpy' -r "$gen" --include='*.c' --include='*.cpp' &&
  die "Cython read another numpy's declarations (files above)"
grep -q 'Cython/Includes/numpy/__init__.pxd' "$gen/pandas/_libs/algos.c" || die "Cython did not read its bundled numpy declarations"
[ "$(find "$gen" -name '*.c' -o -name '*.cpp' | wc -l)" -eq 41 ] || die "Cython did not write 41 files"
find "$gen" -name '*.log' -delete

mv "$tree" "$work/out/tree"
mkdir -p "$(dirname "$out")"
rm -rf "$out"; mv "$work/out" "$out"
touch "$out/.done"
rm -rf "$work"
log "pandas source ready: $out"
echo "$out"
