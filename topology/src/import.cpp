// Importing real machines: a sysfs tree (this machine's /sys or a saved copy), `lscpu -p`
// output, and the load_topology() dispatcher behind `--topology NAME|FILE|DIR|host`.
//
// sysfs files read (Documentation/ABI/stable/sysfs-devices-system-cpu, .../sysfs-devices-node):
//   cpu/cpuN/topology/thread_siblings_list   SMT siblings -> core (keyed by the first sibling,
//                                             so ids are machine-unique even though core_id is
//                                             per package)
//   cpu/cpuN/topology/package_cpus_list      package (core_siblings_list on older kernels)
//   cpu/cpuN/topology/cluster_cpus_list      cluster, kept only when it groups several cores
//                                             inside one LLC (otherwise CLS would degenerate)
//   cpu/cpuN/cache/indexK/{level,type,shared_cpu_list}  LLC = highest-level Data/Unified cache
//   cpu/cpuN/cpu_capacity                    capacity (1024 when absent)
//   cpu/cpuN/online                          "0" = offline: rejected with a clear message
//   node/nodeN/{cpulist,distance}            NUMA node of each CPU and the SLIT row
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/topology/json_input.hpp"
#include "schedsim/topology/topology.hpp"

namespace schedsim {

namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::optional<std::string> read_optional(const fs::path& p) {
  std::error_code ec;
  if (fs::is_directory(p, ec)) throw InputError(SourceLoc{p.string()}, "is a directory, expected a file");
  // sysfs attribute files are one short line; a saved tree is bounded like every other input.
  if (auto size = fs::file_size(p, ec); !ec && size > (1u << 20))
    throw InputError(SourceLoc{p.string()}, "larger than 1 MiB: not a sysfs attribute file");
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

std::string read_required(const fs::path& p) {
  auto text = read_optional(p);
  if (!text) throw InputError(SourceLoc{p.string()}, "cannot read this file (expected in a sysfs tree)");
  return trim(*text);
}

uint32_t parse_number(const std::string& text, const fs::path& p) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 9)
    throw InputError(SourceLoc{p.string(), 1, 1}, "expected a non-negative integer, got '" + text + "'", text);
  return static_cast<uint32_t>(std::stoul(text));
}

// `allow_empty`: a NUMA node may hold no CPU; a CPU's own sibling lists never are empty.
CpuMask read_cpulist(const fs::path& p, bool allow_empty = false) {
  std::string text = read_required(p);
  if (text.empty() && !allow_empty) throw InputError(SourceLoc{p.string()}, "empty file, expected a CPU list like 0-3,8");
  std::string err;
  auto m = CpuMask::parse_cpulist(text, &err);
  if (!m) throw InputError(SourceLoc{p.string(), 1, 1}, "bad CPU list: " + err, text);
  return *m;
}

