// The idle-core hint modules (docs/sources.md, LLC search variants): set on idle entry when every other sibling
// is idle, cleared only by a failed scan, stale in both directions.
#include <catch2/catch.hpp>

#include "policy_fixture.hpp"
#include "schedsim/policies/idle_cores.hpp"

using namespace schedsim;
using namespace schedsim::test;

TEST_CASE("kernel hint: set on idle entry with idle siblings, cleared only by clear()", "[policies][idle_cores]") {
  Machine m(1, 4, 2);  // siblings c and c + 4
  idle_cores::KernelHint h;
  m.busy_all();
  m.idle(1);
  h.on_idle_enter(m.s, CpuId(1));  // sibling 5 busy
  CHECK_FALSE(h.test(m.s, CpuId(0)));
  m.idle(5);
  h.on_idle_enter(m.s, CpuId(5));  // sibling 1 idle: core 1 is idle
  CHECK(h.test(m.s, CpuId(0)));
  // Stale "yes": the core gets busy again, the hint stays set.
  m.busy(1);
  h.on_idle_exit(m.s, CpuId(1));
  CHECK(h.test(m.s, CpuId(0)));
  CHECK(m.s.llc_of(CpuId(0)).nr_idle_cores_exact == 0);
  h.clear(m.s, CpuId(0));
  CHECK_FALSE(h.test(m.s, CpuId(0)));
  // Without the SMT static key nothing is ever announced.
  m.s.sched_smt_active = false;
  m.idle(1);
  h.on_idle_enter(m.s, CpuId(1));
  CHECK_FALSE(h.test(m.s, CpuId(0)));
}

TEST_CASE("exact hint follows the truth, off never claims a core", "[policies][idle_cores]") {
  Machine m(1, 4, 2);
  idle_cores::ExactHint e;
  idle_cores::NoHint off;
  CHECK(e.test(m.s, CpuId(0)));  // all idle at init
  CHECK_FALSE(off.test(m.s, CpuId(0)));
  m.busy_all();
  CHECK_FALSE(e.test(m.s, CpuId(0)));
  m.idle(2);
  m.idle(6);
  CHECK(e.test(m.s, CpuId(0)));
  e.clear(m.s, CpuId(0));
  CHECK(e.test(m.s, CpuId(0)));
}
