// The native workload format's reader (docs/workload-format.md): a nlohmann::json SAX handler
// that builds tasks and actions directly from JSON or CBOR, so a 10-million-action workload never
// exists as a DOM. Errors name the file and line (JSON) or byte offset (CBOR).
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
#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include "schedsim/base/assert.hpp"
#include "schedsim/base/atomic_file.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/gzip.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/workload/workload.hpp"
#include "workload_format.hpp"

namespace schedsim {

namespace {

using namespace workload_format;

// ---------------------------------------------------------------------------------------------
// Reading.

/// A read-only streambuf over a FILE* that knows how many bytes it has handed out, so the SAX
/// handler can say where a problem is.
class CountingBuf : public std::streambuf {
 public:
  explicit CountingBuf(std::FILE* f) : f_(f) {}
  int64_t offset() const { return base_ + (gptr() - eback()); }
  /// Hands out at most `n` bytes from the start of the file (the CBOR trailer stays unread).
  void limit(int64_t n) { limit_ = n; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    base_ += egptr() - eback();
    const auto want = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(sizeof buf_), limit_ - base_));
    size_t n = want == 0 ? 0 : std::fread(buf_, 1, want, f_);
    if (n == 0) return traits_type::eof();
    setg(buf_, buf_, buf_ + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::FILE* f_;
  int64_t base_ = 0;
  int64_t limit_ = INT64_MAX;
  char buf_[1 << 16];
};

/// Thrown inside the SAX handler; turned into an InputError with a location by read_workload.
struct ReadError {
  std::string message;
  int64_t offset;
};

// What the handler is looking at, one per open object/array.
enum class Ctx : uint8_t {
  kRoot,
  kMeta,
  kObserved,
  kHist,
  kHistSamples,
  kHistBuckets,
  kHistBucket,
  kTasks,
  kTask,
  kProgram,
  kAction,
};

struct Frame {
  Ctx ctx = Ctx::kRoot;
  bool is_array = false;
  uint64_t count = 0;  // elements (array) or keys (object) started so far
  std::string key;     // current key (objects)
  // Every key of this object so far (objects; a repeat is refused). A hash set: "meta" takes any
  // key, and a linear search made a meta object of n keys cost n^2/2 string compares.
  std::unordered_set<std::string> keys;
  // kProgram: where a nested ["repeat", n, [...]] body starts in the task's program.
  size_t body_start = 0;
  // kAction: the action under construction.
  ActionKind kind = ActionKind::kExit;
  bool is_repeat = false;
  bool has_kind = false;
  int64_t args[2] = {0, 0};
  uint8_t nargs = 0;
  uint8_t flags = 0;
  std::string name_ref;  // a task referred to by name
  // kHist: which histogram; kHistBucket: the pair.
  Histogram::State* hist = nullptr;
  Histogram* hist_target = nullptr;
  bool hist_has_count = false;
};

struct NameRef {
  size_t task, action;
  std::string name;
  int64_t offset;
  std::string path;
};

class Reader : public nlohmann::json_sax<nlohmann::json> {
 public:
  Reader(Workload& w, const CountingBuf& buf, bool is_cbor) : w_(w), buf_(buf), is_cbor_(is_cbor) {
    frames_.reserve(16);
  }

  // SAX interface --------------------------------------------------------------------------
  bool null() override { return scalar(Value{Value::kNull}); }
  bool boolean(bool v) override { return scalar(Value{Value::kBool, v ? 1 : 0}); }
  bool number_integer(number_integer_t v) override { return scalar(Value{Value::kInt, v}); }
  bool number_unsigned(number_unsigned_t v) override {
    if (v > static_cast<uint64_t>(INT64_MAX)) {
      Value huge{Value::kInt, INT64_MAX};
      huge.huge = v;  // refused by as_int() once the path names the value
      return scalar(huge);
    }
    return scalar(Value{Value::kInt, static_cast<int64_t>(v)});
  }
  bool number_float(number_float_t, const string_t&) override { return scalar(Value{Value::kFloat}); }
  bool string(string_t& v) override {
    Value val{Value::kString};
    val.str = &v;
    return scalar(val);
  }
  bool binary(binary_t&) override { return scalar(Value{Value::kBinary}); }
  bool key(string_t& k) override {
    Frame& f = frames_.back();
    ++f.count;
    f.key = k;
    check_key(f);
    // JSON leaves a repeated key's meaning open (the DOM keeps the last; this reader appended a
    // second "tasks" or "program" to the first): refused, as every input's keys are.
    if (!f.keys.insert(k).second) fail(fmt::format("key '{}' appears twice in one object; keep one", k));
    return true;
  }
  bool start_object(std::size_t) override {
    check_depth();
    Ctx c = child_ctx(true);
    frames_.push_back(Frame{});
    frames_.back().ctx = c;
    Frame& f = frames_.back();
    if (c == Ctx::kTask) {
      w_.tasks.emplace_back();
      w_.tasks.back().name = fmt::format("task{}", w_.tasks.size() - 1);
    }
    if (c == Ctx::kHist) {
      Frame& parent = frames_[frames_.size() - 2];
      f.hist = &hist_state_;
      hist_state_ = Histogram::State{};
      f.hist_target = parent.key == "wakeup_latency" ? &w_.observed.wakeup_latency : &w_.observed.runqueue_wait;
    }
    return true;
  }
  bool end_object() override {
    Frame& f = frames_.back();
    if (f.ctx == Ctx::kHist) finish_histogram(f);
    if (f.ctx == Ctx::kRoot && !has_version_)
      throw ReadError{"not a schedsim workload: the top-level object has no \"schedsim_workload\": 1", buf_.offset()};
    frames_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    check_depth();
    Ctx c = child_ctx(false);
    frames_.push_back(Frame{});
    frames_.back().ctx = c;
    frames_.back().is_array = true;
    Frame& f = frames_.back();
    if (c == Ctx::kProgram && frames_.size() >= 2 && frames_[frames_.size() - 2].ctx == Ctx::kAction)
      f.body_start = program().size();
    return true;
  }
  bool end_array() override {
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    if (f.ctx == Ctx::kAction) finish_action(f);
    if (f.ctx == Ctx::kHistBucket) {
      if (f.nargs != 2) fail("a bucket is [low, count]");
      hist_state_.buckets.emplace_back(f.args[0], static_cast<uint64_t>(f.args[1]));
    }
    if (f.ctx == Ctx::kProgram && !frames_.empty() && frames_.back().ctx == Ctx::kAction) {
      frames_.back().args[1] = static_cast<int64_t>(f.body_start);
      frames_.back().nargs = 2;
    }
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    std::string msg = ex.what();
    size_t p = msg.find("parse error");
    if (p != std::string::npos) {
      size_t q = msg.find(": ", p);
      if (q != std::string::npos) msg = msg.substr(q + 2);
    }
    throw ReadError{msg, static_cast<int64_t>(position)};
  }

