#!/usr/bin/env bash
# run.sh TESTDIR WASMBOX FUEL_TOOL TRAINER TEST...: run the C test programs
# (cmocka, TAP output), the CLI tests, `make install` used as a user would,
# the Python client (clients/python) installed with pip,
# the MCP transport and OAuth tests, the documents' examples (tests/docs.py), the
# metering pass's tests (on small modules and on the guests this build
# holds), the tests of the translation's rewrites (tools/w2c_split.py), of
# C++ exceptions and setjmp/longjmp end to end (tests/cxx.sh), of
# numpy's cast rewrites (runtimes/python/fpcast.py), our kiwisolver against
# Debian's (tests/kiwisolver_diff.py) and of
# the PGO training driver (tools/pgo_train.c), then print one line:
# "N passed, N failed".
set -u
dir=$1 bin=$2 fuel_tool=$3 trainer=$4; shift 4
passed=0 failed=0 failures=()
# The C test programs, as many at a time as there are cores (each is
# mostly one process on one core; none uses a fixed port or path), each
# one's output in its own file until it ends, reported in the order given.
jobs=${WB_TEST_JOBS:-$(nproc)}
outs=$(mktemp -d) || exit 1
trap 'rm -rf "$outs"' EXIT
tests=("$@") next=0
# report_finished: report the tests that have ended, up to the first still running
report_finished() {
  while [ "$next" -lt ${#tests[@]} ] && [ -f "$outs/${tests[$next]}.done" ]; do
    local t=${tests[$next]} out p f plan
    out=$(cat "$outs/$t")
    p=$(grep -c '^ok ' <<<"$out")
    f=$(grep -c '^not ok ' <<<"$out")
    # a program that dies before reporting every planned test has failed
    plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<<"$out" | head -1)
    if [ -z "$plan" ] || [ $((p + f)) -ne "$plan" ]; then
      f=$((f + 1)); out="$out"$'\n'"not ok - $t stopped after $((p + f - 1)) of ${plan:-?} tests"
    fi
    passed=$((passed + p)); failed=$((failed + f))
    printf '%-16s %3d passed, %d failed\n' "$t" "$p" "$f"
    if [ "$f" -gt 0 ]; then failures+=("$t"); printf '%s\n' "$out" | grep -v '^ok ' | sed 's/^/    /'; fi
    next=$((next + 1))
  done
}
running=0
for t in "${tests[@]}"; do
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); report_finished; fi
  { CMOCKA_MESSAGE_OUTPUT=TAP "$dir/$t" >"$outs/$t" 2>&1; touch "$outs/$t.done"; } &
  running=$((running + 1))
done
wait
report_finished
# script NAME ARGS...: a TAP-like shell test (tests/NAME.sh)
script() {
  local name=$1; shift
  out=$(bash "$(dirname "$0")/$name.sh" "$@" 2>&1)
  p=$(grep -c '^ok ' <<<"$out"); f=$(grep -c '^not ok ' <<<"$out")
  passed=$((passed + p)); failed=$((failed + f))
  printf '%-16s %3d passed, %d failed\n' "$name" "$p" "$f"
  if [ "$f" -gt 0 ]; then failures+=("$name"); printf '%s\n' "$out" | grep -v '^ok ' | sed 's/^/    /'; fi
}
script cli "$bin"
script install "$(cd "$(dirname "$0")/.." && pwd)"
guests=()
for d in "$(dirname "$bin")"/*.dir; do
  case $d in *-*.dir) continue ;; esac # a runtime's is NAME.dir (not NAME-native, -packages, playground-editor)
  guests+=("$(cat "$d")/$(basename "$d" .dir).wasm")
done
script wasm_fuel "$fuel_tool" "${guests[@]}"
# the shared library is built without sanitizers (an ASan one would need
# libasan preloaded into python): its client is tested in the plain pass
case $bin in *-asan) ;; *) script python_client "$(cd "$(dirname "$0")/.." && pwd)" "$(dirname "$bin")" ;; esac
script w2c_split "$fuel_tool"
script cxx
script fpcast
# (it builds its own ASan copy of the module: the plain pass only)
case $bin in *-asan) ;; *) script kiwisolver "$(dirname "$bin")" ;; esac
script pgo_train "$trainer"
# pyscript NAME FILE: a Python test printing "ok"/"not ok" lines and a closing count
pyscript() {
  local name=$1 file=$2
  out=$(python3 "$(dirname "$0")/mcp/$file" "$bin" 2>&1)
  p=$(grep -c '^ok ' <<<"$out"); f=$(grep -c '^not ok ' <<<"$out")
  # a run that died before its closing line has failed
  grep -q '^[0-9]* passed, [0-9]* failed$' <<<"$out" || { f=$((f + 1)); out="$out"$'\n'"not ok - $file stopped early"; }
  passed=$((passed + p)); failed=$((failed + f))
  printf '%-16s %3d passed, %d failed\n' "$name" "$p" "$f"
  if [ "$f" -gt 0 ]; then failures+=("$name"); printf '%s\n' "$out" | grep -v '^ok ' | sed 's/^/    /'; fi
}
pyscript mcp transport.py
pyscript oauth oauth.py
# the documents' examples against this build, and the check's own test (the
# shared library and the TypeScript client are those of the plain pass)
case $bin in
  *-asan) ;;
  *) for args in "$bin" "--self-test $bin"; do
       # shellcheck disable=SC2086
       out=$(python3 "$(dirname "$0")/docs.py" $args 2>&1)
       p=$(grep -c '^ok ' <<<"$out"); f=$(grep -c '^not ok ' <<<"$out")
       grep -q '^[0-9]* passed, [0-9]* failed$' <<<"$out" || { f=$((f + 1)); out="$out"$'\n'"not ok - docs.py stopped early"; }
       passed=$((passed + p)); failed=$((failed + f))
       name=docs; [ "$args" = "$bin" ] || name=docs-self-test
       printf '%-16s %3d passed, %d failed\n' "$name" "$p" "$f"
       if [ "$f" -gt 0 ]; then failures+=("$name"); printf '%s\n' "$out" | grep -v '^ok ' | sed 's/^/    /'; fi
     done ;;
esac
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
