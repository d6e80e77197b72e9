#include "schedsim/engine/cost_model.hpp"

#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "schedsim/base/error.hpp"
#include "schedsim/topology/json_input.hpp"

namespace schedsim {

namespace {
// The table of parameters: name, unit, doc, source. Values live in the struct; accessors below
// map names to members so there is one list.
struct Binding {
  const char* name;
  Duration CostModel::*dur;  ///< the member, for a duration
  int64_t CostModel::*num;   ///< the member, for a plain number
  const char* unit;
  const char* doc;
  const char* source;
};
const Binding kBindings[] = {
    {"context_switch", &CostModel::context_switch, nullptr, "ns",
     "direct cost of switching to a new task on a CPU",
     "lmbench lat_ctx (McVoy & Staelin, USENIX 1996); Li, Ding & Shen, 'Quantifying the cost of context switch', ExpCS 2007: 1-4 us direct cost on bare metal"},
    {"ipi_same_package", &CostModel::ipi_same_package, nullptr, "ns",
     "remote wakeup IPI to a CPU in the waker's package",
     "V. Pallipadi, 'Extend mwait idle to optimize away IPIs', LKML 2012-02: ~1600 cycles in one socket (Westmere)"},
    {"ipi_cross_package", &CostModel::ipi_cross_package, nullptr, "ns",
     "remote wakeup IPI to a CPU in another package",
     "same posting: ~2000 cycles across sockets"},
    {"idle_exit", &CostModel::idle_exit, nullptr, "ns",
     "exit latency of a CPU's idle state when a task is placed on it",
     "shallow C-state: drivers/idle/intel_idle.c tables give C1 1-2 us exit latency; deeper states 10-290 us"},
    {"probe_cpu", &CostModel::probe_cpu, nullptr, "ns",
     "per CPU examined by the plain idle-CPU scan",
     "'Optimize SIS_FOLD' changelog (select_idle_sibling rework RFC, 2018, patch 08/11): ~40 ns per CPU, from tracing"},
    {"probe_core_cpu", &CostModel::probe_core_cpu, nullptr, "ns",
     "per CPU visited by the core-wise idle-core scan",
     "same changelog: ~120 ns per CPU visited by the core-wise scan"},
    {"refill_smt", &CostModel::refill_smt, nullptr, "ns",
     "cache refill after migrating to an SMT sibling (shared L1/L2)",
     "derived: siblings share every cache level"},
    {"refill_cluster", &CostModel::refill_cluster, nullptr, "ns",
     "cache refill after migrating within a cluster (shared L2)",
     "derived [U]"},
    {"refill_llc", &CostModel::refill_llc, nullptr, "ns",
     "cache refill after migrating within the LLC (L1/L2 lost)",
     "derived [U]: 256 KB footprint refilled from L3"},
    {"refill_package", &CostModel::refill_package, nullptr, "ns",
     "cache refill after migrating across LLCs in a package",
     "derived [U]: footprint refilled from memory"},
    {"refill_numa", &CostModel::refill_numa, nullptr, "ns",
     "cache refill after migrating across NUMA nodes",
     "derived [U]: footprint refilled from remote memory (~1.5x local latency)"},
    {"tick", &CostModel::tick, nullptr, "ns",
     "scheduler tick period (HZ=250 gives 4 ms)",
     "Debian kernels: CONFIG_HZ=250"},
    {"smt_corun_permille", nullptr, &CostModel::smt_corun_permille, "permille",
     "work rate of an SMT thread while a sibling is busy (1000 = no slowdown)",
     "the kernel's former smt_gain 1178 gives ~589; Marr et al., Intel Technology Journal 6(1), 2002 ('up to 30%') gives 650; range 550-700"},
    // idle-wake cost model (idle_wake.hpp); "idle_wake" itself is a mode, handled in get/set
    {"halt_poll_min", &CostModel::halt_poll_min, nullptr, "ns",
     "vm-halt-poll: a target idle at most this long pays idle_exit_polled",
     "16-vCPU KVM guest traces: wakes to CPUs idle < 50 us take 4 us waking-to-enqueue (docs/fidelity.md)"},
    {"halt_poll_window", &CostModel::halt_poll_window, nullptr, "ns",
     "vm-halt-poll: a target idle at least this long pays idle_exit_halted (linear between)",
     "KVM halt_poll_ns, x86 default 200 us (Documentation/virt/kvm/halt-polling.rst); traces step at 50-250 us"},
    {"idle_exit_polled", &CostModel::idle_exit_polled, nullptr, "ns",
     "vm-halt-poll: wake cost after the IPI while the host still polls the halted vCPU",
     "16-vCPU KVM guest traces: p50 4 us waking-to-enqueue at idle < 50 us (8985 wakes) minus the IPI"},
    {"idle_exit_halted", &CostModel::idle_exit_halted, nullptr, "ns",
     "vm-halt-poll: wake cost after the IPI once the host descheduled the vCPU",
     "16-vCPU KVM guest traces: p50 10-19 us at idle > 200 us (msg, fork, periodic), ~14 us, minus the IPI"},
    {"timer_wake_local", &CostModel::timer_wake_local, nullptr, "ns",
     "vm-halt-poll: a timer wake on the sleeper's own idle CPU, waking to switch-in",
     "16-vCPU KVM guest, periodic-t24: 4671 such wakes, p50 1-2 us, p90 2-5 us (exit paid before the waking)"},
};
constexpr const char* kIdleWake = "idle_wake";
constexpr const char* kReplayOverheads = "replay_overheads";
constexpr const char* kGenSource =
    "reference: calibrated on a 2-vCPU KVM guest, Linux 6.18 (scripts/calibrate-messaging.sh); a machine cost "
    "profile gives its own (docs/calibrate.md)";

// Every mode, in the order the error message lists them.
constexpr ReplayOverheads kReplayOverheadsModes[] = {ReplayOverheads::kRecorded, ReplayOverheads::kCharged,
                                                     ReplayOverheads::kMigrationDelta};

const char* replay_overheads_name(ReplayOverheads m) {
  switch (m) {
    case ReplayOverheads::kRecorded: return "recorded";
    case ReplayOverheads::kCharged: return "charged";
    case ReplayOverheads::kMigrationDelta: return "migration-delta";
  }
  return "recorded";
}

const GenCostParam* find_gen(const std::string& name) {
  for (const auto& g : kGenCostParams)
    if (name == g.name) return &g;
  return nullptr;
}

const Binding* find_binding(const std::string& name) {
  for (const auto& b : kBindings)
    if (name == b.name) return &b;
  return nullptr;
}

std::vector<std::string> binding_names() {
  std::vector<std::string> n{kIdleWake, kReplayOverheads};
  for (const auto& b : kBindings) n.emplace_back(b.name);
  for (const auto& g : kGenCostParams) n.emplace_back(g.name);
  return n;
}
}  // namespace

const std::vector<CostModel::Param>& CostModel::params() {
  static const std::vector<Param> p = [] {
    std::vector<Param> v;
    for (const auto& b : kBindings) {
      if (std::string(b.name) == "halt_poll_min")
        v.push_back({kIdleWake, "mode",
                     "idle-wake cost model: constant (ipi + idle_exit) or vm-halt-poll (exit cost by the target's idle time)",
                     "docs/fidelity.md 'Idle-wake cost model'"});
      v.push_back({b.name, b.unit, b.doc, b.source});
    }
    v.push_back({kReplayOverheads, "mode",
                 "recorded (a replayed trace's on-CPU times already contain switch and refill costs: not charged "
                 "again), charged (charge them on top) or migration-delta (switch not charged; refill charged "
                 "per simulated migration and taken off the recorded time of each recorded one)",
                 "sched_switch is emitted before the switch itself (docs/calibrate.md)"});
    for (const auto& g : kGenCostParams) v.push_back({g.name, "ns", g.doc, kGenSource});
    return v;
  }();
  return p;
}

std::string CostModel::get(const std::string& name) const {
  if (name == kIdleWake) return idle_wake_mode_name(idle_wake);
  if (name == kReplayOverheads) return replay_overheads_name(replay_overheads);
  if (find_gen(name)) return std::to_string(gen_cost(gen_ops, name).count());
  const Binding* b = find_binding(name);
  if (!b) throw InputError(unknown_choice_message("cost parameter", name, binding_names()));
  if (b->dur) return std::to_string((this->*(b->dur)).count());
  return std::to_string(this->*(b->num));
}

void CostModel::set(const std::string& assignment, const std::string& source) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos)
    throw InputError(SourceLoc{source}, "expected name=value in '" + assignment + "' (see --cost list)");
  std::string name = assignment.substr(0, eq), value = assignment.substr(eq + 1);
  if (name == kIdleWake) {
    if (!parse_idle_wake_mode(value, idle_wake))
      throw InputError(SourceLoc{source}, unknown_choice_message("idle-wake model", value, idle_wake_mode_names()));
    idle_wake_set = true;
    return;
  }
  if (name == kReplayOverheads) {
    std::vector<std::string> names;
    for (ReplayOverheads m : kReplayOverheadsModes) {
      if (value == replay_overheads_name(m)) {
        replay_overheads = m;
        return;
      }
      names.emplace_back(replay_overheads_name(m));
    }
    throw InputError(SourceLoc{source}, unknown_choice_message("replay_overheads mode", value, names));
  }
  const Binding* b = find_binding(name);
  const GenCostParam* g = b ? nullptr : find_gen(name);
  if (!b && !g) throw InputError(SourceLoc{source}, unknown_choice_message("cost parameter", name, binding_names()));
  if (g || b->dur) {
    Duration d;
    if (!parse_duration(value, d))
      throw InputError(SourceLoc{source}, "cost '" + name + "': expected a duration like 40ns, 2us, 4ms, got '" +
                                              printable(value.substr(0, 40)) + (value.size() > 40 ? "...'" : "'"));
    if (name == "tick" && d.count() <= 0)
      throw InputError(SourceLoc{source}, "cost 'tick' must be positive");
    // Costs are added to simulated time per event: a bound keeps every sum far from int64. This
    // is the one range check of every duration cost, the idle-wake ones included
    // (parse_duration accepts no sign, so none is negative).
    if (d > kMaxCost)
      throw InputError(SourceLoc{source}, fmt::format("cost '{}': '{}' is too large (at most {})", name,
                                                      printable(value), format_duration(kMaxCost)));
    if (g) gen_ops[name] = d;
    else this->*(b->dur) = d;
  } else {
    char* end = nullptr;
    long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || v < 1 || v > 1000)
      throw InputError(SourceLoc{source}, "cost '" + name + "': expected an integer from 1 to 1000, got '" + value + "'");
    this->*(b->num) = v;
  }
}

