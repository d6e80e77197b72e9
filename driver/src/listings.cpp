// The lists the commands print (listings.hpp).
#include "schedsim/driver/listings.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
#include "schedsim/driver/run.hpp"
#include "schedsim/engine/cost_model.hpp"
#include "schedsim/engine/cost_profile.hpp"
#include "schedsim/policies/registry.hpp"
#include "schedsim/topology/topology.hpp"

namespace schedsim::driver {

namespace {

// The name, padded to `width` (one space at least), then the text.
std::string row(const std::string& name, size_t width, const std::string& text) {
  return name + std::string(name.size() < width ? width - name.size() : 1, ' ') + text + "\n";
}

std::string module_features(const ModuleInfo& mi) {
  std::string out = fmt::format("{} {}:", mi.slot, mi.name);
  if (mi.features.empty()) return out + " no feature flags\n";
  out += "\n";
  // The name column fits the module's longest flag (PLACE_DEADLINE_INITIAL), at least 17 wide.
  size_t width = 17;
  for (const auto& f : mi.features) width = std::max(width, f.name.size() + 2);
  for (const auto& f : mi.features) out += fmt::format("  {:<{}}{:<5}{}\n", f.name, width, f.default_on ? "on" : "off", f.doc);
  return out;
}

std::string profile_flags(const KernelProfile& p) {
  std::string flags;
  for (const auto& [name, on] : p.features) flags += (flags.empty() ? "" : " ") + std::string(on ? "" : "NO_") + name;
  return flags;
}

}  // namespace

std::string list_modules(const std::string& slot) {
  std::string out;
  for (const auto& s : slot_names()) {
    if (!slot.empty() && s != slot) continue;
    if (slot.empty()) out += s + ":\n";
    for (const auto& m : builtin_registry().all())
      if (m.slot == s) out += slot.empty() ? fmt::format("  {:<15}{}\n", m.name, m.summary) : row(m.name, 16, m.summary);
  }
  return out;
}

std::string list_kernels() {
  std::string out;
  for (const auto& p : kernel_profiles()) out += fmt::format("{:<6}{}\n", p.version, p.summary);
  return out;
}

std::string list_features() {
  std::string out;
  for (const auto& f : builtin_registry().all_features())
    out += row(f.name, 24, std::string(f.default_on ? "on " : "off") + "  " + f.doc);
  return out;
}

std::string list_module_features(const std::string& spec) {
  const PolicyRegistry& reg = builtin_registry();
  std::vector<ModuleInfo> mods;
  if (spec.empty()) {
    for (const auto& mi : reg.all())
      if (!mi.features.empty()) mods.push_back(mi);
  } else {
    std::string slot, name = spec;
    if (auto colon = spec.find(':'); colon != std::string::npos) {
      slot = spec.substr(0, colon);
      name = spec.substr(colon + 1);
      if (std::find(slot_names().begin(), slot_names().end(), slot) == slot_names().end())
        throw InputError(unknown_choice_message("slot", slot, slot_names()));
    }
    std::vector<std::string> names;
    for (const auto& mi : reg.all()) {
      if (!slot.empty() && mi.slot != slot) continue;
      if (std::find(names.begin(), names.end(), mi.name) == names.end()) names.push_back(mi.name);
      if (mi.name == name) mods.push_back(mi);
    }
    if (mods.empty()) throw InputError(unknown_choice_message("module", name, names));
  }
  std::string out;
  for (const auto& mi : mods) out += (out.empty() ? "" : "\n") + module_features(mi);
  return out;
}

std::string kernel_profile_table() {
  std::string out = "| profile |";
  for (const auto& slot : slot_names()) out += " " + slot + " |";
  out += " flags |\n|---|";
  for (size_t i = 0; i < slot_names().size(); ++i) out += "---|";
  out += "---|\n";
  for (const auto& p : kernel_profiles()) {
    out += "| " + p.version + " |";
    for (const auto& slot : slot_names()) out += " " + p.modules.at(slot) + " |";
    out += " " + profile_flags(p) + " |\n";
  }
  return out;
}

std::string describe_kernel_profile(const KernelProfile& p) {
  std::string out = fmt::format("kernel {}: {}\n", p.version, p.summary);
  for (const auto& slot : slot_names()) out += fmt::format("  {:<12}{}\n", slot, p.modules.at(slot));
  std::string flags;
  for (const auto& [name, on] : p.features) flags += std::string(" ") + (on ? "" : "NO_") + name;
  return out + "  features:" + flags + "\n";
}

std::string list_topologies() {
  const auto& presets = preset_list();
  size_t width = 0;
  for (const auto& p : presets) width = std::max(width, p.name.size());
  std::string out;
  for (const auto& p : presets) {
    const auto cpus = static_cast<uint32_t>(preset_spec(p.name).cpus.size());
    out += fmt::format("{:<{}}  {:>4} CPUs  {}\n", p.name, width, cpus, p.summary);
    out += fmt::format("{:<{}}  {}\n", "", width + 11, cost_profile_summary(cost_profile_for(p.name)));
  }
  out += "\nAlso accepted wherever a topology is expected: smpN (a flat machine of N CPUs, no SMT,\n"
         "one LLC, N = 1..4096), 'host', a topology JSON file, a saved sysfs directory, or an\n"
         "`lscpu -p` output file (these use the reference costs; `schedsim calibrate` fits a cost\n"
         "file). `run --cost list -t TOPOLOGY` lists every cost parameter with its value, whether it\n"
         "is the machine's own or the reference default, and its source (docs/calibrate.md \"Machine\n"
         "cost profiles\").\n";
  return out;
}

std::optional<std::string> run_listing(const RunRequest& r) {
  for (const auto& [slot, module] : r.modules)
    if (module == "list") return list_modules(slot);
  if (r.topology == "list") return list_topologies();
  if (r.kernel == "list") return list_kernels();
  if (std::find(r.features.begin(), r.features.end(), "list") != r.features.end()) return list_features();
  if (std::find(r.costs.begin(), r.costs.end(), "list") == r.costs.end()) return std::nullopt;
  // The costs a run on -t with the other --cost values would start from: the defaults, the
  // machine's profile, then what was given (rows say which).
  const Topology topo = load_topology(r.topology.empty() ? kDefaultTopology : r.topology);
  std::vector<std::string> others = r.costs;
  std::erase(others, std::string("list"));
  std::map<std::string, std::string> given;
  const CostModel cost = build_cost_model(others, topo, nullptr, &given);
  return describe_costs(cost, cost_profile_for(topo.name()), given);
}

}  // namespace schedsim::driver
