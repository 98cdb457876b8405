#!/usr/bin/env bash
# editor.sh: the playground's code editor, CodeMirror 5 at the version
# package-lock.json pins, installed from the npm registry by `npm ci` (no
# install scripts); its prebuilt files (the editor, the Python and
# JavaScript modes, bracket matching) concatenated into two files the page
# loads, with the licence kept at the top.
#
# Output (printed on stdout): a directory holding editor.js and editor.css,
# cached under $WASMBOX_CACHE keyed by a hash of this recipe and the lock.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../../runtimes/lib.sh"

wb_apt_install nodejs
command -v npm >/dev/null || wb_apt_install npm # (a nodejs that bundles npm conflicts with Debian's npm)

key=$(wb_recipe_hash "$here/editor.sh" "$here/package.json" "$here/package-lock.json")
out="$WB_CACHE/playground-editor-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi
wb_lock "playground-editor-$key"
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi

work="$WB_CACHE/build/playground-editor-$key"
rm -rf "$work"; mkdir -p "$work"
cp "$here/package.json" "$here/package-lock.json" "$work/"
log "npm ci (the playground's editor)"
(cd "$work" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2) || die "npm ci failed"

cm="$work/node_modules/codemirror"
rm -rf "$out"; mkdir -p "$out"
{
  printf '/* CodeMirror %s, MIT licence:\n' "$(sed -n 's/.*"version": "\(.*\)".*/\1/p' "$cm/package.json")"
  sed 's/^/ * /' "$cm/LICENSE"
  printf ' */\n'
  for f in lib/codemirror.js mode/python/python.js mode/javascript/javascript.js addon/edit/matchbrackets.js; do
    [ -f "$cm/$f" ] || die "$f is not in codemirror (a new version? update this list)"
    cat "$cm/$f"
  done
} > "$out/editor.js"
cp "$cm/lib/codemirror.css" "$out/editor.css"
rm -rf "$work"
touch "$out/.done"
echo "$out"
