// The policy registry as the policies library fills it: every module of the placement,
// idle-cores and util slots, their flags, and the kernel profiles.
#include <catch2/catch.hpp>

#include <algorithm>

#include "schedsim/base/error.hpp"
#include "schedsim/policies/registry.hpp"

using namespace schedsim;

namespace {
bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}
}  // namespace

TEST_CASE("placement, idle-cores and util modules are registered", "[policies][registry]") {
  PolicyRegistry reg;
  register_placement_modules(reg);
  register_idle_cores_modules(reg);
  register_util_modules(reg);
  for (const char* n : {"sis-4.17", "sis-5.11", "sis-fold-2018", "sis-fold-opt", "sis-5.12", "sis-util",
                        "prev", "first-idle", "full-scan", "random-idle"})
    CHECK(contains(reg.names("placement"), n));
  CHECK(reg.names("idle-cores") == std::vector<std::string>{"kernel", "exact", "off"});
  CHECK(reg.names("util") == std::vector<std::string>{"pelt", "pelt-util-est", "none"});
  const auto& opt = reg.info("placement", "sis-fold-opt");
  bool has_fold = false;
  for (const auto& f : opt.features) has_fold = has_fold || (f.name == "SIS_FOLD" && f.default_on);
  CHECK(has_fold);
  for (const auto& mi : reg.all()) {
    CHECK_FALSE(mi.summary.empty());
    for (const auto& f : mi.features) CHECK_FALSE(f.doc.empty());
  }
}

TEST_CASE("kernel profiles name registered modules and readable flags", "[policies][registry]") {
  const auto& reg = builtin_registry();
  std::vector<std::string> versions;
  for (const auto& p : kernel_profiles()) versions.push_back(p.version);
  CHECK(versions == std::vector<std::string>{"4.17", "5.11", "5.15", "6.1", "6.6", "6.12", "6.15", "6.17", "6.18", "6.19"});
  for (const auto& p : kernel_profiles()) {
    INFO(p.version);
    FeatureSet f;
    for (const auto& [n, on] : p.features) f.set(n, on);
    PolicyStack st = reg.make(p.modules, f);
    CHECK(st.placement);
    CHECK(st.util);
    CHECK(st.idle_cores);
  }
  CHECK(kernel_profile("6.12").features.count("SIS_PROP") == 0);
  CHECK(kernel_profile("5.15").features.at("SIS_PROP") == false);
  CHECK(kernel_profile("4.17").modules.at("placement") == "sis-4.17");
  CHECK(kernel_profile("6.6").modules.at("queue") == "eevdf-6.6");
  CHECK(default_modules() == kernel_profile("6.12").modules);
  CHECK_THROWS_WITH(kernel_profile("6.11"), Catch::Contains("did you mean"));
  CHECK(kernel_profile("6.15").modules.at("queue") == "eevdf-6.15");
  CHECK(kernel_profile("6.17").modules.at("queue") == "eevdf-6.17");
  CHECK(kernel_profile("6.18").modules.at("queue") == "eevdf-6.17");
  // The newidle rule per version: 6.15 none, 6.17 the bump, 6.18 (6.18.y stable) NI_RANDOM.
  CHECK(kernel_profile("6.12").modules.at("balance") == "kernel");
  for (const char* v : {"6.15", "6.17", "6.18"}) {
    INFO(v);
    CHECK(kernel_profile(v).modules.at("balance") == "kernel-6.14");
    CHECK(kernel_profile(v).features.at("LB_RUNNABLE"));
  }
  CHECK_FALSE(kernel_profile("6.15").features.at("NI_BUMP"));
  CHECK_FALSE(kernel_profile("6.15").features.at("NI_RANDOM"));
  CHECK(kernel_profile("6.17").features.at("NI_BUMP"));
  CHECK_FALSE(kernel_profile("6.17").features.at("NI_RANDOM"));
  CHECK_FALSE(kernel_profile("6.18").features.at("NI_BUMP"));
  CHECK(kernel_profile("6.18").features.at("NI_RANDOM"));
}

