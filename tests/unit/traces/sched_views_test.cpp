// perf sched views (traces/src/sched_views.cpp) on hand-built event sequences whose expected
// figures are worked out in the comments.
#include <catch2/catch.hpp>

#include <utility>

#include "schedsim/base/error.hpp"
#include "schedsim/traces/sched_views.hpp"

using namespace schedsim;
using namespace schedsim::traces;

namespace {
constexpr int64_t kUs = 1000;

TraceEvent sw(int64_t ts_us, int cpu, int64_t prev, const char* prev_comm, const char* state, int64_t next,
              const char* next_comm) {
  TraceEvent e;
  e.type = EventType::kSwitch;
  e.ts = ts_us * kUs;
  e.cpu = cpu;
  e.pid = prev;
  e.comm = prev_comm;
  const std::string st(state);
  e.state = st == "S" ? kStateSleeping : st == "R+" ? kStatePreempted : kStateRunnable;
  e.other_pid = next;
  e.other_comm = next_comm;
  return e;
}

TraceEvent wake(int64_t ts_us, int cpu, int64_t pid, const char* comm, EventType t = EventType::kWaking) {
  TraceEvent e;
  e.type = t;
  e.ts = ts_us * kUs;
  e.cpu = cpu;
  e.other_pid = pid;
  e.other_comm = comm;
  return e;
}

// CPU 0: idle -> A(10) at 100; A sleeps at 300 (idle); B(11) woken at 350 by an interrupt,
// runs at 400; A woken at 420, B preempted (R+) at 500 by A; A sleeps at 600 -> B (waited 100
// us since its preemption); B sleeps at 650.
std::vector<TraceEvent> scenario() {
  return {sw(100, 0, 0, "swapper/0", "R", 10, "a"),  wake(350, 0, 11, "b"),
          sw(300, 0, 10, "a", "S", 0, "swapper/0"),  // (out of order on purpose: sorted below)
          sw(400, 0, 0, "swapper/0", "R", 11, "b"),  wake(420, 0, 10, "a"),
          sw(500, 0, 11, "b", "R+", 10, "a"),        sw(600, 0, 10, "a", "S", 11, "b"),
          sw(650, 0, 11, "b", "S", 0, "swapper/0")};
}

std::string run(SchedViewOptions o) {
  auto evs = scenario();
  std::stable_sort(evs.begin(), evs.end(), [](const TraceEvent& x, const TraceEvent& y) { return x.ts < y.ts; });
  SchedViews v(std::move(o));
  for (const auto& e : evs) v.on_event(e);
  return v.render();
}
}  // namespace

TEST_CASE("sched latency: delays from wakeups and from preemption, runtime from switch to switch", "[traces]") {
  SchedViewOptions o;
  o.per_pid = true;
  const std::string out = run(o);
  // a: first switch-in at 100 unknown (0 delay, 1 switch); woken 420, in at 500: 80 us.
  //    runtime 100-300 and 500-600 = 300 us. avg 40 us, max 80 us (0.000420 -> 0.000500).
  CHECK(out.find("  a:10                  |      0.300 ms |        2 | avg:   0.040 ms | max:   0.080 ms | "
                 "max start:     0.000420 s | max end:     0.000500 s") != std::string::npos);
  // b: woken 350, in at 400: 50 us; preempted 500, in at 600: 100 us. runtime 400-500, 600-650.
  CHECK(out.find("  b:11                  |      0.150 ms |        2 | avg:   0.075 ms | max:   0.100 ms | "
                 "max start:     0.000500 s | max end:     0.000600 s") != std::string::npos);
  CHECK(out.find("  TOTAL:                |      0.450 ms |        4 |") != std::string::npos);
  CHECK(out.find("note: 1 switch-in of tasks") != std::string::npos);
  // Default sort avg first: b (75 us) before a (40 us).
  CHECK(out.find("b:11") < out.find("a:10"));
  o.sort = {"pid"};  // largest pid first
  CHECK(run(o).find("b:11") < run(o).find("a:10"));
  o.sort = {"runtime"};
  CHECK(run(o).find("a:10") < run(o).find("b:11"));
  o.sort = {"comm"};
  CHECK(run(o).find("a:10") < run(o).find("b:11"));
}

