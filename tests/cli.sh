#!/usr/bin/env bash
# CLI tests: `wasmbox run` as a user types it. Prints "ok N - what" or
# "not ok N - what" per check (TAP-like); exit status is the failure count.
set -u
W=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0 bad=0

check() { # check "what" CONDITION...
  local what=$1; shift
  n=$((n + 1))
  if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; bad=$((bad + 1)); fi
}
# run ARGS...: sets out, err, rc
run() { out=$("$W" "$@" 2>"$tmp/err" </dev/null); rc=$?; err=$(cat "$tmp/err"); }
# json FIELD-EXPR: evaluate a Python expression over the parsed JSON in $out
json() { python3 -c "import json,sys; r=json.loads(sys.argv[1]); print($1)" "$out" 2>/dev/null; }
is_one_json_object() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); assert isinstance(d, dict)" "$out" 2>/dev/null; }

run run -c 'print(6*7)'
check "prints 42" [ "$out" = 42 ]
check "exit 0 on success" [ "$rc" = 0 ]

printf 'x = 1\n\nraise ValueError("in file")\n' > "$tmp/job.py"
run run "$tmp/job.py"
check "FILE runs, exception -> exit 1" [ "$rc" = 1 ]
check "traceback names the file" grep -q 'File "job.py", line 3' <<<"$err"

out=$(echo 'print("from stdin")' | "$W" run - 2>/dev/null); rc=$?
check "code from stdin with -" [ "$out" = "from stdin" ] && [ "$rc" = 0 ]

out=$(printf 'a\nb\n' | "$W" run -c 'import sys; print(sys.stdin.read().upper().split())' 2>/dev/null)
check "piped stdin reaches the program" [ "$out" = "['A', 'B']" ]

printf 'file input' > "$tmp/in.txt"
run run --stdin "$tmp/in.txt" -c 'import sys; print(sys.stdin.read())'
check "--stdin FILE" [ "$out" = "file input" ]

run run -c 'import sys; sys.exit(4)'
check "sys.exit(4) -> exit 1" [ "$rc" = 1 ]

run run --timeout 0.5 -c 'while True: pass'
check "timeout -> exit 3" [ "$rc" = 3 ]
check "timeout is explained on stderr" grep -q "timeout" <<<"$err"

run run --memory 64 -c 'x = bytearray(100 << 20)'
check "memory limit -> exit 3" [ "$rc" = 3 ]
check "  ... said on stderr with the error's type (MemoryError has no message)" \
  grep -q "^wasmbox: out_of_memory: MemoryError$" <<<"$err"
# the limit: 1 MB above what the base snapshot holds, then 800 kB of environment
run run --json -c 'pass'
base=$(( $(json "r['memory_peak_bytes']") >> 20 ))
big=$(head -c 100000 /dev/zero | tr '\0' x); envs=(); for i in 1 2 3 4 5 6 7 8; do envs+=(--env "V$i=$big"); done
run run --memory $((base + 1)) "${envs[@]}" -c 'print(1)'
check "an environment too big to start in the memory limit: exit 2 saying so (was an internal error)" \
  [ "$rc" = 2 ] && grep -q "does not start within a memory limit of $((base + 1)) MB" <<<"$err"
run run --memory $((base - 1)) -c 'print(1)'
check "a limit below the base snapshot: exit 2 naming what the runtime needs" \
  [ "$rc" = 2 ] && grep -q "a memory limit of $((base - 1)) MB is below the $((base + 1)) MB the python runtime needs" <<<"$err"

run run --max-output 10 -c 'print("y" * 100)'
check "cut output -> exit 3" [ "$rc" = 3 ]
check "cut output is reported" grep -q "stdout truncated: 101 bytes written, first 10 kept" <<<"$err"
check "cut output keeps the head" [ "$out" = "yyyyyyyyyy" ]

