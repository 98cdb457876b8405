#!/usr/bin/env bash
# matplotlib_native.sh: the reference matplotlib for `make conformance` and
# `make bench`: the same Debian matplotlib 3.3.4 source with the same patches
# as the runtime's (runtimes/python/matplotlib.sh; those that matter only
# under WASI are guarded and do nothing here), built natively for the host's
# python3.11 against the reference numpy (numpy_native.sh) and Debian's
# FreeType and qhull, tests and baseline images included. Cached under the
# build cache; prints the directory to put on PYTHONPATH (after numpy's).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../runtimes/lib.sh"
patches="$here/../../runtimes/python/matplotlib/patches"
wb_apt_install python3.11 python3.11-dev python3-setuptools python3-certifi g++ pkg-config xz-utils \
  libfreetype-dev libqhull-dev python3-cycler python3-kiwisolver python3-dateutil python3-pyparsing python3-pil
numpy=$(bash "$here/numpy_native.sh") || die "the reference numpy failed"
key=$( (wb_recipe_hash "$here/../../runtimes/lib.sh" "$here/matplotlib_native.sh" "$patches"/*; echo "$numpy") |
  sha256sum | cut -c1-16)
out="$WB_CACHE/conformance/matplotlib-native-$key"
if [ -f "$out/.done" ]; then echo "$out/site"; exit 0; fi
wb_lock "matplotlib-native-$key"
if [ -f "$out/.done" ]; then echo "$out/site"; exit 0; fi
work="$WB_CACHE/build/matplotlib-native-$key"
rm -rf "$work"; mkdir -p "$work/out"
log "matplotlib 3.3.4, natively (the reference)"
wb_apt_source bullseye "$work/src" matplotlib=3.3.4-1
tree=$(wb_unpack_orig "$work/src" matplotlib "$work/matplotlib"); tree=${tree%/}
for p in "$patches"/*.patch; do
  patch -d "$tree" -p1 --forward --batch --quiet < "$p" || die "patch $(basename "$p") does not apply"
done
# Patch 0001 moves the qhull wrapper to the reentrant libqhull_r, which
# Debian's libqhull-dev has beside the non-reentrant libqhull setupext.py
# names: linking both would bind the wrapper to the wrong one.
sed -i 's/ext.libraries.append("qhull")/ext.libraries.append("qhull_r")/' "$tree/setupext.py"
grep -q 'ext.libraries.append("qhull_r")' "$tree/setupext.py" || die "setupext.py: no system qhull line to point at libqhull_r"
# Debian's FreeType and qhull, never a download (an index nobody serves
# stops setup_requires from fetching anything); the tests and their
# baseline images installed; Agg as the default backend, as in the runtime
cat > "$tree/setup.cfg" <<'CFG'
[libs]
system_freetype = True
system_qhull = True
enable_lto = False
[packages]
tests = True
[rc_options]
backend = Agg
[easy_install]
index_url = file:///nonexistent
allow_hosts = nonexistent.invalid
CFG
(cd "$tree" && PYTHONPATH="$numpy" PATH=/usr/bin:/bin /usr/bin/python3.11 setup.py build -j "$WB_JOBS" \
   >"$work/build.log" 2>&1 &&
 PYTHONPATH="$numpy" PATH=/usr/bin:/bin /usr/bin/python3.11 setup.py install \
   --single-version-externally-managed --record="$work/record" --install-lib="$work/out/site" \
   --install-scripts="$work/out/bin" --install-headers="$work/out/include" --install-data="$work/out/data" \
   >>"$work/build.log" 2>&1) \
  || { tail -30 "$work/build.log"; die "native matplotlib build failed"; }
# every file in the entry: nothing may land elsewhere on the machine
grep -v "^$work/out/" "$work/record" && die "matplotlib's install wrote outside $work/out (above)"
grep -qi 'downloading' "$work/build.log" && die "matplotlib's build downloaded something (build.log)"
site="$work/out/site"
[ -d "$site/matplotlib/tests/baseline_images/test_axes" ] || die "native matplotlib: no tests installed"
ldd "$site"/matplotlib/_qhull*.so | grep -q 'libqhull_r\.' || die "native _qhull is not linked to libqhull_r"
ldd "$site"/matplotlib/ft2font*.so | grep -q 'libfreetype\.' || die "native ft2font is not linked to Debian's FreeType"
PYTHONPATH="$numpy:$site" MPLCONFIGDIR="$work/mplconfig" /usr/bin/python3.11 -c '
import matplotlib, matplotlib.pyplot as plt
assert matplotlib.__version__ == "3.3.4", matplotlib.__version__
assert matplotlib.get_backend().lower() == "agg", matplotlib.get_backend()
plt.plot([1, 2, 3], [3, 1, 2])' || die "native matplotlib does not import"
mkdir -p "$(dirname "$out")"
rm -rf "$out"; mv "$work/out" "$out"
touch "$out/.done"
rm -rf "$work"
echo "$out/site"
