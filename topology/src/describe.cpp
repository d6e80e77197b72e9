// describe_topology(): the human rendering printed by `schedsim topology show`. Read by people
// and pinned by golden tests, so it is deterministic: everything is listed in CPU order.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
#include "schedsim/topology/topology.hpp"

namespace schedsim {

namespace {

constexpr size_t kWidth = 100;

std::vector<std::string> flag_names(uint32_t flags) {
  static const std::pair<uint32_t, const char*> kNames[] = {
      {kSdShareCpuCapacity, "SHARE_CPUCAPACITY"}, {kSdCluster, "CLUSTER"},
      {kSdShareLlc, "SHARE_LLC"},                 {kSdNuma, "NUMA"},
      {kSdAsymCpuCapacity, "ASYM_CPUCAPACITY"},   {kSdBalanceNewidle, "BALANCE_NEWIDLE"},
      {kSdBalanceExec, "BALANCE_EXEC"},           {kSdBalanceFork, "BALANCE_FORK"},
      {kSdWakeAffine, "WAKE_AFFINE"},             {kSdPreferSibling, "PREFER_SIBLING"},
      {kSdSerialize, "SERIALIZE"},
  };
  std::vector<std::string> out;
  for (const auto& [bit, name] : kNames)
    if (flags & bit) out.push_back(name);
  if (out.empty()) out.push_back("-");
  return out;
}

// Items separated by `sep`, wrapped at kWidth with continuation lines indented.
std::string wrap(const std::vector<std::string>& items, size_t indent, const std::string& sep = "  ") {
  std::string out, line;
  for (const auto& item : items) {
    if (!line.empty() && indent + line.size() + sep.size() + item.size() > kWidth) {
      out += line + "\n" + std::string(indent, ' ');
      line.clear();
    }
    if (!line.empty()) line += sep;
    line += item;
  }
  return out + line + "\n";
}

// The distinct masks of a per-CPU mask table, in order of their first CPU.
std::vector<CpuMask> distinct(const std::vector<CpuMask>& per_cpu) {
  std::vector<CpuMask> out;
  std::set<CpuMask> seen;
  for (const auto& m : per_cpu)
    if (seen.insert(m).second) out.push_back(m);
  return out;
}

std::string range_text(uint32_t lo, uint32_t hi) {
  return lo == hi ? std::to_string(lo) : fmt::format("{}-{}", lo, hi);
}

std::string plural(uint32_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

std::string describe_topology(const Topology& topo) {
  std::string out;
  const uint32_t n = topo.nr_cpus();
  out += fmt::format("topology: {}\n", topo.name());
  if (!topo.spec().description.empty()) out += fmt::format("  {}\n", topo.spec().description);
  out += fmt::format("{}, {}, {}, {}, {}; ", plural(n, "CPU", "CPUs"), plural(topo.nr_cores(), "core", "cores"),
                     plural(topo.nr_llcs(), "LLC", "LLCs"), plural(topo.nr_packages(), "package", "packages"),
                     plural(topo.nr_nodes(), "NUMA node", "NUMA nodes"));
  out += topo.has_smt() ? fmt::format("SMT{} ({} threads per core)\n", topo.smt_width(), topo.smt_width())
                        : "no SMT\n";
  if (topo.has_clusters()) out += fmt::format("clusters: {}\n", distinct([&] {
                                                std::vector<CpuMask> v;
                                                for (uint32_t c = 0; c < n; ++c) v.push_back(topo.cluster_mask(c));
                                                return v;
                                              }()).size());

  if (!topo.asymmetric()) {
    out += fmt::format("capacity: {} on every CPU\n", topo.capacity(0));
  } else {
    std::map<uint32_t, CpuMask> by_cap;
    for (uint32_t c = 0; c < n; ++c) by_cap[topo.capacity(c)].set(c);
    std::vector<std::string> parts;
    for (const auto& [cap, mask] : by_cap) parts.push_back(fmt::format("{} on {}", cap, mask.to_cpulist()));
    out += "capacity (asymmetric): " + join(parts, "; ") + "\n";
  }

  out += "\nsched-domain levels (bottom-up, degenerate levels removed):\n";
  out += fmt::format("  {:<3}{:<6}{:>6}{:>8}{:>11}{:>12}{:>10}\n", "#", "name", "cpus", "groups", "imbalance",
                     "cache_nice", "distance");
  const auto& levels = topo.levels();
  if (levels.empty()) out += "  (none: a single CPU needs no domains)\n";
  for (size_t k = 0; k < levels.size(); ++k) {
    const SchedLevel& l = levels[k];
    uint32_t wmin = ~0u, wmax = 0, gmin = ~0u, gmax = 0;
    for (uint32_t c = 0; c < n; ++c) {
      wmin = std::min(wmin, l.span[c].count());
      wmax = std::max(wmax, l.span[c].count());
      uint32_t g = static_cast<uint32_t>(l.groups[c].size());
      gmin = std::min(gmin, g);
      gmax = std::max(gmax, g);
    }
    std::string dist = l.numa_distance ? std::to_string(l.numa_distance) : "-";
    out += fmt::format("  {:<3}{:<6}{:>6}{:>8}{:>11}{:>12}{:>10}\n", k, l.name, range_text(wmin, wmax),
                       range_text(gmin, gmax), fmt::format("{}%", l.imbalance_pct), l.cache_nice_tries, dist);
    out += "     flags: " + wrap(flag_names(l.flags), 12, " ");
  }
  if (topo.llc_level() >= 0) {
    const SchedLevel& llc = levels[static_cast<size_t>(topo.llc_level())];
    uint32_t lo = ~0u, hi = 0;
    for (uint32_t c = 0; c < n; ++c) {
      lo = std::min(lo, llc.span[c].count());
      hi = std::max(hi, llc.span[c].count());
    }
    out += fmt::format("sd_llc: level {} ({}), {} CPUs per LLC\n", topo.llc_level(), llc.name, range_text(lo, hi));
  } else {
    out += "sd_llc: none\n";
  }

  out += "\ndomain spans:\n";
  for (const auto& l : levels) {
    std::vector<std::string> items;
    for (const auto& m : l.span.masks()) items.push_back(m.to_cpulist());
    std::string label = l.numa_distance > 10 ? fmt::format("{}({})", l.name, l.numa_distance) : l.name;
    out += fmt::format("  {:<10}", label) + wrap(items, 12);
  }

  out += "\nSMT siblings:";
  if (!topo.has_smt()) {
    out += " none\n";
  } else {
    std::vector<CpuMask> per_cpu;
    for (uint32_t c = 0; c < n; ++c) per_cpu.push_back(topo.smt_mask(c));
    std::vector<std::string> items;
    for (const auto& m : distinct(per_cpu)) {
      std::vector<std::string> cpus;
      for (uint32_t c : m) cpus.push_back(std::to_string(c));
      items.push_back(join(cpus, "/"));
    }
    out += "\n  " + wrap(items, 2);
  }

  out += "\nLLCs:\n";
  {
    std::vector<CpuMask> per_cpu;
    for (uint32_t c = 0; c < n; ++c) per_cpu.push_back(topo.llc_mask(c));
    std::vector<std::string> items;
    for (const auto& m : distinct(per_cpu))
      items.push_back(fmt::format("[{}] {}", topo.llc_index(m.first()), m.to_cpulist()));
    out += "  " + wrap(items, 2);
  }

  out += "\nNUMA nodes:\n";
  for (uint32_t node = 0; node < topo.nr_nodes(); ++node)
    out += fmt::format("  node {}: {}\n", node, topo.node_mask(node).to_cpulist());
  out += "NUMA distances:\n";
  out += "  node";
  for (uint32_t b = 0; b < topo.nr_nodes(); ++b) out += fmt::format("{:>5}", b);
  out += "\n";
  for (uint32_t a = 0; a < topo.nr_nodes(); ++a) {
    out += fmt::format("  {:>4}", a);
    for (uint32_t b = 0; b < topo.nr_nodes(); ++b) out += fmt::format("{:>5}", topo.node_distance(a, b));
    out += "\n";
  }
  return out;
}

}  // namespace schedsim
