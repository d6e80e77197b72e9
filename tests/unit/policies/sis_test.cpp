// Placement modules pinned against docs/sources.md, Wake path, LLC search variants on hand-built machines.
// make_regular_machine numbers Intel-style: with T threads and N cores, CPU c and c + N are
// SMT siblings.
#include <catch2/catch.hpp>

#include "policy_fixture.hpp"
#include "schedsim/policies/sis.hpp"

using namespace schedsim;
using namespace schedsim::test;
using placement::KernelPlacement;

TEST_CASE("SIS_UTIL nr_idle_scan for a 16-CPU LLC follows update_idle_cpu_scan", "[policies][sis]") {
  // x = per-CPU util; nr = floor((1024 - min(x^2 * 117^2 / 10240000, 1024)) * 16 / 1024)
  CHECK(placement::sis_util_nr_idle_scan(0 * 16, 16, 117) == 16);
  CHECK(placement::sis_util_nr_idle_scan(256 * 16, 16, 117) == 14);   // tmp = 87
  CHECK(placement::sis_util_nr_idle_scan(512 * 16, 16, 117) == 10);   // tmp = 350
  CHECK(placement::sis_util_nr_idle_scan(768 * 16, 16, 117) == 3);    // tmp = 788
  CHECK(placement::sis_util_nr_idle_scan(875 * 16, 16, 117) == 0);    // tmp >= 1024
  CHECK(placement::sis_util_nr_idle_scan(1024 * 16, 16, 117) == 0);
}

TEST_CASE("on_periodic_balance refreshes nr_idle_scan only at the LLC level", "[policies][sis]") {
  Machine m(2, 16, 1, 8);  // two packages of 16 CPUs, one LLC each
  auto mod = make_module("sis-util");
  for (uint32_t c = 0; c < 32; ++c) m.util.util[c] = 512;
  const int llc = m.topo.llc_level();
  REQUIRE(llc >= 0);
  for (int l = 0; l < static_cast<int>(m.topo.levels().size()); ++l)
    if (l != llc) mod->on_periodic_balance(m.s, m.w, CpuId(0), l);
  CHECK(m.s.llc_of(CpuId(0)).nr_idle_scan == 0);  // zero-initialised, untouched
  mod->on_periodic_balance(m.s, m.w, CpuId(0), llc);
  CHECK(m.s.llc_of(CpuId(0)).nr_idle_scan == 10);
  CHECK(m.s.llc_of(CpuId(16)).nr_idle_scan == 0);  // the other LLC is refreshed by its own CPUs
  // NO_SIS_UTIL: no refresh.
  auto off = make_module("sis-5.12", {{"SIS_UTIL", false}, {"SIS_PROP", true}});
  off->on_periodic_balance(m.s, m.w, CpuId(16), llc);
  CHECK(m.s.llc_of(CpuId(16)).nr_idle_scan == 0);
}

TEST_CASE("SIS_PROP depth is 4 when avg_idle is tiny", "[policies][sis]") {
  CHECK(placement::sis_prop_nr(16, 0, 1) == 4);
  CHECK(placement::sis_prop_nr(16, 100 / 512, 56) == 4);
  // span_avg = 16 * 1953 = 31248 > 4 * 100: nr = 312
  CHECK(placement::sis_prop_nr(16, 1953, 100) == 312);

  // 4.17 select_idle_cpu: nr = 4 and the pre-decrement exit examine 3 CPUs (0, 1, 2), then give
  // up without touching avg_scan_cost.
  Machine m(1, 16, 1);
  m.busy_all();
  m.idle(10);
  auto mod = make_module("sis-4.17");
  m.s.cpus[0].avg_idle = Duration::ns(100);
  PlacementResult r = mod->select_task_rq(m.s, m.w, wakeup(0, 0, 0));
  CHECK(r.cpu.value() == 0);
  CHECK(r.outcome == PlaceOutcome::kFallback);
  CHECK(r.probes_cpu == 3);
  CHECK(r.probes_core == 0);
  CHECK(r.scan_cost == Duration::ns(3 * 40));
  CHECK(m.s.llc_of(CpuId(0)).avg_scan_cost == Duration::zero());

  // With the boot avg_idle (1 ms / 512 = 1953 ns) the budget covers the LLC: CPUs 0..10 are
  // probed (11 x 40 ns = 440 ns) and avg_scan_cost = 0 + 440/8 = 55 ns.
  m.s.cpus[0].avg_idle = Duration::ms(1);
  r = mod->select_task_rq(m.s, m.w, wakeup(0, 0, 0));
  CHECK(r.cpu.value() == 10);
  CHECK(r.outcome == PlaceOutcome::kIdleCpu);
  CHECK(r.probes_cpu == 11);
  CHECK(m.s.llc_of(CpuId(0)).avg_scan_cost == Duration::ns(55));
}