TEST_CASE("sched latency: one row per comm merges pids", "[traces]") {
  SchedViews v(SchedViewOptions{});
  v.on_event(wake(10, 0, 5, "w"));
  v.on_event(sw(20, 0, 0, "swapper/0", "R", 5, "w"));    // 10 us
  v.on_event(wake(25, 0, 6, "w"));
  v.on_event(sw(30, 0, 5, "w", "S", 6, "w"));            // 5 us
  v.on_event(sw(40, 0, 6, "w", "S", 0, "swapper/0"));
  const std::string out = v.render();
  CHECK(out.find("  w:(2)                 |      0.020 ms |        2 | avg:   0.007 ms | max:   0.010 ms | "
                 "max start:     0.000010 s | max end:     0.000020 s") != std::string::npos);
}

TEST_CASE("sched latency: an unknown sort key is refused with a suggestion", "[traces]") {
  SchedViewOptions o;
  o.sort = {"maxx"};
  CHECK_THROWS_WITH(SchedViews(o), Catch::Contains("did you mean 'max'"));
}

TEST_CASE("sched timehist: wait time, wakeup delay and run time per switch-out", "[traces]") {
  SchedViewOptions o;
  o.view = SchedView::kTimehist;
  const std::string out = run(o);
  // a out at 300: first run (in at 100): wait 0, delay 0, run 0.200.
  CHECK(out.find("       0.000300 [0000]  a[10]                               0.000      0.000      0.200 \n") !=
        std::string::npos);
  // b out at 500 (R+): in at 400, woken 350 -> delay 0.050; first run -> wait 0; run 0.100.
  CHECK(out.find("       0.000500 [0000]  b[11]                               0.000      0.050      0.100 \n") !=
        std::string::npos);
  // a out at 600: last out 300, in at 500 -> wait 0.200; woken 420 -> delay 0.080; run 0.100.
  CHECK(out.find("       0.000600 [0000]  a[10]                               0.200      0.080      0.100 \n") !=
        std::string::npos);
  // b out at 650: preempted at 500, in at 600: wait 0.100, no wakeup -> delay 0; run 0.050.
  CHECK(out.find("       0.000650 [0000]  b[11]                               0.100      0.000      0.050 \n") !=
        std::string::npos);
  CHECK(out.find("swapper") == std::string::npos);
}

TEST_CASE("sched map: a column per CPU from the first row, names at first switch-in", "[traces]") {
  SchedViews v(SchedViewOptions{SchedView::kMap, {}, false});
  v.set_nr_cpus(2);
  v.on_event(sw(100, 0, 0, "swapper/0", "R", 10, "a"));
  v.on_event(sw(150, 1, 0, "swapper/1", "R", 11, "b"));
  v.on_event(sw(200, 0, 10, "a", "S", 0, "swapper/0"));
  v.on_event(sw(250, 1, 11, "b", "S", 10, "a"));
  CHECK(v.render() ==
        "  *A0           0.000100 secs A0 => a:10\n"
        "   A0 *B0       0.000150 secs B0 => b:11\n"
        "  *.   B0       0.000200 secs .  => swapper:0\n"
        "   .  *A0       0.000250 secs \n");
}

namespace {
SchedViewOptions map_opts() {
  SchedViewOptions o;
  o.view = SchedView::kMap;
  return o;
}
// Four CPUs; CPU 2 switches first, then CPU 0; CPU 1 and 3 never do.
void feed_two_cpus(SchedViews& v) {
  v.set_nr_cpus(4);
  v.on_event(sw(100, 2, 0, "swapper/2", "R", 10, "a"));
  v.on_event(sw(150, 0, 0, "swapper/0", "R", 11, "b"));
  v.on_event(sw(200, 2, 10, "a", "S", 0, "swapper/2"));
}
}  // namespace

TEST_CASE("sched map --compact: a column per CPU that switched, in the order they first did", "[traces]") {
  SchedViewOptions o = map_opts();
  o.compact = true;
  SchedViews v(o);
  feed_two_cpus(v);
  // No column for CPUs 1 and 3; CPU 2's column comes first; rows are not padded to the end.
  CHECK(v.render() ==
        "  *A0       0.000100 secs A0 => a:10 (CPU 2)\n"
        "   A0 *B0       0.000150 secs B0 => b:11 (CPU 0)\n"
        "  *.   B0       0.000200 secs .  => swapper:0\n");
}

TEST_CASE("sched map --cpus: only the listed CPUs' columns and rows, names given on them", "[traces]") {
  SchedViewOptions o = map_opts();
  o.cpus = {0};
  SchedViews v(o);
  feed_two_cpus(v);
  // CPU 2's rows are left out, and the name its task would have had there is not used up.
  CHECK(v.render() == "  *A0       0.000150 secs A0 => b:11\n");
  o.cpus = {3, 0};  // any order; a CPU that never switched has a column
  SchedViews w(o);
  feed_two_cpus(w);
  CHECK(w.render() == "  *A0           0.000150 secs A0 => b:11\n");
  o.cpus = {4};
  SchedViews x(o);
  feed_two_cpus(x);
  CHECK_THROWS_WITH(x.render(), Catch::Contains("--cpus") && Catch::Contains("CPU 4 is beyond the trace's CPUs (0-3)"));
}

