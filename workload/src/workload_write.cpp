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
#include <vector>

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

// --- The schema walk -------------------------------------------------------------------------
//
// One walk over the schema (docs/workload-format.md) drives either emitter. An emitter offers
//   open_map(n, layout) / open_array(n, layout) / close()   containers of n items
//   key(k) / key_inline(k) / key_on_line(k, indent)          a map key and where the JSON text puts it
//   integer(v) / text(s) / boolean(b) / kind(action kind)    values
// CBOR needs the item counts up front; the layout hints only shape the JSON text.

/// How a JSON container lays out its items.
struct Layout {
  enum Wrap : uint8_t {
    kNone,
    kByItems,   ///< a new line (at `cont`) before an item that would pass column 80 of the list
    kByColumn,  ///< a new line (at `cont`) once the text line has passed column 80
  };
  const char* indent = nullptr;        ///< each item on a line of its own at this indent; null: inline
  const char* close_indent = nullptr;  ///< a non-empty container closes on a new line at this indent
  Wrap wrap = kNone;
  const char* cont = "";               ///< continuation indent of a wrapped list
};

template <class E>
void walk_histogram(E& e, const Histogram& h, const char* cont, const char* buckets_line, const char* buckets_cont) {
  Histogram::State s = h.state();
  if (h.exact()) {
    e.open_map(1);
    e.key("samples");
    e.open_array(s.samples.size(), {.wrap = Layout::kByItems, .cont = cont});
    for (int64_t v : s.samples) e.integer(v);
    e.close();
    e.close();
    return;
  }
  e.open_map(6);
  e.key("count");
  e.integer(static_cast<int64_t>(s.count));
  e.key("min");
  e.integer(s.min);
  e.key("max");
  e.integer(s.max);
  e.key("sum");
  e.text(s.sum);
  e.key("sum_sq");
  e.text(s.sum_sq);
  e.key_on_line("buckets", buckets_line);
  e.open_array(s.buckets.size(), {.wrap = Layout::kByItems, .cont = buckets_cont});
  for (const auto& [lo, n] : s.buckets) {
    e.open_array(2);
    e.integer(lo);
    e.integer(static_cast<int64_t>(n));
    e.close();
  }
  e.close();
  e.close();
}

template <class E>
void walk_action(E& e, const Action& a) {
  switch (a.kind) {
    case ActionKind::kBlock:
    case ActionKind::kExit:
    case ActionKind::kExec:
      e.kind(a.kind);
      return;
    case ActionKind::kRun:
    case ActionKind::kSleep:
    case ActionKind::kFork:
      e.open_array(a.flags == kRunSyscall && a.kind == ActionKind::kRun ? 3 : 2);
      e.kind(a.kind);
      e.integer(a.arg);
      if (a.flags == kRunSyscall && a.kind == ActionKind::kRun) e.text("syscall");
      e.close();
      return;
    case ActionKind::kWake:
      e.open_array(a.flags ? 3 : 2);
      e.kind(a.kind);
      e.integer(a.arg);
      if (a.flags == kWakeSync)
        e.text("sync");
      else if (a.flags)
        e.integer(a.flags);
      e.close();
      return;
    case ActionKind::kLoop:
      e.open_array(3);
      e.kind(a.kind);
      e.integer(a.body);
      e.integer(a.arg);
      e.close();
      return;
    case ActionKind::kWrite:
    case ActionKind::kRead:
      e.open_array((a.flags & kChanSocket) ? 4 : 3);
      e.kind(a.kind);
      e.integer(a.arg);
      e.integer(a.body);
      if (a.flags & kChanSocket) e.text("socket");
      e.close();
      return;
  }
  SCHEDSIM_UNREACHABLE("action kind");
}

