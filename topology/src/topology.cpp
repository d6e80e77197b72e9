// Topology::build: validation, per-CPU masks and the sched-domain table.
//
// Models build_sched_domains(), sd_init(), sched_init_numa(), build_sched_groups() /
// build_overlap_sched_groups() and the degeneration in cpu_attach_domain() (sd_degenerate(),
// sd_parent_degenerate()) from kernel/sched/topology.c, as paraphrased in docs/sources.md, Sched domains
// Simplifications:
//  - one table for the whole machine: a level is dropped when it degenerates for every CPU (the
//    kernel decides per CPU; the two agree on every machine whose CPUs all look alike);
//  - PKG spans the CPUs of the CPU's NUMA node, as the kernel's cpu_cpu_mask() does (on
//    machines with one node per package that is the package);
//  - the groups of an overlapping NUMA domain are the child spans clipped to the domain span
//    (the kernel may let such a group stick out of the domain on unusual distance tables).
#include "schedsim/topology/topology.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "schedsim/base/assert.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"

namespace schedsim {

namespace {

// sd_init()'s flags for every level before per-kind adjustments (docs/sources.md, Sched domains).
constexpr uint32_t kDefaultFlags =
    kSdBalanceNewidle | kSdBalanceExec | kSdBalanceFork | kSdWakeAffine | kSdPreferSibling;
// Flags that only make sense with more than one group (SDF_NEEDS_GROUPS in sd_flags.h); of the
// flags modeled, only WAKE_AFFINE does not need groups.
constexpr uint32_t kNeedsGroups = ~uint32_t{kSdWakeAffine};
constexpr uint32_t kLocalDistance = 10;
// node_reclaim_distance (RECLAIM_DISTANCE): NUMA levels further than this lose fork/exec
// balancing and wake_affine.
constexpr uint32_t kReclaimDistance = 30;

[[noreturn]] void fail(const std::string& source, const std::string& msg) {
  throw InputError(SourceLoc{source}, msg);
}

std::string at_cpu(size_t index, const char* field = nullptr) {
  return field ? fmt::format("/cpus/{}/{}", index, field) : fmt::format("/cpus/{}", index);
}

// The spec checks of Topology::build. Messages name the JSON pointer of the offending field
// (the spec's JSON form, docs/topology.md) and what was expected.
void validate(const MachineSpec& spec, const std::string& source) {
  const auto& cpus = spec.cpus;
  if (cpus.empty()) fail(source, "/cpus: the machine has no CPUs");
  if (cpus.size() > CpuMask::kMaxCpus)
    fail(source, fmt::format("/cpus: {} CPUs exceed the supported maximum of {} (CpuMask::kMaxCpus)",
                             cpus.size(), CpuMask::kMaxCpus));
  const size_t n = cpus.size();
  std::map<uint32_t, size_t> index_of;
  for (size_t i = 0; i < n; ++i) {
    auto [it, inserted] = index_of.emplace(cpus[i].cpu, i);
    if (!inserted)
      fail(source, fmt::format("{}: CPU {} is listed twice (also at /cpus/{})", at_cpu(i, "cpu"),
                               cpus[i].cpu, it->second));
  }
  for (size_t i = 0; i < n; ++i) {
    if (cpus[i].cpu < n) continue;
    uint32_t missing = 0;
    while (index_of.count(missing)) ++missing;
    fail(source, fmt::format("{}: CPU {} is missing: {} CPUs must be numbered 0..{} without gaps, "
                             "but CPU {} is listed",
                             at_cpu(i, "cpu"), missing, n, n - 1, cpus[i].cpu));
  }
  // Every slot filled: n distinct numbers below n.
  for (size_t i = 0; i < n; ++i) {
    const CpuSpec& c = cpus[i];
    if (c.capacity < 1 || c.capacity > 1024)
      fail(source, fmt::format("{}: capacity {} of CPU {} is outside 1..1024", at_cpu(i, "capacity"),
                               c.capacity, c.cpu));
    if (c.cluster < -1)
      fail(source, fmt::format("{}: cluster {} of CPU {} must be -1 (none) or >= 0",
                               at_cpu(i, "cluster"), c.cluster, c.cpu));
  }
  bool any_cluster = std::any_of(cpus.begin(), cpus.end(), [](const CpuSpec& c) { return c.cluster >= 0; });
  if (any_cluster)
    for (size_t i = 0; i < n; ++i)
      if (cpus[i].cluster < 0)
        fail(source, fmt::format("{}: CPU {} has no cluster but other CPUs do: give every CPU a "
                                 "cluster or none",
                                 at_cpu(i, "cluster"), cpus[i].cpu));

  // Nesting: SMT siblings (same core) share cluster, LLC, package and node; a cluster lies in
  // one LLC; an LLC in one package and one node. The first CPU seen with an id is the reference.
  struct Ref {
    size_t index;
  };
  auto check_same = [&](std::map<uint32_t, Ref>& first, uint32_t key, size_t i, const char* what,
                        auto field_of, const char* field, const char* rule) {
    auto [it, inserted] = first.emplace(key, Ref{i});
    if (inserted) return;
    const CpuSpec& a = cpus[it->second.index];
    const CpuSpec& b = cpus[i];
    if (field_of(a) != field_of(b))
      fail(source, fmt::format("{}: CPU {} is in {} {} with CPU {} but its {} is {}, not {} ({})",
                               at_cpu(i, field), b.cpu, what, key, a.cpu, field, field_of(b),
                               field_of(a), rule));
  };
  const char* smt_rule = "SMT siblings must share package, LLC, cluster and node";
  std::map<uint32_t, Ref> core_pkg, core_llc, core_node, core_cls, cls_llc, llc_pkg, llc_node;
  for (size_t i = 0; i < n; ++i) {
    const CpuSpec& c = cpus[i];
    check_same(core_pkg, c.core, i, "core", [](const CpuSpec& x) { return x.package; }, "package", smt_rule);
    check_same(core_llc, c.core, i, "core", [](const CpuSpec& x) { return x.llc; }, "llc", smt_rule);
    check_same(core_cls, c.core, i, "core", [](const CpuSpec& x) { return x.cluster; }, "cluster", smt_rule);
    check_same(core_node, c.core, i, "core", [](const CpuSpec& x) { return x.node; }, "node", smt_rule);
    if (c.cluster >= 0)
      check_same(cls_llc, static_cast<uint32_t>(c.cluster), i, "cluster",
                 [](const CpuSpec& x) { return x.llc; }, "llc", "a cluster must lie inside one LLC");
    check_same(llc_pkg, c.llc, i, "llc", [](const CpuSpec& x) { return x.package; }, "package",
               "an LLC must not span packages");
    check_same(llc_node, c.llc, i, "llc", [](const CpuSpec& x) { return x.node; }, "node",
               "an LLC must not span NUMA nodes");
  }

  // Nodes are numbered densely: 0..N-1 each with at least one CPU (CPU-less memory nodes are
  // not modeled).
  std::set<uint32_t> nodes;
  for (const auto& c : cpus) nodes.insert(c.node);
  uint32_t nr_nodes = *nodes.rbegin() + 1;
  if (nodes.size() != nr_nodes) {
    uint32_t missing = 0;
    while (nodes.count(missing)) ++missing;
    fail(source, fmt::format("/cpus: NUMA node {} has no CPUs; nodes must be numbered 0..{} without "
                             "gaps (highest node used is {})",
                             missing, nodes.size() - 1, nr_nodes - 1));
  }
  const auto& d = spec.distance;
  if (d.empty()) return;
  if (d.size() != nr_nodes)
    fail(source, fmt::format("/node_distance: {} rows for {} NUMA nodes; expected a {}x{} matrix",
                             d.size(), nr_nodes, nr_nodes, nr_nodes));
  for (size_t a = 0; a < nr_nodes; ++a) {
    if (d[a].size() != nr_nodes)
      fail(source, fmt::format("/node_distance/{}: {} entries; expected {} (the matrix must be "
                               "square, one row and column per node)",
                               a, d[a].size(), nr_nodes));
  }
  for (size_t a = 0; a < nr_nodes; ++a) {
    for (size_t b = 0; b < nr_nodes; ++b) {
      uint32_t v = d[a][b];
      if (a == b && v != kLocalDistance)
        fail(source, fmt::format("/node_distance/{}/{}: distance of node {} to itself is {}; expected "
                                 "{} (LOCAL_DISTANCE)",
                                 a, b, a, v, kLocalDistance));
      if (a != b && v <= kLocalDistance)
        fail(source, fmt::format("/node_distance/{}/{}: distance {} between nodes {} and {} must be "
                                 "greater than {}",
                                 a, b, v, a, b, kLocalDistance));
      if (v > 255)
        fail(source, fmt::format("/node_distance/{}/{}: distance {} exceeds 255 (the SLIT maximum)",
                                 a, b, v));
      if (v != d[b][a])
        fail(source, fmt::format("/node_distance/{}/{}: distance matrix is not symmetric: node {} to "
                                 "{} is {} but node {} to {} is {}",
                                 a, b, a, b, v, b, a, d[b][a]));
    }
  }
}

// Interns masks: the id of each distinct mask, in order of first appearance.
class MaskInterner {
 public:
  uint32_t id(const CpuMask& m) {
    auto [it, inserted] = ids_.emplace(m, static_cast<uint32_t>(masks_.size()));
    if (inserted) masks_.push_back(m);
    return it->second;
  }
  std::vector<CpuMask> take() { return std::move(masks_); }