TEST_CASE("SIS_AVG_CPU gives up when avg_idle/512 is below the scan cost", "[policies][sis]") {
  Machine m(1, 8, 1);
  m.busy_all();
  m.idle(5);
  m.s.cpus[0].avg_idle = Duration::ns(512 * 50);
  m.s.llc_of(CpuId(0)).avg_scan_cost = Duration::ns(100);
  auto mod = make_module("sis-4.17", {{"SIS_AVG_CPU", true}});
  PlacementResult r = mod->select_task_rq(m.s, m.w, wakeup(0, 0, 0));
  CHECK(r.outcome == PlaceOutcome::kFallback);
  CHECK(r.probes_cpu == 0);
}

TEST_CASE("optimized fold skips the core-wise scan when the hint is clear", "[policies][sis][fold]") {
  Machine m(1, 8, 2);  // 16 CPUs, siblings c and c + 8
  m.busy_all();
  m.idle(3);  // CPU 3 idle, its sibling 11 busy: no idle core
  auto mod = make_module("sis-fold-opt");
  m.hint.value = false;
  PlacementResult r = mod->select_task_rq(m.s, m.w, wakeup(0, 0, 0));
  CHECK(r.hint_consulted);
  CHECK_FALSE(r.hint_value);
  CHECK(r.cpu.value() == 3);
  CHECK(r.outcome == PlaceOutcome::kIdleCpu);
  CHECK(r.probes_core == 0);
  CHECK(r.probes_cpu == 4);  // CPUs 0, 1, 2, 3
  CHECK(m.hint.clears == 0);
}

TEST_CASE("optimized fold clears the hint after a core-wise miss", "[policies][sis][fold]") {
  Machine m(1, 8, 2);
  m.busy_all();
  m.idle(3);
  auto mod = make_module("sis-fold-opt");
  m.hint.value = true;  // stale: no core is wholly idle
  PlacementResult r = mod->select_task_rq(m.s, m.w, wakeup(0, 0, 0));
  CHECK(r.hint_consulted);
  CHECK(r.hint_value);
  CHECK(m.hint.clears == 1);
  CHECK_FALSE(m.hint.value);
  // The first idle sibling seen is the fallback; every CPU of the LLC was probed core-wise.
  CHECK(r.cpu.value() == 3);
  CHECK(r.outcome == PlaceOutcome::kIdleSibling);
  CHECK(r.probes_core == 16);
  CHECK(r.probes_cpu == 0);
  CHECK(r.scan_cost == Duration::ns(16 * 120));
  // avg_scan_cost tracks the per-CPU cost: 0 + (1920/16)/8 = 15 ns.
  CHECK(m.s.llc_of(CpuId(0)).avg_scan_cost == Duration::ns(15));
  // SIS_ONCE debited the whole scan from the aged estimate.
  CHECK(m.s.cpus[0].wake_avg_idle == Duration::ms(1) - Duration::ns(1920));
}

TEST_CASE("optimized fold finds a wholly idle core when the hint is right", "[policies][sis][fold]") {
  Machine m(1, 8, 2);
  m.busy_all();
  m.idle(5);
  m.idle(13);  // core 5 idle
  m.idle(2);   // a lone idle sibling seen earlier
  auto mod = make_module("sis-fold-opt");
  m.hint.value = true;
  PlacementResult r = mod->select_task_rq(m.s, m.w, wakeup(0, 0, 0));
  CHECK(r.cpu.value() == 5);
  CHECK(r.outcome == PlaceOutcome::kIdleCore);
  CHECK(m.hint.clears == 0);
}

