#!/usr/bin/env bash
# `cmake --install` puts the tool in place like a tool: the binary (whose --version names the
# commit), a man page per command generated from its --help, bash completion that reads the
# binary's own commands, options and presets, the documentation, and the Python package.
#   usage: install.sh SCHEDSIM SOURCE_DIR WORK_DIR
set -euo pipefail
. "$2/tests/lib/check.sh" "$@"
build=$(cd "$(dirname "$S")/.." && pwd)
if ! grep -q '^HELP2MAN:FILEPATH=/' "$build/CMakeCache.txt"; then
  echo "FAIL help2man was not found when $build was configured: run scripts/install-deps.sh, then reconfigure"
  exit 1
fi
cmake --install "$build" --prefix "$W/prefix" > install.log
P=$W/prefix
check "the binary is installed" test -x "$P/bin/schedsim"
"$P/bin/schedsim" --version > version.txt
check "--version names the commit" grep -Eq '^schedsim [0-9.]+ \(commit ([0-9a-f]{12}(\+dirty)?|unknown)\)$' version.txt
for c in $("$S" help | awk '/^commands:/{on=1; next} on && /^  [a-z]+ /{print $1} on && /^$/{exit}'); do
  [ "$c" = help ] && continue
  check "man page of $c" grep -q "^\.TH SCHEDSIM-${c^^} " "$P/share/man/man1/schedsim-$c.1"
done
check "the top man page" grep -q '^\.TH SCHEDSIM ' "$P/share/man/man1/schedsim.1"
check "run's man page has its options" grep -q 'topology' "$P/share/man/man1/schedsim-run.1"
check "no helper scripts installed as pages" test "$(find "$P/share/man" -type f ! -name '*.1' | wc -l)" = 0
check "the documentation" test -f "$P/share/doc/schedsim/README.md" -a -f "$P/share/doc/schedsim/docs/traces.md"
# The Python package, where the interpreter's scheme puts it for this prefix, importable from there.
if grep -q '^SCHEDSIM_PYTHON:BOOL=ON' "$build/CMakeCache.txt"; then
  py=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
  site=$(sed -n 's/^SCHEDSIM_PYTHON_INSTALL_DIR:[A-Z]*=//p' "$build/CMakeCache.txt")
  check "the Python package is installed under the prefix" test -f "$P/$site/schedsim/__init__.py"
  PYTHONPATH="$P/$site" "$py" -c 'import schedsim; print(schedsim.__file__, schedsim.topology("smp2").nr_cpus)' > py.txt
  check "the installed package is the one imported" grep -q "^$P/$site/schedsim/__init__.py 2$" py.txt
fi
comp=$P/share/bash-completion/completions/schedsim
check "bash completion is installed" test -f "$comp"

# The completion, driven as bash drives it, with the installed binary.
complete_words() {  # complete_words WORD... -> COMPREPLY, one per line
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _schedsim; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"
}
complete_words "$P/bin/schedsim" "ru" > c1.txt
check "completes a command" grep -qx run c1.txt
complete_words "$P/bin/schedsim" run "--topo" > c2.txt
check "completes a command's option" grep -qx -- --topology c2.txt
complete_words "$P/bin/schedsim" run -t "xeon-e5" > c3.txt
check "completes a preset after -t" grep -qx xeon-e5-2690v2 c3.txt
complete_words "$P/bin/schedsim" run --kernel "6.1" > c4.txt
check "completes a kernel profile" grep -qx 6.12 c4.txt
exit $fail
