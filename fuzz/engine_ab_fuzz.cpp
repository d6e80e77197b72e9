// Fuzz target: the engine's exact speed switches (engine/src/segment.cpp, the tick FIFO of
// engine/src/event_queue.hpp). The input is decoded into a small machine and a few task
// programs of runs, blocks, wakes, sleeps, loops and channel reads and writes under a kernel
// profile (banked wakes and rows of equal runs come often), simulated once with the switches
// off and once on (the segment advance with channel operations folded too); any
// difference in the summary, in what the observers saw (switches, wakes and exits in order;
// banked wakes by time and task; run time, work and tokens per task, order-free as the segment
// advance delivers them) or in the error is a finding (abort).
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "fuzz_common.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/random.hpp"
#include "schedsim/engine/engine.hpp"
#include "schedsim/policies/registry.hpp"
#include "schedsim/workload/workload.hpp"

namespace {

using namespace schedsim;

struct Log : Observer {
  std::vector<std::string> lines;  // in call order: each must come at the same point both ways
  std::map<uint32_t, std::tuple<int64_t, int64_t, uint64_t>> per_task;  // wall, work, tokens consumed
  void on_switch(Instant at, CpuId cpu, TaskId prev, SwitchReason why, TaskId next) override {
    lines.push_back(fmt::format("sw {} {} {} {} {}", at.ns(), cpu.value(), prev.valid() ? prev.value() : 999U,
                                static_cast<int>(why), next.valid() ? next.value() : 999U));
  }
  void on_wake(const WakeFact& f) override {
    lines.push_back(fmt::format("wake {} {} {}", f.at.ns(), f.wakee.value(), f.placement.cpu.value()));
  }
  void on_exit(Instant at, TaskId t, CpuId cpu) override { lines.push_back(fmt::format("exit {} {} {}", at.ns(), t.value(), cpu.value())); }
  // Banked wakes a folded step reports late (observer.hpp): compared as a multiset of (time,
  // task), by their number and a sum of a 64-bit mix of each (order-free, no sort: an input may
  // bank millions).
  uint64_t banks = 0, bank_mix = 0;
  void on_token(Instant at, TaskId t, bool consumed) override {
    if (consumed) {
      ++std::get<2>(per_task[t.value()]);
      return;
    }
    ++banks;
    bank_mix += splitmix64_mix(static_cast<uint64_t>(at.ns()) * 0x9e3779b97f4a7c15ULL + t.value() + 1);
  }
  void on_run(Instant, TaskId t, CpuId, Duration wall, Duration work) override {
    std::get<0>(per_task[t.value()]) += wall.count();
    std::get<1>(per_task[t.value()]) += work.count();
  }
};

struct Outcome {
  std::string text;
};

// A kernel profile's modules and features, the placement replaced by first-idle if asked (it
// spreads wakers and wakees, so wakes are banked more often).
PolicyStack stack(const std::string& kernel, bool first_idle) {
  const KernelProfile& prof = kernel_profile(kernel);
  std::map<std::string, std::string> choice = prof.modules;
  if (first_idle) choice["placement"] = "first-idle";
  FeatureSet features;  // with first-idle, the modules' own defaults (the profile's name SIS flags)
  if (!first_idle)
    for (const auto& [name, on] : prof.features) features.set(name, on);
  return builtin_registry().make(choice, features);
}

Outcome simulate(const Workload& w, const Topology& topo, const std::string& kernel, bool first_idle, const SimConfig& cfg,
                 bool fast) {
  ::setenv("SCHEDSIM_ENGINE_SEGMENT", fast ? "channels" : "0", 1);
  ::setenv("SCHEDSIM_ENGINE_TICK_FIFO", fast ? "1" : "0", 1);
  Outcome o;
  try {
    PolicyStack pol = stack(kernel, first_idle);
    CostModel cost;
    Simulation sim(w, topo, std::move(pol), cost, cfg);
    Log log;
    sim.add_observer(&log);
    const SimSummary s = sim.run();
    o.text = fmt::format("end {} events {} wakeups {} banked {} left {} switches {} migrations {} done {} expected {} "
                         "complete {} stop {} stuck {}\n",
                         s.end.ns(), s.events, s.wakeups, s.tokens_banked, s.tokens_left, s.context_switches, s.migrations,
                         s.work_done.count(), s.work_expected.count(), s.complete, static_cast<int>(s.stop), s.tasks_stuck);
    for (const auto& l : log.lines) o.text += l + "\n";
    o.text += fmt::format("banks {} mix {:016x}\n", log.banks, log.bank_mix);
    for (const auto& [t, v] : log.per_task)
      o.text += fmt::format("task {} wall {} work {} tokens {}\n", t, std::get<0>(v), std::get<1>(v), std::get<2>(v));
    for (const auto& l : s.incomplete) o.text += l + "\n";
  } catch (const std::exception& e) {  // InputError (a time limit), an assertion's InternalError
    o.text = std::string("error: ") + e.what();
  }
  return o;
}

}  // namespace

