#!/usr/bin/env bash
# kiwisolver.sh CPYTHON_KIT: our own kiwisolver (runtimes/python/kiwisolver:
# the Cassowary solver in C and kiwisolver 1.3's Python API over it) as an
# extension kit for build.sh: Debian serves no kiwisolver source, and
# matplotlib imports it when it starts.
#
# Output (printed on stdout): a directory holding
#   libkiwisolver.a  solver.o and module.o, for wasm32-wasi
#   inittab.tsv      kiwisolver <TAB> PyInit_kiwisolver
#   site/            its .dist-info (the module itself is built in), which
#                    install and guidance read as numpy's
#   tests/           empty: its tests run natively (make test-kiwisolver)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

[ $# -eq 1 ] && [ -f "$1/link.args" ] || die "usage: kiwisolver.sh CPYTHON_KIT (cpython.sh's output)"
kit=$1

wb_apt_install clang-19 lld-19 llvm-19 wasi-libc

key=$( (wb_recipe_hash "$here/../lib.sh" "$here/kiwisolver.sh" "$here"/kiwisolver/*; echo "$kit") |
  sha256sum | cut -c1-16)
out="$WB_CACHE/runtimes/kiwisolver-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi
wb_lock "kiwisolver-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi

work="$WB_CACHE/build/kiwisolver-$key"
rm -rf "$work"; mkdir -p "$work"
sdk="$work/sdk"; wb_wasi_sdk "$sdk"
# Our code: warnings are errors here as in src/.
for f in solver module; do
  "$sdk/bin/clang" -std=c11 -O2 -mbulk-memory -Wall -Wextra -Werror -I"$kit/include" \
    -ffile-prefix-map="$(cd "$here/../.." && pwd)"=wasmbox \
    -c "$here/kiwisolver/$f.c" -o "$work/$f.o" || die "kiwisolver: $f.c does not compile for wasm32"
done

stage="$work/out"; mkdir -p "$stage/site/kiwisolver-1.3.1.dist-info" "$stage/tests"
"$sdk/bin/llvm-ar" rcs "$stage/libkiwisolver.a" "$work/solver.o" "$work/module.o"
printf 'kiwisolver\tPyInit_kiwisolver\n' > "$stage/inittab.tsv"
dist="$stage/site/kiwisolver-1.3.1.dist-info"
printf 'Metadata-Version: 2.1\nName: kiwisolver\nVersion: 1.3.1\n' > "$dist/METADATA"
echo kiwisolver > "$dist/top_level.txt" # what scripts/python_packages_h.py reads
echo wasmbox > "$dist/INSTALLER"
mkdir -p "$(dirname "$out")"
rm -rf "$out"; mv "$stage" "$out"
touch "$out/.done"
rm -rf "$work"
log "kiwisolver ready: $out"
echo "$out"