// Numeric suffixes of directory entries named <prefix><N>, sorted.
std::vector<uint32_t> numbered_entries(const fs::path& dir, const std::string& prefix) {
  std::vector<uint32_t> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.size() <= prefix.size() || name.rfind(prefix, 0) != 0) continue;
    std::string digits = name.substr(prefix.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
    out.push_back(static_cast<uint32_t>(std::stoul(digits)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct SysfsCpu {
  uint32_t cpu = 0;
  CpuMask siblings, package, cluster, llc;
  bool has_cluster = false;
  uint32_t capacity = 1024;
  long node = -1;
};

// The sibling relation must be an equivalence: every CPU of a list carries the same list.
void check_consistent(const std::vector<SysfsCpu>& cpus, CpuMask SysfsCpu::*field, const fs::path& cpu_dir,
                      const std::string& file) {
  std::map<uint32_t, const SysfsCpu*> by_cpu;
  for (const auto& c : cpus) by_cpu[c.cpu] = &c;
  for (const auto& c : cpus) {
    const CpuMask& m = c.*field;
    if (!m.test(c.cpu))
      throw InputError(SourceLoc{(cpu_dir / fmt::format("cpu{}", c.cpu) / file).string()},
                       fmt::format("CPU {} is not in its own list '{}'", c.cpu, m.to_cpulist()));
    for (uint32_t o : m) {
      auto it = by_cpu.find(o);
      if (it == by_cpu.end())
        throw InputError(SourceLoc{(cpu_dir / fmt::format("cpu{}", c.cpu) / file).string()},
                         fmt::format("lists CPU {}, which is not present in {}", o, cpu_dir.string()));
      if (!(it->second->*field == m))
        throw InputError(SourceLoc{(cpu_dir / fmt::format("cpu{}", c.cpu) / file).string()},
                         fmt::format("CPU {} lists '{}' but CPU {} lists '{}'; the lists must agree",
                                     c.cpu, m.to_cpulist(), o, (it->second->*field).to_cpulist()));
    }
  }
}

}  // namespace

namespace {

// A copy made with `cp -r --parents /sys/devices/system/cpu DIR` (or tar of /sys) puts the tree
// under DIR/sys/...; any such prefix is accepted: the one directory below `root` (at most 6
// levels down, symlinks not followed) that holds devices/system/cpu/cpu0. Several are an error.
fs::path find_nested_sysfs(const fs::path& root, const std::string& sys_root) {
  std::vector<fs::path> found;
  std::error_code ec;
  size_t visited = 0;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end && ++visited < 200000; it.increment(ec)) {
    if (it.depth() >= 6 || !it->is_directory(ec) || it->is_symlink(ec)) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->path().filename() == "devices" && fs::is_directory(it->path() / "system/cpu/cpu0", ec)) {
      found.push_back(it->path().parent_path());
      it.disable_recursion_pending();
    }
  }
  if (found.size() > 1) {
    std::sort(found.begin(), found.end());
    throw InputError(SourceLoc{sys_root}, fmt::format("holds {} sysfs trees ({} and {}); give the one to use",
                                                      found.size(), found[0].string(), found[1].string()));
  }
  return found.empty() ? fs::path() : found[0];
}

}  // namespace