  void finish() {
    if (!has_version_) fail("not a schedsim workload: no \"schedsim_workload\" version key");
    std::unordered_map<std::string, int64_t> by_name;
    for (size_t i = 0; i < w_.tasks.size(); ++i) {
      auto [it, inserted] = by_name.emplace(w_.tasks[i].name, static_cast<int64_t>(i));
      if (!inserted) it->second = -1;  // ambiguous
    }
    for (const NameRef& r : refs_) {
      auto it = by_name.find(r.name);
      if (it == by_name.end())
        throw ReadError{fmt::format("{}: no task is named '{}'", r.path, r.name), r.offset};
      if (it->second < 0)
        throw ReadError{fmt::format("{}: several tasks are named '{}'; refer to it by index", r.path, r.name),
                        r.offset};
      w_.tasks[r.task].program[r.action].arg = it->second;
    }
  }

  std::string path() const {
    std::string p;
    for (const Frame& f : frames_) {
      if (f.is_array)
        p += fmt::format("/{}", f.count ? f.count - 1 : 0);
      else if (f.count)
        p += "/" + f.key;
    }
    return p.empty() ? "/" : p;
  }

 private:
  struct Value {
    enum Type { kNull, kBool, kInt, kFloat, kString, kBinary } type;
    int64_t i = 0;
    std::string* str = nullptr;
    uint64_t huge = 0;  // an unsigned value past INT64_MAX
  };

  [[noreturn]] void fail(const std::string& msg) const { throw ReadError{path() + ": " + msg, buf_.offset()}; }
  void check_depth() const {
    if (frames_.size() >= kMaxNesting)
      fail(fmt::format("nested deeper than {} levels (at most {} nested repeats)", kMaxNesting, kMaxLoopDepth));
  }

  static const char* type_name(const Value& v) {
    switch (v.type) {
      case Value::kNull: return "null";
      case Value::kBool: return "a boolean";
      case Value::kInt: return "an integer";
      case Value::kFloat: return "a fractional number";
      case Value::kString: return "a string";
      case Value::kBinary: return "binary data";
    }
    return "?";
  }
  [[noreturn]] void expected(const char* what, const Value& v) const {
    fail(fmt::format("expected {}, got {}", what, type_name(v)));
  }
  [[noreturn]] void expected_container(const char* what, bool object) const {
    fail(fmt::format("expected {}, got {}", what, object ? "an object" : "an array"));
  }

  std::vector<Action>& program() { return w_.tasks.back().program; }

  // Keys each object accepts (for "did you mean").
  static const std::vector<std::string>& keys_for(Ctx c) {
    static const std::vector<std::string> root = {"schedsim_workload", "name", "source", "meta", "observed", "tasks"};
    static const std::vector<std::string> observed = {"wakeups",       "migrations", "context_switches",
                                                      "span",          "total_runtime", "nr_cpus",
                                                      "wakeup_latency", "runqueue_wait", "wakeup_latency_inferred"};
    static const std::vector<std::string> hist = {"count", "min", "max", "sum", "sum_sq", "samples", "buckets"};
    static const std::vector<std::string> task = {"name",       "pid",        "tgid",        "nice",   "affinity",
                                                  "kthread",    "start",      "start_time",  "initial_cpu",
                                                  "slice",      "background", "program"};
    static const std::vector<std::string> none;
    switch (c) {
      case Ctx::kRoot: return root;
      case Ctx::kObserved: return observed;
      case Ctx::kHist: return hist;
      case Ctx::kTask: return task;
      default: return none;
    }
  }

