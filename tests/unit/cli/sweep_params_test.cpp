// Every `run` option is either a sweep parameter or excluded with a reason, so an option added to
// `run` cannot silently be missing from sweeps; parameters land in the RunRequest.
#include <catch2/catch.hpp>

#include <regex>
#include <set>

#include "sweep_params.hpp"

using namespace schedsim;

namespace schedsim::cli {
std::string help_run();
}

TEST_CASE("sweep params: every run option is sweepable or excluded with a reason") {
  // The option lines of the help: "  --name ..." or "  -x [ --name ] ...", after "options:".
  std::string help = cli::help_run();
  help = help.substr(help.find("\noptions:"));
  std::regex opt(R"(\n  (?:-[A-Za-z] \[ )?--([a-z][a-z0-9-]*))");
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(help.begin(), help.end(), opt); it != std::sregex_iterator(); ++it) names.insert((*it)[1]);
  REQUIRE(names.size() > 20);
  REQUIRE(names.count("placement"));
  for (const auto& n : names) {
    if (n == "help") continue;
    bool sweepable = false;
    for (const auto& k : cli::sweep_param_keys()) sweepable |= k == n;
    bool excluded = false;
    for (const auto& [k, why] : cli::sweep_excluded_keys()) excluded |= k == n;
    INFO("run option --" << n);
    CHECK((sweepable || excluded));
  }
}

TEST_CASE("sweep params: a point becomes a RunRequest") {
  sweep::Spec s = sweep::spec_from_cli({"workload-gen=messaging --pipe", "gen.group=2", "gen.thread=true", "gen.process=false",
                                        "feature.SIS_UTIL=off", "cost.probe_cpu=20ns", "placement=sis-fold-opt",
                                        "exclude-kthreads=on", "pid=12 13"},
                                       {});
  cli::check_sweep_keys(s);
  auto pts = sweep::expand(s);
  cli::RunRequest r = cli::point_request(pts[0], 99);
  CHECK(r.workload_gen == "messaging --pipe --group 2 --thread");
  CHECK(r.features == std::vector<std::string>{"NO_SIS_UTIL"});
  CHECK(r.costs == std::vector<std::string>{"probe_cpu=20ns"});
  CHECK(r.modules.at("placement") == "sis-fold-opt");
  CHECK(r.extract.exclude_kthreads);
  CHECK(r.extract.pids == std::vector<int64_t>{12, 13});
  CHECK(r.seed == 99);
  sweep::Spec bad = sweep::spec_from_cli({"feature.SIS_UTIL=maybe", "workload-gen=pipe"}, {});
  CHECK_THROWS_WITH(cli::point_request(sweep::expand(bad)[0], 1),
                    "error: point 0: parameter feature.SIS_UTIL=maybe: expected on or off");
}
