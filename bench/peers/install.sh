#!/usr/bin/env bash
# install.sh: what the peers step of make bench compares against, installed
# where it is missing, and the Pyodide directory printed on stdout. Debian:
# the native interpreter, bubblewrap; node from Debian when the machine has
# none (node:wasi and Pyodide need node >= 18). Pyodide, the exact version
# of bench/peers/package-lock.json, in the cache outside the clone, keyed by
# the lock file (never global, never in /etc).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../runtimes/lib.sh"
wb_apt_install python3.11 python3 bubblewrap
command -v node >/dev/null || wb_apt_install nodejs npm
pyodide_home="$WB_CACHE/peers/pyodide-$(wb_recipe_hash "$here/package-lock.json")"
if [ ! -f "$pyodide_home/node_modules/pyodide/pyodide.mjs" ]; then
  wb_lock peers-pyodide
  if [ ! -f "$pyodide_home/node_modules/pyodide/pyodide.mjs" ]; then
    log "npm ci: Pyodide into $pyodide_home"
    mkdir -p "$pyodide_home"
    cp "$here/package.json" "$here/package-lock.json" "$pyodide_home/"
    (cd "$pyodide_home" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
  fi
fi
echo "$pyodide_home/node_modules/pyodide"