SCHEDSIM_FUZZ_TARGET(engine_ab) {
  using namespace schedsim;
  fuzz::quiet_logs();
  std::string_view in = fuzz::as_text(data, size);
  if (in.size() < 4) return 0;
  const uint8_t b0 = fuzz::take_byte(in), b1 = fuzz::take_byte(in), b2 = fuzz::take_byte(in);
  RegularMachine m;
  m.name = "fuzz";
  m.packages = 1 + (b1 >> 6 & 1);
  m.cores_per_package = 1 + (b1 & 3);
  m.threads = 1 + (b1 >> 2 & 1);
  const Topology topo = Topology::build(make_regular_machine(m));
  static const char* const kKernels[] = {"4.17", "5.15", "6.6", "6.12"};
  const std::string kernel = kKernels[b2 & 3];
  const bool first_idle = (b1 & 0x80) != 0;
  const bool socket = (b0 & 0x80) != 0;
  SimConfig cfg;
  cfg.update_curr = (b2 & 4) != 0 ? UpdateCurr::kEvents : UpdateCurr::kActions;
  // Nested loops of tiny runs reach a million events in 200 ms: 50 ms keeps an input within
  // the 5 s libFuzzer allows it under the sanitizers.
  cfg.max_time = Instant::zero() + Duration::ms(50);
  if ((b2 & 8) != 0) cfg.stop_at = Instant::zero() + Duration::us(50 + 10 * (b2 >> 4));
  // Tasks: 2..7, programs of at most 24 actions. Run lengths come from a short list so rows of
  // equal runs (what the segment advance folds) are common.
  static const int64_t kRuns[] = {1000, 1000, 1000, 1500, 2500, 700, 4000000, 1};
  const uint32_t nr = 2 + (b0 % 6);
  Workload w;
  w.name = "fuzz";
  for (uint32_t t = 0; t < nr; ++t) {
    TaskSpec spec;
    spec.name = fmt::format("t{}", t);
    spec.start = StartState::kRunnable;
    w.add_task(std::move(spec));
  }
  for (uint32_t t = 0; t < nr && !in.empty(); ++t) {
    std::vector<Action>& p = w.tasks[t].program;
    const size_t len = 1 + fuzz::take_byte(in) % 24;
    for (size_t i = 0; i < len && !in.empty(); ++i) {
      const uint8_t op = fuzz::take_byte(in);
      switch (op % 8) {
        case 0:
        case 1: p.push_back(Action::run(Duration::ns(kRuns[op >> 3 & 7]))); break;
        case 2: p.push_back(Action::block()); break;
        case 3:
        case 4: p.push_back(Action::wake(TaskId((op >> 3) % nr), static_cast<uint8_t>((op & 0x80) != 0 ? kWakeSync : 0))); break;
        case 5: p.push_back(Action::sleep(Duration::us(1 + (op >> 3)))); break;
        case 6:
          if (!p.empty()) p.push_back(Action::loop(static_cast<uint32_t>(1 + (op >> 3) % p.size()), 1 + (op >> 5) * 20));
          break;
        default:
          if ((op & 0x08) == 0) {
            p.push_back(Action::run(Duration::ns(kRuns[0])));
            p.push_back(Action::block());
          } else {
            // A read or write of one of two channels, pipes or sockets (sizes across a pipe
            // page and the folded writes' bound, ChannelTable::kPipeFoldMax).
            static const uint32_t kBytes[] = {100, 1, 2500, 5000};
            const int64_t chan = op >> 4 & 1;
            const uint32_t bytes = kBytes[op >> 6 & 3];
            const uint8_t fl = socket ? kChanSocket : 0;
            p.push_back((op & 0x20) != 0 ? Action::read(chan, bytes, fl) : Action::write(chan, bytes, fl));
          }
          break;
      }
    }
  }
  try {
    validate_workload(w, "fuzz");
  } catch (const InputError&) {
    return 0;
  }
  const Outcome plain = simulate(w, topo, kernel, first_idle, cfg, false);
  const Outcome fast = simulate(w, topo, kernel, first_idle, cfg, true);
  if (plain.text != fast.text) {
    fmt::print(stderr, "engine_ab: the switches changed the outcome\n--- off\n{}\n--- on\n{}\n", plain.text, fast.text);
    std::abort();
  }
  return 0;
}
