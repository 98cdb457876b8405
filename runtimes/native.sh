#!/usr/bin/env bash
# native.sh NAME MODULE.wasm [--train COMMAND]: translate a guest module to
# native code.
#
# tools/wasm_fuel (fuel metering, data segments merged) -> wasm-validate ->
# wasm2c (Debian wabt 1.0.32) -> tools/w2c_split.py -> cc in parallel -> one relocatable object
# whose only global symbols are the module's API (Z_NAME_*), so several
# modules link into one binary without clashes. Prints the cache directory
# holding NAME.o and NAME.h; keyed by the metered module (so a change to
# the metering pass rebuilds exactly the modules whose metering it changes),
# this recipe, the splitter and the compiler flags. The pass itself takes a
# fraction of a second, so it runs every time.
#
# One copy of the module serves every call: one without a budget starts its
# counter at INT64_MAX. (Until the fuel checks became a test and a ud2 that
# the compiler does not see, tools/w2c_split.py, a second copy without them
# served those calls, and doubled the build.)
#
# A module may come with NAME.cold beside it (runtimes/python/build.sh
# writes one): the positions of functions the training never runs. Those
# are compiled once, without a profile (tools/w2c_split.py puts them in
# cold_N.c).
#
# --train COMMAND: a profile-guided build. The module is compiled with
# -fprofile-generate and linked into $WB_PGO_DIR; COMMAND (the Makefile's
# pgo-train) builds a host on that object and runs runtimes/NAME/train.sh,
# whose counters land next to the objects here; then the module is compiled
# again with the profile. The training's recipe is part of the cache key, the
# host's code is not: a profile only steers optimisation, it cannot change
# what the code does.
#
# WB_FUEL=counter-only builds the unmetered baseline `make bench` compares
# against: the same counter and export (so the glue is the same), no charges.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

name=$1 wasm=$2 train=""
[ -f "$wasm" ] || die "no module $wasm"
if [ $# -gt 2 ]; then
  [ "$3" = --train ] && [ $# -eq 4 ] || die "usage: native.sh NAME MODULE.wasm [--train COMMAND]"
  train=$4
  [ -f "$here/$name/train.sh" ] || die "--train: there is no runtimes/$name/train.sh"
fi
wb_apt_install wabt binutils gcc make

# Generated code: not ours to lint (no -Werror); guard pages replace bounds
# checks, so WASM_RT_MEMCHECK_SIGNAL_HANDLER stays at its default (1).
W2C_CC=${W2C_CC:-gcc}
W2C_CFLAGS=${W2C_CFLAGS:--O2 -fvisibility=hidden -fno-strict-aliasing -w}
# -fprofile-update=single: one guest thread runs at a time in the trainer.
# -fno-gcse: RTL's global CSE took half of each instrumented compile (23 of
# 48 s for a 3 MB file, -ftime-report); it runs after the profile's
# instrumentation, so the counters' layout, which -fprofile-use matches by
# each function's CFG checksum, is the same without it, and this copy only
# has to count, not to be fast.
# -fprofile-partial-training: code the training did not run stays optimised
# for speed, not for size.
PGO_GENERATE="-fprofile-generate -fprofile-update=single -fno-gcse"
PGO_USE="-fprofile-use -fprofile-partial-training"
# The cold files (the data stack's C: 206 of the 282 MB wasm2c writes for
# Python) are compiled without RTL's global CSE too: 21 % less CPU for each
# (19.6 -> 15.4 s for a 3.9 MB file, idle machine). numpy, pandas,
# matplotlib, zlib and SQLite ran as fast (A/B).
COLD_CFLAGS="-fno-gcse"
WB_FUEL=${WB_FUEL:-on}
case "$WB_FUEL" in
  # no split charges: each function entry and loop header pays for its
  # longest path to the next one. Splitting long arms (--split 128) makes
  # fuel_used a tighter bound but cost ~4 points more of compute time over
  # the unmetered build (make bench, measured before the counter moved to a
  # register).
  on) fuel_flags=(--split 0)
    # Where the counter lives in r15 (tools/w2c_split.py's GUEST_REGISTERS,
    # under the condition it prints: gcc on x86-64), loops charge it there;
    # a loop's local copy of it only added moves (JavaScript's compute suite
    # against a build without charges, paired runs: +5.2 % -> +3.8 %).
    # Elsewhere it is the instance's global, and a loop without calls
    # charges a copy (the pass's default).
    registers_if=$(python3 "$here/../tools/w2c_split.py" --registers-if) || die "tools/w2c_split.py --registers-if failed"
    if printf '%s\nin_register\n#endif\n' "$registers_if" | "$W2C_CC" -E -P - 2>/dev/null | grep -q in_register; then
      fuel_flags+=(--cache none)
    fi ;;
  counter-only) fuel_flags=(--counter-only) ;;
  *) die "WB_FUEL must be on or counter-only, not '$WB_FUEL'" ;;
