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
    {"resched_ipi", &CostModel::resched_ipi, nullptr, "ns",
     "a wakeup's preemption of another CPU's running task takes effect this late (0: at once)",
     "resched_curr() -> smp_send_reschedule(), scheduler_ipi() and __schedule() on the target; measured per machine "
     "(scripts/analysis/wake_latency.py --preempting: remote preempting wakes, waking to switch-in, or `trace info --idle-wake-costs`); "
     "docs/model.md 'The reschedule IPI'"},
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
    {"xfer_smt", &CostModel::xfer_smt, nullptr, "ns",
     "a wakee's first touch of what its waker wrote, when the waker ran on its SMT sibling (0 = not modelled)",
     "mechanism: the message and buffer lines move between the CPUs' caches; no sourced per-machine value, opt-in"},
    {"xfer_cluster", &CostModel::xfer_cluster, nullptr, "ns",
     "the same, waker in the wakee's cluster (shared L2 or L3 tags)", "as xfer_smt"},
    {"xfer_llc", &CostModel::xfer_llc, nullptr, "ns", "the same, waker in the wakee's LLC", "as xfer_smt"},
    {"xfer_package", &CostModel::xfer_package, nullptr, "ns", "the same, waker in another LLC of the package",
     "as xfer_smt"},
    {"xfer_numa", &CostModel::xfer_numa, nullptr, "ns", "the same, waker on another NUMA node", "as xfer_smt"},
    {"tick", &CostModel::tick, nullptr, "ns",
     "scheduler tick period (HZ=250 gives 4 ms)",
     "Debian kernels: CONFIG_HZ=250"},
    {"smt_corun_permille", nullptr, &CostModel::smt_corun_permille, "permille",
     "work rate of an SMT thread while a sibling is busy (1000 = no slowdown)",
     "the kernel's former smt_gain 1178 gives ~589; Marr et al., Intel Technology Journal 6(1), 2002 ('up to 30%') gives 650; range 550-700"},
    // idle-wake cost model (idle_wake.hpp); "idle_wake" itself is a mode, handled in get/set
    {"halt_poll_min", &CostModel::halt_poll_min, nullptr, "ns",
     "vm-halt-poll: a target idle at most this long pays idle_exit_polled",
     "16-vCPU KVM guest traces: wakes to CPUs idle < 50 us take 4 us waking-to-enqueue (docs/model.md 'Idle-wake cost model')"},
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
    {"wake_local", &CostModel::wake_local, nullptr, "ns",
     "replay_wakes=modelled: waker CPU time of a wake to a task on the waker's CPU",
     "2-vCPU KVM guest, syscalls/hb-sock-proc-g1-l100.r2: write() of 100 bytes waking a reader on its own CPU 3.8 us mean, "
     "1.3 us waking nobody (scripts/analysis/syscall_wake_cost.py; docs/model.md 'The waker's wake cost in replays')"},
    {"wake_remote", &CostModel::wake_remote, nullptr, "ns",
     "replay_wakes=modelled: waker CPU time of a wake to a task on another CPU (IPI included)",
     "same recording: write() waking a reader on the other CPU 6.0 us mean against 1.3 us waking nobody"},
};
constexpr const char* kIdleWake = "idle_wake";

// The idle-duration cost tables (idle_wake.hpp, mode "table"): name, member, doc, source.
struct TableBinding {
  const char* name;
  IdleCostTable CostModel::*table;
  const char* doc;
  const char* source;
};
const TableBinding kTables[] = {
    {"idle_exit_table", &CostModel::idle_exit_table,
     "table: wake cost after the IPI by the target's idle time, steps idle_from:cost (ns), e.g. 0:5400,150us:13400",
     "measured per machine by `trace info --idle-wake-costs` (p50 waking-to-switch-in by idle class, minus the IPI); "
     "docs/model.md 'The idle-exit table'"},
    {"timer_wake_table", &CostModel::timer_wake_table,
     "table: timer wake on the sleeper's own idle CPU by its idle time, steps idle_from:cost (ns); - = timer_wake_local",
     "measured per machine by `trace info --idle-wake-costs` from local timer wakes with a recorded switch from idle"},
};
const TableBinding* find_table(const std::string& name) {
  for (const auto& t : kTables)
    if (name == t.name) return &t;
  return nullptr;
}