  void check_key(const Frame& f) const {
    if (f.ctx == Ctx::kMeta) return;
    const auto& valid = keys_for(f.ctx);
    for (const auto& k : valid)
      if (k == f.key) return;
    const char* what = f.ctx == Ctx::kRoot ? "top-level key" : f.ctx == Ctx::kTask ? "task key"
                       : f.ctx == Ctx::kHist ? "histogram key" : "observed key";
    fail(unknown_choice_message(what, f.key, valid));
  }

  // The context of an object/array that starts now, from its parent.
  Ctx child_ctx(bool object) {
    if (frames_.empty()) {
      if (!object) fail("expected the top-level object, got an array");
      return Ctx::kRoot;
    }
    Frame& p = frames_.back();
    if (p.is_array) ++p.count;
    switch (p.ctx) {
      case Ctx::kRoot:
        if (p.key == "meta" && object) return Ctx::kMeta;
        if (p.key == "observed" && object) return Ctx::kObserved;
        if (p.key == "tasks" && !object) return Ctx::kTasks;
        if (p.key == "meta" || p.key == "observed") expected_container("an object", object);
        if (p.key == "tasks") expected_container("an array of task objects", object);
        expected_container(p.key == "schedsim_workload" ? "an integer" : "a string", object);
      case Ctx::kMeta:
        expected_container("a string", object);
      case Ctx::kObserved:
        if ((p.key == "wakeup_latency" || p.key == "runqueue_wait") && object) return Ctx::kHist;
        expected_container(p.key == "wakeup_latency" || p.key == "runqueue_wait" ? "a histogram object" : "an integer",
                           object);
      case Ctx::kHist:
        if (p.key == "samples" && !object) return Ctx::kHistSamples;
        if (p.key == "buckets" && !object) return Ctx::kHistBuckets;
        expected_container(p.key == "samples" ? "an array of integers"
                           : p.key == "buckets" ? "an array of [low, count] pairs"
                                                : "a number",
                           object);
      case Ctx::kHistSamples:
        expected_container("an integer", object);
      case Ctx::kHistBuckets:
        if (!object) return Ctx::kHistBucket;
        expected_container("a [low, count] pair", object);
      case Ctx::kHistBucket:
        expected_container("an integer", object);
      case Ctx::kTasks:
        if (object) return Ctx::kTask;
        expected_container("a task object", object);
      case Ctx::kTask:
        if (p.key == "program" && !object) return Ctx::kProgram;
        expected_container(p.key == "program" ? "an array of actions" : "a scalar value", object);
      case Ctx::kProgram:
        if (!object) return Ctx::kAction;
        expected_container("an action: [\"run\", 1000], \"block\", ...", object);
      case Ctx::kAction:
        if (!object && p.is_repeat && p.count == 3) return Ctx::kProgram;
        expected_container(p.count == 1 ? "an action name" : "an integer or a string", object);
    }
    SCHEDSIM_UNREACHABLE("context");
  }

  int64_t as_int(const Value& v, const char* what) const {
    if (v.type != Value::kInt) expected(what, v);
    if (v.huge) fail(fmt::format("integer {} out of range (at most {})", v.huge, INT64_MAX));
    return v.i;
  }
  int64_t as_nonneg(const Value& v, const char* what) const {
    int64_t x = as_int(v, what);
    if (x < 0) fail(fmt::format("expected {}, got {}", what, x));
    return x;
  }
  std::string as_string(const Value& v, const char* what) const {
    if (v.type != Value::kString) expected(what, v);
    return *v.str;
  }
  // A duration: integer nanoseconds or a string with a unit ("10us", "1.5ms"), at most
  // kMaxTimeValue so that sums over the workload stay far from int64's limit.
  int64_t as_duration(const Value& v) const {
    return as_duration(v, kMaxTimeValue, "(about 11.6 days) for one time value");
  }
  // The same with another bound: `limit` ns, which `what` explains in the error.
  int64_t as_duration(const Value& v, int64_t limit, const char* what) const {
    int64_t ns = 0;
    if (v.type == Value::kInt) {
      ns = as_int(v, "a duration");
      if (ns < 0) fail(fmt::format("negative duration {}", ns));
    } else if (v.type == Value::kString) {
      Duration d;
      if (!parse_duration(*v.str, d))
        fail(fmt::format("bad duration '{}': expected nanoseconds or a number with ns, us, ms or s", *v.str));
      ns = d.count();
    } else {
      expected("a duration (integer ns, or a string like \"10us\")", v);
    }
    if (ns > limit) fail(fmt::format("duration {} ns exceeds the limit of {} ns {}", ns, limit, what));
    return ns;
  }
  // A latency in a histogram: non-negative, at most kMaxTimeValue.
  int64_t as_time(const Value& v) const {
    int64_t x = as_nonneg(v, "a non-negative integer");
    if (x > kMaxTimeValue)
      fail(fmt::format("{} ns exceeds the limit of {} ns (about 11.6 days) for one time value", x, kMaxTimeValue));
    return x;
  }
  int64_t as_pid(const Value& v) const {
    int64_t x = as_int(v, "an integer");
    if (x < -1 || x > kMaxWorkloadPid)
      fail(fmt::format("{} out of range: expected -1 (none) or 0..{}", x, kMaxWorkloadPid));
    return x;
  }