void CostModel::load_json_file(const std::string& path) {
  load_json(read_input_file(path, "cost file"), path);
}

void CostModel::load_json(std::string_view text, const std::string& path) {
  nlohmann::json j = parse_json_input(std::string(text), path);
  if (!j.is_object()) throw InputError(SourceLoc{path}, "expected a JSON object of name: value");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const auto& v = it.value();
    if (!v.is_string() && !v.is_number_integer())
      throw InputError(SourceLoc{path + ": /" + it.key()},
                       fmt::format("cost '{}': expected a string like \"2us\" or an integer, got {} {}", it.key(),
                                   v.type_name(), describe_json_value(v)));
    set(it.key() + "=" + (v.is_string() ? v.get<std::string>() : v.dump()), path + ": /" + it.key());
  }
}

CostModel CostModel::for_input(bool from_trace) const {
  CostModel c = *this;
  if (!from_trace) {
    c.replay_overheads = ReplayOverheads::kCharged;
    return c;
  }
  if (replay_overheads != ReplayOverheads::kCharged) c.context_switch = Duration::zero();
  if (replay_overheads == ReplayOverheads::kRecorded)
    c.refill_smt = c.refill_cluster = c.refill_llc = c.refill_package = c.refill_numa = Duration::zero();
  return c;
}

std::string CostModel::describe() const {
  std::string out = fmt::format("{:<20} {:>10} {:<9} {}\n", "parameter", "value", "unit", "meaning [source]");
  for (const auto& p : params())
    out += fmt::format("{:<20} {:>10} {:<9} {} [{}]\n", p.name, get(p.name), p.unit, p.doc, p.source);
  return out;
}

}  // namespace schedsim
