#!/usr/bin/env bash
# make bench: install what the benchmarks compare against, then run them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../runtimes/lib.sh"
wb_apt_install python3.11 python3
python3 "$here/bench.py" "$1" "${@:2}"