  bool scalar(const Value& v) {
    if (frames_.empty()) fail("expected the top-level object");
    Frame& f = frames_.back();
    if (f.is_array) ++f.count;
    switch (f.ctx) {
      case Ctx::kRoot: root_value(f, v); break;
      case Ctx::kMeta: w_.meta[f.key] = as_string(v, "a string"); break;
      case Ctx::kObserved: observed_value(f, v); break;
      case Ctx::kHist: hist_value(f, v); break;
      case Ctx::kHistSamples: hist_state_.samples.push_back(as_time(v)); break;
      case Ctx::kHistBuckets: expected("a [low, count] pair", v);
      case Ctx::kHistBucket:
        if (f.nargs >= 2) fail("a bucket is [low, count]");
        f.args[f.nargs] = f.nargs == 0 ? as_time(v) : as_nonneg(v, "a non-negative integer");
        ++f.nargs;
        break;
      case Ctx::kTasks: expected("a task object", v);
      case Ctx::kTask: task_value(f, v); break;
      case Ctx::kProgram: bare_action(v); break;
      case Ctx::kAction: action_value(f, v); break;
    }
    return true;
  }

  void root_value(Frame& f, const Value& v) {
    if (f.key == "schedsim_workload") {
      int64_t ver = as_int(v, "the format version (an integer)");
      if (ver != kFormatVersion)
        fail(fmt::format("format version {} is not supported; this schedsim reads version {}", ver, kFormatVersion));
      has_version_ = true;
    } else if (f.key == "name") {
      w_.name = as_string(v, "a string");
    } else if (f.key == "source") {
      w_.source = as_string(v, "a string");
    } else if (f.key == "meta" || f.key == "observed") {
      expected("an object", v);
    } else {
      expected("an array of task objects", v);
    }
  }

  void observed_value(Frame& f, const Value& v) {
    ObservedStats& s = w_.observed;
    s.present = true;
    if (f.key == "wakeups") s.wakeups = static_cast<uint64_t>(as_nonneg(v, "a non-negative integer"));
    else if (f.key == "migrations") s.migrations = static_cast<uint64_t>(as_nonneg(v, "a non-negative integer"));
    else if (f.key == "context_switches") s.context_switches = static_cast<uint64_t>(as_nonneg(v, "a non-negative integer"));
    else if (f.key == "span") s.span = Duration::ns(as_duration(v));
    // On-CPU time summed over every task (and so over CPUs: a trace of N busy CPUs holds about
    // N x span): a whole-workload total like the sum of runs, which validate_workload() bounds
    // by kMaxWorkloadTime, not one time value.
    else if (f.key == "total_runtime")
      s.total_runtime =
          Duration::ns(as_duration(v, kMaxWorkloadTime, "(about 3.2 years) for the on-CPU time of a whole workload"));
    else if (f.key == "wakeup_latency_inferred")
      s.wakeup_latency_inferred = static_cast<uint64_t>(as_nonneg(v, "a non-negative integer"));
    else if (f.key == "nr_cpus") {
      int64_t n = as_nonneg(v, "a non-negative integer");
      if (n > static_cast<int64_t>(CpuMask::kMaxCpus))
        fail(fmt::format("nr_cpus {} out of range: at most {}", n, CpuMask::kMaxCpus));
      s.nr_cpus = static_cast<uint32_t>(n);
    } else {
      expected("a histogram object", v);
    }
  }

  void hist_value(Frame& f, const Value& v) {
    Histogram::State& h = hist_state_;
    if (f.key == "count") {
      h.count = static_cast<uint64_t>(as_nonneg(v, "a non-negative integer"));
      f.hist_has_count = true;
    } else if (f.key == "min") {
      h.min = as_time(v);
    } else if (f.key == "max") {
      h.max = as_time(v);
    } else if (f.key == "sum") {
      h.sum = v.type == Value::kInt ? (v.huge ? std::to_string(v.huge) : std::to_string(v.i)) : as_string(v, "an integer or a decimal string");
    } else if (f.key == "sum_sq") {
      h.sum_sq = as_string(v, "a decimal string");
    } else {
      expected(f.key == "samples" ? "an array of integers" : "an array of [low, count] pairs", v);
    }
  }

  void finish_histogram(Frame& f) {
    if (hist_state_.samples.empty() && hist_state_.buckets.empty()) {
      if (hist_state_.count != 0) fail("a histogram with a count needs samples or buckets");
      *f.hist_target = Histogram{};
      w_.observed.present = true;
      return;
    }
    if (!hist_state_.samples.empty() && f.hist_has_count && hist_state_.count != hist_state_.samples.size())
      fail(fmt::format("count {} does not match the {} samples listed", hist_state_.count,
                       hist_state_.samples.size()));
    std::string err;
    if (!Histogram::from_state(hist_state_, f.hist_target, &err)) fail(err);
    w_.observed.present = true;
  }

