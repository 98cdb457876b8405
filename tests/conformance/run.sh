#!/usr/bin/env bash
# make conformance: CPython's own regression tests (Lib/test of the same
# source) inside wasmbox, next to native python3.11 on the same machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../runtimes/lib.sh"
wb_apt_install python3.11 python3
python3 "$here/conformance.py" "$1" "$2"
