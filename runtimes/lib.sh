# Shared helpers for runtime recipes (sourced, not run).
#
# A recipe builds one guest runtime (a WASI module plus its read-only files)
# into a cache directory outside the clone, keyed by a hash of the recipe, so a
# repeat build is a no-op. Sources come from Debian source packages fetched with
# a private apt configuration: the machine's /etc is never touched.

set -euo pipefail

WB_CACHE=${WASMBOX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wasmbox}
WB_JOBS=${WB_JOBS:-$(nproc)}

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Install Debian packages that are missing (quietly; needs root on a fresh box).
wb_apt_install() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "apt-get install ${missing[*]}"
  local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null || true
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The Debian mirror this machine already uses (first deb URI for debian main).
wb_debian_mirror() {
  local uri
  uri=$(grep -hE '^\s*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk '{print $2}' | grep -v security | grep -m1 debian || true)
  [ -n "$uri" ] || uri=$(grep -hE '^\s*deb\s' /etc/apt/sources.list 2>/dev/null |
        awk '{print $2}' | grep -v security | grep -m1 debian || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

# wb_apt_source SUITE DEST PACKAGE...: download Debian source packages of SUITE
# (bookworm, trixie, ...) into DEST using a private apt configuration.
wb_apt_source() {
  local suite=$1 dest=$2; shift 2
  local root="$WB_CACHE/apt/$suite"
  mkdir -p "$root/lists/partial" "$root/archives/partial" "$dest"
  echo "deb-src $(wb_debian_mirror) $suite main" > "$root/sources.list"
  local opts=(-o Dir::Etc::SourceList="$root/sources.list" -o Dir::Etc::SourceParts=/dev/null
              -o Dir::State::Lists="$root/lists" -o Dir::Cache="$root"
              -o APT::Sandbox::User=root -qq)
  # Refresh the index at most once a day.
  if [ -z "$(find "$root/lists" -maxdepth 1 -name '*Sources*' -mtime -1 2>/dev/null)" ]; then
    apt-get "${opts[@]}" update >/dev/null
  fi
  (cd "$dest" && apt-get "${opts[@]}" source --download-only "$@" >/dev/null)
}

# Unpack the upstream (.orig) tarball of PKG found in DIR into OUT; prints the tree.
wb_unpack_orig() {
  local dir=$1 pkg=$2 out=$3 tarball
  tarball=$(ls "$dir"/"${pkg}"_*.orig.tar.* | grep -v -- '-www' | grep -v '\.asc$' | head -1)
  [ -f "$tarball" ] || die "no orig tarball for $pkg in $dir"
  mkdir -p "$out"
  tar xf "$tarball" -C "$out"
  ls -d "$out"/*/ | head -1
}

# A small "WASI SDK": clang-19 wrappers that always pass the target and a
# private sysroot (never the host's glibc headers), and the llvm tools.
wb_wasi_sdk() {
  local sdk=$1
  mkdir -p "$sdk/bin" "$sdk/share/wasi-sysroot/include" "$sdk/share/wasi-sysroot/lib"
  local sr="$sdk/share/wasi-sysroot"
  [ -d "$sr/include/wasm32-wasi" ] || cp -r /usr/include/wasm32-wasi "$sr/include/"
  [ -d "$sr/lib/wasm32-wasi" ] || cp -r /usr/lib/wasm32-wasi "$sr/lib/"
  local t
  for t in clang clang++ clang-cpp; do
    local real=/usr/bin/clang-19 extra=""
    [ "$t" = clang++ ] && real=/usr/bin/clang++-19
    [ "$t" = clang-cpp ] && extra="-E"
    cat > "$sdk/bin/$t" <<W
#!/bin/sh
exec $real --target=wasm32-wasi --sysroot=$sr $extra "\$@"
W
    chmod +x "$sdk/bin/$t"
  done
  ln -sf /usr/bin/wasm-ld-19 "$sdk/bin/wasm-ld"
  ln -sf /usr/bin/llvm-ar-19 "$sdk/bin/llvm-ar"
  ln -sf /usr/bin/llvm-ar-19 "$sdk/bin/ar"
  ln -sf /usr/bin/llvm-ranlib-19 "$sdk/bin/ranlib"
  ln -sf /usr/bin/llvm-ranlib-19 "$sdk/bin/llvm-ranlib"
  ln -sf /usr/bin/llvm-nm-19 "$sdk/bin/llvm-nm"
  ln -sf /usr/bin/llvm-strip-19 "$sdk/bin/llvm-strip"
}

# Serialise builds of one cache entry (two makes, or CI next to a user):
# hold an exclusive lock on it until the script exits. Callers check for the
# finished entry again once they hold the lock.
wb_lock() {
  mkdir -p "$WB_CACHE/locks"
  exec 9>"$WB_CACHE/locks/$1.lock"
  flock 9
}

# Hash of the files that define a recipe (the cache key).
wb_recipe_hash() {
  cat "$@" | sha256sum | cut -c1-16
}

# wb_recipe COMMAND...: run a recipe another recipe is built from (it prints
# its cache entry); as scripts/recipe.sh does for make's, record in the entry
# the seconds its build took when this run made it.
wb_recipe() {
  local start dir
  start=$(date +%s)
  dir=$("$@") || die "recipe failed: $*"
  if [ -f "$dir/.done" ] && [ "$(stat -c %Y "$dir/.done")" -ge "$start" ] && [ ! -e "$dir/.build-seconds" ]; then
    echo $(($(date +%s) - start)) > "$dir/.build-seconds"
  fi
  echo "$dir"
}
