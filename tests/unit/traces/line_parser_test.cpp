// Line parser tests on example lines of every era and tool (docs/sources.md, "Trace formats").
#include <catch2/catch.hpp>

#include "schedsim/traces/line_parser.hpp"

using namespace schedsim::traces;

namespace {
struct Expect {
  const char* line;
  EventType type;
  int64_t line_pid;
  int32_t cpu;
  int64_t ts;
  int64_t pid;        // payload pid (prev/parent/exiting), -1 = not checked
  int64_t other_pid;  // next/wakee/child, -1 = not checked
  bool irq;
};

const Expect kLines[] = {
    // §1.1 (a) 3.3-5.9 / 2.6.3x / RT / noirqinfo / tgid / android
    {"            init-0     [009]  1792.914837: sched_stat_wait: comm=x86_64-linux-gc pid=881 delay=10686 [ns]",
     EventType::kOther, 0, 9, 1792914837000, -1, -1, false},
    {"          <idle>-0       [007] dN.h4..    46.299705: sched_wakeup: comm=rcuc/7 pid=53 prio=98 target_cpu=007",
     EventType::kWakeup, 0, 7, 46299705000, -1, 53, true},
    {"     ksoftirqd/7-54      [007] dN..313    46.299754: sched_wakeup: comm=rcu_preempt pid=11 prio=98 target_cpu=007",
     EventType::kWakeup, 54, 7, 46299754000, -1, 11, false},
    {"     rcu_preempt-11      [007] d...311    46.299766: sched_pi_setprio: comm=ksoftirqd/7 pid=54 oldprio=120 newprio=98",
     EventType::kOther, 11, 7, 46299766000, -1, -1, false},
    {"          cap.sh-24305   [001]    737.179215: sched_switch: prev_comm=cap.sh prev_pid=24305 prev_prio=120 prev_state=R ==> next_comm=cap.sh next_pid=24318 next_prio=120",
     EventType::kSwitch, 24305, 1, 737179215000, 24305, 24318, false},
    {"         cap2.sh-24863   (  24863) [001] .....   749.198842: sched_process_fork: comm=cap2.sh pid=24863 child_comm=cap2.sh child_pid=24865",
     EventType::kFork, 24863, 1, 749198842000, 24863, 24865, false},
    {"     rcu_preempt-15      (     15) [001] d..2.   749.198977: sched_switch: prev_comm=rcu_preempt prev_pid=15 prev_prio=120 prev_state=I ==> next_comm=cap2.sh next_pid=24865 next_prio=120",
     EventType::kSwitch, 15, 1, 749198977000, 15, 24865, false},
    {"com.google.android.youtube-23071 (23071) [002] d..5 214168.479892: sched_wakeup: comm=Binder:549_4 pid=2029 prio=120 success=1 target_cpu=000",
     EventType::kWakeup, 23071, 2, 214168479892000, -1, 2029, false},
    {"          <idle>-0     (-----) [001] d..3 214168.479898: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=ksoftirqd/1 next_pid=12 next_prio=120",
     EventType::kSwitch, 0, 1, 214168479898000, 0, 12, false},
    {"ksoftirqd/1-12    (   12) [001] d..3 214168.479967: sched_switch: prev_comm=ksoftirqd/1 prev_pid=12 prev_prio=120 prev_state=S ==> next_comm=rcu_preempt next_pid=7 next_prio=120",
     EventType::kSwitch, 12, 1, 214168479967000, 12, 7, false},
    {"           <...>-2677  [001]   840.863988: shrink_slab: shrink_icache_memory before=45300 after=45100",
     EventType::kOther, 2677, 1, 840863988000, -1, -1, false},
    // §1.2 comm with a space
    {"     Web Content-24307   [001] .....   737.128300: sched_process_fork: comm=Web Content pid=24307 child_comm=Web Content child_pid=24308",
     EventType::kFork, 24307, 1, 737128300000, 24307, 24308, false},
    // §1.4
    {"           <...>-3534  [003] d... 26186.338713: hrtimer_cancel: hrtimer=ffffaf6e0ad8ba70",
     EventType::kOther, 3534, 3, 26186338713000, -1, -1, false},
    {"     Web Content-2711  [003] d... 26186.336716: sched_switch: prev_comm=Web Content prev_pid=2711 prev_prio=120 prev_state=S ==> next_comm=CompositorTileW next_pid=3490 next_prio=120",
     EventType::kSwitch, 2711, 3, 26186336716000, 2711, 3490, false},
    {"  Network Thread-3481  [002] d... 26186.338675: sched_waking: comm=threaded-ml pid=3534 prio=120 target_cpu=002",
     EventType::kWaking, 3481, 2, 26186338675000, -1, 3534, false},
    {"     jbd2/sda1-8-24309   [000] d..2.   737.130000: sched_switch: prev_comm=jbd2/sda1-8 prev_pid=24309 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
     EventType::kSwitch, 24309, 0, 737130000000, 24309, 0, false},
    // §2.1 by era
    {"              sh-12958 [002] d..4 365761.624067: sched_wakeup: comm=sh pid=12958 prio=120 success=1 target_cpu=002",
     EventType::kWakeup, 12958, 2, 365761624067000, -1, 12958, false},
    {"ca.evenko.osheaga-32403 ( 32403) [001] d..3 214168.786119: sched_switch: prev_comm=.evenko.osheaga prev_pid=32403 prev_prio=120 prev_state=D|K ==> next_comm=smem_native_rpm next_pid=41 next_prio=120",
     EventType::kSwitch, 32403, 1, 214168786119000, 32403, 41, false},
    {" CompositorTileW-3490  [003] d... 26186.336819: sched_waking: comm=Compositor pid=3487 prio=120 target_cpu=000",
     EventType::kWaking, 3490, 3, 26186336819000, -1, 3487, false},
    {"          stress-10352   [004] d.h.  1035.382286: sched_stat_runtime: comm=stress pid=10352 runtime=995769 [ns] vruntime=0 [ns]",
     EventType::kOther, 10352, 4, 1035382286000, -1, -1, true},
    {"         loadgen-3726    [000] .....   281.501564: sched_process_exec: filename=.rec/loadgen pid=3726 old_pid=3726",
     EventType::kExec, 3726, 0, 281501564000, 3726, 3726, false},
    {"         loadgen-3727    [000] .....   281.502167: sched_process_exit: comm=loadgen pid=3727 prio=120 group_dead=true",
     EventType::kExit, 3727, 0, 281502167000, 3727, -1, false},
    {"          <idle>-0       [000] dNh2.   281.502592: sched_wakeup: comm=loadgen pid=3726 prio=120 target_cpu=000",
     EventType::kWakeup, 0, 0, 281502592000, -1, 3726, true},
    {"      migration/1-21     [001] d..3.   737.134366: sched_migrate_task: comm=jbd2/sda1-8 pid=24312 prio=120 orig_cpu=1 dest_cpu=0",
     EventType::kMigrate, 21, 1, 737134366000, -1, 24312, false},
    // §3 trace-cmd report: default plugin, -N, -R, -l, -t, multi-buffer
    {"                  bash-2890  [000]   282.016110: sched_switch:         bash:2890 [120] S ==> bash:5738 [120]",
     EventType::kSwitch, 2890, 0, 282016110000, 2890, 5738, false},
    {"                  bash-2890  [000]   282.015946: sched_wakeup_new:     bash:5738 [120] CPU:000",
     EventType::kWakeupNew, 2890, 0, 282015946000, -1, 5738, false},
    {"                  bash-2890  [000]   282.015932: sched_process_fork:    parent_comm=bash parent_pid=2890 child_comm=bash child_pid=5738",
     EventType::kFork, 2890, 0, 282015932000, 2890, 5738, false},
    {"                  bash-2890  [000]   282.016110: sched_switch:          prev_comm=bash prev_pid=2890 prev_prio=120 prev_state=1 next_comm=bash next_pid=5738 next_prio=120",
     EventType::kSwitch, 2890, 0, 282016110000, 2890, 5738, false},
    {"          bash-2890    0d..2.   282.016110: sched_switch:         bash:2890 [120] S ==> bash:5738 [120]",
     EventType::kSwitch, 2890, 0, 282016110000, 2890, 5738, false},
    {"                  bash-2890  [000]   282.016110239: sched_switch:         bash:2890 [120] S ==> bash:5738 [120]",
     EventType::kSwitch, 2890, 0, 282016110239, 2890, 5738, false},
    {"rsch:               sh-25276 [000]   761.864822: sched_switch:         prev_comm=sh prev_pid=25276 prev_prio=120 prev_state=Z ==> next_comm=bash next_pid=25273 next_prio=120",
     EventType::kSwitch, 25276, 0, 761864822000, 25276, 25273, false},
    {"rsch:            sleep-25278 [000]   761.859093: sched_switch:         sleep:25278 [120] D ==> Web Content:25277 [120] Latency: 869.800 usecs",
     EventType::kSwitch, 25278, 0, 761859093000, 25278, 25277, false},
    // §4 perf script (6.1 aligned, --ns, 3.4 unaligned)
    {"            perf 23927 [000]   719.220921:       sched:sched_waking: comm=migration/0 pid=18 prio=0 target_cpu=000",
     EventType::kWaking, 23927, 0, 719220921000, -1, 18, false},
    {"     migration/0    18 [000]   719.220936: sched:sched_migrate_task: comm=perf pid=23927 prio=120 orig_cpu=0 dest_cpu=1",
     EventType::kMigrate, 18, 0, 719220936000, -1, 23927, false},
    {"       perf-exec 23930 [001]   719.221751:       sched:sched_switch: prev_comm=perf-exec prev_pid=23930 prev_prio=120 prev_state=R+ ==> next_comm=slurmctld next_pid=23875 next_prio=120",
     EventType::kSwitch, 23930, 1, 719221751000, 23930, 23875, false},
    {"            perf 23927 [000]   719.220911969: sched:sched_stat_runtime: comm=perf pid=23927 runtime=68479 [ns]",
     EventType::kOther, 23927, 0, 719220911969, -1, -1, false},
    {"           swapper     0 [000]  6171.468063: sched_wakeup: comm=kworker/0:3 pid=1209 prio=120 success=1 target_cpu=000",
     EventType::kWakeup, 0, 0, 6171468063000, -1, 1209, false},
    {"            perf 23927/23927 [000]   719.220921:       sched:sched_waking: comm=migration/0 pid=18 prio=0 target_cpu=000",
     EventType::kWaking, 23927, 0, 719220921000, -1, 18, false},
    // perf's prefix for a task past exit_notify() (tid -1, comm ":-1"): no current task, not pid 1
    {"             :-1    -1 [000] 57444.983353933:       sched:sched_switch: prev_comm=sched-messaging prev_pid=11888 prev_prio=120 prev_state=X ==> next_comm=sched-messaging next_pid=11889 next_prio=120",
     EventType::kSwitch, -1, 0, 57444983353933, 11888, 11889, false},
    // §1.4 systrace: unknown comm rendered as <pid>, comm with spaces and digits
    {"          <7952>-7952  (-----) [000] d..3  5000.000100: sched_switch: prev_comm=shell srvc 7950 prev_pid=7950 prev_prio=120 prev_state=R ==> next_comm=<7952> next_pid=7952 next_prio=120",
     EventType::kSwitch, 7952, 0, 5000000100000, 7950, 7952, false},
};
}  // namespace