// One step as written: its idle_from and cost texts, and where each came from (for errors).
struct StepText {
  std::string from, cost;
  std::string from_loc, cost_loc;
};

// Durations of a table step: parse_duration's forms (no sign), at most kMaxCost for a cost.
Duration parse_step_duration(const std::string& name, const std::string& what, const std::string& text,
                             const std::string& loc) {
  Duration d;
  if (!parse_duration(text, d))
    throw InputError(SourceLoc{loc}, fmt::format("cost '{}': {} expected a duration like 0, 50us, 2ms, got '{}{}'", name,
                                                 what, printable(text.substr(0, 40)), text.size() > 40 ? "..." : ""));
  if (what == "cost" && d > kMaxCost)
    throw InputError(SourceLoc{loc}, fmt::format("cost '{}': cost '{}' is too large (at most {})", name,
                                                 printable(text), format_duration(kMaxCost)));
  return d;
}

// A table from its steps: at most kMaxIdleCostSteps, the first from 0, idle_from strictly
// increasing (a lookup must find exactly one step for every idle duration).
IdleCostTable build_table(const std::string& name, const std::vector<StepText>& steps, const std::string& loc) {
  if (steps.empty()) throw InputError(SourceLoc{loc}, fmt::format("cost '{}': the table has no step", name));
  if (steps.size() > kMaxIdleCostSteps)
    throw InputError(SourceLoc{loc}, fmt::format("cost '{}': {} steps, at most {}", name, steps.size(), kMaxIdleCostSteps));
  IdleCostTable t;
  for (const auto& st : steps) {
    IdleCostStep s{parse_step_duration(name, "idle_from", st.from, st.from_loc),
                   parse_step_duration(name, "cost", st.cost, st.cost_loc)};
    if (t.empty() && s.idle_from != Duration::zero())
      throw InputError(SourceLoc{st.from_loc},
                       fmt::format("cost '{}': the first step must start at idle_from 0 (every idle time needs a cost), "
                                   "got {}",
                                   name, format_duration(s.idle_from)));
    if (!t.empty() && s.idle_from <= t.back().idle_from)
      throw InputError(SourceLoc{st.from_loc}, fmt::format("cost '{}': idle_from must increase from step to step: {} "
                                                           "after {}",
                                                           name, format_duration(s.idle_from),
                                                           format_duration(t.back().idle_from)));
    t.push_back(s);
  }
  return t;
}

// "FROM:COST,FROM:COST" (the --cost form); "-" is the empty table (`--cost list` prints it so).
IdleCostTable parse_table_text(const std::string& name, const std::string& value, const std::string& source) {
  if (value == "-") return {};
  std::vector<std::string> items;
  for (size_t pos = 0;;) {
    size_t comma = value.find(',', pos);
    items.push_back(value.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (items.size() > kMaxIdleCostSteps)
    throw InputError(SourceLoc{source}, fmt::format("cost '{}': {} steps, at most {}", name, items.size(), kMaxIdleCostSteps));
  std::vector<StepText> steps;
  for (const auto& item : items) {
    const std::string loc = fmt::format("{}: {} step {}", source, name, steps.size() + 1);
    size_t colon = item.find(':');
    if (colon == std::string::npos)
      throw InputError(SourceLoc{loc}, fmt::format("cost '{}': expected idle_from:cost like 150us:13us, got '{}'", name,
                                                   printable(item.substr(0, 40))));
    steps.push_back({item.substr(0, colon), item.substr(colon + 1), loc, loc});
  }
  return build_table(name, steps, source);
}

// A JSON step value as duration text: a string as written, an integer as ns.
std::string json_step_text(const std::string& name, const nlohmann::json& v, const std::string& loc) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() || v.get<int64_t>() >= 0) return v.dump();
    throw InputError(SourceLoc{loc}, fmt::format("cost '{}': must not be negative, got {}", name, v.dump()));
  }
  throw InputError(SourceLoc{loc}, fmt::format("cost '{}': expected a string like \"2us\" or an integer (ns), got {} {}",
                                               name, v.type_name(), describe_json_value(v)));
}

