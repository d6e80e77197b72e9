# bash completion for schedsim (installed as share/bash-completion/completions/schedsim).
# Commands, options and the choices of -t and --kernel are read from the installed binary's own
# help and lists at completion time, so they are never out of step with it.
_schedsim() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[1]:-}
  local bin=${COMP_WORDS[0]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    mapfile -t COMPREPLY < <(compgen -W "$("$bin" help 2>/dev/null | awk '/^commands:/{on=1; next} on && /^  [a-z]+ /{print $1} on && /^$/{exit}') --help --version" -- "$cur")
    return
  fi
  case "$prev" in
    -t | --topology | --recorded-on)
      mapfile -t COMPREPLY < <(compgen -W "$("$bin" topology list 2>/dev/null | awk '/^[a-z0-9-]+ /{print $1}') host" -- "$cur")
      mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur")
      return ;;
    -k | --kernel)
      mapfile -t COMPREPLY < <(compgen -W "$("$bin" run --kernel list 2>/dev/null | awk '{print $1}') host" -- "$cur")
      return ;;
  esac
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$("$bin" help "$cmd" 2>/dev/null | grep -oE -- '(^| |\[ )--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z0-9-]+' | sort -u)" -- "$cur")
    return
  fi
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -o bashdefault -F _schedsim schedsim