run run --fuel 1000000 -c 'print("before")
while True: pass'
check "out of fuel -> exit 3" [ "$rc" = 3 ]
check "out of fuel is explained on stderr" grep -q "out_of_fuel: the code used up its instruction budget (fuel) of 1000000" <<<"$err"
check "  ... output before it is kept" [ "$out" = before ]
run run --json --fuel 1000000 -c 'while True: pass'
check "--json out_of_fuel status" [ "$(json "r['status']")" = out_of_fuel ]
check "--json out_of_fuel uses the whole budget" [ "$(json "r['fuel_used']")" = 1000000 ]
check "--json out_of_fuel error type" [ "$(json "r['error']['type']")" = OutOfFuel ]
fuels=()
for i in 1 2 3; do
  run run --json -c 'print(sum(i * i for i in range(10000)))'
  fuels+=("$(json "r['fuel_used']")")
done
same_fuel() { [ "$1" -gt 0 ] && [ "$1" = "$2" ] && [ "$2" = "$3" ]; }
check "the same code uses the same fuel in every process (${fuels[*]})" same_fuel "${fuels[@]}"
run run --json --fuel "${fuels[0]}" -c 'print(sum(i * i for i in range(10000)))'
check "  ... and that much fuel is enough" [ "$(json "r['status']")" = ok ]
run run --json --fuel "$((fuels[0] - 1))" -c 'print(sum(i * i for i in range(10000)))'
check "  ... one unit less is not" [ "$(json "r['status']")" = out_of_fuel ]

for bad_args in "--bogus" "--timeout" "--timeout abc" "--timeout -1" "--memory 0" "--memory 5000" \
                "--fuel" "--fuel 0" "--fuel -5" "--fuel abc" "--fuel 9223372036854775808" \
                "-c 1 $tmp/job.py" "$tmp/missing.py" "--lang cobol -c 1" "--env 1BAD=x -c 1" "--env NO_SUCH_VAR_X -c 1" ""; do
  # shellcheck disable=SC2086
  run run $bad_args
  check "usage error for 'run $bad_args' -> exit 2" [ "$rc" = 2 ]
done
run frobnicate
check "unknown command -> exit 2" [ "$rc" = 2 ]

run run --json -c 'print("hi")'
check "--json prints one object" is_one_json_object
check "--json status ok" [ "$(json "r['status']")" = ok ]
check "--json stdout" [ "$(json "r['stdout']")" = hi ]
check "--json has every result field" [ "$(json "sorted(r)")" = "['duration_ms', 'error', 'exit_code', 'files_changed', 'fuel_used', 'memory_peak_bytes', 'session_id', 'status', 'stderr', 'stderr_bytes', 'stderr_truncated', 'stdout', 'stdout_bytes', 'stdout_truncated']" ]

run run --json -c 'import nonexistent_mod'
check "--json error object" [ "$(json "r['error']['type']")" = ModuleNotFoundError ]
check "--json error has guidance" [ "$(json "len(r['error']['guidance'])")" = 1 ]
check "--json error exit 1" [ "$rc" = 1 ]

run run --json --timeout 0.3 -c 'while 1: pass'
check "--json timeout status" [ "$(json "r['status']")" = timeout ]
check "--json timeout is one object" is_one_json_object
check "--json timeout: a guidance entry with its type and docs" \
  [ "$(json "[(e['type'], e['docs']) for e in r['error']['guidance_entries']]")" = "[('timeout', 'docs/cli.md#guidance')]" ]
run run --json -c 'import scipy'
check "--json a missing package: entry package_not_installed, docs on Python packages" \
  [ "$(json "[(e['type'], e['docs'], e['message'] == r['error']['guidance'][0]) for e in r['error']['guidance_entries']]")" \
    = "[('package_not_installed', 'docs/runtimes.md#python-packages', True)]" ]
