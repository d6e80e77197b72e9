// Line parser for the text trace formats. Grammar: ftrace's trace_print_context()
// (kernel/trace/trace_output.c), trace-cmd's trace_show_data() (tracecmd/trace-read.c) and perf
// script's perf_sample__fprintf_start() (tools/perf/builtin-script.c); docs/sources.md. Everything is anchored on "[cpu]" and validated to the event
// name, so a comm holding spaces, '-', ':' or even '[' cannot fool it.
#include "schedsim/traces/line_parser.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include "schedsim/base/int128.hpp"
#include "schedsim/topology/cpu_mask.hpp"
#include "syscall_lines.hpp"

namespace schedsim::traces {

static_assert(kMaxCpu + 1 == CpuMask::kMaxCpus, "trace CPU ids must fit a CpuMask");

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_flag_char(char c) {
  return c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c);
}

// Parses a non-negative decimal integer at `p`; returns the end or npos when there is none.
// A value too large for uint64 saturates at UINT64_MAX, so every range check catches it.
size_t parse_uint(std::string_view s, size_t p, uint64_t& out) {
  if (p >= s.size()) return std::string_view::npos;
  size_t q = p;
  uint64_t v = 0;
  // Up to 19 digits cannot overflow (10^19 - 1 < 2^64): no checks per digit.
  const size_t fast_end = std::min(s.size(), p + 19);
  while (q < fast_end && is_digit(s[q])) v = v * 10 + static_cast<uint64_t>(s[q++] - '0');
  if (q < fast_end || q == s.size() || !is_digit(s[q])) {
    if (q == p) return std::string_view::npos;
    out = v;
    return q;
  }
  bool over = false;
  while (q < s.size() && is_digit(s[q])) {
    const auto d = static_cast<uint64_t>(s[q] - '0');
    over = over || __builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, d, &v);
    ++q;
  }
  if (q == p) return std::string_view::npos;
  out = over ? UINT64_MAX : v;
  return q;
}

// Signed variant; magnitudes past INT64_MAX saturate (and fail every range check).
size_t parse_int(std::string_view s, size_t p, int64_t& out) {
  bool neg = p < s.size() && s[p] == '-';
  uint64_t v = 0;
  size_t e = parse_uint(s, neg ? p + 1 : p, v);
  if (e == std::string_view::npos) return e;
  if (v > static_cast<uint64_t>(INT64_MAX)) v = static_cast<uint64_t>(INT64_MAX);
  out = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return e;
}

// The token starting at `p`, up to the next space (for messages).
std::string_view token_at(std::string_view s, size_t p) {
  if (p >= s.size()) return {};
  size_t e = s.find(' ', p);
  return s.substr(p, e == std::string_view::npos ? std::string_view::npos : e - p);
}

// A task's comm in a sched tracepoint is a char[TASK_COMM_LEN] array: at most 15 bytes, and
// any bytes at all (spaces, '=', "prev_pid=7"). So a "comm=X key=N" pair is split at the
// " key=" that lies within 15 bytes of the comm's start and is followed by a whole integer: of
// those, the last one, since any other lies inside the comm (the real one follows the comm, and
// the next fields begin past the 15 bytes). A comm longer than the kernel allows (a hand-written
// or foreign trace) falls back to the first " key=".
constexpr size_t kMaxCommLen = 15;

size_t comm_field_end(std::string_view s, size_t comm_start, std::string_view key) {
  size_t last = std::string_view::npos;
  for (size_t p = s.find(' ', comm_start); p != std::string_view::npos && p <= comm_start + kMaxCommLen;
       p = s.find(' ', p + 1)) {
    if (s.substr(p + 1, key.size()) != key) continue;
    size_t d = p + 1 + key.size(), e = d;
    while (e < s.size() && is_digit(s[e])) ++e;
    if (e > d && (e == s.size() || s[e] == ' ')) last = p;
  }
  if (last != std::string_view::npos) return last;
  size_t p = s.find(key, comm_start);
  while (p != std::string_view::npos && (p == comm_start || s[p - 1] != ' ')) p = s.find(key, p + 1);
  return p == std::string_view::npos ? p : p - 1;
}

// Finds " key" (or "key" at the payload start) at or after `from`; returns the value position.
size_t find_value(std::string_view s, size_t start, std::string_view key, size_t from) {
  if (from == start && s.substr(start, key.size()) == key) return start + key.size();
  size_t p = from;
  while ((p = s.find(key, p)) != std::string_view::npos) {
    if (p > start && s[p - 1] == ' ') return p + key.size();
    ++p;
  }
  return std::string_view::npos;
}


// Splits "comm:pid" at the last ':' (comm may hold ':', e.g. "kworker/2:1:2923").
bool split_comm_pid(std::string_view s, std::string& comm, int64_t& pid) {
  size_t c = s.rfind(':');
  if (c == std::string_view::npos) return false;
  size_t e = parse_int(s, c + 1, pid);
  if (e != s.size()) return false;
  comm.assign(s.substr(0, c));
  return true;
}

// Finds " [<digits or ->]" in s from `from`; returns the position of ' ' or npos.
size_t find_prio(std::string_view s, size_t from) {
  size_t p = from;
  while ((p = s.find(" [", p)) != std::string_view::npos) {
    size_t q = p + 2;
    if (q < s.size() && s[q] == '-') ++q;
    size_t d = q;
    while (q < s.size() && is_digit(s[q])) ++q;
    if (q > d && q < s.size() && s[q] == ']') return p;
    ++p;
  }
  return std::string_view::npos;
}

