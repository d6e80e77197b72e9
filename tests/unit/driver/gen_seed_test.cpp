// run's --seed and a generated workload's own randomness (docs/generators.md "Seeds"): an
// explicit --seed seeds a generator spec without its own --seed; a generator that draws no
// random numbers keeps its workload and source line; the spec's own --seed wins; without an
// explicit --seed nothing changes.
#include <catch2/catch.hpp>

#include <limits>

#include "gen_request.hpp"
#include "schedsim/driver/run.hpp"
#include "schedsim/workload/generators.hpp"

using namespace schedsim;

namespace {
const char* const kRandomGen = "periodic -n 2 --period 1ms --run 200us --duration 5ms --jitter 10%";

driver::RunOutcome run_gen(const std::string& gen, uint64_t seed, bool given, uint32_t repeat = 1) {
  driver::RunRequest req = cli_test::gen_request(gen);
  req.seed = seed;
  req.seed_given = given;
  req.repeat = repeat;
  return driver::execute_run(req);
}
const std::string& hash_of(const driver::RunOutcome& o) { return o.results.config.provenance.workload_hash; }
bool has_repeat_note(const driver::RunOutcome& o) {
  for (const auto& n : o.notes)
    if (n.find("share one generated workload") != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("an explicit run --seed seeds a generator that has no seed of its own", "[cli][gen-seed]") {
  driver::RunOutcome a = run_gen(kRandomGen, 7, true), b = run_gen(kRandomGen, 8, true);
  CHECK(hash_of(a) != hash_of(b));
  CHECK(a.results.config.workload_source.find("--seed 7") != std::string::npos);
  // The same explicit seed twice: the same workload (determinism).
  CHECK(hash_of(run_gen(kRandomGen, 7, true)) == hash_of(a));
  // Not given (the default): the generator's own default seed, whatever run's seed is.
  driver::RunOutcome d1 = run_gen(kRandomGen, 7, false), d2 = run_gen(kRandomGen, 8, false);
  CHECK(hash_of(d1) == hash_of(d2));
  CHECK(d1.results.config.workload_source.find("--seed") == std::string::npos);
  // --seed 1 is the generators' default: the same workload, and source line, as no --seed.
  driver::RunOutcome one = run_gen(kRandomGen, 1, true);
  CHECK(hash_of(one) == hash_of(d1));
  CHECK(one.results.config.workload_source == d1.results.config.workload_source);
  // The spec's own --seed wins.
  const std::string own = std::string(kRandomGen) + " --seed 3";
  CHECK(hash_of(run_gen(own, 7, true)) == hash_of(run_gen(own, 8, true)));
}

TEST_CASE("a generator without random choices keeps its workload under an explicit seed", "[cli][gen-seed]") {
  const std::string gen = "messaging -g 1 -l 3 --pipe";
  driver::RunOutcome a = run_gen(gen, 7, true), d = run_gen(gen, 1, false);
  CHECK(hash_of(a) == hash_of(d));
  CHECK(a.results.config.workload_source == d.results.config.workload_source);
  CHECK_FALSE(has_repeat_note(run_gen(gen, 1, false, 2)));
}

TEST_CASE("repetitions of a random generated workload say they share it", "[cli][gen-seed]") {
  CHECK(has_repeat_note(run_gen(kRandomGen, 1, false, 2)));
  CHECK_FALSE(has_repeat_note(run_gen(kRandomGen, 1, false, 1)));
}

TEST_CASE("generator_is_random tells generators with random choices", "[cli][gen-seed]") {
  CHECK(driver::generator_is_random(kRandomGen));
  CHECK_FALSE(driver::generator_is_random("messaging -g 1 -l 3 --pipe"));
  CHECK_FALSE(driver::generator_is_random(std::string(kRandomGen) + " --seed 3"));  // its own seed: fixed
  CHECK_FALSE(driver::generator_is_random("periodic -n 2 --period 1ms --run 200us --duration 5ms --phase zero"));
  // Given the workload already generated at the seed, only the neighbour seed (seed ^ 1) is
  // generated and compared with it: the workload given is the one compared (a random spec's
  // neighbour compared with itself is "not random").
  const Workload at7 = generate_workload_from_spec(kRandomGen, {}, 7);
  CHECK(driver::generator_is_random(kRandomGen, {}, 7, at7));
  CHECK_FALSE(driver::generator_is_random(kRandomGen, {}, 7, generate_workload_from_spec(kRandomGen, {}, 6)));
  CHECK_FALSE(driver::generator_is_random("messaging -g 1 -l 3 --pipe", {}, 7,
                                       generate_workload_from_spec("messaging -g 1 -l 3 --pipe", {}, 7)));
}

TEST_CASE("the largest seed a generator takes also works as run --seed", "[cli][gen-seed]") {
  // The generators take --seed 0..INT64_MAX; generator_is_random() compares with a neighbour
  // seed, which must stay in that range (seed + 1 was out of it: the run failed).
  const uint64_t max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  driver::RunOutcome o = run_gen(kRandomGen, max, true);
  CHECK(o.results.config.workload_source.find("--seed " + std::to_string(max)) != std::string::npos);
  CHECK(driver::generator_is_random(kRandomGen, {}, max));
  CHECK(driver::generator_is_random(kRandomGen, {}, 0));
}
