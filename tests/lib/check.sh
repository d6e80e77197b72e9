# shellcheck shell=bash
# The preamble of every tests/cli script (ctest passes SCHEDSIM SOURCE_DIR WORK_DIR):
#   . "$2/tests/lib/check.sh" "$@"
# sets S, SRC and W (and workdir.sh's schedsim, src and work), empties W and changes into it,
# and defines check, which prints ok/FAIL per condition and sets fail=1 on a failure; the script
# ends with `exit $fail`.
# shellcheck source=workdir.sh
. "$2/tests/lib/workdir.sh" "$@"
# shellcheck disable=SC2034  # S, SRC and W are the calling script's
S=$schedsim; SRC=$src; W=$work
# shellcheck disable=SC2034  # read by the calling script's `exit $fail`
fail=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi
}
