# The real recordings the fidelity tables are made of, sourced by scripts/fidelity.sh and
# scripts/analysis/wake_match.sh (set `here` to the repository's top first). Defines D, X, Q (the
# trace folders), QM, QB and TRACES: name | trace | topology | selection options | machine and
# kernel | machine cost file ("" for the loaded 2-vCPU fixtures, which have none).
# shellcheck shell=bash disable=SC2034,SC2154
D=$here/tests/data/traces
X=$D/xeon-vm-16cpu
Q=$D/smp2-quiet
QM="2-vCPU KVM guest (AMD EPYC), Linux 6.18, quiet (load 0.2)"
# The recorder as background load (above); perf-sched-messaging was recorded by perf, not schedsim.
QB='--background-comm ^schedsim$'

# name | trace | topology | selection options | machine and kernel | machine cost file
TRACES=(
  "hackbench-pipe-g2|$D/hackbench-pipe-g2.ftrace.gz|smp2||2-vCPU KVM guest (AMD EPYC), Linux 6.18, other builds running"
  "perf-bench-pipe|$D/perf-bench-pipe.ftrace.gz|smp2||2-vCPU KVM guest (AMD EPYC), Linux 6.18, other builds running"
  "perf-bench-messaging|$D/perf-bench-messaging.ftrace.gz|smp2||2-vCPU KVM guest (AMD EPYC), Linux 6.18, other builds running"
  "fork-loop|$D/fork-loop.ftrace.zst|smp2||2-vCPU KVM guest (AMD EPYC), Linux 6.18, other builds running"
  "perf-sched-messaging|$D/perf-sched-messaging.perf-script.gz|smp2|--comm sched-messaging|2-vCPU KVM guest (AMD EPYC), Linux 6.18, perf 6.1 script, other builds running"
  "quiet hb-pipe-proc-g2-l100|$Q/hb-pipe-proc-g2-l100.r3.ftrace.gz|smp2|$QB|$QM|$Q/costs.json"
  "quiet hb-pipe-thr-g1-l400|$Q/hb-pipe-thr-g1-l400.r2.ftrace.zst|smp2|$QB|$QM|$Q/costs.json"
  "quiet hb-sock-proc-g1-l100|$Q/hb-sock-proc-g1-l100.r1.ftrace.gz|smp2|$QB|$QM|$Q/costs.json"
  "quiet perf-pipe-l2000|$Q/perf-pipe-l2000.r3.ftrace.gz|smp2|$QB|$QM|$Q/costs.json"
  "quiet perf-msg-g1-l20|$Q/perf-msg-g1-l20.r1.ftrace.gz|smp2|$QB|$QM|$Q/costs.json"
  "quiet fork-40|$Q/fork-40.r1.ftrace.gz|smp2|$QB|$QM|$Q/costs.json"
  "quiet periodic-t4|$Q/periodic-t4.r3.ftrace.gz|smp2|$QB|$QM|$Q/costs.json"
  "quiet perf-sched-messaging|$Q/perf-sched-messaging.perf-script.gz|smp2|--comm sched-messaging|$QM, perf 6.1 script|$Q/costs.json"
  "xeon16 msg-g1-l400|$X/msg-g1-l400.trace.gz|$X/lscpu-p.txt|--comm loadgen|16-vCPU KVM guest (Intel Xeon, no SMT, one LLC), Linux 6.18, quiet|$X/costs.json"
  "xeon16 fork-2000|$X/fork-2000.trace.gz|$X/lscpu-p.txt|--comm loadgen|16-vCPU KVM guest (Intel Xeon, no SMT, one LLC), Linux 6.18, quiet|$X/costs.json"
  "xeon16 periodic-t24|$X/periodic-t24.trace.gz|$X/lscpu-p.txt|--comm loadgen|16-vCPU KVM guest (Intel Xeon, no SMT, one LLC), Linux 6.18, quiet|$X/costs.json"
)
