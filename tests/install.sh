#!/usr/bin/env bash
# install.sh REPO: `make install` into a temporary root, then what was
# installed used as a user would: `pkg-config --cflags --libs wasmbox` builds
# a C program that runs Python through the installed shared library (its
# workers start from lib/libwasmbox/wasmbox-worker), the same program linked
# statically (its workers start from itself), the shared library exports
# only wasmbox_* under its soname, and the installed command, man page and
# bash completion work. Prints "ok N - what" / "not ok N - what".
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
lib=$root/usr/lib
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "$root/prog.c" $(pkg-config --cflags --libs wasmbox) -o "$root/prog" 2>"$root/cc.log"
check "a program builds with pkg-config --cflags --libs wasmbox" [ $? = 0 ]
check "it is linked to libwasmbox.so.0" bash -c "LD_LIBRARY_PATH='$lib' ldd '$root/prog' | grep -q 'libwasmbox.so.0 => $lib/'"
out=$(LD_LIBRARY_PATH=$lib "$root/prog" 2>&1)
check "it runs Python in the sandbox (workers from lib/libwasmbox/wasmbox-worker)" [ "$out" = "42 $version 1" ]
[ "$out" = "42 $version 1" ] || echo "    the program printed: $out"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "$root/prog.c" $(pkg-config --cflags wasmbox) -l:libwasmbox.a \
  $(pkg-config --static --libs wasmbox) -o "$root/prog-static" 2>>"$root/cc.log"
check "the same program links libwasmbox.a (pkg-config --static)" [ $? = 0 ]
out=$(env -u LD_LIBRARY_PATH "$root/prog-static" 2>&1)
check "it runs Python too (workers from itself)" [ "$out" = "42 $version 1" ]
check "libwasmbox.so.0 is the soname" bash -c "readelf -d '$lib/libwasmbox.so.$version' | grep -q 'SONAME.*\[libwasmbox.so.0\]'"
others=$(nm -D --defined-only "$lib/libwasmbox.so.$version" | awk '$3 !~ /^wasmbox_/ && $3 != "LIBWASMBOX_0"')
check "the shared library exports wasmbox_* only" [ -z "$others" ]
[ -z "$others" ] || echo "    also exported: $(head -5 <<<"$others")"
check "it exports the whole API (wasmbox_run, wasmbox_session_create, wasmbox_stats_get)" \
  bash -c "nm -D --defined-only '$lib/libwasmbox.so.$version' | grep -c ' T wasmbox_\(run\|session_create\|stats_get\)@@LIBWASMBOX_0\$' | grep -qx 3"
"$lib/libwasmbox/wasmbox-worker" 2>"$root/worker.err"; rc=$?
check "the worker program run by hand says what it is (exit 2)" \
  bash -c "[ $rc = 2 ] && grep -q 'workers of libwasmbox $version' '$root/worker.err'"
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