TEST_CASE("sched timehist -s: per-task run statistics, idle time per CPU, totals", "[traces]") {
  SchedViewOptions o;
  o.view = SchedView::kTimehist;
  o.summary = SchedSummary::kOnly;
  const std::string out = run(o);
  CHECK(out.find("wait time") == std::string::npos);  // -s: the summary alone
  // a: runs 0.200 and 0.100: mean 0.150, sample sd 0.0707, its standard error 0.050 = 33.33%.
  CHECK(out.find("\n                         a[10]      -1          2        0.300      0.100       0.150       "
                 "0.200   33.33       0\n") != std::string::npos);
  // b: runs 0.100 and 0.050.
  CHECK(out.find("\n                         b[11]      -1          2        0.150      0.050       0.075       "
                 "0.100   33.33       0\n") != std::string::npos);
  // CPU 0's idle task ran 300-400 us (its first switch-out at 100 counts 0) of the 550 us window.
  CHECK(out.find("\nIdle stats:\n    CPU  0 idle for      0.100  msec  ( 18.18%)\n") != std::string::npos);
  CHECK(out.find("    Total number of unique tasks: 2\n"
                 "Total number of context switches: 6\n"
                 "           Total run time (msec): 0.450 \n"
                 "    Total scheduling time (msec): 0.550  (x 1)\n") != std::string::npos);
  o.summary = SchedSummary::kWithRows;  // -S: the rows, then the summary
  const std::string with = run(o);
  CHECK(with.find("wait time") < with.find("Runtime summary"));
}

TEST_CASE("sched timehist -s: terminated tasks apart, parents from forks, migrations counted", "[traces]") {
  SchedViewOptions o;
  o.view = SchedView::kTimehist;
  o.summary = SchedSummary::kOnly;
  SchedViews v(o);
  TraceEvent fork;
  fork.type = EventType::kFork;
  fork.ts = 50 * kUs;
  fork.cpu = 0;
  fork.pid = 10;
  fork.other_pid = 266;
  fork.other_comm = "c";
  v.on_event(fork);
  v.on_event(sw(100, 0, 0, "swapper/0", "R", 11, "b"));
  v.on_event(sw(200, 0, 11, "b", "S", 266, "c"));
  TraceEvent mig;
  mig.type = EventType::kMigrate;
  mig.ts = 250 * kUs;
  mig.cpu = 0;
  mig.other_pid = 11;
  mig.other_comm = "b";
  v.on_event(mig);
  TraceEvent dies = sw(300, 0, 266, "c", "S", 10, "a");
  dies.state = kStateZombie;
  v.on_event(dies);
  v.on_event(sw(400, 0, 10, "a", "S", 0, "swapper/0"));
  const std::string out = v.render();
  CHECK(out.find("a[10]") < out.find("b[11]"));
  CHECK(out.find("b[11]      -1          1        0.100      0.100       0.100       0.100    0.00       1\n") !=
        std::string::npos);
  CHECK(out.find("\nTerminated tasks:\n                        c[266]      10") != std::string::npos);
  CHECK(out.find("Terminated tasks") > out.find("b[11]"));
}

TEST_CASE("sched timehist -V: a character per CPU marks the row's", "[traces]") {
  SchedViewOptions o;
  o.view = SchedView::kTimehist;
  o.cpu_visual = true;
  SchedViews v(o);
  v.set_nr_cpus(2);
  v.on_event(sw(100, 1, 0, "swapper/1", "R", 10, "a"));
  v.on_event(sw(200, 1, 10, "a", "S", 0, "swapper/1"));
  const std::string out = v.render();
  CHECK(out.find("           time    cpu  01  task name") == 0);
  CHECK(out.find("\n--------------- ------  --  ----") != std::string::npos);
  CHECK(out.find("       0.000100 [0001]   i  <idle>") != std::string::npos);
  CHECK(out.find("       0.000200 [0001]   s  a[10]   ") != std::string::npos);
}