  void task_value(Frame& f, const Value& v) {
    TaskSpec& t = w_.tasks.back();
    if (f.key == "name") {
      t.name = as_string(v, "a string");
    } else if (f.key == "pid") {
      t.pid = as_pid(v);
    } else if (f.key == "tgid") {
      t.tgid = as_pid(v);
    } else if (f.key == "nice") {
      int64_t n = as_int(v, "an integer");
      if (n < -20 || n > 19) fail(fmt::format("nice {} outside -20..19", n));
      t.nice = static_cast<int32_t>(n);
    } else if (f.key == "affinity") {
      std::string s = as_string(v, "a CPU list like \"0-3,8\"");
      std::string err;
      auto m = CpuMask::parse_cpulist(s, &err);
      if (!m) fail(fmt::format("bad CPU list '{}': {}", s, err));
      t.affinity = *m;
    } else if (f.key == "kthread") {
      if (v.type != Value::kBool) expected("true or false", v);
      t.kthread = v.i != 0;
    } else if (f.key == "background") {
      if (v.type != Value::kBool) expected("true or false", v);
      t.background = v.i != 0;
    } else if (f.key == "start") {
      std::string s = as_string(v, "a start state");
      for (size_t i = 0; i < std::size(kStartNames); ++i)
        if (s == kStartNames[i]) {
          t.start = static_cast<StartState>(i);
          return;
        }
      fail(unknown_choice_message("start state", s, {std::begin(kStartNames), std::end(kStartNames)}));
    } else if (f.key == "start_time") {
      t.start_time = Instant::from_ns(as_duration(v));
    } else if (f.key == "initial_cpu") {
      int64_t c = as_int(v, "an integer");
      if (c < -1 || c >= static_cast<int64_t>(CpuMask::kMaxCpus))
        fail(fmt::format("initial_cpu {} out of range: expected -1 (none) or 0..{}", c, CpuMask::kMaxCpus - 1));
      t.initial_cpu = static_cast<int32_t>(c);
    } else if (f.key == "slice") {
      const Duration d = Duration::ns(as_duration(v));
      if (d < kMinSlice || d > kMaxSlice)
        fail(fmt::format("slice {} outside {}..{} (the range sched_setattr() allows a custom slice; leave "
                         "\"slice\" out for the base slice)",
                         format_duration(d), format_duration(kMinSlice), format_duration(kMaxSlice)));
      t.slice = d;
    } else {
      expected("an array of actions", v);
    }
  }

  ActionKind parse_kind(const Value& v, bool* is_repeat) {
    *is_repeat = false;
    if (v.type == Value::kInt) {
      if (v.i < 0 || v.i > static_cast<int64_t>(ActionKind::kRead))
        fail(fmt::format("unknown action code {} (0..{})", v.i, static_cast<int>(ActionKind::kRead)));
      return static_cast<ActionKind>(v.i);
    }
    if (v.type != Value::kString) expected("an action name", v);
    if (auto k = kind_from_name(*v.str)) return *k;
    if (*v.str == "repeat") {
      *is_repeat = true;
      return ActionKind::kLoop;
    }
    fail(unknown_choice_message("action", *v.str, kind_names()));
  }

  void bare_action(const Value& v) {
    bool rep = false;
    ActionKind k = parse_kind(v, &rep);
    if (rep || (k != ActionKind::kBlock && k != ActionKind::kExit && k != ActionKind::kExec))
      fail(fmt::format("action '{}' needs arguments: write it as a list, e.g. {}", rep ? "repeat" : kind_name(k),
                       rep ? "[\"repeat\", 10, [...]]" : "[\"run\", \"10us\"]"));
    program().push_back(Action{k, 0, 0, 0, 0});
  }

  void action_value(Frame& f, const Value& v) {
    if (f.count == 1) {
      f.kind = parse_kind(v, &f.is_repeat);
      f.has_kind = true;
      return;
    }
    size_t argi = f.count - 2;  // 0-based argument index
    switch (f.kind) {
      case ActionKind::kRun:
      case ActionKind::kSleep:
        if (argi == 1 && f.kind == ActionKind::kRun) {
          if (v.type != Value::kString || *v.str != "syscall")
            fail(unknown_choice_message("run flag", v.type == Value::kString ? *v.str : std::string("(a number)"),
                                        {"syscall"}));
          f.flags = kRunSyscall;
          break;
        }
        if (argi > 0) too_many(f);
        f.args[0] = as_duration(v);
        break;
      case ActionKind::kWake:
      case ActionKind::kFork:
        if (argi == 0) {
          if (v.type == Value::kString) {
            f.name_ref = *v.str;
          } else {
            f.args[0] = as_nonneg(v, "a task index or a task name");
          }
        } else if (argi == 1 && f.kind == ActionKind::kWake) {
          if (v.type == Value::kString) {
            if (*v.str != "sync") fail(unknown_choice_message("wake flag", *v.str, {"sync"}));
            f.flags = kWakeSync;
          } else {
            int64_t fl = as_nonneg(v, "a wake flag (\"sync\")");
            if (fl > 255) fail("wake flags out of range");
            f.flags = static_cast<uint8_t>(fl);
          }
        } else {
          too_many(f);
        }
        break;
      case ActionKind::kBlock:
      case ActionKind::kExit:
      case ActionKind::kExec:
        too_many(f);
      case ActionKind::kWrite:
      case ActionKind::kRead:
        if (argi == 0) {
          f.args[0] = as_nonneg(v, "a channel number");
        } else if (argi == 1) {
          f.args[1] = as_nonneg(v, "a byte count");
          if (f.args[1] == 0 || f.args[1] > UINT32_MAX) fail(fmt::format("byte count {} outside 1..{}", f.args[1], UINT32_MAX));
        } else if (argi == 2) {
          if (v.type != Value::kString || *v.str != "socket")
            fail(unknown_choice_message("channel kind", v.type == Value::kString ? *v.str : std::string("(a number)"),
                                        {"socket"}));
          f.flags = kChanSocket;
        } else {
          too_many(f);
        }
        break;
      case ActionKind::kLoop:
        if (argi > 1) too_many(f);
        if (f.is_repeat && argi == 1) fail("expected the list of actions to repeat");
        f.args[argi] = as_nonneg(v, argi == 0 && !f.is_repeat ? "the loop body length" : "an iteration count");
        break;
    }
    f.nargs = static_cast<uint8_t>(argi + 1);
  }

