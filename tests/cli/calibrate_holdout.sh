#!/bin/bash
# scripts/calibrate-holdout.sh --set on a small set cut from tests/data/traces/smp2-set, with a
# wrapper binary whose fits (calibrate without --check-only) fail: a fold calibrate refuses (exit
# 1, an input error) is printed "Not fitted" and its held-out traces are replayed with the starting
# costs; any other failure (a crash, exit 3; a usage error, exit 2) is no refusal: the script stops
# with that status and calibrate's message, instead of reporting the fold as refused.
# Usage: calibrate_holdout.sh SCHEDSIM SRCDIR WORKDIR
set -u
# shellcheck source=../lib/check.sh
. "$2/tests/lib/check.sh" "$@"
mkdir set
full=$SRC/tests/data/traces/smp2-set
# periodic-t4 (one workload: its repeats alternate between the halves) and fork-40 (83 wakeups,
# refused by calibrate, tested in both folds).
grep '^#' "$full/manifest.tsv" >set/manifest.tsv
grep -E '^(name|periodic-t4\.r[12]|fork-40\.r1)	' "$full/manifest.tsv" >>set/manifest.tsv
for f in lscpu-p.txt costs.json periodic-t4.r1.ftrace.zst periodic-t4.r2.ftrace.zst fork-40.r1.ftrace.zst; do
  ln -s "$full/$f" "set/$f"
done
# wrapper RC: `calibrate` without --check-only exits RC with a message; the rest is schedsim's.
wrapper() {
  cat >"fake-$1" <<EOF
#!/bin/bash
if [ "\${1:-}" = calibrate ]; then
  case " \$* " in *" --check-only "*) ;; *) echo "schedsim: fake calibrate failure, exit $1" >&2; exit $1 ;; esac
fi
exec "$S" "\$@"
EOF
  chmod +x "fake-$1"
}
wrapper 1
wrapper 3

rc=0
bash "$SRC/scripts/calibrate-holdout.sh" "$W/fake-1" --set set >refused.out 2>refused.err || rc=$?
check "every fold refused (exit 1): the script exits 1" test "$rc" = 1
check "a refused fold is printed Not fitted" grep -q '^Not fitted: calibrate refused the training traces of this fold: schedsim: fake calibrate failure, exit 1' refused.out
check "its held-out traces are replayed with the starting costs" grep -q '^held out: \*\*periodic-t4.r2\*\*' refused.out
check "it says nothing was calibrated" grep -q 'calibrate refused every fold (2): nothing was calibrated' refused.err

rc=0
bash "$SRC/scripts/calibrate-holdout.sh" "$W/fake-3" --set set >crash.out 2>crash.err || rc=$?
check "a calibrate that fails otherwise (exit 3): the script exits 3" test "$rc" = 3
check "its message is printed" grep -q 'fake calibrate failure, exit 3' crash.err
check "the script names the fold" grep -q "calibrate-holdout: calibrate failed (exit 3) on fold 'fit half A" crash.err
check "the failure is not reported as a refusal" bash -c "! grep -q 'Not fitted' crash.out"

# Usage errors exit 2 with the usage line (they exited 1 with bash's "1: usage: ..." before).
usage_rc() { local rc=0; bash "$SRC/scripts/calibrate-holdout.sh" "$@" >/dev/null 2>usage.err || rc=$?; echo "$rc"; }
check "no SCHEDSIM: exit 2" test "$(usage_rc)" = 2
check "no SCHEDSIM: the usage line" grep -q '^calibrate-holdout: give the schedsim binary (usage: ' usage.err
check "a SCHEDSIM that is not an executable: exit 2" test "$(usage_rc "$W/no-such-binary" --set set)" = 2
check "--set without DIR: exit 2" test "$(usage_rc "$S" --set)" = 2
check "too many arguments: exit 2" test "$(usage_rc "$S" --set set 6.18 extra)" = 2
exit $fail