template <class E>
void walk_workload(E& e, const Workload& w, OutFile& out) {
  e.open_map(w.observed.present ? 6 : 5, {.indent = "  ", .close_indent = ""});
  e.key("schedsim_workload");
  e.integer(kFormatVersion);
  e.key("name");
  e.text(w.name);
  e.key("source");
  e.text(w.source);
  e.key("meta");
  e.open_map(w.meta.size(), {.indent = "    ", .close_indent = "  "});
  for (const auto& [k, v] : w.meta) {
    e.key(k);
    e.text(v);
  }
  e.close();
  if (w.observed.present) {
    const ObservedStats& s = w.observed;
    e.key("observed");
    e.open_map(s.wakeup_latency_inferred > 0 ? 9 : 8, {.indent = "    ", .close_indent = "  "});
    e.key("wakeups");
    e.integer(static_cast<int64_t>(s.wakeups));
    e.key_inline("migrations");
    e.integer(static_cast<int64_t>(s.migrations));
    e.key_inline("context_switches");
    e.integer(static_cast<int64_t>(s.context_switches));
    e.key("span");
    e.integer(s.span.count());
    e.key_inline("total_runtime");
    e.integer(s.total_runtime.count());
    e.key_inline("nr_cpus");
    e.integer(s.nr_cpus);
    e.key("wakeup_latency");
    walk_histogram(e, s.wakeup_latency, "      ", "      ", "        ");
    if (s.wakeup_latency_inferred > 0) {
      e.key("wakeup_latency_inferred");
      e.integer(static_cast<int64_t>(s.wakeup_latency_inferred));
    }
    e.key("runqueue_wait");
    walk_histogram(e, s.runqueue_wait, "      ", "      ", "        ");
    e.close();
  }
  e.key("tasks");
  e.open_array(w.tasks.size(), {.indent = "    ", .close_indent = "  "});
  for (const TaskSpec& t : w.tasks) {
    int keys = 3 + (t.pid != -1) + (t.tgid != -1) + (t.nice != 0) + (!t.affinity.empty()) + t.kthread +
               (t.start_time.ns() != 0) + (t.initial_cpu != -1) + (t.slice.count() != 0) + t.background;
    e.open_map(static_cast<size_t>(keys));
    e.key("name");
    e.text(t.name);
    if (t.pid != -1) { e.key("pid"); e.integer(t.pid); }
    if (t.tgid != -1) { e.key("tgid"); e.integer(t.tgid); }
    if (t.nice != 0) { e.key("nice"); e.integer(t.nice); }
    if (!t.affinity.empty()) { e.key("affinity"); e.text(t.affinity.to_cpulist()); }
    if (t.kthread) { e.key("kthread"); e.boolean(true); }
    e.key("start");
    e.text(kStartNames[static_cast<size_t>(t.start)]);
    if (t.start_time.ns() != 0) { e.key("start_time"); e.integer(t.start_time.ns()); }
    if (t.initial_cpu != -1) { e.key("initial_cpu"); e.integer(t.initial_cpu); }
    if (t.slice.count() != 0) { e.key("slice"); e.integer(t.slice.count()); }
    if (t.background) { e.key("background"); e.boolean(true); }
    e.key_on_line("program", "     ");
    e.open_array(t.program.size(), {.wrap = Layout::kByColumn, .cont = "      "});
    for (const Action& a : t.program) {
      walk_action(e, a);
      out.maybe_flush();
    }
    e.close();
    e.close();
  }
  e.close();
  e.close();
}

// --- JSON text --------------------------------------------------------------------------------

class JsonEmitter {
 public:
  explicit JsonEmitter(std::string& o) : o_(o) {}
  void open_map(size_t, Layout l = {}) { open('}', l); }
  void open_array(size_t, Layout l = {}) { open(']', l); }
  void close() {
    Frame f = stack_.back();
    stack_.pop_back();
    if (!f.first && f.layout.close_indent) {
      o_ += '\n';
      o_ += f.layout.close_indent;
    }
    o_ += f.closer;
    end_value();
  }
  void key(std::string_view k) { put_key(k, stack_.back().layout.indent); }
  void key_inline(std::string_view k) { put_key(k, nullptr); }
  void key_on_line(std::string_view k, const char* indent) { put_key(k, indent); }
  void integer(int64_t v) {
    begin_value();
    fmt::format_to(std::back_inserter(o_), "{}", v);
    end_value();
  }
  void text(std::string_view s) {
    begin_value();
    o_ += json_string(std::string(s));
    end_value();
  }
  void boolean(bool b) {
    begin_value();
    o_ += b ? "true" : "false";
    end_value();
  }
  void kind(ActionKind k) {
    begin_value();
    fmt::format_to(std::back_inserter(o_), "\"{}\"", kind_name(k));
    end_value();
  }

