#!/usr/bin/env bash
# packages.sh [LIST]: build the built-in pure-Python packages: the Debian
# bookworm binary packages listed in packages.txt (or LIST: make conformance
# gets pytest this way), fetched with `apt-get download` through a private apt
# configuration (the machine's /etc is never touched), their trees under
# usr/lib/python3/dist-packages merged, compiled C speed-ups removed (each
# listed package falls back to its Python code), compiled to unchecked-hash
# .pyc (valid whatever the file times; the .py stay for tracebacks).
#
# Output (printed on stdout): a directory holding
#   site-packages/                the tree the guest sees at
#                                 /usr/local/lib/python3.11/site-packages
#   site-packages/wasmbox-packages.json   the manifest: per Debian package its
#                                 version, distribution, import names, and the
#                                 compiled files left out
#   packages.h                    import names, distributions and versions
#                                 as a C table, for the host
# cached under $WASMBOX_CACHE keyed by a hash of this recipe and the list.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

wb_apt_install python3.11 dpkg

list=${1:-$here/packages.txt}
[ -f "$list" ] || die "no package list $list"
key=$(wb_recipe_hash "$here/packages.sh" "$list")
out="$WB_CACHE/runtimes/python-packages-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi
wb_lock "python-packages-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi

work="$WB_CACHE/build/python-packages-$key"
rm -rf "$work"; mkdir -p "$work/debs" "$work/unpacked"
mapfile -t pkgs < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$list" | grep -v '^$')
[ ${#pkgs[@]} -gt 0 ] || die "$list lists no package"

# Binary packages of bookworm main from the machine's own mirror.
root="$WB_CACHE/apt/bookworm-binary"
mkdir -p "$root/lists/partial" "$root/archives/partial"
echo "deb [arch=amd64] $(wb_debian_mirror) bookworm main" > "$root/sources.list"
opts=(-o Dir::Etc::SourceList="$root/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o Dir::State::Lists="$root/lists" -o Dir::Cache="$root" -o APT::Architecture=amd64
      -o APT::Sandbox::User=root -qq)
if [ -z "$(find "$root/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null)" ]; then
  apt-get "${opts[@]}" update >/dev/null || die "apt-get update (bookworm binary index) failed"
fi
log "downloading ${#pkgs[@]} Debian packages"
(cd "$work/debs" && apt-get "${opts[@]}" download "${pkgs[@]}" >/dev/null) || die "apt-get download failed"

site="$work/out/site-packages"
mkdir -p "$site"
for p in "${pkgs[@]}"; do
  deb=$(ls "$work/debs/${p}"_*.deb 2>/dev/null | head -1)
  [ -f "$deb" ] || die "no .deb downloaded for $p"
  dpkg-deb -x "$deb" "$work/unpacked/$p"
  tree="$work/unpacked/$p/usr/lib/python3/dist-packages"
  [ -d "$tree" ] || die "$p has no usr/lib/python3/dist-packages"
  cp -r "$tree/." "$site/"
done

# Compiled parts: none can load in WebAssembly (no dlopen); a listed package
# must work without them, which the runtime's tests check by using each one.
/usr/bin/python3.11 - "$work" "$site" "${pkgs[@]}" <<'PY' || die "manifest failed"
import json, os, subprocess, sys
work, site, pkgs = sys.argv[1], sys.argv[2], sys.argv[3:]
manifest = []
# The packaged upstream version (the distribution metadata can be stale:
# Debian's mpmath says 0.0.0): no epoch, Debian revision or repack suffix.
def upstream(v):
    v = v.split(':', 1)[-1].rsplit('-', 1)[0]
    return v.split('+dfsg')[0].split('+ds')[0]
for p in pkgs:
    tree = os.path.join(work, 'unpacked', p, 'usr/lib/python3/dist-packages')
    deb = [f for f in os.listdir(os.path.join(work, 'debs')) if f.startswith(p + '_')][0]
    version = subprocess.check_output(['dpkg-deb', '-f', os.path.join(work, 'debs', deb), 'Version'], text=True).strip()
    dist, names, dropped = None, [], []
    for entry in sorted(os.listdir(tree)):
        if entry.endswith(('.dist-info', '.egg-info')):
            meta = os.path.join(tree, entry, 'METADATA' if entry.endswith('.dist-info') else 'PKG-INFO')
            if os.path.isdir(os.path.join(tree, entry)) and os.path.exists(meta):
                for line in open(meta, encoding='utf-8', errors='replace'):
                    if line.startswith('Name:'): dist = line[5:].strip()
                    if dist or not line.strip(): break
        elif entry.endswith('.py'):
            names.append(entry[:-3])
        elif os.path.isdir(os.path.join(tree, entry)) and entry != '__pycache__':
            names.append(entry)
        for d, _, files in os.walk(os.path.join(tree, entry)):
            for f in files:
                if f.endswith('.so'):
                    rel = os.path.relpath(os.path.join(d, f), tree)
                    dropped.append(rel)
                    os.remove(os.path.join(site, rel))
    manifest.append({'debian_package': p, 'debian_version': version, 'distribution': dist or p[len('python3-'):],
                     'version': upstream(version), 'modules': names, 'compiled_parts_left_out': dropped})
json.dump(manifest, open(os.path.join(site, 'wasmbox-packages.json'), 'w'), indent=1, sort_keys=True)
# The same for the host (src/api/guidance.c names close matches of a missing module).
with open(os.path.join(work, 'out', 'packages.h'), 'w') as h:
    h.write('/* Generated by runtimes/python/packages.sh: import name, distribution, version. */\n')
    h.write('static const struct {\n  const char *module, *distribution, *version;\n} wb_python_packages[] = {\n')
    for p in manifest:
        for m in p['modules']:
            h.write('    {"%s", "%s", "%s"},\n' % (m, p['distribution'], p['version']))
    h.write('};\n')
PY
# The packages' own tests are not for the sandbox (three quarters of sympy's
# size); `make conformance` runs them from the Debian source packages.
find "$site" -name __pycache__ -prune -exec rm -rf {} +
find "$site" -type d -name tests -prune -exec rm -rf {} +
/usr/bin/python3.11 -m compileall -q -j0 --invalidation-mode unchecked-hash "$site" >/dev/null \
  || die "compileall failed"

mkdir -p "$(dirname "$out")"
rm -rf "$out"; mv "$work/out" "$out"
touch "$out/.done"
rm -rf "$work"
log "python packages ready: $out"
echo "$out"