// trace-cmd's plugin rendering "comm:pid [prio]": the " [prio]" that ends a task starting at
// `from`, where comm (at most kMaxCommLen bytes, any bytes) and pid (at most 7 digits) fit
// before it; of those the last, since a " [5]" inside the comm comes earlier. A longer comm
// (not a kernel's) falls back to the first " [prio]".
size_t plugin_task_end(std::string_view s, size_t from) {
  constexpr size_t kMaxTask = 15 + 1 + 7;  // comm ':' pid
  size_t last = std::string_view::npos;
  for (size_t p = find_prio(s, from); p != std::string_view::npos && p <= from + kMaxTask; p = find_prio(s, p + 1)) {
    std::string comm;
    int64_t pid = 0;
    if (split_comm_pid(s.substr(from, p - from), comm, pid) && comm.size() <= 15) last = p;
  }
  return last != std::string_view::npos ? last : find_prio(s, from);
}

// The hardirq/softirq column (trace_print_lat_fmt()): third of 4/5 flags, fourth of the
// PREEMPT_RT 7 (after need-resched-lazy).
bool is_irq_flags(std::string_view flags) {
  const size_t i = flags.size() >= 7 ? 3 : 2;
  return flags.size() > i && std::strchr("hsHzZ", flags[i]) != nullptr;
}

// What precedes a "[cpu]" anchor: "comm-pid", "comm-pid (tgid)" or perf's "comm pid" / "comm pid/tid".
struct TaskPrefix {
  uint64_t cpu = 0;
  size_t cb = 0;  // the ']' after the CPU number
  int64_t tgid = -1;
  bool has_tgid = false;
  size_t q = 0, pid_end = 0;  // the pid's digits
  uint64_t pid = 0;
  bool perf = false;
  bool no_tid = false;  // perf's ":-1  -1": a task past exit_notify(), whose tid reads -1
  size_t comm_end = 0;
};

// The text before perf script's tid column is its comm ":-1" alone (spaces around it).
inline bool perf_no_tid_comm(std::string_view s) {
  const size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b != std::string_view::npos && s.substr(b, e + 1 - b) == ":-1";
}

// Reads the "[cpu]" at `b` and the task before it; false when this '[' is not the anchor.
inline bool match_task_prefix(std::string_view line, size_t b, TaskPrefix& t) {
  size_t cb = parse_uint(line, b + 1, t.cpu);
  if (cb == std::string_view::npos || cb >= line.size() || line[cb] != ']') return false;
  t.cb = cb;
  size_t q = b;
  while (q > 0 && line[q - 1] == ' ') --q;
  if (q == b || q == 0) return false;
  if (line[q - 1] == ')') {
    size_t open = line.rfind('(', q - 1);
    if (open == std::string_view::npos) return false;
    std::string_view inner = line.substr(open + 1, q - 2 - open);
    size_t s = inner.find_first_not_of(' ');
    if (s == std::string_view::npos) return false;
    inner = inner.substr(s);
    if (inner.find_first_not_of('-') != std::string_view::npos) {
      uint64_t tgid = 0;
      if (parse_uint(inner, 0, tgid) != inner.size()) return false;
      t.tgid = static_cast<int64_t>(tgid);
    }
    t.has_tgid = true;
    q = open;
    while (q > 0 && line[q - 1] == ' ') --q;
    if (q == 0) return false;
  }
  t.pid_end = q;
  while (q > 0 && is_digit(line[q - 1])) --q;
  if (q == t.pid_end || q == 0) return false;
  t.q = q;
  parse_uint(line, q, t.pid);
  t.comm_end = q - 1;
  if (line[q - 1] == '/') {
    // perf script -F +pid: "pid/tid"; the tid is the task.
    size_t r = q - 1;
    while (r > 0 && is_digit(line[r - 1])) --r;
    if (r == q - 1 || r == 0 || line[r - 1] != ' ') return false;
    t.perf = true;
    t.comm_end = r - 1;
  } else if (line[q - 1] == ' ') {
    t.perf = true;
  } else if (line[q - 1] == '-' && t.pid == 1 && q >= 2 && line[q - 2] == ' ' && perf_no_tid_comm(line.substr(0, q - 1))) {
    // perf script's prefix for a sample whose task has no pid left (perf_event_tid() is -1 past
    // exit_notify()): comm ":-1" (perf's name for an unknown thread), tid -1. Not "comm-1".
    t.perf = true;
    t.no_tid = true;
    t.comm_end = q - 1;
  } else if (line[q - 1] != '-') {
    return false;
  }
  return true;
}

}  // namespace

EventType classify_event(std::string_view name) {
  if (name == "sched_switch") return EventType::kSwitch;
  if (name == "sched_waking") return EventType::kWaking;
  if (name == "sched_wakeup") return EventType::kWakeup;
  if (name == "sched_wakeup_new") return EventType::kWakeupNew;
  if (name == "sched_process_fork") return EventType::kFork;
  if (name == "sched_process_exit") return EventType::kExit;
  if (name == "sched_process_exec") return EventType::kExec;
  if (name == "sched_migrate_task") return EventType::kMigrate;
  return EventType::kOther;
}

const char* event_type_name(EventType t) {
  switch (t) {
    case EventType::kSwitch: return "sched_switch";
    case EventType::kWaking: return "sched_waking";
    case EventType::kWakeup: return "sched_wakeup";
    case EventType::kWakeupNew: return "sched_wakeup_new";
    case EventType::kFork: return "sched_process_fork";
    case EventType::kExit: return "sched_process_exit";
    case EventType::kExec: return "sched_process_exec";
    case EventType::kMigrate: return "sched_migrate_task";
    case EventType::kOther: return "other";
  }
  return "?";
}