# every docs link of guidance names a section of a document (GitHub's anchors)
missing=$(python3 - "$(dirname "$0")/.." <<'PY'
import os, re, sys
root = sys.argv[1]
for page, a in sorted(set(re.findall(r'"([a-z/]+\.md)#([a-z0-9-]+)"', open(root + "/src/api/guidance.c").read()))):
    text = open(root + "/" + page).read() if os.path.exists(root + "/" + page) else ""
    heads = {re.sub(r"[^a-z0-9 _-]", "", h.strip().lower()).replace(" ", "-")
             for h in re.findall(r"^#+ (.*)$", text, re.M)}
    if a not in heads:
        print(page + "#" + a)
PY
)
check "every guidance docs link names a section of a document${missing:+ (missing: $missing)}" [ -z "$missing" ]

run run --json --timeout nope -c 1
check "--json usage error is one object" is_one_json_object
check "--json usage error names it" [ "$(json "r['error']['type']")" = UsageError ]

mkdir "$tmp/ws"
run run --workspace "$tmp/ws" --json -c 'open("out.csv", "w").write("a,b\n")'
check "--workspace: file lands on the host" [ "$(cat "$tmp/ws/out.csv")" = "a,b" ]
check "files_changed lists it" [ "$(json "r['files_changed']")" = "['/app/out.csv']" ]
run run --workspace "$tmp/ws" -c 'print(open("/app/out.csv").read().strip())'
check "--workspace: a later call reads it" [ "$out" = "a,b" ]

# plots come back: savefig and plt.show() (which saves each figure as
# /app/figure_N.png and closes it) write PNGs in the workspace
mkdir "$tmp/plots"
run run --workspace "$tmp/plots" --json -c 'import matplotlib.pyplot as plt
plt.plot([1, 2, 3], [3, 1, 2]); plt.savefig("p.png"); plt.show()
plt.figure(); plt.bar([1, 2], [2, 1]); plt.show(); print(plt.get_fignums())'
check "a 3-line plot: savefig and two plt.show() write three PNGs" \
  [ "$(json "sorted(r['files_changed'])")" = "['/app/figure_1.png', '/app/figure_2.png', '/app/p.png']" ]
check "plt.show() closes what it showed" [ "$(json "r['stdout']")" = "[]" ]
check "the PNG is 640x480" [ "$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(24); print(d[:8] == b"\x89PNG\r\n\x1a\n", struct.unpack(">II", d[16:24]))' "$tmp/plots/figure_1.png")" = "True (640, 480)" ]

export WASMBOX_CLI_SECRET=s3cret
run run -c 'import os; print(os.environ.get("WASMBOX_CLI_SECRET"))'
check "host environment is invisible" [ "$out" = None ]
run run --env WASMBOX_CLI_SECRET --env MODE=fast -c 'import os; print(os.environ["WASMBOX_CLI_SECRET"], os.environ["MODE"])'
check "--env copies and sets variables" [ "$out" = "s3cret fast" ]

# time the command alone: the pipeline itself lasts as long as sleep does
read -r rc took < <(sleep 3 | { s=$(date +%s.%N); "$W" run --timeout 0.5 -c 'print(1)' >/dev/null 2>&1
                               echo "$? $(python3 -c "print(round($(date +%s.%N) - $s, 1))")"; })
check "an unclosed stdin pipe cannot hang the command (exit 2)" [ "$rc" = 2 ]
check "  ... it gives up at the timeout ($took s)" python3 -c "assert $took < 2.9"
# a FIFO nobody writes to, as FILE and as --stdin: opening it once blocked
# before the timeout started
mkfifo "$tmp/fifo"
for how in FILE --stdin; do
  args=("$tmp/fifo"); [ "$how" = FILE ] || args=(--stdin "$tmp/fifo" -c pass)
  s=$(date +%s.%N)
  out=$(timeout 10 "$W" run --timeout 0.5 "${args[@]}" 2>&1); rc=$?
  took=$(python3 -c "print(round($(date +%s.%N) - $s, 1))")
  check "a FIFO without a writer as $how: exit 2 at the timeout ($took s)" \
    [ "$rc" = 2 ] && python3 -c "assert $took < 2.9" && grep -q "fifo: input was not closed within 0.5 s" <<<"$out"
