// Parser robustness (a cheap stand-in for the libFuzzer target): randomly damaged topology
// inputs must either load or fail with an InputError, never crash, assert or leak another
// exception type.
#include <catch2/catch.hpp>

#include <random>

#include "schedsim/base/error.hpp"
#include "schedsim/topology/topology.hpp"

using namespace schedsim;

namespace {

std::string mutate(std::string text, std::mt19937_64& rng) {
  const std::string alphabet = "0123456789{}[],:\"-. \nabcx";
  std::uniform_int_distribution<int> ops(1, 6), kind(0, 2);
  for (int k = 0, n = ops(rng); k < n && !text.empty(); ++k) {
    std::uniform_int_distribution<size_t> pos(0, text.size() - 1), ch(0, alphabet.size() - 1);
    switch (kind(rng)) {
      case 0: text[pos(rng)] = alphabet[ch(rng)]; break;
      case 1: text.erase(pos(rng), 1 + pos(rng) % 8); break;
      default: text.insert(pos(rng), 1, alphabet[ch(rng)]); break;
    }
  }
  return text;
}

}  // namespace

TEST_CASE("damaged JSON and lscpu input never escapes as anything but InputError",
          "[topology][property][robustness]") {
  auto seed = GENERATE(take(300, random(0u, 0xffffffffu)));
  std::mt19937_64 rng(seed);
  const char* presets[] = {"smp2", "numa2-smt2", "big-little", "llc2-smt2"};
  std::string json = topology_to_json(preset_spec(presets[seed % 4]));
  std::string lscpu =
      "# CPU,Core,Socket,Node,,L1d,L1i,L2,L3\n0,0,0,0,,0,0,0,0\n1,1,0,0,,1,1,1,0\n2,0,0,0,,0,0,0,0\n3,1,0,0,,1,1,1,0\n";
  for (int round = 0; round < 5; ++round) {
    std::string j = mutate(json, rng), l = mutate(lscpu, rng);
    INFO("json:\n" << j << "\nlscpu:\n" << l);
    try {
      Topology t = Topology::build(topology_from_json(j, "fuzz.json"), "fuzz.json");
      CHECK(t.nr_cpus() >= 1);
    } catch (const InputError& e) {
      CHECK_FALSE(e.message().empty());
    }
    try {
      Topology t = Topology::build(topology_from_lscpu(l, "fuzz.txt"), "fuzz.txt");
      CHECK(t.nr_cpus() >= 1);
    } catch (const InputError& e) {
      CHECK_FALSE(e.message().empty());
    }
    std::string err;
    (void)CpuMask::parse_cpulist(mutate("0-3,8,10-11", rng), &err);
    (void)CpuMask::parse_hex_mask(mutate("ff,ffffffff", rng), &err);
  }
}