  [[noreturn]] void too_many(const Frame& f) const {
    fail(fmt::format("too many arguments for '{}'", f.is_repeat ? "repeat" : kind_name(f.kind)));
  }

  void finish_action(Frame& f) {
    if (!f.has_kind) fail("empty action: expected [\"run\", 1000], [\"wake\", 1], \"block\", ...");
    std::vector<Action>& prog = program();
    const char* kn = f.is_repeat ? "repeat" : kind_name(f.kind);
    auto need = [&](uint8_t n, const char* usage) {
      if (f.nargs < n) fail(fmt::format("'{}' needs {}", kn, usage));
    };
    switch (f.kind) {
      case ActionKind::kRun:
      case ActionKind::kSleep:
        need(1, "a duration");
        prog.push_back(Action{f.kind, f.flags, 0, 0, f.args[0]});
        break;
      case ActionKind::kWake:
      case ActionKind::kFork:
        need(1, "a target task (index or name)");
        if (!f.name_ref.empty())
          refs_.push_back(NameRef{w_.tasks.size() - 1, prog.size(), f.name_ref, buf_.offset(), path()});
        prog.push_back(Action{f.kind, f.flags, 0, 0, f.args[0]});
        break;
      case ActionKind::kBlock:
      case ActionKind::kExit:
      case ActionKind::kExec:
        prog.push_back(Action{f.kind, 0, 0, 0, 0});
        break;
      case ActionKind::kWrite:
      case ActionKind::kRead:
        need(2, "a channel and a byte count: [\"write\", 0, 100]");
        prog.push_back(Action{f.kind, f.flags, 0, static_cast<uint32_t>(f.args[1]), f.args[0]});
        break;
      case ActionKind::kLoop:
        if (f.is_repeat) {
          need(2, "a count and a list of actions: [\"repeat\", 10, [...]]");
          close_repeat(f.args[0], static_cast<size_t>(f.args[1]));
        } else {
          need(2, "a body length and an extra-iteration count: [\"loop\", 2, 99]");
          if (f.args[0] == 0 || static_cast<uint64_t>(f.args[0]) > prog.size())
            fail(fmt::format("loop body of {} actions does not fit: only {} actions precede it", f.args[0],
                             prog.size()));
          prog.push_back(Action::loop(static_cast<uint32_t>(f.args[0]), f.args[1]));
        }
        break;
    }
  }

  // ["repeat", n, [body]]: the body was appended in place; turn it into a compact loop.
  void close_repeat(int64_t n, size_t start) {
    std::vector<Action>& prog = program();
    size_t body = prog.size() - start;
    if (n == 0) {
      prog.resize(start);
      size_t task = w_.tasks.size() - 1;
      while (!refs_.empty() && refs_.back().task == task && refs_.back().action >= start) refs_.pop_back();
      return;
    }
    if (body == 0 || n == 1) return;
    if (body > UINT32_MAX) fail("repeat body too long");
    prog.push_back(Action::loop(static_cast<uint32_t>(body), n - 1));
  }

