// The native workload format's writer (docs/workload-format.md): one schema, emitted as JSON
// text for small hand-written workloads or as CBOR for large ones. It streams: actions are
// emitted one by one into a buffered AtomicFile, so a reader never sees a partial workload.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <istream>
#include <optional>
#include <streambuf>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include "schedsim/base/assert.hpp"
#include "schedsim/base/atomic_file.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/workload/workload.hpp"
#include "workload_format.hpp"

namespace schedsim {

namespace {

using namespace workload_format;

// ---------------------------------------------------------------------------------------------
// Writing.

/// A buffered AtomicFile: a reader never sees a partial workload. "-" writes to stdout.
class OutFile {
 public:
  explicit OutFile(const std::string& path) : file_(path, "workload", Compress::kByName) { buf_.reserve(kFlushAt + 4096); }

  std::string& buf() { return buf_; }
  void maybe_flush() {
    if (buf_.size() >= kFlushAt) flush();
  }
  void commit() {
    flush();
    file_.commit();
  }
  /// Appends the CBOR integrity trailer over everything written so far.
  void append_trailer() {
    flush();
    std::string t(reinterpret_cast<const char*>(kTrailerHead), sizeof kTrailerHead);
    for (int s = 24; s >= 0; s -= 8) t.push_back(static_cast<char>((crc_ >> s) & 0xff));
    for (int s = 56; s >= 0; s -= 8) t.push_back(static_cast<char>((written_ >> s) & 0xff));
    buf_ = t;
  }

