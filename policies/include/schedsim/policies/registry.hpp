#pragma once
/// The policy registry (slots, module infos, factories) and the ONE list of built-in policy
/// modules (explicit registration, no static constructors). The engine never sees it: it receives
/// the PolicyStack make() builds.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schedsim/engine/policy.hpp"
#include "schedsim/policies/features.hpp"

namespace schedsim {

/// The five policy slots. The user-facing names ("placement", "idle-cores", ...) are what the
/// command line, profiles and reports use; code passes the enum.
enum class Slot : uint8_t { kPlacement, kIdleCores, kUtil, kQueue, kBalance };
inline constexpr Slot kAllSlots[] = {Slot::kPlacement, Slot::kIdleCores, Slot::kUtil, Slot::kQueue, Slot::kBalance};
const char* to_string(Slot slot);
/// The slot called `name`; throws InputError with a did-you-mean otherwise.
Slot parse_slot(const std::string& name);
/// The slots' names in display order.
const std::vector<std::string>& slot_names();

/// One feature flag a module reads, with this module's default and a one-paragraph doc.
struct FeatureDoc {
  std::string name;
  bool default_on;
  std::string doc;
};

/// A named module of one slot.
struct ModuleInfo {
  std::string slot;  ///< to_string(Slot), filled by the registry
  std::string name, summary;
  std::vector<FeatureDoc> features;  ///< the sched_feat flags the module reads
};

/// The registry the CLI consults (builtin_registry()): module factories by slot and name.
class PolicyRegistry {
 public:
  using PlacementFactory = std::function<std::unique_ptr<PlacementPolicy>(const Features&)>;
  using IdleCoresFactory = std::function<std::unique_ptr<IdleCoresPolicy>(const Features&)>;
  using UtilFactory = std::function<std::unique_ptr<UtilPolicy>(const Features&)>;
  using QueueFactory = std::function<std::unique_ptr<QueuePolicy>(const Features&)>;
  using BalanceFactory = std::function<std::unique_ptr<BalancePolicy>(const Features&)>;

  void add_placement(ModuleInfo info, PlacementFactory f);
  void add_idle_cores(ModuleInfo info, IdleCoresFactory f);
  void add_util(ModuleInfo info, UtilFactory f);
  void add_queue(ModuleInfo info, QueueFactory f);
  void add_balance(ModuleInfo info, BalanceFactory f);

  /// Every module of every slot, slots in kAllSlots order, modules in registration order.
  std::vector<ModuleInfo> all() const;
  std::vector<std::string> names(Slot slot) const;
  std::vector<std::string> names(const std::string& slot) const { return names(parse_slot(slot)); }
  const ModuleInfo& info(Slot slot, const std::string& name) const;
  const ModuleInfo& info(const std::string& slot, const std::string& name) const {
    return info(parse_slot(slot), name);
  }
  /// Every feature flag any module understands, with its default.
  std::vector<FeatureDoc> all_features() const;

  /// Builds a stack. `choice` maps slot name -> module name; features hold explicit NO_/X
  /// settings over the defaults of the chosen modules. Throws InputError for unknown names or
  /// flags that no chosen module reads.
  PolicyStack make(const std::map<std::string, std::string>& choice, const FeatureSet& explicit_features) const;

 private:
  struct Entry {
    Slot slot;
    ModuleInfo info;
    PlacementFactory placement;
    IdleCoresFactory idle_cores;
    UtilFactory util;
    QueueFactory queue;
    BalanceFactory balance;
  };
  std::vector<Entry> entries_;
  Entry& add(Slot slot, ModuleInfo info);
  const Entry& find(Slot slot, const std::string& name) const;
};

/// Registers every built-in module of every slot.
void register_builtin_policies(PolicyRegistry& reg);
/// A registry with every built-in module (built once).
const PolicyRegistry& builtin_registry();

// Per-slot registration, one function per folder under policies/src/.
void register_placement_modules(PolicyRegistry& reg);
void register_idle_cores_modules(PolicyRegistry& reg);
void register_util_modules(PolicyRegistry& reg);
void register_queue_modules(PolicyRegistry& reg);
void register_balance_modules(PolicyRegistry& reg);

/// A kernel profile: every slot and flag at one version's defaults (docs/sources.md, sched_feat flags).
struct KernelProfile {
  std::string version;
  std::string summary;
  std::map<std::string, std::string> modules;  ///< slot -> module
  std::map<std::string, bool> features;        ///< sched_feat defaults of that version
};
const std::vector<KernelProfile>& kernel_profiles();
/// Throws InputError ("did you mean") for unknown versions.
const KernelProfile& kernel_profile(const std::string& version);
/// The profile for a running kernel's release string (uname -r, e.g. "6.18.44-fc"): the newest
/// profile whose MAJOR.MINOR is not newer than the release's. `note` says which one and why, for
/// the user (a silent fallback would hide that the profile is not the running kernel). Throws
/// InputError when the release has no MAJOR.MINOR or predates every profile. `exact` (if given)
/// says whether the profile is the release's own MAJOR.MINOR rather than an older stand-in.
const KernelProfile& kernel_profile_for_release(const std::string& release, std::string& note,
                                                bool* exact = nullptr);
/// The newest profile whose MAJOR.MINOR is not newer than `version`'s ("6.8", "6.18.44-fc");
/// nullptr when `version` does not start with MAJOR.MINOR or predates every profile. `parsed`
/// (if given) says whether it started with MAJOR.MINOR.
const KernelProfile* newest_profile_not_newer(const std::string& version, bool* parsed = nullptr);

/// The kernel whose profile a run without --kernel follows: its modules and flags are the
/// defaults, and the provenance records it as "6.12 (default)".
inline constexpr const char* kDefaultKernel = "6.12";

/// The default slot choice when neither --kernel nor a slot option is given.
std::map<std::string, std::string> default_modules();

}  // namespace schedsim
