#!/usr/bin/env bash
# cxx.sh: C++ exceptions end to end. tests/cxx/guest.cpp is built with the
# C++ kit (runtimes/cxx.sh: libc++, libc++abi and the unwinder with
# -fwasm-exceptions), translated by runtimes/native.sh (the fuel pass,
# wasm2c --enable-exceptions, tools/w2c_split.py, gcc -O2) and run
# by tests/cxx/host.c on our wasm-rt: a std::runtime_error through frames
# with destructors caught by base class, catch (...), a rethrow, libc++'s
# own throws (std::string::at, operator new out of memory), an exception
# nothing catches (a trap, and the instance still works), a budget that
# runs out inside a handler (the fuel trap), the fuel of a call that
# throws exact to the unit, four threads throwing at once, and (with
# tests/cxx/bigtag.wat) exceptions past the runtime's size bound; and in the
# same module setjmp/longjmp (tests/cxx/sjlj.c with runtimes/common/sjlj):
# the values, deep and nested jumps, locals after a jump, a hundred thousand
# rounds in constant memory, the fuel trap between setjmp and longjmp, a jump
# nothing catches, the fuel of a jump exact to the unit. Prints "ok N - what" / "not ok N - what".
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0 bad=0

check() { # check "what" CONDITION...
  local what=$1; shift
  n=$((n + 1))
  if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; bad=$((bad + 1)); fi
}

kit=$(bash "$root/runtimes/cxx.sh" 2>"$tmp/kit.log")
check "the C++ kit builds" [ -f "$kit/ldflags" ]
[ -f "$kit/ldflags" ] || { cat "$tmp/kit.log"; exit 1; }
# setjmp/longjmp in the same module: sjlj.c as any guest C using them is
# built, with our runtime half (runtimes/common/guest_sjlj.c)
sjlj="-mllvm -wasm-enable-sjlj -mexception-handling -isystem $root/runtimes/common/sjlj"
# shellcheck disable=SC2086
clang-19 --target=wasm32-wasi -O2 -std=c11 -Wall -Wextra -Werror $sjlj -c "$here/cxx/sjlj.c" -o "$tmp/sjlj.o"
# shellcheck disable=SC2086
clang-19 --target=wasm32-wasi -O2 -std=c11 -Wall -Wextra -Werror -mexception-handling -isystem "$root/runtimes/common/sjlj" \
  -c "$root/runtimes/common/guest_sjlj.c" -o "$tmp/guest_sjlj.o"
# shellcheck disable=SC2046
clang++-19 --target=wasm32-wasi -O2 -mexec-model=reactor $(cat "$kit/cxxflags") "$here/cxx/guest.cpp" \
  "$tmp/sjlj.o" "$tmp/guest_sjlj.o" $(cat "$kit/ldflags") -Wl,--max-memory=67108864 -o "$tmp/cxxtest.wasm"
check "the guest builds with it" [ -f "$tmp/cxxtest.wasm" ]
native=$(bash "$root/runtimes/native.sh" cxxtest "$tmp/cxxtest.wasm" 2>"$tmp/native.log")
check "runtimes/native.sh translates it (metered, wasm2c --enable-exceptions, split, -O2)" \
  [ -f "$native/cxxtest.o" ]
[ -f "$native/cxxtest.o" ] || { tail -20 "$tmp/native.log"; exit 1; }
cc -std=c11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$root/include" -I"$root/src" -I"$native" \
  -o "$tmp/host" "$here/cxx/host.c" "$root"/src/wasm_rt/{wasm_rt,guest,tracker}.c "$root"/src/util/{os,hash}.c \
  "$native/cxxtest.o" -lm -lpthread
check "the host builds on our wasm-rt" [ -x "$tmp/host" ]

run() { out=$("$tmp/host" "$@" 2>&1); } # run SCENARIO [FUEL]
has() { grep -q "$1" <<<"$out" || { echo "# got: $out"; return 1; }; }
run 0
check "a std::runtime_error through six frames with destructors is caught by base class" has '^result 107,'
run 1
check "catch (...) takes a thrown int" has '^result 201,'
run 2
check "a handler that rethrows reaches the outer one, destructors run once" has '^result 314,'
run 5
check "std::string::at out of range throws std::out_of_range (libc++ rebuilt with exceptions)" has '^result 501,'
run 6
check "operator new past the memory limit throws std::bad_alloc" has '^result 601,'
run 3
check "an exception nothing catches is a trap" has '^trap uncaught exception,'
check "  and the instance works after it" has '^then handler_entered: result 0$'
run 4 20000000
check "a budget used up inside a handler is the fuel trap" has '^trap out of fuel, fuel used 20000000$'
check "  in the handler" has '^then handler_entered: result 1$'
# exact_fuel CASE RESULT WHAT: the fuel a case used is enough, one less is not
exact_fuel() {
  run "$1"
  used=$(sed -n "s/^result $2, fuel used \([0-9]*\)$/\1/p" <<<"$out")
  run "$1" "$used"
  check "the fuel of $3 is exact: $used is enough" has "^result $2, fuel used $used$"
  run "$1" $((used - 1))
  check "  $((used - 1)) is not" has '^trap out of fuel,'
}
exact_fuel 0 107 "a call that throws and catches"
run 0
check "  and the same on every run" has "^result 107, fuel used $used$"
run 10
check "setjmp returns 0, then longjmp's value" has '^result 1007,'
run 11
check "longjmp(env, 0) makes setjmp return 1" has '^result 1101,'
run 12
check "a longjmp from fifty frames down" has '^result 1242,'
run 13
check "nested buffers: the inner one's, then the outer one's through the inner's handler" has '^result 1334,'
run 14
check "locals changed after setjmp (volatile) and set before it are intact after the longjmp" has '^result 1420,'
run 15
check "a hundred thousand setjmp/longjmp rounds: the memory and the stack do not grow" has '^result 1500,'
run 16 20000000
check "a budget used up between setjmp and longjmp is the fuel trap" has '^trap out of fuel, fuel used 20000000$'
check "  after setjmp, and the instance works after it" has '^then handler_entered: result 1$'
run 17
check "a longjmp to a buffer no live call set is a trap (uncaught)" has '^trap uncaught exception,'
check "  and the instance works after it" has '^then handler_entered: result 0$'
exact_fuel 12 1242 "a call that longjmps"
run threads
check "four threads, each with its instance, throw and catch at once (per-thread exception state)" \
  has '^threads: 0 wrong$'
# the runtime's bound on an exception's values, with a module of its own
wat2wasm --enable-exceptions "$here/cxx/bigtag.wat" -o "$tmp/bigtag.wasm"
native=$(bash "$root/runtimes/native.sh" cxxtest "$tmp/bigtag.wasm" 2>"$tmp/native.log")
cc -std=c11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$root/include" -I"$root/src" -I"$native" \
  -o "$tmp/bighost" "$here/cxx/host.c" "$root"/src/wasm_rt/{wasm_rt,guest,tracker}.c "$root"/src/util/{os,hash}.c \
  "$native/cxxtest.o" -lm -lpthread
check "a module whose tag carries 264 bytes builds" [ -x "$tmp/bighost" ]
out=$("$tmp/bighost" 0 2>&1)
check "  throwing it past the bound (256) is a trap" has '^trap uncaught exception,'
out=$("$tmp/bighost" 1 2>&1)
check "  also where a handler would catch it" has '^trap uncaught exception,'
out=$("$tmp/bighost" 2 2>&1)
check "  a small exception in the same module is caught" has '^result 5,'
echo "1..$n"
[ "$bad" -eq 0 ]
