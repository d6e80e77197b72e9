// SimConfig::update_curr (engine.cpp on_run_done(), work.cpp update_progress()): when the running
// task's time reaches the queue, and what that decides for a DELAY_DEQUEUE'd wakee woken in place
// (ttwu_runnable() -> requeue_delayed_entity(), which calls no update_curr(), then the
// wakeup-preemption check, which does). docs/model.md "Local wakeup preemption".
#include <catch2/catch.hpp>

#include "schedsim/engine/engine.hpp"
#include "schedsim/policies/registry.hpp"
#include "switch_log.hpp"
#include "two_cpus.hpp"
#include "zero_costs.hpp"

using namespace schedsim;

namespace {

using Switches = testing::SwitchLog;
using testing::running;

SimSummary simulate(const Workload& w, UpdateCurr u, Switches* sw) {
  Topology topo = testing::regular_cpus(1);
  const KernelProfile& k = kernel_profile("6.18");
  FeatureSet f;
  for (const auto& [name, on] : k.features) f.set(name, on);
  PolicyStack pol = builtin_registry().make(k.modules, f);
  SimConfig cfg;
  cfg.update_curr = u;
  cfg.check_invariants_full = true;
  Simulation sim(w, topo, std::move(pol), testing::zero_costs(), cfg);
  sim.add_observer(sw);
  return sim.run();
}

}  // namespace

TEST_CASE("update_curr: a delayed wakee preempts a waker that ran past it only under events", "[engine][update_curr]") {
  // 6.18 (EEVDF, DELAY_DEQUEUE, DELAY_ZERO, RUN_TO_PARITY), one CPU, two equal tasks placed at
  // V = 0. A runs 10 us and blocks: v_A = 10 us > V = 5 us, not eligible, so it stays queued
  // (delayed). B (v_B = 0) runs 13 us, then wakes A.
  //   events (the kernel): B's 13 us are not yet charged at requeue_delayed_entity(), so V there
  //   is still 5 us; A's lag 5 - 10 < 0 keeps v_A = 10 us. The wakeup check charges B
  //   (v_B = 13 us, V = 11.5 us): B is not eligible and is dropped from the pick, A wins: B is
  //   preempted at 23 us.
  //   actions (historical): B's run end charged v_B = 13 us before the wake; A's lag against
  //   V = 11.5 us is positive, DELAY_ZERO re-places it at V (= v_B, the only other entity): B is
  //   eligible and protected, and keeps the CPU until it exits at 123 us.
  Workload w;
  w.add_task(running("A", {Action::run(Duration::us(10)), Action::block(), Action::run(Duration::us(10))}));
  w.add_task(running("B", {Action::run(Duration::us(13)), Action::wake(TaskId(0)), Action::run(Duration::us(100))}));
  Switches ev, ac;
  SimSummary se = simulate(w, UpdateCurr::kEvents, &ev);
  SimSummary sa = simulate(w, UpdateCurr::kActions, &ac);
  CHECK(se.complete);
  CHECK(sa.complete);
  // The same wake in both: in place, no placement.
  for (const Switches* s : {&ev, &ac}) {
    REQUIRE(s->wakes.size() == 1);
    CHECK(s->wakes[0].at == Instant::zero() + Duration::us(23));
    CHECK(s->wakes[0].placement.outcome == PlaceOutcome::kDelayed);
  }
  REQUIRE(ev.in(0, 1));
  CHECK(ev.in(0, 1)->at == Instant::zero() + Duration::us(23));
  CHECK(ev.in(0, 1)->prev.value() == 1);
  CHECK(ev.in(0, 1)->why == SwitchReason::kPreempt);
  REQUIRE(ac.in(0, 1));
  CHECK(ac.in(0, 1)->at == Instant::zero() + Duration::us(123));
  CHECK(ac.in(0, 1)->why == SwitchReason::kExit);
  // Only when the scheduler sees the time moves, not how much work is done.
  CHECK(se.work_done == sa.work_done);
  CHECK(se.work_done == Duration::us(133));
  CHECK(se.end == Instant::zero() + Duration::us(133));
  CHECK(sa.end == Instant::zero() + Duration::us(133));
}

TEST_CASE("update_curr: the rule moves no work done", "[engine][update_curr]") {
  // A program of many short runs on one CPU: the accounting rule changes no work and, without
  // another task to decide against, no switch.
  Workload w;
  w.add_task(running("A", std::vector<Action>(50, Action::run(Duration::us(7)))));
  Switches ev, ac;
  SimSummary se = simulate(w, UpdateCurr::kEvents, &ev);
  SimSummary sa = simulate(w, UpdateCurr::kActions, &ac);
  CHECK(se.work_done == Duration::us(350));
  CHECK(sa.work_done == Duration::us(350));
  CHECK(se.end == sa.end);
  CHECK(ev.log.size() == ac.log.size());
}

TEST_CASE("update_curr: names", "[engine][update_curr]") {
  UpdateCurr u = UpdateCurr::kActions;
  CHECK(parse_update_curr("events", u));
  CHECK(u == UpdateCurr::kEvents);
  CHECK(std::string(to_string(u)) == "events");
  CHECK(parse_update_curr("actions", u));
  CHECK(u == UpdateCurr::kActions);
  CHECK_FALSE(parse_update_curr("bogus", u));
}
