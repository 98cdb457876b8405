#!/usr/bin/env bash
# wasm_fuel.sh TOOL [MODULE.wasm...]: tests of tools/wasm_fuel, the metering
# pass, on small modules written in WAT and run with wabt's interpreter
# (wasm-interp): metered code computes what the original computes, a budget
# one unit short of the cost model's total traps and the exact total does
# not, loops and recursion without end stop, and what the pass cannot
# decode is refused. Then the real guest modules given as arguments are
# metered and validated. Prints "ok N - what" / "not ok N - what".
set -u
T=$1; shift
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0 bad=0

check() { # check "what" CONDITION... (several: eval '[ A ] && [ B ]')
  local what=$1; shift
  n=$((n + 1))
  if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; bad=$((bad + 1)); fi
}
wat() { wat2wasm "${@:2}" "$tmp/$1.wat" -o "$tmp/$1.wasm"; } # NAME [FLAGS]: NAME.wat -> NAME.wasm
# run NAME [TOOL ARGS...]: meter NAME.wasm, run its exports; sets out, rc
run() {
  local name=$1; shift
  "$T" "$@" "$tmp/$name.wasm" "$tmp/$name.fuel.wasm" 2>"$tmp/err" && wasm-validate "$tmp/$name.fuel.wasm" 2>>"$tmp/err"
  rc=$?
  out=$(wasm-interp --dummy-import-func "$tmp/$name.fuel.wasm" --run-all-exports 2>&1)
}
plain() { wasm-interp --dummy-import-func "$tmp/$1.wasm" --run-all-exports 2>&1; }

