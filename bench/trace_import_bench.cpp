// Trace import throughput and peak memory (bench/README.md "Trace import").
//
// Builds a large ftrace text file by concatenating a recorded trace with shifted timestamps
// (each copy starts 1 ms after the previous one ends; pids are kept, so every copy's tasks are
// new lives of reused pids, as in a long real trace), then measures on one core:
//   1. parse only (LineReader + LineParser): the text-format ceiling;
//   2. full import (parse + reorder + extract + observed stats) via import_trace();
// and the peak RSS after a small and after the large file, to show memory does not follow the
// file size. The file is generated under /tmp at run time and removed afterwards.
//
//   trace_import_bench [--mb 512] [--input tests/data/traces/hackbench-pipe-g2.ftrace.gz]
//                      [--keep /tmp/file] [--pid PID]
//   trace_import_bench --formats [--mb 512]   MB/s per format (ftrace text, trace-cmd report,
//                                             perf script, native JSON and CBOR), mb/8 MB each
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "schedsim/traces/import.hpp"
#include "schedsim/traces/line_parser.hpp"
#include "schedsim/traces/line_reader.hpp"
#include "schedsim/workload/workload.hpp"

using namespace schedsim;
using namespace schedsim::traces;

namespace {

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

// Position and length of the "sec.frac" timestamp in an event line of ftrace text, trace-cmd
// report or perf script (the first token after the "[cpu]" column that is digits.digits followed
// by ':'; ftrace puts a flags token before it), or false.
bool find_ts(const std::string& l, size_t& b, size_t& e) {
  size_t c = l.find("] ");
  if (c == std::string::npos) return false;
  size_t p = c + 2;
  for (int token = 0; token < 2; ++token) {
    while (p < l.size() && l[p] == ' ') ++p;
    size_t q = p;
    while (q < l.size() && l[q] != ' ' && l[q] != ':') ++q;
    size_t dot = l.find('.', p);
    bool ts = q < l.size() && l[q] == ':' && q > p && dot < q;
    for (size_t i = p; ts && i < q; ++i) ts = (l[i] >= '0' && l[i] <= '9') || i == dot;
    if (ts) {
      b = p;
      e = q;
      return true;
    }
    while (p < l.size() && l[p] != ' ') ++p;  // the flags token
  }
  return false;
}

// The timestamp l[b, e) in ns, and the number of fraction digits it was written with.
int64_t ts_ns(const std::string& l, size_t b, size_t e, int& digits) {
  size_t dot = l.find('.', b);
  digits = static_cast<int>(e - dot - 1);
  int64_t frac = std::atoll(l.c_str() + dot + 1);
  for (int d = digits; d < 9; ++d) frac *= 10;
  for (int d = digits; d > 9; --d) frac /= 10;
  return std::atoll(l.c_str() + b) * 1000000000 + frac;
}

uint64_t generate(const std::string& input, const std::string& out, uint64_t target_bytes) {
  LineReader rd(input);
  std::vector<std::string> header, events;
  std::vector<int64_t> ts;
  std::string_view line;
  int64_t first = -1, last = 0;
  int digits = 6;
  while (rd.next(line)) {
    std::string l(line);
    size_t b = 0, e = 0;
    if (l.empty() || l[0] == '#' || !find_ts(l, b, e)) {
      if (events.empty()) header.push_back(l);
      continue;
    }
    int64_t t = ts_ns(l, b, e, digits);
    if (first < 0) first = t;
    last = t;
    events.push_back(l);
    ts.push_back(t);
  }
  if (events.empty()) throw std::runtime_error(input + ": no event line with a timestamp");
  std::FILE* f = std::fopen(out.c_str(), "w");
  if (!f) throw std::runtime_error("cannot create " + out);
  uint64_t bytes = 0;
  for (const auto& h : header) bytes += static_cast<uint64_t>(std::fprintf(f, "%s\n", h.c_str()));
  const int64_t period = last - first + 1000000;  // each copy starts 1 ms after the previous one
  int64_t unit = 1;
  for (int d = digits; d < 9; ++d) unit *= 10;
  for (int64_t copy = 0; bytes < target_bytes; ++copy) {
    for (size_t i = 0; i < events.size(); ++i) {
      const std::string& l = events[i];
      size_t b = 0, e = 0;
      find_ts(l, b, e);
      int64_t t = (ts[i] + copy * period) / unit;
      int64_t per_s = 1000000000 / unit;
      char tsbuf[40];
      int n = std::snprintf(tsbuf, sizeof tsbuf, "%5lld.%0*lld", static_cast<long long>(t / per_s), digits,
                            static_cast<long long>(t % per_s));
      std::fwrite(l.data(), 1, b, f);
      std::fwrite(tsbuf, 1, static_cast<size_t>(n), f);
      std::fwrite(l.data() + e, 1, l.size() - e, f);
      std::fputc('\n', f);
      bytes += b + static_cast<uint64_t>(n) + (l.size() - e) + 1;
    }
  }
  std::fclose(f);
  return bytes;
}

struct Timing {
  double seconds;
  double mb_per_s;
};

Timing parse_only(const std::string& path, uint64_t bytes, uint64_t& events) {
  auto t0 = std::chrono::steady_clock::now();
  LineReader rd(path);
  LineParser p;
  TraceEvent ev;
  std::string_view line;
  events = 0;
  while (rd.next(line))
    if (p.parse(line, ev) == LineKind::kEvent) ++events;
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {s, static_cast<double>(bytes) / 1e6 / s};
}

Timing full_import(const std::string& path, uint64_t bytes, ImportReport& rep, size_t& tasks,
                   const ExtractOptions& opt = {}) {
  auto t0 = std::chrono::steady_clock::now();
  Workload w = import_trace(path, opt, &rep);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  tasks = w.tasks.size();
  return {s, static_cast<double>(bytes) / 1e6 / s};
}

// --formats: import MB/s per input format. Each recorded text trace is replicated (copies
// shifted in time, as above) to about `mb` MB and imported with every task selected; the
// workload imported from the ftrace copy is then written as native JSON and CBOR and read back.
// MB are of the uncompressed input; one import each (the file is in the page cache). MB/s is by
// the thread's CPU time (the machine is shared); the wall seconds are printed beside it.
double cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

int formats_mode(uint64_t mb) {
  struct Format {
    const char* name;
    const char* fixture;
  };
  const Format formats[] = {
      {"ftrace-text", "tests/data/traces/hackbench-pipe-g2.ftrace.gz"},
      {"trace-cmd-report", "tests/data/traces/tc316-report-default.txt.gz"},
      {"perf-script", "tests/data/traces/perf-sched-messaging.perf-script.gz"},
  };
  const std::string tmp = fmt::format("/tmp/schedsim-bench-fmt-{}", getpid());
  fmt::print("import MB/s per format (about {} MB each, every task selected, one core)\n", mb);
  fmt::print("{:<23} {:>7} {:>7} {:>7} {:>8} {:>7} {:>8}  {}\n", "format", "MB", "wall s", "CPU s", "MB/s CPU",
             "tasks", "peak MB", "source (replicated, copies shifted in time)");
  Workload from_ftrace;
  int rc = 0;
  for (const auto& f : formats) {
    const std::string path = tmp + "-" + f.name + ".txt";
    try {
      uint64_t bytes = generate(f.fixture, path, mb * 1000000);
      ExtractOptions all;
      all.all_tasks = true;
      ImportReport rep;
      auto t0 = std::chrono::steady_clock::now();
      double c0 = cpu_s();
      Workload w = import_trace(path, all, &rep);
      double cpu = cpu_s() - c0;
      double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      fmt::print("format {:<16} {:>7.1f} {:>7.2f} {:>7.2f} {:>8.1f} {:>7} {:>8.1f}  {}\n", f.name,
                 static_cast<double>(bytes) / 1e6, sec, cpu, static_cast<double>(bytes) / 1e6 / cpu, w.tasks.size(),
                 peak_rss_mb(), f.fixture);
      if (std::string(f.name) == "ftrace-text") from_ftrace = std::move(w);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "trace_import_bench: %s: %s\n", f.name, e.what());
      rc = 1;
    }
    std::remove(path.c_str());
  }
  for (auto [name, wf] : {std::pair{"native-json", WorkloadFormat::kJson}, std::pair{"native-cbor", WorkloadFormat::kCbor}}) {
    const std::string path = tmp + "-" + name;
    try {
      write_workload(from_ftrace, path, wf);
      std::FILE* fp = std::fopen(path.c_str(), "rb");
      if (!fp) throw std::runtime_error("cannot read " + path);
      std::fseek(fp, 0, SEEK_END);
      const double bytes = static_cast<double>(std::ftell(fp));
      std::fclose(fp);
      auto t0 = std::chrono::steady_clock::now();
      double c0 = cpu_s();
      Workload w = read_workload(path);
      double cpu = cpu_s() - c0;
      double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      fmt::print("format {:<16} {:>7.1f} {:>7.2f} {:>7.2f} {:>8.1f} {:>7} {:>8.1f}  the ftrace-text import, written back\n",
                 name, bytes / 1e6, sec, cpu, bytes / 1e6 / cpu, w.tasks.size(), peak_rss_mb());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "trace_import_bench: %s: %s\n", name, e.what());
      rc = 1;
    }
    std::remove(path.c_str());
  }
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t mb = 512;
  std::string input = "tests/data/traces/hackbench-pipe-g2.ftrace.gz";  // run from the source tree
  std::string keep;
  int64_t pid_opt = 22042;  // the hackbench root of the default input
  bool formats = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--formats")) formats = true;
    else if (i + 1 < argc && !std::strcmp(argv[i], "--mb")) mb = std::stoull(argv[++i]);
    else if (i + 1 < argc && !std::strcmp(argv[i], "--input")) input = argv[++i];
    else if (i + 1 < argc && !std::strcmp(argv[i], "--keep")) keep = argv[++i];
    else if (i + 1 < argc && !std::strcmp(argv[i], "--pid")) pid_opt = std::stoll(argv[++i]);
    else {
      std::fprintf(stderr, "usage: trace_import_bench [--mb N] [--input T] [--keep F] [--pid P] | --formats [--mb N]\n");
      return 2;
    }
  }
  if (formats) return formats_mode(mb / 8);
  const std::string small = fmt::format("/tmp/schedsim-bench-trace-{}-small.txt", getpid());
  const std::string large = keep.empty() ? fmt::format("/tmp/schedsim-bench-trace-{}.txt", getpid()) : keep;
  try {
    uint64_t small_bytes = generate(input, small, mb * 1000000 / 8);
    uint64_t large_bytes = generate(input, large, mb * 1000000);
    fmt::print("input      {} (copies shifted in time)\n", input);
    fmt::print("files      {:.1f} MB and {:.1f} MB of ftrace text\n", static_cast<double>(small_bytes) / 1e6, static_cast<double>(large_bytes) / 1e6);
    uint64_t ev = 0;
    Timing p = parse_only(large, large_bytes, ev);
    fmt::print("parse      {:.1f} MB/s  ({} events in {:.2f} s, {:.2f} M events/s)   peak RSS {:.1f} MB\n", p.mb_per_s, ev,
               p.seconds, static_cast<double>(ev) / p.seconds / 1e6, peak_rss_mb());
    // Memory with the produced workload held small (one pid's lives selected): what the
    // importer itself needs, whatever the file size.
    ExtractOptions one;
    one.pids = {pid_opt};
    for (auto [path, b] : {std::pair{small, small_bytes}, std::pair{large, large_bytes}}) {
      ImportReport r1;
      size_t n1 = 0;
      Timing t1 = full_import(path, b, r1, n1, one);
      fmt::print("import     {:.1f} MB/s  on {:.1f} MB, --pid {} ({} task lives)   peak RSS {:.1f} MB\n", t1.mb_per_s,
                 static_cast<double>(b) / 1e6, pid_opt, n1, peak_rss_mb());
    }
    ExtractOptions all;
    all.all_tasks = true;  // the input's "# schedsim record" header would select one command
    ImportReport rs;
    size_t tasks_small = 0;
    Timing s = full_import(small, small_bytes, rs, tasks_small, all);
    double rss_small = peak_rss_mb();
    fmt::print("import     {:.1f} MB/s  on {:.1f} MB ({} tasks)   peak RSS {:.1f} MB\n", s.mb_per_s, static_cast<double>(small_bytes) / 1e6,
               tasks_small, rss_small);
    ImportReport rl;
    size_t tasks_large = 0;
    Timing l = full_import(large, large_bytes, rl, tasks_large, all);
    double rss_large = peak_rss_mb();
    fmt::print("import     {:.1f} MB/s  on {:.1f} MB ({} tasks, {} repairs at copy seams)   peak RSS {:.1f} MB\n",
               l.mb_per_s, static_cast<double>(large_bytes) / 1e6, tasks_large, rl.repairs_total(), rss_large);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trace_import_bench: %s\n", e.what());
    std::remove(small.c_str());
    if (keep.empty()) std::remove(large.c_str());
    return 1;
  }
  std::remove(small.c_str());
  if (keep.empty()) std::remove(large.c_str());
  return 0;
}
