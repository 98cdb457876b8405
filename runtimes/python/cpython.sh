#!/usr/bin/env bash
# Build CPython 3.11 (Debian's pristine .orig tarball) and its compression/
# sqlite dependencies cross-compiled to wasm32-wasi: the part of the Python
# runtime that changes least, cached on its own so that our glue or an
# extension (numpy.sh) never rebuilds it. build.sh links the module from it.
#
# Output (printed on stdout): a directory holding
#   include/         CPython's Include/ (with internal/) and the wasm pyconfig.h
#   lib/             libpython3.11.a, its bundled libraries and the libraries
#                    built here (libz, libbz2, liblzma, libsqlite3, libwbalarm)
#   link.args        the interpreter's link line, @LIB@ standing for lib/
#   stdlib/          the stdlib tree (sources + unchecked-hash .pyc)
#   test/            CPython's Lib/test, for `make conformance` only
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

wb_apt_install clang-19 lld-19 llvm-19 wasi-libc libclang-rt-19-dev-wasm32 wabt binaryen \
  python3.11 dpkg-dev tcl make xz-utils

key=$(wb_recipe_hash "$here/../lib.sh" "$here/cpython.sh" "$here/wasi_shims.c" "$here/wasi_shims.h" \
  "$here/alarm.c" "$here/alarm.h")
out="$WB_CACHE/runtimes/cpython-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi
wb_lock "cpython-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi

work="$WB_CACHE/build/cpython-$key"
rm -rf "$work"; mkdir -p "$work"
sdk="$work/sdk"; wb_wasi_sdk "$sdk"
sysroot="$sdk/share/wasi-sysroot"
CC="$sdk/bin/clang"
AR="$sdk/bin/llvm-ar"
# clang 19's default CPU plus bulk memory (memcpy -> memory.copy -> host memmove)
# is what wasm2c 1.0.32 accepts; never -msimd128 or -pthread.
GCFLAGS="-O2 -w -mbulk-memory"  # -w: third-party warnings are not ours to fix

log "fetching sources"
wb_apt_source bookworm "$work/src" python3.11 zlib bzip2 xz-utils sqlite3