 private:
  static constexpr size_t kFlushAt = 1 << 20;
  void flush() {
    crc_ = crc32_z(crc_, reinterpret_cast<const Bytef*>(buf_.data()), buf_.size());
    written_ += buf_.size();
    file_.write(buf_);
    buf_.clear();
  }
  AtomicFile file_;
  std::string buf_;
  uLong crc_ = crc32_z(0, nullptr, 0);
  uint64_t written_ = 0;
};

std::string json_string(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// --- JSON text --------------------------------------------------------------------------------


/// Appends `n` comma-separated items, starting a new line (with `continuation` indent) before an
/// item that would pass column 80.
template <typename F>
void append_wrapped(std::string& o, size_t n, const std::string& continuation, F&& item) {
  size_t col = 0;
  for (size_t i = 0; i < n; ++i) {
    std::string v = item(i);
    if (i) {
      o += ",";
      if (col + v.size() > 80) {
        o += "\n" + continuation;
        col = 0;
      } else {
        o += " ";
      }
    }
    o += v;
    col += v.size() + 2;
  }
}

void json_histogram(std::string& o, const Histogram& h, const char* indent) {
  Histogram::State s = h.state();
  if (h.exact()) {
    o += "{\"samples\": [";
    append_wrapped(o, s.samples.size(), std::string(indent) + "  ", [&](size_t i) { return fmt::format("{}", s.samples[i]); });
    o += "]}";
    return;
  }
  o += fmt::format("{{\"count\": {}, \"min\": {}, \"max\": {}, \"sum\": \"{}\", \"sum_sq\": \"{}\",\n{}  \"buckets\": [",
                   s.count, s.min, s.max, s.sum, s.sum_sq, indent);
  append_wrapped(o, s.buckets.size(), std::string(indent) + "    ",
                 [&](size_t i) { return fmt::format("[{}, {}]", s.buckets[i].first, s.buckets[i].second); });
  o += "]}";
}

void json_action(std::string& o, const Action& a) {
  switch (a.kind) {
    case ActionKind::kRun:
    case ActionKind::kSleep:
    case ActionKind::kFork:
      fmt::format_to(std::back_inserter(o), "[\"{}\", {}]", kind_name(a.kind), a.arg);
      return;
    case ActionKind::kWake:
      if (a.flags == kWakeSync)
        fmt::format_to(std::back_inserter(o), "[\"wake\", {}, \"sync\"]", a.arg);
      else if (a.flags != 0)
        fmt::format_to(std::back_inserter(o), "[\"wake\", {}, {}]", a.arg, a.flags);
      else
        fmt::format_to(std::back_inserter(o), "[\"wake\", {}]", a.arg);
      return;
    case ActionKind::kBlock:
    case ActionKind::kExit:
    case ActionKind::kExec:
      fmt::format_to(std::back_inserter(o), "\"{}\"", kind_name(a.kind));
      return;
    case ActionKind::kLoop:
      fmt::format_to(std::back_inserter(o), "[\"loop\", {}, {}]", a.body, a.arg);
      return;
    case ActionKind::kWrite:
    case ActionKind::kRead:
      fmt::format_to(std::back_inserter(o), "[\"{}\", {}, {}{}]", kind_name(a.kind), a.arg, a.body,
                     (a.flags & kChanSocket) ? ", \"socket\"" : "");
      return;
  }
  SCHEDSIM_UNREACHABLE("action kind");
}

void write_json(const Workload& w, OutFile& out) {
  std::string& o = out.buf();
  o += fmt::format("{{\n  \"schedsim_workload\": {},\n  \"name\": {},\n  \"source\": {},\n", kFormatVersion,
                   json_string(w.name), json_string(w.source));
  o += "  \"meta\": {";
  bool first = true;
  for (const auto& [k, v] : w.meta) {
    o += first ? "\n    " : ",\n    ";
    o += json_string(k) + ": " + json_string(v);
    first = false;
  }
  o += first ? "},\n" : "\n  },\n";
  if (w.observed.present) {
    const ObservedStats& s = w.observed;
    o += fmt::format(
        "  \"observed\": {{\n    \"wakeups\": {}, \"migrations\": {}, \"context_switches\": {},\n"
        "    \"span\": {}, \"total_runtime\": {}, \"nr_cpus\": {},\n    \"wakeup_latency\": ",
        s.wakeups, s.migrations, s.context_switches, s.span.count(), s.total_runtime.count(), s.nr_cpus);
    json_histogram(o, s.wakeup_latency, "    ");
    if (s.wakeup_latency_inferred > 0)
      o += fmt::format(",\n    \"wakeup_latency_inferred\": {}", s.wakeup_latency_inferred);
    o += ",\n    \"runqueue_wait\": ";
    json_histogram(o, s.runqueue_wait, "    ");
    o += "\n  },\n";
  }
  o += "  \"tasks\": [";
  for (size_t ti = 0; ti < w.tasks.size(); ++ti) {
    const TaskSpec& t = w.tasks[ti];
    o += ti ? ",\n    " : "\n    ";
    o += "{\"name\": " + json_string(t.name);
    if (t.pid != -1) o += fmt::format(", \"pid\": {}", t.pid);
    if (t.tgid != -1) o += fmt::format(", \"tgid\": {}", t.tgid);
    if (t.nice != 0) o += fmt::format(", \"nice\": {}", t.nice);
    if (!t.affinity.empty()) o += fmt::format(", \"affinity\": \"{}\"", t.affinity.to_cpulist());
    if (t.kthread) o += ", \"kthread\": true";
    o += fmt::format(", \"start\": \"{}\"", kStartNames[static_cast<size_t>(t.start)]);
    if (t.start_time.ns() != 0) o += fmt::format(", \"start_time\": {}", t.start_time.ns());
    if (t.initial_cpu != -1) o += fmt::format(", \"initial_cpu\": {}", t.initial_cpu);
    o += ",\n     \"program\": [";
    for (size_t ai = 0; ai < t.program.size(); ++ai) {
      if (ai) {
        size_t nl = o.rfind('\n');
        size_t col = nl == std::string::npos ? o.size() : o.size() - nl - 1;
        o += col > 80 ? ",\n      " : ", ";
      }
      json_action(o, t.program[ai]);
      out.maybe_flush();
    }
    o += "]}";
  }
  o += w.tasks.empty() ? "]\n}\n" : "\n  ]\n}\n";
}

// --- CBOR -------------------------------------------------------------------------------------

class Cbor {
 public:
  explicit Cbor(std::string& o) : o_(o) {}
  void head(uint8_t major, uint64_t n) {
    uint8_t m = static_cast<uint8_t>(major << 5);
    if (n < 24) {
      o_.push_back(static_cast<char>(m | n));
    } else if (n <= 0xff) {
      o_.push_back(static_cast<char>(m | 24));
      o_.push_back(static_cast<char>(n));
    } else if (n <= 0xffff) {
      o_.push_back(static_cast<char>(m | 25));
      for (int s = 8; s >= 0; s -= 8) o_.push_back(static_cast<char>((n >> s) & 0xff));
    } else if (n <= 0xffffffffu) {
      o_.push_back(static_cast<char>(m | 26));
      for (int s = 24; s >= 0; s -= 8) o_.push_back(static_cast<char>((n >> s) & 0xff));
    } else {
      o_.push_back(static_cast<char>(m | 27));
      for (int s = 56; s >= 0; s -= 8) o_.push_back(static_cast<char>((n >> s) & 0xff));
    }
  }
  void integer(int64_t v) {
    if (v >= 0)
      head(0, static_cast<uint64_t>(v));
    else
      head(1, static_cast<uint64_t>(-(v + 1)));
  }
  void text(std::string_view s) {
    head(3, s.size());
    o_.append(s);
  }
  void boolean(bool b) { o_.push_back(static_cast<char>(b ? 0xf5 : 0xf4)); }
  void array(size_t n) { head(4, n); }
  void map(size_t n) { head(5, n); }

 private:
  std::string& o_;
};

void cbor_histogram(Cbor& c, const Histogram& h) {
  Histogram::State s = h.state();
  if (h.exact()) {
    c.map(1);
    c.text("samples");
    c.array(s.samples.size());
    for (int64_t v : s.samples) c.integer(v);
    return;
  }
  c.map(6);
  c.text("count");
  c.integer(static_cast<int64_t>(s.count));
  c.text("min");
  c.integer(s.min);
  c.text("max");
  c.integer(s.max);
  c.text("sum");
  c.text(s.sum);
  c.text("sum_sq");
  c.text(s.sum_sq);
  c.text("buckets");
  c.array(s.buckets.size());
  for (const auto& [lo, n] : s.buckets) {
    c.array(2);
    c.integer(lo);
    c.integer(static_cast<int64_t>(n));
  }
}

void write_cbor(const Workload& w, OutFile& out) {
  std::string& o = out.buf();
  o.append(reinterpret_cast<const char*>(kCborMagic), sizeof kCborMagic);
  Cbor c(o);
  c.map(w.observed.present ? 6 : 5);
  c.text("schedsim_workload");
  c.integer(kFormatVersion);
  c.text("name");
  c.text(w.name);
  c.text("source");
  c.text(w.source);
  c.text("meta");
  c.map(w.meta.size());
  for (const auto& [k, v] : w.meta) {
    c.text(k);
    c.text(v);
  }
  if (w.observed.present) {
    const ObservedStats& s = w.observed;
    c.text("observed");
    c.map(s.wakeup_latency_inferred > 0 ? 9 : 8);
    c.text("wakeups");
    c.integer(static_cast<int64_t>(s.wakeups));
    c.text("migrations");
    c.integer(static_cast<int64_t>(s.migrations));
    c.text("context_switches");
    c.integer(static_cast<int64_t>(s.context_switches));
    c.text("span");
    c.integer(s.span.count());
    c.text("total_runtime");
    c.integer(s.total_runtime.count());
    c.text("nr_cpus");
    c.integer(s.nr_cpus);
    c.text("wakeup_latency");
    cbor_histogram(c, s.wakeup_latency);
    if (s.wakeup_latency_inferred > 0) {
      c.text("wakeup_latency_inferred");
      c.integer(static_cast<int64_t>(s.wakeup_latency_inferred));
    }
    c.text("runqueue_wait");
    cbor_histogram(c, s.runqueue_wait);
  }
  c.text("tasks");
  c.array(w.tasks.size());
  for (const TaskSpec& t : w.tasks) {
    int keys = 3 + (t.pid != -1) + (t.tgid != -1) + (t.nice != 0) + (!t.affinity.empty()) + t.kthread +
               (t.start_time.ns() != 0) + (t.initial_cpu != -1);
    c.map(static_cast<size_t>(keys));
    c.text("name");
    c.text(t.name);
    if (t.pid != -1) { c.text("pid"); c.integer(t.pid); }
    if (t.tgid != -1) { c.text("tgid"); c.integer(t.tgid); }
    if (t.nice != 0) { c.text("nice"); c.integer(t.nice); }
    if (!t.affinity.empty()) { c.text("affinity"); c.text(t.affinity.to_cpulist()); }
    if (t.kthread) { c.text("kthread"); c.boolean(true); }
    c.text("start");
    c.text(kStartNames[static_cast<size_t>(t.start)]);
    if (t.start_time.ns() != 0) { c.text("start_time"); c.integer(t.start_time.ns()); }
    if (t.initial_cpu != -1) { c.text("initial_cpu"); c.integer(t.initial_cpu); }
    c.text("program");
    c.array(t.program.size());
    // Actions use the numeric kind code (the ActionKind value) to stay compact: a zero-argument
    // action is one byte, ["run", 1500] four.
    for (const Action& a : t.program) {
      auto code = static_cast<int64_t>(a.kind);
      switch (a.kind) {
        case ActionKind::kBlock:
        case ActionKind::kExit:
        case ActionKind::kExec:
          c.integer(code);
          break;
        case ActionKind::kRun:
        case ActionKind::kSleep:
        case ActionKind::kFork:
          c.array(2);
          c.integer(code);
          c.integer(a.arg);
          break;
        case ActionKind::kWake:
          c.array(a.flags ? 3 : 2);
          c.integer(code);
          c.integer(a.arg);
          if (a.flags == kWakeSync)
            c.text("sync");
          else if (a.flags)
            c.integer(a.flags);
          break;
        case ActionKind::kLoop:
          c.array(3);
          c.integer(code);
          c.integer(a.body);
          c.integer(a.arg);
          break;
        case ActionKind::kWrite:
        case ActionKind::kRead:
          c.array((a.flags & kChanSocket) ? 4 : 3);
          c.integer(code);
          c.integer(a.arg);
          c.integer(a.body);
          if (a.flags & kChanSocket) c.text("socket");
          break;
      }
      out.maybe_flush();
    }
  }
}

}  // namespace

void write_workload(const Workload& w, const std::string& path, WorkloadFormat fmt) {
  OutFile out(path);
  if (fmt == WorkloadFormat::kJson)
    write_json(w, out);
  else
    write_cbor(w, out);
  if (fmt == WorkloadFormat::kCbor) out.append_trailer();
  out.commit();
  size_t actions = 0;
  for (const auto& t : w.tasks) actions += t.program.size();
  log::get("workload")->info("wrote {} ({} tasks, {} actions, {})", path, w.tasks.size(), actions,
                             fmt == WorkloadFormat::kJson ? "JSON" : "CBOR");
}

}  // namespace schedsim