LineKind LineParser::fail(std::string_view line, size_t pos, std::string msg) {
  error_ = std::move(msg);
  error_col_ = static_cast<long>(std::min(pos, line.size())) + 1;
  return LineKind::kError;
}

bool LineParser::parse_timestamp(std::string_view line, size_t b, size_t e, int64_t& ts) {
  last_integer_ = false;
  ts_out_of_range_ = false;
  uint64_t sec = 0;
  size_t p = parse_uint(line, b, sec);
  if (p == std::string_view::npos) return false;
  if (p == e) {
    // Integer clock (counter, uptime, x86-tsc): not nanoseconds (trace_clock documentation, Documentation/trace/ftrace.rst).
    hints_.integer_ts = true;
    last_integer_ = true;
    if (opt_.clock_hz <= 0) return true;  // the caller reports it
    Int128 ns = static_cast<Int128>(sec) * 1000000000 / opt_.clock_hz;
    const Int128 max_ns = static_cast<Int128>(kMaxTraceSeconds) * 1000000000;
    ts_out_of_range_ = ns > max_ns;
    ts = ts_out_of_range_ ? 0 : static_cast<int64_t>(ns);
    return true;
  }
  if (line[p] != '.') return false;
  size_t f = p + 1;
  uint64_t frac = 0;
  size_t q = parse_uint(line, f, frac);
  if (q != e) return false;
  size_t digits = q - f;
  if (digits > 9) return false;
  if (digits == 9) hints_.nine_decimals = true;
  if (sec > kMaxTraceSeconds) {
    ts_out_of_range_ = true;  // the caller reports it
    ts = 0;
    return true;
  }
  static constexpr uint64_t kPow[] = {1000000000, 100000000, 10000000, 1000000, 100000,
                                      10000,      1000,      100,      10,      1};
  ts = static_cast<int64_t>(sec * 1000000000ull + frac * kPow[digits]);
  return true;
}

// The flags and timestamp after "[cpu]", as ftrace prints them.
struct LineParser::Stamp {
  std::string_view flags;
  size_t ts_b = 0, ts_e = 0;  // the timestamp's text
  int64_t ts = 0;
};

LineKind LineParser::fail_latency_format(std::string_view line, size_t pos) {
  return fail(line, pos,
              "latency-format trace line (relative 'us' timestamps): absolute "
              "time is lost; record with options/latency-format off");
}

// The checks parse_timestamp() leaves to its caller; false when it has failed the line.
bool LineParser::check_timestamp(std::string_view line, size_t b, size_t e) {
  if (ts_out_of_range_) {
    fail(line, b,
         fmt::format("timestamp '{}' out of range: at most {} seconds", line.substr(b, e - b), kMaxTraceSeconds));
    return false;
  }
  if (last_integer_ && opt_.clock_hz <= 0) {
    fail(line, b,
         "integer timestamps (trace_clock counter, uptime or x86-tsc): durations are "
         "unknown; give the clock frequency in Hz (schedsim --clock-hz HZ)");
    return false;
  }
  return true;
}

// "##### CPU 1 buffer started ####" (test_cpu_buff_start(), option annotate); other comments
// are skipped.
LineKind LineParser::parse_comment(std::string_view line) {
  if (line.starts_with("##### CPU ")) {
    uint64_t cpu = 0;
    if (parse_uint(line, 10, cpu) != std::string_view::npos) {
      if (cpu > static_cast<uint64_t>(kMaxCpu))
        return fail(line, 10, fmt::format("CPU {} out of range: schedsim models CPUs 0..{}", cpu, kMaxCpu));
      lost_cpu_ = static_cast<int32_t>(cpu);
      return LineKind::kBufferStarted;
    }
  }
  return LineKind::kSkip;
}

// print_trace_line(): "CPU:1 [LOST 1539 EVENTS]", "CPU:0 [LOST EVENTS]"; trace-cmd:
// "CPU:3 [123 EVENTS DROPPED]", "CPU:3 [EVENTS DROPPED]". Nothing when the line is no such marker.
std::optional<LineKind> LineParser::parse_lost(std::string_view line) {
  uint64_t cpu = 0;
  size_t p = parse_uint(line, 4, cpu);
  if (p == std::string_view::npos || line.find("EVENTS", p) == std::string_view::npos ||
      (line.find("LOST", p) == std::string_view::npos && line.find("DROPPED", p) == std::string_view::npos))
    return std::nullopt;
  if (cpu > static_cast<uint64_t>(kMaxCpu))
    return fail(line, 4, fmt::format("CPU {} out of range: schedsim models CPUs 0..{}", cpu, kMaxCpu));
  lost_cpu_ = static_cast<int32_t>(cpu);
  lost_count_ = -1;
  size_t b = line.find('[', p);
  if (b != std::string_view::npos) {
    size_t q = b + 1;
    if (line.substr(q, 5) == "LOST ") q += 5;
    uint64_t n = 0;
    if (parse_uint(line, q, n) != std::string_view::npos)
      lost_count_ = static_cast<int64_t>(std::min<uint64_t>(n, INT64_MAX));
  }
  return LineKind::kLost;
}

