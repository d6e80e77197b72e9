#pragma once
/// The ONE list of built-in policy modules (explicit registration, no static constructors).
#include <map>
#include <string>

#include "schedsim/engine/policy.hpp"

namespace schedsim {

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

/// A kernel profile: every slot and flag at one version's defaults (kernel-model.md §5).
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
/// InputError when the release has no MAJOR.MINOR or predates every profile.
const KernelProfile& kernel_profile_for_release(const std::string& release, std::string& note);

/// The default slot choice when neither --kernel nor a slot option is given.
std::map<std::string, std::string> default_modules();

}  // namespace schedsim