 private:
  std::unordered_map<CpuMask, uint32_t> ids_;
  std::vector<CpuMask> masks_;
};

CpuMaskTable masks_by(const std::vector<CpuSpec>& cpus, auto key_of) {
  std::map<decltype(key_of(cpus[0])), CpuMask> by_key;
  for (const auto& c : cpus) by_key[key_of(c)].set(c.cpu);
  MaskInterner in;
  std::vector<uint32_t> index(cpus.size());
  for (const auto& c : cpus) index[c.cpu] = in.id(by_key[key_of(c)]);
  return CpuMaskTable(in.take(), std::move(index));
}

// Dense indices 0..k-1 of per-CPU masks in order of their first CPU.
uint32_t dense_index(const CpuMaskTable& masks, std::vector<uint32_t>& index) {
  index.assign(masks.size(), 0);
  std::map<uint32_t, uint32_t> by_first;
  for (uint32_t cpu = 0; cpu < masks.size(); ++cpu) {
    uint32_t first = masks[cpu].first();
    auto it = by_first.find(first);
    if (it == by_first.end()) it = by_first.emplace(first, static_cast<uint32_t>(by_first.size())).first;
    index[cpu] = it->second;
  }
  return static_cast<uint32_t>(by_first.size());
}

SchedLevel make_level(std::string name, uint32_t topology_flags, CpuMaskTable span) {
  SchedLevel l;
  l.name = std::move(name);
  l.flags = kDefaultFlags | topology_flags;
  l.span = std::move(span);
  return l;
}

// The sd_init() per-kind adjustments (docs/sources.md, Sched domains), after asymmetry flags are known.
void apply_sd_init(SchedLevel& l) {
  l.busy_factor = 16;
  l.imbalance_pct = 117;
  l.cache_nice_tries = 0;
  if (l.has(kSdShareCpuCapacity)) {
    l.imbalance_pct = 110;
  } else if (l.has(kSdShareLlc)) {
    l.imbalance_pct = 117;
    l.cache_nice_tries = 1;
  } else if (l.has(kSdNuma)) {
    l.cache_nice_tries = 2;
    l.flags &= ~uint32_t{kSdPreferSibling};
    l.flags |= kSdSerialize;
    if (l.numa_distance > kReclaimDistance)
      l.flags &= ~uint32_t{kSdBalanceExec | kSdBalanceFork | kSdWakeAffine};
  } else {
    l.cache_nice_tries = 1;
  }
}

void build_groups(SchedLevel& level, const SchedLevel* child) {
  level.groups = GroupTable::build(level.span, child ? &child->span : nullptr);
}

// sd_degenerate(): a domain is useless on its own if it spans one CPU, or if it has one group
// and no flag that works without groups.
bool sd_degenerate(const SchedLevel& l, uint32_t cpu) {
  if (l.span[cpu].count() == 1) return true;
  if ((l.flags & kNeedsGroups) && l.groups[cpu].size() > 1) return false;
  if (l.flags & kSdWakeAffine) return false;
  return true;
}

// sd_parent_degenerate(): the parent adds nothing over the child for this CPU.
bool sd_parent_degenerate(const SchedLevel& child, const SchedLevel& parent, uint32_t cpu) {
  if (sd_degenerate(parent, cpu)) return true;
  if (!(child.span[cpu] == parent.span[cpu])) return false;
  uint32_t pflags = parent.flags;
  if (parent.groups[cpu].size() == 1) pflags &= ~kNeedsGroups;
  return (pflags & ~child.flags) == 0;
}

}  // namespace

CpuMaskTable::CpuMaskTable(const std::vector<CpuMask>& per_cpu) {
  MaskInterner in;
  index_.resize(per_cpu.size());
  for (size_t c = 0; c < per_cpu.size(); ++c) index_[c] = in.id(per_cpu[c]);
  masks_ = in.take();
}

GroupTable GroupTable::build(const CpuMaskTable& span, const CpuMaskTable* child) {
  const uint32_t n = static_cast<uint32_t>(span.size());
  GroupTable t;
  t.refs_.resize(n);
  MaskInterner masks;
  // The first list stored for each domain (span id), which later CPUs' lists are rotations of.
  std::vector<int64_t> domain_list(span.masks().size(), -1);
  std::map<std::vector<uint32_t>, uint32_t> explicit_lists;
  std::vector<uint32_t> list;
  for (uint32_t cpu = 0; cpu < n; ++cpu) {
    const CpuMask& sp = span[cpu];
    // The walk from cpu with wrap-around, jumping straight to the next CPU not yet covered: a
    // CPU the walk passes without it being covered would start a group there.
    list.clear();
    CpuMask left = sp;
    uint32_t i = left.next_wrap(cpu);
    while (i < CpuMask::kMaxCpus) {
      CpuMask g = child ? (*child)[i] & sp : CpuMask::of({i});
      SCHEDSIM_ASSERT(g.test(i), "group of cpu{} does not hold it", i);
      left -= g;
      list.push_back(masks.id(g));
      i = left.next_wrap(i);
    }
    int64_t& dl = domain_list[span.id(cpu)];
    if (dl < 0) {
      dl = static_cast<int64_t>(t.lists_.size());
      t.lists_.push_back(list);
      t.refs_[cpu] = {static_cast<uint32_t>(dl), 0};
      continue;
    }
    const std::vector<uint32_t>& canon = t.lists_[static_cast<size_t>(dl)];
    uint32_t rot = 0;
    bool rotation = canon.size() == list.size();
    if (rotation) {
      while (rot < canon.size() && canon[rot] != list[0]) ++rot;
      for (size_t k = 0; rotation && k < list.size(); ++k) {
        size_t j = rot + k;
        rotation = rot < canon.size() && canon[j < canon.size() ? j : j - canon.size()] == list[k];
      }
    }
    if (rotation) {
      t.refs_[cpu] = {static_cast<uint32_t>(dl), rot};
      continue;
    }
    auto [it, inserted] = explicit_lists.emplace(list, static_cast<uint32_t>(t.lists_.size()));
    if (inserted) t.lists_.push_back(list);
    t.refs_[cpu] = {it->second, 0};
  }
  t.masks_ = masks.take();
  return t;
}

const char* to_string(CpuDistance d) {
  switch (d) {
    case CpuDistance::kSame: return "same";
    case CpuDistance::kSmt: return "smt";
    case CpuDistance::kCluster: return "cluster";
    case CpuDistance::kLlc: return "llc";
    case CpuDistance::kPackage: return "package";
    case CpuDistance::kNuma: return "numa";
  }
  SCHEDSIM_UNREACHABLE("bad CpuDistance");
}

CpuDistance Topology::distance(uint32_t a, uint32_t b) const {
  if (a == b) return CpuDistance::kSame;
  if (smt_[a].test(b)) return CpuDistance::kSmt;
  if (has_clusters_ && cluster_[a].test(b)) return CpuDistance::kCluster;
  if (llc_[a].test(b)) return CpuDistance::kLlc;
  if (package_[a].test(b)) return CpuDistance::kPackage;
  return CpuDistance::kNuma;
}

Topology Topology::build(const MachineSpec& input, const std::string& source) {
  validate(input, source);
  Topology t;
  t.spec_ = input;
  auto& cpus = t.spec_.cpus;
  std::sort(cpus.begin(), cpus.end(), [](const CpuSpec& a, const CpuSpec& b) { return a.cpu < b.cpu; });
  const uint32_t n = static_cast<uint32_t>(cpus.size());
  t.all_ = CpuMask::first_n(n);

  t.has_clusters_ = cpus[0].cluster >= 0;
  t.smt_ = masks_by(cpus, [](const CpuSpec& c) { return c.core; });
  t.cluster_ = t.has_clusters_ ? masks_by(cpus, [](const CpuSpec& c) { return c.cluster; }) : t.smt_;
  t.llc_ = masks_by(cpus, [](const CpuSpec& c) { return c.llc; });
  t.package_ = masks_by(cpus, [](const CpuSpec& c) { return c.package; });
  CpuMaskTable node_of_cpu = masks_by(cpus, [](const CpuSpec& c) { return c.node; });

  uint32_t nr_nodes = 0;
  for (const auto& c : cpus) nr_nodes = std::max(nr_nodes, c.node + 1);
  t.node_cpus_.assign(nr_nodes, CpuMask{});
  for (const auto& c : cpus) t.node_cpus_[c.node].set(c.cpu);

  t.nr_llcs_ = dense_index(t.llc_, t.llc_index_);
  t.nr_cores_ = dense_index(t.smt_, t.core_index_);
  std::vector<uint32_t> pkg_index;
  t.nr_packages_ = dense_index(t.package_, pkg_index);
  t.llc_id_.resize(n);
  for (uint32_t c = 0; c < n; ++c) t.llc_id_[c] = t.llc_[c].first();
  t.smt_width_ = 1;
  t.max_capacity_ = 0;
  uint32_t min_capacity = 1024;
  for (uint32_t c = 0; c < n; ++c) {
    t.smt_width_ = std::max(t.smt_width_, t.smt_[c].count());
    t.max_capacity_ = std::max(t.max_capacity_, cpus[c].capacity);
    min_capacity = std::min(min_capacity, cpus[c].capacity);
  }
  t.asymmetric_ = min_capacity != t.max_capacity_;

  if (t.spec_.distance.empty()) {
    // Documented default: 10 on the diagonal, 20 elsewhere (a typical 2-socket SLIT).
    t.distance_.assign(nr_nodes, std::vector<uint32_t>(nr_nodes, 20));
    for (uint32_t a = 0; a < nr_nodes; ++a) t.distance_[a][a] = kLocalDistance;
  } else {
    t.distance_ = t.spec_.distance;
  }

  // The full table, bottom-up (default_topology[] + sched_init_numa()).
  std::vector<SchedLevel> all;
  all.push_back(make_level("SMT", kSdShareCpuCapacity | kSdShareLlc, t.smt_));
  if (t.has_clusters_) all.push_back(make_level("CLS", kSdCluster | kSdShareLlc, t.cluster_));
  all.push_back(make_level("MC", kSdShareLlc, t.llc_));
  all.push_back(make_level("PKG", 0, node_of_cpu));
  // One level per distinct distance; level j spans the nodes within distance d_j. The identity
  // distance gives NODE (no SD_NUMA flag), the others NUMA.
  std::set<uint32_t> distances;
  for (const auto& row : t.distance_) distances.insert(row.begin(), row.end());
  for (uint32_t dist : distances) {
    // Per node, then per CPU by its node: CPUs of one node share one span.
    std::vector<uint32_t> node_span(nr_nodes);
    MaskInterner spans;
    for (uint32_t a = 0; a < nr_nodes; ++a) {
      CpuMask m;
      for (uint32_t node = 0; node < nr_nodes; ++node)
        if (t.distance_[a][node] <= dist) m |= t.node_cpus_[node];
      node_span[a] = spans.id(m);
    }
    // Ids in order of first appearance by CPU, as every other table.
    std::vector<CpuMask> by_node = spans.take();
    MaskInterner ordered;
    std::vector<uint32_t> index(n);
    for (uint32_t c = 0; c < n; ++c) index[c] = ordered.id(by_node[node_span[cpus[c].node]]);
    bool is_node = dist == kLocalDistance;
    SchedLevel l = make_level(is_node ? "NODE" : "NUMA", is_node ? 0 : uint32_t{kSdNuma},
                              CpuMaskTable(ordered.take(), std::move(index)));
    l.numa_distance = dist;
    all.push_back(std::move(l));
  }

  // Asymmetric capacity (asym_cpu_capacity_classify): a span holding CPUs of different
  // capacities gets ASYM_CPUCAPACITY, and its child loses PREFER_SIBLING.
  if (t.asymmetric_) {
    for (size_t k = 0; k < all.size(); ++k) {
      // Every CPU is in its own span, so cpu's span is mixed iff it holds two capacities:
      // each distinct span is checked once.
      bool mixed = false;
      for (const CpuMask& sp : all[k].span.masks()) {
        const uint32_t cap0 = cpus[sp.first()].capacity;
        for (uint32_t o : sp)
          if (cpus[o].capacity != cap0) {
            mixed = true;
            break;
          }
        if (mixed) break;
      }
      if (!mixed) continue;
      all[k].flags |= kSdAsymCpuCapacity;
      if (k > 0) all[k - 1].flags &= ~uint32_t{kSdPreferSibling};
    }
  }
  for (auto& l : all) apply_sd_init(l);
  for (size_t k = 0; k < all.size(); ++k) build_groups(all[k], k ? &all[k - 1] : nullptr);

  // Degeneration (cpu_attach_domain): walk up, dropping a parent that adds nothing over the
  // kept child for every CPU; then drop the bottom level if it is useless on its own. Groups of
  // a kept level are rebuilt from the kept child, as if the dropped levels never existed.
  std::vector<SchedLevel> kept;
  for (auto& l : all) {
    if (!kept.empty()) {
      bool degenerate = true;
      for (uint32_t c = 0; c < n && degenerate; ++c)
        degenerate = sd_parent_degenerate(kept.back(), l, c);
      if (degenerate) continue;
      build_groups(l, &kept.back());
    }
    kept.push_back(std::move(l));
  }
  while (!kept.empty()) {
    bool degenerate = true;
    for (uint32_t c = 0; c < n && degenerate; ++c) degenerate = sd_degenerate(kept.front(), c);
    if (!degenerate) break;
    kept.erase(kept.begin());
    if (!kept.empty()) build_groups(kept.front(), nullptr);
  }
  t.levels_ = std::move(kept);
  for (size_t k = 0; k < t.levels_.size(); ++k)
    if (t.levels_[k].has(kSdShareLlc)) t.llc_level_ = static_cast<int>(k);
  std::vector<std::string> names;
  for (const auto& l : t.levels_) names.push_back(fmt::format("{}({})", l.name, l.span[0].count()));
  log::get("topology")->debug("{}: {} CPUs, levels {}", source, n, join(names, " "));
  return t;
}

}  // namespace schedsim