done
run run <(echo 'print("substituted")')
check "a pipe from process substitution is read" [ "$out" = substituted ]
run run "$tmp"
check "a directory as FILE: exit 2 naming it" [ "$rc" = 2 ] && grep -q "$tmp: cannot read input: Is a directory" <<<"$err"

# sessions, in their own state directory
export WASMBOX_HOME="$tmp/home"
run session new
sid=$out
check "session new prints an id" [ "$rc" = 0 ] && [ -n "$sid" ]
run run --session "$sid" -c 'x = 6 * 7; open("kept.txt", "w").write("yes")'
check "a call in the session" [ "$rc" = 0 ]
run run --session "$sid" -c 'print(x, open("kept.txt").read())'
check "the next call sees its variables and files" [ "$out" = "42 yes" ]
run run --session "$sid" --json -c 'x = 0
while True: pass' --timeout 0.3
check "a timed-out session call is rolled back" [ "$(json "r['session_rolled_back']")" = True ]
run run --session "$sid" -c 'print(x)'
check "  ... and left no trace" [ "$out" = 42 ]
run session fork "$sid"
fid=$out
run run --session "$fid" -c 'x += 1; print(x)'
check "fork: the copy changes" [ "$out" = 43 ]
run run --session "$sid" -c 'print(x)'
check "fork: the original does not" [ "$out" = 42 ]
run session checkpoint "$sid"
cid=$out
run run --session "$sid" -c 'x = -1'
run session restore "$sid" "$cid"
run run --session "$sid" -c 'print(x)'
check "checkpoint and restore" [ "$out" = 42 ]
run session list --json
check "session list --json" [ "$(json "len(r['sessions'])")" = 2 ]
run session rm "$fid"
check "session rm" [ "$rc" = 0 ]
run run --session "$fid" -c 'print(1)'
check "a removed session is gone (exit 2)" [ "$rc" = 2 ]
run run --session "$sid" --workspace "$tmp" -c 'print(1)'
check "--workspace with --session is bad usage" [ "$rc" = 2 ]
run session frobnicate
check "unknown session command -> exit 2" [ "$rc" = 2 ]
envs=(); for i in $(seq 256); do envs+=(--env "V$i=$i"); done
run session new "${envs[@]}"
eid=$out
check "session new takes 256 --env" [ "$rc" = 0 ]
run run --session "$eid" -c 'import os; print(len(os.environ), os.environ["V256"])'
check "  ... and the session sees them all" [ "$out" = "256 256" ]
run session new "${envs[@]}" --env V257=257
check "257 is bad usage, said so (the CLI once wrote past its array here)" \
  [ "$rc" = 2 ] && grep -q "at most 256 environment entries" <<<"$err"
unset WASMBOX_HOME

run run --help
check "run --help" [ "$rc" = 0 ] && grep -q -- "--workspace" <<<"$out"
check "run --help explains --fuel" grep -q -- "--fuel N" <<<"$out"
run version
check "version lists python" grep -q "python" <<<"$out"
check "version lists javascript" grep -q "javascript" <<<"$out"

# ---- JavaScript -------------------------------------------------------------
run run --lang js -c 'console.log(6*7)'
check "js: prints 42" [ "$out" = 42 ] && [ "$rc" = 0 ]
run run --lang javascript -c 'console.log([1, "a", { b: null }])'
check "--lang javascript, node-like output" [ "$out" = "[ 1, 'a', { b: null } ]" ]

