// Sweep specs: command line and JSON give the same canonical spec and hash; points, labels and
// seeds; JSON errors carry the JSON path.
#include <catch2/catch.hpp>

#include <set>

#include "schedsim/base/error.hpp"
#include "schedsim/sweep/spec.hpp"

using namespace schedsim;
using namespace schedsim::sweep;

TEST_CASE("spec: crossed parameters expand first-axis-slowest with labels naming what differs") {
  Spec s = spec_from_cli({"topology=xeon-e5-2690v2", "placement=sis-fold-2018,sis-fold-opt", "gen.group=1,2,5"}, {});
  REQUIRE(s.fixed.size() == 1);
  REQUIRE(s.axes.size() == 2);
  auto pts = expand(s);
  REQUIRE(pts.size() == 6);
  CHECK(pts[0].label == "placement=sis-fold-2018,group=1");
  CHECK(pts[2].label == "placement=sis-fold-2018,group=5");
  CHECK(pts[3].label == "placement=sis-fold-opt,group=1");
  CHECK(pts[5].params.back() == std::pair<std::string, std::string>("gen.group", "5"));
  CHECK(pts[5].params.front() == std::pair<std::string, std::string>("topology", "xeon-e5-2690v2"));
  std::set<uint64_t> seeds;
  for (const auto& p : pts) seeds.insert(p.seed);
  CHECK(seeds.size() == 6);
}

TEST_CASE("spec: zipped parameters advance together") {
  Spec s = spec_from_cli({"placement=a,b"}, {"gen.group=1,2,3", "gen.loops=100,50,20"});
  auto pts = expand(s);
  REQUIRE(pts.size() == 6);
  CHECK(pts[1].label == "placement=a,group=2,loops=50");
  CHECK(pts[4].label == "placement=b,group=2,loops=50");
  CHECK_THROWS_WITH(spec_from_cli({}, {"gen.group=1,2", "gen.loops=1"}),
                    "--zip: error: zipped parameters need equal numbers of values: 'gen.group' has 2, 'gen.loops' has 1");
}

TEST_CASE("spec: labels keep the prefix when the short name is ambiguous") {
  Spec s = spec_from_cli({"gen.seed=1,2", "cost.seed=3,4"}, {});
  auto pts = expand(s);
  CHECK(pts[1].label == "gen.seed=1,cost.seed=4");
  Spec one = spec_from_cli({"placement=a"}, {});
  CHECK(expand(one)[0].label.empty());
}

TEST_CASE("spec: the JSON form of a command-line spec reads back to the same hash and points") {
  Spec s = spec_from_cli({"workload-gen=messaging --pipe", "placement=a,b"}, {"gen.group=1,2", "gen.loops=10,5"});
  s.repeat = 7;
  s.seed = 42;
  Spec back = spec_from_json(s.to_json().dump(2), "x.json");
  CHECK(back.hash() == s.hash());
  CHECK(back.to_json() == s.to_json());
  auto a = expand(s), b = expand(back);
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].params == b[i].params);
    CHECK(a[i].seed == b[i].seed);
  }
  // The order of axes is part of the spec: it orders the points and changes the hash.
  Spec swapped = spec_from_json(R"({"schedsim_sweep":1,"params":{"workload-gen":"messaging --pipe","placement":["a","b"]},
      "zip":[{"gen.group":["1","2"],"gen.loops":["10","5"]}],"order":["gen.group","placement"],"repeat":7,"seed":42})", "y.json");
  CHECK(swapped.hash() != s.hash());
  CHECK(expand(swapped)[1].label == "group=1,loops=10,placement=b");
}

TEST_CASE("spec: a point's seed depends on its parameters and the sweep seed, not on its index") {
  Spec a = spec_from_cli({"placement=x,y"}, {});
  Spec b = spec_from_cli({"placement=y"}, {});
  CHECK(expand(a)[1].seed == expand(b)[0].seed);
  b.seed = 2;
  CHECK(expand(a)[1].seed != expand(b)[0].seed);
  CHECK(derive_seed(1, 0) != derive_seed(1, 1));
  CHECK(derive_seed(1, 1) != derive_seed(2, 0));
  // splitmix64 reference value (Vigna's splitmix64.c with state 0: first output).
  CHECK(mix64(0) == 0xe220a8397b1dcdafull);
}

TEST_CASE("spec: JSON errors name the path") {
  auto err = [](const std::string& text) {
    try {
      spec_from_json(text, "s.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(err(R"({"params":{}})") == "s.json: error: sweep spec /schedsim_sweep: missing (expected \"schedsim_sweep\": 1)");
  CHECK(err(R"({"schedsim_sweep":2})") == "s.json: error: sweep spec /schedsim_sweep: unsupported version 2; this schedsim reads version 1");
  CHECK(err(R"({"schedsim_sweep":1,"parms":{}})") ==
        "s.json: error: sweep spec /parms: unknown member 'parms'; did you mean 'params'? valid: schedsim_sweep, params, zip, order, repeat, seed");
  CHECK(err(R"({"schedsim_sweep":1,"params":{"a":[]}})") == "s.json: error: sweep spec /params/a: empty list of values");
  CHECK(err(R"({"schedsim_sweep":1,"params":{"a":[1,null]}})") ==
        "s.json: error: sweep spec /params/a/1: expected a string, number or boolean, got null");
  CHECK(err(R"({"schedsim_sweep":1,"zip":[{"a":[1,2],"b":[1]}]})") ==
        "s.json: error: sweep spec /zip/0/b: 1 values, but 'a' in the same group has 2");
  CHECK(err(R"({"schedsim_sweep":1,"repeat":0})") == "s.json: error: sweep spec /repeat: 0 is out of range; allowed 1..1000000");
  CHECK(err(R"({"schedsim_sweep":1,"repeat":"3"})") == "s.json: error: sweep spec /repeat: expected a non-negative integer, got string");
  CHECK(err(R"({"schedsim_sweep":1,"params":{"a/b":[1,2]},"order":["x"]})") ==
        "s.json: error: sweep spec /order/0: unknown swept parameter (the first key of each zip group) 'x'; valid: a/b");
  CHECK(err(R"({"schedsim_sweep":1,"params":{"a/b":{"x":1}}})") ==
        "s.json: error: sweep spec /params/a~1b: expected a string, number or boolean, got object");
}

TEST_CASE("spec: a seed takes every uint64 value, a negative one is named") {
  // 2^64-1 is an unsigned JSON number; read as int64 it wrapped to -1 and was refused ("got integer").
  Spec s = spec_from_json(R"({"schedsim_sweep":1,"params":{"placement":"prev"},"seed":18446744073709551615})", "s.json");
  CHECK(s.seed == UINT64_MAX);
  CHECK(spec_from_json(s.to_json().dump(), "back.json").seed == UINT64_MAX);
  CHECK_THROWS_WITH(spec_from_json(R"({"schedsim_sweep":1,"params":{"placement":"prev"},"seed":-5})", "s.json"),
                    Catch::Matchers::Contains("/seed: expected a non-negative integer, got -5"));
}
