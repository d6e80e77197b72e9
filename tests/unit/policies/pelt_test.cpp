// PELT and util_est against closed forms (docs/sources.md, PELT and utilization). A period is 1024 * 1024 ns;
// y^32 = 1/2; a signal running 100% converges to 1024 (within the kernel's rounding).
#include <catch2/catch.hpp>

#include <cmath>

#include "policy_fixture.hpp"
#include "schedsim/policies/pelt.hpp"

using namespace schedsim;
using namespace schedsim::pelt;

namespace {

constexpr int64_t kPeriodNs = 1024 * 1024;

struct PeltRig {
  test::Machine m{1, 2, 1, 4};
  FeatureSet f;
  std::unique_ptr<PeltUtil> u;
  explicit PeltRig(bool util_est = true) {
    f.set("UTIL_EST", true);
    f.set("UTIL_EST_FASTUP", true);
    u = std::make_unique<PeltUtil>(util_est, Features::from(f));
    m.s.util = u.get();
    u->attach(m.s);
  }
  void at(int64_t ns) { m.s.now = Instant::from_ns(ns); }
  // Task 0 wakes on CPU 0 and runs.
  void run(int64_t t) {
    at(t);
    u->enqueue(m.s, TaskId(0), CpuId(0), false);
    u->set_running(m.s, TaskId(0), CpuId(0), true);
  }
  void sleep(int64_t t) {
    at(t);
    u->set_running(m.s, TaskId(0), CpuId(0), false);
    u->dequeue(m.s, TaskId(0), CpuId(0), true);
  }
};

}  // namespace

TEST_CASE("decay table is y^n * (2^32 - 1) with y^32 = 1/2", "[policies][pelt]") {
  const auto& t = decay_table();
  CHECK(t[0] == 0xffffffffu);
  // y^16 = 1/sqrt(2)
  CHECK(std::abs(static_cast<double>(t[16]) - 4294967295.0 / std::sqrt(2.0)) < 2.0);
  CHECK(t[1] == 0xfa83b2dau);  // y = 2^(-1/32)
  // decay halves per 32 periods (floor rounding of the fixed-point multiply)
  CHECK(decay_load(1 << 20, 32) == (1 << 19) - 1);
  CHECK(decay_load(1 << 20, 64) == (1 << 18) - 1);
  CHECK(decay_load(12345, 32 * 63 + 1) == 0);
  // LOAD_AVG_MAX is the fixed point of a full-period update: 1024 + decay(MAX, 1) ~= MAX.
  CHECK(std::llabs(static_cast<long long>(1024 + decay_load(kLoadAvgMax, 1)) -
                   static_cast<long long>(kLoadAvgMax)) <= 2);
}

TEST_CASE("100% running converges to ~1024", "[policies][pelt]") {
  SchedAvg a;
  for (int64_t t = 1000; t <= 2000 * 1000 * 1000LL; t += 1000 * 1000) a.update(t, 1, 1, true, 1024);
  CHECK(a.util_avg >= 1000);
  CHECK(a.util_avg <= 1024);
  CHECK(a.load_avg >= 1000);
  CHECK(a.runnable_avg >= 1000);
}

TEST_CASE("step response: ~512 after 32 periods of running from zero", "[policies][pelt]") {
  // util(t) = 1024 (1 - y^(t / period)); at 32 periods: 512.
  SchedAvg a;
  a.update(0, 1, 1, true, 1024);
  for (int64_t p = 1; p <= 32; ++p) a.update(p * kPeriodNs, 1, 1, true, 1024);
  CHECK(a.util_avg >= 500);
  CHECK(a.util_avg <= 530);
}

TEST_CASE("a sleeping task's util halves per 32 periods", "[policies][pelt]") {
  PeltRig r;
  r.run(0);
  for (int64_t t = kPeriodNs; t <= 400 * kPeriodNs; t += kPeriodNs) {
    r.at(t);
    r.u->update(r.m.s, CpuId(0));
  }
  r.sleep(400 * kPeriodNs);
  const double u0 = r.u->task_util(r.m.s, TaskId(0));
  CHECK(u0 >= 1000);
  r.at(432 * kPeriodNs);
  r.u->sync_task(r.m.s, TaskId(0));
  const double u1 = r.u->task_util(r.m.s, TaskId(0));
  CHECK(std::abs(u1 - u0 / 2) <= 2);
  // The CPU's signal keeps the blocked contribution and decays alike.
  r.u->update(r.m.s, CpuId(0));
  CHECK(std::abs(static_cast<double>(r.u->cfs(0).avg.util_avg) - u1) <= 4);
}

TEST_CASE("50% duty cycle settles near 512", "[policies][pelt]") {
  // 8 ms running, 8 ms sleeping (about 7.6 periods each): util oscillates around 512 with an
  // amplitude of about 1024 (1 - y^7.6) / (1 + y^7.6) / 2 ~= 42.
  PeltRig r;
  const int64_t half = 8'000'000;
  uint64_t lo = 1024, hi = 0;
  for (int cycle = 0; cycle < 100; ++cycle) {
    int64_t t0 = cycle * 2 * half;
    r.run(t0);
    for (int64_t t = t0 + 1'000'000; t < t0 + half; t += 1'000'000) {
      r.at(t);
      r.u->update(r.m.s, CpuId(0));
    }
    r.sleep(t0 + half);
    uint64_t peak = r.u->task(TaskId(0)).avg.util_avg;
    r.at(t0 + 2 * half);
    r.u->sync_task(r.m.s, TaskId(0));
    uint64_t trough = r.u->task(TaskId(0)).avg.util_avg;
    if (cycle >= 80) {
      hi = std::max(hi, peak);
      lo = std::min(lo, trough);
    }
  }
  CHECK((lo + hi) / 2 >= 480);
  CHECK((lo + hi) / 2 <= 545);
  CHECK(hi - lo <= 120);
}