// After "]" at `cb`: [flags] timestamp ':'.
LineParser::Match LineParser::read_stamp(std::string_view line, size_t cb, Stamp& st) {
  size_t p = cb + 1;
  while (p < line.size() && line[p] == ' ') ++p;
  size_t t0 = p;
  while (p < line.size() && line[p] != ' ' && line[p] != ':') ++p;
  st.ts_b = t0;
  st.ts_e = p;
  if (p >= line.size()) return Match::kNo;
  if (line[p] == ' ') {
    st.flags = line.substr(t0, p - t0);
    bool ok = st.flags.size() <= 8;
    for (char c : st.flags) ok = ok && is_flag_char(c);
    if (!ok) return Match::kNo;
    while (p < line.size() && line[p] == ' ') ++p;
    st.ts_b = p;
    while (p < line.size() && line[p] != ':' && line[p] != ' ') ++p;
    st.ts_e = p;
    if (p >= line.size() || line[p] != ':') {
      if (p < line.size() && line.substr(st.ts_b, st.ts_e - st.ts_b).ends_with("us")) {
        fail_latency_format(line, st.ts_b);
        return Match::kFailed;
      }
      return Match::kNo;
    }
  }
  if (!parse_timestamp(line, st.ts_b, st.ts_e, st.ts)) {
    if (line.substr(st.ts_b, st.ts_e - st.ts_b).ends_with("us")) {
      fail_latency_format(line, st.ts_b);
      return Match::kFailed;
    }
    return Match::kNo;
  }
  return check_timestamp(line, st.ts_b, st.ts_e) ? Match::kYes : Match::kFailed;
}

// Classifies the event `name` (whose fields start at `p`) and reads its fields into `ev`.
// `sys_name`: the syscall event a "sys_read -> 0x40" line stands for, else empty.
LineKind LineParser::finish_event(std::string_view line, std::string_view name, const std::string& sys_name, size_t n0,
                                  size_t p, bool note_vruntime, TraceEvent& ev) {
  ev.type = classify_event(name);
  if (ev.type == EventType::kOther) {
    ev.event_name.assign(name);
    if (!sys_name.empty())
      ev.other_value = syscall_event_value(line, n0, sys_name.rfind("sys_enter_", 0) == 0);
    else
      parse_power_ipi(name, line.substr(p), ev);
    if (note_vruntime && !hints_.vruntime && name == "sched_stat_runtime" &&
        line.find(" vruntime=", p) != std::string_view::npos)
      hints_.vruntime = true;
    return LineKind::kEvent;
  }
  while (p < line.size() && line[p] == ' ') ++p;
  if (!parse_payload(line, p, ev)) return LineKind::kError;
  return LineKind::kEvent;
}

// The line read from the "[cpu]" candidate at `b`; nothing when it is not the anchor.
std::optional<LineKind> LineParser::try_cpu_anchor(std::string_view line, size_t b, TraceEvent& ev) {
  TaskPrefix t;
  if (!match_task_prefix(line, b, t)) return std::nullopt;
  Stamp st;
  const Match m = read_stamp(line, t.cb, st);
  if (m == Match::kNo) return std::nullopt;
  if (m == Match::kFailed) return LineKind::kError;
  // Event name: "name:" or perf's right-aligned "sys:name:".
  size_t p = st.ts_e + 1;
  while (p < line.size() && line[p] == ' ') ++p;
  size_t n0 = p;
  while (p < line.size() && line[p] != ' ') ++p;
  const std::string sys_name = syscall_event_name(line, n0);  // "sys_read -> 0x40" has no "name:"
  if (sys_name.empty() && (p == n0 || line[p - 1] != ':')) return std::nullopt;
  std::string_view name = sys_name.empty() ? line.substr(n0, p - 1 - n0) : std::string_view(sys_name);
  size_t colon = sys_name.empty() ? name.rfind(':') : std::string_view::npos;
  if (colon != std::string_view::npos) name = name.substr(colon + 1);
  // Found the anchor: check the prefix's numbers, then fill it.
  if (t.cpu > static_cast<uint64_t>(kMaxCpu))
    return fail(
        line, b + 1,
        fmt::format("CPU {} out of range: schedsim models CPUs 0..{}", line.substr(b + 1, t.cb - b - 1), kMaxCpu));
  if (t.pid > static_cast<uint64_t>(kMaxPid))
    return fail(line, t.q,
                fmt::format("pid {} out of range: expected 0..{}", line.substr(t.q, t.pid_end - t.q), kMaxPid));
  if (t.tgid > kMaxPid) return fail(line, t.q, fmt::format("tgid {} out of range: expected 0..{}", t.tgid, kMaxPid));
  std::string_view comm = line.substr(0, t.comm_end);
  size_t cs = comm.find_first_not_of(' ');
  comm = cs == std::string_view::npos ? std::string_view{} : comm.substr(cs);
  while (!comm.empty() && comm.back() == ' ') comm.remove_suffix(1);
  buffer_.clear();
  if (cs == 0 && !t.perf) {
    // Multi-buffer trace-cmd report: "rsch:      ksoftirqd/0-14 ..." (trace-read.c).
    size_t sep = comm.find(": ");
    if (sep != std::string_view::npos && comm.find(' ') == sep + 1) {
      buffer_.assign(comm.substr(0, sep));
      comm = comm.substr(sep + 1);
      comm.remove_prefix(std::min(comm.find_first_not_of(' '), comm.size()));
    }
  }
  if (t.perf) hints_.perf_prefix = true;
  if (t.has_tgid) hints_.tgid_column = true;
  if (!t.perf) {
    int width = static_cast<int>(b - (t.q - 1)) - 1;  // "-pid   " up to '[' (or tgid)
    if (!t.has_tgid && width > hints_.max_pid_width) hints_.max_pid_width = width;
  }
  hints_.flag_width = std::max(hints_.flag_width, static_cast<int>(st.flags.size()));
  ev.reset();
  ev.cpu = static_cast<int32_t>(t.cpu);
  ev.ts = st.ts;
  ev.line_pid = t.no_tid ? -1 : static_cast<int64_t>(t.pid);
  ev.line_tgid = t.tgid;
  if (!t.no_tid) ev.line_comm.assign(comm);
  ev.irq_context = is_irq_flags(st.flags);
  return finish_event(line, name, sys_name, n0, p, /*note_vruntime=*/true, ev);
}

