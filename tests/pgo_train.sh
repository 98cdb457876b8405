#!/usr/bin/env bash
# pgo_train.sh TRAINER: the training driver of profile-guided builds
# (tools/pgo_train.c, runtimes/native.sh --train). A training whose calls
# fail must fail the build, so that no profile of a broken run steers it.
set -u
trainer=$1
n=0
check() {  # check DESCRIPTION COMMAND...: ok when COMMAND succeeds
  local what=$1; shift
  n=$((n + 1))
  if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "mounted" > "$tmp/data.txt"
cat > "$tmp/ok.py" <<'PY'
import os
arg = os.environ['WB_TRAIN_ARG']
assert arg in ('first', 'second'), arg
assert open('/train/data.txt').read() == 'mounted\n'
assert len(os.environ) == 1, dict(os.environ)  # nothing of the host's
PY
cat > "$tmp/fails.py" <<'PY'
import os
if os.environ['WB_TRAIN_ARG'] == 'bad':
    raise ValueError('training call failed on purpose')
PY
echo 'console.log(6 * 7)' > "$tmp/ok.js"

"$trainer" python "$tmp:/train" "$tmp/ok.py" first second 2>"$tmp/err"; rc=$?
check "each argument runs the program, mount and environment as given" \
  test "$rc" -eq 0 -a "$(grep -c ': ok, ' "$tmp/err")" -eq 2
check "  once each, in order" \
  test "$(grep -o '^pgo_train: [a-z]*' "$tmp/err" | tr '\n' ' ')" = "pgo_train: first pgo_train: second "
"$trainer" python "$tmp:/train" "$tmp/fails.py" good bad later 2>"$tmp/err"; rc=$?
check "a failing call fails the run (exit 1)" test "$rc" -eq 1
check "the failure is reported with its exception" grep -q "ValueError: training call failed on purpose" "$tmp/err"
check "the calls after a failure still run" grep -q "^pgo_train: later: ok" "$tmp/err"
"$trainer" javascript "$tmp:/train" "$tmp/ok.js" one 2>"$tmp/err"; rc=$?
check "the language argument is honoured (javascript)" test "$rc" -eq 0
"$trainer" javascript "$tmp:/train" "$tmp/ok.py" one 2>"$tmp/err"; rc=$?
check "python code in javascript fails" test "$rc" -eq 1
"$trainer" python "$tmp" "$tmp/ok.py" first 2>"$tmp/err"; rc=$?
check "a mount without GUEST_DIR is a usage error (exit 2)" test "$rc" -eq 2
"$trainer" python "$tmp:/train" "$tmp/ok.py" 2>"$tmp/err"; rc=$?
check "no argument to train on is a usage error (exit 2)" test "$rc" -eq 2
"$trainer" python "$tmp:/train" "$tmp/missing.py" first 2>"$tmp/err"; rc=$?
check "an unreadable program fails (exit 1)" test "$rc" -eq 1 -a -n "$(grep 'cannot read' "$tmp/err")"
"$trainer" cobol "$tmp:/train" "$tmp/ok.py" first 2>"$tmp/err"; rc=$?
check "an unknown language fails (exit 1)" test "$rc" -eq 1
