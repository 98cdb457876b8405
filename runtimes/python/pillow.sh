#!/usr/bin/env bash
# pillow.sh CPYTHON_KIT: Pillow 9.4.0 (Debian bookworm's, with Debian's
# security patches) and the libjpeg-turbo it decodes and encodes JPEG with,
# for the wasm CPython of cpython.sh; zlib (PNG) is the kit's.
#
# As numpy.sh does: each extension module (PIL._imaging, PIL._imagingmath,
# PIL._imagingmorph, PIL._imagingft) is compiled to wasm objects that
# build.sh links into python.wasm and registers as a built-in module under
# its dotted name.
# pillow/sources.txt lists what is compiled and how; libjpeg-turbo's
# configuration headers are answered here for wasm32 (no SIMD, no threads).
# libjpeg's fatal errors longjmp back to Pillow's setjmp, which raises
# OSError: both are compiled with real setjmp/longjmp on WebAssembly
# exceptions (runtimes/common/sjlj, whose runtime half build.sh links).
# PIL._imagingft (ImageFont's TrueType fonts, the basic layout: no raqm) is
# built on runtimes/freetype.sh's headers; build.sh links its library.
#
# Output (printed on stdout): a directory holding
#   libpillow.a    the objects of the extensions and of libjpeg
#   inittab.tsv    dotted module name <TAB> its init function
#   site/          PIL's Python files (+ unchecked-hash .pyc)
#   tests/         Pillow's Tests/ (with their images), for `make conformance`
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