// No "[cpu]": trace-cmd report -l ("comm-pid   0d..2.   282.016110: ...") or the latency
// format ("comm-pid     0d..2. 13670us : ..."), which is refused. The line read from the '-' at
// `d`; nothing when it is not the end of "comm-".
std::optional<LineKind> LineParser::try_latency_anchor(std::string_view line, size_t d, TraceEvent& ev) {
  uint64_t pid = 0;
  size_t p = parse_uint(line, d + 1, pid);
  if (p == std::string_view::npos || p >= line.size() || line[p] != ' ') return std::nullopt;
  while (p < line.size() && line[p] == ' ') ++p;
  uint64_t cpu = 0;
  size_t f0 = parse_uint(line, p, cpu);
  if (f0 == std::string_view::npos) return std::nullopt;
  size_t f = f0;
  while (f < line.size() && is_flag_char(line[f])) ++f;
  if (f - f0 < 4 || f - f0 > 7 || f >= line.size() || line[f] != ' ') return std::nullopt;
  std::string_view flags = line.substr(f0, f - f0);
  size_t t = f;
  while (t < line.size() && line[t] == ' ') ++t;
  size_t te = t;
  while (te < line.size() && (is_digit(line[te]) || line[te] == '.')) ++te;
  if (te < line.size() && line.substr(te, 2) == "us") return fail_latency_format(line, t);
  if (te >= line.size() || line[te] != ':') return std::nullopt;
  int64_t ts = 0;
  if (!parse_timestamp(line, t, te, ts)) return std::nullopt;
  if (!check_timestamp(line, t, te)) return LineKind::kError;
  size_t n = te + 1;
  while (n < line.size() && line[n] == ' ') ++n;
  size_t n0 = n;
  while (n < line.size() && line[n] != ' ') ++n;
  const std::string sys_name = syscall_event_name(line, n0);
  if (sys_name.empty() && (n == n0 || line[n - 1] != ':')) return std::nullopt;
  std::string_view name = sys_name.empty() ? line.substr(n0, n - 1 - n0) : std::string_view(sys_name);
  if (cpu > static_cast<uint64_t>(kMaxCpu))
    return fail(line, p,
                fmt::format("CPU {} out of range: schedsim models CPUs 0..{}", line.substr(p, f0 - p), kMaxCpu));
  if (pid > static_cast<uint64_t>(kMaxPid))
    return fail(line, d + 1, fmt::format("pid {} out of range: expected 0..{}", pid, kMaxPid));
  hints_.latency_prefix = true;
  hints_.flag_width = std::max(hints_.flag_width, static_cast<int>(flags.size()));
  std::string_view comm = line.substr(0, d);
  comm.remove_prefix(std::min(comm.find_first_not_of(' '), comm.size()));
  ev.reset();
  ev.cpu = static_cast<int32_t>(cpu);
  ev.ts = ts;
  ev.line_pid = static_cast<int64_t>(pid);
  ev.line_comm.assign(comm);
  ev.irq_context = is_irq_flags(flags);
  return finish_event(line, name, sys_name, n0, n, /*note_vruntime=*/false, ev);
}

LineKind LineParser::parse(std::string_view line, TraceEvent& ev) {
  // Trim a trailing '\r' (files that went through Windows tools).
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  size_t first = line.find_first_not_of(' ');
  if (first == std::string_view::npos) return LineKind::kSkip;
  if (line[first] == '#') return parse_comment(line);
  if (line.substr(first, 3) == "=> ") return LineKind::kSkip;  // stacktrace option
  if (line.starts_with("CPU:"))
    if (std::optional<LineKind> k = parse_lost(line)) return *k;
  // trace-cmd header lines.
  if (line.starts_with("cpus=") || line.starts_with("version = ") ||
      (line.starts_with("CPU ") && line.ends_with(" is empty")))
    return LineKind::kSkip;

  // Anchor: the first "[digits]" preceded by "-pid", "-pid (tgid)" or " tid" and followed by a
  // valid flags/timestamp/event sequence.
  for (size_t b = line.find('['); b != std::string_view::npos; b = line.find('[', b + 1))
    if (std::optional<LineKind> k = try_cpu_anchor(line, b, ev)) return *k;
  for (size_t d = line.find('-'); d != std::string_view::npos; d = line.find('-', d + 1))
    if (std::optional<LineKind> k = try_latency_anchor(line, d, ev)) return *k;
  // perf script -g callchain lines: "\t ffffffff8110a2b4 __schedule+0x2d4 ([kernel.kallsyms])".
  {
    const size_t b = line.find_first_not_of(" \t");
    size_t h = b;
    while (h < line.size() && std::isxdigit(static_cast<unsigned char>(line[h]))) ++h;
    if (b > 0 && h - b >= 4 && h < line.size() && line[h] == ' ') return LineKind::kSkip;
  }
  return fail(line, first,
              "not a trace event line: expected '<comm>-<pid> [<cpu>] <flags> <sec.usec>: "
              "<event>: <fields>'");
}

