#include "schedsim/engine/cost_model.hpp"

#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "schedsim/base/error.hpp"

namespace schedsim {

namespace {
// The table of parameters: name, unit, doc, source. Values live in the struct; accessors below
// map names to members so there is one list.
struct Binding {
  const char* name;
  Duration CostModel::*dur;
  int64_t CostModel::*num;
};
const Binding kBindings[] = {
    {"context_switch", &CostModel::context_switch, nullptr},
    {"ipi_same_package", &CostModel::ipi_same_package, nullptr},
    {"ipi_cross_package", &CostModel::ipi_cross_package, nullptr},
    {"idle_exit", &CostModel::idle_exit, nullptr},
    {"probe_cpu", &CostModel::probe_cpu, nullptr},
    {"probe_core_cpu", &CostModel::probe_core_cpu, nullptr},
    {"refill_smt", &CostModel::refill_smt, nullptr},
    {"refill_cluster", &CostModel::refill_cluster, nullptr},
    {"refill_llc", &CostModel::refill_llc, nullptr},
    {"refill_package", &CostModel::refill_package, nullptr},
    {"refill_numa", &CostModel::refill_numa, nullptr},
    {"tick", &CostModel::tick, nullptr},
    {"smt_corun_permille", nullptr, &CostModel::smt_corun_permille},
};

const Binding* find_binding(const std::string& name) {
  for (const auto& b : kBindings)
    if (name == b.name) return &b;
  return nullptr;
}

std::vector<std::string> binding_names() {
  std::vector<std::string> n;
  for (const auto& b : kBindings) n.push_back(b.name);
  return n;
}
}  // namespace

const std::vector<CostModel::Param>& CostModel::params() {
  static const std::vector<Param> p = {
      {"context_switch", "ns", "direct cost of switching to a new task on a CPU",
       "NUMBERS.md §6: 1.07-2.41 us pipe half round trip on bare metal; ~5 us on a 2-vCPU VM"},
      {"ipi_same_package", "ns", "remote wakeup IPI to a CPU in the waker's package",
       "NUMBERS.md §6: ~1600 cycles same socket (Pallipadi, LKML 2012)"},
      {"ipi_cross_package", "ns", "remote wakeup IPI to a CPU in another package",
       "NUMBERS.md §6: ~2000 cycles cross socket"},
      {"idle_exit", "ns", "exit latency of a CPU's idle state when a task is placed on it",
       "NUMBERS.md §6: shallow C-state; deep states take 50-100 us [U]"},
      {"probe_cpu", "ns", "per CPU examined by the plain idle-CPU scan",
       "NUMBERS.md §6 / kernel-model.md §4.7: ~40 ns ('Optimize SIS_FOLD' changelog)"},
      {"probe_core_cpu", "ns", "per CPU visited by the core-wise idle-core scan",
       "NUMBERS.md §6 / kernel-model.md §4.7: ~120 ns per CPU"},
      {"refill_smt", "ns", "cache refill after migrating to an SMT sibling (shared L1/L2)",
       "derived: siblings share every cache level"},
      {"refill_cluster", "ns", "cache refill after migrating within a cluster (shared L2)",
       "derived [U]"},
      {"refill_llc", "ns", "cache refill after migrating within the LLC (L1/L2 lost)",
       "derived [U]: 256 KB footprint refilled from L3"},
      {"refill_package", "ns", "cache refill after migrating across LLCs in a package",
       "NUMBERS.md §6 [ml]+[D]: footprint refilled from memory"},
      {"refill_numa", "ns", "cache refill after migrating across NUMA nodes",
       "NUMBERS.md §6: remote memory ~1.45x local latency"},
      {"tick", "ns", "scheduler tick period (HZ=250 gives 4 ms)", "Debian kernels: CONFIG_HZ=250"},
      {"smt_corun_permille", "permille",
       "work rate of an SMT thread while a sibling is busy (1000 = no slowdown)",
       "NUMBERS.md §6: smt_gain 1178 gives 575, Intel's 'up to 30%' gives 650; range 550-700"},
  };
  return p;
}

std::string CostModel::get(const std::string& name) const {
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
  const Binding* b = find_binding(name);
  if (!b) throw InputError(SourceLoc{source}, unknown_choice_message("cost parameter", name, binding_names()));
  if (b->dur) {
    Duration d;
    if (!parse_duration(value, d))
      throw InputError(SourceLoc{source}, "cost '" + name + "': expected a duration like 40ns, 2us, 4ms, got '" + value + "'");
    if (name == "tick" && d.count() <= 0)
      throw InputError(SourceLoc{source}, "cost 'tick' must be positive");
    this->*(b->dur) = d;
  } else {
    char* end = nullptr;
    long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || v < 1 || v > 1000)
      throw InputError(SourceLoc{source}, "cost '" + name + "': expected an integer from 1 to 1000, got '" + value + "'");
    this->*(b->num) = v;
  }
}

void CostModel::load_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(SourceLoc{path}, "cannot open cost file");
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  load_json(text, path);
}

void CostModel::load_json(std::string_view text, const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(SourceLoc{path}, std::string("malformed JSON: ") + e.what());
  } catch (const nlohmann::json::out_of_range& e) {  // a number beyond double's range (error 406)
    throw InputError(SourceLoc{path}, std::string("malformed JSON: ") + e.what());
  }
  if (!j.is_object()) throw InputError(SourceLoc{path}, "expected a JSON object of name: value");
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string v = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
    set(it.key() + "=" + v, path + ": /" + it.key());
  }
}

std::string CostModel::describe() const {
  std::string out = fmt::format("{:<20} {:>10} {:<9} {}\n", "parameter", "value", "unit", "meaning [source]");
  for (const auto& p : params())
    out += fmt::format("{:<20} {:>10} {:<9} {} [{}]\n", p.name, get(p.name), p.unit, p.doc, p.source);
  return out;
}

}  // namespace schedsim
