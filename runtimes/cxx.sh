#!/usr/bin/env bash
# cxx.sh: a wasm32-wasi C++ kit whose exceptions work (clang-19's
# -fwasm-exceptions, the legacy try/catch proposal that tools/wasm_fuel,
# wasm2c --enable-exceptions and src/wasm_rt/wasm_rt.c handle).
#
# Debian's libc++-19-dev-wasm32 is built with exceptions off: its libc++abi
# has no __cxa_throw, and its libc++ aborts where the standard throws
# (std::string::at, reserve past max_size, operator new out of memory:
# "thrown in -fno-exceptions mode"). So libc++, libc++abi and libunwind's
# wasm unwinder are compiled again here from the same Debian source
# (bookworm's llvm-toolchain-19, the version the headers come from), with
# Debian's headers and __config_site (no threads, no filesystem, ABI 2),
# the same members as Debian's archives with cxa_noexception replaced by
# cxa_exception and cxa_personality.
#
# Output (printed on stdout): a directory holding
#   include/c++/v1   Debian's libc++ and libc++abi headers
#   lib/libc++.a     libc++
#   lib/libc++abi.a  libc++abi and the unwinder
#   cxxflags         flags to compile C++ with it (one line)
#   ldflags          flags to link a module with it (one line)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

wb_apt_install clang-19 lld-19 llvm-19 wasi-libc libc++-19-dev-wasm32 libc++abi-19-dev-wasm32 xz-utils

llvm_version=1:19.1.7-3~deb12u1
headers=/usr/lib/llvm-19/include/wasm32-wasi/c++/v1
[ -f "$headers/__config_site" ] || die "no wasm32 libc++ headers in $headers"
installed=$(dpkg-query -W -f='${Version}' libc++-19-dev-wasm32)
[ "$installed" = "$llvm_version" ] || die "libc++-19-dev-wasm32 is $installed, this recipe builds $llvm_version's sources"

key=$( (wb_recipe_hash "$here/lib.sh" "$0"; clang++-19 --version | head -1) | sha256sum | cut -c1-16)
out="$WB_CACHE/runtimes/cxx-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi
wb_lock "cxx-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi

work="$WB_CACHE/build/cxx-$key"
rm -rf "$work" "$out.tmp"; mkdir -p "$work/obj/cxx" "$work/obj/abi" "$out.tmp/lib" "$out.tmp/include/c++"
log "fetching llvm-toolchain-19 $llvm_version (libc++, libc++abi, libunwind)"
wb_apt_source bookworm "$work/src" "llvm-toolchain-19=$llvm_version"
tarball=$(ls "$work"/src/llvm-toolchain-19_*.orig.tar.xz)
tar xf "$tarball" -C "$work" --wildcards '*/libcxxabi/*' '*/libunwind/*' '*/libcxx/src/*' '*/libcxx/include/*'
tree=$(ls -d "$work"/llvm-toolchain-19_*/)
tree=${tree%/}

cp -r "$headers" "$out.tmp/include/c++/v1"
sysroot=/usr/include/wasm32-wasi
# The prefix map keeps this entry's path (its key) out of the objects.
common="--target=wasm32-wasi -O2 -fwasm-exceptions -fno-stack-protector -fvisibility-inlines-hidden -w
  -ffile-prefix-map=$work=llvm -ffile-prefix-map=$out.tmp=cxx -nostdinc++ -isystem $out.tmp/include/c++/v1 -isystem $tree/libcxxabi/include
  -isystem $sysroot -D_LIBCPP_BUILDING_LIBRARY -DNDEBUG"
cxx_flags="$common -std=c++23 -I$tree/libcxx/src -DLIBCXX_BUILDING_LIBCXXABI -D_LIBCPP_REMOVE_TRANSITIVE_INCLUDES"
abi_flags="$common -std=c++23 -I$tree/libcxx/src -I$tree/libcxxabi/src -D_LIBCXXABI_BUILDING_LIBRARY
  -D_LIBCXXABI_HAS_NO_THREADS"

# libc++: the members of Debian's archive that are libc++'s own (its
# libc++abi members come from the list below).
abi_sources="abort_message cxa_aux_runtime cxa_default_handlers cxa_demangle cxa_exception \
  cxa_exception_storage cxa_guard cxa_handlers cxa_personality cxa_vector cxa_virtual fallback_malloc \
  private_typeinfo stdlib_exception stdlib_stdexcept stdlib_typeinfo stdlib_new_delete"
debian_members=$(llvm-ar-19 t /usr/lib/wasm32-wasi/libc++.a | sed 's/\.cpp\.o$//')
: > "$work/jobs"
for m in $debian_members; do
  case " $abi_sources cxa_noexception " in *" $m "*) continue ;; esac
  src=$(cd "$tree/libcxx/src" && find . -name "$m.cpp" | head -1)
  [ -n "$src" ] || die "no libcxx/src source for Debian's member $m.cpp.o"
  echo "cxx $tree/libcxx/src/${src#./} $work/obj/cxx/$m.o" >> "$work/jobs"
done
for m in $abi_sources; do
  echo "abi $tree/libcxxabi/src/$m.cpp $work/obj/abi/$m.o" >> "$work/jobs"
done
echo "unwind $tree/libunwind/src/Unwind-wasm.c $work/obj/abi/unwind-wasm.o" >> "$work/jobs"

compile_one() { # KIND SOURCE OBJECT
  case $1 in
    cxx) flags=$cxx_flags; cc=clang++-19 ;;
    abi) flags=$abi_flags; cc=clang++-19 ;;
    unwind) flags="--target=wasm32-wasi -O2 -fwasm-exceptions -w -isystem $sysroot -I$tree/libunwind/include
                   -D_LIBUNWIND_HIDE_SYMBOLS -DNDEBUG -std=c11 -ffile-prefix-map=$work=llvm"; cc=clang-19 ;;
  esac
  # shellcheck disable=SC2086
  $cc $flags -c "$2" -o "$3" 2>"$3.log" || { cat "$3.log" >&2; return 1; }
}
export -f compile_one
export cxx_flags abi_flags tree sysroot work
log "compiling $(wc -l < "$work/jobs") sources ($WB_JOBS jobs)"
xargs -P "$WB_JOBS" -L 1 bash -c 'compile_one "$@"' _ < "$work/jobs" || die "compiling the C++ kit failed"

llvm-ar-19 crs "$out.tmp/lib/libc++.a" "$work"/obj/cxx/*.o
llvm-ar-19 crs "$out.tmp/lib/libc++abi.a" "$work"/obj/abi/*.o
# throwing needs the runtime, not the stub
llvm-nm-19 "$out.tmp/lib/libc++abi.a" > "$work/abi.nm"
grep -q ' T __cxa_throw$' "$work/abi.nm" || die "libc++abi has no __cxa_throw"
grep -q ' T _Unwind_CallPersonality$' "$work/abi.nm" || die "no wasm unwinder"

echo "-fwasm-exceptions -nostdinc++ -isystem $out/include/c++/v1" > "$out.tmp/cxxflags"
echo "-fwasm-exceptions -nostdlib++ -L$out/lib -lc++ -lc++abi" > "$out.tmp/ldflags"
rm -rf "$out"; mv "$out.tmp" "$out"
touch "$out/.done"
rm -rf "$work"
log "C++ kit ready: $out"
echo "$out"