 private:
  struct Frame {
    char closer;
    Layout layout;
    bool first = true;
    size_t item_start = 0;  ///< kByItems: where the current item's text begins
    size_t col = 0;         ///< kByItems: the list's column count
  };
  void open(char closer, const Layout& l) {
    begin_value();
    o_ += closer == '}' ? '{' : '[';
    stack_.push_back({closer, l});
  }
  // The separator before an item: a comma after the first, then a new line at `line` or a space.
  void separate(Frame& f, const char* line) {
    if (!f.first) o_ += ',';
    if (line) {
      o_ += '\n';
      o_ += line;
    } else if (!f.first) {
      o_ += ' ';
    }
    f.first = false;
  }
  void put_key(std::string_view k, const char* line) {
    separate(stack_.back(), line);
    o_ += json_string(std::string(k));
    o_ += ": ";
    after_key_ = true;
  }
  void begin_value() {
    if (after_key_) {  // a map's value follows its key
      after_key_ = false;
      return;
    }
    if (stack_.empty()) return;
    Frame& f = stack_.back();
    switch (f.layout.wrap) {
      case Layout::kByItems:
        f.item_start = o_.size();  // the separator goes in once the item's width is known
        return;
      case Layout::kByColumn:
        if (!f.first) {
          size_t nl = o_.rfind('\n');
          size_t col = nl == std::string::npos ? o_.size() : o_.size() - nl - 1;
          o_ += ',';
          if (col > 80) {
            o_ += '\n';
            o_ += f.layout.cont;
          } else {
            o_ += ' ';
          }
        }
        f.first = false;
        return;
      case Layout::kNone:
        separate(f, f.layout.indent);
        return;
    }
  }
  void end_value() {
    if (stack_.empty()) return;
    Frame& f = stack_.back();
    if (f.layout.wrap != Layout::kByItems) return;
    size_t width = o_.size() - f.item_start;
    if (!f.first) {
      bool wrap = f.col + width > 80;
      o_.insert(f.item_start, wrap ? std::string(",\n") + f.layout.cont : std::string(", "));
      if (wrap) f.col = 0;
    }
    f.col += width + 2;
    f.first = false;
  }

  std::string& o_;
  std::vector<Frame> stack_;
  bool after_key_ = false;
};

// --- CBOR -------------------------------------------------------------------------------------

class CborEmitter {
 public:
  explicit CborEmitter(std::string& o) : o_(o) {}
  void open_map(size_t n, Layout = {}) { head(5, n); }
  void open_array(size_t n, Layout = {}) { head(4, n); }
  void close() {}
  void key(std::string_view k) { text(k); }
  void key_inline(std::string_view k) { text(k); }
  void key_on_line(std::string_view k, const char*) { text(k); }
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
  /// Actions use the numeric kind code (the ActionKind value) to stay compact: a zero-argument
  /// action is one byte, ["run", 1500] four.
  void kind(ActionKind k) { integer(static_cast<int64_t>(k)); }

 private:
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
  std::string& o_;
};

}  // namespace

void write_workload(const Workload& w, const std::string& path, WorkloadFormat fmt) {
  OutFile out(path);
  if (fmt == WorkloadFormat::kJson) {
    JsonEmitter e(out.buf());
    walk_workload(e, w, out);
    out.buf() += '\n';
  } else {
    out.buf().append(reinterpret_cast<const char*>(kCborMagic), sizeof kCborMagic);
    CborEmitter e(out.buf());
    walk_workload(e, w, out);
    out.append_trailer();
  }
  out.commit();
  size_t actions = 0;
  for (const auto& t : w.tasks) actions += t.program.size();
  log::get("workload")->info("wrote {} ({} tasks, {} actions, {})", path, w.tasks.size(), actions,
                             fmt == WorkloadFormat::kJson ? "JSON" : "CBOR");
}

}  // namespace schedsim