bool LineParser::parse_payload(std::string_view s, size_t p0, TraceEvent& ev) {
  try {
    return parse_fields(s, p0, ev);
  } catch (const BadField&) {
    return false;  // fail() has described it
  }
}

// parse_fields()'s reader of one event's fields: the line `s`, whose fields start at `p0`. Its
// number readers throw BadField once fail() has described the error.
struct LineParser::Fields {
  static constexpr auto npos = std::string_view::npos;
  LineParser& lp;
  std::string_view s;
  size_t p0;
  TraceEvent& ev;

  bool bad(size_t pos, std::string_view msg) {
    lp.fail(s, pos, fmt::format("{}: {}", event_type_name(ev.type), msg));
    return false;
  }
  // A whole integer token at `pos` (ending at a space or the end of the line) within
  // [lo, hi]; anything else ("6441abc999", a NUL byte, 23 digits) is an error naming the field.
  int64_t num(size_t pos, std::string_view name, int64_t lo, int64_t hi, size_t* end = nullptr) {
    int64_t v = 0;
    size_t e = parse_int(s, pos, v);
    if (e == npos || (e < s.size() && s[e] != ' ')) {
      bad(pos, fmt::format("bad {} '{}': expected an integer in {}..{}", name, token_at(s, pos), lo, hi));
      throw BadField{};
    }
    if (v < lo || v > hi) {
      bad(pos, fmt::format("{} {} out of range: expected {}..{}", name, token_at(s, pos), lo, hi));
      throw BadField{};
    }
    if (end) *end = e;
    return v;
  }
  // An optional "key=" field searched from `from`: false when absent, an error when malformed.
  bool opt(std::string_view key, size_t from, int64_t lo, int64_t hi, int64_t& out, size_t* end = nullptr) {
    size_t v = find_value(s, p0, key, from);
    if (v == npos) return false;
    std::string_view name = key.substr(0, key.size() - 1);
    out = num(v, name, lo, hi, end);
    return true;
  }
  int64_t pid_at(size_t pos, std::string_view name, size_t* end = nullptr) { return num(pos, name, 0, kMaxPid, end); }
  void check_pid(size_t pos, int64_t pid) {
    if (pid < 0 || pid > kMaxPid) {
      bad(pos, fmt::format("pid {} out of range: expected 0..{}", pid, kMaxPid));
      throw BadField{};
    }
  }
  // "[120]" (find_prio() checked the shape): only the range is left to check.
  int32_t bracket_prio(size_t pos) {
    int64_t v = 0;
    parse_int(s, pos, v);
    if (v < kMinPrio || v > kMaxPrio) {
      bad(pos, fmt::format("prio {} out of range: expected {}..{}", v, kMinPrio, kMaxPrio));
      throw BadField{};
    }
    return static_cast<int32_t>(v);
  }

  bool plugin_switch();
  bool kernel_switch();
  bool numeric_prev_state(size_t sv, std::string_view st);
  bool wakeup();
  bool fork();
  bool exit_or_migrate();
  bool exec();
};

// trace-cmd sched_switch plugin: "bash:2890 [120] S ==> bash:5738 [120]". Read from the
// left, field by field: a comm may hold " ==> " or " [5]" itself.
bool LineParser::Fields::plugin_switch() {
  size_t arrow = npos, pr = npos, sp = npos;
  if (size_t t = plugin_task_end(s, p0); t != npos) {
    size_t st_at = s.find("] ", t);
    if (st_at != npos) {
      st_at += 2;
      size_t st_end = s.find(' ', st_at);
      if (st_end != npos && s.substr(st_end, 5) == " ==> ") {
        arrow = st_end;
        pr = t - p0;
        sp = st_at - 1 - p0;
      }
    }
  }
  if (arrow == npos) arrow = s.find(" ==> ", p0);
  if (arrow == npos) return bad(p0, "expected 'prev_comm=' or 'comm:pid [prio] STATE ==> ...'");
  lp.hints_.plugin_switch = true;
  std::string_view left = s.substr(p0, arrow - p0);
  if (pr == npos) {
    sp = left.rfind(' ');
    pr = find_prio(left, 0);
  }
  if (sp == npos || pr == npos || pr >= sp) return bad(p0, "expected 'comm:pid [prio] STATE' before '==>'");
  std::string_view st = left.substr(sp + 1);
  if (!decode_letter_state(st, ev.state))
    return bad(p0 + sp + 1, fmt::format("bad prev_state '{}': expected R, R+, S, D, T, t, X, "
                                        "Z, P, I, x, K, W or N (joined by '|')",
                                        st));
  if (st == "X") ++lp.hints_.plugin_letters[0];
  if (st == "Z") ++lp.hints_.plugin_letters[1];
  if (st == "W") {
    // libtraceevent <= 1.7's fixed "SDTtZXxW" table prints 4.14+'s I (0x80) as W.
    ++lp.hints_.plugin_letters[2];
    ev.state = kStateIdle;
  }
  if (st == "R") ++lp.hints_.plugin_letters[3];
  ev.prio = bracket_prio(p0 + pr + 2);
  if (!split_comm_pid(left.substr(0, pr), ev.comm, ev.pid)) return bad(p0, "expected 'comm:pid' before '[prio]'");
  check_pid(p0, ev.pid);
  std::string_view right = s.substr(arrow + 5);
  size_t rp = plugin_task_end(right, 0);
  if (rp == npos) return bad(arrow + 5, "expected 'comm:pid [prio]' after '==>'");
  if (!split_comm_pid(right.substr(0, rp), ev.other_comm, ev.other_pid))
    return bad(arrow + 5, "expected 'comm:pid' after '==>'");
  check_pid(arrow + 5, ev.other_pid);
  ev.other_prio = bracket_prio(arrow + 5 + rp + 2);
  return true;
}

