#!/usr/bin/env bash
# deb.sh REPO: the Debian packages `make deb` left in build/deb (lintian has
# passed them already), used as a user would: what each package holds, the
# systemd unit verified, then everything unpacked into a scratch root
# (dpkg -x) and run from there: the command, `wasmbox serve` as the unit
# starts it, a C program built against libwasmbox-dev, the Python client on
# the packaged library. With WASMBOX_TEST_APT=1 (CI's throwaway machine),
# also `apt-get install ./build/deb/...deb` for real, a run from /usr/bin,
# and a purge. Prints "ok N - what" / "not ok N - what".
set -u
repo=$(cd "$1" && pwd)
deb=$repo/build/deb
version=$(sed -n 's/^#define WASMBOX_VERSION "\(.*\)"/\1/p' "$repo/include/wasmbox.h")
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
root=$(mktemp -d); trap 'kill $srv 2>/dev/null; rm -rf "$root"' EXIT
srv=
n=0 bad=0
check() { # check "what" CONDITION...
  local what=$1; shift
  n=$((n + 1))
  if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; bad=$((bad + 1)); fi
}
for p in wasmbox libwasmbox0 libwasmbox-dev; do dpkg-deb -c "$deb/${p}_${version}_amd64.deb" >"$root/$p.list"; done
has() { grep -q " \./$2\( ->\|$\)" "$root/$1.list"; } # has PACKAGE PATH
check "wasmbox: the command, its man page, completion, unit, defaults and the documents guidance links to" bash -c "
  $(declare -f has); root='$root'
  has wasmbox usr/bin/wasmbox && has wasmbox usr/share/man/man1/wasmbox.1.gz &&
  has wasmbox usr/share/bash-completion/completions/wasmbox && has wasmbox lib/systemd/system/wasmbox.service &&
  has wasmbox etc/default/wasmbox && has wasmbox 'usr/share/doc/wasmbox/README.md\(.gz\)\?' && has wasmbox 'usr/share/doc/wasmbox/docs/security.md\(.gz\)\?'"
check "libwasmbox0: the library under its soname and its worker program" bash -c "
  $(declare -f has); root='$root'
  has libwasmbox0 usr/lib/$arch/libwasmbox.so.$version && has libwasmbox0 usr/lib/$arch/libwasmbox.so.0 &&
  has libwasmbox0 usr/lib/$arch/libwasmbox/wasmbox-worker"
check "libwasmbox-dev: the header, the link and pkg-config" bash -c "
  $(declare -f has); root='$root'
  has libwasmbox-dev usr/include/wasmbox.h && has libwasmbox-dev usr/lib/$arch/libwasmbox.so &&
  has libwasmbox-dev usr/lib/$arch/pkgconfig/wasmbox.pc"
check "libwasmbox-dev depends on exactly this libwasmbox0" \
  [ "$(dpkg-deb -f "$deb/libwasmbox-dev_${version}_amd64.deb" Depends)" = "libwasmbox0 (= $version)" ]
check "wasmbox depends on what it opens at run time (libmicrohttpd, libcurl, libpq, libssl)" bash -c \
  "dpkg-deb -f '$deb/wasmbox_${version}_amd64.deb' Depends | grep -q 'libcurl4 (>= 7.88), libmicrohttpd12 (>= 0.9.75), libpq5 (>= 15), libssl3 (>= 3.0)'"
check "libwasmbox0 recommends libpq5 (the shared session store opens it)" \
  [ "$(dpkg-deb -f "$deb/libwasmbox0_${version}_amd64.deb" Recommends)" = "libpq5" ]
for p in wasmbox libwasmbox0 libwasmbox-dev; do dpkg -x "$deb/${p}_${version}_amd64.deb" "$root"; done
check "the service is not enabled by the package (postinst)" bash -c \
  "dpkg-deb -e '$deb/wasmbox_${version}_amd64.deb' '$root/ctl' && ! grep -q 'systemctl.*start' '$root/ctl/postinst'"
