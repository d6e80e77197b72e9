// Every `run` option is either a sweep parameter or excluded with a reason, so an option added to
// `run` cannot silently be missing from sweeps; parameters land in the RunRequest.
#include <catch2/catch.hpp>


#include <nlohmann/json.hpp>

#include "schedsim/driver/run.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/driver/run_options.hpp"
#include "schedsim/metrics/records.hpp"
#include "schedsim/driver/sweep_params.hpp"

using namespace schedsim;

TEST_CASE("sweep params: the keys are the run option table's, each refusal with its reason") {
  // Every row of the table (driver/run_options.hpp) is a key or a refusal, and nothing else is.
  size_t rows = 0;
  for (const auto& o : driver::run_options()) {
    ++rows;
    INFO("--" << o.name);
    sweep::Spec s = sweep::spec_from_cli({std::string(o.name) + "=1"}, {});
    if (!o.not_swept) {
      CHECK_NOTHROW(driver::check_sweep_keys(s));
      continue;
    }
    CHECK_THROWS_WITH(driver::check_sweep_keys(s), Catch::Contains(std::string("cannot be a sweep parameter: ") + o.not_swept));
  }
  CHECK(driver::sweep_param_keys().size() + driver::sweep_excluded_keys().size() == rows + 1);  // + explain
  CHECK_THROWS_WITH(driver::check_sweep_keys(sweep::spec_from_cli({"placment=prev"}, {})), Catch::Contains("did you mean 'placement'"));
}

TEST_CASE("sweep params: a point becomes a RunRequest") {
  sweep::Spec s = sweep::spec_from_cli({"workload-gen=messaging --pipe", "gen.group=2", "gen.thread=true", "gen.process=false",
                                        "feature.SIS_UTIL=off", "cost.probe_cpu=20ns", "placement=sis-fold-opt",
                                        "exclude-kthreads=on", "pid=12 13"},
                                       {});
  driver::check_sweep_keys(s);
  auto pts = sweep::expand(s);
  driver::RunRequest r = driver::point_request(pts[0], 99);
  CHECK(r.workload_gen == "messaging --pipe --group 2 --thread");
  CHECK(r.features == std::vector<std::string>{"NO_SIS_UTIL"});
  CHECK(r.costs == std::vector<std::string>{"probe_cpu=20ns"});
  CHECK(r.modules.at("placement") == "sis-fold-opt");
  CHECK(r.extract.exclude_kthreads);
  CHECK(r.extract.pids == std::vector<int64_t>{12, 13});
  CHECK(r.seed == 99);
  sweep::Spec bad = sweep::spec_from_cli({"feature.SIS_UTIL=maybe", "workload-gen=pipe"}, {});
  CHECK_THROWS_WITH(driver::point_request(sweep::expand(bad)[0], 1),
                    "error: point 0: parameter feature.SIS_UTIL=maybe: expected on or off");
}

namespace {
/// The "record" member (schema schedsim-record) of a sweep record line.
nlohmann::json inner_record(const std::string& line) { return nlohmann::json::parse(line).at("record"); }
sweep::Point messaging_point(const std::string& noise) {
  std::vector<std::string> sets = {"workload-gen=messaging --pipe --thread --group 2 --loops 20", "topology=smp2"};
  if (!noise.empty()) sets.push_back("noise=" + noise);
  sweep::Spec s = sweep::spec_from_cli(sets, {});
  driver::check_sweep_keys(s);
  return sweep::expand(s).at(0);
}
}  // namespace

TEST_CASE("sweep repetitions: run --repeat's noise model, the same runs as run --repeat") {
  sweep::Point p = messaging_point("");
  std::vector<nlohmann::json> reps;
  for (uint32_t r = 0; r < 3; ++r) reps.push_back(inner_record(driver::run_unit(p, r, 3)));
  // Repetitions differ (speed factor and jitter), and each names the noise model and its seed.
  CHECK(reps[0].at("metrics") != reps[1].at("metrics"));
  CHECK(reps[1].at("metrics") != reps[2].at("metrics"));
  for (uint32_t r = 0; r < 3; ++r) {
    CHECK(reps[r].at("params").at("noise") == "speed=1%,jitter=5%");
    CHECK(reps[r].at("seed") == sweep::derive_seed(p.seed, r));
    CHECK(reps[r].at("rep") == r);
  }
  // A unit does not depend on what ran before it on the thread (so not on --jobs).
  CHECK(inner_record(driver::run_unit(p, 1, 3)) == reps[1]);
  // Repetition r equals repetition r of `run --seed POINT_SEED --repeat 3`.
  driver::RunRequest req = driver::point_request(p, p.seed);
  req.repeat = 3;
  driver::RunOutcome whole = driver::execute_run(req);
  REQUIRE(whole.records.size() == 3);
  for (uint32_t r = 0; r < 3; ++r) {
    nlohmann::json run_rec = nlohmann::json::parse(render_jsonl({whole.records[r]}));
    CHECK(run_rec.at("seed") == reps[r].at("seed"));
    CHECK(run_rec.at("metrics") == reps[r].at("metrics"));
  }
}

TEST_CASE("sweep repetitions: noise=none makes the repetitions of a deterministic point equal") {
  sweep::Point p = messaging_point("none");
  nlohmann::json a = inner_record(driver::run_unit(p, 0, 2)), b = inner_record(driver::run_unit(p, 1, 2));
  CHECK(a.at("params").at("noise") == "none");
  CHECK(a.at("metrics") == b.at("metrics"));
  CHECK(a.at("seed") != b.at("seed"));
  sweep::Point bad = messaging_point("speed=2");
  CHECK_THROWS_AS(driver::validate_points({bad}, 1), InputError);
  // Repetitions share one generated workload: a note for a generator that draws random numbers
  // (periodic --jitter), none for messaging or a single repetition.
  CHECK(driver::validate_points({messaging_point("")}, 3).empty());
  sweep::Spec s = sweep::spec_from_cli({"workload-gen=periodic -n 2 --period 1ms --run 200us --duration 5ms --jitter 10%",
                                        "topology=smp2"}, {});
  const std::vector<sweep::Point> random = sweep::expand(s);
  CHECK(driver::validate_points(random, 1).empty());
  const std::vector<std::string> notes = driver::validate_points(random, 3);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("the 3 repetitions of a point share one generated workload") != std::string::npos);
}
