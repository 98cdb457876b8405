#!/usr/bin/env bash
# numpy_peers.sh: the two native numpys bench/numpy_kernels.py compares wasmbox's
# against; prints the directory to put on python3.11's path for each, one a
# line:
#   1. numpy 1.19.5 from the same source and patches as the runtime's, built
#      natively (tests/conformance/numpy_native.sh, cached; lapack_lite, no
#      BLAS, as on wasm): the reference the goal is set against
#   2. Debian bookworm's python3-numpy (1.24.2), the binary package as
#      Debian ships it (with the system's BLAS and LAPACK): what a user of
#      this machine would have; information only
# The .deb is fetched with `apt-get download` through a private apt
# configuration (the machine's /etc is never touched, as in
# runtimes/python/packages.sh) and unpacked with dpkg-deb into the cache.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../runtimes/lib.sh"
# what Debian's numpy links at run time
wb_apt_install python3.11 dpkg libblas3 liblapack3 libgfortran5

reference=$(bash "$here/../tests/conformance/numpy_native.sh")
[ -d "$reference/numpy" ] || die "no numpy in $reference"

out="$WB_CACHE/bench/python3-numpy-$(wb_recipe_hash "$here/numpy_peers.sh")"
if [ ! -f "$out/.done" ]; then
  wb_lock bench-python3-numpy
  if [ ! -f "$out/.done" ]; then
    root="$WB_CACHE/apt/bookworm-binary"
    mkdir -p "$root/lists/partial" "$root/archives/partial"
    echo "deb [arch=amd64] $(wb_debian_mirror) bookworm main" > "$root/sources.list"
    opts=(-o Dir::Etc::SourceList="$root/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o Dir::State::Lists="$root/lists" -o Dir::Cache="$root" -o APT::Architecture=amd64
          -o APT::Sandbox::User=root -qq)
    if [ -z "$(find "$root/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null)" ]; then
      apt-get "${opts[@]}" update >/dev/null || die "apt-get update (bookworm binary index) failed"
    fi
    rm -rf "$out"; mkdir -p "$out/deb"
    log "downloading Debian's python3-numpy (bookworm)"
    (cd "$out/deb" && apt-get "${opts[@]}" download python3-numpy >/dev/null) || die "apt-get download failed"
    dpkg-deb -x "$out"/deb/python3-numpy_*.deb "$out/root"
    touch "$out/.done"
  fi
fi
echo "$reference"
echo "$out/root/usr/lib/python3/dist-packages"