TEST_CASE("sched views as JSON and CSV: the same rows, typed, times in ns", "[traces]") {
  SchedViewOptions o;
  o.view = SchedView::kTimehist;
  o.format = SchedFormat::kJson;
  const std::string json = run(o);
  CHECK(json.find(R"({"schema":"schedsim-sched","version":1,"view":"timehist","rows":[)") == 0);
  CHECK(json.find(R"({"time_ns":600000,"cpu":0,"event":"switch","comm":"a","tid":10,"wait_ns":200000,)"
                  R"("sch_delay_ns":80000,"run_ns":100000,"other_comm":null,"other_tid":null,"from_cpu":null,)"
                  R"("to_cpu":null})") != std::string::npos);
  CHECK(json.substr(json.size() - 5) == "}\n]}\n");
  o.format = SchedFormat::kCsv;
  const std::string csv = run(o);
  CHECK(csv.find("time_ns,cpu,event,comm,tid,wait_ns,sch_delay_ns,run_ns,other_comm,other_tid,from_cpu,to_cpu\n") == 0);
  CHECK(csv.find("\n600000,0,switch,a,10,200000,80000,100000,,,,\n") != std::string::npos);
  o.view = SchedView::kLatency;
  o.per_pid = true;
  const std::string lat = run(o);
  CHECK(lat.find("comm,pid,tasks,runtime_ns,switches,avg_delay_ns,max_delay_ns,max_delay_start_ns,"
                 "max_delay_end_ns\nb,11,1,150000,2,75000,100000,500000,600000\n") == 0);
  o.view = SchedView::kMap;
  const std::string map = run(o);
  CHECK(map.find("time_ns,cpu,pid,comm,name,cpu0\n100000,0,10,a,A0,A0\n300000,0,0,swapper/0,.,.\n") == 0);
  o.view = SchedView::kTimehist;
  o.summary = SchedSummary::kOnly;
  const std::string sum = run(o);
  CHECK(sum.find("comm,tid,parent,sched_in,run_ns,min_run_ns,avg_run_ns,max_run_ns,stddev_pct,migrations,"
                 "terminated,cpu\n") == 0);
  // CPU 0's idle runs, 0 and 100 us: the standard error of their mean is 100% of it.
  CHECK(sum.find("\n<idle>,0,,2,100000,0,50000,100000,100.00,0,false,0\n") != std::string::npos);
  o.summary = SchedSummary::kWithRows;  // two tables do not fit one JSON array or CSV
  CHECK_THROWS_WITH(SchedViews(o), Catch::Contains("-S"));
}

TEST_CASE("sched views in colour: long delays in timehist, the switching CPU in map", "[traces]") {
  SchedViewOptions o;
  o.view = SchedView::kTimehist;
  o.highlight_delay = 60 * kUs;
  const std::string plain = run(o);
  CHECK(plain.find('\033') == std::string::npos);
  o.color = true;
  const std::string coloured = run(o);
  // a's row at 600 waited 80 us since its wakeup: red; b's at 500 waited 50 us: plain.
  CHECK(coloured.find("\033[31m       0.000600 [0000]  a[10]                               0.200      0.080      "
                      "0.100 \033[m\n") != std::string::npos);
  CHECK(coloured.find("\n       0.000500 [0000]  b[11] ") != std::string::npos);
  o.view = SchedView::kMap;
  CHECK(run(o).find("  \033[41m*A0\033[m       0.000100 secs A0 => a:10\n") == 0);
  // --color-pids: a's name in blue, its CPU's star still on red; --color-cpus without CPU 0: no
  // red, the blue name stays.
  o.color_pids = {10};
  CHECK(run(o).find("  \033[41m*\033[m\033[34mA0\033[m       0.000100 secs A0 => a:10\n") == 0);
  o.color_cpus = {1};
  CHECK(run(o).find("  *\033[34mA0\033[m       0.000100 secs A0 => a:10\n") == 0);
  o.color_pids = {};
  CHECK(run(o).find("  *A0       0.000100 secs A0 => a:10\n") == 0);
  o.color = false;
  o.color_pids = {10};
  CHECK(run(o).find('\033') == std::string::npos);
}

TEST_CASE("sched views: colour only on a terminal, without NO_COLOR, in the table", "[traces]") {
  CHECK(color_wanted(true, nullptr, SchedFormat::kTable));
  CHECK(color_wanted(true, "", SchedFormat::kTable));  // an empty NO_COLOR does not count
  CHECK_FALSE(color_wanted(true, "1", SchedFormat::kTable));
  CHECK_FALSE(color_wanted(false, nullptr, SchedFormat::kTable));
  CHECK_FALSE(color_wanted(true, nullptr, SchedFormat::kJson));
  CHECK_FALSE(color_wanted(true, nullptr, SchedFormat::kCsv));
}
