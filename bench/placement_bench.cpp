// placement_bench: wall-clock cost of one placement decision (select_task_rq) for every LLC
// search module on the 40-, 80-, 256- and 1024-CPU presets (xeon-e5-2690v2, xeon-gold-6248,
// epyc-milan-2s, dense-2s-1024; --presets a,b to choose), on an idle,
// a mixed (one CPU in eight idle) and a fully busy machine; then a CpuMask-based idle search
// against a per-CPU loop over std::vector<bool> on the 256-CPU preset, side by side.
//
//   cmake -S . -B build-rel -G Ninja -DCMAKE_BUILD_TYPE=Release
//   cmake --build build-rel --target placement_bench
//   ./build-rel/bench/placement_bench [--presets a,b] [--modules m,n] [--loads idle,mixed,busy]
//
// --modules/--loads pick rows and columns (and skip the mask comparison), e.g. for
// `valgrind --tool=callgrind`: instruction counts per decision are the inclusive count of
// KernelPlacement::select_task_rq divided by its calls.
//
// The state is hand-built (no engine): CPUs are marked busy with a fake current task, the util
// slot is `none` (all loads zero, so SIS_UTIL's nr_idle_scan is the whole LLC after one refresh)
// and the idle-core hint is the kernel module (a failed scan clears it, as in a real run).
#include <time.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "schedsim/engine/policy.hpp"
#include "schedsim/engine/state.hpp"
#include "schedsim/policies/idle_cores.hpp"
#include "schedsim/policies/pelt.hpp"
#include "schedsim/policies/sis.hpp"
#include "schedsim/topology/topology.hpp"

using namespace schedsim;
using Clock = std::chrono::steady_clock;

namespace {

volatile uint64_t g_sink = 0;

double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

enum class Load { kIdle, kMixed, kBusy };
const char* to_string(Load l) {
  switch (l) {
    case Load::kIdle: return "idle";
    case Load::kMixed: return "mixed";
    case Load::kBusy: return "busy";
  }
  return "?";
}

struct Rig {
  Topology topo;
  CostModel cost;
  SchedState s;
  CpuMask all;
  pelt::NoUtil util;
  idle_cores::KernelHint hint;
  static constexpr uint32_t kTasks = 64;