TEST_CASE("line parser: an example line of every era and tool", "[traces]") {
  LineParser p;
  for (const auto& x : kLines) {
    INFO(x.line);
    TraceEvent ev;
    REQUIRE(p.parse(x.line, ev) == LineKind::kEvent);
    CHECK(ev.type == x.type);
    CHECK(ev.line_pid == x.line_pid);
    CHECK(ev.cpu == x.cpu);
    CHECK(ev.ts == x.ts);
    if (x.pid >= 0) CHECK(ev.pid == x.pid);
    if (x.other_pid >= 0) CHECK(ev.other_pid == x.other_pid);
    CHECK(ev.irq_context == x.irq);
  }
}

TEST_CASE("line parser: x86 irq_vectors events (record --extra-events irq) in every text form", "[traces]") {
  // ftrace text, trace-cmd report and perf script forms of each event `--extra-events irq` records:
  // counted by name (kOther), the CPU and time read, nothing else.
  const char* const names[] = {"reschedule_entry",           "reschedule_exit",          "local_timer_entry",
                               "local_timer_exit",           "call_function_single_entry",
                               "call_function_single_exit"};
  for (const char* n : names) {
    const std::string lines[] = {
        std::string("       hackbench-9562    [001] d.h1. 47934.365879: ") + n + ": vector=253",
        std::string("       hackbench-9562  [001] 47934.365879: ") + n + ":     vector=253",
        std::string("       hackbench  9562 [001] 47934.365879: irq_vectors:") + n + ": vector=253"};
    for (const auto& l : lines) {
      INFO(l);
      LineParser p;
      TraceEvent ev;
      REQUIRE(p.parse(l, ev) == LineKind::kEvent);
      CHECK(ev.type == EventType::kOther);
      CHECK(ev.event_name == n);
      CHECK(ev.cpu == 1);
      CHECK(ev.line_pid == 9562);
      CHECK(ev.ts == 47934365879000);
    }
  }
}

