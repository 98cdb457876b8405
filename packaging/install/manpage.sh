#!/usr/bin/env bash
# manpage.sh WASMBOX: wasmbox(1) on stdout, made by help2man from the
# program's own --help and --version, with each command's --help as a
# section of its own, so the page never drifts from the program.
set -euo pipefail
w=$1
inc=$(mktemp); trap 'rm -f "$inc"' EXIT
# roff: a backslash is \e, and a line may not start with a dot or a quote
verbatim() { sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"; }
{
  echo '[COMMANDS]'
  for c in run session mcp serve doctor; do
    printf '.SS "wasmbox %s"\n.nf\n' "$c"
    "$w" "$c" --help 2>&1 | verbatim
    printf '.fi\n'
  done
  cat <<'MAN'
[ENVIRONMENT]
.TP
.B WASMBOX_HOME
where sessions and paused runs are kept (default: ~/.local/share/wasmbox)
.TP
.B WASMBOX_MCP_\fINAME\fR
a setting of \fBwasmbox mcp\fR and \fBwasmbox serve\fR (see their --help)
[SEE ALSO]
README.md and docs/ of the source tree (in the Debian package, /usr/share/doc/wasmbox): the security model (docs/security.md), sessions (docs/cli.md), the MCP server and code mode (docs/mcp.md), the C library (docs/library.md; \fBwasmbox.h\fR, \fBpkg-config wasmbox\fR).
MAN
} > "$inc"
help2man --no-info --no-discard-stderr --version-string="$("$w" --version | head -1 | cut -d' ' -f2)" \
  --name='run untrusted Python and JavaScript in a WebAssembly sandbox' --include="$inc" "$w"