esac
tools="$here/../tools"
mkdir -p "$WB_CACHE/build"
metered=$(mktemp -d "$WB_CACHE/build/fuel-$name-XXXXXX")
trap 'rm -rf "$metered"' EXIT
cc -std=c11 -O2 -Wall -Wextra -Werror "$tools"/wasm_fuel*.c -o "$metered/wasm_fuel" ||
  die "cannot build tools/wasm_fuel"
# --merge-data 64: wasm-opt's memory packing left python.wasm 31,392 data
# segments, and wasm2c's time grows with segments times functions (159 s for
# python.wasm, 35 s with its segments merged into 719; the merged gaps add
# 0.5 MB of zeros to the data).
# WB_FUEL_FLAGS: more options for the pass (to compare cost models)
# shellcheck disable=SC2086
"$metered/wasm_fuel" -v "${fuel_flags[@]}" --merge-data 64 ${WB_FUEL_FLAGS:-} "$wasm" "$metered/$name.wasm" 2>"$metered/log" ||
  { cat "$metered/log" >&2; die "metering $wasm failed"; }
# A module with exceptions (C++ built with -fwasm-exceptions, runtimes/cxx.sh)
# is translated with --enable-exceptions (tools/w2c_split.py and
# src/wasm_rt/wasm_rt.c do the rest); other modules exactly as before.
w2c_flags=()
if grep -q ', [1-9][0-9]* functions with exceptions' "$metered/log"; then w2c_flags=(--enable-exceptions); fi
cold="$(dirname "$wasm")/$name.cold"
[ -f "$cold" ] || cold=/dev/null
key=$( (sha256sum < "$metered/$name.wasm"; cat "$cold"
        cat "$here/lib.sh" "$0" "$tools/w2c_split.py";
        echo "$W2C_CC $W2C_CFLAGS"; "$W2C_CC" --version | head -1
        if [ -n "$train" ]; then cat "$here/$name"/train.* "$tools/pgo_train.c"; fi) |
      sha256sum | cut -c1-16)
out="$WB_CACHE/native/$name-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi
wb_lock "native-$name-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi

work="$WB_CACHE/build/native-$name-$key"
rm -rf "$work"; mkdir -p "$work"
log "$(cat "$metered/log")"
# the split sources in $work/$name/
wasm-validate "${w2c_flags[@]}" "$metered/$name.wasm" || die "the metered $name module does not validate"
mv "$metered/$name.wasm" "$work/$name.wasm"
log "wasm2c $name"
wasm2c "${w2c_flags[@]}" --no-debug-names -n "$name" "$work/$name.wasm" -o "$work/$name.c" || die "wasm2c failed on $wasm"
python3 "$here/../tools/w2c_split.py" "$work/$name.c" "$work/$name" 3000000 "$cold" >&2
rm -f "$work/$name.c"