TEST_CASE("line parser: comms and states are read by key", "[traces]") {
  LineParser p;
  TraceEvent ev;
  REQUIRE(p.parse("     Web Content-2711  [003] d... 26186.336716: sched_switch: prev_comm=Web Content prev_pid=2711 prev_prio=120 prev_state=S ==> next_comm=CompositorTileW next_pid=3490 next_prio=120", ev) == LineKind::kEvent);
  CHECK(ev.comm == "Web Content");
  CHECK(ev.line_comm == "Web Content");
  CHECK(ev.other_comm == "CompositorTileW");
  CHECK(ev.state == kStateSleeping);
  CHECK(ev.prio == 120);
  REQUIRE(p.parse("rsch:               sh-25276 [000]   761.864822: sched_switch:         prev_comm=sh prev_pid=25276 prev_prio=120 prev_state=Z ==> next_comm=bash next_pid=25273 next_prio=120", ev) == LineKind::kEvent);
  CHECK(p.buffer() == "rsch");
  CHECK(ev.line_comm == "sh");
  CHECK(classify_state(ev.state) == StateClass::kDead);
  // Plugin form: comm with ':' splits at the last ':'.
  REQUIRE(p.parse("  kworker/2:1-2923  [002]   100.000001: sched_switch:         kworker/2:1:2923 [120] R+ ==> memfd:sealed-91:1545 [120]", ev) == LineKind::kEvent);
  CHECK(ev.comm == "kworker/2:1");
  CHECK(ev.pid == 2923);
  CHECK(ev.other_comm == "memfd:sealed-91");
  CHECK(ev.other_pid == 1545);
  CHECK(ev.state == kStatePreempted);
  CHECK(p.hints().plugin_switch);
}

