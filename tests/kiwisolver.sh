#!/usr/bin/env bash
# kiwisolver.sh BUILD: the Python runtime's kiwisolver built natively (with
# ASan and UBSan) and run against Debian's python3-kiwisolver, same inputs,
# same outputs (tests/kiwisolver_diff.py). Prints "ok N - what" / "not ok N - what".
exec python3 "$(dirname "$0")/kiwisolver_diff.py" "$1"
