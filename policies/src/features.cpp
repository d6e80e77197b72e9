#include "features.hpp"

#include "schedsim/base/error.hpp"

namespace schedsim {

const std::vector<FeatureInfo>& feature_table() {
  static const std::vector<FeatureInfo> t = {
#define SCHEDSIM_FEAT(NAME, DEFAULT, DOC) {#NAME, DEFAULT, DOC},
#include "placement/features.def"
#include "queue/features.def"
#include "util/features.def"
#include "balance/features.def"
#undef SCHEDSIM_FEAT
  };
  return t;
}

const FeatureInfo& feature_info(Feature f) { return feature_table()[static_cast<size_t>(f)]; }

std::optional<Feature> find_feature(const std::string& name) {
  const auto& t = feature_table();
  for (size_t i = 0; i < t.size(); ++i)
    if (name == t[i].name) return static_cast<Feature>(i);
  return std::nullopt;
}

Features Features::from(const FeatureSet& named) {
  Features out;
  for (const auto& [name, on] : named.all()) {
    std::optional<Feature> f = find_feature(name);
    if (!f) {
      std::vector<std::string> names;
      for (const auto& i : feature_table()) names.emplace_back(i.name);
      throw InputError(unknown_choice_message("feature", name, names));
    }
    out.set(*f, on);
  }
  return out;
}

std::vector<FeatureDoc> feature_docs(std::initializer_list<FlagDefault> flags) {
  std::vector<FeatureDoc> out;
  for (const FlagDefault& d : flags) out.push_back({feature_info(d.f).name, d.on, feature_info(d.f).doc});
  return out;
}

}  // namespace schedsim
