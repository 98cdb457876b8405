#!/usr/bin/env bash
# packages.sh WASMBOX PACKAGES_DIR: the built-in packages' own test suites
# (tests/conformance/packages.py) with what they need: the suites' Debian
# source packages (apt-get source through the private apt configuration) and
# Debian's pytest, fetched like the built-in packages
# (runtimes/python/packages.sh with tests/conformance/pytest-packages.txt).
# Both are cached under the build cache.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../runtimes/lib.sh"
[ $# -eq 2 ] || die "usage: packages.sh WASMBOX PACKAGES_DIR"
sources="$WB_CACHE/conformance/package-sources"
if [ ! -f "$sources/.done" ]; then
  rm -rf "$sources"
  wb_apt_source bookworm "$sources/debian" jinja2
  tree=$(wb_unpack_orig "$sources/debian" jinja2 "$sources/unpacked")
  mv "$tree" "$sources/jinja2"
  touch "$sources/.done"
fi
pytest=$(bash "$here/../../runtimes/python/packages.sh" "$here/pytest-packages.txt")
python3 "$here/packages.py" "$1" "$2/site-packages" "$pytest/site-packages" "$sources"