TEST_CASE("line parser: a comm holding another field's text is split by position, not by key", "[traces]") {
  // A comm is any 15 bytes (prctl(PR_SET_NAME)); these once made the parser read pid 7.
  LineParser p;
  TraceEvent ev;
  REQUIRE(p.parse("a prev_pid=7-49 [001] d..2.   10.000001: sched_switch: prev_comm=a prev_pid=7 prev_pid=49 prev_prio=120 prev_state=S ==> next_comm=b next_pid=7 next_pid=50 next_prio=120", ev) == LineKind::kEvent);
  CHECK(ev.comm == "a prev_pid=7");
  CHECK(ev.pid == 49);
  CHECK(ev.state == kStateSleeping);
  CHECK(ev.other_comm == "b next_pid=7");
  CHECK(ev.other_pid == 50);
  REQUIRE(p.parse("x-1 [001] d..2.   10.000002: sched_waking: comm=w pid=7 prio=1 pid=51 prio=120 target_cpu=001", ev) == LineKind::kEvent);
  CHECK(ev.other_comm == "w pid=7 prio=1");
  CHECK(ev.other_pid == 51);
  CHECK(ev.prio == 120);
  CHECK(ev.target_cpu == 1);
  REQUIRE(p.parse("x-1 [001] .....   10.000003: sched_process_fork: comm=p pid=3 pid=52 child_comm=c child_pid=9 child_pid=53", ev) == LineKind::kEvent);
  CHECK(ev.comm == "p pid=3");
  CHECK(ev.pid == 52);
  CHECK(ev.other_comm == "c child_pid=9");
  CHECK(ev.other_pid == 53);
  REQUIRE(p.parse("x-1 [001] .....   10.000004: sched_process_fork: parent_comm=q parent_pid=1 parent_pid=54 child_comm=r child_comm=s child_pid=55", ev) == LineKind::kEvent);
  CHECK(ev.comm == "q parent_pid=1");
  CHECK(ev.pid == 54);
  CHECK(ev.other_comm == "r child_comm=s");
  CHECK(ev.other_pid == 55);
  REQUIRE(p.parse("x-1 [001] .....   10.000005: sched_process_exit: comm=e pid=8 pid=56 prio=120", ev) == LineKind::kEvent);
  CHECK(ev.comm == "e pid=8");
  CHECK(ev.pid == 56);
  REQUIRE(p.parse("x-1 [001] d..2.   10.000006: sched_migrate_task: comm=m pid=2 pid=57 prio=120 orig_cpu=0 dest_cpu=1", ev) == LineKind::kEvent);
  CHECK(ev.other_comm == "m pid=2");
  CHECK(ev.other_pid == 57);
  CHECK(ev.target_cpu == 1);
  // trace-cmd's plugin rendering: " ==> " and " [9]" inside comms.
  REQUIRE(p.parse("  l-58  [000]   282.017266: sched_switch:         l [9] S ==> z:58 [120] R+ ==> k [1]:9:59 [120]", ev) == LineKind::kEvent);
  CHECK(ev.comm == "l [9] S ==> z");
  CHECK(ev.pid == 58);
  CHECK(ev.state == kStatePreempted);
  CHECK(ev.other_comm == "k [1]:9");
  CHECK(ev.other_pid == 59);
  REQUIRE(p.parse("  l-58  [000]   282.017267: sched_wakeup_new:     n [3]:60 [120] CPU:000", ev) == LineKind::kEvent);
  CHECK(ev.other_comm == "n [3]");
  CHECK(ev.other_pid == 60);
  // Longer than any kernel comm: the first key, as before.
  REQUIRE(p.parse("x-1 [001] .....   10.000008: sched_process_exit: comm=a comm longer than fifteen pid=61 prio=120", ev) == LineKind::kEvent);
  CHECK(ev.comm == "a comm longer than fifteen");
  CHECK(ev.pid == 61);
}

