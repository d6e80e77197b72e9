// Helpers shared by the fuzz targets (fuzz_common.hpp).
#include "fuzz_common.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <system_error>

#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/sinks/null_sink.h>

#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/traces/line_parser.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim::fuzz {

namespace fs = std::filesystem;

void quiet_logs() {
  static bool done = false;
  if (done) return;
  done = true;
  log::init(0);
  auto null = std::make_shared<spdlog::sinks::null_sink_mt>();
  for (const char* m : {"cli", "engine", "topology", "traces", "policy", "metrics", "workload"}) {
    auto lg = log::get(m);
    lg->sinks().clear();
    lg->sinks().push_back(null);
  }
}

uint8_t take_byte(std::string_view& in) {
  if (in.empty()) return 0;
  auto b = static_cast<uint8_t>(in.front());
  in.remove_prefix(1);
  return b;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

void finding(const std::string& what) {
  std::fprintf(stderr, "schedsim fuzz finding: %s\n", what.c_str());
  std::abort();
}

// --wake-match recorded: each sleep number of a task is carried by one of its blocks and one wake
// posted to it (when the import is conserved; otherwise at most once on each side), or the replay
// would hold a task in a block forever or a wake with no block.
void check_wake_pairs(const Workload& w, bool conserved) {
  std::vector<std::map<uint32_t, int>> blocks(w.tasks.size()), wakes(w.tasks.size());
  for (size_t k = 0; k < w.tasks.size(); ++k)
    for (const Action& a : w.tasks[k].program) {
      if (a.kind == ActionKind::kBlock && a.body != 0 && ++blocks[k][a.body] > 1)
        finding(fmt::format("task {} has two blocks with sleep number {}", k, a.body));
      if (a.kind == ActionKind::kWake && a.body != 0 && ++wakes[a.task().value()][a.body] > 1)
        finding(fmt::format("task {} is posted two wakes with sleep number {}", a.task().value(), a.body));
    }
  if (!conserved) return;
  for (size_t k = 0; k < w.tasks.size(); ++k)
    if (blocks[k] != wakes[k]) finding(fmt::format("task {}: the sleep numbers of its blocks and of its wakes differ", k));
}

void import_and_check(std::string_view text, const traces::ExtractOptions& opt) {
  traces::ImportReport rep;
  Workload w;
  try {
    w = traces::import_trace_buffer(text, "fuzz-input", opt, &rep);
  } catch (const InputError&) {
    return;  // rejected with a message: fine
  }
  try {
    validate_workload(w, "imported workload");
  } catch (const InputError& e) {
    finding("import accepted a trace but produced an invalid workload: " + e.render());
  }
  if (opt.wake_match == traces::TraceWakeMatch::kRecorded) check_wake_pairs(w, rep.conservation_ok);
  // What `schedsim import -o` writes must be what `run` reads: the reader also range-checks
  // what validate_workload() does not (the observed statistics, pids, names).
  static ScratchDir scratch;
  for (auto [format, name] : {std::pair{WorkloadFormat::kJson, "/w.json"}, std::pair{WorkloadFormat::kCbor, "/w.cbor"}}) {
    const std::string path = scratch.path() + name;
    write_workload(w, path, format);
    try {
      (void)read_workload(path);
    } catch (const InputError& e) {
      finding("import accepted a trace but wrote a workload its own reader rejects: " + e.render());
    }
  }
  (void)rep.describe();
  (void)traces::describe_workload(w);
}

void import_small_window(const uint8_t* data, size_t size) {
  quiet_logs();
  traces::ExtractOptions opt;
  opt.reorder_window = 64;
  import_and_check(as_text(data, size), opt);
}

void import_with_magic(const uint8_t* data, size_t size, std::string_view magic) {
  std::string_view in = as_text(data, size);
  if (in.starts_with(magic)) return import_small_window(data, size);
  std::string buf;
  buf.reserve(magic.size() + in.size());
  buf.append(magic).append(in);
  import_small_window(reinterpret_cast<const uint8_t*>(buf.data()), buf.size());
}

void read_workload_and_describe(const uint8_t* data, size_t size, const char* source) {
  quiet_logs();
  try {
    Workload w = read_workload_buffer(as_text(data, size), source);
    (void)traces::describe_workload(w);
  } catch (const InputError&) {
  }
}

ScratchDir::ScratchDir() {
  // tmpfs when there is one: a sysfs tree is ~100 files per input, 5x faster than on disk.
  const char* tmp = std::getenv("TMPDIR");
  std::string base = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (tmp && *tmp ? tmp : "/tmp");
  std::string templ = base + "/schedsim-fuzz-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) std::abort();
  path_ = buf.data();
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void ScratchDir::reset() {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(path_, ec)) fs::remove_all(e.path(), ec);
}

bool ScratchDir::write(const std::string& relative, std::string_view content) {
  if (relative.empty() || relative.front() == '/' || relative.find("..") != std::string::npos ||
      relative.find('\0') != std::string::npos)
    return false;
  fs::path p = fs::path(path_) / relative;
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  if (ec) return false;
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  if (!out) return false;
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  return static_cast<bool>(out);
}

}  // namespace schedsim::fuzz
