#!/usr/bin/env bash
# w2c_split.sh FUEL_TOOL: tests of tools/w2c_split.py's rewrites of wasm2c
# output, on small modules written in WAT. Each module is metered
# (FUEL_TOOL), translated by wasm2c, then built twice with the same driver:
# once from the split and rewritten files, once from wasm2c's own output
# with wabt's runtime, the reference. Both must print the same for every
# call: results, traps (call_indirect through a null entry, past the end,
# with another signature) and the fuel left, also when a budget runs out
# inside a loop (the split code keeps the counter and the memory base in
# registers), and a module that runs code when instantiated is refused. Prints
# "ok N - what" / "not ok N - what".
set -u
T=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
rt=/usr/share/wabt/wasm2c
n=0 bad=0

check() { # check "what" CONDITION...
  local what=$1; shift
  n=$((n + 1))
  if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; bad=$((bad + 1)); fi
}

cat > "$tmp/driver.c" <<'EOF'
/* driver EXPORT A [B]: instantiate, call, print the result or the trap and
 * the fuel left. FUEL (environment) is the budget, unlimited by default. */
#define _GNU_SOURCE /* REG_R15 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <ucontext.h>
#include "m.h"
#include "wasm-rt-impl.h"
int wasm_rt_memory_preloaded(const wasm_rt_memory_t *m) { (void)m; return 0; }
static Z_m_instance_t inst;
/* out of fuel in the split code (x86-64): r15 holds the counter at the ud2,
 * as src/wasm_rt/guest.c reads it */
static void on_ill(int sig, siginfo_t *si, void *ctx) {
  (void)sig, (void)si;
#if defined(__x86_64__)
  *Z_mZ_wasmbox_fuel(&inst) = (u64)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_R15];
#endif
  wasm_rt_trap(WASM_RT_TRAP_UNREACHABLE);
}
int main(int argc, char **argv) {
  if (argc < 3) return 2;
  wasm_rt_init();
  struct sigaction sa = {.sa_sigaction = on_ill, .sa_flags = SA_SIGINFO | SA_NODEFER};
  sigaction(SIGILL, &sa, NULL);
  Z_m_init_module();
  Z_m_instantiate(&inst);
  const char *fuel = getenv("FUEL");
  *Z_mZ_wasmbox_fuel(&inst) = fuel ? (u64)strtoll(fuel, NULL, 0) : (u64)INT64_MAX;
  u32 a = (u32)strtoul(argv[2], NULL, 0), b = argc > 3 ? (u32)strtoul(argv[3], NULL, 0) : 0;
  wasm_rt_trap_t trap = wasm_rt_impl_try();
  if (trap) {
    printf("trap %s, fuel %lld\n", wasm_rt_strerror(trap), (long long)*Z_mZ_wasmbox_fuel(&inst));
    return 0;
  }
  u32 r;
  if (!strcmp(argv[1], "call_un")) r = Z_mZ_call_un(&inst, a, b);
#ifdef HAS_BIN
  else if (!strcmp(argv[1], "call_bin")) r = Z_mZ_call_bin(&inst, a, b);
  else if (!strcmp(argv[1], "interp")) r = Z_mZ_interp(&inst, a);
#endif
  else return 2;
  printf("%u, fuel %lld\n", r, (long long)*Z_mZ_wasmbox_fuel(&inst));
  return 0;
}
EOF

