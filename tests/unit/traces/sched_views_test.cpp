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