  Rig(const std::string& preset, Load load) : topo(Topology::build(preset_spec(preset))) {
    s.init(topo, cost, kTasks + 1);
    all = topo.all_cpus();
    for (auto& t : s.tasks) t.affinity = &all;
    s.util = &util;
    s.idle_cores = &hint;
    for (uint32_t c = 0; c < topo.nr_cpus(); ++c) {
      bool busy = load == Load::kBusy || (load == Load::kMixed && c % 8 != 5);
      if (!busy) continue;
      s.cpus[c].curr = TaskId(kTasks);
      s.cpus[c].nr_running = 1;
      ++s.core_busy_threads[topo.core_index(c)];
    }
    for (uint32_t c = 0; c < topo.nr_cpus(); ++c) {
      LlcShared& l = s.llc_of(CpuId(c));
      if (topo.llc_mask(c).first() == c) {
        l.nr_idle_cores_exact = 0;
        for (uint32_t x : topo.llc_mask(c))
          if (topo.smt_mask(x).first() == x && s.core_busy_threads[topo.core_index(x)] == 0)
            ++l.nr_idle_cores_exact;
        l.has_idle_cores = true;  // announced once; a failed scan clears it
      }
    }
  }
};

double ns_per_decision(const std::string& preset, Load load, const placement::PlacementModuleDef& d) {
  Rig rig(preset, load);
  FeatureSet f;
  for (const auto& fd : d.features) f.set(fd.name, fd.default_on);
  auto owned = d.make(Features::from(f));
  placement::KernelPlacement& mod = *owned;
  const uint32_t n = rig.topo.nr_cpus();
  const int llc = rig.topo.llc_level();
  PlacementWrites w(rig.s, &rig.util, &rig.hint);
  for (uint32_t c = 0; c < n; ++c) mod.on_periodic_balance(rig.s, w, CpuId(c), llc);
  uint64_t iters = 0;
  uint64_t sum = 0;
  // The thread's CPU time, not wall: the machine is shared. Batches until 100 ms of it.
  const double t0 = thread_cpu_ns();
  double elapsed = 0;
  while (elapsed < 100e6) {
    for (uint32_t i = 0; i < 4096; ++i, ++iters) {
      WakeContext ctx;
      ctx.p = TaskId(static_cast<uint32_t>(iters % Rig::kTasks));
      ctx.waker = TaskId(static_cast<uint32_t>((iters + 1) % Rig::kTasks));
      ctx.waker_cpu = CpuId(static_cast<uint32_t>((iters * 7) % n));
      ctx.prev_cpu = CpuId(static_cast<uint32_t>((iters * 13 + 3) % n));
      rig.s.now = Instant::from_ns(static_cast<int64_t>(iters) * 1000);
      sum += mod.select_task_rq(rig.s, w, ctx).cpu.value();
    }
    elapsed = thread_cpu_ns() - t0;
  }
  g_sink = g_sink + sum;
  return elapsed / static_cast<double>(iters);
}

/// The idle search a baseline or select_idle_capacity does, three ways: the first CPU of
/// span & allowed & idle at or after `target`, wrapping (for_each_cpu_wrap order).
///
/// 1. CpuMask word-wise: AND the three masks one 64-bit word at a time and take the lowest set
///    bit (countr_zero), never materialising a temporary mask.
uint32_t search_words(const CpuMask& idle, const CpuMask& span, const CpuMask& allowed, uint32_t target) {
  const uint32_t used = std::min({idle.used_words(), span.used_words(), allowed.used_words()});
  if (used == 0) return CpuMask::kMaxCpus;
  if (target >= used * 64) target = 0;
  auto and3 = [&](uint32_t w) { return idle.word(w) & span.word(w) & allowed.word(w); };
  const uint32_t w0 = target >> 6;
  uint32_t w = w0;
  uint64_t bits = and3(w) & (~uint64_t{0} << (target & 63));
  for (uint32_t step = 0; step < used; ++step) {
    if (bits) return (w << 6) + static_cast<uint32_t>(std::countr_zero(bits));
    w = w + 1 == used ? 0 : w + 1;
    bits = and3(w);
  }
  // Back at the first word: the CPUs below target.
  bits &= (uint64_t{1} << (target & 63)) - 1;
  return bits ? (w0 << 6) + static_cast<uint32_t>(std::countr_zero(bits)) : CpuMask::kMaxCpus;
}
/// 2. CpuMask operators: the same with & and next_wrap (two 4096-bit temporaries per call).
uint32_t search_mask_ops(const CpuMask& idle, const CpuMask& span, const CpuMask& allowed, uint32_t target) {
  CpuMask m = idle & span & allowed;
  return m.next_wrap(target);
}
/// 3. The per-CPU loop over std::vector<bool>.
uint32_t search_loop(const std::vector<bool>& idle, const std::vector<bool>& span,
                     const std::vector<bool>& allowed, uint32_t target) {
  const uint32_t n = static_cast<uint32_t>(idle.size());
  for (uint32_t k = 0; k < n; ++k) {
    uint32_t c = target + k < n ? target + k : target + k - n;
    if (span[c] && allowed[c] && idle[c]) return c;
  }
  return CpuMask::kMaxCpus;
}

void mask_vs_loop() {
  Topology topo = Topology::build(preset_spec("epyc-milan-2s"));
  const uint32_t n = topo.nr_cpus();
  struct Case {
    const char* name;
    CpuMask span;
    std::vector<uint32_t> idle;
  };
  std::vector<Case> cases = {
      {"machine, 0 idle", topo.all_cpus(), {}},
      {"machine, 2 idle", topo.all_cpus(), {77, 201}},
      {"machine, 32 idle", topo.all_cpus(), {}},
      {"one LLC, 0 idle", topo.llc_mask(0), {}},
  };
  for (uint32_t c = 3; c < n; c += 8) cases[2].idle.push_back(c);
  std::printf("\nCpuMask search vs per-CPU loop over std::vector<bool>, epyc-milan-2s (256 CPUs)\n");
  std::printf("%-18s %12s %12s %12s %9s\n", "span, idle CPUs", "words ns", "mask-ops ns", "vector ns",
              "speedup");
  for (const auto& cs : cases) {
    CpuMask idle, allowed = topo.all_cpus();
    std::vector<bool> idle_v(n), allowed_v(n, true), span_v(n);
    for (uint32_t c : cs.idle) {
      idle.set(c);
      idle_v[c] = true;
    }
    for (uint32_t c : cs.span) span_v[c] = true;
    auto run = [&](auto&& fn) {
      uint64_t iters = 0, sum = 0;
      auto t0 = Clock::now();
      Clock::duration el{};
      while (el < std::chrono::milliseconds(200)) {
        for (uint32_t i = 0; i < 8192; ++i, ++iters) sum += fn(static_cast<uint32_t>((iters * 37) % n));
        el = Clock::now() - t0;
      }
      g_sink = g_sink + sum;
      return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(el).count()) /
             static_cast<double>(iters);
    };
    // All three must agree before they are timed.
    for (uint32_t t = 0; t < n; ++t) {
      uint32_t a = search_words(idle, cs.span, allowed, t);
      if (a != search_mask_ops(idle, cs.span, allowed, t) || a != search_loop(idle_v, span_v, allowed_v, t)) {
        std::printf("mismatch at target %u\n", t);
        std::exit(1);
      }
    }
    double a = run([&](uint32_t t) { return search_words(idle, cs.span, allowed, t); });
    double b = run([&](uint32_t t) { return search_mask_ops(idle, cs.span, allowed, t); });
    double c = run([&](uint32_t t) { return search_loop(idle_v, span_v, allowed_v, t); });
    std::printf("%-18s %12.1f %12.1f %12.1f %8.1fx\n", cs.name, a, b, c, c / a);
  }
}

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> out;
  for (size_t pos = 0; pos < list.size();) {
    size_t c = std::min(list.find(',', pos), list.size());
    out.push_back(list.substr(pos, c - pos));
    pos = c + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> presets = {"xeon-e5-2690v2", "xeon-gold-6248", "epyc-milan-2s", "dense-2s-1024"};
  std::vector<std::string> modules, loads;  // empty = all
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 < argc && a == "--presets") presets = split_list(argv[++i]);
    else if (i + 1 < argc && a == "--modules") modules = split_list(argv[++i]);
    else if (i + 1 < argc && a == "--loads") loads = split_list(argv[++i]);
    else {
      std::fprintf(stderr, "usage: placement_bench [--presets a,b,...] [--modules m,...] [--loads idle,mixed,busy]\n");
      return 2;
    }
  }
  auto wanted = [](const std::vector<std::string>& list, const std::string& x) {
    return list.empty() || std::find(list.begin(), list.end(), x) != list.end();
  };
  std::printf("CPU ns per placement decision (select_task_rq wakeups, hand-built state)\n");
  std::printf("%-15s %-16s %9s %9s %9s\n", "module", "preset", "idle", "mixed", "busy");
  for (const auto& preset : presets) {
    for (const auto& d : placement::placement_module_defs()) {
      if (!wanted(modules, d.name)) continue;
      std::printf("%-15s %-16s", d.name.c_str(), preset.c_str());
      for (Load l : {Load::kIdle, Load::kMixed, Load::kBusy}) {
        if (!wanted(loads, to_string(l))) {
          std::printf(" %9s", "-");
          continue;
        }
        std::printf(" %9.1f", ns_per_decision(preset, l, d));
        std::fflush(stdout);
      }
      std::printf("\n");
    }
  }
  if (modules.empty() && loads.empty()) mask_vs_loop();
  return g_sink == 42 ? 1 : 0;
}
