// schedsim policies: lists the policy modules of every slot, their sched_feat flags, and the
// kernel profiles. The data lives in the policies library (registry, kernel_profiles()).
#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "../command.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/policies/registry.hpp"

namespace schedsim::cli {
namespace {

void print_modules(const PolicyRegistry& reg) {
  for (const auto& slot : slot_names()) {
    std::cout << slot << ":\n";
    for (const auto& mi : reg.all())
      if (mi.slot == slot) std::cout << fmt::format("  {:<15}{}\n", mi.name, mi.summary);
  }
}

void print_features(const ModuleInfo& mi) {
  std::cout << fmt::format("{} {}:", mi.slot, mi.name);
  if (mi.features.empty()) {
    std::cout << " no feature flags\n";
    return;
  }
  std::cout << "\n";
  // The name column fits the module's longest flag (PLACE_DEADLINE_INITIAL), at least 17 wide.
  size_t width = 17;
  for (const auto& f : mi.features) width = std::max(width, f.name.size() + 2);
  for (const auto& f : mi.features)
    std::cout << fmt::format("  {:<{}}{:<5}{}\n", f.name, width, f.default_on ? "on" : "off", f.doc);
}

/// MODULE or SLOT:MODULE; a bare name may match modules of several slots (all are shown).
std::vector<ModuleInfo> find_modules(const PolicyRegistry& reg, const std::string& spec) {
  std::string slot, name = spec;
  if (auto colon = spec.find(':'); colon != std::string::npos) {
    slot = spec.substr(0, colon);
    name = spec.substr(colon + 1);
    bool known = false;
    for (const auto& s : slot_names()) known = known || s == slot;
    if (!known) throw InputError(unknown_choice_message("slot", slot, slot_names()));
  }
  std::vector<ModuleInfo> out;
  std::vector<std::string> names;
  for (const auto& mi : reg.all()) {
    if (!slot.empty() && mi.slot != slot) continue;
    if (std::find(names.begin(), names.end(), mi.name) == names.end()) names.push_back(mi.name);
    if (mi.name == name) out.push_back(mi);
  }
  if (out.empty()) throw InputError(unknown_choice_message("module", name, names));
  return out;
}

/// Every profile as one markdown row: its modules per slot and its flags (docs/policies.md's
/// table is this output, checked by scripts/profile-table.sh).
void print_profile_table() {
  std::cout << "| profile |";
  for (const auto& slot : slot_names()) std::cout << " " << slot << " |";
  std::cout << " flags |\n|---|";
  for (size_t i = 0; i < slot_names().size(); ++i) std::cout << "---|";
  std::cout << "---|\n";
  for (const auto& p : kernel_profiles()) {
    std::cout << "| " << p.version << " |";
    for (const auto& slot : slot_names()) std::cout << " " << p.modules.at(slot) << " |";
    std::string flags;
    for (const auto& [name, on] : p.features) flags += (flags.empty() ? "" : " ") + std::string(on ? "" : "NO_") + name;
    std::cout << " " << flags << " |\n";
  }
}

void print_profile(const KernelProfile& p) {
  std::cout << fmt::format("kernel {}: {}\n", p.version, p.summary);
  for (const auto& slot : slot_names())
    std::cout << fmt::format("  {:<12}{}\n", slot, p.modules.at(slot));
  std::cout << "  features:";
  for (const auto& [name, on] : p.features) std::cout << " " << (on ? "" : "NO_") << name;
  std::cout << "\n";
}

}  // namespace

int run_policies(const std::vector<std::string>& args) {
  const PolicyRegistry& reg = builtin_registry();
  if (args.empty()) {
    print_modules(reg);
    return kExitOk;
  }
  const std::string& opt = args[0];
  if (opt == "--help" || opt == "-h") {
    std::cout << find_command("policies")->help();
    return kExitOk;
  }
  if (opt == "--features") {
    if (args.size() > 2) throw po::error("'policies --features' takes at most one module name");
    std::vector<ModuleInfo> mods = args.size() == 2 ? find_modules(reg, args[1]) : reg.all();
    bool first = true;
    for (const auto& mi : mods) {
      if (args.size() == 1 && mi.features.empty()) continue;
      if (!first) std::cout << "\n";
      first = false;
      print_features(mi);
    }
    return kExitOk;
  }
  if (opt == "--kernel") {
    if (args.size() != 2) throw po::error("'policies --kernel' needs 'list', 'table' or a version");
    if (args[1] == "table") {
      print_profile_table();
      return kExitOk;
    }
    if (args[1] == "list") {
      for (const auto& p : kernel_profiles()) std::cout << fmt::format("{:<6}{}\n", p.version, p.summary);
      return kExitOk;
    }
    std::string note;
    const KernelProfile& prof = resolve_kernel_profile(args[1], note);
    if (!note.empty()) log::get("cli")->warn("{}", note);
    print_profile(prof);
    return kExitOk;
  }
  throw po::error(unknown_choice_message("option", opt, {"--features", "--kernel", "--help"}));
}

}  // namespace schedsim::cli
