#!/usr/bin/env bash
# pg.sh start|stop|restart DIR [PORT]: a PostgreSQL (Debian's) for trying
# wasmbox's shared session store: a new cluster in DIR/pg/data, listening on
# 127.0.0.1:PORT (5433) and a socket in DIR/pg, trusting local connections,
# with database and superuser "wasmbox"; its log is DIR/pg/log. It runs as
# the calling user, or as "postgres" when that is root (PostgreSQL refuses to
# run as root): DIR/pg is then postgres's, and DIR may be passed through.
# `start` prints the store URL: postgres://wasmbox@127.0.0.1:PORT/wasmbox
set -u
here=$(cd "$(dirname "$0")" && pwd)
cmd=${1:-} dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: pg.sh start|stop|restart DIR [PORT]" >&2; exit 2; }
port=${3:-5433}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bin" ]; then
  (. "$here/../../runtimes/lib.sh" && wb_apt_install postgresql) || exit 1 # a subshell: lib.sh sets -e
  bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
fi
as() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
base=$dir/pg data=$dir/pg/data
ctl() { as "$bin/pg_ctl" -D "$data" -l "$base/log" -w -t 30 "$@" >/dev/null; }

case $cmd in
stop) [ -f "$data/postmaster.pid" ] && ctl stop -m fast; exit 0 ;;
restart) ctl restart -m fast || { cat "$base/log" >&2; exit 1; }; exit 0 ;;
start) ;;
*) echo "pg.sh: unknown command '$cmd'" >&2; exit 2 ;;
esac

mkdir -p "$base"
if [ "$(id -u)" = 0 ]; then
  chown postgres "$base"
  chmod o+x "$dir"
  runuser -u postgres -- test -w "$base" || {
    echo "pg.sh: PostgreSQL runs as postgres, which cannot reach $base (a directory above it is closed to" \
      "others): choose a directory under /tmp" >&2
    exit 1
  }
fi
if [ ! -f "$data/PG_VERSION" ]; then
  as "$bin/initdb" -D "$data" -U wasmbox --auth=trust -E UTF8 --no-locale >/dev/null || exit 1
  printf "listen_addresses = '127.0.0.1'\nport = %s\nunix_socket_directories = '%s'\nmax_connections = 300\n" \
    "$port" "$base" >> "$data/postgresql.conf"
fi
[ -f "$data/postmaster.pid" ] && ctl stop -m fast
ctl start || { cat "$base/log" >&2; exit 1; }
as "$bin/psql" -h "$base" -p "$port" -U wasmbox -d postgres -qAtc \
  "SELECT 1 FROM pg_database WHERE datname = 'wasmbox'" | grep -q 1 ||
  as "$bin/createdb" -h "$base" -p "$port" -U wasmbox wasmbox || exit 1
echo "postgres://wasmbox@127.0.0.1:$port/wasmbox"
