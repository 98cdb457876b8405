#!/usr/bin/env bash
# make fuzz: run each harness for SECONDS (as many at once as there are
# cores), starting from its committed corpus
# (tests/fuzz/corpus/NAME). New inputs go to a scratch corpus: the committed
# one changes by hand (make_seeds.py's seeds, what long runs found merged in
# with -merge=1, a minimized reproducer for each finding). A
# finding (crash, leak, UB, timeout) is kept in DIR/findings/ and fails the run.
#   run.sh DIR SECONDS NAME...
set -uo pipefail
dir=$1 secs=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/wasmbox-fuzz-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$dir/findings"
# guest traps are the engine's signals, not ASan's (as in make test-asan)
export ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1:use_sigaltstack=0
export UBSAN_OPTIONS=print_stacktrace=1
# what LeakSanitizer must not report, each with its reason (lsan.supp)
export LSAN_OPTIONS=suppressions=$here/lsan.supp
# one harness: its line (and a finding's report) into $work/NAME.out,
# status 1 on a finding
fuzz_one() {
  local f=$1 start rc execs cov ft
  mkdir -p "$work/$f"
  start=$(date +%s)
  # NAME.options: libFuzzer flags of one harness (e.g. guest traps left to the engine)
  # shellcheck disable=SC2046
  "$dir/$f" $(cat "$here/$f.options" 2>/dev/null) -max_total_time="$secs" -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$dir/findings/$f-" "$work/$f" "$here/corpus/$f" > "$work/$f.log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$f.log")
  cov=$(grep -o 'cov: [0-9]*' "$work/$f.log" | tail -1)
  ft=$(grep -o 'ft: [0-9]*' "$work/$f.log" | tail -1)
  {
    printf 'fuzz: %-22s %4s s  %9s executions  %s  %s  %s\n' "$f" "$(( $(date +%s) - start ))" "${execs:-?}" \
      "${cov:-cov: ?}" "${ft:-ft: ?}" "$([ $rc = 0 ] && echo 'no finding' || echo FINDING)"
    if [ $rc != 0 ]; then
      grep -A30 -m1 'ERROR\|runtime error\|==[0-9]*==\|deadly signal\|timeout' "$work/$f.log" | head -40
      echo "fuzz: $f: the input is in $dir/findings/ (reproduce: $dir/$f FILE)"
    fi
  } > "$work/$f.out"
  [ $rc = 0 ]
}
# as many harnesses at once as the machine has cores (each is one process
# that keeps one busy), each for SECONDS; their lines in the order given
. "$(dirname "$0")/../pool.sh"
for f in "$@"; do pool_start fuzz_one "$f"; done
pool_wait
for f in "$@"; do cat "$work/$f.out"; done
exit $pool_failed
