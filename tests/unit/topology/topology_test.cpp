// Topology::build: the presets' domain tables (docs/sources.md, Sched domains), groups, degeneration, and
// the exact validation messages.
#include <set>

#include <catch2/catch.hpp>

#include "schedsim/base/error.hpp"
#include "schedsim/topology/topology.hpp"

using namespace schedsim;

namespace {

std::vector<std::string> level_names(const Topology& t) {
  std::vector<std::string> out;
  for (const auto& l : t.levels()) out.push_back(l.name);
  return out;
}

const SchedLevel& level(const Topology& t, const std::string& name) {
  for (const auto& l : t.levels())
    if (l.name == name) return l;
  FAIL("no level " << name);
  return t.levels().front();
}

// The groups of cpu's domain at level k as build_sched_groups() walks them: every CPU of the
// span from cpu, wrapping, one at a time; each CPU not yet covered contributes the child level's
// span clipped to this span (itself at the bottom level). The reference the shared GroupTable
// must reproduce exactly, written independently of it.
std::vector<CpuMask> reference_groups(const Topology& t, size_t k, uint32_t cpu) {
  const CpuMask& span = t.levels()[k].span[cpu];
  std::vector<uint32_t> order;
  for (uint32_t c = cpu; c < t.nr_cpus(); ++c)
    if (span.test(c)) order.push_back(c);
  for (uint32_t c = 0; c < cpu; ++c)
    if (span.test(c)) order.push_back(c);
  std::vector<CpuMask> out;
  CpuMask covered;
  for (uint32_t c : order) {
    if (covered.test(c)) continue;
    CpuMask g = k ? t.levels()[k - 1].span[c] & span : CpuMask::of({c});
    covered |= g;
    out.push_back(g);
  }
  return out;
}

// Every level's groups against the reference, for every CPU.
void check_groups_against_reference(const Topology& t) {
  for (size_t k = 0; k < t.levels().size(); ++k)
    for (uint32_t c = 0; c < t.nr_cpus(); ++c) {
      INFO("level " << k << " (" << t.levels()[k].name << "), cpu " << c);
      REQUIRE(t.levels()[k].groups[c] == reference_groups(t, k, c));
    }
}

constexpr uint32_t kDefaults = kSdBalanceNewidle | kSdBalanceExec | kSdBalanceFork | kSdWakeAffine | kSdPreferSibling;

// A flat machine of n CPUs, one core each, for validation tests.
MachineSpec flat(uint32_t n) {
  MachineSpec s;
  s.name = "flat";
  for (uint32_t c = 0; c < n; ++c) s.cpus.push_back(CpuSpec{c, c, 0, -1, 0, 0, 1024});
  return s;
}

std::string build_error(const MachineSpec& s) {
  try {
    Topology::build(s, "m.json");
  } catch (const InputError& e) {
    return e.render();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("xeon-e5-2690v2: counts, siblings and levels", "[topology]") {
  Topology t = Topology::build(preset_spec("xeon-e5-2690v2"));
  CHECK(t.nr_cpus() == 40);
  CHECK(t.nr_cores() == 20);
  CHECK(t.nr_llcs() == 2);
  CHECK(t.nr_packages() == 2);
  CHECK(t.nr_nodes() == 2);
  CHECK(t.smt_width() == 2);
  // Linux numbering on Intel: CPU n and n + 20 are siblings.
  for (uint32_t c = 0; c < 20; ++c) CHECK(t.smt_mask(c) == CpuMask::of({c, c + 20}));
  CHECK(t.llc_mask(0).to_cpulist() == "0-9,20-29");
  CHECK(t.llc_mask(35).to_cpulist() == "10-19,30-39");
  CHECK(t.llc_id(35) == 10);
  CHECK(t.llc_index(35) == 1);
  CHECK(t.core_index(25) == 5);
  CHECK(t.node_distance(0, 1) == 20);
  // One LLC and one node per package: PKG and NODE equal MC and degenerate away.
  CHECK(level_names(t) == std::vector<std::string>{"SMT", "MC", "NUMA"});
  CHECK(t.llc_level() == 1);

  const SchedLevel& smt = level(t, "SMT");
  CHECK(smt.flags == (kDefaults | kSdShareCpuCapacity | kSdShareLlc));
  CHECK(smt.imbalance_pct == 110);
  CHECK(smt.cache_nice_tries == 0);
  CHECK(smt.busy_factor == 16);
  CHECK(smt.groups[20] == std::vector<CpuMask>{CpuMask::of({20}), CpuMask::of({0})});

  const SchedLevel& mc = level(t, "MC");
  CHECK(mc.flags == (kDefaults | kSdShareLlc));
  CHECK(mc.imbalance_pct == 117);
  CHECK(mc.cache_nice_tries == 1);
  // Groups are the SMT cores, the CPU's own first, then wrapping upwards (for_each_cpu_wrap).
  REQUIRE(mc.groups[5].size() == 10);
  CHECK(mc.groups[5][0] == CpuMask::of({5, 25}));
  CHECK(mc.groups[5][1] == CpuMask::of({6, 26}));
  CHECK(mc.groups[5][9] == CpuMask::of({4, 24}));

  const SchedLevel& numa = level(t, "NUMA");
  CHECK(numa.numa_distance == 20);
  CHECK(numa.flags == (kSdNuma | kSdSerialize | kSdBalanceNewidle | kSdBalanceExec | kSdBalanceFork | kSdWakeAffine));
  CHECK(numa.cache_nice_tries == 2);
  CHECK(numa.span[7] == t.all_cpus());
  CHECK(numa.groups[15] == std::vector<CpuMask>{t.llc_mask(15), t.llc_mask(0)});

  CHECK(t.distance(0, 0) == CpuDistance::kSame);
  CHECK(t.distance(0, 20) == CpuDistance::kSmt);
  CHECK(t.distance(0, 1) == CpuDistance::kLlc);
  CHECK(t.distance(0, 10) == CpuDistance::kNuma);
  CHECK(std::string(to_string(CpuDistance::kNuma)) == "numa");
}

TEST_CASE("presets build the expected domain tables", "[topology]") {
  struct Expect {
    std::string name;
    uint32_t cpus, cores, llcs, nodes, smt;
    std::vector<std::string> levels;
  };
  const std::vector<Expect> cases = {
      {"xeon-gold-6248", 80, 40, 2, 2, 2, {"SMT", "MC", "NUMA"}},
      {"epyc-milan-2s", 256, 128, 16, 2, 2, {"SMT", "MC", "PKG", "NUMA"}},
      {"dense-2s-1024", 1024, 512, 16, 2, 2, {"SMT", "MC", "PKG", "NUMA"}},
      {"power9-smt4", 64, 16, 8, 2, 4, {"SMT", "MC", "PKG", "NUMA"}},
      {"big-little", 8, 8, 1, 1, 1, {"MC"}},
      {"smp2", 2, 2, 1, 1, 1, {"MC"}},
      {"smt2x2", 4, 2, 1, 1, 2, {"SMT", "MC"}},
      {"llc2-smt2", 8, 4, 2, 1, 2, {"SMT", "MC", "PKG"}},
      {"numa2-smt2", 8, 4, 2, 2, 2, {"SMT", "MC", "NUMA"}},
  };
  for (const auto& e : cases) {
    INFO(e.name);
    Topology t = Topology::build(preset_spec(e.name));
    CHECK(t.nr_cpus() == e.cpus);
    CHECK(t.nr_cores() == e.cores);
    CHECK(t.nr_llcs() == e.llcs);
    CHECK(t.nr_nodes() == e.nodes);
    CHECK(t.smt_width() == e.smt);
    CHECK(level_names(t) == e.levels);
    // Invariants of every table: spans nest, groups partition (or cover) the span, own group first.
    for (size_t k = 0; k < t.levels().size(); ++k) {
      const auto& l = t.levels()[k];
      for (uint32_t c = 0; c < t.nr_cpus(); ++c) {
        CHECK(l.span[c].test(c));
        if (k) CHECK(t.levels()[k - 1].span[c].is_subset_of(l.span[c]));
        REQUIRE_FALSE(l.groups[c].empty());
        CHECK(l.groups[c][0].test(c));
        CpuMask cover;
        for (const auto& g : l.groups[c]) cover |= g;
        CHECK(cover == l.span[c]);
      }
    }
  }
}

TEST_CASE("preset specifics: Milan CCX, POWER9 numbering, big.LITTLE asymmetry", "[topology]") {
  Topology milan = Topology::build(preset_spec("epyc-milan-2s"));
  CHECK(milan.smt_mask(0) == CpuMask::of({0, 128}));
  CHECK(milan.llc_mask(0).to_cpulist() == "0-7,128-135");
  CHECK(milan.package_mask(64).to_cpulist() == "64-127,192-255");
  const SchedLevel& numa = level(milan, "NUMA");
  // SLIT 32 > node_reclaim_distance (30): no fork/exec balancing or wake_affine across sockets.
  CHECK(numa.numa_distance == 32);
  CHECK_FALSE(numa.has(kSdWakeAffine));
  CHECK_FALSE(numa.has(kSdBalanceFork));
  CHECK_FALSE(numa.has(kSdBalanceExec));
  CHECK(numa.has(kSdBalanceNewidle));
  CHECK(level(milan, "PKG").groups[0].size() == 8);
  CHECK(level(milan, "PKG").flags == kDefaults);
  CHECK(level(milan, "PKG").cache_nice_tries == 1);

  // The 1024-CPU scaling preset: x86 numbering (siblings N/2 apart), 64-CPU LLCs, 8 per socket.
  Topology dense = Topology::build(preset_spec("dense-2s-1024"));
  CHECK(dense.smt_mask(0) == CpuMask::of({0, 512}));
  CHECK(dense.llc_mask(0).to_cpulist() == "0-31,512-543");
  CHECK(dense.llc_mask(1023).to_cpulist() == "480-511,992-1023");
  CHECK(dense.package_mask(300).to_cpulist() == "256-511,768-1023");
  CHECK(level(dense, "PKG").groups[0].size() == 8);
  CHECK(level(dense, "NUMA").numa_distance == 32);
  CHECK_FALSE(level(dense, "NUMA").has(kSdWakeAffine));
  CHECK(dense.all_cpus().count() == 1024);

  Topology p9 = Topology::build(preset_spec("power9-smt4"));
  CHECK(p9.smt_mask(5).to_cpulist() == "4-7");
  CHECK(p9.llc_mask(5).to_cpulist() == "0-7");
  CHECK(level(p9, "NUMA").numa_distance == 40);

  Topology bl = Topology::build(preset_spec("big-little"));
  CHECK(bl.asymmetric());
  CHECK(bl.capacity(0) == 446);
  CHECK(bl.capacity(7) == 1024);
  CHECK(bl.max_capacity() == 1024);
  CHECK_FALSE(bl.has_smt());
  const SchedLevel& mc = level(bl, "MC");
  CHECK(mc.has(kSdAsymCpuCapacity));
  // The (degenerated) PKG parent is asymmetric too, so MC lost PREFER_SIBLING (6.12 sd_init).
  CHECK_FALSE(mc.has(kSdPreferSibling));
  CHECK(mc.groups[0].size() == 8);
  CHECK(bl.llc_level() == 0);
}

TEST_CASE("clusters give a CLS level between SMT and MC", "[topology]") {
  RegularMachine m;
  m.name = "cls";
  m.packages = 1;
  m.cores_per_package = 8;
  m.threads = 2;
  m.cores_per_cluster = 4;
  Topology t = Topology::build(make_regular_machine(m));
  CHECK(t.has_clusters());
  CHECK(level_names(t) == std::vector<std::string>{"SMT", "CLS", "MC"});
  const SchedLevel& cls = level(t, "CLS");
  CHECK(cls.flags == (kDefaults | kSdCluster | kSdShareLlc));
  CHECK(cls.span[0].to_cpulist() == "0-3,8-11");
  CHECK(cls.groups[0].size() == 4);
  CHECK(level(t, "MC").groups[0] == std::vector<CpuMask>{cls.span[0], cls.span[4]});
  CHECK(t.llc_level() == 2);
  CHECK(t.distance(0, 1) == CpuDistance::kCluster);
  CHECK(t.distance(0, 4) == CpuDistance::kLlc);
}

TEST_CASE("a NUMA ring gets one level per distinct distance", "[topology]") {
  // 4 nodes in a ring: neighbours at 20, the opposite node at 30.
  MachineSpec s = flat(4);
  for (uint32_t c = 0; c < 4; ++c) {
    s.cpus[c].node = c;
    s.cpus[c].llc = c;
    s.cpus[c].package = c;
  }
  s.distance = {{10, 20, 30, 20}, {20, 10, 20, 30}, {30, 20, 10, 20}, {20, 30, 20, 10}};
  Topology t = Topology::build(s);
  // SMT/MC/PKG/NODE all span one CPU and vanish.
  CHECK(level_names(t) == std::vector<std::string>{"NUMA", "NUMA"});
  CHECK(t.levels()[0].numa_distance == 20);
  CHECK(t.levels()[0].span[0].to_cpulist() == "0-1,3");
  CHECK(t.levels()[1].span[0].to_cpulist() == "0-3");
  // 30 is not above node_reclaim_distance: wake_affine stays.
  CHECK(t.levels()[1].has(kSdWakeAffine));
  CHECK(t.llc_level() == -1);
  // Overlapping groups at the top: the child spans of 0 and 2 cover the whole machine.
  CHECK(t.levels()[1].groups[0] == std::vector<CpuMask>{CpuMask::of({0, 1, 3}), CpuMask::of({1, 2, 3})});
}

TEST_CASE("sub-NUMA clustering: PKG follows the node, the package becomes a NUMA level", "[topology]") {
  // 2 packages x 4 cores, each package split into 2 nodes (SNC) of one LLC each; SLIT 11 inside
  // a package, 21 across. PKG spans the node (cpu_cpu_mask), so it equals MC and vanishes.
  RegularMachine m;
  m.name = "snc";
  m.packages = 2;
  m.cores_per_package = 4;
  m.llcs_per_package = 2;
  m.nodes_per_package = 2;
  MachineSpec s = make_regular_machine(m);
  CHECK(s.distance[0] == std::vector<uint32_t>{10, 11, 21, 21});
  Topology t = Topology::build(s);
  CHECK(level_names(t) == std::vector<std::string>{"MC", "NUMA", "NUMA"});
  CHECK(t.levels()[1].numa_distance == 11);
  CHECK(t.levels()[1].span[0].to_cpulist() == "0-3");
  CHECK(t.levels()[2].span[0].to_cpulist() == "0-7");
  CHECK(t.nr_nodes() == 4);
  CHECK(t.nr_packages() == 2);
  CHECK(t.distance(0, 2) == CpuDistance::kPackage);
}

TEST_CASE("a single CPU has no domains", "[topology]") {
  Topology t = Topology::build(flat(1));
  CHECK(t.levels().empty());
  CHECK(t.llc_level() == -1);
  CHECK(t.nr_cpus() == 1);
}

TEST_CASE("build sorts CPUs and keeps the default distance matrix", "[topology]") {
  MachineSpec s = flat(3);
  std::swap(s.cpus[0], s.cpus[2]);
  Topology t = Topology::build(s);
  CHECK(t.spec().cpus[0].cpu == 0);
  CHECK(t.spec().cpus[2].cpu == 2);
  CHECK(t.node_distance(0, 0) == 10);
}

TEST_CASE("validation messages name the field and what was expected", "[topology][errors]") {
  MachineSpec s = flat(3);
  s.cpus[2].cpu = 1;
  CHECK(build_error(s) == "m.json: error: /cpus/2/cpu: CPU 1 is listed twice (also at /cpus/1)");

  s = flat(3);
  s.cpus[2].cpu = 3;
  CHECK(build_error(s) ==
        "m.json: error: /cpus/2/cpu: CPU 2 is missing: 3 CPUs must be numbered 0..2 without gaps, but CPU 3 is "
        "listed");

  s = flat(2);
  s.cpus[1].capacity = 0;
  CHECK(build_error(s) == "m.json: error: /cpus/1/capacity: capacity 0 of CPU 1 is outside 1..1024");
  s.cpus[1].capacity = 2048;
  CHECK(build_error(s) == "m.json: error: /cpus/1/capacity: capacity 2048 of CPU 1 is outside 1..1024");

  s = flat(2);
  s.cpus[1].core = 0;  // siblings...
  s.cpus[1].package = 1;  // ...in different packages
  s.cpus[1].llc = 0;
  CHECK(build_error(s) ==
        "m.json: error: /cpus/1/package: CPU 1 is in core 0 with CPU 0 but its package is 1, not 0 (SMT siblings "
        "must share package, LLC, cluster and node)");

  s = flat(2);
  s.cpus[1].package = 1;  // LLC 0 spans packages 0 and 1
  s.cpus[1].llc = 0;
  CHECK(build_error(s) ==
        "m.json: error: /cpus/1/package: CPU 1 is in llc 0 with CPU 0 but its package is 1, not 0 (an LLC must "
        "not span packages)");

  s = flat(2);
  s.cpus[0].cluster = 0;
  CHECK(build_error(s) ==
        "m.json: error: /cpus/1/cluster: CPU 1 has no cluster but other CPUs do: give every CPU a cluster or none");

  s = flat(2);
  s.cpus[1].node = 2;
  s.cpus[1].llc = 1;
  CHECK(build_error(s) ==
        "m.json: error: /cpus: NUMA node 1 has no CPUs; nodes must be numbered 0..1 without gaps (highest node "
        "used is 2)");

  s = flat(2);
  s.cpus[1].node = 1;
  s.cpus[1].llc = 1;
  s.distance = {{10, 20}, {21, 10}};
  CHECK(build_error(s) ==
        "m.json: error: /node_distance/0/1: distance matrix is not symmetric: node 0 to 1 is 20 but node 1 to 0 "
        "is 21");
  s.distance = {{10, 20}, {20, 12}};
  CHECK(build_error(s) ==
        "m.json: error: /node_distance/1/1: distance of node 1 to itself is 12; expected 10 (LOCAL_DISTANCE)");
  s.distance = {{10, 10}, {10, 10}};
  CHECK(build_error(s) ==
        "m.json: error: /node_distance/0/1: distance 10 between nodes 0 and 1 must be greater than 10");
  s.distance = {{10, 20}};
  CHECK(build_error(s) == "m.json: error: /node_distance: 1 rows for 2 NUMA nodes; expected a 2x2 matrix");
  s.distance = {{10, 20}, {20}};
  CHECK(build_error(s) ==
        "m.json: error: /node_distance/1: 1 entries; expected 2 (the matrix must be square, one row and column "
        "per node)");

  CHECK(build_error(flat(4097)) ==
        "m.json: error: /cpus: 4097 CPUs exceed the supported maximum of 4096 (CpuMask::kMaxCpus)");
  CHECK(build_error(MachineSpec{}) == "m.json: error: /cpus: the machine has no CPUs");
}

TEST_CASE("unknown presets get a did-you-mean", "[topology][errors]") {
  CHECK_THROWS_WITH(preset_spec("xeon-e5-2690"),
                    "error: unknown topology preset 'xeon-e5-2690'; did you mean 'xeon-e5-2690v2'? valid: big-little, "
                    "dense-2s-1024, epyc-milan-2s, llc2-smt2, numa2-smt2, power9-smt4, smp2, smt2x2, xeon-e5-2690v2, "
                    "xeon-gold-6248");
  CHECK(preset_list().size() == 10);
}

TEST_CASE("describe_topology prints the summary the README promises", "[topology]") {
  std::string text = describe_topology(Topology::build(preset_spec("xeon-e5-2690v2")));
  CHECK_THAT(text, Catch::Contains("40 CPUs, 20 cores, 2 LLCs, 2 packages, 2 NUMA nodes; SMT2"));
  CHECK_THAT(text, Catch::Contains("0/20  1/21  2/22"));
  CHECK_THAT(text, Catch::Contains("19/39"));
  std::string bl = describe_topology(Topology::build(preset_spec("big-little")));
  CHECK_THAT(bl, Catch::Contains("capacity (asymmetric): 446 on 0-3; 1024 on 4-7"));
}

TEST_CASE("domain tables are shared: one span per domain, one group list per domain", "[topology]") {
  for (const auto& p : preset_list()) {
    INFO(p.name);
    Topology t = Topology::build(preset_spec(p.name));
    check_groups_against_reference(t);
    CHECK(t.levels().empty() == (t.nr_cpus() == 1));
    for (const auto& l : t.levels()) {
      // Each distinct span stored once; CPUs of one domain share it.
      std::set<CpuMask> distinct;
      for (uint32_t c = 0; c < t.nr_cpus(); ++c) distinct.insert(l.span[c]);
      CHECK(l.span.masks().size() == distinct.size());
      for (uint32_t c = 0; c < t.nr_cpus(); ++c) CHECK(&l.span[c] == &l.span.masks()[l.span.id(c)]);
      // Regular presets: every CPU's list is a rotation of its domain's, so one list per domain.
      CHECK(l.groups.nr_lists() == distinct.size());
    }
  }
  // The 4096-CPU machine of bench/scaling_bench.cpp: O(domains) masks, not O(CPUs) per level.
  RegularMachine m;
  m.packages = 2;
  m.cores_per_package = 1024;
  m.threads = 2;
  m.llcs_per_package = 32;
  Topology big = Topology::build(make_regular_machine(m));
  REQUIRE(level_names(big) == std::vector<std::string>{"SMT", "MC", "PKG", "NUMA"});
  CHECK(big.levels()[0].span.masks().size() == 2048);  // cores
  CHECK(big.levels()[1].span.masks().size() == 64);    // LLCs
  CHECK(big.levels()[1].groups.nr_masks() == 2048);    // the cores, once
  CHECK(big.levels()[1].groups.nr_lists() == 64);
  CHECK(big.levels()[3].groups.nr_lists() == 1);
  CHECK(big.levels()[1].groups[2050].size() == 32);
  CHECK(big.levels()[1].groups[2050][0] == CpuMask::of({2, 2050}));
  CHECK(big.levels()[1].groups[2050][31] == CpuMask::of({1, 2049}));
  for (uint32_t c : {0u, 1u, 63u, 64u, 2047u, 2048u, 3000u, 4095u})
    for (size_t k = 0; k < big.levels().size(); ++k) CHECK(big.levels()[k].groups[c] == reference_groups(big, k, c));
}

TEST_CASE("a CPU whose group order is not a rotation of its domain's keeps its own list", "[topology]") {
  // One LLC of 6 CPUs, cores {0,5} {1,3} {2,4}: from CPU 0 the MC groups come in the order
  // {0,5} {1,3} {2,4}, from CPU 2 in the order {2,4} {1,3} {0,5}, which no rotation gives.
  MachineSpec s = flat(6);
  const uint32_t core_of[] = {0, 1, 2, 1, 2, 0};
  for (uint32_t c = 0; c < 6; ++c) s.cpus[c].core = core_of[c];
  Topology t = Topology::build(s);
  REQUIRE(level_names(t) == std::vector<std::string>{"SMT", "MC"});
  const SchedLevel& mc = level(t, "MC");
  CHECK(mc.groups[0] == std::vector<CpuMask>{CpuMask::of({0, 5}), CpuMask::of({1, 3}), CpuMask::of({2, 4})});
  CHECK(mc.groups[2] == std::vector<CpuMask>{CpuMask::of({2, 4}), CpuMask::of({1, 3}), CpuMask::of({0, 5})});
  CHECK(mc.groups.nr_lists() > 1);
  CHECK(mc.groups.nr_masks() == 3);
  check_groups_against_reference(t);
}