TEST_CASE("2018 fold is core-wise without reading the hint, SIS_FOLD_ALWAYS forces it", "[policies][sis][fold]") {
  Machine m(1, 8, 2);
  m.busy_all();
  m.idle(3);
  auto fold = make_module("sis-fold-2018");
  PlacementResult r = fold->select_task_rq(m.s, m.w, wakeup(0, 0, 0));
  CHECK_FALSE(r.hint_consulted);
  CHECK(r.probes_core > 0);
  CHECK(r.cpu.value() == 3);
  CHECK(m.hint.clears == 0);

  auto always = make_module("sis-fold-opt", {{"SIS_FOLD_ALWAYS", true}});
  m.hint.value = false;
  r = always->select_task_rq(m.s, m.w, wakeup(0, 0, 0));
  CHECK(r.probes_core > 0);
  CHECK(r.cpu.value() == 3);
}

TEST_CASE("fold budget ages wake_avg_idle per jiffy", "[policies][sis][fold]") {
  // 4 ms tick. 10 jiffies after the last idle->wake transition the 1 ms estimate is
  // 1 ms / 2^10 = 976 ns; with a 100 ns per-CPU cost the budget is max(4, 9) = 9 probes.
  Machine m(1, 16, 1);
  m.busy_all();
  m.s.now = Instant::from_ns(40'000'000);
  m.s.llc_of(CpuId(0)).avg_scan_cost = Duration::ns(99);
  auto mod = make_module("sis-fold-opt");
  PlacementResult r = mod->select_task_rq(m.s, m.w, wakeup(0, 0, 0));
  CHECK(m.s.cpus[0].wake_stamp == 10);
  CHECK(r.probes_cpu == 9);
}

TEST_CASE("wake_wide flips at min >= llc_size and max >= min * llc_size", "[policies][sis]") {
  Machine m(1, 8, 1);  // f = 8
  auto& waker = m.s.tasks[6];
  auto& wakee = m.s.tasks[0];
  waker.wakee_flips = 64;
  wakee.wakee_flips = 8;
  CHECK(KernelPlacement::wake_wide(m.s, TaskId(6), TaskId(0), 0));
  waker.wakee_flips = 63;  // 63 < 8 * 8
  CHECK_FALSE(KernelPlacement::wake_wide(m.s, TaskId(6), TaskId(0), 0));
  waker.wakee_flips = 64;
  wakee.wakee_flips = 7;  // slave below f
  CHECK_FALSE(KernelPlacement::wake_wide(m.s, TaskId(6), TaskId(0), 0));
  // symmetric in who is master
  waker.wakee_flips = 8;
  wakee.wakee_flips = 64;
  CHECK(KernelPlacement::wake_wide(m.s, TaskId(6), TaskId(0), 0));
  CHECK_FALSE(KernelPlacement::wake_wide(m.s, TaskId(), TaskId(0), 0));
}

