#!/usr/bin/env bash
# Build the JavaScript runtime: QuickJS 2025-04-26 (Debian trixie's source
# package; bookworm has none) compiled to wasm32-wasi with our guest glue
# (wasmbox_main.c + prelude.js) as a reactor module. The same patched sources
# and glue are also compiled natively with gcc, as the baseline that
# `make bench` and `make conformance` compare against.
#
# Output (printed on stdout): a directory holding
#   javascript.wasm  the guest module (exports wasmbox_init / wasmbox_run)
#   jsnative         the same interpreter and glue as a native program
#   tests/           QuickJS's own tests, for `make conformance` only
# cached under $WASMBOX_CACHE keyed by a hash of this recipe.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

wb_apt_install clang-19 lld-19 llvm-19 wasi-libc libclang-rt-19-dev-wasm32 wabt gcc xz-utils python3

# the prelude's files, evaluated in this order (each may use what the ones
# before it put in `shared`)
PRELUDE=(prelude.js node_globals.js node_url.js node_fs.js node_modules.js node_stream.js tools.js)
GLUE=(wasmbox_main.c js_alloc.c node_bytes.c node_fs.c)
recipe=("$here/../lib.sh" "$here/build.sh" "${PRELUDE[@]/#/$here/}" "${GLUE[@]/#/$here/}" "$here/glue.h" "$here/js_alloc.h"
        "$here/native_main.c"
        "$here/bigint_asuintn.h" "$here/../common/guest_libc.c" "$here/../common/guest_libc.h")
key=$(wb_recipe_hash "${recipe[@]}")
out="$WB_CACHE/runtimes/javascript-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi
wb_lock "javascript-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi

work="$WB_CACHE/build/javascript-$key"
rm -rf "$work"; mkdir -p "$work"
sdk="$work/sdk"; wb_wasi_sdk "$sdk"
CC="$sdk/bin/clang"

log "fetching sources"
wb_apt_source trixie "$work/src" quickjs
qdir=$(wb_unpack_orig "$work/src" quickjs "$work/quickjs")
[ "$(cat "$qdir/VERSION")" = 2025-04-26 ] || die "expected QuickJS 2025-04-26, got $(cat "$qdir/VERSION")"

# --- patches: each one checked, so a changed upstream fails loudly ----------
cd "$qdir"
# dtoa.c includes <setjmp.h> without using it; WASI has no setjmp.
sed -i '/^#include <setjmp.h>$/d' dtoa.c
! grep -q 'setjmp' dtoa.c || die "patch: dtoa.c setjmp"
# Atomics need threads (pthread mutexes and condition variables): none here.
sed -i 's|^#define CONFIG_ATOMICS$|/* CONFIG_ATOMICS: off in wasmbox, no threads */|' quickjs.c
grep -q '^/\* CONFIG_ATOMICS: off in wasmbox' quickjs.c || die "patch: CONFIG_ATOMICS"
# wasi-libc declares malloc_usable_size in <malloc.h> like glibc does.
sed -i 's/^#elif defined(__linux__) || defined(__GLIBC__)$/& || defined(__wasi__)/' quickjs.c
[ "$(grep -c 'defined(__GLIBC__) || defined(__wasi__)$' quickjs.c)" = 2 ] || die "patch: malloc.h"
# BigInt.asUintN returned negative values unchanged when `bits` was at least
# the width they were stored in (asUintN(64, -1n) gave -1n): route asUintN
# through our fixed version (bigint_asuintn.h), asIntN stays upstream's.
sed -i 's|^static JSValue js_bigint_asUintN(JSContext \*ctx,$|#include "bigint_asuintn.h"\n&|' quickjs.c
sed -i 's|^    } else if (JS_VALUE_GET_TAG(a) == JS_TAG_SHORT_BIG_INT) {$|    } else if (!asIntN) {\n        res = wb_bigint_asUintN(ctx, bits, a);\n&|' quickjs.c
grep -q '^#include "bigint_asuintn.h"$' quickjs.c && grep -q 'res = wb_bigint_asUintN(ctx, bits, a);' quickjs.c \
  || die "patch: BigInt.asUintN"