TEST_CASE("line parser: prev_state letters and numbers", "[traces]") {
  uint16_t s = 0;
  REQUIRE(decode_letter_state("R+", s));
  CHECK(s == kStatePreempted);
  CHECK(classify_state(s) == StateClass::kRunnable);
  REQUIRE(decode_letter_state("D|K", s));
  CHECK(s == (kStateDisk | kStateWakekill));
  CHECK(classify_state(s) == StateClass::kBlocked);
  REQUIRE(decode_letter_state("I", s));
  CHECK(classify_state(s) == StateClass::kBlocked);
  REQUIRE(decode_letter_state("x", s));
  CHECK(classify_state(s) == StateClass::kDead);
  CHECK_FALSE(decode_letter_state("Q", s));
  CHECK_FALSE(decode_letter_state("S|", s));
  CHECK(state_to_string(kStateDisk | kStateWakekill) == "D|K");
  // 4.14+: 0x10 = X, 0x20 = Z, 0x100 = preempted.
  REQUIRE(decode_numeric_state(0x100, StateLayout::kV4_14, s));
  CHECK(s == kStatePreempted);
  REQUIRE(decode_numeric_state(0x20, StateLayout::kV4_14, s));
  CHECK(s == kStateZombie);
  CHECK_FALSE(decode_numeric_state(1024, StateLayout::kV4_14, s));
  // 3.9-4.1: 1024 = preempted; 4.8-4.13: 4096; 64 = x, 130 = D|K before 4.14.
  StateLayout l;
  REQUIRE(state_layout_for_kernel("3.18", l));
  CHECK(l == StateLayout::kV3_9);
  REQUIRE(decode_numeric_state(1024, l, s));
  CHECK(s == kStatePreempted);
  REQUIRE(state_layout_for_kernel("4.9.140-tegra", l));
  CHECK(l == StateLayout::kV4_8);
  REQUIRE(decode_numeric_state(4096, l, s));
  CHECK(s == kStatePreempted);
  REQUIRE(decode_numeric_state(64, l, s));
  CHECK(s == kStateTaskDead);
  REQUIRE(decode_numeric_state(130, l, s));
  CHECK(s == (kStateDisk | kStateWakekill));
  CHECK_FALSE(state_layout_for_kernel("six", l));
}