# ---- semantics: every kind of instruction the guests use, unchanged -------
cat > "$tmp/all.wat" <<'EOF'
(module
  (type $pair (func (param i32 i32) (result i32 i32)))
  (type $un (func (param i32) (result i32)))
  (import "env" "ping" (func $ping (param i32)))
  (memory 1)
  (table $t 4 funcref)
  (data $d "hello, fuel")
  (elem $e func $sq $inc)
  (elem (i32.const 0) $sq $inc)
  (global $g (mut i32) (i32.const 5))
  (global $h f64 (f64.const 2.5))
  (func $sq (type $un) (i32.mul (local.get 0) (local.get 0)))
  (func $inc (type $un) (i32.add (local.get 0) (i32.const 1)))
  (func $swap (type $pair) (local.get 1) (local.get 0))
  (func (export "fib") (result i64) (local i64 i64 i32)
    (local.set 1 (i64.const 1)) (local.set 2 (i32.const 50))
    (loop $l
      (local.get 1) (local.set 1 (i64.add (local.get 0) (local.get 1))) (local.set 0)
      (br_if $l (local.tee 2 (i32.sub (local.get 2) (i32.const 1)))))
    (local.get 0))
  (func (export "dispatch") (result i32) (local $i i32) (local $acc i32)
    (loop $top
      (block $next
        (block $c2
          (block $c1
            (block $c0 (br_table $c0 $c1 $c2 (i32.rem_u (local.get $i) (i32.const 3))))
            (local.set $acc (i32.add (local.get $acc) (i32.const 1)))
            (br $next))
          (local.set $acc (i32.mul (local.get $acc) (i32.const 3)))
          (br $next))
        (local.set $acc (i32.sub (local.get $acc) (i32.const 2))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $top (i32.lt_u (local.get $i) (i32.const 20))))
    (local.get $acc))
  (func (export "multivalue") (result i32)
    (i32.const 7) (i32.const 2)
    (block (type $pair) (call $swap))
    (loop (type $pair) (call $swap))
    (block (type $pair) (call $swap))
    (i32.sub))
  (func (export "misc") (result i32)
    (call $ping (i32.const 42))
    (i32.add
      (i32.add (i32.trunc_sat_f64_s (f64.const 1e30)) (i32.extend8_s (i32.const 0x1ff)))
      (i32.add (select (result i32) (i32.const 3) (i32.const 4) (global.get $g))
               (i32.trunc_f64_s (global.get $h)))))
  (func (export "tables") (result i32)
    (table.set $t (i32.const 2) (ref.func $inc))
    (i32.add (call_indirect $t (type $un) (i32.const 9) (i32.const 0))
      (i32.add (call_indirect $t (type $un) (i32.const 9) (i32.const 2))
        (i32.add (ref.is_null (table.get $t (i32.const 3)))
          (i32.add (table.size $t) (table.grow $t (ref.null func) (i32.const 2)))))))
  (func (export "bulk") (result i32)
    (memory.init $d (i32.const 100) (i32.const 0) (i32.const 11))
    (data.drop $d)
    (memory.copy (i32.const 200) (i32.const 100) (i32.const 11))
    (memory.fill (i32.const 205) (i32.const 33) (i32.const 2))
    (table.init $t $e (i32.const 0) (i32.const 0) (i32.const 2))
    (table.copy $t $t (i32.const 1) (i32.const 0) (i32.const 1))
    (table.fill $t (i32.const 3) (ref.null func) (i32.const 1))
    (elem.drop $e)
    (drop (memory.grow (i32.const 1)))
    (i32.add (i32.add (i32.load8_u (i32.const 205)) (i32.load (i32.const 200)))
             (i32.add (memory.size) (call_indirect $t (type $un) (i32.const 5) (i32.const 1)))))
  (func (export "floats") (result f64)
    (f64.add (f64.promote_f32 (f32.sqrt (f32.const 2))) (f64.convert_i64_s (i64.extend32_s (i64.const -1))))))
EOF
check "the WAT test module assembles" wat all
want=$(plain all)
run all
check "metered module validates" [ "$rc" = 0 ]
check "metered module computes the same (fib, dispatch, multi-value, sat/sign-ext, reference types, bulk memory)" \
  [ "$out" = "$want" ]
check "  ... and the original computes what we expect" grep -q 'fib() => i64:12586269025' <<<"$want"
check "the counter is a mutable i64 starting at INT64_MAX, after the module's globals" \
  bash -c "wasm-objdump -x '$tmp/all.fuel.wasm' | grep -q 'global\[2\] i64 mutable=1 <wasmbox_fuel> - init i64=9223372036854775807'"
echo '(module (import "env" "g" (global i32)) (global i32 (i32.const 1)) (global (mut i32) (i32.const 2)))' > "$tmp/globals.wat"
wat globals
run globals
check "the counter's index counts imported globals too" \
  bash -c "wasm-objdump -x '$tmp/globals.fuel.wasm' | grep -q 'global\[3\] -> \"wasmbox_fuel\"'"
"$T" "$tmp/all.wasm" "$tmp/again.wasm"
check "the output is the same on every run" cmp -s "$tmp/all.fuel.wasm" "$tmp/again.wasm"

# ---- the cost model, exactly -------------------------------------------------
# budget: the export traps with TOTAL-1 and returns with TOTAL
# (with each way of keeping the counter in loops: the cost is the same)
exact() { # exact NAME TOTAL WANT: WANT is the exports' normal output
  local name=$1 total=$2 want=$3 cache
  for cache in callfree loops none; do
    run "$name" --cache $cache --initial "$total"
    check "$name: a budget of $total is enough (--cache $cache)" [ "$out" = "$want" ]
    run "$name" --cache $cache --initial $((total - 1))
    check "$name: $((total - 1)) is not (trap)" grep -q 'unreachable executed' <<<"$out"
  done
}
cat > "$tmp/leaf.wat" <<'EOF'
(module
  (memory 1)
  (func $leaf (param i32) (result i32) local.get 0 i32.const 1 i32.add)
  (func $count (param i32) (result i32) (local i32)
    (loop $l
      local.get 1 call $leaf local.set 1
      local.get 1 local.get 0 i32.lt_u br_if $l)
    i32.const 0 i32.const 7 i32.const 100 memory.fill
    local.get 1)
  (func (export "ten") (result i32) i32.const 10 call $count))
EOF
wat leaf
# ten: 2; count: 5 outside the loop, 10 per iteration (the folded leaf's 3
# included), memory.fill of 100 bytes: 100/16 = 6
exact leaf 113 "ten() => i32:10"
"$T" -v "$tmp/leaf.wasm" "$tmp/leaf.v.wasm" 2>"$tmp/err"
check "a loop-free leaf called directly is folded into its caller" grep -q '(2 charged at entry, 1 folded' "$tmp/err"

cat > "$tmp/paths.wat" <<'EOF'
(module
  (func (export "ifs") (result i32)
    i32.const 1
    if (result i32)
      i32.const 10
    else
      i32.const 1 i32.const 2 i32.add i32.const 3 i32.add
    end))
EOF
wat paths
exact paths 7 "ifs() => i32:10" # the longer arm decides: const, if, then the 5 of the else arm

# dispatch (in all.wat): 17 per iteration (the longest case), 20 iterations, 1 after
sed -n '/func (export "dispatch")/,/(local.get $acc))$/p' "$tmp/all.wat" | { echo '(module'; cat; echo ')'; } > "$tmp/dispatch.wat"
wat dispatch
exact dispatch 341 "dispatch() => i32:1095"

# a switch: a case that may cost --split (128) or more pays for itself where
# it starts, so taking the short case does not pay for the long one
long_case=$(for i in $(seq 200); do printf '(drop (i32.const 7)) '; done)
cat > "$tmp/switch.wat" <<EOF
(module
  (func \$sw (param i32) (result i32)
    (block \$out (result i32)
      (block \$long
        (block \$short (br_table \$short \$long (local.get 0)))
        (br \$out (i32.const 1)))
      $long_case
      (i32.const 2)))
  (func (export "short") (result i32) (call \$sw (i32.const 0))))
EOF
wat switch
exact switch 6 "short() => i32:1"      # const, call, and the folded switch's 4: get, br_table, const, br
sed -i 's/(export "short") (result i32) (call $sw (i32.const 0))/(export "long") (result i32) (call $sw (i32.const 1))/' "$tmp/switch.wat"
wat switch
exact switch 407 "long() => i32:2"     # the same 6, and the long case's 401 at its start
# --split 0 (the product's build, runtimes/native.sh): no split charges, so
# the switch pays its longest path at entry, whichever case runs
run switch --split 0 --initial 405
check "--split 0: the long case costs 405 (2 + the switch's longest path)" [ "$out" = "long() => i32:2" ]
sed -i 's/(export "long") (result i32) (call $sw (i32.const 1))/(export "short") (result i32) (call $sw (i32.const 0))/' "$tmp/switch.wat"
wat switch
run switch --split 0 --initial 404
check "--split 0: the short case pays as much: 404 is not enough" grep -q 'unreachable executed' <<<"$out"
run switch --split 0 --initial 405
check "  ... 405 is" [ "$out" = "short() => i32:1" ]

# loops that call nothing charge a local copy of the counter, stored back on
# every way out: leaving by a branch, by return, and falling out
cat > "$tmp/exits.wat" <<'EOF'
(module
  (func $f (param i32) (result i32) (local i32)
    (block $out
      (loop $l
        (br_if $out (i32.ge_u (local.get 1) (local.get 0)))
        (local.set 1 (i32.add (local.get 1) (i32.const 1)))
        (br $l)))
    (loop $m
      (if (i32.eq (local.get 1) (i32.const 20)) (then (return (local.get 1))))
      (local.set 1 (i32.add (local.get 1) (i32.const 1)))
      (br $m))
    (i32.const -1))
  (func (export "exits") (result i32) (i32.add (call $f (i32.const 10)) (call $f (i32.const 10)))))
EOF
wat exits
exact exits 403 "exits() => i32:40" # 5, and twice: 1 at entry, 11 passes of 9 through each loop

# a loop that calls a function with its own charge: with --cache loops the
# copy is stored before the call and taken back after it
cat > "$tmp/calls.wat" <<'EOF'
(module
  (func $g (export "g") (result i32) (i32.const 1))
  (func (export "calls") (result i32) (local i32 i32)
    (loop $l
      (local.set 1 (i32.add (local.get 1) (call $g)))
      (br_if $l (i32.lt_u (local.tee 0 (i32.add (local.get 0) (i32.const 1))) (i32.const 10))))
    (local.get 1)))
EOF
wat calls
exact calls 122 "g() => i32:1
calls() => i32:10" # g alone, then 1 after the loop and 10 passes of 11, and g's 1 each

# a folded function with a bulk operation charges the counter itself, so a
# loop calling it (which would otherwise charge a local copy) stores its copy
# before the call and takes it back after: no charge is lost. fills: 3
# passes of 12 (the call, $fill's 4, 7 more), and 3 fills of 160 bytes at 10
cat > "$tmp/fills.wat" <<'EOF'
(module
  (memory 1)
  (func $fill (memory.fill (i32.const 0) (i32.const 1) (i32.const 160)))
  (func (export "fills") (local $i i32)
    (loop $l
      (call $fill)
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 3))))))
EOF
wat fills
exact fills 66 "fills() =>"

