#!/usr/bin/env bash
# make bench: install what the benchmarks compare against, run them, print
# one table (bench/report.py) and the total wall time.
#
#   bench/run.sh WASMBOX [bench.py options: --jsnative PATH --quick ...]
# Everything after WASMBOX goes to bench.py as it is. The other tools are
# found beside WASMBOX (its build directory: mcpload, bench-warm, bench-load,
# python.dir). WB_BENCH_T0 (seconds since the epoch, set by make) is when
# make bench started, so that the wall time includes building.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../runtimes/lib.sh"
t0=${WB_BENCH_T0:-$(date +%s.%N)}
# make has built everything by now: this is the build's share of the wall time
built=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.0f", b-a}')
wasmbox=$(realpath "$1")
build=$(dirname "$wasmbox")
quick=""; jsnative=""
args=("${@:2}")
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
    --quick) quick=--quick ;;
    --jsnative) jsnative=${args[i + 1]} ;;
  esac
done
[ -n "$jsnative" ] || die "bench/run.sh needs --jsnative PATH (make bench passes it)"

# ---- peers (none of this is needed by make test) ----------------------------
pyodide=$(bash "$here/peers/install.sh")
# numpy 1.19.5 built natively from the runtime's source, and Debian's 1.24.2: one directory a line
numpy_peers=$(bash "$here/numpy_peers.sh")
mapfile -t numpy_dirs <<<"$numpy_peers"
# matplotlib 3.3.4 built natively from the runtime's source, on that numpy
mpl_ref=$(bash "$here/../tests/conformance/matplotlib_native.sh")
# code mode's upstream and client: the npm packages make test-mcp pins
mcp_tests="$here/../tests/mcp"
if [ ! -x "$mcp_tests/node_modules/.bin/mcp-server-everything" ] ||
   [ "$mcp_tests/package-lock.json" -nt "$mcp_tests/node_modules/.package-lock.json" ]; then
  log "npm ci: tests/mcp (server-everything and the MCP SDK, for code mode)"
  (cd "$mcp_tests" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
log "peers ready ($(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.0f", b-a}') s since make bench started)"

# ---- measurements ---------------------------------------------------------------
# (started after this point: report.py takes only results written since)
since=$(date +%s)
python3 "$here/bench.py" "$1" "${@:2}"
echo
python3 "$here/mcp.py" "$wasmbox" "$build/mcpload" "$build/bench-warm" $([ -n "$quick" ] && echo 500)
echo
node "$here/codemode.mjs" "$wasmbox" $([ -n "$quick" ] && echo 50)
echo
python3 "$here/store.py" "$build/bench-load" $([ -n "$quick" ] && echo 100)
echo
python3 "$here/peers.py" "$wasmbox" --load "$build/bench-load" --python-dir "$(cat "$build/python.dir")" \
  --pyodide "$pyodide" --jsnative "$jsnative" $quick
echo
python3 "$here/numpy_kernels.py" "$wasmbox" --numpy-ref "${numpy_dirs[0]}" --numpy-debian "${numpy_dirs[1]}" $quick
echo
python3 "$here/matplotlib_plot.py" "$wasmbox" --numpy-ref "${numpy_dirs[0]}" --mpl-ref "$mpl_ref" $quick
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.0f", b-a}')
python3 "$here/report.py" --since "$since" --wall "$wall" --build-dir "$build" --build-seconds "$built"
echo
printf 'total wall time of make bench: %d min %02d s (building, installing peers, measuring)\n' \
  $((wall / 60)) $((wall % 60))
