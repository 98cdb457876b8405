#!/usr/bin/env bash
# The MCP Inspector CLI (@modelcontextprotocol/inspector, a client we did not
# write) against wasmbox mcp (stdio) and wasmbox serve (HTTP, both protocol
# eras): tools/list, execute_code, a session flow and error cases, each
# asserted on its --format json output. Prints "ok N - what" per check and
# "N passed, N failed" at the end.
#
# usage: inspector.sh WASMBOX   (run from tests/mcp after npm ci)
set -u
W=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
export PATH="$here/node_modules/.bin:$PATH"
tmp=$(mktemp -d)
export WASMBOX_HOME="$tmp/home" MCP_CATALOG_PATH="$tmp/catalog.json" MCP_CLIENT_CONFIG_PATH="$tmp/client.json"
srv=
cleanup() { [ -n "$srv" ] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
n=0 bad=0
check() { # check "what" CONDITION...
  local what=$1; shift
  n=$((n + 1))
  if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; bad=$((bad + 1)); fi
}
# py EXPR: a Python expression over the JSON in $out (as r), printed
py() { python3 -c "import json,sys; r=json.loads(sys.argv[1]); print($1)" "$out" 2>/dev/null; }

"$W" serve --listen 127.0.0.1:0 2>"$tmp/serve.err" &
srv=$!
for _ in $(seq 100); do grep -q listening "$tmp/serve.err" && break; sleep 0.1; done
url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$tmp/serve.err")

# inspect ERA TARGET... -- ARGS: sets out, err, rc
inspect() {
  local era=$1; shift
  out=$(mcp-inspector --cli --format json --protocol-era "$era" "$@" 2>"$tmp/err"); rc=$?
  err=$(cat "$tmp/err")
}

for target in stdio http-legacy http-modern; do
  case $target in
    stdio) era=legacy; set -- "$W" mcp ;;
    http-legacy) era=legacy; set -- "$url" ;;
    http-modern) era=modern; set -- "$url" ;;
  esac
  inspect $era "$@" --method tools/list
  check "$target: tools/list has 14 tools with schemas" \
    [ "$(py "len([t for t in r['result']['tools'] if t['inputSchema']['type'] == 'object' and t['outputSchema']])")" = 14 ]
  inspect $era "$@" --method tools/call --tool-name execute_code --tool-arg 'code=print(6*7)'
  check "$target: execute_code prints 42" [ "$(py "r['result']['structuredContent']['stdout']")" = 42 ]
  check "$target: execute_code exit 0, isError false" [ "$rc" = 0 ] && [ "$(py "r['result']['isError']")" = False ]
  inspect $era "$@" --method tools/call --tool-name execute_code --tool-arg 'language=javascript' 'code=console.log(2**10)'
  check "$target: execute_code JavaScript" [ "$(py "r['result']['structuredContent']['stdout']")" = 1024 ]
  # a session flow
  inspect $era "$@" --method tools/call --tool-name create_session --tool-arg language=python
  sid=$(py "r['result']['structuredContent']['session_id']")
  check "$target: create_session" [ -n "$sid" ]
  inspect $era "$@" --method tools/call --tool-name execute_code --tool-args-json "{\"session_id\":\"$sid\",\"code\":\"x = 6\\nopen('x.txt','w').write(str(x))\"}"
  inspect $era "$@" --method tools/call --tool-name execute_code --tool-args-json "{\"session_id\":\"$sid\",\"code\":\"print(x * 7)\"}"
  check "$target: the session keeps x" [ "$(py "r['result']['structuredContent']['stdout']")" = 42 ]
  inspect $era "$@" --method tools/call --tool-name read_file --tool-args-json "{\"session_id\":\"$sid\",\"path\":\"x.txt\"}"
  check "$target: read_file" [ "$(py "r['result']['structuredContent']['content']")" = 6 ]
  inspect $era "$@" --method resources/read --uri "wasmbox://session/$sid/app/x.txt"
  check "$target: resources/read of a session file" [ "$(py "r['result']['contents'][0]['text']")" = 6 ]
  inspect $era "$@" --method tools/call --tool-name destroy_session --tool-args-json "{\"session_id\":\"$sid\"}"
  check "$target: destroy_session" [ "$(py "r['result']['structuredContent']['destroyed']")" = True ]
  # errors
  inspect $era "$@" --method tools/call --tool-name execute_code --tool-arg 'code=1/0'
  check "$target: a guest exception is isError with its type" \
    [ "$(py "r['result']['structuredContent']['error']['type']")" = ZeroDivisionError ] && grep -q tool_is_error <<<"$err"
  inspect $era "$@" --method tools/call --tool-name execute_code --tool-args-json '{"code":"print(1)","timeout_seconds":-5}'
  check "$target: an invalid argument is isError naming it" grep -q timeout_seconds <<<"$out"
  inspect $era "$@" --method tools/call --tool-name execute_code --tool-args-json "{\"session_id\":\"$sid\",\"code\":\"1\"}"
  check "$target: a destroyed session is isError" [ "$(py "r['result']['isError']")" = True ]
  inspect $era "$@" --method tools/call --tool-name no_such_tool
  check "$target: an unknown tool fails (exit $rc)" [ "$rc" != 0 ] && grep -q no_such_tool <<<"$err"
  inspect $era "$@" --method prompts/get --prompt-name sandbox_task --prompt-args task=sum
  check "$target: prompts/get" grep -q 'Task: sum' <<<"$out"
done

echo "$((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
