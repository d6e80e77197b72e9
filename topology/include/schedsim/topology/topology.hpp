#pragma once
/// The modeled machine: CPUs, SMT siblings, optional clusters, LLCs, packages, NUMA nodes with a
/// distance matrix, per-CPU capacity; and the bottom-up sched-domain table built from them the
/// way the kernel's build_sched_domains() does (docs/sources.md, Sched domains), degenerate levels removed.
///
/// A Topology is immutable after build and cheap to query: every per-CPU mask is precomputed,
/// and stored once per distinct mask (CpuMaskTable, GroupTable), so the tables grow with the
/// number of cores, LLCs and domains, not with CPUs x levels x mask size.
#include <cstdint>
#include <string>
#include <vector>

#include "schedsim/topology/cpu_mask.hpp"

namespace schedsim {

/// One CPU as a machine description states it (sysfs numbering is kept).
struct CpuSpec {
  uint32_t cpu = 0;
  uint32_t core = 0;      ///< core id, unique machine-wide (two CPUs share it iff SMT siblings)
  uint32_t package = 0;   ///< physical package (socket)
  int32_t cluster = -1;   ///< cluster id unique machine-wide, or -1 when the machine has none
  uint32_t llc = 0;       ///< LLC id unique machine-wide
  uint32_t node = 0;      ///< NUMA node
  uint32_t capacity = 1024;  ///< arch_scale_cpu_capacity, 1..1024
};

/// A machine description: what presets, JSON files, sysfs trees and lscpu output turn into.
struct MachineSpec {
  std::string name;
  std::string description;
  std::vector<CpuSpec> cpus;                    ///< sorted by cpu, numbered 0..n-1 without gaps
  std::vector<std::vector<uint32_t>> distance;  ///< node x node SLIT distances; empty = 10/20
};

/// Kernel sched-domain flags we model (include/linux/sched/sd_flags.h names).
enum SdFlag : uint32_t {
  kSdShareCpuCapacity = 1u << 0,  ///< SMT
  kSdShareLlc = 1u << 1,          ///< SHARE_LLC (SHARE_PKG_RESOURCES up to 6.6)
  kSdCluster = 1u << 2,
  kSdNuma = 1u << 3,
  kSdAsymCpuCapacity = 1u << 4,
  kSdBalanceNewidle = 1u << 5,
  kSdBalanceExec = 1u << 6,
  kSdBalanceFork = 1u << 7,
  kSdWakeAffine = 1u << 8,
  kSdPreferSibling = 1u << 9,
  kSdSerialize = 1u << 10,
};

/// A per-CPU table of masks stored once per distinct mask: `t[cpu]` is cpu's mask, and CPUs
/// with equal masks (the CPUs of one core, LLC, node or domain) share one copy, so the table
/// holds O(distinct masks), not O(CPUs) masks.
class CpuMaskTable {
 public:
  CpuMaskTable() = default;
  /// Interns `per_cpu` (per_cpu[cpu] is cpu's mask).
  explicit CpuMaskTable(const std::vector<CpuMask>& per_cpu);
  /// A table of `nr_cpus` CPUs whose cpu-th mask is masks[index[cpu]].
  CpuMaskTable(std::vector<CpuMask> masks, std::vector<uint32_t> index)
      : masks_(std::move(masks)), index_(std::move(index)) {}

  const CpuMask& operator[](uint32_t cpu) const { return masks_[index_[cpu]]; }
  size_t size() const { return index_.size(); }
  /// Index of cpu's mask in masks() (CPUs with equal masks have equal ids).
  uint32_t id(uint32_t cpu) const { return index_[cpu]; }
  /// The distinct masks, in order of their first CPU's appearance.
  const std::vector<CpuMask>& masks() const { return masks_; }

 private:
  std::vector<CpuMask> masks_;
  std::vector<uint32_t> index_;
};

/// The groups of one CPU's domain at one level: a view into its level's GroupTable.
class GroupList {
 public:
  GroupList(const CpuMask* masks, const uint32_t* ids, uint32_t n, uint32_t rot)
      : masks_(masks), ids_(ids), n_(n), rot_(rot) {}
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  const CpuMask& operator[](size_t i) const {
    size_t k = i + rot_;
    return masks_[ids_[k < n_ ? k : k - n_]];
  }
  class iterator {
   public:
    iterator(const GroupList* l, size_t i) : l_(l), i_(i) {}
    const CpuMask& operator*() const { return (*l_)[i_]; }
    iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const iterator& o) const { return i_ == o.i_; }

