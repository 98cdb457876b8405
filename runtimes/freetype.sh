#!/usr/bin/env bash
# freetype.sh: FreeType 2.12 (Debian bookworm's, with Debian's patches to its
# library: its security fixes, subpixel rendering, the OpenType and TrueType
# GX validators) as a wasm32-wasi static library, for the guest kits that
# render text (Pillow's ImageFont). Debian's modules, without what needs a
# library absent here: no PNG glyphs (libpng), Brotli, bzip2, HarfBuzz, and
# no zlib (gzip-compressed fonts), whose headers are not in the CPython kit.
#
# FreeType's smooth rasterizer longjmps on its normal path (its cell pool is
# full: render in bands), and the validators longjmp on a bad table: it is
# compiled with real setjmp/longjmp on WebAssembly exceptions
# (runtimes/common/sjlj), whose runtime half the module links
# (runtimes/common/guest_sjlj.c). Compiled the way FreeType's docs/INSTALL.ANY
# describe: each module's one-file source and the base files, with our
# ftmodule.h naming the modules.
#
# Output (printed on stdout): a directory holding
#   include/freetype2/    FreeType's headers (ft2build.h, freetype/...), with
#                         the ftoption.h and ftmodule.h the library is built with
#   lib/libfreetype.a     the library (link it into a module once)
# A kit compiles against it with -I<dir>/include/freetype2 and the sjlj flags.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

wb_apt_install clang-19 lld-19 llvm-19 wasi-libc xz-utils

version=2.12.1+dfsg-5+deb12u4
key=$( (wb_recipe_hash "$here/lib.sh" "$0" "$here/common/sjlj/setjmp.h"; clang-19 --version | head -1) |
  sha256sum | cut -c1-16)
out="$WB_CACHE/runtimes/freetype-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi
wb_lock "freetype-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi

work="$WB_CACHE/build/freetype-$key"
rm -rf "$work" "$out.tmp"; mkdir -p "$work/obj" "$out.tmp/lib" "$out.tmp/include"
sdk="$work/sdk"; wb_wasi_sdk "$sdk"
CC="$sdk/bin/clang"

log "fetching freetype $version"
wb_apt_source bookworm "$work/src" "freetype=$version"
tree=$(wb_unpack_orig "$work/src" freetype "$work/ft"); tree=${tree%/}
tar xf "$work"/src/freetype_*.debian.tar.xz -C "$work"
# Debian's patches to the library (the rest are to the demos and the docs)
while read -r p; do
  case $p in ''|'#'*) continue ;; esac
  dirs=$(sed -n 's|^+++ [^/]*/\([^/]*\).*|\1|p' "$work/debian/patches/$p" | sort -u)
  case $dirs in ft2demos|ft2docs) continue ;; esac
  patch -d "$tree" -p1 --forward --batch --quiet < "$work/debian/patches/$p" || die "Debian's $p does not apply"
done < "$work/debian/patches/series"
grep -q '^#define FT_CONFIG_OPTION_SUBPIXEL_RENDERING' "$tree/include/freetype/config/ftoption.h" \
  || die "Debian's enable-subpixel-rendering.patch is not in"

cp -r "$tree/include" "$out.tmp/include/freetype2"
config="$out.tmp/include/freetype2/freetype/config"
# zlib off (see above); the other libraries are off in FreeType's own ftoption.h
sed -i 's|^#define FT_CONFIG_OPTION_USE_ZLIB$|/* #undef FT_CONFIG_OPTION_USE_ZLIB: no zlib headers (freetype.sh) */|' \
  "$config/ftoption.h"
grep -q '^#define FT_CONFIG_OPTION_USE_\(ZLIB\|PNG\|BZIP2\|BROTLI\|HARFBUZZ\)' "$config/ftoption.h" \
  && die "ftoption.h enables a library this build does not have"
# FreeType's default module list plus the validators Debian enables
{
  grep '^FT_USE_MODULE' "$tree/include/freetype/config/ftmodule.h"
  echo 'FT_USE_MODULE( FT_Module_Class, gxv_module_class )'
  echo 'FT_USE_MODULE( FT_Module_Class, otv_module_class )'
} > "$config/ftmodule.h"

sources="base/ftsystem.c base/ftinit.c base/ftdebug.c base/ftbase.c
  base/ftbbox.c base/ftbdf.c base/ftbitmap.c base/ftcid.c base/ftfstype.c base/ftgasp.c base/ftglyph.c
  base/ftgxval.c base/ftmm.c base/ftotval.c base/ftpatent.c base/ftpfr.c base/ftstroke.c base/ftsynth.c
  base/fttype1.c base/ftwinfnt.c
  truetype/truetype.c type1/type1.c cff/cff.c cid/type1cid.c pfr/pfr.c type42/type42.c winfonts/winfnt.c
  pcf/pcf.c bdf/bdf.c sfnt/sfnt.c autofit/autofit.c pshinter/pshinter.c smooth/smooth.c raster/raster.c
  svg/svg.c sdf/sdf.c cache/ftcache.c gxvalid/gxvalid.c otvalid/otvalid.c gzip/ftgzip.c lzw/ftlzw.c
  psaux/psaux.c psnames/psnames.c"
# -w: third-party warnings are not ours to fix; the prefix map keeps this
# entry's path (its key) out of the objects.
flags="-O2 -w -mbulk-memory -mllvm -wasm-enable-sjlj -mexception-handling -isystem $here/common/sjlj
  -DFT2_BUILD_LIBRARY -I$out.tmp/include/freetype2 -ffile-prefix-map=$work=freetype -ffile-prefix-map=$out.tmp=freetype"
: > "$work/compiles"
for s in $sources; do
  echo "$CC $flags -c $tree/src/$s -o $work/obj/${s//\//_}.o" | tr '\n' ' ' >> "$work/compiles"
  echo >> "$work/compiles"
done
log "compiling freetype ($(wc -l < "$work/compiles") sources, $WB_JOBS jobs)"
xargs -P "$WB_JOBS" -I{} sh -c '{} 2>>"$0/cc.log" || { echo "failed: {}" >>"$0/cc.log"; exit 255; }' "$work" \
  < "$work/compiles" || { tail -30 "$work/cc.log"; die "compiling freetype failed"; }
llvm-ar-19 crs "$out.tmp/lib/libfreetype.a" "$work"/obj/*.o

# the rasterizer's setjmp is ours; nothing calls a setjmp or longjmp that no one defines
llvm-nm-19 "$out.tmp/lib/libfreetype.a" > "$work/nm"
# (awk on the file, not grep -A | grep -q: under pipefail the first grep's
# SIGPIPE, when the second exits before it has written all, failed the build)
awk '/^smooth_smooth\.c\.o:$/ {in_smooth = 1; next} in_smooth && /^$/ {exit}
     in_smooth && / U __wasm_setjmp$/ {found = 1} END {exit !found}' "$work/nm" ||
  die "ftgrays.c's setjmp is not lowered"
grep -qE ' U (_?setjmp|_?longjmp|sigsetjmp|siglongjmp)$' "$work/nm" && die "an unlowered setjmp/longjmp in libfreetype.a"
grep -q ' T FT_Init_FreeType$' "$work/nm" || die "libfreetype.a has no FT_Init_FreeType"

rm -rf "$out"; mv "$out.tmp" "$out"
touch "$out/.done"
rm -rf "$work"
log "freetype ready: $out"
echo "$out"
