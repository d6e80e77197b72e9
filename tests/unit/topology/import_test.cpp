// Importing real machines: saved sysfs trees (tests/data/topology/), lscpu -p output, this
// machine's /sys compared with its own `lscpu -p`, and load_topology's dispatch.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "schedsim/base/error.hpp"
#include "schedsim/topology/topology.hpp"

using namespace schedsim;
namespace fs = std::filesystem;

namespace {

const std::string kData = std::string(SCHEDSIM_SOURCE_DIR) + "/tests/data/topology/";

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// The fields both importers can see (lscpu has no capacity or cluster columns).
std::string shape(const MachineSpec& s) {
  std::string out;
  for (const auto& c : s.cpus)
    out += std::to_string(c.cpu) + ":" + std::to_string(c.core) + "/" + std::to_string(c.package) + "/" +
           std::to_string(c.llc) + "/" + std::to_string(c.node) + " ";
  return out;
}

// A scratch copy of a fixture tree that a test may damage.
fs::path scratch_copy(const std::string& fixture, const std::string& name) {
  fs::path dst = fs::path(SCHEDSIM_BINARY_DIR) / "tests" / "scratch" / name;
  fs::remove_all(dst);
  fs::create_directories(dst);
  fs::copy(kData + fixture, dst, fs::copy_options::recursive);
  return dst;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
}

}  // namespace

TEST_CASE("two-socket sysfs fixture: per-package core ids become machine-unique", "[topology][sysfs]") {
  MachineSpec s = topology_from_sysfs(kData + "two-socket-sysfs");
  CHECK(s.name == "two-socket-sysfs");
  REQUIRE(s.cpus.size() == 8);
  // core_id is 0/1 in each package; cores must still be 4 distinct ones.
  CHECK(shape(s) == "0:0/0/0/0 1:1/0/0/0 2:2/1/1/1 3:3/1/1/1 4:0/0/0/0 5:1/0/0/0 6:2/1/1/1 7:3/1/1/1 ");
  // The CPU-less node2 and its distance column are dropped; cluster == core is dropped.
  CHECK(s.distance == std::vector<std::vector<uint32_t>>{{10, 21}, {21, 10}});
  CHECK(s.cpus[0].cluster == -1);
  CHECK(s.cpus[0].capacity == 1024);
  Topology t = Topology::build(s);
  CHECK(t.nr_cores() == 4);
  CHECK(t.smt_mask(1) == CpuMask::of({1, 5}));
  CHECK(t.levels().size() == 3);  // SMT, MC, NUMA
  // The same machine seen through lscpu, both header styles.
  CHECK(shape(topology_from_lscpu(slurp(kData + "two-socket-lscpu.txt"), "l.txt")) == shape(s));
  CHECK(shape(topology_from_lscpu(slurp(kData + "two-socket-lscpu-cache.txt"), "l.txt")) == shape(s));
}

TEST_CASE("saved sysfs tree can be given at several depths", "[topology][sysfs]") {
  std::string ref = shape(topology_from_sysfs(kData + "two-socket-sysfs"));
  CHECK(shape(topology_from_sysfs(kData + "two-socket-sysfs/devices/system")) == ref);
  CHECK(shape(topology_from_sysfs(kData + "two-socket-sysfs/devices/system/cpu")) == ref);
  // A folder holding the tree further down (cp --parents keeps sys/) is searched; two trees are
  // ambiguous, none is not a sysfs tree.
  CHECK_THROWS_WITH(topology_from_sysfs(kData),
                    kData + ": error: holds 2 sysfs trees (" + kData + "host-sysfs and " + kData +
                        "two-socket-sysfs); give the one to use");
  const std::string none = kData + "../compare";
  CHECK_THROWS_WITH(topology_from_sysfs(none),
                    none + ": error: not a sysfs tree: expected devices/system/cpu/cpu0 (or cpu/cpu0, or cpu0) inside it");
}

TEST_CASE("host sysfs fixture matches the host lscpu fixture", "[topology][sysfs]") {
  MachineSpec s = topology_from_sysfs(kData + "host-sysfs");
  CHECK(shape(s) == shape(topology_from_lscpu(slurp(kData + "host-lscpu.txt"), "host-lscpu.txt")));
  CHECK_NOTHROW(Topology::build(s));
}