  Workload& w_;
  const CountingBuf& buf_;
  [[maybe_unused]] bool is_cbor_;
  std::vector<Frame> frames_;
  std::vector<NameRef> refs_;
  Histogram::State hist_state_;
  bool has_version_ = false;
};

/// Line, column and text of the token that ends at or just before byte `offset` of a text file
/// (of `in_memory` when the workload was read from memory).
void locate(const std::string& path, const std::string_view* in_memory, int64_t offset, long* line, long* col,
            std::string* text) {
  std::FILE* f = in_memory ? nullptr : std::fopen(path.c_str(), "rb");
  if (!f && !in_memory) return;
  std::string data(in_memory ? *in_memory : std::string_view());
  char chunk[1 << 16];
  size_t n;
  // Memory stays bounded: past 32 MiB only the line number is found (streaming), and at most
  // 64 KiB of the offending line after the error are read.
  constexpr int64_t kWindow = int64_t{32} << 20;
  if (f && offset > kWindow) {
    long nl = 0;
    for (int64_t left = offset; left > 0 && (n = std::fread(chunk, 1, static_cast<size_t>(std::min<int64_t>(left, sizeof chunk)), f)) > 0;
         left -= static_cast<int64_t>(n))
      nl += static_cast<long>(std::count(chunk, chunk + n, '\n'));
    std::fclose(f);
    *line = nl + 1;
    return;
  }
  while (f && static_cast<int64_t>(data.size()) < offset + 1 && (n = std::fread(chunk, 1, sizeof chunk, f)) > 0)
    data.append(chunk, n);
  // Read the rest of the offending line too (up to 64 KiB of it).
  while (f && static_cast<int64_t>(data.size()) < offset + (int64_t{1} << 16)) {
    size_t nl = data.find('\n', static_cast<size_t>(std::max<int64_t>(0, offset)));
    if (nl != std::string::npos) break;
    n = std::fread(chunk, 1, sizeof chunk, f);
    if (n == 0) break;
    data.append(chunk, n);
  }
  if (f) std::fclose(f);
  auto is_ws = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  auto is_word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+';
  };
  int64_t q = std::min<int64_t>(offset, static_cast<int64_t>(data.size())) - 1;
  // The lexer reads one character past a number; step back over it.
  if (q > 0 && data[static_cast<size_t>(q)] != '"' && !is_word(data[static_cast<size_t>(q)]) &&
      is_word(data[static_cast<size_t>(q - 1)]))
    --q;
  while (q > 0 && (is_ws(data[static_cast<size_t>(q)]) || data[static_cast<size_t>(q)] == ',' ||
                   data[static_cast<size_t>(q)] == ':'))
    --q;
  if (q < 0) q = 0;
  int64_t start = q;
  if (!data.empty() && data[static_cast<size_t>(q)] == '"') {
    start = q - 1;
    while (start > 0 && !(data[static_cast<size_t>(start)] == '"' && data[static_cast<size_t>(start - 1)] != '\\'))
      --start;
  } else {
    while (start > 0 && is_word(data[static_cast<size_t>(start - 1)])) --start;
  }
  size_t ustart = static_cast<size_t>(std::max<int64_t>(0, start));
  size_t line_begin = data.rfind('\n', ustart == 0 ? 0 : ustart - 1);
  line_begin = (line_begin == std::string::npos || ustart == 0) ? 0 : line_begin + 1;
  if (ustart > 0 && data[ustart - 1] == '\n') line_begin = ustart;
  *line = 1 + static_cast<long>(std::count(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(line_begin), '\n'));
  *col = static_cast<long>(ustart - line_begin) + 1;
  size_t line_end = data.find('\n', line_begin);
  *text = data.substr(line_begin, line_end == std::string::npos ? std::string::npos : line_end - line_begin);
}

enum class Detected { kJson, kCbor, kCborTagged, kUnknown };

Detected detect(const unsigned char* p, size_t n) {
  if (n >= 3 && std::memcmp(p, kCborMagic, 3) == 0) return Detected::kCborTagged;
  if (n >= 1 && p[0] >= 0xa0 && p[0] <= 0xbf) return Detected::kCbor;
  size_t i = 0;
  if (n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) i = 3;  // UTF-8 BOM
  while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r')) ++i;
  if (i < n && (p[i] == '{' || p[i] == '/')) return Detected::kJson;  // '/': a leading comment
  return Detected::kUnknown;
}

// Checks the integrity trailer of a CBOR workload; returns how many bytes precede it (what the
// parser may read). A file without one (written before checksums existed, or cut short) is read
// with a warning: a cut file then fails in the parser with "unexpected end of input".
int64_t check_cbor_trailer(std::FILE* f, const std::string& path, bool& has) {
  if (fseeko(f, 0, SEEK_END) != 0) throw InputError(SourceLoc{path}, "cannot seek in the workload file");
  const int64_t size = ftello(f);
  unsigned char t[kTrailerSize] = {};
  has = false;
  if (size >= static_cast<int64_t>(kTrailerSize)) {
    fseeko(f, size - static_cast<int64_t>(kTrailerSize), SEEK_SET);
    has = std::fread(t, 1, kTrailerSize, f) == kTrailerSize && std::memcmp(t, kTrailerHead, 4) == 0;
  }
  std::rewind(f);
  if (!has) {
    log::get("workload")->warn("{}: no integrity trailer (a CBOR workload written before schedsim added "
                               "checksums, or a file cut short): read without an integrity check", path);
    return size;
  }
  if (t[4] != kTrailerHead[4])
    throw InputError(SourceLoc{path}, fmt::format("integrity trailer version {} is not supported; this schedsim "
                                                  "reads version {}", t[4], kTrailerHead[4]));
  uint32_t stored = 0;
  uint64_t len = 0;
  for (size_t i = 5; i < 9; ++i) stored = stored << 8 | t[i];
  for (size_t i = 9; i < 17; ++i) len = len << 8 | t[i];
  const auto payload = static_cast<uint64_t>(size) - kTrailerSize;
  if (len != payload)
    throw InputError(SourceLoc{path}, fmt::format("damaged file: its integrity trailer covers {} bytes but {} "
                                                  "precede it", len, payload));
  uLong crc = crc32_z(0, nullptr, 0);
  unsigned char chunk[1 << 16];
  for (uint64_t left = payload; left > 0;) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(left, sizeof chunk));
    if (std::fread(chunk, 1, want, f) != want) throw InputError(SourceLoc{path}, "cannot read the workload file");
    crc = crc32_z(crc, chunk, want);
    left -= want;
  }
  std::rewind(f);
  if (crc != stored)
    throw InputError(SourceLoc{path}, fmt::format("damaged file: CRC32 {:08x} of its {} bytes does not match "
                                                  "the {:08x} written with it; regenerate it",
                                                  crc, payload, stored));
  return static_cast<int64_t>(payload);
}


}  // namespace