cat > "$tmp/rec.wat" <<'EOF'
(module
  (func $down (param i32) (result i32)
    local.get 0 i32.eqz
    if (result i32) i32.const 0 else local.get 0 i32.const 1 i32.sub call $down end)
  (func (export "rec") (result i32) i32.const 5 call $down))
EOF
wat rec
exact rec 44 "rec() => i32:0" # a recursive function keeps its charge: 6 calls of 7, and 2

# ---- exceptions (the legacy proposal, as clang-19 emits for C++) ------------------
# wasm-interp 1.0.32 loses its value stack when it catches in a function
# with locals or parameters, so the catching functions here keep their
# state in globals.
cat > "$tmp/eh.wat" <<'EOF'
(module
  (tag $e (param i32))
  (tag $f)
  (func $thrower (param i32) (result i32)
    (if (i32.gt_u (local.get 0) (i32.const 5)) (then (throw $e (local.get 0))))
    (i32.add (local.get 0) (i32.const 1)))
  (func (export "caught") (result i32)
    (try (result i32)
      (do (call $thrower (i32.const 9)))
      (catch $e (i32.mul (i32.const 2)))))
  (func (export "notthrown") (result i32)
    (try (result i32)
      (do (call $thrower (i32.const 3)))
      (catch $e (i32.mul (i32.const 2)))))
  (func (export "all") (result i32)
    (try (result i32)
      (do (throw $f))
      (catch $e)
      (catch_all (i32.const 77))))
  (func (export "rethrown") (result i32)
    (try (result i32)
      (do
        (try (result i32)
          (do (call $thrower (i32.const 8)))
          (catch_all (rethrow 0))))
      (catch $e (i32.add (i32.const 100)))))
  (func (export "delegated") (result i32)
    (try (result i32)
      (do
        (try (result i32)
          (do (call $thrower (i32.const 7)))
          (delegate 0)))
      (catch $e (i32.add (i32.const 1000)))))
  (func (export "branch") (result i32)
    (block $out (result i32)
      (try
        (do (br $out (i32.const 5)))
        (catch_all))
      (i32.const 6)))
  (func (export "uncaught") (result i32)
    (call $thrower (i32.const 6))))
