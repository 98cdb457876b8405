#!/usr/bin/env bash
# check_layers.sh: scripts/check_layers.py on small trees made here, each
# with one fault it must refuse (and one clean tree it must pass), so that
# `make check-layers` cannot go quiet on the rules it states.
set -u
script="$(cd "$(dirname "$0")/.." && pwd)/scripts/check_layers.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
# tree NAME FILE=CONTENT...: a tree with src/ holding those files
tree() {
  local root="$tmp/$1"; shift
  for f in "$@"; do mkdir -p "$root/src/$(dirname "${f%%=*}")" && printf '%s\n' "${f#*=}" >"$root/src/${f%%=*}"; done
  printf '%s' "$root"
}
# expect WHAT STATUS PATTERN ROOT: the check's exit status and a line of its output
expect() {
  local what=$1 status=$2 pattern=$3 out rc
  out=$(python3 "$script" "$4" 2>&1); rc=$?
  if [ "$rc" = "$status" ] && grep -q -- "$pattern" <<<"$out"; then echo "ok - $what"
  else echo "not ok - $what (exit $rc, wanted $status and /$pattern/):"; sed 's/^/    /' <<<"$out"; failed=$((failed + 1)); fi
}
clean=(util/os.h= util/os.c='#include "util/os.h"' api/run.c='#include "util/os.h"' mcp/tools.c='#include "util/os.h"')
expect "a clean tree passes" 0 "check-layers: ok" "$(tree clean "${clean[@]}")"
expect "a second tools.c in another folder is refused" 1 "tools: a file of this name in src/api/, src/mcp/" \
  "$(tree same_name "${clean[@]}" api/tools.c= api/tools.h=)"
expect "a header of the same name counts too" 1 "os: a file of this name in src/mcp/, src/util/" \
  "$(tree same_header "${clean[@]}" mcp/os.h=)"
expect "a lower layer including a higher one is refused" 1 'src/util/os.c includes "api/run.h"' \
  "$(tree up "${clean[@]}" util/os.c='#include "api/run.h"' api/run.h=)"
expect "a client including the library's insides is refused" 1 "src/mcp is a client of the library" \
  "$(tree client "${clean[@]}" mcp/tools.c='#include "api/run.h"' api/run.h=)"
echo "$((5 - failed)) passed, $failed failed"
[ "$failed" = 0 ]
