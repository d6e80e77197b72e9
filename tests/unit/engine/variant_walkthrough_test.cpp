// docs/adding-a-policy.md's claim, checked: a select_idle_sibling() variant is one file
// (sis_example_variant.cpp, written as a file under policies/src/placement/ is) plus one
// registration line, after which the registry lists it with its flags, a stack is built with it
// by name and the engine runs it.
#include <catch2/catch.hpp>

#include "schedsim/base/error.hpp"
#include "schedsim/engine/engine.hpp"
#include "schedsim/policies/registry.hpp"
#include "schedsim/policies/sis.hpp"

using namespace schedsim;

namespace schedsim::placement {
PlacementModuleDef sis_example();  // sis_example_variant.cpp
}

namespace {

// Counts the wakeups that fell back to target although the LLC held an idle CPU the wakee may
// use (on_wake runs before the wakee is sent, so the state is the one the search saw).
struct FallbackWatch : Observer {
  const SchedState* s = nullptr;
  uint64_t searched = 0, fallbacks = 0, fallback_with_idle = 0;
  void on_start(const SchedState& st) override { s = &st; }
  void on_wake(const WakeFact& f) override {
    if (f.kind != WakeKind::kWakeup) return;
    const PlaceOutcome o = f.placement.outcome;
    if (o == PlaceOutcome::kIdleCpu || o == PlaceOutcome::kIdleCore || o == PlaceOutcome::kIdleSibling) ++searched;
    if (o != PlaceOutcome::kFallback) return;
    ++fallbacks;
    for (uint32_t c = 0; c < s->cpus.size(); ++c)
      if (s->cpus[c].idle() && s->allowed(f.wakee, CpuId(c))) {
        ++fallback_with_idle;
        return;
      }
  }
};

// 24 tasks in 12 ping-pong pairs on one 8-CPU LLC: wakeups find idle CPUs, and also find none.
Workload pairs() {
  Workload w;
  for (uint32_t i = 0; i < 12; ++i) {
    TaskId a(2 * i), b(2 * i + 1);
    TaskSpec x, y;
    x.name = "ping";
    x.program = {Action::run(Duration::us(60 + 7 * i)), Action::wake(b), Action::block(), Action::loop(3, 199)};
    y.name = "pong";
    y.program = {Action::block(), Action::run(Duration::us(45 + 5 * i)), Action::wake(a), Action::loop(3, 199)};
    w.add_task(x);
    w.add_task(y);
  }
  return w;
}

FallbackWatch run_with(const PolicyRegistry& reg, const std::string& placement) {
  RegularMachine m;
  m.name = "llc8";
  m.cores_per_package = 8;
  Topology topo = Topology::build(make_regular_machine(m));
  auto choice = default_modules();
  choice["placement"] = placement;
  SimConfig cfg;
  cfg.check_invariants_full = true;
  Workload w = pairs();
  Simulation sim(w, topo, reg.make(choice, FeatureSet{}), CostModel{}, cfg);
  FallbackWatch watch;
  sim.add_observer(&watch);
  SimSummary sum = sim.run();
  CHECK(sum.complete);
  CHECK(sum.work_done == sum.work_expected);
  return watch;
}

}  // namespace

TEST_CASE("a select_idle_sibling variant is one file plus one registration line", "[engine][walkthrough]") {
  PolicyRegistry reg;
  register_builtin_policies(reg);
  register_placement_module(reg, placement::sis_example());  // the line modules.def would hold

  // Listed, with the flags every kernel wake path reads and none of SIS_PROP / SIS_UTIL.
  const ModuleInfo& info = reg.info(Slot::kPlacement, "sis-example");
  CHECK(info.summary == "example: the 5.12 merged search without a depth limit");
  std::vector<std::string> flags;
  for (const auto& f : info.features) flags.push_back(f.name);
  CHECK(flags == std::vector<std::string>{"WA_IDLE", "WA_WEIGHT", "WA_BIAS", "WA_IDLE_PREV"});
  FeatureSet sis_util;
  sis_util.set("SIS_UTIL", false);
  auto choice = default_modules();
  choice["placement"] = "sis-example";
  CHECK_THROWS_AS(reg.make(choice, sis_util), InputError);

  // Run by the engine (with the full invariant check): its scan has no depth limit, so a wakeup
  // falls back to a busy target only when the LLC holds no idle CPU the wakee may use.
  FallbackWatch ex = run_with(reg, "sis-example");
  CHECK(ex.searched > 0);
  CHECK(ex.fallbacks > 0);
  CHECK(ex.fallback_with_idle == 0);
}