printf 'const x = 1;\n\nnull.f();\n' > "$tmp/job.js"
run run "$tmp/job.js"
check "a .js FILE runs as JavaScript, error -> exit 1" [ "$rc" = 1 ]
check "  ... the stack names the file and line" grep -q '(job.js:3:' <<<"$err"

mkdir "$tmp/jsws"
printf 'export const k = 7;\n' > "$tmp/jsws/lib.mjs"
printf "import { k } from './lib.mjs';\nconsole.log(k * 6);\n" > "$tmp/main.mjs"
run run --workspace "$tmp/jsws" "$tmp/main.mjs"
check "a .mjs FILE is a module importing from /app" [ "$out" = 42 ]

out=$(echo '[1, 2, 3]' | "$W" run --lang js -c 'console.log(JSON.parse(readStdin()).reduce((a, b) => a + b))' 2>/dev/null)
check "js: piped stdin reaches readStdin()" [ "$out" = 6 ]
out=$(echo 'console.log("from stdin")' | "$W" run --lang js - 2>/dev/null); rc=$?
check "js: code from stdin with -" [ "$out" = "from stdin" ] && [ "$rc" = 0 ]

run run --lang js -c 'process.exit(5)'
check "js: process.exit(5) -> exit 1" [ "$rc" = 1 ]
run run --lang js --timeout 0.5 -c 'for (;;) {}'
check "js: timeout -> exit 3" [ "$rc" = 3 ]
run run --lang js --memory 16 -c 'new ArrayBuffer(64 << 20)'
check "js: memory limit -> exit 3" [ "$rc" = 3 ]
run run --lang js --max-output 10 -c 'console.log("y".repeat(100))'
check "js: cut output -> exit 3" [ "$rc" = 3 ]
run run --lang js --fuel 1000000 -c 'for (;;) {}'
check "js: out of fuel -> exit 3" [ "$rc" = 3 ]
run run --lang js --json --fuel 1000000 -c 'for (;;) {}'
check "js: --json out_of_fuel status and fuel_used" \
  [ "$(json "r['status'], r['fuel_used']")" = "out_of_fuel 1000000" ]

run run --lang js --json -c 'null.x'
check "js: --json error object" [ "$(json "r['error']['type']")" = TypeError ]
check "js: --json error exit 1" [ "$rc" = 1 ]
run run --lang js --json -c 'require("left-pad")'
check "js: require() of a package gets guidance naming the built-in ones" \
  [ "$(json "r['error']['guidance'][0][:60]")" = "The npm package 'left-pad' is not built in, and packages can" ] &&
  json "r['error']['guidance'][0]" | grep -q "lodash, marked"
check "js: its guidance entry has a type and a docs link" \
  [ "$(json "[(e['type'], e['docs']) for e in r['error']['guidance_entries']]")" = "[('npm_package_missing', 'docs/runtimes.md#javascript')]" ]
run run --lang js --json --workspace "$tmp/jsws" -c 'writeJson("out.json", { ok: true })'
check "js: files_changed lists what writeJson wrote" [ "$(json "r['files_changed']")" = "['/app/out.json']" ]
check "js: the file lands on the host" [ "$(cat "$tmp/jsws/out.json")" = '{
  "ok": true
}' ]

run run --quota 1 --json -c 'open("/app/f", "wb").write(b"x" * 2000000)'
check "--quota: writing past it is an error" [ "$(json "r['error']['type']")" = OSError ]
check "--quota: the guidance names the quota" grep -q 'quota' <<<"$(json "r['error']['guidance']")"
run run --quota x -c 'pass'
check "--quota rejects a non-number" [ "$rc" = 2 ]