TEST_CASE("record_wakee counts partner switches and halves once per second", "[policies][sis]") {
  Machine m(1, 4, 1);
  m.w.record_wakee(TaskId(6), TaskId(0));
  m.w.record_wakee(TaskId(6), TaskId(0));  // same wakee: no flip
  m.w.record_wakee(TaskId(6), TaskId(1));
  CHECK(m.s.tasks[6].wakee_flips == 2);
  m.s.tasks[6].wakee_flips = 40;
  m.s.now = Instant::from_ns(5'000'000'000);  // 5 s later: halved once, not five times
  m.w.record_wakee(TaskId(6), TaskId(1));
  CHECK(m.s.tasks[6].wakee_flips == 20);
  CHECK(m.s.tasks[6].wakee_flip_decay_ts == m.s.now);
}

TEST_CASE("select_idle_sibling fast checks run in kernel order", "[policies][sis]") {
  Machine m(1, 8, 2);
  m.busy_all();
  auto mod = make_module("sis-util");
  m.s.llc_of(CpuId(0)).nr_idle_scan = 16;
  PlacementResult r;
  WakeContext ctx = wakeup(0, 1, 2);

  SECTION("target") {
    m.idle(4);
    m.idle(2);
    CHECK(mod->select_idle_sibling(m.s, m.w, ctx, 2, 4, r) == 4);
    CHECK(r.outcome == PlaceOutcome::kTarget);
  }
  SECTION("prev before kthread, recent and the scan") {
    m.idle(2);
    m.idle(5);
    m.s.tasks[0].recent_used_cpu = CpuId(5);
    CHECK(mod->select_idle_sibling(m.s, m.w, ctx, 2, 4, r) == 2);
    CHECK(r.outcome == PlaceOutcome::kPrev);
  }
  SECTION("per-CPU kthread stacking") {
    m.s.tasks[6].kthread = true;
    WakeContext k = wakeup(0, 2, 2);
    m.idle(5);
    m.s.tasks[0].recent_used_cpu = CpuId(5);
    CHECK(mod->select_idle_sibling(m.s, m.w, k, 2, 4, r) == 2);
    CHECK(r.outcome == PlaceOutcome::kKthread);
    // Not from task context (an interrupt): 6.1+ does not stack.
    k.from_task = false;
    m.s.tasks[0].recent_used_cpu = CpuId(5);  // the first call stored prev
    PlacementResult r2;
    CHECK(mod->select_idle_sibling(m.s, m.w, k, 2, 4, r2) == 5);
    CHECK(r2.outcome == PlaceOutcome::kRecent);
  }
  SECTION("recent_used_cpu, 5.15+ form stores prev unconditionally") {
    m.idle(5);
    m.idle(9);
    m.s.tasks[0].recent_used_cpu = CpuId(5);
    CHECK(mod->select_idle_sibling(m.s, m.w, ctx, 2, 4, r) == 5);
    CHECK(r.outcome == PlaceOutcome::kRecent);
    CHECK(m.s.tasks[0].recent_used_cpu == CpuId(2));
    CHECK(r.probes_cpu + r.probes_core == 0);
  }
  SECTION("recent_used_cpu, 4.17 form stores prev only on a hit") {
    auto old = make_module("sis-4.17");
    m.s.tasks[0].recent_used_cpu = CpuId(5);  // busy
    PlacementResult r2;
    old->select_idle_sibling(m.s, m.w, ctx, 2, 4, r2);
    CHECK(m.s.tasks[0].recent_used_cpu == CpuId(5));
    m.idle(5);
    PlacementResult r3;
    CHECK(old->select_idle_sibling(m.s, m.w, ctx, 2, 4, r3) == 5);
    CHECK(m.s.tasks[0].recent_used_cpu == CpuId(2));
  }
  SECTION("then the LLC scan, then target") {
    m.idle(9);
    CHECK(mod->select_idle_sibling(m.s, m.w, ctx, 2, 4, r) == 9);
    CHECK(r.outcome == PlaceOutcome::kIdleCpu);
    PlacementResult r2;
    m.busy(9);
    CHECK(mod->select_idle_sibling(m.s, m.w, ctx, 2, 4, r2) == 4);
    CHECK(r2.outcome == PlaceOutcome::kFallback);
  }
}

TEST_CASE("SIS_UTIL with nr_idle_scan 0 skips even the idle-core scan", "[policies][sis]") {
  Machine m(1, 8, 2);
  m.busy_all();
  m.idle(5);
  m.idle(13);
  m.hint.value = true;
  auto mod = make_module("sis-util");
  m.s.llc_of(CpuId(0)).nr_idle_scan = 0;
  PlacementResult r = mod->select_task_rq(m.s, m.w, wakeup(0, 0, 0));
  CHECK(r.outcome == PlaceOutcome::kFallback);
  CHECK(r.probes_cpu + r.probes_core == 0);
  // With a budget the merged scan finds the idle core (not limited by nr).
  m.s.llc_of(CpuId(0)).nr_idle_scan = 1;
  r = mod->select_task_rq(m.s, m.w, wakeup(0, 0, 0));
  CHECK(r.cpu.value() == 5);
  CHECK(r.outcome == PlaceOutcome::kIdleCore);
}

TEST_CASE("merged scan clears the hint after a failed core scan and keeps an idle sibling", "[policies][sis]") {
  Machine m(1, 8, 2);
  m.busy_all();
  m.idle(11);
  m.hint.value = true;
  auto mod = make_module("sis-5.12");
  m.s.llc_of(CpuId(0)).nr_idle_scan = 16;
  PlacementResult r = mod->select_task_rq(m.s, m.w, wakeup(0, 0, 0));
  CHECK(m.hint.clears == 1);
  CHECK(r.cpu.value() == 11);
  CHECK(r.outcome == PlaceOutcome::kIdleSibling);
  CHECK(r.probes_core > 0);
}

TEST_CASE("merged scan tries prev's idle sibling when the hint is clear", "[policies][sis]") {
  Machine m(1, 8, 2);
  m.busy_all();
  m.idle(10);  // sibling of prev = 2
  m.idle(6);
  auto mod = make_module("sis-5.12");
  m.s.llc_of(CpuId(0)).nr_idle_scan = 16;
  PlacementResult r;
  CHECK(mod->select_idle_sibling(m.s, m.w, wakeup(0, 1, 2), 2, 1, r) == 10);
  CHECK(r.outcome == PlaceOutcome::kIdleSibling);
}

TEST_CASE("4.17 select_idle_core finds an idle core or clears the hint", "[policies][sis]") {
  Machine m(1, 8, 2);
  m.busy_all();
  m.idle(6);
  m.idle(14);
  m.hint.value = true;
  auto mod = make_module("sis-4.17");
  PlacementResult r = mod->select_task_rq(m.s, m.w, wakeup(0, 0, 0));
  CHECK(r.cpu.value() == 6);
  CHECK(r.outcome == PlaceOutcome::kIdleCore);
  CHECK(r.probes_core == 14);  // cores 0..6 visited whole, wrapping from target 0
  m.busy(14);
  m.hint.value = true;
  r = mod->select_task_rq(m.s, m.w, wakeup(0, 0, 0));
  CHECK(m.hint.clears == 1);
  CHECK(r.probes_core == 16);
  CHECK(r.cpu.value() == 6);  // then select_idle_cpu finds it
  CHECK(r.outcome == PlaceOutcome::kIdleCpu);
}

TEST_CASE("wake_affine: WA_IDLE then WA_WEIGHT", "[policies][sis]") {
  Machine m(2, 4, 1);  // two LLCs of 4 CPUs
  auto mod = make_module("sis-util");
  m.busy_all();
  int level = -1;
  for (size_t i = 0; i < m.topo.levels().size(); ++i)
    if (m.topo.levels()[i].span[0].test(5) && m.topo.levels()[i].has(kSdWakeAffine)) {
      level = static_cast<int>(i);
      break;
    }
  REQUIRE(level >= 0);
  WakeContext ctx = wakeup(0, 0, 5);
  // prev idle (5.11+ step 3, d8fcb81f1acf): prev, though its blocked load (3000) outweighs this
  // CPU's (100 + the task's 500), the case the commit fixes. Without the step (WA_IDLE_PREV off,
  // or a module of the 4.17 era) wake_affine_weight() decides and pulls to this CPU.
  m.idle(5);
  m.util.load[0] = 100;
  m.util.load[5] = 3000;
  m.util.tload[0] = 500;
  CHECK(mod->wake_affine(m.s, ctx, level) == 5);
  CHECK(make_module("sis-5.11")->wake_affine(m.s, ctx, level) == 5);
  CHECK(make_module("sis-util", {{"WA_IDLE_PREV", false}})->wake_affine(m.s, ctx, level) == 0);
  CHECK(make_module("sis-4.17")->wake_affine(m.s, ctx, level) == 0);
  m.util.load[0] = m.util.load[5] = m.util.tload[0] = 0;
  m.busy(5);
  // sync wakeup onto a CPU running only the waker
  ctx.sync = true;
  CHECK(mod->wake_affine(m.s, ctx, level) == 0);
  ctx.sync = false;
  // weights: this loaded 100, prev loaded 3000, task 500: this_eff = 600*100*1024 <
  // prev_eff = 2500 * (100 + (pct-100)/2) * 1024
  m.util.load[0] = 100;
  m.util.load[5] = 3000;
  m.util.tload[0] = 500;
  CHECK(mod->wake_affine(m.s, ctx, level) == 0);
  m.util.load[0] = 3000;
  m.util.load[5] = 100;
  CHECK(mod->wake_affine(m.s, ctx, level) == 5);
  auto noweight = make_module("sis-util", {{"WA_WEIGHT", false}});
  m.util.load[0] = 100;
  m.util.load[5] = 3000;
  CHECK(noweight->wake_affine(m.s, ctx, level) == 5);
}

TEST_CASE("a pinned task asked of placement still lands on its one CPU", "[policies][sis]") {
  // The engine bypasses placement for a single allowed CPU (engine_test "pinned"); a module asked
  // anyway ends in select_fallback_rq(), which never returns a CPU the task may not use.
  Machine m(1, 4, 1);
  CpuMask one = CpuMask::of({2});
  m.s.tasks[0].affinity = &one;
  for (const auto& d : placement::placement_module_defs()) {
    INFO(d.name);
    auto mod = make_module(d.name);
    PlacementResult r = mod->select_task_rq(m.s, m.w, wakeup(0, 0, 0));
    CHECK(r.cpu.value() == 2);
    CHECK(r.outcome != PlaceOutcome::kPinned);
  }
}

TEST_CASE("affinity is respected by every module", "[policies][sis]") {
  Machine m(1, 8, 2);
  CpuMask some = CpuMask::of({12, 13});
  m.s.tasks[0].affinity = &some;
  m.busy_all();
  m.idle(3);
  m.s.llc_of(CpuId(0)).nr_idle_scan = 16;
  for (const auto& d : placement::placement_module_defs()) {
    auto mod = make_module(d.name);
    PlacementResult r = mod->select_task_rq(m.s, m.w, wakeup(0, 0, 0));
    INFO(d.name);
    CHECK(some.test(r.cpu.value()));
  }
}

TEST_CASE("baselines", "[policies][sis]") {
  Machine m(1, 8, 2);
  m.busy_all();
  m.idle(9);
  m.idle(4);
  auto first = make_module("first-idle");
  PlacementResult r = first->select_task_rq(m.s, m.w, wakeup(0, 6, 6));
  CHECK(r.cpu.value() == 4);
  auto prev = make_module("prev");
  CHECK(prev->select_task_rq(m.s, m.w, wakeup(0, 6, 6)).cpu.value() == 6);
  auto full = make_module("full-scan");
  m.idle(12);  // core 4 = {4, 12} wholly idle
  r = full->select_task_rq(m.s, m.w, wakeup(0, 6, 6));
  CHECK((r.cpu.value() == 4 || r.cpu.value() == 12));  // the core is reported by whichever sibling the walk met
  CHECK(r.outcome == PlaceOutcome::kIdleCore);
  CHECK(r.probes_core == 14);  // cores 6, 7, 0, 1, 2, 3, 4 (walking from target 6)
  // random-idle: deterministic and always idle
  auto a = make_module("random-idle");
  auto b = make_module("random-idle");
  for (int i = 0; i < 20; ++i) {
    m.s.now = Instant::from_ns(1000 * i);
    uint32_t x = a->select_task_rq(m.s, m.w, wakeup(0, 6, 6)).cpu.value();
    uint32_t y = b->select_task_rq(m.s, m.w, wakeup(0, 6, 6)).cpu.value();
    CHECK(x == y);
    CHECK(m.s.cpus[x].idle());
  }
}

TEST_CASE("fork takes the slow path to the idler package", "[policies][sis][slow]") {
  Machine m(2, 4, 1);
  for (uint32_t c = 0; c < 4; ++c) {
    m.busy(c);
    m.util.util[c] = 900;
    m.util.load[c] = 1024;
  }
  for (const char* name : {"sis-util", "sis-4.17"}) {
    auto mod = make_module(name);
    WakeContext ctx = wakeup(0, 0, 0);
    ctx.kind = WakeKind::kFork;
    PlacementResult r = mod->select_task_rq(m.s, m.w, ctx);
    INFO(name);
    CHECK(r.outcome == PlaceOutcome::kSlowPath);
    CHECK(r.cpu.value() >= 4);
  }
}

TEST_CASE("exec counts the exec'ing task's own CPU as idle (idle_cpu_without)", "[policies][sis][slow]") {
  // Two CPUs in one LLC: p (task 0) runs alone on CPU 0 and execs, CPU 1 is idle. Both groups
  // have one idle CPU once p is left out, so the 5.5+ slow path keeps p where it is; counting
  // CPU 0 as busy would send every exec to the other CPU.
  Machine m(1, 2, 1);
  m.busy(0, 0);
  m.s.tasks[0].state = TaskState::kRunning;
  m.s.tasks[0].cpu = CpuId(0);
  auto mod = make_module("sis-util");
  WakeContext ctx = wakeup(0, 0, 0);
  ctx.kind = WakeKind::kExec;
  PlacementResult r = mod->select_task_rq(m.s, m.w, ctx);
  CHECK(r.outcome == PlaceOutcome::kSlowPath);
  CHECK(r.cpu.value() == 0);
  // Another task queued behind p on CPU 0: CPU 1 has more idle CPUs and wins.
  m.s.cpus[0].nr_running = 2;
  CHECK(mod->select_task_rq(m.s, m.w, ctx).cpu.value() == 1);
  // A fork from CPU 0 (the child is nowhere yet) still goes to the idle CPU.
  m.s.cpus[0].nr_running = 1;
  WakeContext fork = wakeup(1, 0, 0, 0);
  fork.kind = WakeKind::kFork;
  CHECK(mod->select_task_rq(m.s, m.w, fork).cpu.value() == 1);
}

TEST_CASE("asymmetric capacity: fast checks need the task to fit", "[policies][sis]") {
  Topology topo = Topology::build(preset_spec("big-little"));
  CostModel cost;
  SchedState s;
  s.init(topo, cost, 8);  // the fixture's wakeup() uses task 6 as the waker
  CpuMask all = topo.all_cpus();
  for (auto& t : s.tasks) t.affinity = &all;
  FakeUtil util(8, 8);
  s.util = &util;
  PlacementWrites w(s, &util);
  util.tutil[0] = 600;  // fits a big CPU (600 * 1280 < 1024 * 1024) but not a little one (446)
  auto mod = make_module("sis-util");
  PlacementResult r;
  // target 1 (little, idle) does not fit: select_idle_capacity picks an idle big CPU.
  uint32_t cpu = mod->select_idle_sibling(s, w, wakeup(0, 1, 1), 1, 1, r);
  CHECK(cpu >= 4);
  CHECK(r.outcome == PlaceOutcome::kCapacity);
}

TEST_CASE("attach seeds nr_idle_scan as one balance of the idle machine would", "[policies][sis]") {
  Machine m(2, 8, 2);  // two LLCs of 16 CPUs
  auto mod = make_module("sis-util");
  CHECK(m.s.llc_of(CpuId(0)).nr_idle_scan == 0);  // the kernel's zeroed allocation
  mod->attach(m.s, m.w);
  CHECK(m.s.llc_of(CpuId(0)).nr_idle_scan == 16);
  CHECK(m.s.llc_of(CpuId(8)).nr_idle_scan == 16);  // CPU 8 is package 1's first thread
  Machine m2(1, 8, 2);
  auto prop = make_module("sis-4.17");  // no SIS_UTIL: untouched
  prop->attach(m2.s, m2.w);
  CHECK(m2.s.llc_of(CpuId(0)).nr_idle_scan == 0);
}

TEST_CASE("6.7+ clusters: the target's cluster is scanned first, prev elsewhere is a late fallback",
          "[policies][sis]") {
  RegularMachine rm;
  rm.name = "cls";
  rm.cores_per_package = 8;
  rm.cores_per_cluster = 2;  // clusters {0,1} {2,3} {4,5} {6,7}, one LLC
  Topology topo = Topology::build(make_regular_machine(rm));
  REQUIRE(topo.has_clusters());
  CostModel cost;
  SchedState s;
  s.init(topo, cost, 8);
  PlacementWrites w(s);
  CpuMask all = topo.all_cpus();
  for (auto& t : s.tasks) t.affinity = &all;
  for (uint32_t c = 0; c < 8; ++c) {
    s.cpus[c].curr = TaskId(7);
    s.cpus[c].nr_running = 1;
  }
  s.llc_of(CpuId(0)).nr_idle_scan = 8;
  auto mod = make_module("sis-util");
  s.cpus[5].curr = TaskId();  // prev 5 idle, other cluster
  s.cpus[5].nr_running = 0;
  s.cpus[1].curr = TaskId();  // target's cluster sibling idle
  s.cpus[1].nr_running = 0;
  PlacementResult r;
  CHECK(mod->select_idle_sibling(s, w, wakeup(0, 0, 5), 5, 0, r) == 1);
  CHECK(r.outcome == PlaceOutcome::kIdleCpu);
  // 5.15 era has no cluster rule: prev wins at once.
  auto old = make_module("sis-5.12");
  PlacementResult r2;
  CHECK(old->select_idle_sibling(s, w, wakeup(0, 0, 5), 5, 0, r2) == 5);
  CHECK(r2.outcome == PlaceOutcome::kPrev);
  // Nothing idle but prev: the LLC scan finds it (prev_aff would be the last resort).
  s.cpus[1].curr = TaskId(7);
  s.cpus[1].nr_running = 1;
  PlacementResult r3;
  CHECK(mod->select_idle_sibling(s, w, wakeup(0, 0, 5), 5, 0, r3) == 5);
}