namespace {
/// Reads a workload from `f` (closed here); `in_memory` is the same bytes when read from memory.
Workload read_workload_stream(std::FILE* f, const std::string& path, const std::string_view* in_memory) {
  struct Closer {
    std::FILE* f;
    ~Closer() { std::fclose(f); }
  } closer{f};
  unsigned char head[4] = {};
  size_t n = std::fread(head, 1, sizeof head, f);
  std::rewind(f);
  Detected kind = detect(head, n);
  if (kind == Detected::kUnknown)
    throw InputError(SourceLoc{path}, "not a schedsim workload: expected a JSON object or CBOR data");
  bool cbor = kind == Detected::kCbor || kind == Detected::kCborTagged;

  Workload w;
  CountingBuf buf(f);
  bool trailer = false;
  if (cbor) buf.limit(check_cbor_trailer(f, path, trailer));
  std::istream in(&buf);
  if (kind == Detected::kCborTagged)
    for (int i = 0; i < 3; ++i) buf.sbumpc();
  Reader reader(w, buf, cbor);
  try {
    // JSON may carry // and /* */ comments (hand-written workloads).
    nlohmann::json::sax_parse(in, &reader,
                              cbor ? nlohmann::json::input_format_t::cbor : nlohmann::json::input_format_t::json,
                              /*strict=*/true, /*ignore_comments=*/!cbor);
    reader.finish();
  } catch (const ReadError& e) {
    if (cbor)
      throw InputError(SourceLoc{path}, fmt::format("at byte {}: {}{}", e.offset, e.message,
                                                    trailer ? "" : " (the file has no integrity trailer: cut short?)"));
    SourceLoc loc{path};
    std::string text;
    locate(path, in_memory, e.offset, &loc.line, &loc.col, &text);
    throw InputError(loc, e.message, text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(SourceLoc{path}, e.what());
  }
  validate_workload(w, path);
  return w;
}
}  // namespace

namespace {
// A gzip-compressed workload (written as "*.gz"): its content, decompressed in memory.
std::optional<std::string> gunzipped_workload(std::FILE* f, const std::string& path) {
  unsigned char head[2] = {};
  const size_t n = std::fread(head, 1, sizeof head, f);
  std::rewind(f);
  if (!is_gzip(std::string_view(reinterpret_cast<const char*>(head), n))) return std::nullopt;
  std::string raw;
  char buf[1 << 16];
  while (size_t got = std::fread(buf, 1, sizeof buf, f)) {
    raw.append(buf, got);
    // Compressed data is never much larger than what it decompresses to, so past the limit
    // the decompressed content would be too.
    if (raw.size() > kMaxInMemoryInput) throw_input_too_large(path);
  }
  if (std::ferror(f)) throw InputError(SourceLoc{path}, fmt::format("cannot read workload: {}", std::strerror(errno)));
  return gunzip(raw, path, kMaxInMemoryInput);
}
}  // namespace

Workload read_workload(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(SourceLoc{path}, fmt::format("cannot open workload: {}", std::strerror(errno)));
  std::optional<std::string> plain;
  try {
    plain = gunzipped_workload(f, path);
  } catch (...) {
    std::fclose(f);
    throw;
  }
  if (plain) {
    std::fclose(f);
    return read_workload_buffer(*plain, path);
  }
  return read_workload_stream(f, path, nullptr);
}

Workload read_workload_buffer(std::string_view data, const std::string& name) {
  // fmemopen never writes through a "rb" stream, so the const_cast is safe.
  std::FILE* f = fmemopen(const_cast<char*>(data.empty() ? "" : data.data()), data.size(), "rb");
  if (!f) throw InputError(SourceLoc{name}, fmt::format("cannot open workload: {}", std::strerror(errno)));
  return read_workload_stream(f, name, &data);
}

bool looks_like_workload(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  unsigned char head[4096];
  size_t n = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  if (is_gzip(std::string_view(reinterpret_cast<const char*>(head), n))) {
    // The start of the decompressed content (gzread stops at the buffer's size).
    gzFile gz = gzopen(path.c_str(), "rb");
    if (!gz) return false;
    int got = gzread(gz, head, sizeof head);
    gzclose(gz);
    n = got > 0 ? static_cast<size_t>(got) : 0;
  }
  return looks_like_workload_buffer(std::string_view(reinterpret_cast<const char*>(head), n));
}

bool looks_like_workload_buffer(std::string_view data) {
  const auto* head = reinterpret_cast<const unsigned char*>(data.data());
  const size_t n = std::min<size_t>(data.size(), 4096);
  Detected kind = detect(head, n);
  if (kind == Detected::kUnknown) return false;
  std::string_view text(reinterpret_cast<const char*>(head), n);
  return text.find("schedsim_workload") != std::string_view::npos;
}

}  // namespace schedsim
