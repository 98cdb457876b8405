#!/usr/bin/env bash
# native.sh NAME MODULE.wasm: translate a guest module to native code.
#
# wasm2c (Debian wabt 1.0.32) -> tools/w2c_split.py -> cc in parallel ->
# one relocatable object whose only global symbols are the module's API
# (Z_NAME_*), so several modules link into one binary without clashes.
# Prints the cache directory holding NAME.o and NAME.h; keyed by the module's
# hash, this recipe, the splitter and the compiler flags.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

name=$1 wasm=$2
[ -f "$wasm" ] || die "no module $wasm"
wb_apt_install wabt binutils gcc make

# Generated code: not ours to lint (no -Werror); guard pages replace bounds
# checks, so WASM_RT_MEMCHECK_SIGNAL_HANDLER stays at its default (1).
W2C_CC=${W2C_CC:-gcc}
W2C_CFLAGS=${W2C_CFLAGS:--O2 -fvisibility=hidden -fno-strict-aliasing -w}
key=$( (sha256sum < "$wasm"; cat "$here/lib.sh" "$0" "$here/../tools/w2c_split.py"; echo "$W2C_CC $W2C_CFLAGS"; "$W2C_CC" --version | head -1) | sha256sum | cut -c1-16)
out="$WB_CACHE/native/$name-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi
wb_lock "native-$name-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi

work="$WB_CACHE/build/native-$name-$key"
rm -rf "$work"; mkdir -p "$work"
log "wasm2c $name"
wasm2c --no-debug-names -n "$name" "$wasm" -o "$work/$name.c" || die "wasm2c failed on $wasm"
python3 "$here/../tools/w2c_split.py" "$work/$name.c" "$work/split" 3000000 >&2
rm -f "$work/$name.c"

log "compiling $name ($(ls "$work/split"/*.c | wc -l) files, $WB_JOBS jobs, $W2C_CC $W2C_CFLAGS)"
cat > "$work/Makefile" <<EOF
SRCS := \$(wildcard split/*.c)
OBJS := \$(SRCS:.c=.o)
all: \$(OBJS)
split/%.o: split/%.c split/common.h
	$W2C_CC $W2C_CFLAGS -c \$< -o \$@
EOF
make -s -C "$work" -j"$WB_JOBS" >&2 || die "compiling $name failed"

ld -r -o "$work/$name-all.o" "$work"/split/*.o
objcopy --wildcard --keep-global-symbol="Z_${name}_*" --keep-global-symbol="Z_${name}Z_*" \
  "$work/$name-all.o" "$work/$name.o"
# Everything else the object needs must come from the host (imports, wasm-rt).
if nm "$work/$name.o" | awk '$1 ~ /^[0-9a-f]+$/ && $2 ~ /[A-Z]/ {print $3}' | grep -v "^Z_${name}"; then
  die "unexpected global symbols in $name.o"
fi

mkdir -p "$out"
cp "$work/$name.o" "$work/$name.h" "$out/"
touch "$out/.done"
rm -rf "$work"
log "native $name ready: $out"
echo "$out"