TEST_CASE("kernel host: the newest profile not newer than the running release", "[policies][registry]") {
  std::string note;
  bool exact = false;
  CHECK(kernel_profile_for_release("6.18.44-fc-v857", note, &exact).version == "6.18");
  CHECK(exact);
  CHECK(kernel_profile_for_release("6.16.3", note, &exact).version == "6.15");
  CHECK_FALSE(exact);
  CHECK(kernel_profile_for_release("6.18.44-fc-v857", note).version == "6.18");
  CHECK(note.find("running 6.18.44-fc-v857, profile 6.18:") != std::string::npos);
  CHECK(note.find("newest profile not newer") == std::string::npos);
  CHECK(kernel_profile_for_release("6.17.0", note).version == "6.17");
  CHECK(kernel_profile_for_release("6.16.3", note).version == "6.15");
  CHECK(note.find("(the newest profile not newer than it)") != std::string::npos);
  CHECK(kernel_profile_for_release("6.13.2", note).version == "6.12");
  CHECK(kernel_profile_for_release("6.9.0-rc1", note).version == "6.6");
  CHECK(kernel_profile_for_release("6.10", note).version == "6.6");    // 6.10 > 6.6, not 6.1
  CHECK(kernel_profile_for_release("6.19.3", note).version == "6.19");
  CHECK(kernel_profile_for_release("7.0.1", note).version == "6.19");
  CHECK(kernel_profile_for_release("5.4.0-150-generic", note).version == "4.17");
  CHECK_THROWS_WITH(kernel_profile_for_release("4.9.0", note), Catch::Contains("older than every profile"));
  CHECK_THROWS_WITH(kernel_profile_for_release("linux", note), Catch::Contains("cannot read a version"));
}

TEST_CASE("every module flag is a declared Feature with the declared doc", "[policies][registry][features]") {
  for (const auto& mi : builtin_registry().all())
    for (const auto& f : mi.features) {
      INFO(mi.slot << " " << mi.name << " " << f.name);
      std::optional<Feature> id = find_feature(f.name);
      REQUIRE(id.has_value());
      CHECK(f.doc == feature_info(*id).doc);
    }
  // sis-5.12 is the one module whose default differs from its features.def line.
  for (const auto& f : builtin_registry().info(Slot::kPlacement, "sis-5.12").features)
    if (f.name == "SIS_PROP") CHECK_FALSE(f.default_on);
  CHECK(find_feature("SIS_PROP").has_value());
  CHECK_FALSE(find_feature("SIS_PORP").has_value());
}

TEST_CASE("typed flags are resolved from names, an unknown name is an error", "[policies][registry][features]") {
  FeatureSet named;
  named.set("SIS_UTIL", true);
  named.set("WA_BIAS", false);
  Features f = Features::from(named);
  CHECK(f.get(*find_feature("SIS_UTIL")));
  CHECK_FALSE(f.get(*find_feature("WA_BIAS")));
  CHECK_FALSE(f.get(*find_feature("SIS_PROP")));  // not given: reads off
  named.set("SIS_UTLI", true);
  CHECK_THROWS_WITH(Features::from(named), Catch::Contains("did you mean") && Catch::Contains("SIS_UTIL"));
}

TEST_CASE("slots by enum and by name", "[policies][registry]") {
  for (Slot s : kAllSlots) CHECK(parse_slot(to_string(s)) == s);
  CHECK(slot_names() == std::vector<std::string>{"placement", "idle-cores", "util", "queue", "balance"});
  CHECK_THROWS_WITH(parse_slot("placment"), Catch::Contains("did you mean"));
  CHECK(builtin_registry().names(Slot::kQueue) == std::vector<std::string>{"cfs", "eevdf", "eevdf-6.6", "eevdf-6.15", "eevdf-6.17", "eevdf-6.19", "fifo"});
}
