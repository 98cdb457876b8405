#!/usr/bin/env bash
# cluster.sh start|stop DIR [N] [PORT]: a local cluster for trying wasmbox
# behind a load balancer: N (3) `wasmbox serve` on loopback ports after PORT
# (8800), with their sessions in PostgreSQL (packaging/deploy/pg.sh, on PORT + 100) and
# a session key and a tokens file in common, with HAProxy (Debian's) on
# 127.0.0.1:PORT in front, health-checking /healthz. Everything lives in DIR:
# pg/ (the database), homeK/ (server K's cache), store (the store's URL),
# tokens, session.key, serverK.log (access logs), serverK.err, haproxy.cfg;
# `stop` ends it all. WASMBOX: the binary (default build/wasmbox).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cmd=${1:-} dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: cluster.sh start|stop DIR [N] [PORT]" >&2; exit 2; }
n=${3:-3} port=${4:-8800}
W=${WASMBOX:-$here/../../build/wasmbox}

stop() {
  for f in "$dir"/*.pid; do
    [ -f "$f" ] || continue
    kill "$(cat "$f")" 2>/dev/null
    rm -f "$f"
  done
  [ -d "$dir/pg" ] && bash "$here/pg.sh" stop "$dir"
}

case $cmd in
stop) stop; exit 0 ;;
start) ;;
*) echo "cluster.sh: unknown command '$cmd'" >&2; exit 2 ;;
esac

# (in a subshell: lib.sh turns on set -e, which this script's own tests of
# exit statuses must not run under)
command -v haproxy >/dev/null || (. "$here/../../runtimes/lib.sh" && wb_apt_install haproxy) || exit 1
mkdir -p "$dir"
stop
bash "$here/pg.sh" start "$dir" $((port + 100)) > "$dir/store" || { stop; exit 1; }
store=$(cat "$dir/store")
umask 077
[ -f "$dir/session.key" ] || head -c 48 /dev/urandom > "$dir/session.key"
if [ ! -f "$dir/tokens" ]; then
  printf 'agent %s\n' "$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" > "$dir/tokens"
fi
servers=
for k in $(seq "$n"); do
  p=$((port + k))
  WASMBOX_HOME=$dir/home$k "$W" serve --listen "127.0.0.1:$p" --store "$store" --tokens "$dir/tokens" \
    --session-key "$dir/session.key" --access-log "$dir/server$k.log" </dev/null >/dev/null 2>"$dir/server$k.err" &
  echo $! > "$dir/server$k.pid"
  servers="$servers    server s$k 127.0.0.1:$p check\n"
done
for k in $(seq "$n"); do
  for _ in $(seq 100); do grep -q listening "$dir/server$k.err" && break; sleep 0.1; done
  grep -q listening "$dir/server$k.err" || { echo "server $k did not start:"; cat "$dir/server$k.err"; stop; exit 1; }
done
sed -e "s|@LISTEN@|127.0.0.1:$port|" -e "s|@SERVERS@|$servers|" "$here/haproxy.cfg" > "$dir/haproxy.cfg"
haproxy -f "$dir/haproxy.cfg" -D -p "$dir/haproxy.pid" </dev/null >/dev/null 2>"$dir/haproxy.err" || { cat "$dir/haproxy.err"; stop; exit 1; }
for _ in $(seq 50); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
  sleep 0.1
done
echo "wasmbox cluster: http://127.0.0.1:$port/mcp ($n servers, sessions in $store), token $(awk '{print $2}' "$dir/tokens")"