TEST_CASE("line parser: markers, headers and errors", "[traces]") {
  LineParser p;
  TraceEvent ev;
  CHECK(p.parse("# tracer: nop", ev) == LineKind::kSkip);
  CHECK(p.parse("", ev) == LineKind::kSkip);
  CHECK(p.parse("cpus=6", ev) == LineKind::kSkip);
  CHECK(p.parse("CPU 3 is empty", ev) == LineKind::kSkip);
  CHECK(p.parse(" => __schedule", ev) == LineKind::kSkip);
  CHECK(p.parse("\t    ffffffff8110a2b4 __schedule+0x2d4 ([kernel.kallsyms])", ev) == LineKind::kSkip);
  REQUIRE(p.parse("CPU:1 [LOST 1539 EVENTS]", ev) == LineKind::kLost);
  CHECK(p.lost_cpu() == 1);
  CHECK(p.lost_count() == 1539);
  REQUIRE(p.parse("CPU:0 [LOST EVENTS]", ev) == LineKind::kLost);
  CHECK(p.lost_count() == -1);
  REQUIRE(p.parse("CPU:3 [123 EVENTS DROPPED]", ev) == LineKind::kLost);
  CHECK(p.lost_count() == 123);
  REQUIRE(p.parse("##### CPU 1 buffer started ####", ev) == LineKind::kBufferStarted);
  CHECK(p.lost_cpu() == 1);

  REQUIRE(p.parse("  cap.sh-24305     0d..2. 13670us : sched_switch: prev_comm=cap.sh prev_pid=24305 prev_prio=120 prev_state=R ==> next_comm=rcu_preempt next_pid=15 next_prio=120", ev) == LineKind::kError);
  CHECK(p.error().find("latency-format") != std::string::npos);
  CHECK(p.error_col() == 27);
  REQUIRE(p.parse("          cap.sh-24305   [001] d..2.            6: sched_switch: prev_comm=cap.sh prev_pid=24305 prev_prio=120 prev_state=R ==> next_comm=x next_pid=1 next_prio=120", ev) == LineKind::kError);
  CHECK(p.error().find("integer timestamps") != std::string::npos);
  REQUIRE(p.parse("          cap.sh-24305   [001] d..2.   737.1: sched_switch: prev_comm=cap.sh prev_pid=24305 prev_prio=120 prev_state=Q ==> next_comm=x next_pid=1 next_prio=120", ev) == LineKind::kError);
  CHECK(p.error() == "sched_switch: bad prev_state 'Q': expected R, R+, S, D, T, t, X, Z, P, I, x, K, W or N (joined by '|')");
}