   private:
    const GroupList* l_;
    size_t i_;
  };
  iterator begin() const { return iterator(this, 0); }
  iterator end() const { return iterator(this, n_); }
  friend bool operator==(const GroupList& a, const std::vector<CpuMask>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < b.size(); ++i)
      if (!(a[i] == b[i])) return false;
    return true;
  }

 private:
  const CpuMask* masks_;
  const uint32_t* ids_;
  uint32_t n_, rot_;
};

/// The group lists of one level for every CPU, stored once per domain: each distinct group mask
/// once, each distinct list of groups once, and per CPU the list and the rotation that puts
/// the CPU's own group first (the kernel walks a domain's CPUs from cpu, wrapping, so the CPUs
/// of one domain see rotations of one list on every regular machine; a list that is not a
/// rotation of its domain's first one is stored as its own list).
class GroupTable {
 public:
  /// The groups of every CPU's domain of `span`: walking the span from cpu with wrap-around (the
  /// kernel's for_each_cpu_wrap in build_sched_groups), each CPU not yet covered contributes
  /// the `child` level's span (clipped to this span) or, without a child, itself.
  static GroupTable build(const CpuMaskTable& span, const CpuMaskTable* child);
  GroupList operator[](uint32_t cpu) const {
    const Ref& r = refs_[cpu];
    const std::vector<uint32_t>& l = lists_[r.list];
    return GroupList(masks_.data(), l.data(), static_cast<uint32_t>(l.size()), r.rot);
  }
  size_t size() const { return refs_.size(); }
  /// Distinct group masks and distinct stored lists (for the memory figures).
  size_t nr_masks() const { return masks_.size(); }
  size_t nr_lists() const { return lists_.size(); }

 private:
  struct Ref {
    uint32_t list = 0, rot = 0;
  };
  std::vector<CpuMask> masks_;
  std::vector<std::vector<uint32_t>> lists_;
  std::vector<Ref> refs_;
};

/// One row of the domain table after degeneration, as seen from every CPU.
struct SchedLevel {
  std::string name;                ///< SMT, CLS, MC, PKG, NODE, NUMA (kernel names)
  uint32_t flags = 0;              ///< SdFlag bits
  uint32_t imbalance_pct = 117;    ///< sd_init defaults per kind of level (docs/sources.md, Sched domains)
  uint32_t busy_factor = 16;
  uint32_t cache_nice_tries = 0;
  uint32_t numa_distance = 0;      ///< for NUMA levels: the distance this level reaches
  CpuMaskTable span;               ///< span[cpu]: this level's domain span for cpu
  /// groups[cpu]: the groups of cpu's domain at this level (the child level's spans, or single
  /// CPUs at the bottom level), the group containing cpu first, as the kernel orders them.
  GroupTable groups;
  bool has(uint32_t flag) const { return (flags & flag) != 0; }
};

/// How far apart two CPUs are, for migration accounting and cache-refill costs.
enum class CpuDistance : uint8_t { kSame, kSmt, kCluster, kLlc, kPackage, kNuma };
const char* to_string(CpuDistance d);

class Topology {
 public:
  /// Validates the spec (throws InputError with `source` as the file) and builds every mask and
  /// the domain table.
  static Topology build(const MachineSpec& spec, const std::string& source = "<topology>");

  const std::string& name() const { return spec_.name; }
  const MachineSpec& spec() const { return spec_; }
  uint32_t nr_cpus() const { return static_cast<uint32_t>(spec_.cpus.size()); }
  const CpuMask& all_cpus() const { return all_; }

  const CpuMask& smt_mask(uint32_t cpu) const { return smt_[cpu]; }      ///< siblings incl. cpu
  const CpuMask& cluster_mask(uint32_t cpu) const { return cluster_[cpu]; }
  const CpuMask& llc_mask(uint32_t cpu) const { return llc_[cpu]; }
  const CpuMask& package_mask(uint32_t cpu) const { return package_[cpu]; }
  const CpuMask& node_mask(uint32_t node) const { return node_cpus_[node]; }