# --- zlib: plain C, compiled directly --------------------------------------
log "zlib"
zdir=$(wb_unpack_orig "$work/src" zlib "$work/zlib")
(cd "$zdir" && for f in adler32 compress crc32 deflate gzclose gzlib gzread gzwrite \
    infback inffast inflate inftrees trees uncompr zutil; do
  "$CC" $GCFLAGS -D_LARGEFILE64_SOURCE=1 -DHAVE_UNISTD_H -c $f.c -o $f.o; done
  "$AR" rcs "$sysroot/lib/wasm32-wasi/libz.a" ./*.o
  cp zlib.h zconf.h "$sysroot/include/")

# --- bzip2 -----------------------------------------------------------------
log "bzip2"
bdir=$(wb_unpack_orig "$work/src" bzip2 "$work/bzip2")
(cd "$bdir" && for f in blocksort huffman crctable randtable compress decompress bzlib; do
  "$CC" $GCFLAGS -D_FILE_OFFSET_BITS=64 -c $f.c -o $f.o; done
  "$AR" rcs "$sysroot/lib/wasm32-wasi/libbz2.a" ./*.o
  cp bzlib.h "$sysroot/include/")

# --- xz (liblzma only, no threads) ------------------------------------------
"$CC" $GCFLAGS -c "$here/wasi_shims.c" -o "$work/wasi_shims.o"

log "xz"
xdir=$(wb_unpack_orig "$work/src" xz-utils "$work/xz")
# Without threads mythread.h still defines a sigprocmask wrapper that liblzma
# never calls; WASI has no signal masks, so leave the wrapper out.
sed -i 's/^#if !(defined(_WIN32) \&\& !defined(__CYGWIN__))$/#if !(defined(_WIN32) \&\& !defined(__CYGWIN__)) \&\& !defined(__wasi__)/' \
  "$xdir/src/common/mythread.h"
grep -q 'defined(__wasi__)' "$xdir/src/common/mythread.h" || die "patch: xz mythread.h"
(cd "$xdir" && CC="$CC" CFLAGS="$GCFLAGS" ./configure --host=wasm32-wasi \
   --prefix="$sysroot" --libdir="$sysroot/lib/wasm32-wasi" --disable-threads \
   --disable-shared --enable-static --disable-xz --disable-xzdec --disable-lzmadec \
   --disable-lzmainfo --disable-lzma-links --disable-scripts --disable-doc --disable-nls \
   >"$work/xz.log" 2>&1 && make -C src/liblzma -j"$WB_JOBS" install >>"$work/xz.log" 2>&1) \
  || { tail -30 "$work/xz.log"; die "xz build failed"; }

# --- sqlite3: amalgamation from the Debian tree, unix VFS with our shims -----
log "sqlite3"
sdir=$(wb_unpack_orig "$work/src" sqlite3 "$work/sqlite")
(cd "$sdir" && ./configure >"$work/sqlite.log" 2>&1 && make sqlite3.c >>"$work/sqlite.log" 2>&1) \
  || { tail -30 "$work/sqlite.log"; die "sqlite amalgamation failed"; }
# WASI has no file locks, mmap, fchown, or threads: single-process, single
# thread, so "no locking" is correct here (one guest owns its workspace).
"$CC" $GCFLAGS -D_WASI_EMULATED_GETPID -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION \
  -DSQLITE_OMIT_WAL -DSQLITE_MAX_MMAP_SIZE=0 \
  -DSQLITE_DEFAULT_UNIX_VFS='"unix-none"' -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_MATH_FUNCTIONS \
  -DHAVE_USLEEP=1 -I"$here" -include wasi_shims.h \
  -c "$sdir/sqlite3.c" -o "$work/sqlite3.o" 2>"$work/sqlite-cc.log" \
  || { tail -30 "$work/sqlite-cc.log"; die "sqlite compile failed"; }
"$AR" rcs "$sysroot/lib/wasm32-wasi/libsqlite3.a" "$work/sqlite3.o" "$work/wasi_shims.o"
cp "$sdir/sqlite3.h" "$sdir/sqlite3ext.h" "$sysroot/include/" 2>/dev/null || cp "$sdir"/sqlite3.h "$sysroot/include/"

# --- alarm and interval timers on the host's (alarm.h) ------------------------
"$CC" $GCFLAGS -c "$here/alarm.c" -o "$work/alarm.o"
"$AR" rcs "$sysroot/lib/wasm32-wasi/libwbalarm.a" "$work/alarm.o"

# --- CPython ---------------------------------------------------------------
log "cpython configure"
pdir=$(wb_unpack_orig "$work/src" python3.11 "$work/cpython")
cd "$pdir"
# On wasm32 a size beyond the 32-bit address space cannot be allocated: raise
# MemoryError as a 64-bit CPython does, not OverflowError ("cannot fit 'int'...").
sed -i 's/count = PyNumber_AsSsize_t(arg, PyExc_OverflowError);/count = PyNumber_AsSsize_t(arg, PyExc_MemoryError);/' Objects/bytearrayobject.c
sed -i 's/size = PyNumber_AsSsize_t(x, PyExc_OverflowError);/size = PyNumber_AsSsize_t(x, PyExc_MemoryError);/' Objects/bytesobject.c
sed -i 's/count = PyNumber_AsSsize_t(n, PyExc_OverflowError);/count = PyNumber_AsSsize_t(n, PyExc_MemoryError);/' Objects/abstract.c
grep -q 'PyNumber_AsSsize_t(arg, PyExc_MemoryError)' Objects/bytearrayobject.c || die "patch: bytearray"
grep -q 'PyNumber_AsSsize_t(n, PyExc_MemoryError)' Objects/abstract.c || die "patch: sequence_repeat"
# CPython gh-108214: a backward jump handled pending calls after it jumped, so
# what a signal handler raised there was looked up at the instruction before
# the loop's first, outside a try around the loop: the model-style timeout
# guard (`signal.alarm(1); try: while True: ...; except TimeoutError`)
# missed ~4 % of its timeouts natively, every one for `while True: pass`.
# Pending calls now run before the jump, so the raise is at the jump.
perl -0pi -e 's/JUMPBY\(-oparg\);\n(\s*)CHECK_EVAL_BREAKER\(\);/WB_HANDLE_PENDING_BEFORE_JUMP();\n$1JUMPBY(-oparg);/g' Python/ceval.c
perl -0pi -e 's/(#define CHECK_EVAL_BREAKER\(\))/#define WB_HANDLE_PENDING_BEFORE_JUMP() \\\n    if (_Py_atomic_load_relaxed_int32(eval_breaker) \&\& \\\n        eval_frame_handle_pending(tstate) != 0) { \\\n        goto error; \\\n    }\n\n$1/' Python/ceval.c
[ "$(grep -c '^ *WB_HANDLE_PENDING_BEFORE_JUMP();$' Python/ceval.c)" = 7 ] || die "patch: backward jumps' pending calls"

mkdir -p build && cd build
export WASI_SDK_PATH="$sdk"
# --with-lto: clang's LTO across CPython's objects (wasm-ld links the
# bitcode), so calls between files inline as in Debian's own build (-flto).
# The compute suite gained ~2.5 % (make bench, same run). ThinLTO, not full:
# full LTO's code generation is one thread, and this link and build.sh's
# each took minutes of a cold build on one core; ThinLTO's runs on every
# core (--thinlto-jobs: wasm-ld would count physical cores only).
# alarm.h: signal.alarm/setitimer/getitimer exist, on libwbalarm.
CONFIG_SITE=../Tools/wasm/config.site-wasm32-wasi \
CFLAGS="-Wno-error=int-conversion -mbulk-memory -include $here/alarm.h" LIBS="-lwbalarm" \
LDFLAGS="-Wl,--thinlto-jobs=$WB_JOBS" \
ac_cv_func_clock_nanosleep=no ac_cv_lib_rt_clock_nanosleep=no \
ac_cv_func_alarm=yes ac_cv_func_setitimer=yes ac_cv_func_getitimer=yes \
ZLIB_CFLAGS=" " ZLIB_LIBS="-lz" BZIP2_CFLAGS=" " BZIP2_LIBS="-lbz2" \
LIBLZMA_CFLAGS=" " LIBLZMA_LIBS="-llzma" LIBSQLITE3_CFLAGS=" " LIBSQLITE3_LIBS="-lsqlite3" \
  ../Tools/wasm/wasi-env ../configure --host=wasm32-unknown-wasi \
  --build="$(../config.guess)" --with-build-python=/usr/bin/python3.11 \
  --disable-test-modules --prefix=/usr/local --with-pymalloc --with-lto=thin \
  >"$work/cpython-configure.log" 2>&1 || { tail -40 "$work/cpython-configure.log"; die "configure failed"; }
log "cpython make (a few minutes)"
../Tools/wasm/wasi-env make -j"$WB_JOBS" >"$work/cpython-make.log" 2>&1 \
  || { tail -40 "$work/cpython-make.log"; die "make failed"; }
for m in zlib _bz2 _lzma _sqlite3 _json _decimal _csv _datetime; do
  grep -q "PyInit_$m\b" Modules/config.c || die "module $m was not built in (see $work/cpython-configure.log)"
done
for f in ALARM SETITIMER GETITIMER; do
  grep -q "^#define HAVE_$f 1" pyconfig.h || die "configure did not take HAVE_$f (alarm.h)"
done


# --- the kit build.sh links from ---------------------------------------------
log "kit"
stage="$work/out"; mkdir -p "$stage/include" "$stage/lib"
cp -r ../Include/. "$stage/include/"
cp pyconfig.h "$stage/include/"
for l in z bz2 lzma sqlite3 wbalarm; do cp "$sysroot/lib/wasm32-wasi/lib$l.a" "$stage/lib/"; done
# The interpreter's link line (Makefile variables), files it names copied to
# lib/ (same relative paths) and named @LIB@/..., as build.sh finds them.
printf 'print-link:\n\t@echo $(PY_CORE_LDFLAGS) $(LINKFORSHARED) $(LINK_PYTHON_OBJS) $(LIBS) $(MODLIBS) $(SYSLIBS)\n' > "$work/print.mk"
args=()
for a in $(make -s -f Makefile -f "$work/print.mk" print-link); do
  case "$a" in
    -L.) a="-L@LIB@" ;;
    *.a|*.o) [ -f "$a" ] || die "the link line names $a, which the build did not make"
       mkdir -p "$stage/lib/$(dirname "$a")"; cp "$a" "$stage/lib/$a"; a="@LIB@/$a" ;;
  esac
  args+=("$a")
done
printf '%s\n' "${args[@]}" > "$stage/link.args"
log "link line: ${#args[@]} arguments (link.args)"

# --- stdlib tree -------------------------------------------------------------
log "stdlib"
make -s DESTDIR="$work/install" libinstall >"$work/install.log" 2>&1 \
  || { tail -30 "$work/install.log"; die "libinstall failed"; }
lib="$work/install/usr/local/lib/python3.11"
cp -r ../Lib/test "$stage/test"   # --disable-test-modules leaves it out of libinstall
# What a sandbox cannot use or need: tests, GUI, installers, build tooling.
( cd "$lib" && rm -rf test */test */tests idlelib tkinter turtledemo turtle.py ensurepip \
    lib2to3/tests distutils/tests unittest/test config-3.11-wasm32-wasi \
    __phello__ pydoc_data site-packages/* ) || true
find "$lib" -name __pycache__ -prune -exec rm -rf {} +
# unchecked-hash .pyc: valid regardless of file times, and tracebacks still
# show source lines because the .py files stay beside them.
/usr/bin/python3.11 -m compileall -q -j0 --invalidation-mode unchecked-hash "$lib" >/dev/null \
  || die "compileall failed"
find "$stage/test" -name __pycache__ -prune -exec rm -rf {} +
mv "$lib" "$stage/stdlib"

mkdir -p "$(dirname "$out")"
rm -rf "$out"; mv "$stage" "$out"
touch "$out/.done"
rm -rf "$work"
log "cpython ready: $out"
echo "$out"