TEST_CASE("post_init_entity_util_avg gives a new task half the spare capacity", "[policies][pelt]") {
  PeltRig r;
  r.u->task_new(r.m.s, TaskId(1), CpuId(1));
  CHECK(r.u->task_util(r.m.s, TaskId(1)) == 512);  // (1024 - 0) / 2
  CHECK(r.u->task_load(r.m.s, TaskId(1)) == 1024);
  CHECK(r.u->cfs(1).avg.util_avg == 512);  // attached
}

TEST_CASE("migration moves the contribution between CPUs", "[policies][pelt]") {
  PeltRig r;
  r.run(0);
  for (int64_t t = kPeriodNs; t <= 100 * kPeriodNs; t += kPeriodNs) {
    r.at(t);
    r.u->update(r.m.s, CpuId(0));
  }
  r.sleep(100 * kPeriodNs);
  const uint64_t u = r.u->task_util(r.m.s, TaskId(0));
  CHECK(r.u->cpu_util_without(r.m.s, CpuId(0), TaskId(0)) <= 2);
  CHECK(r.u->cpu_util_without(r.m.s, CpuId(1), TaskId(0)) == r.u->cpu_util(r.m.s, CpuId(1), TaskId(), CpuId(), false));
  // wake on CPU 1
  r.at(100 * kPeriodNs + 2048);
  r.u->enqueue(r.m.s, TaskId(0), CpuId(1), true);
  CHECK(r.u->cfs(0).avg.util_avg <= 2);
  CHECK(r.u->cfs(1).avg.util_avg + 2 >= u);
  CHECK(r.u->task(TaskId(0)).attached_cpu == CpuId(1));
}

TEST_CASE("util_est: fast rise, EWMA w=1/4 decay, UTIL_AVG_UNCHANGED skip", "[policies][pelt]") {
  PeltRig r;
  r.run(0);
  for (int64_t t = kPeriodNs; t <= 200 * kPeriodNs; t += kPeriodNs) {
    r.at(t);
    r.u->update(r.m.s, CpuId(0));
  }
  r.sleep(200 * kPeriodNs);
  const auto& t = r.u->task(TaskId(0));
  const uint32_t high = t.est_ewma;
  CHECK(high == t.avg.util_avg);  // FASTUP: the ewma jumped to the sample
  CHECK(t.avg_unchanged);
  // Enqueue within the same period: the CPU's estimate is the queued task's.
  r.at(200 * kPeriodNs + 4096);
  r.u->enqueue(r.m.s, TaskId(0), CpuId(0), false);
  CHECK(r.u->cfs(0).util_est == high);
  // Dequeue before util_avg was recomputed (no period boundary): UTIL_AVG_UNCHANGED skips.
  r.u->dequeue(r.m.s, TaskId(0), CpuId(0), true);
  CHECK(t.est_ewma == high);
  CHECK(r.u->cfs(0).util_est == 0);
  // Run briefly after a long sleep: util_avg fell, the ewma moves a quarter of the way.
  r.run(400 * kPeriodNs);
  r.sleep(400 * kPeriodNs + 2 * kPeriodNs);
  const int64_t sample = static_cast<int64_t>(t.avg.util_avg);
  const int64_t expect = (static_cast<int64_t>(high) * 4 + (sample - high)) >> 2;
  CHECK(t.est_ewma == expect);
  CHECK(r.u->task_util_est(r.m.s, TaskId(0)) == static_cast<uint32_t>(std::max<int64_t>(expect, sample)));
}

TEST_CASE("cpu_util adds util_est and the task moving in or out", "[policies][pelt]") {
  PeltRig r;
  r.u->task_new(r.m.s, TaskId(1), CpuId(1));  // 512 on CPU 1
  CHECK(r.u->cpu_util(r.m.s, CpuId(0), TaskId(1), CpuId(0), false) == 512);  // p moving to CPU 0
  CHECK(r.u->cpu_util(r.m.s, CpuId(1), TaskId(1), CpuId(0), false) == 0);    // p leaving CPU 1
  CHECK(r.u->cpu_util_cfs(r.m.s, CpuId(1)) == 512);
  PeltRig none(false);
  none.u->task_new(none.m.s, TaskId(1), CpuId(1));
  CHECK(none.u->task_util_est(none.m.s, TaskId(1)) == 512);
  NoUtil z;
  CHECK(z.cpu_util_cfs(r.m.s, CpuId(1)) == 0);
}

TEST_CASE("a forked task is initialised against the CPU placement chose", "[policies][pelt]") {
  PeltRig r;
  r.run(0);
  for (int64_t t = kPeriodNs; t <= 100 * kPeriodNs; t += kPeriodNs) {
    r.at(t);
    r.u->update(r.m.s, CpuId(0));
  }
  // The engine initialises the child against the parent's busy CPU 0, then enqueues it on 1.
  r.u->task_new(r.m.s, TaskId(1), CpuId(0));
  CHECK(r.u->task_util(r.m.s, TaskId(1)) < 64);  // at most (1024 - ~907) / 2
  r.u->enqueue(r.m.s, TaskId(1), CpuId(1), false);
  CHECK(r.u->task_util(r.m.s, TaskId(1)) == 512);  // idle CPU 1: half its capacity
  CHECK(r.u->cfs(1).avg.util_avg == 512);
  CHECK(r.u->task(TaskId(1)).attached_cpu == CpuId(1));
}