  /// sd_llc_id: the first CPU of cpu's LLC span.
  uint32_t llc_id(uint32_t cpu) const { return llc_id_[cpu]; }
  /// Dense LLC index 0..nr_llcs-1, for per-LLC state arrays (sd_llc_shared).
  uint32_t llc_index(uint32_t cpu) const { return llc_index_[cpu]; }
  uint32_t nr_llcs() const { return nr_llcs_; }
  /// Dense core index 0..nr_cores-1.
  uint32_t core_index(uint32_t cpu) const { return core_index_[cpu]; }
  uint32_t nr_cores() const { return nr_cores_; }
  uint32_t node_of(uint32_t cpu) const { return spec_.cpus[cpu].node; }
  uint32_t package_of(uint32_t cpu) const { return spec_.cpus[cpu].package; }
  uint32_t nr_nodes() const { return static_cast<uint32_t>(node_cpus_.size()); }
  uint32_t nr_packages() const { return nr_packages_; }
  uint32_t capacity(uint32_t cpu) const { return spec_.cpus[cpu].capacity; }
  uint32_t node_distance(uint32_t a, uint32_t b) const { return distance_[a][b]; }
  /// cpus_share_cache(): same LLC.
  bool share_cache(uint32_t a, uint32_t b) const { return llc_id_[a] == llc_id_[b]; }
  bool has_smt() const { return smt_width_ > 1; }
  uint32_t smt_width() const { return smt_width_; }
  bool has_clusters() const { return has_clusters_; }
  /// Some CPU's capacity differs from another's (big.LITTLE).
  bool asymmetric() const { return asymmetric_; }
  uint32_t max_capacity() const { return max_capacity_; }
  CpuDistance distance(uint32_t a, uint32_t b) const;

  /// The domain table, bottom-up, degenerate levels removed (the same rows for every CPU).
  const std::vector<SchedLevel>& levels() const { return levels_; }
  /// Index into levels() of the highest level with SHARE_LLC (sd_llc), or -1.
  int llc_level() const { return llc_level_; }

 private:
  MachineSpec spec_;
  CpuMask all_;
  CpuMaskTable smt_, cluster_, llc_, package_;
  std::vector<CpuMask> node_cpus_;
  std::vector<uint32_t> llc_id_, llc_index_, core_index_;
  std::vector<std::vector<uint32_t>> distance_;
  std::vector<SchedLevel> levels_;
  uint32_t nr_llcs_ = 0, nr_cores_ = 0, nr_packages_ = 0, smt_width_ = 1, max_capacity_ = 1024;
  bool has_clusters_ = false, asymmetric_ = false;
  int llc_level_ = -1;
};

/// Builds a regular machine: packages x cores-per-package x threads, numbered as Linux numbers
/// Intel machines (CPU n and n + nr_cpus/threads are siblings), `llcs_per_package` LLCs per
/// package (contiguous core ranges), one NUMA node per package unless `nodes_per_package` > 1.
struct RegularMachine {
  std::string name, description;
  uint32_t packages = 1, cores_per_package = 1, threads = 1, llcs_per_package = 1;
  uint32_t cores_per_cluster = 0;   ///< 0 = no clusters
  uint32_t nodes_per_package = 1;
  bool siblings_adjacent = false;   ///< POWER/ARM style: siblings numbered consecutively
  uint32_t remote_distance = 21;    ///< SLIT distance between nodes on different packages
  uint32_t package_node_distance = 11;  ///< SLIT distance between two nodes of one package
};
MachineSpec make_regular_machine(const RegularMachine& m);

/// The built-in presets: names and one-line descriptions.
struct PresetInfo {
  std::string name, summary;
};
const std::vector<PresetInfo>& preset_list();
/// The preset's machine description; throws InputError with "did you mean" for unknown names.
/// Besides the list, `smpN` (N = 1..4096, no leading zero) names a flat machine of N CPUs: one
/// package, one LLC, no SMT (`smp2` is one of them): what a trace's CPU count alone describes.
MachineSpec preset_spec(const std::string& name);
/// N when `name` is `smpN` with N in 1..4096, else 0.
uint32_t flat_smp_cpus(const std::string& name);

/// Loads a topology named by the user: a preset name, a JSON file (schema in docs/topology.md),
/// a saved sysfs tree (a directory holding devices/system/cpu and devices/system/node, or the
/// cpu/ directory itself), an `lscpu -p` output file, or "host" (this machine's /sys).
Topology load_topology(const std::string& name_or_path);

/// JSON round trip (schema version 1, docs/topology.md).
std::string topology_to_json(const MachineSpec& spec);
MachineSpec topology_from_json(const std::string& text, const std::string& source);
/// sysfs import from a root holding devices/system/{cpu,node} ("/sys" for this machine).
MachineSpec topology_from_sysfs(const std::string& sys_root);
/// `lscpu -p` (or -p=CPU,CORE,SOCKET,NODE,CACHE) output.
MachineSpec topology_from_lscpu(const std::string& text, const std::string& source);

/// The same machine with core, cluster, LLC and package ids renumbered 0..k-1 in order of each
/// id's first CPU (node ids are kept). Importers return this form, so a sysfs import and an
/// `lscpu -p` import of one machine compare equal.
MachineSpec renumber_ids(const MachineSpec& spec);

/// The readable rendering `schedsim topology show` prints.
std::string describe_topology(const Topology& topo);

}  // namespace schedsim
