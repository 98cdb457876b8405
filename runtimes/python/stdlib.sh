#!/usr/bin/env bash
# stdlib.sh STDLIB OUT: the standard library as the guest sees it.
#
# Copies the stdlib tree the CPython recipe built (STDLIB) to OUT, applies
# our patches to it (runtimes/python/patches/*.patch, paths relative to Lib/,
# in name order) and adds our own guest modules (runtimes/python/lib/, copied
# over the tree: lib/pwd.py becomes `import pwd`). Every file patched or
# added is compiled again: the tree's .pyc are unchecked-hash, so a stale one
# would win over its changed source. Cheap (seconds), so it is not cached:
# changing a patch or a module never rebuilds CPython or its native code.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

[ $# -eq 2 ] || die "usage: stdlib.sh STDLIB OUT"
src=$1 out=$2
[ -d "$src" ] || die "no stdlib tree at $src"
rm -rf "$out" "$out.tmp"
# -L: the image holds regular files (mkimage takes nothing else); a link in
# a kit's tree (matplotlib's mpl-data/images/*-symbolic.svg) is the file it names
cp -rL "$src" "$out.tmp"

changed=()
for p in "$here"/patches/*.patch; do
  [ -e "$p" ] || continue
  files=$(patch -d "$out.tmp" -p1 --forward --batch < "$p" | sed -n 's/^patching file //p') \
    || die "patch $(basename "$p") does not apply"
  while read -r f; do [ -n "$f" ] && changed+=("$out.tmp/$f"); done <<< "$files"
done
if [ -d "$here/lib" ]; then
  (cd "$here/lib" && find . -type f -name '*.py') | while read -r f; do
    mkdir -p "$out.tmp/$(dirname "$f")"
    cp "$here/lib/$f" "$out.tmp/$f"
  done
  while read -r f; do changed+=("$out.tmp/$f"); done < <(cd "$here/lib" && find . -type f -name '*.py')
fi
find "$out.tmp" -name '*.orig' -delete
if [ ${#changed[@]} -gt 0 ]; then
  /usr/bin/python3.11 -m compileall -q --invalidation-mode unchecked-hash "${changed[@]}" >/dev/null \
    || die "compileall failed"
fi
mv "$out.tmp" "$out"
