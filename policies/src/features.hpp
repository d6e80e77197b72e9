#pragma once
// The Feature enumerators, generated from each slot's features.def (see
// schedsim/policies/features.hpp). Included by the modules that read flags.
#include <functional>
#include <initializer_list>
#include <memory>
#include <vector>

#include "schedsim/policies/features.hpp"
#include "schedsim/policies/registry.hpp"

namespace schedsim {

enum class Feature : uint8_t {
#define SCHEDSIM_FEAT(NAME, DEFAULT, DOC) NAME,
#include "placement/features.def"
#include "queue/features.def"
#include "util/features.def"
#include "balance/features.def"
#undef SCHEDSIM_FEAT
  kCount
};
static_assert(static_cast<size_t>(Feature::kCount) <= Features::kMax, "raise Features::kMax");

/// A module's flag list entry: a flag with the default of its features.def line, or with this
/// module's own default when its kernel version differs (`{Feature::SIS_PROP, false}`).
struct FlagDefault {
  Feature f;
  bool on;
  // Implicit on purpose: a flag list reads `{Feature::SIS_UTIL, {Feature::SIS_PROP, false}}`.
  FlagDefault(Feature x) : f(x), on(feature_info(x).default_on) {}
  FlagDefault(Feature x, bool o) : f(x), on(o) {}
};
/// The ModuleInfo flag list (name, default, doc) of `flags`.
std::vector<FeatureDoc> feature_docs(std::initializer_list<FlagDefault> flags);

/// A module of a slot whose policy type is Policy: what `schedsim policies` shows, and its
/// factory. Each module file returns one; the slot's modules.def lists them.
template <class Policy>
struct ModuleDef {
  ModuleInfo info;
  std::function<std::unique_ptr<Policy>(const Features&)> make;
};

}  // namespace schedsim
