#!/usr/bin/env bash
# make test-mcp: the MCP server against clients we did not write.
#   1. the official conformance suite (@modelcontextprotocol/conformance) in
#      server mode against wasmbox serve, --requirements 2025-11-25 and
#      2026-07-28, with the expected failures in conformance-*.yml (only
#      checks that need the suite's own fixture tools, prompts, resources);
#   2. the MCP Inspector CLI against both transports (inspector.sh);
#   3. a client on the official SDK, stdio and HTTP (sdk.test.mjs);
#   4. code mode (codemode.test.mjs): wasmbox mcp --upstream with the npm
#      servers server-everything (stdio and Streamable HTTP), server-memory
#      and server-filesystem as upstreams;
#   5. the TypeScript client (clients/typescript): built with tsc, its own
#      tests (node --test) against both transports, and its README's examples
#      run from the packed package installed into a new project;
#   6. the playground page of wasmbox serve in headless Chromium (Debian's,
#      installed here) driven by puppeteer-core (playground.test.mjs);
#      screenshots in build/test-output/playground;
#   7. /metrics read by a Prometheus text-format parser from npm after known
#      calls (metrics.test.mjs).
# npm packages are pinned in package.json/package-lock.json and installed
# here (npm ci); node 22, which the suite and the Inspector need, comes from
# npm too (the "node" package). Prints "N passed, N failed" at the end.
#
# usage: run.sh WASMBOX
set -u
W=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
if ! command -v npm >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
if ! command -v chromium >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if [ ! -x node_modules/.bin/conformance ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null || { echo "npm ci failed"; echo "0 passed, 1 failed"; exit 1; }
fi
export PATH="$here/node_modules/.bin:$PATH"
tmp=$(mktemp -d)
srv=
cleanup() { [ -n "$srv" ] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
passed=0 failed=0

report() { # report NAME PASSED FAILED OUTPUT
  passed=$((passed + $2)); failed=$((failed + $3))
  printf '%-24s %3d passed, %d failed\n' "$1" "$2" "$3"
  [ "$3" -gt 0 ] && printf '%s\n' "$4" | tail -60 | sed 's/^/    /'
}

for rev in 2025-11-25 2026-07-28; do
  WASMBOX_HOME="$tmp/home-$rev" "$W" serve --listen 127.0.0.1:0 2>"$tmp/serve-$rev.err" &
  srv=$!
  for _ in $(seq 100); do grep -q listening "$tmp/serve-$rev.err" && break; sleep 0.1; done
  url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$tmp/serve-$rev.err")
  out=$(conformance server --url "$url" --requirements "$rev" --expected-failures "$here/conformance-$rev.yml" \
          -o "$tmp/results-$rev" 2>&1); rc=$?
  kill "$srv"; wait "$srv" 2>/dev/null; srv=
  total=$(grep -o 'Total: [0-9]* passed, [0-9]* failed' <<<"$out" | tail -1)
  printf 'conformance %s: %s (checks, expected failures included); exit %d\n' "$rev" "${total#Total: }" "$rc"
  if [ "$rc" = 0 ]; then report "conformance $rev" 1 0 ""; else report "conformance $rev" 0 1 "$out"; fi
done

out=$(bash "$here/inspector.sh" "$W" 2>&1)
report inspector "$(grep -c '^ok ' <<<"$out")" "$(grep -c '^not ok ' <<<"$out")" "$(grep -v '^ok ' <<<"$out")"
grep -q '^[0-9]* passed, 0 failed$' <<<"$out" || { [ "$(grep -c '^not ok ' <<<"$out")" = 0 ] && report inspector 0 1 "$out"; }

node_tests() { # node_tests NAME DIR FILE... (WASMBOX, WASMBOX_BIN and SHOTS set): node's test runner
  local name=$1 dir=$2 out p f
  shift 2
  out=$(cd "$dir" && WASMBOX="$W" WASMBOX_BIN="$W" SHOTS="$shots" node --test "$@" 2>&1)
  p=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' <<<"$out"); f=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' <<<"$out")
  [ -n "$p" ] || { p=0; f=1; }
  report "$name" "$p" "${f:-1}" "$out"
}
shots="$(dirname "$W")/test-output/playground"
rm -rf "$shots"

node_tests "sdk client" "$here" sdk.test.mjs
node_tests "code mode" "$here" codemode.test.mjs
ts="$here/../../clients/typescript"
if out=$(cd "$ts" && npm ci --no-audit --no-fund --loglevel=error 2>&1 && npx tsc -p . 2>&1); then
  node_tests "typescript client" "$ts" 'test/*.test.mjs' # (node expands the pattern)
else
  report "typescript client" 0 1 "$out"
fi
node_tests metrics "$here" metrics.test.mjs
node_tests playground "$here" playground.test.mjs
echo "playground screenshots: $shots ($(ls "$shots" 2>/dev/null | wc -l) files)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