# Every option that --help shows with a value, given last with none: a usage
# error naming it (--quota once crashed here), never a crash.
# missing_value CMD [ARGS...]: the options of CMD's help that fail that way
missing_value() {
  local cmd=$1 o; shift
  local opts; opts=$("$W" "$cmd" --help | grep -oE -- '(-c|--[a-z-]+) [A-Z][A-Z_=:]*' | cut -d' ' -f1 | sort -u)
  for o in $opts; do
    run "$cmd" "$@" "$o"
    [ "$rc" = 2 ] && grep -q -- "$o needs a value" <<<"$err" && echo "$o"
  done
}
# an option given twice is refused, not silently overridden (--env and
# --mount repeat by design)
for o in "-c pass" "--lang python" "--timeout 5" "--memory 64" "--fuel 100" "--max-output 10" "--quota 1" \
         "--workspace $tmp" "--stdin /dev/null" "--session x"; do
  # shellcheck disable=SC2086
  run run -c 'print(1)' $o $o
  check "run: ${o%% *} twice is bad usage" [ "$rc" = 2 ] && grep -q -- "${o%% *} is given twice" <<<"$err"
done
run run --mount "$tmp:/data" --mount "/usr:/data" -c 'print(1)'
check "run: two mounts at one guest path are bad usage" [ "$rc" = 2 ] && grep -q "mount path '/data' is given twice" <<<"$err"
run session new --lang python --lang javascript
check "session new: --lang twice is bad usage" [ "$rc" = 2 ] && grep -q -- "--lang is given twice" <<<"$err"

# numbers are plain decimals: no blanks, signs, hexadecimal, inf or nan
# (" -1" once wrapped to 2^64-1 and was refused for the wrong reason)
bad_numbers=0
for v in " 1" "+5" "-1" "0x10" "inf" "nan" "1 " ""; do
  run run --timeout "$v" -c 'print(1)'; [ "$rc" = 2 ] || bad_numbers=$((bad_numbers + 1))
  run run --max-output "$v" -c 'print(1)'
  [ "$rc" = 2 ] && grep -q -- "--max-output wants a positive number of bytes" <<<"$err" || bad_numbers=$((bad_numbers + 1))
done
check "numbers with blanks, signs, hex, inf or nan are refused, each with its option's message" [ "$bad_numbers" = 0 ]
run run --timeout .5 --max-output 100 -c 'print(1)'
check "  ... while .5 and 100 are taken" [ "$rc" = 0 ] && [ "$out" = 1 ]

ran=$(missing_value run | wc -l)
check "run: all 16 options with a value refuse a missing one (exit 2, named)" [ "$ran" = 16 ]
ran=$(missing_value session new | wc -l)
check "session new: all 7 options with a value refuse a missing one" [ "$ran" = 7 ]

# --packages: the operator's pure-Python packages on sys.path
mkdir -p "$tmp/pk1/hello" "$tmp/pk2"
printf 'def greet(n):\n    return "hello " + n\n' > "$tmp/pk1/hello/__init__.py"
printf 'X = 2\n' > "$tmp/pk2/second.py"
run run --packages "$tmp/pk1" --packages "$tmp/pk2" -c 'import hello, second; print(hello.greet("you"), second.X)'
check "run --packages DIR (twice): both import" [ "$rc" = 0 ] && [ "$out" = "hello you 2" ]
run run --packages "$tmp/nope" -c 'pass'
check "run --packages: a missing directory is bad usage" [ "$rc" = 2 ] && grep -q "is not a directory" <<<"$err"
run run --lang js --packages "$tmp/pk1" -c 'console.log(1)'
check "run --packages with JavaScript is bad usage" [ "$rc" = 2 ] && grep -q "Python's" <<<"$err"
run run --packages "$tmp/pk1" --packages "$tmp/pk1" --packages "$tmp/pk1" --packages "$tmp/pk1" --packages "$tmp/pk1" -c 'pass'
check "run --packages a fifth time is bad usage" [ "$rc" = 2 ] && grep -q "more than 4 times" <<<"$err"
WASMBOX_HOME="$tmp/home" run session new --packages "$tmp/pk1"
sid=$out
WASMBOX_HOME="$tmp/home" run run --session "$sid" -c 'import hello; print(hello.greet("session"))'
check "session new --packages: its calls import them" [ "$rc" = 0 ] && [ "$out" = "hello session" ]
mkdir -p "$tmp/wh"
python3 - "$tmp/wh" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1] + '/cli_pkg-1.0-py3-none-any.whl', 'w') as z:
    z.writestr('cli_pkg.py', 'X = 5\n')
    z.writestr('cli_pkg-1.0.dist-info/METADATA', 'Metadata-Version: 2.1\nName: cli-pkg\nVersion: 1.0\nRequires-Dist: six\n')
    z.writestr('cli_pkg-1.0.dist-info/WHEEL', 'Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n')
    z.writestr('cli_pkg-1.0.dist-info/RECORD', '')
