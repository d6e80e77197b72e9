// PolicyRegistry: module factories by slot and name, and the resolution of a run's flags (the
// chosen modules' defaults, then explicit settings) into the typed Features every factory reads.
#include <set>

#include "schedsim/base/error.hpp"
#include "schedsim/policies/registry.hpp"

#include "placement/traced.hpp"

namespace schedsim {

const char* to_string(Slot slot) {
  switch (slot) {
    case Slot::kPlacement: return "placement";
    case Slot::kIdleCores: return "idle-cores";
    case Slot::kUtil: return "util";
    case Slot::kQueue: return "queue";
    case Slot::kBalance: return "balance";
  }
  return "?";
}

const std::vector<std::string>& slot_names() {
  static const std::vector<std::string> n = [] {
    std::vector<std::string> v;
    for (Slot s : kAllSlots) v.emplace_back(to_string(s));
    return v;
  }();
  return n;
}

Slot parse_slot(const std::string& name) {
  for (Slot s : kAllSlots)
    if (name == to_string(s)) return s;
  throw InputError(unknown_choice_message("slot", name, slot_names()));
}

PolicyRegistry::Entry& PolicyRegistry::add(Slot slot, ModuleInfo info) {
  info.slot = to_string(slot);
  entries_.push_back({slot, std::move(info), {}, {}, {}, {}, {}});
  return entries_.back();
}
void PolicyRegistry::add_placement(ModuleInfo info, PlacementFactory f) {
  add(Slot::kPlacement, std::move(info)).placement = std::move(f);
}
void PolicyRegistry::add_idle_cores(ModuleInfo info, IdleCoresFactory f) {
  add(Slot::kIdleCores, std::move(info)).idle_cores = std::move(f);
}
void PolicyRegistry::add_util(ModuleInfo info, UtilFactory f) { add(Slot::kUtil, std::move(info)).util = std::move(f); }
void PolicyRegistry::add_queue(ModuleInfo info, QueueFactory f) {
  add(Slot::kQueue, std::move(info)).queue = std::move(f);
}
void PolicyRegistry::add_balance(ModuleInfo info, BalanceFactory f) {
  add(Slot::kBalance, std::move(info)).balance = std::move(f);
}

std::vector<ModuleInfo> PolicyRegistry::all() const {
  std::vector<ModuleInfo> out;
  for (Slot slot : kAllSlots)
    for (const auto& e : entries_)
      if (e.slot == slot) out.push_back(e.info);
  return out;
}

std::vector<std::string> PolicyRegistry::names(Slot slot) const {
  std::vector<std::string> out;
  for (const auto& e : entries_)
    if (e.slot == slot) out.push_back(e.info.name);
  return out;
}

const PolicyRegistry::Entry& PolicyRegistry::find(Slot slot, const std::string& name) const {
  for (const auto& e : entries_)
    if (e.slot == slot && e.info.name == name) return e;
  throw InputError(unknown_choice_message(std::string(to_string(slot)) + " module", name, names(slot)));
}

const ModuleInfo& PolicyRegistry::info(Slot slot, const std::string& name) const { return find(slot, name).info; }

std::vector<FeatureDoc> PolicyRegistry::all_features() const {
  std::vector<FeatureDoc> out;
  std::set<std::string> seen;
  for (const auto& e : entries_)
    for (const auto& f : e.info.features)
      if (seen.insert(f.name).second) out.push_back(f);
  return out;
}

PolicyStack PolicyRegistry::make(const std::map<std::string, std::string>& choice,
                                 const FeatureSet& explicit_features) const {
  for (const auto& [slot, name] : choice) (void)parse_slot(slot);
  PolicyStack st;
  std::vector<const Entry*> chosen;
  for (Slot slot : kAllSlots) {
    auto it = choice.find(to_string(slot));
    if (it == choice.end()) throw InputError(std::string("no module chosen for slot '") + to_string(slot) + "'");
    chosen.push_back(&find(slot, it->second));
    st.names[to_string(slot)] = it->second;
  }
  // Defaults of every chosen module's flags, then the explicit settings on top. A flag no chosen
  // module reads is an error (it would silently do nothing).
  std::set<std::string> readable;
  for (const Entry* e : chosen)
    for (const auto& f : e->info.features) {
      readable.insert(f.name);
      if (!st.features.has(f.name)) st.features.set(f.name, f.default_on);
    }
  for (const auto& [name, on] : explicit_features.all()) {
    if (!readable.count(name)) {
      std::vector<std::string> all_names;
      for (const auto& f : all_features()) all_names.push_back(f.name);
      bool exists = false;
      for (const auto& n : all_names) exists = exists || n == name;
      if (!exists) throw InputError(unknown_choice_message("feature", name, all_names));
      std::vector<std::string> mods;
      for (const auto& slot : slot_names()) mods.push_back(slot + "=" + st.names[slot]);
      throw InputError("feature '" + name + "' is not read by any chosen module (" + join(mods, ", ") + ")");
    }
    st.features.set(name, on);
  }
  const Features typed = Features::from(st.features);
  for (const Entry* e : chosen) {
    switch (e->slot) {
      case Slot::kPlacement: st.placement = placement::traced_if_logging(e->placement(typed), e->info.name); break;
      case Slot::kIdleCores: st.idle_cores = e->idle_cores(typed); break;
      case Slot::kUtil: st.util = e->util(typed); break;
      case Slot::kQueue: st.queue = e->queue(typed); break;
      case Slot::kBalance: st.balance = e->balance(typed); break;
    }
  }
  return st;
}

}  // namespace schedsim
