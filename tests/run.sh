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
# Every test below is a job: as many run at a time as there are cores (each
# is mostly one process on one core; none uses a fixed port or a shared
# path), each one's output in a file of its own until it ends, reported in
# the order started.
. "$(dirname "$0")/pool.sh"
POOL_REAPED=report_finished
outs=$(mktemp -d) || exit 1
trap 'rm -rf "$outs"' EXIT
here=$(dirname "$0") root=$(cd "$(dirname "$0")/.." && pwd)
names=() kinds=() next=0
# report_finished: report the jobs that have ended, up to the first still running
report_finished() {
  while [ "$next" -lt ${#names[@]} ] && [ -f "$outs/$next.done" ]; do
    local name=${names[$next]} kind=${kinds[$next]} out p f plan
    out=$(cat "$outs/$next")
    p=$(grep -c '^ok ' <<<"$out")
    f=$(grep -c '^not ok ' <<<"$out")
    case $kind in
      tap) # a program that dies before reporting every planned test has failed
        plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<<"$out" | head -1)
        if [ -z "$plan" ] || [ $((p + f)) -ne "$plan" ]; then
          f=$((f + 1)); out="$out"$'\n'"not ok - $name stopped after $((p + f - 1)) of ${plan:-?} tests"
        fi ;;
      closing) # a run that died before its closing line has failed
        grep -q '^[0-9]* passed, [0-9]* failed$' <<<"$out" ||
          { f=$((f + 1)); out="$out"$'\n'"not ok - $name stopped early"; } ;;
    esac
    passed=$((passed + p)); failed=$((failed + f))
    printf '%-16s %3d passed, %d failed\n' "$name" "$p" "$f"
    if [ "$f" -gt 0 ]; then failures+=("$name"); printf '%s\n' "$out" | grep -v '^ok ' | sed 's/^/    /'; fi
    next=$((next + 1))
  done
}
# job NAME KIND COMMAND...: start COMMAND once a place in the pool is free.
# KIND: tap (a C program, cmocka's TAP: its plan must be met), lines (a
# script's "ok"/"not ok" lines), closing (lines, then "N passed, N failed")
job() {
  local name=$1 kind=$2 i=${#names[@]}; shift 2
  names+=("$name"); kinds+=("$kind")
  pool_start run_to "$i" "$@"
}
# run_to I COMMAND...: COMMAND's output in job I's file, then its mark
run_to() {
  local i=$1; shift
  { "$@"; } >"$outs/$i" 2>&1
  touch "$outs/$i.done"
}
case $bin in *-asan) asan=true ;; *) asan=false ;; esac

for t in "$@"; do job "$t" tap env CMOCKA_MESSAGE_OUTPUT=TAP "$dir/$t"; done
job cli lines bash "$here/cli.sh" "$bin"
job install lines bash "$here/install.sh" "$root"
guests=()
for d in "$(dirname "$bin")"/*.dir; do
  case $d in *-*.dir) continue ;; esac # a runtime's is NAME.dir (not NAME-native, -packages, playground-editor)
  guests+=("$(cat "$d")/$(basename "$d" .dir).wasm")
done
job wasm_fuel lines bash "$here/wasm_fuel.sh" "$fuel_tool" "${guests[@]}"
# the shared library is built without sanitizers (an ASan one would need
# libasan preloaded into python): its client is tested in the plain pass
$asan || job python_client lines bash "$here/python_client.sh" "$root" "$(dirname "$bin")"
job w2c_split lines bash "$here/w2c_split.sh" "$fuel_tool"
job cxx lines bash "$here/cxx.sh"
job fpcast lines bash "$here/fpcast.sh"
# (it builds its own ASan copy of the module: the plain pass only)
$asan || job kiwisolver lines bash "$here/kiwisolver.sh" "$(dirname "$bin")"
job pgo_train lines bash "$here/pgo_train.sh" "$trainer"
job mcp closing python3 "$here/mcp/transport.py" "$bin"
job oauth closing python3 "$here/mcp/oauth.py" "$bin"
# the documents' examples against this build, and the check's own test (the
# shared library and the TypeScript client are those of the plain pass)
if ! $asan; then
  job docs closing python3 "$here/docs.py" "$bin"
  job docs-self-test closing python3 "$here/docs.py" --self-test "$bin"
fi
pool_wait
report_finished
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
