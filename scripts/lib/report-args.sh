# shellcheck shell=bash
# shellcheck disable=SC2034  # mode and doc are the caller's
# The arguments of the document checkers (scripts/fidelity-report.sh, readme-figures.sh,
# report-screenshot.sh):
#   . scripts/lib/report-args.sh NAME DEFAULT_DOC "$@"     (the caller's arguments: SCHEDSIM ...)
# sets SCHEDSIM, mode (check or update), doc (the given document, else DEFAULT_DOC) and work (a temporary
# directory removed at exit), and exits 2 with NAME's usage on an unknown option, a document that
# does not exist or a caller's SCHEDSIM that is not an executable.
report_name=$1 report_default=$2
shift 2
SCHEDSIM=${1:?usage: scripts/$report_name.sh SCHEDSIM [--check | --update] [DOC]}
shift
mode=check
doc=
for arg in "$@"; do
  case "$arg" in
    --check) mode=check ;;
    --update) mode=update ;;
    -*) echo "$report_name: unknown option '$arg' (usage: scripts/$report_name.sh SCHEDSIM [--check | --update] [DOC])" >&2; exit 2 ;;
    *) doc=$arg ;;
  esac
done
doc=${doc:-$report_default}
[ -f "$doc" ] || { echo "$report_name: $doc: no such file" >&2; exit 2; }
[ -x "$SCHEDSIM" ] || { echo "$report_name: $SCHEDSIM is not an executable" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