// The kernel's format: "prev_comm=X prev_pid=N prev_prio=P prev_state=S ==> next_comm=Y
// next_pid=M next_prio=Q".
bool LineParser::Fields::kernel_switch() {
  size_t pp = comm_field_end(s, p0 + 10, "prev_pid=");
  if (pp == npos) return bad(p0, "missing prev_pid=");
  ev.comm.assign(s.substr(p0 + 10, pp - p0 - 10));
  size_t e = 0;
  ev.pid = pid_at(pp + 10, "prev_pid", &e);
  int64_t v = 0;
  if (opt("prev_prio=", e, kMinPrio, kMaxPrio, v, &e)) ev.prio = static_cast<int32_t>(v);
  size_t sv = find_value(s, p0, "prev_state=", e);
  if (sv == npos) return bad(e, "missing prev_state=");
  size_t se = s.find(' ', sv);
  if (se == npos) se = s.size();
  std::string_view st = s.substr(sv, se - sv);
  if (!st.empty() && is_digit(st[0])) {
    if (!numeric_prev_state(sv, st)) return false;
  } else if (!decode_letter_state(st, ev.state)) {
    return bad(sv, fmt::format("bad prev_state '{}': expected R, R+, S, D, T, t, X, Z, P, I, "
                               "x, K, W or N (joined by '|')",
                               st));
  }
  size_t nc = find_value(s, p0, "next_comm=", se);
  if (nc == npos) return bad(se, "missing next_comm=");
  size_t np = comm_field_end(s, nc, "next_pid=");
  if (np == npos) return bad(nc, "missing next_pid=");
  ev.other_comm.assign(s.substr(nc, np - nc));
  ev.other_pid = pid_at(np + 10, "next_pid", &e);
  if (opt("next_prio=", e, kMinPrio, kMaxPrio, v)) ev.other_prio = static_cast<int32_t>(v);
  return true;
}

// A numeric prev_state `st` (at `sv`), decoded in the given or inferred kernel layout; its
// value is kept in the hints for the layout inference.
bool LineParser::Fields::numeric_prev_state(size_t sv, std::string_view st) {
  uint64_t raw = 0;
  StateLayout layout = lp.opt_.layout;
  bool ok = parse_uint(st, 0, raw) == st.size();
  if (ok && lp.opt_.infer_layout) ok = provisional_state_layout(raw, layout);
  if (!ok || !decode_numeric_state(raw, layout, ev.state))
    return bad(sv, lp.opt_.infer_layout ? fmt::format("bad prev_state '{}': not a state number in any kernel's layout "
                                                      "(2.6.32 to 4.14+)",
                                                      st)
                                        : fmt::format("bad prev_state '{}': not a state number of {} kernels (the "
                                                      "--kernel-version given); without it the layout is inferred "
                                                      "from the values",
                                                      st, state_layout_kernels(layout)));
  auto& vals = lp.hints_.state_values;
  auto at = std::lower_bound(vals.begin(), vals.end(), raw);
  if (at == vals.end() || *at != raw) {
    if (vals.size() < FormatHints::kMaxStateValues)
      vals.insert(at, raw);
    else
      lp.hints_.state_values_overflow = true;
  }
  lp.hints_.numeric_state = true;
  return true;
}

// sched_waking, sched_wakeup, sched_wakeup_new.
bool LineParser::Fields::wakeup() {
  if (ev.type == EventType::kWaking) lp.hints_.waking_seen = true;
  if (s.substr(p0, 5) != "comm=") {
    // trace-cmd plugin: "bash:5738 [120] CPU:000" or "comm:pid [prio] success=1 CPU:002"
    size_t pr = plugin_task_end(s, p0);
    if (pr == npos) return bad(p0, "expected 'comm=' or 'comm:pid [prio] CPU:nnn'");
    if (!split_comm_pid(s.substr(p0, pr - p0), ev.other_comm, ev.other_pid)) return bad(p0, "expected 'comm:pid'");
    check_pid(p0, ev.other_pid);
    int64_t v = 0;
    ev.prio = bracket_prio(pr + 2);
    if (opt("success=", pr, 0, 1, v)) {
      ev.success = static_cast<int32_t>(v);
      lp.hints_.success_field = true;
    }
    if (opt("CPU:", pr, 0, kMaxCpu, v)) ev.target_cpu = static_cast<int32_t>(v);
    return true;
  }
  size_t pp = comm_field_end(s, p0 + 5, "pid=");
  if (pp == npos) return bad(p0, "missing pid=");
  ev.other_comm.assign(s.substr(p0 + 5, pp - p0 - 5));
  size_t e = 0;
  ev.other_pid = pid_at(pp + 5, "pid", &e);
  int64_t v = 0;
  if (opt("prio=", e, kMinPrio, kMaxPrio, v)) ev.prio = static_cast<int32_t>(v);
  if (opt("success=", e, 0, 1, v)) {
    ev.success = static_cast<int32_t>(v);
    lp.hints_.success_field = true;
  }
  if (opt("target_cpu=", e, 0, kMaxCpu, v)) ev.target_cpu = static_cast<int32_t>(v);
  return true;
}

