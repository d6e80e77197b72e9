// Built-in machine presets and the regular-machine generator.
//
// CPU numbering follows what Linux shows on the real hardware: on x86 (Intel and AMD) the
// firmware lists every core's first thread before any second thread, so CPU n and n + N/2 are
// SMT siblings; POWER numbers a core's threads consecutively. Distances are the SLIT values
// such machines typically report (see docs/topology.md for the sources and caveats).
#include <algorithm>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "schedsim/base/assert.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/topology/topology.hpp"

namespace schedsim {

MachineSpec make_regular_machine(const RegularMachine& m) {
  SCHEDSIM_ASSERT(m.packages >= 1 && m.cores_per_package >= 1 && m.threads >= 1, "empty machine {}", m.name);
  SCHEDSIM_ASSERT(m.llcs_per_package >= 1 && m.cores_per_package % m.llcs_per_package == 0,
                  "{}: {} cores per package do not split into {} LLCs", m.name, m.cores_per_package,
                  m.llcs_per_package);
  SCHEDSIM_ASSERT(m.nodes_per_package >= 1 && m.cores_per_package % m.nodes_per_package == 0,
                  "{}: {} cores per package do not split into {} nodes", m.name, m.cores_per_package,
                  m.nodes_per_package);
  SCHEDSIM_ASSERT(m.cores_per_cluster == 0 || (m.cores_per_package / m.llcs_per_package) % m.cores_per_cluster == 0,
                  "{}: clusters of {} cores do not tile an LLC", m.name, m.cores_per_cluster);
  const uint32_t cores = m.packages * m.cores_per_package;
  const uint32_t cores_per_llc = m.cores_per_package / m.llcs_per_package;
  const uint32_t cores_per_node = m.cores_per_package / m.nodes_per_package;
  MachineSpec spec;
  spec.name = m.name;
  spec.description = m.description;
  spec.cpus.resize(static_cast<size_t>(cores) * m.threads);
  for (uint32_t core = 0; core < cores; ++core) {
    uint32_t pkg = core / m.cores_per_package;
    uint32_t in_pkg = core % m.cores_per_package;
    for (uint32_t t = 0; t < m.threads; ++t) {
      uint32_t cpu = m.siblings_adjacent ? core * m.threads + t : t * cores + core;
      CpuSpec& c = spec.cpus[cpu];
      c.cpu = cpu;
      c.core = core;
      c.package = pkg;
      c.llc = pkg * m.llcs_per_package + in_pkg / cores_per_llc;
      c.cluster = m.cores_per_cluster ? static_cast<int32_t>(core / m.cores_per_cluster) : -1;
      c.node = pkg * m.nodes_per_package + in_pkg / cores_per_node;
      c.capacity = 1024;
    }
  }
  const uint32_t nodes = m.packages * m.nodes_per_package;
  spec.distance.assign(nodes, std::vector<uint32_t>(nodes, m.remote_distance));
  for (uint32_t a = 0; a < nodes; ++a)
    for (uint32_t b = 0; b < nodes; ++b)
      if (a == b) spec.distance[a][b] = 10;
      else if (a / m.nodes_per_package == b / m.nodes_per_package) spec.distance[a][b] = m.package_node_distance;
  return spec;
}

namespace {

MachineSpec big_little() {
  // A DynamIQ phone SoC: 4 little cores (capacity-dmips-mhz scaled to 446) and 4 big cores
  // (1024), one shared L3 (the DSU), no SMT, one node.
  MachineSpec spec;
  spec.name = "big-little";
  spec.description = "Arm DynamIQ-like phone SoC: 4 little CPUs (capacity 446) + 4 big CPUs (1024), one L3";
  for (uint32_t cpu = 0; cpu < 8; ++cpu)
    spec.cpus.push_back(CpuSpec{cpu, cpu, 0, -1, 0, 0, cpu < 4 ? 446u : 1024u});
  spec.distance = {{10}};
  return spec;
}

struct Preset {
  PresetInfo info;
  std::function<MachineSpec()> make;
};

RegularMachine regular(std::string name, std::string description, uint32_t packages, uint32_t cores,
                       uint32_t threads, uint32_t remote_distance = 20) {
  RegularMachine m;
  m.name = std::move(name);
  m.description = std::move(description);
  m.packages = packages;
  m.cores_per_package = cores;
  m.threads = threads;
  m.remote_distance = remote_distance;
  return m;
}

const std::vector<Preset>& presets() {
  static const std::vector<Preset> table = [] {
    std::vector<RegularMachine> regs;
    // Ivy Bridge-EP: 25 MB L3 per socket, one node per socket. SLIT 10/20 (many 2-socket Xeon
    // BIOSes report 21 instead; both give one NUMA level with the same flags).
    regs.push_back(regular("xeon-e5-2690v2",
                           "2 x Intel Xeon E5-2690 v2 (Ivy Bridge-EP): 2 sockets x 10 cores x 2 threads, "
                           "one L3 and one node per socket",
                           2, 10, 2));
    regs.push_back(regular("xeon-gold-6248",
                           "2 x Intel Xeon Gold 6248 (Cascade Lake): 2 sockets x 20 cores x 2 threads, "
                           "one L3 and one node per socket",
                           2, 20, 2));
    RegularMachine milan = regular("epyc-milan-2s",
                                   "2 x AMD EPYC 7763-like (Milan): 2 sockets x 64 cores x 2 threads, "
                                   "one L3 per 8-core CCX, one node per socket (NPS1), SLIT 10/32",
                                   2, 64, 2, 32);
    milan.llcs_per_package = 8;
    regs.push_back(milan);
    // POWER9 scale-out: SMT4 cores numbered consecutively; the L2/L3 is shared by a pair of
    // cores (a "fused core"), so an LLC spans 8 threads. Chips are 40 apart in the SLIT.
    RegularMachine p9 = regular("power9-smt4",
                                "2 x IBM POWER9-like: 2 sockets x 8 cores x 4 threads (siblings numbered "
                                "consecutively), one L3 per core pair, SLIT 10/40",
                                2, 8, 4, 40);
    p9.siblings_adjacent = true;
    p9.llcs_per_package = 4;
    regs.push_back(p9);
    // A scaling preset, not one product: 1024 CPUs in the size class of the largest 2-socket
    // x86 servers (2 x 192 cores x 2 threads = 768 CPUs on a 2-socket EPYC 9965, 2 x 128 x 2 =
    // 512 on a 2-socket Xeon 6980P), rounded up to a power of two; LLCs of 32 cores (64 CPUs),
    // one node per socket, the Milan preset's SLIT 10/32. It exists so that cost per wakeup and
    // per-CPU table memory can be measured at 1024 CPUs (bench/README.md).
    RegularMachine dense = regular("dense-2s-1024",
                                   "scaling preset: 2 sockets x 256 cores x 2 threads, 8 LLCs of 32 cores per "
                                   "socket, one node per socket, SLIT 10/32 (1024 CPUs, the 2-socket "
                                   "dense-server class)",
                                   2, 256, 2, 32);
    dense.llcs_per_package = 8;
    regs.push_back(dense);
    regs.push_back(regular("smp2", "test machine: 2 CPUs, no SMT, one LLC", 1, 2, 1));
    regs.push_back(regular("smt2x2", "test machine: 1 socket x 2 cores x 2 threads, one LLC", 1, 2, 2));
    RegularMachine llc2 = regular("llc2-smt2", "test machine: 1 socket, 2 LLCs x 2 cores x 2 threads", 1, 4, 2);
    llc2.llcs_per_package = 2;
    regs.push_back(llc2);
    regs.push_back(regular("numa2-smt2",
                           "test machine: 2 sockets x 2 cores x 2 threads, one LLC and node per socket, "
                           "SLIT 10/20",
                           2, 2, 2));
    std::vector<Preset> t;
    t.reserve(regs.size() + 1);
    for (const auto& r : regs) t.push_back(Preset{{r.name, r.description}, [r] { return make_regular_machine(r); }});
    MachineSpec bl = big_little();
    t.push_back(Preset{{bl.name, bl.description}, big_little});
    std::sort(t.begin(), t.end(), [](const Preset& a, const Preset& b) { return a.info.name < b.info.name; });
    return t;
  }();
  return table;
}

}  // namespace

const std::vector<PresetInfo>& preset_list() {
  static const std::vector<PresetInfo> list = [] {
    std::vector<PresetInfo> out;
    for (const auto& p : presets()) out.push_back(p.info);
    return out;
  }();
  return list;
}

uint32_t flat_smp_cpus(const std::string& name) {
  if (name.size() < 4 || name.size() > 7 || name.compare(0, 3, "smp") != 0 || name[3] == '0') return 0;
  uint32_t n = 0;
  for (size_t i = 3; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return 0;
    n = n * 10 + static_cast<uint32_t>(name[i] - '0');
  }
  return n <= CpuMask::kMaxCpus ? n : 0;
}

MachineSpec preset_spec(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& p : presets()) {
    if (p.info.name == name) return p.make();
    names.push_back(p.info.name);
  }
  // The same construction as the listed smp2: one package of N single-thread cores.
  if (const uint32_t n = flat_smp_cpus(name))
    return make_regular_machine(regular(name, fmt::format("{} CPUs, no SMT, one LLC", n), 1, n, 1));
  throw InputError(unknown_choice_message("topology preset", name, names));
}

MachineSpec renumber_ids(const MachineSpec& spec) {
  MachineSpec out = spec;
  std::sort(out.cpus.begin(), out.cpus.end(), [](const CpuSpec& a, const CpuSpec& b) { return a.cpu < b.cpu; });
  std::map<uint32_t, uint32_t> core, llc, pkg;
  std::map<int32_t, int32_t> cls;
  for (auto& c : out.cpus) {
    c.core = core.emplace(c.core, static_cast<uint32_t>(core.size())).first->second;
    c.llc = llc.emplace(c.llc, static_cast<uint32_t>(llc.size())).first->second;
    c.package = pkg.emplace(c.package, static_cast<uint32_t>(pkg.size())).first->second;
    if (c.cluster >= 0) c.cluster = cls.emplace(c.cluster, static_cast<int32_t>(cls.size())).first->second;
  }
  return out;
}

}  // namespace schedsim