MachineSpec topology_from_sysfs(const std::string& sys_root) {
  fs::path root(sys_root);
  fs::path cpu_dir, node_dir;
  std::error_code ec;
  fs::path nested_root;
  if (!fs::is_directory(root / "devices/system/cpu", ec) && !fs::is_directory(root / "cpu/cpu0", ec) &&
      !fs::is_directory(root / "cpu0", ec))
    nested_root = find_nested_sysfs(root, sys_root);
  if (!nested_root.empty()) root = nested_root;
  if (fs::is_directory(root / "devices/system/cpu", ec)) {
    cpu_dir = root / "devices/system/cpu";
    node_dir = root / "devices/system/node";
  } else if (fs::is_directory(root / "cpu/cpu0", ec)) {
    cpu_dir = root / "cpu";
    node_dir = root / "node";
  } else if (fs::is_directory(root / "cpu0", ec)) {
    cpu_dir = root;
    node_dir = root.parent_path() / "node";
  } else {
    throw InputError(SourceLoc{sys_root},
                     "not a sysfs tree: expected devices/system/cpu/cpu0 (or cpu/cpu0, or cpu0) inside it");
  }
  auto logger = log::get("topology");
  std::vector<uint32_t> ids = numbered_entries(cpu_dir, "cpu");
  if (ids.empty()) throw InputError(SourceLoc{cpu_dir.string()}, "no cpuN directories found");
  if (ids.back() >= CpuMask::kMaxCpus)
    throw InputError(SourceLoc{(cpu_dir / fmt::format("cpu{}", ids.back())).string()},
                     fmt::format("CPU {} out of range: schedsim models CPUs 0..{}", ids.back(), CpuMask::kMaxCpus - 1));

  std::vector<SysfsCpu> cpus;
  for (uint32_t id : ids) {
    fs::path dir = cpu_dir / fmt::format("cpu{}", id);
    if (auto online = read_optional(dir / "online"); online && trim(*online) == "0")
      throw InputError(SourceLoc{(dir / "online").string()},
                       fmt::format("CPU {} is offline; schedsim models online CPUs numbered without gaps: "
                                   "bring it online, or export the machine (schedsim topology export) and "
                                   "edit the JSON",
                                   id));
    if (!fs::is_directory(dir / "topology", ec))
      throw InputError(SourceLoc{dir.string()},
                       fmt::format("CPU {} has no topology/ directory (offline or not present?)", id));
    SysfsCpu c;
    c.cpu = id;
    c.siblings = read_cpulist(dir / "topology/thread_siblings_list");
    c.package = fs::exists(dir / "topology/package_cpus_list", ec) ? read_cpulist(dir / "topology/package_cpus_list")
                                                                   : read_cpulist(dir / "topology/core_siblings_list");
    if (fs::exists(dir / "topology/cluster_cpus_list", ec)) {
      c.cluster = read_cpulist(dir / "topology/cluster_cpus_list");
      c.has_cluster = true;
    }
    // LLC: the highest-level data or unified cache (instruction caches never hold the LLC).
    uint32_t best_level = 0;
    for (uint32_t k : numbered_entries(dir / "cache", "index")) {
      fs::path idx = dir / "cache" / fmt::format("index{}", k);
      std::string type = read_required(idx / "type");
      if (type != "Unified" && type != "Data") continue;
      uint32_t level = parse_number(read_required(idx / "level"), idx / "level");
      if (level <= best_level) continue;
      best_level = level;
      c.llc = read_cpulist(idx / "shared_cpu_list");
    }
    if (best_level == 0) {
      logger->info("{}: no cache information; treating the package as the LLC", dir.string());
      c.llc = c.package;
    }
    if (auto cap = read_optional(dir / "cpu_capacity"))
      c.capacity = parse_number(trim(*cap), dir / "cpu_capacity");
    cpus.push_back(c);
  }
  check_consistent(cpus, &SysfsCpu::siblings, cpu_dir, "topology/thread_siblings_list");
  check_consistent(cpus, &SysfsCpu::package, cpu_dir, "topology/package_cpus_list");
  check_consistent(cpus, &SysfsCpu::llc, cpu_dir, "cache/index*/shared_cpu_list");

  // Clusters are kept only when they matter: some cluster holds more than one core, and every
  // cluster lies inside its LLC (x86 reports the L2 as the cluster, usually one core).
  bool clusters = std::all_of(cpus.begin(), cpus.end(), [](const SysfsCpu& c) { return c.has_cluster; });
  if (clusters) {
    check_consistent(cpus, &SysfsCpu::cluster, cpu_dir, "topology/cluster_cpus_list");
    bool nontrivial = false, nested = true;
    for (const auto& c : cpus) {
      nontrivial |= !(c.cluster == c.siblings) && !(c.cluster == c.llc);
      nested &= c.siblings.is_subset_of(c.cluster) && c.cluster.is_subset_of(c.llc);
    }
    if (!nested) logger->info("{}: clusters do not nest between cores and LLCs; ignoring them", cpu_dir.string());
    clusters = nontrivial && nested;
  }

  // NUMA nodes: renumbered densely (POWER firmware uses ids like 0 and 8), CPU-less nodes
  // dropped; distance rows list every online node in id order.
  std::vector<std::vector<uint32_t>> distance;
  std::vector<uint32_t> node_ids = fs::is_directory(node_dir, ec) ? numbered_entries(node_dir, "node") : std::vector<uint32_t>{};
  std::map<uint32_t, uint32_t> cpu_node;
  if (node_ids.empty()) {
    distance = {{10}};
    for (auto& c : cpus) c.node = 0;
  } else {
    std::vector<uint32_t> with_cpus;  // positions in node_ids
    for (uint32_t k = 0; k < node_ids.size(); ++k) {
      fs::path list = node_dir / fmt::format("node{}", node_ids[k]) / "cpulist";
      CpuMask m = read_cpulist(list, /*allow_empty=*/true);
      if (m.empty()) continue;
      uint32_t dense = static_cast<uint32_t>(with_cpus.size());
      with_cpus.push_back(k);
      for (uint32_t cpu : m) cpu_node[cpu] = dense;
    }
    for (auto& c : cpus) {
      auto it = cpu_node.find(c.cpu);
      if (it == cpu_node.end())
        throw InputError(SourceLoc{node_dir.string()}, fmt::format("CPU {} is in no node's cpulist", c.cpu));
      c.node = it->second;
    }
    for (uint32_t k : with_cpus) {
      fs::path file = node_dir / fmt::format("node{}", node_ids[k]) / "distance";
      std::string text = read_required(file);
      std::istringstream is(text);
      std::vector<uint32_t> row;
      std::string tok;
      while (is >> tok) row.push_back(parse_number(tok, file));
      if (row.size() != node_ids.size())
        throw InputError(SourceLoc{file.string(), 1, 1},
                         fmt::format("{} distances for {} nodes", row.size(), node_ids.size()), text);
      std::vector<uint32_t> kept;
      kept.reserve(with_cpus.size());
      for (uint32_t j : with_cpus) kept.push_back(row[j]);
      distance.push_back(std::move(kept));
    }
  }

  MachineSpec spec;
  // A tree found below the given folder is named after that folder (not "sys").
  const fs::path named = nested_root.empty() ? root : fs::path(sys_root);
  spec.name = fs::weakly_canonical(root, ec) == fs::path("/sys") ? "host" : named.filename().string();
  if (spec.name.empty()) spec.name = named.parent_path().filename().string();
  spec.description = "imported from the sysfs tree at " + (nested_root.empty() ? sys_root : nested_root.string());
  for (const auto& c : cpus) {
    CpuSpec s;
    s.cpu = c.cpu;
    s.core = c.siblings.first();
    s.package = c.package.first();
    s.llc = c.llc.first();
    s.cluster = clusters ? static_cast<int32_t>(c.cluster.first()) : -1;
    s.node = static_cast<uint32_t>(c.node);
    s.capacity = c.capacity;
    spec.cpus.push_back(s);
  }
  spec.distance = std::move(distance);
  return renumber_ids(spec);
}

