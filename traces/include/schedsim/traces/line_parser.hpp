#pragma once
/// Line parser for ftrace text (trace, trace_pipe, systrace), `trace-cmd report` text and
/// `perf script` output (docs/traces.md; grammar from trace_print_context() in kernel/trace/trace_output.c,
/// trace-cmd's trace_show_data() and perf's perf_sample__fprintf_start(), docs/sources.md). The prefix is anchored on "[cpu]" preceded by "-<pid>" (+ optional "(tgid)") or, for
/// perf, "<space><tid>", and followed by optional flags and a timestamp: never on columns, since
/// comm may hold spaces, dashes and colons. Payloads are read by known keys.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schedsim/traces/task_state.hpp"
#include "schedsim/traces/trace_event.hpp"

namespace schedsim::traces {

/// Bounds every number read from a trace line is checked against (an error names the field):
/// pids up to PID_MAX_LIMIT (4 * 1024 * 1024, include/linux/threads.h), CPUs below the 4096
/// CpuMask holds, prio -1 (SCHED_DEADLINE) .. 140 (MAX_PRIO, the idle task on old kernels),
/// timestamps up to 9,000,000,000 s (int64 nanoseconds, with room for differences).
inline constexpr int64_t kMaxPid = 4194304;
inline constexpr int64_t kMaxCpu = 4095;
inline constexpr int64_t kMinPrio = -1;
inline constexpr int64_t kMaxPrio = 140;
inline constexpr uint64_t kMaxTraceSeconds = 9000000000ull;

struct ParseOptions {
  int64_t clock_hz = 0;                       ///< integer timestamps: ticks per second (0 = refuse)
  StateLayout layout = StateLayout::kV4_14;   ///< numeric prev_state table
  /// No layout given: each numeric prev_state is read with provisional_state_layout(), and
  /// infer_state_layout() on FormatHints::state_values decides after the pass.
  bool infer_layout = false;
};

/// What the parser learned about the producer while reading (for `trace info`).
struct FormatHints {
  int flag_width = -1;          ///< flag characters seen (0/4/5/7), -1 none yet
  int max_pid_width = 0;        ///< widest "-<pid> " field (5 before 5.10, 7 after)
  bool tgid_column = false;
  bool success_field = false;   ///< "success=" in wakeups (<= 4.2 text, or raw dumps)
  bool waking_seen = false;     ///< sched_waking present (>= 4.3)
  bool group_dead = false;      ///< sched_process_exit with group_dead (>= 6.16)
  bool vruntime = false;        ///< sched_stat_runtime with vruntime (<= 6.7)
  bool plugin_switch = false;   ///< trace-cmd sched_switch plugin rendering (state letters suspect)
  bool numeric_state = false;   ///< raw numeric prev_state (trace-cmd -R)
  bool nine_decimals = false;   ///< ns timestamps (trace-cmd -t, perf --ns)
  bool integer_ts = false;      ///< integer clock (counter, x86-tsc) converted with clock_hz
  bool latency_prefix = false;  ///< trace-cmd report -l (cpu without brackets, flags after it)
  bool perf_prefix = false;     ///< perf script "comm tid [cpu]"
  std::array<uint64_t, 4> plugin_letters{};  ///< plugin-rendered X, Z, W, R counts
  /// The distinct numeric prev_state values, sorted (at most
  /// kMaxStateValues; a trace with more is not a kernel's).
  std::vector<uint64_t> state_values;
  bool state_values_overflow = false;
  static constexpr size_t kMaxStateValues = 1024;
};

enum class LineKind : uint8_t {
  kEvent,          ///< `ev` filled
  kSkip,           ///< comment, header, empty, stack trace, "cpus=N", ...
  kLost,           ///< "CPU:N [LOST M EVENTS]" or trace-cmd "EVENTS DROPPED": lost_cpu/lost_count
  kBufferStarted,  ///< "##### CPU N buffer started ####": lost_cpu
  kError,          ///< error/error_col describe it
};

/// Parses one line at a time; keeps format hints. Not thread-safe; one per input.
class LineParser {
 public:
  explicit LineParser(ParseOptions opt = {}) : opt_(opt) {}

  /// Parses `line` (without its newline). On kEvent fills `ev` (ev.line is left to the caller).
  LineKind parse(std::string_view line, TraceEvent& ev);

  const std::string& error() const { return error_; }
  long error_col() const { return error_col_; }  ///< 1-based column of the error
  int32_t lost_cpu() const { return lost_cpu_; }
  int64_t lost_count() const { return lost_count_; }  ///< -1 when the marker gives no count
  /// Multi-buffer trace-cmd report: the "name: " prefix of the last event ("" = top level).
  const std::string& buffer() const { return buffer_; }
  const FormatHints& hints() const { return hints_; }
  FormatHints& hints() { return hints_; }

 private:
  LineKind fail(std::string_view line, size_t pos, std::string msg);
  bool parse_payload(std::string_view line, size_t pos, TraceEvent& ev);
  bool parse_fields(std::string_view line, size_t pos, TraceEvent& ev);  // throws BadField
  struct BadField {};
  struct Fields;  // parse_fields()'s reader of one event's fields
  bool parse_timestamp(std::string_view line, size_t b, size_t e, int64_t& ts);

  // The parts of parse() (line_parser.cpp). A try_*_anchor() returns nothing when the candidate
  // is not the line's anchor (the next one is tried), else what parse() returns.
  enum class Match : uint8_t { kNo, kYes, kFailed };  ///< kFailed: fail() has described it
  struct Stamp;
  LineKind parse_comment(std::string_view line);
  std::optional<LineKind> parse_lost(std::string_view line);
  std::optional<LineKind> try_cpu_anchor(std::string_view line, size_t b, TraceEvent& ev);
  std::optional<LineKind> try_latency_anchor(std::string_view line, size_t d, TraceEvent& ev);
  Match read_stamp(std::string_view line, size_t cb, Stamp& st);
  inline bool check_timestamp(std::string_view line, size_t b, size_t e);
  inline LineKind fail_latency_format(std::string_view line, size_t pos);
  inline LineKind finish_event(std::string_view line, std::string_view name, const std::string& sys_name, size_t n0,
                               size_t p, bool note_vruntime, TraceEvent& ev);

  ParseOptions opt_;
  FormatHints hints_;
  std::string error_;
  long error_col_ = 0;
  int32_t lost_cpu_ = -1;
  int64_t lost_count_ = -1;
  std::string buffer_;
  bool last_integer_ = false;
  bool ts_out_of_range_ = false;
};

}  // namespace schedsim::traces