if command -v systemd-analyze >/dev/null; then
  # (without systemd running, verify also says what this machine lacks: only
  # complaints about the unit itself count)
  systemd-analyze verify --man=no "$root/lib/systemd/system/wasmbox.service" >"$root/verify.log" 2>&1
  check "the unit passes systemd-analyze verify" bash -c "! grep -qiE 'unknown|invalid|failed to parse|bad ' '$root/verify.log'"
fi
export WASMBOX_HOME=$root/state
check "the packaged command runs Python" [ "$("$root/usr/bin/wasmbox" run -c 'print(6 * 7)' 2>&1)" = 42 ]
# the unit's command line, with the packaged defaults (its --listen port made free)
args=$(sed -n 's/^WASMBOX_SERVE_ARGS="\(.*\)"/\1/p' "$root/etc/default/wasmbox" | sed 's/:8765/:0/')
"$root/usr/bin/wasmbox" serve $args 2>"$root/serve.log" &
srv=$!
for _ in $(seq 100); do grep -q listening "$root/serve.log" && break; sleep 0.1; done
port=$(sed -n 's/.*127.0.0.1:\([0-9]*\)\/mcp.*/\1/p' "$root/serve.log")
check "wasmbox serve, as the unit starts it, answers /healthz" bash -c \
  "curl -sf http://127.0.0.1:$port/healthz | grep -q '\"status\":\"ok\"'"
cat > "$root/prog.c" <<'C'
#include <stdio.h>
#include <wasmbox.h>
int main(void) {
  char err[256];
  wasmbox *wb = wasmbox_new(err, sizeof err);
  wasmbox_request req = {.code = "print(6 * 7)"};
  wasmbox_result *r = NULL;
  if (!wb || wasmbox_run(wb, &req, &r, err, sizeof err) != WASMBOX_OK) return fprintf(stderr, "%s\n", err), 1;
  printf("%.*s\n", (int)r->stdout_len - 1, r->stdout_data);
  wasmbox_result_free(r);
  wasmbox_free(wb);
  return 0;
}
C
# shellcheck disable=SC2046
PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$root/usr/lib/$arch/pkgconfig \
  cc "$root/prog.c" $(PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$root/usr/lib/$arch/pkgconfig \
  pkg-config --cflags --libs wasmbox) -o "$root/prog" 2>"$root/cc.log"
check "a C program builds against libwasmbox-dev" [ $? = 0 ]
check "it runs Python through libwasmbox0 (workers from its wasmbox-worker)" \
  [ "$(LD_LIBRARY_PATH=$root/usr/lib/$arch "$root/prog" 2>&1)" = 42 ]
check "the Python client runs on the packaged library" [ "$(cd "$root" && WASMBOX_LIBRARY=$root/usr/lib/$arch/libwasmbox.so.0 \
  PYTHONPATH=$repo/clients/python/src /usr/bin/python3 -c 'import wasmbox; print(wasmbox.Sandbox().run("print(7)").stdout, end="")')" = 7 ]
if [ "${WASMBOX_TEST_APT:-}" = 1 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb/wasmbox_${version}_amd64.deb" \
    "$deb/libwasmbox0_${version}_amd64.deb" "$deb/libwasmbox-dev_${version}_amd64.deb" >"$root/apt.log" 2>&1
  check "apt-get install ./build/deb/*.deb" [ $? = 0 ]
  check "wasmbox from /usr/bin runs Python" [ "$(/usr/bin/wasmbox run -c 'print(6 * 7)' 2>&1)" = 42 ]
  check "pkg-config finds the installed library" [ "$(pkg-config --modversion wasmbox)" = "$version" ]
  check "the unit is installed, not enabled" [ -f /lib/systemd/system/wasmbox.service ]
  DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq wasmbox libwasmbox0 libwasmbox-dev >>"$root/apt.log" 2>&1
  check "apt-get purge removes them" [ ! -e /usr/bin/wasmbox ]
fi
echo "$((n - bad)) passed, $bad failed"
[ "$bad" = 0 ]