PY
WASMBOX_HOME="$tmp/home" run session install "$sid" cli-pkg --wheelhouse "$tmp/wh"
check "session install: prints what it installed and what was built in" [ "$rc" = 0 ] && [ "$out" = "cli_pkg 1.0
six 1.16.0 (built in)" ]
WASMBOX_HOME="$tmp/home" run run --session "$sid" -c 'import cli_pkg; print(cli_pkg.X)'
check "session install: the session imports it" [ "$out" = 5 ]
WASMBOX_HOME="$tmp/home" run session install "$sid" cli-pkg
check "session install without an index is bad usage saying so" [ "$rc" = 2 ] && grep -q "no package index" <<<"$err"
run run --deny-imports socket,subprocess --deny-builtins eval,exec --json -c $'print(1)\nimport socket\neval("1")'
check "--deny-imports/--deny-builtins: every violation with its line, before anything runs" \
  [ "$(json "(r['error']['type'], r['error']['message'], r['stdout'])")" = \
    "('ImportPolicyError', \"line 2: import of 'socket' is not allowed; line 3: eval is not allowed\", '')" ]
run run --allow-imports json,math -c 'import json, math; print(json.dumps(math.pi > 3))'
check "--allow-imports: the allowed ones import" [ "$rc" = 0 ] && [ "$out" = true ]
run run --allow-imports '' -c 'import json'
check "--allow-imports '': nothing may be imported" [ "$rc" = 1 ] && grep -q "ImportPolicyError" <<<"$err"
run run --no-files -c 'open("x", "w")'
check "--no-files: writing a file fails with EROFS" [ "$rc" = 1 ] && grep -q "Read-only file system" <<<"$err"
run run --lang js --deny-imports fs -c 'console.log(1)'
check "an import policy with JavaScript is bad usage" [ "$rc" = 2 ] && grep -q "Python's" <<<"$err"
WASMBOX_HOME="$tmp/home" run session install "$sid" --wheelhouse "$tmp/wh"
check "session install without a requirement is bad usage" [ "$rc" = 2 ]

run doctor
check "doctor: every jail layer is active here" [ "$rc" = 0 ]
check "doctor: lists seccomp and landlock" grep -q 'seccomp *on' <<<"$out"
run doctor --json
check "doctor --json: one object, all active" [ "$(json "r['all_active'] and len(r['layers'])")" = 14 ]
run doctor --bogus
check "doctor rejects unknown options" [ "$rc" = 2 ]

# Sessions will call wasmbox_run again on one instance; the guest glue must
# keep globals between runs. jsnative drives the same glue natively.
J="$(cat "$(dirname "$W")/javascript.dir")/jsnative"
out=$("$J" -c 'var a = 20; let b = 1; function f() { return a + b; }' -c 'b += 21; console.log(f(), a + b)' 2>&1)
check "js glue: a second run sees the first run's globals" [ "$out" = "42 42" ]
out=$("$J" -c 'null.x' -c 'console.log("still alive")' 2>/dev/null); rc=$?
check "js glue: a run after an uncaught error works" [ "$out" = "still alive" ] && [ "$rc" = 0 ]

exit "$bad"