// [{"idle_from": ..., "cost": ..., "samples": n}, ...] (the cost-file form; samples records how
// many measured wakes the step's cost is the p50 of, and is not used by the model).
IdleCostTable parse_table_json(const std::string& name, const nlohmann::json& v, const std::string& loc) {
  if (!v.is_array())
    throw InputError(SourceLoc{loc}, fmt::format("cost '{}': expected an array of {{\"idle_from\": ..., \"cost\": ...}} "
                                                 "or a string like \"0:5us,150us:13us\", got {} {}",
                                                 name, v.type_name(), describe_json_value(v)));
  std::vector<StepText> steps;
  if (v.size() > kMaxIdleCostSteps)
    throw InputError(SourceLoc{loc}, fmt::format("cost '{}': {} steps, at most {}", name, v.size(), kMaxIdleCostSteps));
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string at = fmt::format("{}/{}", loc, i);
    const auto& e = v[i];
    if (!e.is_object())
      throw InputError(SourceLoc{at}, fmt::format("cost '{}': expected an object {{\"idle_from\": ..., \"cost\": ...}}, "
                                                  "got {} {}",
                                                  name, e.type_name(), describe_json_value(e)));
    for (auto it = e.begin(); it != e.end(); ++it)
      if (it.key() != "idle_from" && it.key() != "cost" && it.key() != "samples")
        throw InputError(SourceLoc{at + "/" + it.key()},
                         fmt::format("cost '{}': unknown key (a step has idle_from, cost and samples)", name));
    for (const char* k : {"idle_from", "cost"})
      if (!e.contains(k)) throw InputError(SourceLoc{at}, fmt::format("cost '{}': the step has no '{}'", name, k));
    if (e.contains("samples") && !(e["samples"].is_number_unsigned() ||
                                   (e["samples"].is_number_integer() && e["samples"].get<int64_t>() >= 0)))
      throw InputError(SourceLoc{at + "/samples"},
                       fmt::format("cost '{}': samples is a count of measured wakes, got {}", name,
                                   describe_json_value(e["samples"])));
    steps.push_back({json_step_text(name, e["idle_from"], at + "/idle_from"), json_step_text(name, e["cost"], at + "/cost"),
                     at + "/idle_from", at + "/cost"});
  }
  return build_table(name, steps, loc);
}

constexpr const char* kReplayOverheads = "replay_overheads";
constexpr const char* kReplayWakes = "replay_wakes";
constexpr const char* kGenSource =
    "reference: calibrated on a 2-vCPU KVM guest, Linux 6.18 (scripts/calibrate-messaging.sh); a machine cost "
    "profile gives its own (docs/calibrate.md)";
constexpr const char* kRrSource =
    "reference: measured on a 2-vCPU KVM guest, Linux 6.18, as pipe_op + half the difference of a loopback TCP "
    "and a pipe ping-pong on one CPU (scripts/measure-rr-op.sh); a machine cost profile gives its own";

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

const char* replay_wakes_name(ReplayWakes m) { return m == ReplayWakes::kModelled ? "modelled" : "recorded"; }

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
  std::vector<std::string> n{kIdleWake, kReplayOverheads, kReplayWakes};
  for (const auto& b : kBindings) n.emplace_back(b.name);
  for (const auto& t : kTables) n.emplace_back(t.name);
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
                     "idle-wake cost model: constant (ipi + idle_exit), vm-halt-poll (exit cost ramps with the target's idle "
                     "time) or table (exit cost by idle time from idle_exit_table)",
                     "docs/model.md 'Idle-wake cost model'"});
      v.push_back({b.name, b.unit, b.doc, b.source});
      if (std::string(b.name) == "timer_wake_local")
        for (const auto& t : kTables) v.push_back({t.name, "table", t.doc, t.source});
    }
    v.push_back({kReplayOverheads, "mode",
                 "recorded (a replayed trace's on-CPU times already contain switch and refill costs: not charged "
                 "again), charged (charge them on top) or migration-delta (switch not charged; refill charged "
                 "per simulated migration and taken off the recorded time of each recorded one)",
                 "sched_switch is emitted before the switch itself (docs/calibrate.md)"});
    v.push_back({kReplayWakes, "mode",
                 "recorded (a replayed waker's recorded time holds the cost of the wakes the recording made) or "
                 "modelled (that cost is taken off; each wake the replay performs charges wake_local or wake_remote, "
                 "a banked one nothing)",
                 "try_to_wake_up() runs in the waker's context (docs/model.md 'The waker's wake cost in replays')"});
    for (const auto& g : kGenCostParams)
      v.push_back({g.name, "ns", g.doc, std::string(g.name) == "rr_op" ? kRrSource : kGenSource});
    return v;
  }();
  return p;
}