TEST_CASE("line parser: numbers at the 19/20-digit boundary of the unchecked fast path", "[traces]") {
  // Up to 19 digits are read without overflow checks; 20 and more take the saturating path. Every
  // such value is out of range for a pid, CPU or prio and must be reported, never wrap around.
  const std::string pre = "          cap.sh-24305   [001] d..2.   737.100000: sched_switch: prev_comm=cap.sh prev_pid=24305 prev_prio=120 prev_state=S ==> next_comm=x next_pid=";
  LineParser p;
  TraceEvent ev;
  for (const char* pid : {"9999999999999999999", "18446744073709551615", "18446744073709551616",
                          "99999999999999999999999999"}) {
    INFO(pid);
    REQUIRE(p.parse(pre + pid + " next_prio=120", ev) == LineKind::kError);
    CHECK(p.error() == std::string("sched_switch: next_pid ") + pid + " out of range: expected 0..4194304");
  }
  // The same numbers at the very end of the line (no character after the last digit).
  REQUIRE(p.parse(pre + "1 next_prio=99999999999999999999", ev) == LineKind::kError);
  CHECK(p.error().find("next_prio 99999999999999999999 out of range") != std::string::npos);
  REQUIRE(p.parse(pre + "1 next_prio=1234567890123456789", ev) == LineKind::kError);
  CHECK(p.error().find("next_prio 1234567890123456789 out of range") != std::string::npos);
  REQUIRE(p.parse("          cap.sh-24305   [18446744073709551617] d..2.   737.100000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=x next_pid=2 next_prio=120", ev) == LineKind::kError);
  CHECK(p.error().find("CPU 18446744073709551617 out of range") != std::string::npos);
  // A 10-digit second count past the limit is still reported, not wrapped.
  REQUIRE(p.parse("          cap.sh-24305   [001] d..2. 9999999999.123456789: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=x next_pid=2 next_prio=120", ev) == LineKind::kError);
  CHECK(p.error().find("timestamp '9999999999.123456789' out of range") != std::string::npos);
  REQUIRE(p.parse("          cap.sh-24305   [001] d..2. 999999.123456789: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=x next_pid=2 next_prio=120", ev) == LineKind::kEvent);
  CHECK(ev.ts == 999999123456789);
}

TEST_CASE("line parser: a reused event carries nothing over from the previous line", "[traces]") {
  // The importer parses every line into the same pooled event (TraceEvent::reset keeps the
  // strings' buffers): long names from one line must not leak into the next.
  LineParser p;
  TraceEvent ev;
  REQUIRE(p.parse("   averyveryverylongcommname-881 [003] d..2 100.000001: sched_stat_runtime: comm=averyveryverylongcommname pid=881 runtime=5 [ns] vruntime=7 [ns]", ev) == LineKind::kEvent);
  CHECK(ev.event_name == "sched_stat_runtime");
  CHECK(ev.line_comm == "averyveryverylongcommname");
  ev.line = 42;
  REQUIRE(p.parse("  sh-7 [001] d..2 100.000002: sched_wakeup: comm=b pid=9 prio=120 target_cpu=001", ev) == LineKind::kEvent);
  TraceEvent fresh;
  CHECK(ev.event_name.empty());
  CHECK(ev.line_comm == "sh");
  CHECK(ev.comm.empty());
  CHECK(ev.other_comm == "b");
  CHECK(ev.line == fresh.line);
  CHECK(ev.pid == fresh.pid);
  CHECK(ev.orig_cpu == fresh.orig_cpu);
  CHECK(ev.success == fresh.success);
  CHECK(ev.state == fresh.state);
  CHECK(ev.other_value == fresh.other_value);
  CHECK(ev.line_tgid == fresh.line_tgid);
  CHECK(ev.other_prio == fresh.other_prio);
  CHECK(ev.target_cpu == 1);
  CHECK(ev.other_pid == 9);
  CHECK(p.hints().vruntime);
}

TEST_CASE("line parser: integer clocks with a frequency", "[traces]") {
  ParseOptions o;
  o.clock_hz = 1000;  // 1 tick = 1 ms
  LineParser p(o);
  TraceEvent ev;
  REQUIRE(p.parse("          cap.sh-24305   [001] d..2.            6: sched_switch: prev_comm=cap.sh prev_pid=24305 prev_prio=120 prev_state=R ==> next_comm=x next_pid=1 next_prio=120", ev) == LineKind::kEvent);
  CHECK(ev.ts == 6000000);
  CHECK(p.hints().integer_ts);
}

