#!/usr/bin/env bash
# Measures run-to-run noise of real hackbench runs on this machine: the figure behind the default
# size of `schedsim run --repeat`'s modelled noise (docs/compare.md "Noise model").
#
#   scripts/measure-noise.sh [REPEATS]       (default 15; at least 10 is meaningful)
#
# Times REPEATS runs of each workload below with hackbench's own "Time:" line (rt-tests, installed
# by scripts/install-deps.sh --test) and prints, per workload, n, mean, std (sample, n-1), CV, min
# and max in seconds. Other load on the machine widens the spread: quote the load average printed
# at the end with the figures.
set -euo pipefail
reps=${1:-15}
[ "$reps" -ge 2 ] 2>/dev/null || { echo "measure-noise.sh: REPEATS must be an integer >= 2" >&2; exit 2; }
command -v hackbench >/dev/null || { echo "measure-noise.sh: hackbench not found (apt-get install rt-tests)" >&2; exit 1; }

workloads=(
  "-g 4 -l 100 -p -T"      # threads, pipes, 4 groups (160 tasks)
  "-g 2 -l 200 -p"         # processes, pipes, 2 groups
  "-g 1 -l 1000 -p -T"     # threads, pipes, 1 group
)
printf '%-22s %3s %9s %9s %7s %9s %9s\n' workload n mean_s std_s cv min_s max_s
for w in "${workloads[@]}"; do
  # shellcheck disable=SC2086
  hackbench $w >/dev/null 2>&1 || true   # one warm-up run, not counted
  times=()
  for _ in $(seq "$reps"); do
    # shellcheck disable=SC2086
    t=$(hackbench $w 2>/dev/null | awk '/^Time:/ {print $2}')
    [ -n "$t" ] || { echo "measure-noise.sh: hackbench $w printed no Time: line" >&2; exit 1; }
    times+=("$t")
  done
  printf '%s\n' "${times[@]}" | awk -v w="$w" '
    {x[NR]=$1; s+=$1; if (NR==1||$1<mn) mn=$1; if (NR==1||$1>mx) mx=$1}
    END {m=s/NR; for(i=1;i<=NR;i++) v+=(x[i]-m)^2; sd=sqrt(v/(NR-1));
         printf "%-22s %3d %9.4f %9.4f %6.2f%% %9.4f %9.4f\n", w, NR, m, sd, 100*sd/m, mn, mx}'
done
echo "load average during measurement: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
