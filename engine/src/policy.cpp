#include "schedsim/engine/policy.hpp"

#include <set>

#include "schedsim/base/error.hpp"

namespace schedsim {

bool FeatureSet::get(const std::string& name) const {
  auto it = flags_.find(name);
  return it != flags_.end() && it->second;
}

const char* to_string(PlaceOutcome o) {
  switch (o) {
    case PlaceOutcome::kTarget: return "target";
    case PlaceOutcome::kPrev: return "prev";
    case PlaceOutcome::kRecent: return "recent";
    case PlaceOutcome::kKthread: return "kthread";
    case PlaceOutcome::kIdleCore: return "idle_core";
    case PlaceOutcome::kIdleCpu: return "idle_cpu";
    case PlaceOutcome::kIdleSibling: return "idle_sibling";
    case PlaceOutcome::kCapacity: return "capacity";
    case PlaceOutcome::kFallback: return "fallback";
    case PlaceOutcome::kDelayed: return "delayed";
    case PlaceOutcome::kSlowPath: return "slow_path";
    case PlaceOutcome::kPinned: return "pinned";
    case PlaceOutcome::kCount: break;
  }
  return "?";
}

const std::vector<std::string>& slot_names() {
  static const std::vector<std::string> n = {"placement", "idle-cores", "util", "queue", "balance"};
  return n;
}

void PolicyRegistry::add_placement(ModuleInfo info, PlacementFactory f) {
  info.slot = "placement";
  entries_.push_back({std::move(info), std::move(f), {}, {}, {}, {}});
}
void PolicyRegistry::add_idle_cores(ModuleInfo info, IdleCoresFactory f) {
  info.slot = "idle-cores";
  entries_.push_back({std::move(info), {}, std::move(f), {}, {}, {}});
}
void PolicyRegistry::add_util(ModuleInfo info, UtilFactory f) {
  info.slot = "util";
  entries_.push_back({std::move(info), {}, {}, std::move(f), {}, {}});
}
void PolicyRegistry::add_queue(ModuleInfo info, QueueFactory f) {
  info.slot = "queue";
  entries_.push_back({std::move(info), {}, {}, {}, std::move(f), {}});
}
void PolicyRegistry::add_balance(ModuleInfo info, BalanceFactory f) {
  info.slot = "balance";
  entries_.push_back({std::move(info), {}, {}, {}, {}, std::move(f)});
}

std::vector<ModuleInfo> PolicyRegistry::all() const {
  std::vector<ModuleInfo> out;
  for (const auto& slot : slot_names())
    for (const auto& e : entries_)
      if (e.info.slot == slot) out.push_back(e.info);
  return out;
}

std::vector<std::string> PolicyRegistry::names(const std::string& slot) const {
  std::vector<std::string> out;
  for (const auto& e : entries_)
    if (e.info.slot == slot) out.push_back(e.info.name);
  return out;
}

const PolicyRegistry::Entry& PolicyRegistry::find(const std::string& slot, const std::string& name) const {
  for (const auto& e : entries_)
    if (e.info.slot == slot && e.info.name == name) return e;
  throw InputError(unknown_choice_message(slot + " module", name, names(slot)));
}

const ModuleInfo& PolicyRegistry::info(const std::string& slot, const std::string& name) const {
  return find(slot, name).info;
}

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
  for (const auto& [slot, name] : choice) {
    bool known = false;
    for (const auto& s : slot_names()) known = known || s == slot;
    if (!known) throw InputError(unknown_choice_message("slot", slot, slot_names()));
  }
  PolicyStack st;
  std::vector<const Entry*> chosen;
  for (const auto& slot : slot_names()) {
    auto it = choice.find(slot);
    if (it == choice.end()) throw InputError("no module chosen for slot '" + slot + "'");
    chosen.push_back(&find(slot, it->second));
    st.names[slot] = it->second;
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
  for (const Entry* e : chosen) {
    const auto& slot = e->info.slot;
    if (slot == "placement") st.placement = e->placement(st.features);
    else if (slot == "idle-cores") st.idle_cores = e->idle_cores(st.features);
    else if (slot == "util") st.util = e->util(st.features);
    else if (slot == "queue") st.queue = e->queue(st.features);
    else if (slot == "balance") st.balance = e->balance(st.features);
  }
  return st;
}

}  // namespace schedsim