TEST_CASE("line parser: numeric prev_state of a 3.x trace-cmd -R dump", "[traces]") {
  const char* line = "                ls-4734  [002] 106439.675591: sched_switch:          prev_comm=trace-cmd prev_pid=4734 prev_prio=120 prev_state=1024 next_comm=migration/2 next_pid=18 next_prio=120";
  TraceEvent ev;
  LineParser modern;
  REQUIRE(modern.parse(line, ev) == LineKind::kError);
  CHECK(modern.error() == "sched_switch: bad prev_state '1024': not a state number of 4.14+ kernels (the --kernel-version given); without it the layout is inferred from the values");
  ParseOptions infer;
  infer.infer_layout = true;
  LineParser provisional(infer);
  REQUIRE(provisional.parse(line, ev) == LineKind::kEvent);
  CHECK(ev.state == kStateNoload);  // 4.8-4.13's reading, the newest layout that decodes 1024
  CHECK(provisional.hints().state_values == std::vector<uint64_t>{1024});
  ParseOptions o;
  REQUIRE(state_layout_for_kernel("3.18", o.layout));
  LineParser old(o);
  REQUIRE(old.parse(line, ev) == LineKind::kEvent);
  CHECK(ev.state == kStatePreempted);
  CHECK(ev.other_pid == 18);
  CHECK(old.hints().numeric_state);
}

TEST_CASE("prev_state layout inferred from the values a trace holds", "[traces]") {
  using O = StateLayoutInference::Outcome;
  // A LISA trace-cmd report -R of 4.9: 4096 is the preempted flag of 4.8-4.13 only.
  auto r = infer_state_layout({0, 1, 2, 64, 4096});
  CHECK(r.outcome == O::kDecided);
  CHECK(r.layout == StateLayout::kV4_8);
  // trappy's 3.x traces: 1024 alone is 3.9-4.1's preempted flag (on 4.2-4.13 TASK_NOLOAD, which
  // never comes without D).
  r = infer_state_layout({0, 1, 1024});
  CHECK(r.outcome == O::kDecided);
  CHECK(r.layout == StateLayout::kV3_9);
  // 4.14+: the preempted report 256 (TASK_WAKING alone before).
  r = infer_state_layout({0, 1, 256});
  CHECK(r.outcome == O::kDecided);
  CHECK(r.layout == StateLayout::kV4_14);
  // Values every layout reads alike: decided, the newest.
  r = infer_state_layout({0, 1, 2});
  CHECK(r.outcome == O::kDecided);
  CHECK(r.layout == StateLayout::kV4_14);
  CHECK(r.candidates.size() == 5);
  // 64: parked on 4.14+, dead before: truly ambiguous.
  r = infer_state_layout({0, 1, 64});
  CHECK(r.outcome == O::kAmbiguous);
  CHECK(r.why == "64 is P (blocked) on 4.14+ but x (dead) on 2.6.32-4.13");
  // 512 and 1024 together: parked and preempted on 3.9-4.1 only.
  r = infer_state_layout({512, 1024});
  CHECK(r.outcome == O::kDecided);
  CHECK(r.layout == StateLayout::kV3_9);
  r = infer_state_layout({1u << 20});
  CHECK(r.outcome == O::kNone);
  CHECK(r.why == "1048576 is not a state number in any kernel's layout");
}

TEST_CASE("line parser: syscall enter/exit events (no 'name:') are other events with their tracefs names", "[traces]") {
  // Lines of `schedsim record --extra-events syscalls` on 6.18 (tests/data/traces/vm618-extra-events.ftrace.gz).
  LineParser p;
  TraceEvent ev;
  REQUIRE(p.parse("             seq-11088   [000] ..... 20675.154708: sys_write(fd: 1, buf: 0x55a6b8138bd0, count: 0x444)", ev) ==
          LineKind::kEvent);
  CHECK(ev.type == EventType::kOther);
  CHECK(ev.event_name == "sys_enter_write");
  CHECK(ev.line_pid == 11088);
  CHECK(ev.ts == 20675154708000);
  REQUIRE(p.parse("              as-11075   [000] ..... 20675.150746: sys_read -> 0x8000", ev) == LineKind::kEvent);
  CHECK(ev.event_name == "sys_exit_read");
  // Not a syscall form: still refused.
  CHECK(p.parse("              as-11075   [000] ..... 20675.150746: sys_read 0x8000", ev) == LineKind::kError);
}
