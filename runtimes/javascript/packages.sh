#!/usr/bin/env bash
# packages.sh: the npm packages built into the JavaScript runtime: those
# packages/package.json names, at the versions packages/package-lock.json
# pins, installed from the npm registry by `npm ci` (no install scripts),
# then trimmed of what require() never loads here (source maps, type
# declarations, docs, ES-module and browser duplicates of the CommonJS
# builds; licences stay).
#
# Output (printed on stdout): a directory holding
#   node_modules/                         the tree the guest sees at
#                                         /usr/lib/node_modules
#   node_modules/wasmbox-packages.json    the manifest: each listed package's
#                                         name, version and licence
#   node_modules/.wasmbox/intl.js         Intl for the runtime (intl.js)
# cached under $WASMBOX_CACHE keyed by a hash of this recipe and the lock.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

wb_apt_install nodejs python3
command -v npm >/dev/null || wb_apt_install npm # (a nodejs that bundles npm conflicts with Debian's npm)

key=$(wb_recipe_hash "$here/packages.sh" "$here/packages/package.json" "$here/packages/package-lock.json" "$here/intl.js")
out="$WB_CACHE/runtimes/javascript-packages-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi
wb_lock "javascript-packages-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi

work="$WB_CACHE/build/javascript-packages-$key"
rm -rf "$work"; mkdir -p "$work"
cp "$here/packages/package.json" "$here/packages/package-lock.json" "$work/"
log "npm ci (the built-in JavaScript packages)"
(cd "$work" && npm ci --ignore-scripts --omit=dev --no-audit --no-fund --loglevel=error >&2) || die "npm ci failed"

nm="$work/node_modules"
find "$nm" \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.flow' \
  -o -name '*.md' -o -name '*.markdown' \) -type f -delete
find "$nm" -name .bin -prune -exec rm -rf {} +
# each entry: a part of a package that CommonJS require() never reaches
for p in mathjs/lib/esm mathjs/lib/browser mathjs/types date-fns/esm date-fns/docs dayjs/esm \
         marked/lib/marked.esm.js marked/lib/marked.umd.js marked/bin marked/man zod/lib/index.mjs zod/lib/index.umd.js \
         csv-parse/dist/esm csv-parse/dist/umd csv-parse/dist/iife \
         csv-stringify/dist/esm csv-stringify/dist/umd csv-stringify/dist/iife \
         uuid/dist/esm-browser uuid/dist/esm-node uuid/dist/commonjs-browser js-yaml/dist \
         @formatjs/intl-datetimeformat/test262-main.js @formatjs/intl-datetimeformat/add-golden-tz.js; do
  [ -e "$nm/$p" ] || die "trim: $p is not in the tree (a new version? update this list)"
  rm -rf "${nm:?}/$p"
done

# Intl (intl.js, which the runtime's preload loads into the snapshot):
# FormatJS's polyfills with English data only
rm -rf "$nm"/@formatjs/*/lib # ES-module duplicates
for d in "$nm"/@formatjs/*/locale-data; do
  [ -f "$d/en.js" ] || die "trim: $d has no en.js"
  find "$d" -type f ! -name en.js -delete
done
mkdir -p "$nm/.wasmbox"
cp "$here/intl.js" "$nm/.wasmbox/intl.js"

python3 - "$work/package.json" "$nm" <<'PY'
import json, os, sys
wanted = json.load(open(sys.argv[1]))["dependencies"]
rows = []
for name in sorted(wanted):
    meta = json.load(open(os.path.join(sys.argv[2], name, "package.json")))
    if meta["version"] != wanted[name]:
        sys.exit("%s: the lock installed %s, package.json pins %s" % (name, meta["version"], wanted[name]))
    rows.append({"name": name, "version": meta["version"], "license": meta.get("license", "")})
json.dump(rows, open(os.path.join(sys.argv[2], "wasmbox-packages.json"), "w"), indent=1)
PY

rm -rf "$out"; mkdir -p "$out"
mv "$nm" "$out/node_modules"
touch "$out/.done"
rm -rf "$work"
log "javascript packages: $(du -sh "$out/node_modules" | cut -f1) in $out"
echo "$out"