// sched_process_fork.
bool LineParser::Fields::fork() {
  // "comm=X pid=N child_comm=Y child_pid=M" (kernel fmt) or "parent_comm=X parent_pid=N
  // child_comm=..." (trace-cmd -R): split field by field, each comm by comm_field_end.
  const bool kernel_fmt = s.substr(p0, 5) == "comm=", raw_fmt = s.substr(p0, 12) == "parent_comm=";
  if (kernel_fmt || raw_fmt) {
    const size_t cs = p0 + (kernel_fmt ? 5 : 12);
    const std::string_view pkey = kernel_fmt ? "pid=" : "parent_pid=";
    size_t pp = comm_field_end(s, cs, pkey);
    if (pp == npos) return bad(p0, fmt::format("missing {}", pkey));
    ev.comm.assign(s.substr(cs, pp - cs));
    size_t e = 0;
    ev.pid = pid_at(pp + 1 + pkey.size(), pkey.substr(0, pkey.size() - 1), &e);
    if (s.substr(e, 12) != " child_comm=") return bad(e, "expected ' child_comm=' after the parent's pid");
    size_t cp = comm_field_end(s, e + 12, "child_pid=");
    if (cp == npos) return bad(e, "missing child_pid=");
    ev.other_comm.assign(s.substr(e + 12, cp - e - 12));
    ev.other_pid = pid_at(cp + 11, "child_pid");
    return true;
  }
  size_t cp = s.rfind(" child_pid=");
  if (cp == npos || cp < p0) return bad(p0, "missing child_pid=");
  ev.other_pid = pid_at(cp + 11, "child_pid");
  size_t cc = s.rfind(" child_comm=", cp);
  if (cc == npos || cc < p0) return bad(p0, "missing child_comm=");
  ev.other_comm.assign(s.substr(cc + 12, cp - cc - 12));
  // "comm=X pid=N" (kernel fmt) or "parent_comm=X parent_pid=N" (trace-cmd -R)
  size_t pp = s.rfind("pid=", cc);
  if (pp == npos || pp < p0 || (s[pp - 1] != ' ' && s[pp - 1] != '_')) return bad(p0, "missing pid=");
  ev.pid = pid_at(pp + 4, "pid");
  size_t cm = s.find("comm=", p0);
  size_t pstart = s[pp - 1] == '_' ? pp - 7 : pp;  // back over "parent_"
  if (cm != npos && cm + 5 <= pstart) ev.comm.assign(s.substr(cm + 5, pstart - 1 - (cm + 5)));
  return true;
}

// sched_process_exit, sched_migrate_task.
bool LineParser::Fields::exit_or_migrate() {
  if (s.substr(p0, 5) != "comm=") return bad(p0, "expected 'comm='");
  size_t pp = comm_field_end(s, p0 + 5, "pid=");
  if (pp == npos) return bad(p0, "missing pid=");
  std::string& comm = ev.type == EventType::kExit ? ev.comm : ev.other_comm;
  int64_t& pid = ev.type == EventType::kExit ? ev.pid : ev.other_pid;
  comm.assign(s.substr(p0 + 5, pp - p0 - 5));
  size_t e = 0;
  pid = pid_at(pp + 5, "pid", &e);
  int64_t v = 0;
  if (opt("prio=", e, kMinPrio, kMaxPrio, v)) ev.prio = static_cast<int32_t>(v);
  if (ev.type == EventType::kMigrate) {
    if (opt("orig_cpu=", e, 0, kMaxCpu, v)) ev.orig_cpu = static_cast<int32_t>(v);
    if (opt("dest_cpu=", e, 0, kMaxCpu, v)) ev.target_cpu = static_cast<int32_t>(v);
  } else if (s.find(" group_dead=", e) != npos) {
    lp.hints_.group_dead = true;
  }
  return true;
}

// sched_process_exec.
bool LineParser::Fields::exec() {
  size_t op = s.rfind(" old_pid=");
  if (op == npos || op < p0) return bad(p0, "missing old_pid=");
  ev.other_pid = pid_at(op + 9, "old_pid");
  size_t pp = s.rfind(" pid=", op);
  if (pp == npos || pp < p0) return bad(p0, "missing pid=");
  ev.pid = pid_at(pp + 5, "pid");
  if (s.substr(p0, 9) == "filename=") {
    std::string_view file = s.substr(p0 + 9, pp - p0 - 9);
    size_t slash = file.rfind('/');
    if (slash != npos) file = file.substr(slash + 1);
    // The kernel's comm is the basename truncated to TASK_COMM_LEN - 1.
    ev.other_comm.assign(file.substr(0, 15));
  }
  return true;
}

bool LineParser::parse_fields(std::string_view s, size_t p0, TraceEvent& ev) {
  Fields f{*this, s, p0, ev};
  switch (ev.type) {
    case EventType::kSwitch: return s.substr(p0, 10) != "prev_comm=" ? f.plugin_switch() : f.kernel_switch();
    case EventType::kWaking:
    case EventType::kWakeup:
    case EventType::kWakeupNew: return f.wakeup();
    case EventType::kFork: return f.fork();
    case EventType::kExit:
    case EventType::kMigrate: return f.exit_or_migrate();
    case EventType::kExec: return f.exec();
    case EventType::kOther: return true;
  }
  return true;
}

}  // namespace schedsim::traces
