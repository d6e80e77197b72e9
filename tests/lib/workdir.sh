# The preamble of every integration script (ctest passes SCHEDSIM SOURCE_DIR WORK_DIR):
#   . "$2/tests/lib/workdir.sh" "$@"
# sets schedsim, src and work, empties work and changes into it.
schedsim=$1
src=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
