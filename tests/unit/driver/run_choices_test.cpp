// run --preempt and --update-curr: recorded in the results' configuration (cost overrides) and
// the default label when not the default, so compare lists them as differences; an empty value
// is refused like any other unknown choice instead of meaning the default.
#include <catch2/catch.hpp>

#include "gen_request.hpp"
#include "schedsim/driver/run.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/metrics/results.hpp"

using namespace schedsim;

namespace {
driver::RunRequest pipe_request() { return cli_test::gen_request("pipe --loops 20"); }
}  // namespace

TEST_CASE("run --preempt other than full is recorded as cost override preempt", "[cli]") {
  driver::RunOutcome full = driver::execute_run(pipe_request());
  CHECK(full.results.config.cost_overrides.count("preempt") == 0);
  CHECK(full.results.config.display_label().find("preempt") == std::string::npos);
  REQUIRE(full.records.size() == 1);
  CHECK(full.records[0].params.count("cost.preempt") == 0);

  for (const char* model : {"none", "voluntary", "lazy"}) {
    INFO(model);
    driver::RunRequest req = pipe_request();
    req.preempt = model;
    driver::RunOutcome out = driver::execute_run(req);
    CHECK(out.results.config.cost_overrides.at("preempt") == model);
    CHECK(out.results.config.display_label().find(std::string("+preempt=") + model + "@") != std::string::npos);
    REQUIRE(out.records.size() == 1);
    CHECK(out.records[0].params.at("cost.preempt") == model);
    // The JSON keeps it, and reads it back.
    RunResults back = parse_results_json(out.rendered, "r.json");
    CHECK(back.config.cost_overrides.at("preempt") == model);
  }
  // Given explicitly, the default is not recorded either: a full run reads as before.
  driver::RunRequest req = pipe_request();
  req.preempt = "full";
  CHECK(driver::execute_run(req).results.config.cost_overrides.count("preempt") == 0);
}

TEST_CASE("run --preempt '' and --update-curr '' are errors naming the option and the choices", "[cli]") {
  // The rendered error, as main prints it ("" if none was thrown).
  auto error_of = [](const driver::RunRequest& req) {
    try {
      driver::execute_run(req);
    } catch (const InputError& e) {
      return e.render();
    }
    return std::string();
  };
  driver::RunRequest p = pipe_request();
  p.preempt = "";
  CHECK(error_of(p) == "--preempt: error: unknown preemption model ''; valid: full, none, voluntary, lazy");
  driver::RunRequest u = pipe_request();
  u.update_curr = "";
  CHECK(error_of(u) == "--update-curr: error: unknown run-time accounting rule ''; valid: actions, events");
  // Not given at all: the defaults.
  CHECK(error_of(pipe_request()).empty());
}
