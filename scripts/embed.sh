#!/usr/bin/env bash
# Link files into the program as read-only data (the images and snapshots):
#   embed.sh CC OUT.o ALIGN NAME=FILE ...
# Each NAME becomes two global symbols: NAME, its first byte, aligned to
# ALIGN, and NAME_end, one past its last. An empty FILE makes an empty NAME
# (both symbols at one address). OUT.S is left beside OUT.o to be read.
set -euo pipefail
cc=$1 out=$2 align=$3
shift 3
src=${out%.o}.S
{
  echo '.section .rodata'
  for pair in "$@"; do
    name=${pair%%=*} file=${pair#*=}
    printf '.balign %s\n.global %s\n%s:\n' "$align" "$name" "$name"
    if [[ -n $file ]]; then printf '.incbin "%s"\n' "$(realpath "$file")"; fi
    printf '.global %s_end\n%s_end:\n' "$name" "$name"
  done
  echo '.section .note.GNU-stack,"",@progbits'
} > "$src"
$cc -c "$src" -o "$out"