# build NAME [CFLAGS...]: NAME.wat -> metered -> wasm2c -> $tmp/NAME/{split,ref}
# (COLD: the split's list of cold functions; FUEL_FLAGS: the pass's options;
# CC: the split's compiler)
build() {
  local name=$1 d=$tmp/$1; shift
  mkdir -p "$d/c"
  # shellcheck disable=SC2086 # FUEL_FLAGS: more options for the pass
  wat2wasm "$tmp/$name.wat" -o "$d/m0.wasm" && "$T" ${FUEL_FLAGS:-} "$d/m0.wasm" "$d/m.wasm" 2>/dev/null &&
    wasm2c --no-debug-names -n m "$d/m.wasm" -o "$d/c/m.c" &&
    python3 "$here/../tools/w2c_split.py" "$d/c/m.c" "$d/split" 100000 ${COLD:+"$COLD"} >"$d/split.log" &&
    cp "$d/c/m.h" "$d/" &&
    "${CC:-cc}" -O2 -w -I"$d" -I"$d/c" -I"$rt" "$@" -o "$d/split.bin" \
      "$tmp/driver.c" "$d"/split/*.c "$rt/wasm-rt-impl.c" -lm &&
    cc -O2 -w -I"$d/c" -I"$rt" "$@" -o "$d/ref.bin" "$tmp/driver.c" "$d/c/m.c" "$rt/wasm-rt-impl.c" -lm
}
same() { # same NAME ARGS...: split and reference print the same; sets out
  out=$("$tmp/$1/split.bin" "${@:2}" 2>&1); local ref
  ref=$("$tmp/$1/ref.bin" "${@:2}" 2>&1)
  [ "$out" = "$ref" ] || { echo "# split: $out / reference: $ref"; return 1; }
}
same_fuel() { FUEL=$1 same "${@:2}"; } # same_fuel BUDGET NAME ARGS...

# ---- a table that never changes: constant, with every check kept; and a
# bytecode-style loop (a br_table dispatch, each opcode jumping back) -----
cat > "$tmp/tab.wat" <<'EOF'
(module
  (type $un (func (param i32) (result i32)))
  (type $un2 (func (param i32) (result i32)))
  (type $bin (func (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (table 6 funcref)
  (elem (i32.const 1) $sq $inc $add $twice)
  (func $sq (type $un) (i32.mul (local.get 0) (local.get 0)))
  (func $inc (type $un) (i32.add (local.get 0) (i32.const 1)))
  (func $add (type $bin) (i32.add (local.get 0) (local.get 1)))
  (func $twice (type $un2) (i32.mul (local.get 0) (i32.const 2)))
  (func (export "call_un") (param $idx i32) (param $x i32) (result i32)
    (call_indirect (type $un) (local.get $x) (local.get $idx)))
  (func (export "call_bin") (param $idx i32) (param $x i32) (result i32)
    (call_indirect (type $bin) (local.get $x) (local.get $x) (local.get $idx)))
  (func (export "interp") (param $n i32) (result i32) (local $pc i32) (local $acc i32)
    (block $exit
    (loop $top
      (block $d
EOF
# 70 opcodes: an interpreter's dispatch (64 cases or more at a loop's head),
# which tools/w2c_split.py makes threaded; opcode i's block is $ci.
ops=70
for ((i = ops - 1; i >= 0; i--)); do printf '(block $c%d ' "$i"; done >> "$tmp/tab.wat"
{ printf '\n        (br_table'
  for ((i = 0; i < ops; i++)); do printf ' $c%d' "$i"; done
  echo ' $d (i32.rem_u (i32.mul (local.get $pc) (i32.const 7)) (i32.const 71))))'
} >> "$tmp/tab.wat"
# Each opcode ends in its own jump back to the dispatch, as in CPython's loop.
# Memory too: every opcode stores the accumulator, one reads it back.
next='(i32.store (i32.const 64) (local.get $acc)) (local.set $pc (i32.add (local.get $pc) (i32.const 1))) (br_if $top (i32.lt_u (local.get $pc) (local.get $n))) (br $exit))'
kinds=('(i32.add (i32.load (i32.const 64)) (i32.const K))' '(i32.mul (local.get $acc) (i32.const K))'
       '(i32.xor (local.get $acc) (i32.const K))' '(i32.sub (local.get $acc) (local.get $pc))'
       '(i32.rotl (local.get $acc) (i32.const K))' '(i32.add (local.get $acc) (local.get $pc))'
       '(i32.shr_u (local.get $acc) (i32.const 1))' '(i32.or (local.get $acc) (i32.const K))'
       '(i32.and (local.get $acc) (i32.const 0xffffff))')
for ((i = 0; i < ops; i++)); do  # and the default ($d) last
  op=${kinds[i % ${#kinds[@]}]}
  echo "        (local.set \$acc ${op//K/$((i * 37 % 101 + 1))}) $next" >> "$tmp/tab.wat"
done
echo "        (local.set \$acc (i32.mul (local.get \$acc) (i32.const 9))) $next" >> "$tmp/tab.wat"
cat >> "$tmp/tab.wat" <<'EOF'
    )
    (local.get $acc)))
EOF
check "a module with a constant table and a loop builds, split and reference" build tab -DHAS_BIN
check "its table is made constant" grep -q "constant tables: w2c_T0 (4 of 6 entries, the instance's left unfilled)" \
  "$tmp/tab/split.log"
# The constant table holds each function as its distance from the entry:
# a position-independent program relocates nothing in it when it starts
# (a table of addresses is rewritten, so made private, in every process).
check "the constant table needs no relocation when the program starts" python3 - "$tmp/tab/split.bin" <<'PY'
import subprocess, sys
binary = sys.argv[1]
sym = [l.split() for l in subprocess.run(['nm', '-S', binary], capture_output=True, text=True).stdout.splitlines()]
lo, size = next((int(f[0], 16), int(f[1], 16)) for f in sym if len(f) == 4 and f[3] == 'wb_const_w2c_T0')
relocs = subprocess.run(['readelf', '-rW', binary], capture_output=True, text=True).stdout.splitlines()
inside = [l for l in relocs if l[:1] in '0123456789abcdef' and l.split() and lo <= int(l.split()[0], 16) < lo + size]
sys.exit(1 if size != 6 * 8 or inside else 0)
PY
# Nothing but call_indirect reads the table: the instance's own is not filled
check "  and no element segment fills the instance's table" \
  bash -c "! grep -q 'funcref_table_init(&instance\|elem_segment_exprs_w2c' '$tmp/tab/split/init.c'"
check "memory accesses take the base from wb_mb" grep -q '_b(wb_mb, ' "$tmp/tab/split/funcs_000.c"
check "no call_indirect reads the instance's table" \
  bash -c "! grep -q 'CALL_INDIRECT(instance' '$tmp'/tab/split/funcs_*.c && grep -q WB_CALL_INDIRECT '$tmp'/tab/split/funcs_000.c"
check "call through a constant entry" same tab call_un 1 7
check "  gives the right result" test "$out" != "${out#49,}"
check "an entry of the same shape but another type index is callable" same tab call_un 4 7
check "  gives the right result" test "$out" != "${out#14,}"
check "a two-argument call" same tab call_bin 3 7
check "  gives the right result" test "$out" != "${out#14,}"
for c in "0 7:the null entry 0" "5 7:an entry no segment set" "6 7:the first index past the end" \
         "99999 7:an index far past the end" "4294967295 7:the largest index"; do
  check "call_indirect through $c traps" same tab call_un ${c%%:*}
  check "  as an invalid call_indirect" grep -q '^trap Invalid call_indirect' <<<"$out"
done
check "a call with another signature traps" same tab call_un 3 7
check "  as an invalid call_indirect" grep -q '^trap Invalid call_indirect' <<<"$out"
check "a one-argument entry called with two traps" same tab call_bin 1 7
check "  as an invalid call_indirect" grep -q '^trap Invalid call_indirect' <<<"$out"

# ---- the fuel counter in a register, against the instance's in the reference
check "every fuel check is the out-of-line ud2, none a branch to the trap" \
  bash -c "grep -q 'WB_FUEL_CHARGE(' '$tmp/tab/split/'funcs_*.c && ! grep -q '(s64)w2c_j[0-9]* < (s64)' '$tmp'/tab/split/funcs_*.c"
check "  a constant charge of the counter and of a loop's copy is one WB_FUEL_CHARGE (a fused sub and jl)" \
  bash -c "grep -q 'WB_FUEL_CHARGE(wb_fuel, [0-9]*ull);' '$tmp/tab/split/'funcs_*.c &&
           grep -q 'WB_FUEL_CHARGE(w2c_l[0-9]*, [0-9]*ull);' '$tmp/tab/split/'funcs_*.c &&
           ! grep -q -- '-= w2c_j' '$tmp/tab/split/'funcs_*.c"
check "the dispatch loop is threaded: a computed goto, copied into each opcode's jump back" \
  bash -c "grep -q '1 dispatch loops threaded' '$tmp/tab/split.log' && [ \$(grep -c 'goto \\*(&&' '$tmp'/tab/split/funcs_000.c) -gt 70 ]"
# A profile-guided build (runtimes/native.sh) moves the handlers the training
# never ran to a cold section; the table's label offsets must stay computable.
pgo_build() ( # in a subshell: it changes directory
  local d=$tmp/tab pgo=$tmp/tab/pgo f
  mkdir -p "$pgo" && cp "$d"/split/*.c "$d"/split/*.h "$pgo/" && cd "$pgo" || exit 1
  link() { cc -O2 -w -I.. -I"$d/c" -I"$rt" -DHAS_BIN "${@:2}" -o "$1" "$tmp/driver.c" funcs_*.o init.c \
             "$rt/wasm-rt-impl.c" -lm; }
  for f in funcs_*.c; do cc -O2 -w -I.. -I"$rt" -fprofile-generate -c "$f" -o "${f%.c}.o" || exit 1; done
  link train -fprofile-generate && ./train interp 3 >/dev/null && ls funcs_*.gcda >/dev/null || exit 1
  for f in funcs_*.c; do cc -O2 -w -I.. -I"$rt" -fprofile-use -c "$f" -o "${f%.c}.o" || exit 1; done
  link pgo.bin && [ "$(./pgo.bin interp 100000)" = "$("$d/ref.bin" interp 100000)" ]
)
check "  and builds with a profile that left most handlers cold, computing the same" pgo_build
check "the dispatch loop computes what the reference computes" same tab interp 100000
check "  and leaves the same fuel" grep -q ', fuel [0-9]' <<<"$out"
check "a loop run no time" same tab interp 0
for f in 1 57 1000 123457; do
  check "out of fuel inside the loop (budget $f) stops where the reference stops" \
    same_fuel $f tab interp 100000
done
check "  with a trap, not a result" grep -q '^trap Unreachable' <<<"$out"
# runtimes/native.sh's setting where the counter is in r15: loops charge it
# there, not a local copy
cp "$tmp/tab.wat" "$tmp/tabreg.wat"
build_reg() { FUEL_FLAGS="--cache none" build "$@"; }
check "the same module metered with --cache none builds" build_reg tabreg -DHAS_BIN
check "  its loop charges r15, no copy" \
  bash -c "! grep -q 'WB_FUEL_CHARGE(w2c_l' '$tmp'/tabreg/split/funcs_*.c && [ \$(grep -c 'WB_FUEL_CHARGE(wb_fuel' '$tmp'/tabreg/split/funcs_*.c) -gt 70 ]"
check "  and computes what the reference computes" same tabreg interp 100000
for f in 1 57 1000 123457; do
  check "  out of fuel inside the loop (budget $f) stops where the reference stops" same_fuel $f tabreg interp 100000
done
check "  with a trap, not a result" grep -q '^trap Unreachable' <<<"$out"
# where the counter stays in the instance (clang has no global register
# variables): the charges are C, WB_FUEL_CHARGE's other definition
cp "$tmp/tab.wat" "$tmp/tabclang.wat"
build_clang() { CC=clang-19 build "$@"; }
check "the module's split built with clang (the counter in the instance)" build_clang tabclang -DHAS_BIN
check "  computes what the reference computes" same tabclang interp 100000
for f in 1 1000; do
  check "  out of fuel inside the loop (budget $f) stops where the reference stops" same_fuel $f tabclang interp 100000
done
# runtimes/native.sh asks the compiler --registers-if's condition to choose
# --cache none: it must be the one the split code keeps its registers under
registers_if=$(python3 "$here/../tools/w2c_split.py" --registers-if)
check "--registers-if prints the condition the split code reserves r15 and r14 under" \
  grep -qxF "$registers_if" "$tmp/tab/split/common.h"
holds() { printf '%s\nyes\n#endif\n' "$registers_if" | "$1" -E -P - | grep -qx yes; }
holds_for_gcc_only() { holds gcc && ! holds clang-19; }
check "  it holds for gcc on x86-64, not for clang" holds_for_gcc_only

# ---- functions listed cold go to files of their own (cold_N.c), which
# runtimes/native.sh compiles without a profile; the code is the same -------
cp "$tmp/tab.wat" "$tmp/tabcold.wat"
printf '0\n2\n' > "$tmp/cold.txt"
build_cold() { COLD=$tmp/cold.txt build "$@"; }
check "a module with two of its functions listed cold builds" build_cold tabcold -DHAS_BIN
check "  they are in cold_000.c" \
  bash -c "grep -q '^u32 w2c_f0(' '$tmp/tabcold/split/cold_000.c' && grep -q '^u32 w2c_f2(' '$tmp/tabcold/split/cold_000.c'"
check "  and only there" \
  bash -c "! grep -q '^u32 w2c_f[02](' '$tmp'/tabcold/split/funcs_*.c && grep -q '^u32 w2c_f1(' '$tmp/tabcold/split/funcs_000.c'"
check "  the log counts them" grep -q '1 function files, 1 cold, .* (2 cold' "$tmp/tabcold/split.log"
check "a call into a cold function from a hot one" same tabcold call_un 1 7
check "  gives the right result" test "$out" != "${out#49,}"
check "  and through a cold two-argument entry" same tabcold call_bin 3 7
check "  gives the right result" test "$out" != "${out#14,}"
check "out of fuel with cold functions stops where the reference stops" same_fuel 1000 tabcold interp 100000
cp "$tmp/tab.wat" "$tmp/tabpast.wat"
printf '1\n9\n' > "$tmp/cold.txt"
check "a cold function past the module's last is refused" bash -c "! python3 '$here/../tools/w2c_split.py' '$tmp/tabcold/c/m.c' '$tmp/tabpast' 100000 '$tmp/cold.txt' 2>'$tmp/past.err'"
check "  saying which" grep -q 'cold function 9 past the last of 7' "$tmp/past.err"

# ---- a table the code changes stays the instance's -----------------------
cat > "$tmp/mut.wat" <<'EOF'
(module
  (type $un (func (param i32) (result i32)))
  (table 4 funcref)
  (elem (i32.const 1) $sq $inc)
  (elem declare func $inc)
  (func $sq (type $un) (i32.mul (local.get 0) (local.get 0)))
  (func $inc (type $un) (i32.add (local.get 0) (i32.const 1)))
  (func (export "call_un") (param $idx i32) (param $x i32) (result i32)
    (table.set 0 (i32.const 3) (ref.func $inc))
    (call_indirect (type $un) (local.get $x) (local.get $idx))))
EOF
check "a module that sets a table entry builds" build mut
check "its table is not made constant" grep -q 'constant tables: none' "$tmp/mut/split.log"
check "  and its element segment fills the instance's table" grep -q 'funcref_table_init(&instance' "$tmp/mut/split/init.c"
check "the entry it set is called" same mut call_un 3 7
check "  and gives the right result" test "$out" != "${out#8,}"
check "an entry its segment set is called" same mut call_un 1 7
check "  and gives the right result" test "$out" != "${out#49,}"

# ---- a constant table the host can read (exported) is still filled --------
cat > "$tmp/exp.wat" <<'EOF'
(module
  (type $un (func (param i32) (result i32)))
  (table (export "t") 4 funcref)
  (elem (i32.const 1) $sq $inc)
  (func $sq (type $un) (i32.mul (local.get 0) (local.get 0)))
  (func $inc (type $un) (i32.add (local.get 0) (i32.const 1)))
  (func (export "call_un") (param $idx i32) (param $x i32) (result i32)
    (call_indirect (type $un) (local.get $x) (local.get $idx))))
EOF
check "a module that exports its table builds" build exp
check "  its calls go through a constant table" grep -q 'constant tables: w2c_t (2 of 4 entries)' "$tmp/exp/split.log"
check "  and its element segment still fills the instance's table" \
  grep -q 'funcref_table_init(&instance' "$tmp/exp/split/init.c"
check "  a call through it" same exp call_un 2 7
check "  gives the right result" test "$out" != "${out#8,}"

# ---- on x86-64 with gcc the memory base is r14 itself ----------------------
# A local copy of it would hold a register of its own (callee-saved, here
# across the recursive call): gcc must assume a callee may change r14.
cat > "$tmp/base.wat" <<'EOF'
(module
  (memory (export "memory") 1)
  (data (i32.const 0) "\05\00\00\00\07\00\00\00\0b\00\00\00\0d\00\00\00\11\00\00\00\13\00\00\00")
  (func $sum (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.load (i32.const 0)))
      (else (i32.add (call $sum (i32.sub (local.get $n) (i32.const 1)))
                     (i32.load (i32.shl (local.get $n) (i32.const 2)))))))
  (func (export "call_un") (param $unused i32) (param $n i32) (result i32)
    (call $sum (local.get $n))))
EOF
check "a module reading memory after a call builds" build base
check "  and computes what the reference computes" same base call_un 0 5
check "  which is the sum of its data" test "$out" != "${out#72,}"
macros=$(cc -dM -E - </dev/null)
if grep -q '__x86_64__' <<<"$macros" && ! grep -q '__clang__' <<<"$macros"; then
  sum_code() { objdump -d --no-show-raw-insn "$tmp/base/split.bin" | awk '/<w2c_f0>:/ {p = 1} p && /^$/ {exit} p'; }
  no_copy_of_r14() { ! sum_code | grep -q 'mov  *%r14,'; }
  check "  its loads address memory through r14" grep -q '(%r14' <(sum_code)
  check "  and no other register holds a copy of r14" no_copy_of_r14
fi

# ---- exceptions: wasm2c --enable-exceptions. A try is a setjmp: at -O2 a local or parameter
# changed in a try and read in its handler came back with its value at the
# setjmp (so they are volatile in functions with a try, and only there); the
# fuel counter in r15 too (taken back from the instance where a throw
# lands); a branch out of a try body left the try's unwind target set,
# so a later throw landed in a try that had ended; and a branch to a try's
# own label was a goto to no label (the reference goes through binaryen,
# which writes that branch to a block inside the try, to compile at all). The reference
# (wasm2c's own output) has the last bug too, so the results are checked
# against their values; the fuel against the reference built at -O0.
cat > "$tmp/eh.wat" <<'EOF'
(module
  (tag $e (param i32))
  (func $thrower (param i32) (result i32)
    (if (i32.gt_u (local.get 0) (i32.const 5)) (then (throw $e (local.get 0))))
    (local.get 0))
  ;; C++'s cleanup pattern: a flag set before the try, cleared in it, read
  ;; where the try ends, after the handler too
  (func $flag (param $x i32) (result i32) (local $flag i32) (local $v i32)
    (local.set $flag (i32.const 1))
    (try
      (do
        (local.set $v (call $thrower (local.get $x)))
        (local.set $flag (i32.const 0))
        (local.set $x (i32.add (local.get $x) (i32.const 10)))
        (local.set $v (i32.add (local.get $v) (call $thrower (local.get $x)))))
      (catch $e (local.set $v)))
    (i32.add (i32.mul (local.get $flag) (i32.const 100))
             (i32.add (local.get $v) (i32.mul (local.get $x) (i32.const 1000)))))
  ;; a branch out of a try body, then a throw: the caller's handler takes it
  (func $leave (param $x i32) (result i32) (local $i i32)
    (block $done
      (try
        (do
          (loop $l
            (drop (call $thrower (local.get $i)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br_if $done (i32.eq (local.get $i) (local.get $x)))
            (br $l)))
        (catch $e (drop) (return (i32.const 1)))))
    (drop (call $thrower (i32.const 9)))
    (i32.const 2))
  ;; a branch to the try's own label; with x = 0, a throw after it
  (func $to_try (param $x i32) (result i32) (local $r i32)
    (try $t
      (do
        (local.set $r (i32.const 2))
        (br_if $t (i32.eqz (local.get $x)))
        (local.set $r (call $thrower (local.get $x))))
      (catch $e (local.set $r (i32.add (i32.const 100)))))
    (if (i32.eqz (local.get $x)) (then (drop (call $thrower (i32.const 9)))))
    (local.get $r))
  ;; nested tries, the inner handler rethrowing to the outer one
  (func $nested (param $x i32) (result i32) (local $r i32)
    (try
      (do
        (try
          (do (local.set $r (call $thrower (local.get $x))))
          (catch $e (local.set $r (i32.add (i32.const 1000))) (rethrow 0))))
      (catch $e (local.set $r (i32.add (local.get $r) (i32.mul (i32.const 10))))))
    (local.get $r))
  (func (export "call_un") (param $which i32) (param $x i32) (result i32)
    (try (result i32)
      (do (if (result i32) (i32.eqz (local.get $which))
            (then (call $flag (local.get $x)))
            (else (if (result i32) (i32.eq (local.get $which) (i32.const 1))
                    (then (call $leave (local.get $x)))
                    (else (if (result i32) (i32.eq (local.get $which) (i32.const 2))
                            (then (call $to_try (local.get $x)))
                            (else (call $nested (local.get $x)))))))))
      (catch $e (drop) (i32.const -1)))))
EOF
build_eh() { # NAME: as build, with exceptions; the reference at -O0
  local name=$1 d=$tmp/$1
  mkdir -p "$d/c"
  wat2wasm --enable-exceptions "$tmp/$name.wat" -o "$d/m0.wasm" && "$T" "$d/m0.wasm" "$d/m.wasm" 2>/dev/null &&
    wasm2c --enable-exceptions --no-debug-names -n m "$d/m.wasm" -o "$d/c/m.c" &&
    python3 "$here/../tools/w2c_split.py" "$d/c/m.c" "$d/split" 100000 >"$d/split.log" && cp "$d/c/m.h" "$d/" &&
    cc -O2 -w -I"$d" -I"$d/c" -I"$rt" -o "$d/split.bin" "$tmp/driver.c" "$d"/split/*.c "$rt/wasm-rt-impl.c" -lm &&
    mkdir -p "$d/ref" && wasm-opt --enable-exception-handling --enable-mutable-globals "$d/m.wasm" -o "$d/ref/m.wasm" \
      2>/dev/null && wasm2c --enable-exceptions --no-debug-names -n m "$d/ref/m.wasm" -o "$d/ref/m.c" &&
    cc -O0 -w -I"$d/ref" -I"$rt" -o "$d/ref.bin" "$tmp/driver.c" "$d/ref/m.c" "$rt/wasm-rt-impl.c" -lm
}
check "a module with exceptions builds (split at -O2, reference at -O0)" build_eh eh
check "  its functions with a try, and only they, have volatile locals and parameters" \
  bash -c "grep -q ' 5 with a try, 0 dispatch loops threaded)' '$tmp/eh/split.log' &&
           [ \$(grep -c '^u32 w2c_\w*(Z_m_instance_t\* instance, volatile u32 w2c_p0' '$tmp'/eh/split/funcs_*.c) = 5 ] &&
           grep -q '^u32 w2c_f0(Z_m_instance_t\* instance, u32 w2c_p0) {' '$tmp'/eh/split/funcs_*.c"
check "a handler and the code after it read what the try changed (at -O2)" same eh call_un 0 2
check "  12012: the flag cleared, the thrown 12, the parameter changed to 12" test "$out" != "${out#12012,}"
check "  and the fuel left is the reference's (the counter taken back where the throw landed)" \
  grep -q ', fuel [0-9]' <<<"$out"
check "a throw before the flag is cleared" same eh call_un 0 7
check "  7107" test "$out" != "${out#7107,}"
used=$(( $(FUEL=1000000 "$tmp/eh/split.bin" call_un 0 2 | sed 's/.*fuel //') ))
check "out of fuel in the handler (budget $((1000000 - used - 1)) of $((1000000 - used))) stops where the reference stops" \
  same_fuel $((1000000 - used - 1)) eh call_un 0 2
check "  with a trap, not a result" grep -q '^trap Unreachable' <<<"$out"
check "a throw in the try body after a branch in it" same eh call_un 1 100
check "  is its handler's" test "$out" != "${out#1,}"
"$tmp/eh/split.bin" call_un 1 3 >"$tmp/eh/out" 2>&1
check "after a branch out of a try body, a throw reaches the caller's handler, not the ended try's" \
  grep -q '^4294967295, fuel' "$tmp/eh/out"
cat > "$tmp/throws.wat" <<'EOF'
(module
  (tag $e (param i32))
  (func (export "call_un") (param i32 i32) (result i32)
    (if (local.get 0) (then (throw $e (local.get 1))))
    (local.get 1)))
EOF
build_eh throws
check "a module that throws but never catches: its exports start with no handler (a throw is a trap)" \
  bash -c "grep -q 'WB_EH_ENTER;' '$tmp/throws/split/init.c' && grep -q '#define wasm_rt_throw()' '$tmp/throws/split/common.h'"
check "  and it runs" same throws call_un 0 7
check "a branch to a try's own label" same eh call_un 2 3
check "  leaves it" test "$out" != "${out#3,}"
check "a throw in that try" same eh call_un 2 7
check "  is its handler's" test "$out" != "${out#107,}"
"$tmp/eh/split.bin" call_un 2 0 >"$tmp/eh/out" 2>&1
check "after a branch to a try's own label, a throw reaches the caller's handler" \
  grep -q '^4294967295, fuel' "$tmp/eh/out"
check "nested tries, the inner handler rethrowing to the outer one" same eh call_un 3 7
check "  10077: both handlers ran" test "$out" != "${out#10077,}"
check "  and with nothing thrown" same eh call_un 3 3
check "modules without exceptions are split as before (no exception macros)" \
  bash -c "! grep -q 'WB_EH\|wasm_rt_try' '$tmp/tab/split/common.h' '$tmp/tab/split/init.c'"

# ---- code run at instantiation would run before an export sets the registers
cat > "$tmp/start.wat" <<'EOF'
(module
  (memory (export "memory") 1)
  (func $s (i32.store (i32.const 0) (i32.const 5)))
  (start $s)
  (func (export "call_un") (param i32 i32) (result i32) (i32.load (i32.const 0))))
EOF
refused() { ! build "$1" 2>"$tmp/$1.err"; } # refused NAME: the build of NAME fails
check "a module with a start function is refused" refused start
check "  saying why" grep -q 'start function' "$tmp/start.err"

echo "1..$n"
[ "$bad" -eq 0 ]