MachineSpec topology_from_lscpu(const std::string& text, const std::string& source) {
  // Columns come from the last '#' header line ("# CPU,Core,Socket,Node,,L1d,L1i,L2,L3"); older
  // util-linux prints the CACHE column as one field "L1d:L1i:L2:L3" with values "0:0:0:0".
  struct Column {
    std::string name;
    size_t field, sub;  // field index, index inside a ':'-joined field
  };
  std::vector<Column> columns;
  auto set_header = [&](const std::string& header) {
    columns.clear();
    std::vector<std::string> fields;
    std::stringstream ss(header);
    std::string f;
    while (std::getline(ss, f, ',')) fields.push_back(trim(f));
    if (!header.empty() && header.back() == ',') fields.emplace_back("");
    for (size_t i = 0; i < fields.size(); ++i) {
      std::stringstream sub(fields[i]);
      std::string part;
      size_t k = 0;
      if (fields[i].find(':') == std::string::npos) {
        columns.push_back({fields[i], i, std::string::npos});
        continue;
      }
      while (std::getline(sub, part, ':')) columns.push_back({trim(part), i, k++});
    }
  };
  set_header("CPU,Core,Socket,Node,,L1d,L1i,L2,L3");

  MachineSpec spec;
  spec.name = fs::path(source).filename().string();
  spec.description = "imported from lscpu -p output " + source;
  std::istringstream in(text);
  std::string line;
  long lineno = 0;
  std::map<uint32_t, long> cpu_line;  // CPU -> the line listing it
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string t = trim(line);
    if (t.empty()) continue;
    if (t[0] == '#') {
      std::string h = trim(t.substr(1));
      std::string upper = h;
      for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      if (upper.rfind("CPU,", 0) == 0 || upper == "CPU") {
        set_header(h);
      }
      continue;
    }
    std::vector<std::string> fields;
    std::vector<size_t> starts;
    size_t pos = 0;
    while (true) {
      size_t comma = line.find(',', pos);
      starts.push_back(pos);
      fields.push_back(line.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    auto value = [&](const Column& c, long& col) -> std::string {
      col = c.field < starts.size() ? static_cast<long>(starts[c.field]) + 1 : static_cast<long>(line.size()) + 1;
      if (c.field >= fields.size()) return "";
      if (c.sub == std::string::npos) return trim(fields[c.field]);
      std::stringstream ss(fields[c.field]);
      std::string part;
      for (size_t k = 0; std::getline(ss, part, ':'); ++k)
        if (k == c.sub) return trim(part);
      return "";
    };
    auto number = [&](const Column& c) -> std::optional<uint32_t> {
      long col = 0;
      std::string v = value(c, col);
      if (v.empty() || v == "-") return std::nullopt;
      if (v.find_first_not_of("0123456789") != std::string::npos || v.size() > 9)
        throw InputError(SourceLoc{source, lineno, col},
                         fmt::format("expected a number in column {}, got '{}'", c.name, v), line);
      return static_cast<uint32_t>(std::stoul(v));
    };
    CpuSpec cpu;
    std::optional<uint32_t> cpu_no, core, socket, node, llc;
    uint32_t llc_level = 0;
    for (const auto& c : columns) {
      std::string name = c.name;
      std::string lower = name;
      for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (lower == "cpu") cpu_no = number(c);
      else if (lower == "core") core = number(c);
      else if (lower == "socket") socket = number(c);
      else if (lower == "node") node = number(c);
      else if (lower == "online") {
        long col = 0;
        std::string v = value(c, col);
        if (v == "N" || v == "n")
          throw InputError(SourceLoc{source, lineno, col},
                           "this CPU is offline; schedsim models online CPUs numbered without gaps", line);
      } else if (lower.size() >= 2 && lower[0] == 'l' && std::isdigit(static_cast<unsigned char>(lower[1])) &&
                 lower.back() != 'i') {
        // L1d, L2, L3, L4: the highest level present is the LLC.
        uint32_t level = static_cast<uint32_t>(lower[1] - '0');
        if (auto v = number(c); v && level > llc_level) {
          llc_level = level;
          llc = v;
        }
      }
    }
    if (!cpu_no)
      throw InputError(SourceLoc{source, lineno, 1}, "missing CPU number (is this `lscpu -p` output?)", line);
    if (*cpu_no >= CpuMask::kMaxCpus)
      throw InputError(SourceLoc{source, lineno, 1},
                       fmt::format("CPU {} out of range: schedsim models CPUs 0..{}", *cpu_no, CpuMask::kMaxCpus - 1),
                       line);
    if (auto [it, fresh] = cpu_line.emplace(*cpu_no, lineno); !fresh)
      throw InputError(SourceLoc{source, lineno, 1},
                       fmt::format("CPU {} is listed twice (also at line {})", *cpu_no, it->second), line);
    cpu.cpu = *cpu_no;
    cpu.core = core.value_or(*cpu_no);
    cpu.package = socket.value_or(0);
    cpu.node = node.value_or(0);
    // Without cache columns the package is the best LLC guess.
    cpu.llc = llc ? *llc : cpu.package;
    spec.cpus.push_back(cpu);
  }
  if (spec.cpus.empty()) throw InputError(SourceLoc{source}, "no CPU lines found (is this `lscpu -p` output?)");
  // lscpu numbers NUMA nodes by their kernel id; renumber densely (ids like 0 and 8 on POWER).
  std::set<uint32_t> nodes;
  for (const auto& c : spec.cpus) nodes.insert(c.node);
  std::map<uint32_t, uint32_t> dense;
  for (uint32_t n : nodes) dense.emplace(n, static_cast<uint32_t>(dense.size()));
  for (auto& c : spec.cpus) c.node = dense[c.node];
  return renumber_ids(spec);
}

Topology load_topology(const std::string& name) {
  if (name == "host") return Topology::build(topology_from_sysfs("/sys"), "/sys");
  std::vector<std::string> names;
  for (const auto& p : preset_list()) {
    if (p.name == name) return Topology::build(preset_spec(name), name);
    names.push_back(p.name);
  }
  if (flat_smp_cpus(name) > 0) return Topology::build(preset_spec(name), name);
  std::error_code ec;
  fs::path path(name);
  if (fs::is_directory(path, ec)) return Topology::build(topology_from_sysfs(name), name);
  if (fs::exists(path, ec)) {
    const std::string text = read_input_file(name, "topology file (JSON or lscpu -p output)");
    if (text[text.find_first_not_of(" \t\r\n")] == '{') return Topology::build(topology_from_json(text, name), name);
    return Topology::build(topology_from_lscpu(text, name), name);
  }
  if (name.find('/') != std::string::npos || name.find('.') != std::string::npos)
    throw InputError(SourceLoc{name}, "no such file or directory (expected a topology JSON file, a saved sysfs "
                                      "directory or an lscpu -p file)");
  names.emplace_back("host");
  throw InputError(unknown_choice_message("topology", name, names) +
                   " (or smpN, a flat machine of N = 1..4096 CPUs; a JSON file, a saved sysfs directory, or an lscpu -p "
                   "file)");
}

}  // namespace schedsim
