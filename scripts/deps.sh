#!/usr/bin/env bash
# Install the Debian packages wasmbox needs to build and test (only the ones
# missing; needs root or sudo on a fresh machine).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../runtimes/lib.sh"
wb_apt_install \
  gcc make binutils libc6-dev python3 python3.11 dpkg-dev tcl xz-utils tzdata fonts-dejavu-core clang-format-19 \
  libfuzzer-19-dev libclang-rt-19-dev \
  clang-19 lld-19 llvm-19 wasi-libc libclang-rt-19-dev-wasm32 wabt binaryen \
  python3-pip libcmocka-dev libzstd-dev libseccomp-dev libcjson-dev libmicrohttpd-dev \
  libcurl4-openssl-dev libssl-dev libpq-dev g++ libvalijson-dev nlohmann-json3-dev faketime help2man pkg-config \
  python3-cryptography python3.11-dev python3-kiwisolver