bool CostModel::is_table(const std::string& name) { return find_table(name) != nullptr; }

std::string CostModel::get(const std::string& name) const {
  if (name == kIdleWake) return idle_wake_mode_name(idle_wake);
  if (name == kReplayOverheads) return replay_overheads_name(replay_overheads);
  if (name == kReplayWakes) return replay_wakes_name(replay_wakes);
  if (find_gen(name)) return std::to_string(gen_cost(gen_ops, name).count());
  if (const TableBinding* t = find_table(name)) return format_idle_cost_table(this->*(t->table));
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
  if (name == kReplayWakes) {
    for (ReplayWakes m : {ReplayWakes::kRecorded, ReplayWakes::kModelled})
      if (value == replay_wakes_name(m)) {
        replay_wakes = m;
        return;
      }
    throw InputError(SourceLoc{source}, unknown_choice_message("replay_wakes mode", value, {"recorded", "modelled"}));
  }
  if (const TableBinding* t = find_table(name)) {
    this->*(t->table) = parse_table_text(name, value, source);
    return;
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

std::vector<std::string> CostModel::load_json_file(const std::string& path) {
  return load_json(read_input_file(path, "cost file"), path);
}

std::vector<std::string> CostModel::load_json(std::string_view text, const std::string& path) {
  nlohmann::json j = parse_json_input(std::string(text), path);
  if (!j.is_object()) throw InputError(SourceLoc{path}, "expected a JSON object of name: value");
  std::vector<std::string> names;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const auto& v = it.value();
    names.push_back(it.key());
    if (const TableBinding* t = find_table(it.key()); t && !v.is_string()) {
      this->*(t->table) = parse_table_json(it.key(), v, path + ": /" + it.key());
      continue;
    }
    if (!v.is_string() && !v.is_number_integer())
      throw InputError(SourceLoc{path + ": /" + it.key()},
                       fmt::format("cost '{}': expected a string like \"2us\" or an integer, got {} {}", it.key(),
                                   v.type_name(), describe_json_value(v)));
    set(it.key() + "=" + (v.is_string() ? v.get<std::string>() : v.dump()), path + ": /" + it.key());
  }
  return names;
}

void CostModel::validate(const std::string& source) const {
  if (idle_wake == IdleWakeMode::kTable && idle_exit_table.empty())
    throw InputError(SourceLoc{source}, "idle_wake=table needs idle_exit_table (a cost file written by `trace info "
                                        "--idle-wake-costs`, or --cost idle_exit_table=0:5us,150us:13us)");
}

CostModel CostModel::for_input(bool from_trace) const {
  CostModel c = *this;
  if (!from_trace) {
    c.replay_overheads = ReplayOverheads::kCharged;
    c.replay_wakes = ReplayWakes::kRecorded;
    return c;
  }
  if (replay_overheads != ReplayOverheads::kCharged) c.context_switch = Duration::zero();
  if (replay_overheads == ReplayOverheads::kRecorded) {
    c.refill_smt = c.refill_cluster = c.refill_llc = c.refill_package = c.refill_numa = Duration::zero();
    // The recorded run after a wakeup already holds its transfer from the recording's waker.
    c.xfer_smt = c.xfer_cluster = c.xfer_llc = c.xfer_package = c.xfer_numa = Duration::zero();
  }
  return c;
}

std::string CostModel::describe() const {
  std::string out = fmt::format("{:<20} {:>10} {:<9} {}\n", "parameter", "value", "unit", "meaning [source]");
  for (const auto& p : params())
    out += fmt::format("{:<20} {:>10} {:<9} {} [{}]\n", p.name, get(p.name), p.unit, p.doc, p.source);
  return out;
}

}  // namespace schedsim