cp "$here/bigint_asuintn.h" .

# The prelude (console, timers, files, node's globals and modules in JS) as
# C arrays, each with the NUL that JS_Eval expects after the text.
python3 - "$work/prelude.h" "${PRELUDE[@]/#/$here/}" <<'PY'
import sys
with open(sys.argv[1], 'w') as f:
    for n, path in enumerate(sys.argv[2:]):
        data = open(path, 'rb').read() + b'\0'
        f.write('static const unsigned char prelude_%d[] = {\n' % n)
        for i in range(0, len(data), 16):
            f.write(''.join('%d,' % b for b in data[i:i + 16]) + '\n')
        f.write('};\n')
    f.write('static const struct { const unsigned char *text; size_t len; } preludes[] = {\n')
    for n in range(len(sys.argv) - 2):
        f.write('  {prelude_%d, sizeof prelude_%d - 1},\n' % (n, n))
    f.write('};\n')
PY

SRCS="quickjs.c libregexp.c libunicode.c cutils.c dtoa.c"
QFLAGS="-O2 -fwrapv -w -D_GNU_SOURCE -DCONFIG_VERSION=\"2025-04-26\""

# --- the guest module ---------------------------------------------------------
# clang 19's default CPU plus bulk memory (memcpy/memset as instructions);
# never -msimd128 or -pthread (wasm2c 1.0.32 rejects them). The shadow stack
# comes first in linear memory, so overflowing it wraps below address 0 and
# traps, and its size is what the glue bounds QuickJS's stack limit by.
log "compiling QuickJS for wasm32-wasi"
for f in $SRCS; do
  "$CC" $QFLAGS -mbulk-memory -c "$f" -o "$work/${f%.c}.wasm.o" || die "compiling $f for wasm failed"
done
# our glue: strict warnings; QuickJS's header is third-party (-isystem)
GLUE_FLAGS="-O2 -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter -D_GNU_SOURCE -isystem $qdir -I$work"
for f in "${GLUE[@]}"; do
  "$CC" $GLUE_FLAGS -mbulk-memory -I"$here/../common" \
    -c "$here/$f" -o "$work/${f%.c}.wasm.o" || die "compiling $f failed"
done
"$CC" $GLUE_FLAGS -mbulk-memory -c "$here/../common/guest_libc.c" -o "$work/guest_libc.wasm.o" \
  || die "compiling guest_libc.c failed"
"$CC" -mexec-model=reactor "$work"/*.wasm.o -o "$work/javascript.wasm" -lm \
  -Wl,--stack-first -Wl,-z,stack-size=$((2 << 20)) \
  -Wl,--export=wasmbox_init -Wl,--export=wasmbox_run -Wl,--export=wasmbox_alloc -Wl,--export=wasmbox_fresh \
  -Wl,--strip-debug \
  || die "linking javascript.wasm failed"
wasm-validate "$work/javascript.wasm" || die "javascript.wasm does not validate"

# --- the native baseline: same sources, same glue, gcc -O2 ----------------------
log "compiling QuickJS natively (baseline)"
for f in $SRCS; do
  gcc $QFLAGS -c "$f" -o "$work/${f%.c}.native.o" || die "compiling $f natively failed"
done
for f in "${GLUE[@]}"; do
  gcc $GLUE_FLAGS -c "$here/$f" -o "$work/${f%.c}.native.o" || die "compiling $f natively failed"
done
gcc -O2 -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -c "$here/native_main.c" -o "$work/native_main.native.o" \
  || die "compiling native_main.c failed"
gcc "$work"/*.native.o -o "$work/jsnative" -lm || die "linking jsnative failed"

stage="$work/out"; mkdir -p "$stage/tests"
cp "$work/javascript.wasm" "$work/jsnative" "$stage/"
cp tests/test_language.js tests/test_builtin.js tests/test_bigint.js tests/test_closure.js tests/test_loop.js \
  "$stage/tests/"
mkdir -p "$(dirname "$out")"
rm -rf "$out"; mv "$stage" "$out"
touch "$out/.done"
rm -rf "$work"
log "javascript runtime ready: $out"
echo "$out"
