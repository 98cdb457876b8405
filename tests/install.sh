#!/usr/bin/env bash
# install.sh REPO: `make install` into a temporary root, then what was
# installed used as a user would: `pkg-config --cflags --libs wasmbox` builds
# a C program that runs Python through the installed library (its workers
# start from that program), and the installed command, man page and bash
# completion work. Prints "ok N - what" / "not ok N - what".
set -u
repo=$1
root=$(mktemp -d); trap 'rm -rf "$root"' EXIT
n=0 bad=0
check() { # check "what" CONDITION...
  local what=$1; shift
  n=$((n + 1))
  if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; bad=$((bad + 1)); fi
}
make -s -C "$repo" install DESTDIR="$root" PREFIX=/usr >"$root/make.log" 2>&1
check "make install DESTDIR=... PREFIX=/usr" [ $? = 0 ]
export WASMBOX_HOME=$root/state # the state of the program and the command below, not the user's
version=$(sed -n 's/^#define WASMBOX_VERSION "\(.*\)"/\1/p' "$repo/include/wasmbox.h")
export PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$root/usr/lib/pkgconfig
check "pkg-config knows wasmbox $version" [ "$(pkg-config --modversion wasmbox)" = "$version" ]
cat > "$root/prog.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <wasmbox.h>

int main(void) {
  char err[256];
  wasmbox *wb = wasmbox_new(err, sizeof err);
  wasmbox_request req = {.code = "print(6 * 7)"};
  wasmbox_result *r = NULL;
  if (!wb || wasmbox_run(wb, &req, &r, err, sizeof err) != WASMBOX_OK) return fprintf(stderr, "%s\n", err), 1;
  printf("%.*s %s %d\n", (int)r->stdout_len - 1, r->stdout_data, wasmbox_version(),
         !strcmp(wasmbox_version(), WASMBOX_VERSION));
  wasmbox_result_free(r);
  wasmbox_free(wb);
  return 0;
}
C
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "$root/prog.c" $(pkg-config --cflags --libs wasmbox) -o "$root/prog" 2>"$root/cc.log"
check "a program builds with pkg-config --cflags --libs wasmbox" [ $? = 0 ]
out=$("$root/prog" 2>&1)
check "it runs Python in the sandbox (its own workers)" [ "$out" = "42 $version 1" ]
[ "$out" = "42 $version 1" ] || echo "    the program printed: $out"
check "the installed command runs" [ "$("$root/usr/bin/wasmbox" run -c 'print(1)' 2>&1)" = 1 ]
check "wasmbox(1) documents every command" \
  bash -c "MANWIDTH=100 man -l '$root/usr/share/man/man1/wasmbox.1' 2>/dev/null | grep -c '^   wasmbox \(run\|session\|mcp\|serve\|doctor\)$' | grep -qx 5"
complete_words() { # complete_words WORD...: what bash completion offers for the last word
  bash -c 'source "$1/usr/share/bash-completion/completions/wasmbox"; shift; COMP_WORDS=("$@")
           COMP_CWORD=$(($# - 1)); _wasmbox; echo "${COMPREPLY[*]}"' _ "$root" "$@"
}
check "completion of commands" [ "$(complete_words wasmbox se)" = "session serve" ]
check "completion of a command's options" [ "$(complete_words "$root/usr/bin/wasmbox" run --time)" = "--timeout" ]
check "completion of session commands" [ "$(complete_words wasmbox session fo)" = "fork" ]
[ "$bad" = 0 ] || { echo "--- make install"; tail -5 "$root/make.log"; echo "--- cc"; tail -5 "$root/cc.log"; }
exit "$bad"
