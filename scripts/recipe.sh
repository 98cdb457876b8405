#!/usr/bin/env bash
# recipe.sh OUT.dir COMMAND...: run a cached build recipe (runtimes/*.sh and
# the like print the directory of their cache entry), write that directory
# to OUT.dir, and when this run is the one that made the entry (its .done is
# newer than the start), write the seconds it took to the entry's
# .build-seconds: make bench reports those as the cold build's cost, which a
# warm build cannot measure.
set -euo pipefail
out=$1; shift
start=$(date +%s)
"$@" > "$out.tmp"
dir=$(cat "$out.tmp")
if [ -f "$dir/.done" ] && [ "$(stat -c %Y "$dir/.done")" -ge "$start" ] && [ ! -e "$dir/.build-seconds" ]; then
  echo $(($(date +%s) - start)) > "$dir/.build-seconds"
fi
mv "$out.tmp" "$out"
