#pragma once
/// Typed sched_feat flags. Each slot lists its flags once, in the manner of the kernel's
/// kernel/sched/features.h: policies/src/placement/features.def, policies/src/queue/features.def,
/// policies/src/util/features.def, policies/src/balance/features.def (SCHEDSIM_FEAT(NAME, default, doc)). The lists generate the
/// Feature enumerators, the names the command line accepts, the defaults and the docs.
/// A module reads a flag as `f.get(Feature::SIS_PROP)`: a misspelled flag does not compile, and
/// an unknown name on the command line is an error with a did-you-mean (PolicyRegistry::make).
#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schedsim/engine/policy.hpp"

namespace schedsim {

/// The enumerators are generated from the slots' features.def lists in policies/src/features.hpp
/// (visible to the modules that read them).
enum class Feature : uint8_t;

/// One flag as declared: its name, the default of the kernels that have it, and its doc.
struct FeatureInfo {
  const char* name;
  bool default_on;
  const char* doc;
};
/// Every declared flag in declaration order (placement, queue, util, balance lists).
const std::vector<FeatureInfo>& feature_table();
/// The flag called `name`, if any slot declares one.
std::optional<Feature> find_feature(const std::string& name);
const FeatureInfo& feature_info(Feature f);

/// A run's flags by Feature, what a module's factory receives. A flag no chosen module declares
/// reads false (the code it would gate does not exist in that kernel version).
class Features {
 public:
  static constexpr size_t kMax = 64;
  bool get(Feature f) const { return on_.test(static_cast<size_t>(f)); }
  void set(Feature f, bool on) { on_.set(static_cast<size_t>(f), on); }
  /// The typed form of resolved flags given by name. Throws InputError (with a did-you-mean) for
  /// a name no slot declares.
  static Features from(const FeatureSet& named);

 private:
  std::bitset<kMax> on_;
};

}  // namespace schedsim