[ $# -eq 1 ] && [ -f "$1/link.args" ] || die "usage: pillow.sh CPYTHON_KIT (cpython.sh's output)"
kit=$1

wb_apt_install clang-19 lld-19 llvm-19 wasi-libc python3.11 xz-utils

ft=$(wb_recipe bash "$here/../freetype.sh")
key=$( (wb_recipe_hash "$here/../lib.sh" "$here/pillow.sh" "$here/fpcast.py" "$here"/pillow/* \
          "$here/../common/sjlj/setjmp.h"; echo "$kit $ft") |
  sha256sum | cut -c1-16)
out="$WB_CACHE/runtimes/pillow-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi
wb_lock "pillow-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi

work="$WB_CACHE/build/pillow-$key"
rm -rf "$work"; mkdir -p "$work"
sdk="$work/sdk"; wb_wasi_sdk "$sdk"
CC="$sdk/bin/clang"
AR="$sdk/bin/llvm-ar"
# -w: third-party warnings are not ours to fix; the prefix maps keep this
# entry's path (its key) out of the objects, as in numpy.sh.
CFLAGS="-O2 -w -mbulk-memory -ffile-prefix-map=$work=pillow -ffile-prefix-map=$kit=cpython"
SJLJ="-mllvm -wasm-enable-sjlj -mexception-handling -isystem $here/../common/sjlj"

log "fetching pillow, libjpeg-turbo, zlib's headers"
wb_apt_source bookworm "$work/src" pillow=9.4.0-1.1+deb12u1 libjpeg-turbo zlib
tree=$(wb_unpack_orig "$work/src" pillow "$work/pillow"); tree=${tree%/}
jpeg=$(wb_unpack_orig "$work/src" libjpeg-turbo "$work/jpeg"); jpeg=${jpeg%/}
zlib=$(wb_unpack_orig "$work/src" zlib "$work/zlib"); zlib=${zlib%/}
# Debian's security fixes, in the order of its series; the rest of its
# patches are about docs and packaging.
tar xf "$work"/src/pillow_*.debian.tar.xz -C "$work"
grep '^CVE-' "$work/debian/patches/series" | while read -r p; do
  patch -d "$tree" -p1 --forward --batch --quiet < "$work/debian/patches/$p" || die "Debian's $p does not apply"
done
[ "$(grep -c '^CVE-' "$work/debian/patches/series")" -ge 5 ] || die "Debian's security patches are missing from its series"

# libjpeg-turbo's CMake-generated headers, answered for wasm32 as Debian's
# libjpeg62-turbo is configured (the libjpeg 6b API, arithmetic coding).
cfg="$work/jpegcfg"; mkdir -p "$cfg"
sed -e 's/@JPEG_LIB_VERSION@/62/' -e 's/@VERSION@/2.1.5/' -e 's/@LIBJPEG_TURBO_VERSION_NUMBER@/2001005/' \
    -e 's/@BITS_IN_JSAMPLE@/8/' -e 's/^#cmakedefine \(C_ARITH_CODING_SUPPORTED\|D_ARITH_CODING_SUPPORTED\|MEM_SRCDST_SUPPORTED\) 1/#define \1 1/' \
    -e 's|^#cmakedefine .*|/* & (no) */|' "$jpeg/jconfig.h.in" > "$cfg/jconfig.h"
# no threads: thread-local storage is a plain global; size_t and unsigned
# long are both 32-bit, so __builtin_ctzl counts size_t's bits
sed -e 's/@BUILD@/wasmbox/' -e 's/@INLINE@/__inline__ __attribute__((always_inline))/' -e 's/@THREAD_LOCAL@//' \
    -e 's/@CMAKE_PROJECT_NAME@/libjpeg-turbo/' -e 's/@VERSION@/2.1.5/' -e 's/@SIZE_T@/4/' \
    -e 's/^#cmakedefine HAVE_BUILTIN_CTZL/#define HAVE_BUILTIN_CTZL/' -e 's|^#cmakedefine .*|/* & (no) */|' \
    "$jpeg/jconfigint.h.in" > "$cfg/jconfigint.h"
sed -e 's/@COPYRIGHT_YEAR@/1991-2023/' "$jpeg/jversion.h.in" > "$cfg/jversion.h"
if grep -q '@[A-Z_]*@\|#cmakedefine' "$cfg"/*.h | grep -v '(no)'; then die "unanswered CMake variables in $cfg"; fi

# setup.py's -DPILLOW_VERSION="9.4.0", as a header: the compile lines go
# through xargs, which would take the quotes off
echo '#define PILLOW_VERSION "9.4.0"' > "$cfg/pillow_version.h"

group_flags() {
  case $1 in
    jpeg) echo "$SJLJ -I$cfg -I$jpeg" ;;
    imaging) echo "$SJLJ -I$tree/src/libImaging -I$cfg -I$jpeg -I$zlib -I$kit/include
                   -DHAVE_LIBJPEG -DHAVE_LIBZ -include $cfg/pillow_version.h" ;;
    freetype) echo "$SJLJ -I$tree/src/libImaging -I$ft/include/freetype2 -I$kit/include" ;;
    *) die "sources.txt: unknown flag group $1" ;;
  esac
}

# One line per compile; each module's init function renamed after its dotted
# name, so that no other package's PyInit__imaging can clash.
mkdir -p "$work/obj"
: > "$work/compiles"
: > "$work/inittab.tsv"
while read -r group module source; do
  case $group in ''|'#'*) continue ;; esac
  src=${source//@JPEG@/$jpeg}
  [ "$src" = "$source" ] && src="$tree/$source"
  [ -f "$src" ] || die "sources.txt: $source is not in the tree"
  rename=""
  case $module in
    PIL.*) init="WbInit_${module//./_}"; rename="-DPyInit_${module##*.}=$init"
           grep -q "^$module	" "$work/inittab.tsv" || printf '%s\t%s\n' "$module" "$init" >> "$work/inittab.tsv" ;;
  esac
  obj="$work/obj/$module-$(basename "$source").o"
  echo "$CC $CFLAGS $(group_flags "$group") $rename -c $src -o $obj" | tr '\n' ' ' >> "$work/compiles"
  echo >> "$work/compiles"
done < "$here/pillow/sources.txt"
# function pointer casts that would trap under call_indirect (fpcast.py)
/usr/bin/python3 "$here/fpcast.py" "$work/compiles" >&2 || die "fpcast failed"
log "compiling pillow and libjpeg ($(wc -l < "$work/compiles") sources, $WB_JOBS jobs)"
xargs -P "$WB_JOBS" -I{} sh -c '{} 2>>"$0/cc.log" || { echo "failed: {}" >>"$0/cc.log"; exit 255; }' "$work" \
  < "$work/compiles" || { tail -30 "$work/cc.log"; die "compiling pillow failed"; }
stage="$work/out"; mkdir -p "$stage"
"$AR" rcs "$stage/libpillow.a" "$work"/obj/*.o
cp "$work/inittab.tsv" "$stage/"
[ "$(wc -l < "$stage/inittab.tsv")" -eq 4 ] || die "expected Pillow's 4 extensions in inittab.tsv"

# --- the Python package ----------------------------------------------------
log "PIL's Python files"
mkdir -p "$stage/site" "$stage/tests"
cp -r "$tree/src/PIL" "$stage/site/PIL"
find "$stage/site/PIL" \( -name '*.c' -o -name '*.h' \) -delete
# ImageFont.truetype finds a font by name where Linux keeps fonts
# ($XDG_DATA_DIRS/fonts, /usr/share/fonts: the guest's Debian DejaVu, see
# src/bindings/python.c); the guest's sys.platform is "wasi"
sed -i 's/^\(        elif sys.platform in ("linux", "linux2"\)):$/\1, "wasi"):/' "$stage/site/PIL/ImageFont.py"
grep -q '"linux2", "wasi"):$' "$stage/site/PIL/ImageFont.py" || die "ImageFont.py's font search is not patched"
cp -r "$tree/Tests" "$tree/conftest.py" "$stage/tests/"
dist="$stage/site/Pillow-9.4.0.dist-info"; mkdir -p "$dist"
printf 'Metadata-Version: 2.1\nName: Pillow\nVersion: 9.4.0\nSummary: Python Imaging Library (Fork)\n' > "$dist/METADATA"
printf 'wasmbox\n' > "$dist/INSTALLER"
printf 'PIL\n' > "$dist/top_level.txt"
/usr/bin/python3.11 -m compileall -q -j0 --invalidation-mode unchecked-hash "$stage/site" >/dev/null \
  || die "compileall PIL failed"

mkdir -p "$(dirname "$out")"
rm -rf "$out"; mv "$stage" "$out"
touch "$out/.done"
rm -rf "$work"
log "pillow ready: $out"
echo "$out"
