#!/bin/bash
# Every command checks a memory budget (issue #31, class 7): SCHEDSIM_MAX_MEMORY, else 80% of
# MemAvailable; run's --max-memory replaces it. A generator asked for 800,001 tasks (1.2 GB)
# stops at the budget with exit 5 instead of taking what it needs (--group 100000: 11.3 GB).
# Usage: memory_budget.sh SCHEDSIM SRCDIR WORKDIR
set -u
# shellcheck source=../lib/check.sh
. "$2/tests/lib/check.sh" "$@"
SCHEDSIM_MAX_MEMORY=200M "$S" gen messaging --group 20000 -l 1 -o w.json > /dev/null 2> err.txt; rc=$?
check "gen past SCHEDSIM_MAX_MEMORY: exit 5, the budget named, no file" \
  bash -c "test $rc = 5 && grep -q 'memory budget exceeded: .*(SCHEDSIM_MAX_MEMORY=200M)' err.txt && ! test -e w.json"
SCHEDSIM_MAX_MEMORY=200M "$S" run --workload-gen 'messaging --group 20000 -l 1' -t smp2 > /dev/null 2> err.txt; rc=$?
check "run's generation past SCHEDSIM_MAX_MEMORY: exit 5" bash -c "test $rc = 5 && grep -q 'memory budget exceeded' err.txt"
SCHEDSIM_MAX_MEMORY=lots "$S" policies > /dev/null 2> err.txt; rc=$?
check "a bad SCHEDSIM_MAX_MEMORY: exit 1 naming it" bash -c "test $rc = 1 && grep -q '^SCHEDSIM_MAX_MEMORY: error: expected a size' err.txt"
SCHEDSIM_MAX_MEMORY=none "$S" gen messaging --group 2 -l 1 -o small.json > /dev/null 2>&1; rc=$?
check "SCHEDSIM_MAX_MEMORY=none: no budget" test "$rc" = 0
exit $fail
