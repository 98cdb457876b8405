# bash completion for wasmbox: commands, session subcommands, and each
# command's options as its own --help lists them (so they never drift)
_wasmbox() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]:-}
  COMPREPLY=()
  if [ "$COMP_CWORD" -eq 1 ]; then
    mapfile -t COMPREPLY < <(compgen -W "run session mcp serve doctor version" -- "$cur")
  elif [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$("${COMP_WORDS[0]}" "$cmd" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u)" -- "$cur")
  elif [ "$cmd" = session ] && [ "$COMP_CWORD" -eq 2 ]; then
    mapfile -t COMPREPLY < <(compgen -W "new fork checkpoint restore info install list rm prune" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}
complete -o filenames -F _wasmbox wasmbox