EOF
check "the exceptions test module assembles" wat eh --enable-exceptions
want=$(wasm-interp --enable-exceptions "$tmp/eh.wasm" --run-all-exports 2>&1)
check "  ... and computes what we expect unmetered (catch, catch_all, rethrow, delegate, uncaught)" \
  [ "$want" = "caught() => i32:18
notthrown() => i32:4
all() => i32:77
rethrown() => i32:108
delegated() => i32:1007
branch() => i32:5
uncaught() => error: uncaught exception" ]
run_eh() { # as run, with exceptions
  local name=$1; shift
  "$T" "$@" "$tmp/$name.wasm" "$tmp/$name.fuel.wasm" 2>"$tmp/err" &&
    wasm-validate --enable-exceptions "$tmp/$name.fuel.wasm" 2>>"$tmp/err"
  rc=$?
  out=$(wasm-interp --enable-exceptions "$tmp/$name.fuel.wasm" --run-all-exports 2>&1)
}
run_eh eh
check "a module with try/catch/throw/rethrow/delegate is metered and validates" [ "$rc" = 0 ]
check "  ... and computes the same" [ "$out" = "$want" ]
exact_eh() { # as exact; WHERE says where TOTAL-1 runs out; [CACHE MODES]
  local name=$1 total=$2 want=$3 where=$4 cache
  for cache in ${5:-callfree loops none}; do
    run_eh "$name" --cache $cache --initial "$total"
    check "$name: a budget of $total is enough (--cache $cache)" [ "$out" = "$want" ]
    run_eh "$name" --cache $cache --initial $((total - 1))
    check "$name: $((total - 1)) is not: it traps $where" grep -q 'unreachable executed' <<<"$out"
  done
}
# caught: 9 at entry (2 consts, the call, the folded thrower's longest path
# of 7), and the handler pays its 2 where it starts: the last unit runs out
# inside the handler
sed -n '/^  (tag \$e/p; /func \$thrower/,/i32.const 1)))$/p; /(export "caught")/,/(catch \$e (i32.mul (i32.const 2)))))$/p' \
  "$tmp/eh.wat" | { echo '(module'; cat; echo ')'; } > "$tmp/ehcatch.wat"
wat ehcatch --enable-exceptions
exact_eh ehcatch 11 "caught() => i32:18" "in the catch handler"
# a charge inside a try body (the entry of g, which the host calls) runs
# out: a trap, which no handler catches. g alone: 1; body: 3, and g twice.
cat > "$tmp/ehbody.wat" <<'EOF'
(module
  (func $g (export "g") (result i32) (i32.const 1))
  (func (export "body") (result i32)
    (try (result i32) (do (i32.add (call $g) (call $g))) (catch_all (i32.const -1)))))
EOF
wat ehbody --enable-exceptions
exact_eh ehbody 6 "g() => i32:1
body() => i32:2" "inside the try body, and no handler catches it"
# a try in a loop: 1 at entry, 10 passes of 20 (the folded thrower's 7
# included), and 4 handlers of 11 (i = 6..9). (Not run with --cache loops:
# its copy of the counter is a local, which wasm-interp cannot catch with;
# that the copy is stored before the call that throws and taken back in
# the handler is checked in the code below.)
cat > "$tmp/ehloop.wat" <<'EOF'
(module
  (tag $e (param i32))
  (global $i (mut i32) (i32.const 0))
  (global $acc (mut i32) (i32.const 0))
  (func $thrower (param i32) (result i32)
    (if (i32.gt_u (local.get 0) (i32.const 5)) (then (throw $e (local.get 0))))
    (i32.add (local.get 0) (i32.const 1)))
  (func (export "loop") (result i32)
    (loop $l
      try
        global.get $i call $thrower global.get $acc i32.add global.set $acc
      catch $e
        global.get $acc i32.add global.set $acc
      end
      (global.set $i (i32.add (global.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (global.get $i) (i32.const 10))))
    (global.get $acc)))
EOF
wat ehloop --enable-exceptions
exact_eh ehloop 245 "loop() => i32:51" "in the last handler" "callfree none"
"$T" --cache loops "$tmp/ehloop.wasm" "$tmp/ehloop.fuel.wasm" 2>"$tmp/err"
wasm2wat --enable-exceptions "$tmp/ehloop.fuel.wasm" | tr -s ' \n' ' ' > "$tmp/ehloop.txt"
check "--cache loops: the copy is stored before a call that may throw" \
  grep -q 'local.get 0 global.set 2 call 0 global.get 2 local.set 0' "$tmp/ehloop.txt"
check "  ... and taken back where the handler starts, before its charge" \
  grep -q 'catch 0 global.get 2 local.set 0 local.get 0 i64.const 11 i64.sub' "$tmp/ehloop.txt"
"$T" -v "$tmp/ehloop.wasm" "$tmp/ehloop.v.wasm" 2>"$tmp/err"
check "a loop around a try charges the counter itself (no local copy)" grep -q ', 0 loops on a local copy' "$tmp/err"

# ---- no run without end ---------------------------------------------------------
cat > "$tmp/forever.wat" <<'EOF'
(module
  (func $f (result i32) i32.const 1)
  (func $r (call $r))
  (func $even (param i32) (result i32) (call $odd (local.get 0)))
  (func $odd (param i32) (result i32) (call $even (local.get 0)))
  (func (export "spin") (drop (call $f)) (loop $l (br $l)))
  (func (export "nested") (loop $a (loop $b (br $a))))
  (func (export "recurse") (call $r))
  (func (export "mutual") (drop (call $even (i32.const 1)))))
EOF
wat forever
run forever --initial 100000
check "an endless loop runs out of fuel" grep -q 'spin() => error: unreachable executed' <<<"$out"
check "an endless loop of nested loops runs out of fuel" grep -q 'nested() => error: unreachable executed' <<<"$out"
check "endless recursion runs out of fuel before the stack" grep -q 'recurse() => error: unreachable executed' <<<"$out"
check "endless mutual recursion runs out of fuel" grep -q 'mutual() => error: unreachable executed' <<<"$out"

# ---- --counter-only: the unmetered baseline --------------------------------------
run leaf --counter-only --initial 0
check "--counter-only adds the counter but no charge" [ "$out" = "ten() => i32:10" ]
check "  ... and exports it" bash -c "wasm-objdump -x '$tmp/leaf.fuel.wasm' | grep -q 'global\[0\] -> \"wasmbox_fuel\"'"

# ---- refused -------------------------------------------------------------------------
refused() { # refused NAME NEEDLE [WAT2WASM FLAGS]
  wat "$1" "${@:3}"
  "$T" "$tmp/$1.wasm" "$tmp/$1.out.wasm" 2>"$tmp/err"
  local r=$?
  check "refused: $1 (exit 1, '$2')" [ "$r" = 1 ]
  check "  ... and says why" grep -q "$2" "$tmp/err"
  check "  ... writing nothing" [ ! -e "$tmp/$1.out.wasm" ]
}
echo '(module (func (export "f") (drop (v128.const i32x4 1 2 3 4))))' > "$tmp/simd.wat"
refused simd "SIMD"
echo '(module (memory 1 1 shared) (func (drop (i32.atomic.load (i32.const 0)))))' > "$tmp/atomics.wat"
refused atomics "threads" --enable-threads
echo '(module (func $f (return_call $f)))' > "$tmp/tail.wat"
refused tail "tail calls" --enable-tail-call
# the newer exception proposal (exnref, try_table) is not the one clang-19
# emits: refused. (wat2wasm 1.0.32 cannot write it; the bytes are ours.)
printf '\0asm\1\0\0\0\1\4\1\140\0\0\3\2\1\0\n\10\1\6\0\37\100\0\13\13' > "$tmp/exnref.wasm"
"$T" "$tmp/exnref.wasm" "$tmp/exnref.out.wasm" 2>"$tmp/err"; r=$?
check "refused: try_table (exit 1)" [ "$r" = 1 ]
check "  ... and says why" grep -q "exception handling (exnref)" "$tmp/err"
printf '\0asm\1\0\0\0\1\4\1\140\0\0\3\2\1\0\n\5\1\3\0\31\13' > "$tmp/stray.wasm"
"$T" "$tmp/stray.wasm" "$tmp/stray.out.wasm" 2>"$tmp/err"; r=$?
check "refused: a catch_all outside any try (exit 1)" [ "$r" = 1 ]
check "  ... as such" grep -q "catch without try" "$tmp/err"
echo '(module (global $g (mut i64) (i64.const 0)) (export "wasmbox_fuel" (global $g)))' > "$tmp/taken.wat"
refused taken 'already exports "wasmbox_fuel"'
printf '\0asm\1\0\0\0\1\5\1\140' > "$tmp/cut.wasm"
"$T" "$tmp/cut.wasm" "$tmp/cut.out.wasm" 2>"$tmp/err"; r=$?
check "a truncated module is refused" [ "$r" = 1 ]
check "  ... as cut short" grep -q "unexpected end" "$tmp/err"
"$T" "$tmp/none.wasm" "$tmp/none.out.wasm" 2>"$tmp/err"; r=$?
check "a missing input is an error" [ "$r" = 1 ]
"$T" only-one-arg.wasm 2>/dev/null; r=$?
check "bad usage exits 2" [ "$r" = 2 ]

# ---- --merge-data: fewer data segments, the same memory ---------------------------
# segments 2 and 4 bytes apart merge at GAP 8, the one 171 bytes on does not;
# the exports read segment bytes and the zeros in a merged gap
cat > "$tmp/data.wat" <<'EOF'
(module
  (memory 1)
  (data (i32.const 16) "ab") (data (i32.const 20) "cd") (data (i32.const 28) "e")
  (data (i32.const 200) "fg")
  (func (export "bytes") (result i64)
    (i64.or (i64.load (i32.const 16)) (i64.shl (i64.extend_i32_u (i32.load8_u (i32.const 28))) (i64.const 56))))
  (func (export "far") (result i32) (i32.add (i32.load16_u (i32.const 200)) (i32.load8_u (i32.const 199)))))
EOF
wat data
segments() { wasm-objdump -h "$1" | sed -n 's/^ *Data .*count: \([0-9]*\)$/\1/p'; }
want=$(plain data)
run data --merge-data 8 -v
check "--merge-data 8: the module validates and computes the same" eval '[ "$rc" = 0 ] && [ "$out" = "$want" ]'
check "  ... with 2 data segments of 4" [ "$(segments "$tmp/data.fuel.wasm")" = 2 ]
check "  ... and says so (-v)" grep -q '4 data segments merged into 2' "$tmp/err"
run data --merge-data 1
check "--merge-data 1: only segments at most 1 byte apart merge (none: 4 left)" \
  eval '[ "$(segments "$tmp/data.fuel.wasm")" = 4 ] && [ "$out" = "$want" ]'
run data --merge-data 256
check "--merge-data 256: one segment, the same memory" \
  eval '[ "$(segments "$tmp/data.fuel.wasm")" = 1 ] && [ "$out" = "$want" ]'
run data
check "without --merge-data the segments stay" [ "$(segments "$tmp/data.fuel.wasm")" = 4 ]
# the name section: data segment names (of segments a merge removed) left
# out, the function names kept
cat > "$tmp/named.wat" <<'EOF'
(module (memory 1) (data $a (i32.const 16) "ab") (data $b (i32.const 20) "cd")
  (func $get (export "f") (result i32) (i32.load (i32.const 16))))
EOF
wat named --debug-names
want=$(plain named)
run named --merge-data 8
check "--merge-data with a name section: no error from wasm-validate, the same result" \
  eval '[ "$rc" = 0 ] && [ "$out" = "$want" ] && [ ! -s "$tmp/err" ]'
check "  ... the function's name kept" grep -q 'func\[0\] <get>' <(wasm-objdump -x "$tmp/named.fuel.wasm")
run named
check "  ... without --merge-data the data segments keep their names" \
  grep -q 'segment\[1\] <b>' <(wasm-objdump -x "$tmp/named.fuel.wasm")
# overlapping segments (the later wins), a passive segment, code naming a
# segment: the section is left as it is
left() { # left NAME: NAME.wat has 2 segments, metered with --merge-data 256
  local module=$1 # (check's eval sees check's $1)
  wat "$1"
  want=$(plain "$1")
  run "$1" --merge-data 256 -v
  check "$1: data segments left as they are, computing the same" \
    eval '[ "$rc" = 0 ] && [ "$out" = "$want" ] && [ "$(segments "$tmp/$module.fuel.wasm")" = 2 ]'
  check "  ... and says so (-v)" grep -q 'data segments left as they are' "$tmp/err"
}
cat > "$tmp/overlap.wat" <<'EOF'
(module (memory 1) (data (i32.const 16) "abcd") (data (i32.const 18) "XY")
  (func (export "f") (result i32) (i32.load (i32.const 16))))
EOF
left overlap
cat > "$tmp/passive.wat" <<'EOF'
(module (memory 1) (data (i32.const 16) "ab") (data $p "cd")
  (func (export "f") (result i32) (memory.init $p (i32.const 18) (i32.const 0) (i32.const 2)) (i32.load (i32.const 16))))
EOF
left passive
cat > "$tmp/dropped.wat" <<'EOF'
(module (memory 1) (data (i32.const 16) "ab") (data $d (i32.const 18) "cd")
  (func (export "f") (result i32) (data.drop $d) (i32.load (i32.const 16))))
EOF
left dropped
for arg in 257 -1 x; do
  "$T" --merge-data "$arg" "$tmp/data.wasm" "$tmp/bad.wasm" 2>/dev/null; r=$?
  check "--merge-data $arg is bad usage (exit 2)" [ "$r" = 2 ]
done

# ---- the guests -----------------------------------------------------------------------
for m in "$@"; do
  "$T" -v "$m" "$tmp/guest.wasm" 2>"$tmp/err"; r=$?
  check "$(basename "$m"): metered ($(sed 's/.*: \([0-9]* functions\)/\1/' "$tmp/err"))" [ "$r" = 0 ]
  check "$(basename "$m"): the metered module validates" wasm-validate --enable-exceptions "$tmp/guest.wasm"
done
exit "$bad"
