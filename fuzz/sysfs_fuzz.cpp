// Fuzz target: sysfs import (topology/src/import.cpp topology_from_sysfs). The input is a small
// text archive that the harness unpacks into a scratch directory before every run:
//   @@ devices/system/cpu/cpu0/topology/thread_siblings_list
//   0,4
//   @@ devices/system/node/node0/        (a trailing '/' makes an empty directory)
// Each "@@ <relative path>" line starts a file; the lines up to the next "@@ " are its content.
// Paths are relative to the sysfs root ("/sys" on a real machine); ".." is refused.
#include "fuzz_common.hpp"

#include <filesystem>
#include <system_error>

#include "schedsim/base/error.hpp"
#include "schedsim/topology/topology.hpp"

SCHEDSIM_FUZZ_TARGET(sysfs) {
  using namespace schedsim;
  fuzz::quiet_logs();
  static fuzz::ScratchDir dir;
  dir.reset();
  std::string_view text = fuzz::as_text(data, size);
  std::string name, content;
  size_t files = 0;
  auto flush = [&] {
    if (name.empty()) return;
    if (name.back() == '/') {
      std::error_code ec;
      if (name.find("..") == std::string::npos) std::filesystem::create_directories(dir.path() + "/" + name, ec);
    } else {
      (void)dir.write(name, content);
    }
    name.clear();
    content.clear();
  };
  for (std::string_view line : fuzz::split_lines(text)) {
    if (line.starts_with("@@ ")) {
      flush();
      if (++files > 512) break;  // a real machine's tree for 64 CPUs is ~400 files
      name = std::string(line.substr(3));
    } else if (!name.empty()) {
      content.append(line).push_back('\n');
    }
  }
  flush();
  try {
    Topology topo = Topology::build(topology_from_sysfs(dir.path()), "fuzz-sysfs");
    (void)describe_topology(topo);
  } catch (const InputError&) {
  }
  return 0;
}
