#!/usr/bin/env bash
# python_client.sh REPO BUILD: the Python client (clients/python) as a user
# gets it: `pip install` (no index: it builds with the standard library) into
# a new virtual environment, its unittest suite against BUILD's
# libwasmbox.so.0, and its README's examples run, each printing what its
# `# ...` comments say. Prints "ok N - what" / "not ok N - what".
set -u
repo=$1 build=$(cd "$2" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
check() { # check "what" CONDITION...
  local what=$1; shift
  n=$((n + 1))
  if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; fi
}
py=/usr/bin/python3
if ! "$py" -m venv "$tmp/venv" >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null 2>&1
  rm -rf "$tmp/venv"; "$py" -m venv "$tmp/venv"
fi
"$tmp/venv/bin/pip" install --no-index --quiet "$repo/clients/python" >"$tmp/pip.log" 2>&1
check "pip install ./clients/python (no index)" [ $? = 0 ]
[ -f "$tmp/venv/lib/python3.11/site-packages/wasmbox/py.typed" ]
check "installed with its type information (py.typed)" [ $? = 0 ]
export WASMBOX_LIBRARY=$build/libwasmbox.so.0 WASMBOX_HOME=$tmp/home WASMBOX_INCLUDE=$repo/include
cd "$tmp" || exit 1 # the installed copy, not the source tree
"$tmp/venv/bin/python" "$repo/clients/python/tests/test_wasmbox.py" 2>"$tmp/unittest.log" | sed "s/^\(\(not \)\?ok\) [0-9]* - /\1 - unittest: /"
grep -q '^OK' "$tmp/unittest.log" || { echo "not ok - unittest:"; sed 's/^/    /' "$tmp/unittest.log" | tail -40; }
# the README's examples
"$tmp/venv/bin/python" - "$repo/clients/python/README.md" <<'PY' >"$tmp/readme.out" 2>&1
import re, subprocess, sys
text = open(sys.argv[1]).read()
for i, block in enumerate(re.findall(r"```python\n(.*?)```", text, re.S), 1):
    out = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=120)
    wants = re.findall(r"^\s*print\(.*\)\s+# (.*)$", block, re.M)
    ok = out.returncode == 0 and all(w in out.stdout for w in wants) and wants
    print("%s - README example %d prints what it says%s" % ("ok" if ok else "not ok", i,
          "" if ok else ": %r / %r" % (out.stdout[-300:], out.stderr[-300:])))
PY
cat "$tmp/readme.out"
grep -q 'README example' "$tmp/readme.out" || echo "not ok - the README's examples did not run: $(tail -3 "$tmp/readme.out")"
exit 0