# init.c (data, tables, instantiation, the exports' entries) runs once per
# instance or call: not profiled, and compiled at -O0 (Python's: 19 s, where
# -O2 took 86 s and 2.2 GB for 22 595 data segments' loads).
# largest first (ls -S), so that the one that holds the interpreter's loop
# does not start last and leave a core idle
{ echo "SRCS := \$(shell ls -S $name/*.c)"
  echo 'OBJS := $(SRCS:.c=.o)'
  echo 'all: $(OBJS)'
  printf '%s/init.o: %s/init.c %s/common.h\n\t%s -O0 -c $< -o $@\n' "$name" "$name" "$name" "$W2C_CC $W2C_CFLAGS"
  printf '%s/cold_%%.o: %s/cold_%%.c %s/common.h\n\t%s -c $< -o $@\n' "$name" "$name" "$name" "$W2C_CC $W2C_CFLAGS $COLD_CFLAGS"
  printf '%s/funcs_%%.o: %s/funcs_%%.c %s/common.h\n\t%s $(PROFILE) -c $< -o $@\n' "$name" "$name" "$name" "$W2C_CC $W2C_CFLAGS"
} > "$work/Makefile"
compile() {  # compile PROFILE_FLAGS
  log "compiling $name ($(ls "$work/$name"/*.c | wc -l) files, $WB_JOBS jobs, $W2C_CC $W2C_CFLAGS $1)"
  # its own -j, not the calling make's jobserver (which --train passes on)
  MAKEFLAGS= make -s -C "$work" -j"$WB_JOBS" PROFILE="$1" >&2 || die "compiling $name failed"
}

# link_module DIR: the objects as DIR/NAME.o, next to NAME.h. All the
# module's code goes in one section between two symbols: a signal handler
# tells by the interrupted address whether the module's code was running
# (src/wasm_rt/guest.c: then r15 holds its fuel counter).
# Inside it, what the profile found hot (gcc's .text.hot, from every file)
# comes first, together; then the rest; then what is never or rarely run
# (.text.unlikely: the cold parts gcc split off hot functions; the
# out-of-line fuel traps). In the order of the files, each file's hot code
# sat between megabytes of the rest.
cat > "$work/code.ld" <<EOF
SECTIONS {
  .text.wb_$name : {
    Z_${name}_wb_code_start = .;
    *(.text.hot .text.hot.*)
    *(.text)
    *(.text.*)
    Z_${name}_wb_code_end = .;
  }
}
EOF
link_module() {
  mkdir -p "$1"
  ld -r -T "$work/code.ld" -o "$work/$name-all.o" "$work/$name"/*.o
  objcopy --wildcard --keep-global-symbol="Z_${name}_*" --keep-global-symbol="Z_${name}Z_*" \
    "$work/$name-all.o" "$1/$name.o"
  rm -f "$work/$name-all.o"
  # Everything else the object needs must come from the host (imports,
  # wasm-rt; libgcov when instrumented).
  if nm "$1/$name.o" | awk '$1 ~ /^[0-9a-f]+$/ && $2 ~ /[A-Z]/ {print $3}' | grep -v "^Z_${name}"; then
    die "unexpected global symbols in $name.o"
  fi
  cp "$work/$name.h" "$1/"
}

if [ -n "$train" ]; then
  compile "$PGO_GENERATE"
  link_module "$work/instrumented"
  log "training $name"
  WB_PGO_DIR="$work/instrumented" bash -c "$train" >&2 || die "training $name failed"
  # every profiled file's counters must have been written, or the training
  # did not train; the cold files' objects stay as they are
  sources=$(ls "$work/$name"/funcs_*.c | wc -l)
  profiles=$(ls "$work/$name"/funcs_*.gcda 2>/dev/null | wc -l)
  [ "$profiles" -eq "$sources" ] || die "training $name left $profiles profiles for $sources files"
  rm -f "$work/$name"/funcs_*.o
  compile "$PGO_USE"
else
  compile ""
fi
link_module "$work/final"

mkdir -p "$out"
cp "$work/final/$name.o" "$work/final/$name.h" "$out/"
touch "$out/.done"
rm -rf "$work"
log "native $name ready: $out"
echo "$out"