TEST_CASE("sysfs errors name the file", "[topology][sysfs][errors]") {
  fs::path root = scratch_copy("two-socket-sysfs", "offline");
  fs::path cpu3 = root / "devices/system/cpu/cpu3";
  write(cpu3 / "online", "0\n");
  CHECK_THROWS_WITH(topology_from_sysfs(root.string()),
                    (cpu3 / "online").string() +
                        ": error: CPU 3 is offline; schedsim models online CPUs numbered without gaps: bring it "
                        "online, or export the machine (schedsim topology export) and edit the JSON");
  write(cpu3 / "online", "1\n");
  write(cpu3 / "topology/thread_siblings_list", "3\n");  // cpu7 still claims 3 as its sibling
  CHECK_THROWS_WITH(topology_from_sysfs(root.string()),
                    (root / "devices/system/cpu/cpu7/topology/thread_siblings_list").string() +
                        ": error: CPU 7 lists '3,7' but CPU 3 lists '3'; the lists must agree");
}

TEST_CASE("lscpu parsing errors carry line and column", "[topology][lscpu][errors]") {
  CHECK_THROWS_WITH(topology_from_lscpu("# CPU,Core,Socket,Node\n0,0,0,0\n1,x,0,0\n", "l.txt"),
                    "l.txt:3:3: error: expected a number in column Core, got 'x'\n1,x,0,0\n  ^");
  CHECK_THROWS_WITH(topology_from_lscpu("# CPU,Core,Socket,Node,Online\n0,0,0,0,Y\n1,1,0,0,N\n", "l.txt"),
                    "l.txt:3:9: error: this CPU is offline; schedsim models online CPUs numbered without gaps\n"
                    "1,1,0,0,N\n        ^");
  CHECK_THROWS_WITH(topology_from_lscpu("# nothing\n", "l.txt"),
                    "l.txt: error: no CPU lines found (is this `lscpu -p` output?)");
  // Without a Node column everything is node 0; sparse node ids are renumbered densely.
  MachineSpec s = topology_from_lscpu("# CPU,Core,Socket,Node\n0,0,0,0\n1,1,1,8\n", "l.txt");
  CHECK(s.cpus[1].node == 1);
}

TEST_CASE("this machine's sysfs matches its lscpu -p", "[topology][sysfs][host]") {
  FILE* p = popen("lscpu -p 2>/dev/null", "r");
  std::string out;
  if (p) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    int rc = pclose(p);
    if (rc != 0) out.clear();
  }
  if (out.empty()) {
    WARN("SKIPPED: lscpu is not installed (util-linux); cannot cross-check the sysfs import");
    return;
  }
  MachineSpec sys = topology_from_sysfs("/sys");
  CHECK(sys.name == "host");
  CHECK(shape(sys) == shape(topology_from_lscpu(out, "lscpu -p")));
  Topology t = load_topology("host");
  CHECK(t.nr_cpus() == sys.cpus.size());
}

TEST_CASE("load_topology dispatches on the argument", "[topology]") {
  CHECK(load_topology("smt2x2").nr_cpus() == 4);
  CHECK(load_topology(kData + "two-socket-sysfs").nr_cpus() == 8);
  CHECK(load_topology(kData + "two-socket-lscpu.txt").nr_cpus() == 8);
  fs::path dir = fs::path(SCHEDSIM_BINARY_DIR) / "tests" / "scratch";
  fs::create_directories(dir);
  write(dir / "m.json", topology_to_json(preset_spec("numa2-smt2")));
  CHECK(load_topology((dir / "m.json").string()).nr_nodes() == 2);
  CHECK_THROWS_WITH(load_topology("smt2x3"),
                    "error: unknown topology 'smt2x3'; did you mean 'smt2x2'? valid: big-little, dense-2s-1024, "
                    "epyc-milan-2s, llc2-smt2, numa2-smt2, power9-smt4, smp2, smt2x2, xeon-e5-2690v2, xeon-gold-6248, "
                    "host (or smpN, a flat machine of N = 1..4096 CPUs; a JSON file, a saved sysfs directory, or "
                    "an lscpu -p file)");
  // smpN: N flat CPUs (one package, one LLC, no SMT), smp2 the listed preset itself.
  const Topology smp16 = load_topology("smp16");
  CHECK(smp16.nr_cpus() == 16);
  CHECK_FALSE(smp16.has_smt());
  CHECK(topology_to_json(load_topology("smp2").spec()) == topology_to_json(preset_spec("smp2")));
  CHECK(flat_smp_cpus("smp4096") == 4096);  // built, it takes seconds (4096 sched domains)
  for (const char* bad : {"smp0", "smp4097", "smp02", "smp", "smp1x"}) {
    INFO(bad);
    CHECK_THROWS_AS(load_topology(bad), InputError);
  }
  CHECK_THROWS_WITH(load_topology("no/such.json"),
                    "no/such.json: error: no such file or directory (expected a topology JSON file, a saved sysfs "
                    "directory or an lscpu -p file)");
}
