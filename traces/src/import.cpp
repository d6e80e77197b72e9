// Import driver: sniff the format, stream lines through the parser, repair small cross-CPU
// inversions in a bounded reorder window, hand events to the Extractor, and describe it all.
#include "schedsim/traces/import.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <optional>
#include <queue>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/traces/extractor.hpp"
#include "schedsim/traces/line_parser.hpp"
#include "schedsim/traces/line_reader.hpp"
#include "perfdata.hpp"
#include "tracedat.hpp"

namespace schedsim::traces {

std::string describe_idle_wake(const IdleWakeObserved& m);

const char* trace_channels_name(TraceChannels c) {
  switch (c) {
    case TraceChannels::kOff: return "off";
    case TraceChannels::kPipe: return "pipe";
    case TraceChannels::kSocket: return "socket";
  }
  return "?";
}

TraceChannels parse_trace_channels(const std::string& s) {
  for (TraceChannels c : {TraceChannels::kOff, TraceChannels::kPipe, TraceChannels::kSocket})
    if (s == trace_channels_name(c)) return c;
  throw InputError(SourceLoc{"--channels"}, unknown_choice_message("channel mode", s, {"off", "pipe", "socket"}));
}

const char* trace_wake_match_name(TraceWakeMatch m) {
  switch (m) {
    case TraceWakeMatch::kToken: return "token";
    case TraceWakeMatch::kRecorded: return "recorded";
  }
  return "?";
}

TraceWakeMatch parse_trace_wake_match(const std::string& s) {
  for (TraceWakeMatch m : {TraceWakeMatch::kToken, TraceWakeMatch::kRecorded})
    if (s == trace_wake_match_name(m)) return m;
  throw InputError(SourceLoc{"--wake-match"}, unknown_choice_message("wake matching", s, {"token", "recorded"}));
}

namespace {

enum class Container : uint8_t { kText, kHtml };

struct PassResult {
  Workload workload;
  std::vector<bool> comm_matches;
};

bool parse_header_counts(std::string_view line, ImportReport& rep) {
  // "# entries-in-buffer/entries-written: 406/2333   #P:2"
  constexpr std::string_view key = "# entries-in-buffer/entries-written: ";
  if (!line.starts_with(key)) return false;
  long long kept = -1, written = -1, cpus = -1;
  std::string s(line.substr(key.size()));
  if (std::sscanf(s.c_str(), "%lld/%lld", &kept, &written) == 2) {
    rep.entries_in_buffer = kept;
    rep.entries_written = written;
  }
  size_t p = s.find("#P:");
  if (p != std::string::npos && std::sscanf(s.c_str() + p + 3, "%lld", &cpus) == 1) rep.header_cpus = cpus;
  return true;
}

// trace_printk() (bprint, bputs) and trace_marker (print) events carry free text that may span
// several lines.
bool is_print_event(std::string_view name) { return name == "bprint" || name == "bputs" || name == "print"; }

// Binary files named as traces: say what they are instead of "not a trace event line".
void check_text_trace(std::string_view first, const std::string& path) {
  if (first.starts_with(kTraceDatMagic)) {
    if (path == "-" && tracedat_supported())
      throw InputError(SourceLoc{path, 1},
                       "a trace-cmd binary file (trace.dat) on standard input: libtracecmd reads it "
                       "only from a file; give its path");
    tracedat_to_text(path, nullptr);  // without libtracecmd: throws the error naming the fallback
  }
  if (looks_like_perf_data(first))
    throw InputError(SourceLoc{path, 1},
                     "a perf.data on standard input: schedsim reads it only from a file; give its path "
                     "(or convert it with 'perf script --ns -i FILE > trace.txt')");
  if (first.find('\0') != std::string_view::npos)
    throw InputError(SourceLoc{path, 1}, "binary data (NUL bytes) in the first line: not a text trace");
}

class Pass {
 public:
  /// `data` holds the trace in memory (import_trace_buffer), nullptr to read `path`.
  /// `layout`: the prev_state layout inferred by an earlier attempt (import_any), if any.
  Pass(const std::string& path, const std::string_view* data, const ExtractOptions& opt, ImportReport& rep,
       Extractor& ex, std::optional<StateLayout> layout = std::nullopt)
      : path_(path), data_(data), opt_(opt), rep_(rep), ex_(ex), inferred_(layout) {
    ParseOptions po;
    po.clock_hz = opt.clock_hz;
    if (!opt.kernel_version.empty() && !state_layout_for_kernel(opt.kernel_version, po.layout))
      throw InputError(fmt::format("bad --kernel-version '{}': expected MAJOR.MINOR, e.g. 4.9", opt.kernel_version));
    if (layout) po.layout = *layout;
    po.infer_layout = opt.kernel_version.empty() && !layout;
    parser_ = LineParser(po);
    pool_.resize(opt.reorder_window + 2);  // + the event being parsed + the one awaiting its clock check
    for (size_t i = 0; i < pool_.size(); ++i) free_.push_back(static_cast<uint32_t>(pool_.size() - 1 - i));
  }

  /// With no --kernel-version: infers the prev_state layout from the values the pass saw. Returns
  /// the layout to read the trace again with when the provisional reading of some value means
  /// something else in it (runnable / blocked / dead); nullopt when this pass read it right.
  /// Throws InputError when the values fit no layout or are truly ambiguous.
  std::optional<StateLayout> check_state_layout() {
    const FormatHints& h = parser_.hints();
    if (!opt_.kernel_version.empty() || h.state_values.empty()) return std::nullopt;
    const std::string values = join(values_text(h.state_values), ", ");
    if (h.state_values_overflow)
      throw InputError(SourceLoc{path_}, fmt::format("more than {} distinct numeric prev_state values: not a "
                                                     "kernel's; give --kernel-version MAJOR.MINOR to read them anyway",
                                                     FormatHints::kMaxStateValues));
    StateLayoutInference inf = infer_state_layout(h.state_values);
    if (inf.outcome == StateLayoutInference::Outcome::kNone)
      throw InputError(SourceLoc{path_}, fmt::format("the numeric prev_state values ({}) fit no kernel's layout: {}",
                                                     values, inf.why));
    if (inf.outcome == StateLayoutInference::Outcome::kAmbiguous) {
      std::vector<std::string> choices;
      for (StateLayout l : inf.candidates)
        choices.push_back(fmt::format("{} for {}", state_layout_version(l), state_layout_kernels(l)));
      throw InputError(SourceLoc{path_},
                       fmt::format("the numeric prev_state values ({}) fit more than one kernel's layout and mean "
                                   "different things: {}; give --kernel-version MAJOR.MINOR of the traced kernel ({})",
                                   values, inf.why, join(choices, ", ")));
    }
    layout_used_ = inf.layout;
    candidates_ = inf.candidates.size();
    if (inferred_) return std::nullopt;  // this pass read the values with the inferred layout
    for (uint64_t v : h.state_values) {
      StateLayout first = inf.layout;
      provisional_state_layout(v, first);
      uint16_t a = 0, b = 0;
      decode_numeric_state(v, first, a);
      decode_numeric_state(v, inf.layout, b);
      if (classify_state(a) != classify_state(b)) return inf.layout;
    }
    return std::nullopt;
  }

  /// Reads the events of a perf.data (perfdata.hpp) instead of text lines.
  void set_perf_data(PerfData* pd) { perf_ = pd; }

  void run() {
    if (perf_) return run_perf();
    LineReader rd = data_ ? LineReader(*data_, path_) : LineReader(path_);
    rep_.compression = compression_name(rd.compression());
    std::string_view line;
    bool decided = false;
    Container container = Container::kText;
    bool in_data = false;
    std::string held;  // HTML: text after/before the script tags on the same line
    while (rd.next(line)) {
      ++rep_.lines;
      if (rep_.lines == 1) check_text_trace(line, path_);
      if (!decided) {
        size_t f = line.find_first_not_of(" \t\r");
        if (f == std::string_view::npos) continue;
        std::string_view t = line.substr(f);
        decided = true;
        if (t.starts_with("<!DOCTYPE html") || t.starts_with("<!doctype html") || t.starts_with("<html")) {
          container = Container::kHtml;
          rep_.format = "systrace HTML";
        } else if (t.starts_with("# tracer:")) {
          rep_.format = "ftrace";
        } else if (t.starts_with("cpus=") || t.starts_with("version = ")) {
          rep_.format = "trace-cmd report";
        } else {
          rep_.format = "";  // decided by the first event line (trace_pipe or perf script)
        }
      }
      if (container == Container::kHtml) {
        // systrace: the ftrace text sits in <script class="trace-data" type="application/text">.
        if (!in_data) {
          size_t s = line.find("<script class=\"trace-data\"");
          if (s == std::string_view::npos) continue;
          size_t gt = line.find('>', s);
          in_data = true;
          if (gt == std::string_view::npos) continue;
          line = line.substr(gt + 1);
        }
        size_t end = line.find("</script>");
        if (end != std::string_view::npos) {
          in_data = false;
          line = line.substr(0, end);
        }
        // Skip a JSON trace-data block (systrace also embeds Chrome JSON).
        size_t f = line.find_first_not_of(' ');
        if (f != std::string_view::npos && (line[f] == '{' || line[f] == '[')) continue;
      }
      if (rd.unterminated() && rd.truncated_stream()) {
        // The line the compressed stream was cut in: its text may parse yet be incomplete.
        repair("truncated-last-line", rd.line_no(),
               "the last line had no newline and did not parse (file cut while recording); dropped");
        continue;
      }
      handle_line(line, rd.line_no(), rd.unterminated());
    }
    drain();
    rep_.bytes = rd.bytes_out();
    if (rd.truncated_stream()) {
      if (opt_.strict)
        throw InputError(SourceLoc{path_, rd.line_no(), 0},
                         fmt::format("strict mode: the {} stream ends early (file cut while recording)",
                                     rep_.compression));
      repair("truncated-stream", rd.line_no(),
             "the compressed stream ends early (file cut while recording); the events before the cut were used");
      rep_.warnings.push_back(fmt::format("the {} stream ends early at line {} (file cut while recording, or "
                                          "damaged): only the events before the cut were used",
                                          rep_.compression, rd.line_no()));
    }
  }

 private:
  // perf.data: events come decoded and in time order; "line" numbers are the samples' positions
  // (the lines of `perf script --ns` that print them).
  void run_perf() {
    rep_.format = "perf.data";
    const PerfDataInfo& info = perf_->info();
    if (info.nr_cpus > 0) rep_.header_cpus = info.nr_cpus;
    parser_.hints().nine_decimals = true;
    perf_->rewind();
    long last = 0;
    for (;;) {
      TraceEvent& ev = pool_[free_.back()];
      const PerfData::Item item = perf_->next(ev);
      if (item == PerfData::Item::kEnd) break;
      if (item == PerfData::Item::kEvent) {
        last = ev.line;
        rep_.lines = static_cast<uint64_t>(last);
        // The text parser's hints, from the events themselves.
        if (ev.type == EventType::kWaking) parser_.hints().waking_seen = true;
        if (ev.success >= 0) parser_.hints().success_field = true;
        take(ev, ev.line);
        continue;
      }
      if (item == PerfData::Item::kFork) {
        if (opt_.on_fork_record) opt_.on_fork_record(perf_->fork_tid(), perf_->fork_ppid());
        continue;
      }
      drain();
      ex_.on_lost(perf_->lost_cpu(), perf_->lost_count(), last + 1, false);
    }
    drain();
  }

  void repair(const std::string& kind, long line, const std::string& reason) {
    if (opt_.strict) throw InputError(SourceLoc{path_, line, 0}, fmt::format("strict mode: {} ({})", reason, kind));
    auto& r = rep_.repairs[kind];
    if (r.count++ == 0) {
      r.first_line = line;
      r.reason = reason;
    }
  }

  // A header's number: the token at `at` (up to a space), 0..max.
  int64_t header_number(std::string_view t, size_t at, int64_t max, long line_no) {
    std::string_view v = t.substr(at);
    v = v.substr(0, v.find_first_of(" \r"));
    int64_t n = -1;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size() || n < 0 || n > max)
      throw InputError(SourceLoc{path_, line_no, static_cast<long>(at) + 1},
                       fmt::format("bad header value '{}': expected an integer in 0..{}", v, max), std::string(t));
    return n;
  }

  void handle_line(std::string_view line, long line_no, bool unterminated) {
    TraceEvent& ev = pool_[free_.back()];
    LineKind k = parser_.parse(line, ev);
    switch (k) {
      case LineKind::kSkip: {
        size_t f = line.find_first_not_of(' ');
        if (f == std::string_view::npos) return;
        std::string_view t = line.substr(f);
        if (parse_header_counts(t, rep_)) return;
        if (t.starts_with("# schedsim record: root_pid=") && !seen_event_) {
          ex_.set_recorded_root(header_number(t, 28, kMaxPid, line_no));
          return;
        }
        // `schedsim record`'s online CPU count (trace_pipe output has no "#P:" header).
        if (t.starts_with("# schedsim record: cpus=") && !seen_event_) {
          rep_.header_cpus = header_number(t, 24, kMaxCpu + 1, line_no);
          return;
        }
        if (t.starts_with("cpus=")) {
          rep_.header_cpus = header_number(t, 5, kMaxCpu + 1, line_no);
          return;
        }
        if (t.find("latency trace v") != std::string_view::npos)
          throw InputError(SourceLoc{path_, line_no, static_cast<long>(f) + 1},
                           "latency-format trace (options/latency-format): timestamps are relative "
                           "and comms truncated; record with latency-format off",
                           std::string(line));
        return;
      }
      case LineKind::kError:
        if (after_print_ && parser_.error().rfind("not a trace event line", 0) == 0) {
          // The rest of a print-like event whose message held a newline (trace_printk() with
          // "\n" inside its format, a trace_marker write of several lines): ftrace and trace-cmd
          // print it verbatim on the following lines. It holds no scheduling event: skip it.
          if (print_continuations_++ == 0) print_continuation_first_ = line_no;
          return;
        }
        if (unterminated) {
          if (opt_.strict)
            throw InputError(SourceLoc{path_, line_no, parser_.error_col()},
                             "truncated last line (no newline at end of file): " + parser_.error(),
                             std::string(line));
          repair("truncated-last-line", line_no,
                 "the last line had no newline and did not parse (file cut while recording); dropped");
          rep_.warnings.push_back(fmt::format("line {}: truncated last line dropped", line_no));
          return;
        }
        throw InputError(SourceLoc{path_, line_no, parser_.error_col()}, parser_.error(), std::string(line));
      case LineKind::kLost:
      case LineKind::kBufferStarted:
        drain();
        ex_.on_lost(parser_.lost_cpu(), k == LineKind::kLost ? parser_.lost_count() : -1, line_no,
                    k == LineKind::kBufferStarted);
        return;
      case LineKind::kEvent: break;
    }
    take(ev, line_no);
  }

  // A parsed event (`ev` is the pool slot free_.back()) enters the reorder window.
  void take(TraceEvent& ev, long line_no) {
    after_print_ = ev.type == EventType::kOther && is_print_event(ev.event_name);
    if (rep_.format.empty()) rep_.format = parser_.hints().perf_prefix ? "perf script" : "ftrace (trace_pipe)";
    // trace-cmd report of several buffers: keep one (they are separate recordings).
    const std::string& buf = parser_.buffer();
    if (!buffer_chosen_) {
      buffer_chosen_ = true;
      buffer_ = opt_.buffer.empty() ? buf : opt_.buffer;
    }
    if (buf != buffer_) {
      ++skipped_other_buffer_[buf];
      return;
    }
    ev.line = line_no;
    seen_event_ = true;
    ++rep_.events;
    ++rep_.events_by_type[static_cast<size_t>(ev.type)];
    if (ev.type == EventType::kOther) {
      // Runs of the same event name (sched_stat_runtime, syscalls) reuse the last counter.
      if (last_other_ == rep_.other_events.end() || last_other_->first != ev.event_name)
        last_other_ = rep_.other_events.try_emplace(ev.event_name).first;
      ++last_other_->second;
    }
    rep_.nr_cpus = std::max(rep_.nr_cpus, static_cast<uint32_t>(ev.cpu + 1));
    const uint32_t slot = free_.back();
    free_.pop_back();
    if (pending_ != kNoSlot) accept(pending_, &ev);
    pending_ = slot;
    pending_ref_ = std::max(last_ts_, cpu_last_[static_cast<size_t>(ev.cpu)]);
    pending_ref_line_ = pending_ref_ == last_ts_ ? last_line_ : cpu_last_line_[static_cast<size_t>(ev.cpu)];
    if (free_.empty()) release_one();
  }

  // Clock checks, one event late so both neighbours are known. `pending_ref_` is the latest
  // of the previous event in the file and the previous event on the same CPU. An event more than
  // clock_tolerance before it is a clock going backwards; one more than clock_tolerance after
  // its successor, which itself continues from before, jumped ahead. Either way its timestamp
  // is set to `pending_ref_` (its predecessor's): a moved event is then off by at most the gap
  // to its neighbours, never by the size of the jump.
  void accept(uint32_t slot, const TraceEvent* next) {
    TraceEvent& ev = pool_[slot];
    const int64_t tol = opt_.clock_tolerance.count();
    if (pending_ref_ != INT64_MIN) {
      const bool back = ev.ts < pending_ref_ - tol;
      const bool ahead = next && ev.ts > next->ts + tol && next->ts >= pending_ref_ - tol;
      if (back || ahead) {
        const int64_t by = back ? pending_ref_ - ev.ts : ev.ts - next->ts;
        ClockTrouble& c = back ? clock_back_ : clock_ahead_;
        const std::string what =
            back ? fmt::format("timestamp goes backwards by {} at line {} (behind line {})",
                               format_duration(Duration::ns(by)), ev.line, pending_ref_line_)
                 : fmt::format("timestamp jumps ahead by {} at line {} (line {} is that much earlier)",
                               format_duration(Duration::ns(by)), ev.line, next->line);
        if (opt_.strict) throw InputError(SourceLoc{path_, ev.line}, "strict mode: " + what);
        if (c.count++ == 0) {
          c.first = what;
        }
        c.max = std::max(c.max, by);
        repair(back ? "clock-backwards" : "clock-ahead", ev.line,
               back ? "an event is earlier than the one before it by more than the clock tolerance; its "
                      "timestamp was set to its predecessor's"
                    : "an event is later than the one after it by more than the clock tolerance; its "
                      "timestamp was set to its predecessor's");
        ev.ts = pending_ref_;
      }
    }
    last_ts_ = ev.ts;
    last_line_ = ev.line;
    cpu_last_[static_cast<size_t>(ev.cpu)] = ev.ts;
    cpu_last_line_[static_cast<size_t>(ev.cpu)] = ev.line;
    heap_.push(Key{ev.ts, seq_++, slot});
  }

  void flush_pending() {
    if (pending_ == kNoSlot) return;
    accept(pending_, nullptr);
    pending_ = kNoSlot;
  }

  void release_one() {
    const Key k = heap_.pop();
    TraceEvent& ev = pool_[k.slot];
    if (ev.ts < released_ts_) {
      repair("out-of-order", ev.line,
             "an event came earlier than events already processed, beyond the reorder window; "
             "its timestamp was clamped");
      ev.ts = released_ts_;
    }
    released_ts_ = ev.ts;
    if (opt_.on_event) opt_.on_event(ev);
    ex_.on_event(ev);
    free_.push_back(k.slot);
  }

  void drain() {
    flush_pending();
    while (!heap_.empty()) release_one();
  }

 public:
  /// The buffers whose events were skipped (not the one kept), with their event counts.
  const std::map<std::string, uint64_t>& skipped_buffers() const { return skipped_other_buffer_; }

  void finish_report() {
    if (print_continuations_ > 0)
      rep_.warnings.push_back(fmt::format(
          "skipped {} continuation line{} of multi-line print events (bprint/bputs/print whose "
          "message holds a newline), first at line {}: free text, no scheduling events",
          print_continuations_, print_continuations_ == 1 ? "" : "s", print_continuation_first_));
    for (const ClockTrouble* c : {&clock_back_, &clock_ahead_}) {
      if (c->count == 0) continue;
      rep_.warnings.push_back(fmt::format(
          "{}{}: clock trouble, not scheduling; each such event was given its predecessor's "
          "time (off by at most the gap to its neighbours, not by the jump)",
          c->first,
          c->count > 1 ? fmt::format(" and {} more events (up to {})", c->count - 1, format_duration(Duration::ns(c->max)))
                       : ""));
    }
    for (const auto& [name, n] : skipped_other_buffer_)
      rep_.warnings.push_back(fmt::format(
          "skipped {} events of trace-cmd buffer '{}' (several buffers in one report; kept '{}', "
          "choose with --buffer)", n, name.empty() ? "(top level)" : name, buffer_.empty() ? "(top level)" : buffer_));
    const FormatHints& h = parser_.hints();
    if (rep_.format == "trace-cmd report") {
      if (h.latency_prefix) rep_.format += " -l";
      if (h.numeric_state) rep_.format += " -R";
      else if (!h.plugin_switch && rep_.events_by_type[0] > 0) rep_.format += " -N";
      if (h.nine_decimals) rep_.format += " -t";
    }
    if (h.plugin_switch) {
      rep_.warnings.push_back(fmt::format(
          "trace-cmd report's sched_switch plugin (libtraceevent <= 1.7, Debian trace-cmd 3.1.6) "
          "mislabels prev_state on 4.14+ kernels: Z as X, X as Z, I as W, R+ as R (seen here: X {}, "
          "Z {}, W {}, R {}); W was read as I (sleeping), X/Z as exit, R as preempted. For exact "
          "states use 'trace-cmd report -N'",
          h.plugin_letters[0], h.plugin_letters[1], h.plugin_letters[2], h.plugin_letters[3]));
    }
    // Options that only apply to some traces: said when they had nothing to act on, so that a
    // user who believed the trace needed them learns that the figures were read without them.
    if (opt_.clock_hz > 0 && !h.integer_ts)
      rep_.warnings.push_back(fmt::format(
          "--clock-hz {} ignored: this trace's timestamps are seconds with a fraction (a nanosecond "
          "clock such as local, global or mono), not integer ticks",
          opt_.clock_hz));
    if (!opt_.kernel_version.empty() && !h.numeric_state && !perf_)
      rep_.warnings.push_back(fmt::format(
          "--kernel-version {} ignored: it only decodes a numeric prev_state (trace-cmd report -R), and "
          "this trace prints prev_state as letters",
          opt_.kernel_version));
    if (rep_.entries_written > rep_.entries_in_buffer && rep_.entries_in_buffer >= 0)
      rep_.warnings.push_back(fmt::format(
          "the ring buffer overwrote {} of {} events (entries-in-buffer/entries-written); the "
          "trace starts mid-stream on some CPUs: enlarge buffer_size_kb",
          rep_.entries_written - rep_.entries_in_buffer, rep_.entries_written));
    auto& k = rep_.kernel_hints;
    k.clear();
    if (h.flag_width == 0) {
      if (h.perf_prefix) k.emplace_back("no flag columns (perf script never prints them)");
      else if (rep_.format.rfind("trace-cmd", 0) == 0) k.emplace_back("no flag columns (trace-cmd report < 3.3)");
      else k.emplace_back("no flag columns (options/irq-info off, or a kernel < 3.3)");
    }
    else if (h.flag_width == 4) k.emplace_back("4 flag columns: 3.3 - 5.14");
    else if (h.flag_width == 5) k.emplace_back("5 flag columns: >= 5.15");
    else if (h.flag_width >= 6) k.push_back(fmt::format("{} flag columns: PREEMPT_RT", h.flag_width));
    if (h.max_pid_width >= 8 && !h.perf_prefix && rep_.format.rfind("trace-cmd", 0) != 0)
      k.emplace_back("7-wide pid field: >= 5.10");
    if (h.tgid_column) k.emplace_back("TGID column (record-tgid)");
    if (h.waking_seen) k.emplace_back("sched_waking: >= 4.3");
    if (h.success_field) k.emplace_back("success= in wakeups: <= 4.2 text (or a raw dump)");
    if (h.group_dead) k.emplace_back("sched_process_exit group_dead: >= 6.16");
    if (h.vruntime) k.emplace_back("sched_stat_runtime vruntime: <= 6.7");
    if (h.numeric_state) {
      if (!opt_.kernel_version.empty())
        k.push_back(fmt::format("numeric prev_state decoded with the {} layout", opt_.kernel_version));
      else
        k.push_back(fmt::format("numeric prev_state decoded with the {} layout, inferred from its values ({}{})",
                                state_layout_kernels(layout_used_), join(values_text(h.state_values), ", "),
                                candidates_ > 1 ? fmt::format("; {} layouts fit and read them alike", candidates_) : ""));
    }
    if (h.integer_ts) k.push_back(fmt::format("integer clock at {} Hz", opt_.clock_hz));
    else if (h.nine_decimals) k.emplace_back("nanosecond timestamps");
  }

 private:
  struct Key {
    int64_t ts;
    uint64_t seq;
    uint32_t slot;
    bool operator>(const Key& o) const { return ts != o.ts ? ts > o.ts : seq > o.seq; }
  };
  // The reorder window's events, earliest (ts, then file order) first. Most traces are already
  // in time order, so an event later than every one held goes to a FIFO (O(1), no sift over the
  // window); only an out-of-order one goes to the heap. The keys are distinct (seq), so the
  // earlier of the two fronts is the minimum of the whole set: the same order as one heap.
  class ReorderQueue {
   public:
    bool empty() const { return run_.empty() && heap_.empty(); }
    void push(const Key& k) {
      if (run_.empty() || k > run_.back()) run_.push_back(k);
      else heap_.push(k);
    }
    Key pop() {
      Key k;
      if (!run_.empty() && (heap_.empty() || heap_.top() > run_.front())) {
        k = run_.front();
        run_.pop_front();
      } else {
        k = heap_.top();
        heap_.pop();
      }
      return k;
    }

   private:
    std::deque<Key> run_;
    std::priority_queue<Key, std::vector<Key>, std::greater<Key>> heap_;
  };
  static std::vector<std::string> values_text(const std::vector<uint64_t>& v) {
    std::vector<std::string> out;
    out.reserve(v.size());
    for (uint64_t x : v) out.push_back(std::to_string(x));
    return out;
  }
  const std::string& path_;
  const std::string_view* data_;
  const ExtractOptions& opt_;
  ImportReport& rep_;
  Extractor& ex_;
  std::optional<StateLayout> inferred_;
  StateLayout layout_used_ = StateLayout::kV4_14;
  size_t candidates_ = 1;
  LineParser parser_;
  PerfData* perf_ = nullptr;
  std::vector<TraceEvent> pool_;
  std::vector<uint32_t> free_;
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  struct ClockTrouble {
    uint64_t count = 0;
    std::string first;
    int64_t max = 0;
  };
  uint32_t pending_ = kNoSlot;  // the event whose clock check waits for its successor
  int64_t pending_ref_ = INT64_MIN;
  long pending_ref_line_ = 0;
  int64_t last_ts_ = INT64_MIN;
  long last_line_ = 0;
  std::vector<int64_t> cpu_last_ = std::vector<int64_t>(kMaxCpu + 1, INT64_MIN);
  std::vector<long> cpu_last_line_ = std::vector<long>(kMaxCpu + 1, 0);
  ClockTrouble clock_back_, clock_ahead_;
  ReorderQueue heap_;
  uint64_t seq_ = 0;
  int64_t released_ts_ = INT64_MIN;
  bool buffer_chosen_ = false;
  bool after_print_ = false;  // the last event line was a print-like event (bprint, print, ...)
  uint64_t print_continuations_ = 0;
  long print_continuation_first_ = 0;
  bool seen_event_ = false;
  std::string buffer_;
  std::map<std::string, uint64_t> skipped_other_buffer_;
  // rep_.other_events' entry of the last kOther event (a std::map: iterators stay valid).
  std::map<std::string, uint64_t>::iterator last_other_ = rep_.other_events.end();
};

std::string hist_line(const Histogram& h) {
  if (h.empty()) return "n=0";
  return fmt::format("n={} mean={} p50={} p90={} p99={} max={}", h.count(),
                     format_duration(Duration::ns(static_cast<int64_t>(h.mean()))),
                     format_duration(Duration::ns(h.percentile(50))),
                     format_duration(Duration::ns(h.percentile(90))),
                     format_duration(Duration::ns(h.percentile(99))), format_duration(Duration::ns(h.max())));
}

}  // namespace

uint64_t ImportReport::repairs_total() const {
  uint64_t n = 0;
  for (const auto& [k, r] : repairs) n += r.count;
  return n;
}

std::string ImportReport::describe() const {
  std::string o;
  if (rendered_bytes > 0)
    o += fmt::format("trace:         {} ({} compression, {} bytes of trace.dat; rendered as {} bytes, {} lines of "
                     "text)\n",
                     path, compression, bytes, rendered_bytes, lines);
  else if (format.rfind("perf.data", 0) == 0)
    // Its "lines" are the samples, each the line of `perf script --ns` that would print it.
    o += fmt::format("trace:         {} ({} compression, {} bytes, {} samples)\n", path, compression, bytes, lines);
  else
    o += fmt::format("trace:         {} ({} compression, {} bytes, {} lines)\n", path, compression, bytes, lines);
  o += fmt::format("format:        {}\n", format);
  o += fmt::format("kernel hints:  {}\n", kernel_hints.empty() ? "none" : join(kernel_hints, "; "));
  o += fmt::format("cpus:          {} seen", nr_cpus);
  if (header_cpus >= 0) o += fmt::format(" (header says {})", header_cpus);
  o += "\n";
  o += fmt::format("time:          {} .. {} ({})\n", format_ftrace_time(Instant::from_ns(first_ts)),
                   format_ftrace_time(Instant::from_ns(last_ts)), format_duration(Duration::ns(last_ts - first_ts)));
  o += fmt::format("events:        {}\n", events);
  for (int i = 0; i < kNumEventTypes; ++i) {
    auto t = static_cast<EventType>(i);
    if (t == EventType::kOther || events_by_type[static_cast<size_t>(i)] == 0) continue;
    o += fmt::format("  {:<20} {}\n", event_type_name(t), events_by_type[static_cast<size_t>(i)]);
  }
  for (const auto& [name, n] : other_events)
    o += fmt::format("  {:<20} {} ({})\n", name, n,
                     channel_mode != TraceChannels::kOff && name.rfind("sys_", 0) == 0 ? "--channels" : "ignored");
  if (tasks_background > 0)
    o += fmt::format("tasks:         {} seen, {} selected, {} background (idle excluded)\n", tasks_seen, tasks_selected,
                     tasks_background);
  else
    o += fmt::format("tasks:         {} seen, {} selected (idle excluded)\n", tasks_seen, tasks_selected);
  o += fmt::format("selection:     {}\n", selection);
  o += fmt::format("wakeups:       {} no-op (task already runnable or running), {} paired with a later switch-out\n",
                   wakeups_noop, early_wakes_paired);
  if (inferred_switch_ins > 0)
    o += fmt::format("inferred:      {} switch-ins from idle with no sched_switch recorded (placed at the CPU's previous event)\n",
                     inferred_switch_ins);
  if (lost.empty()) {
    o += "lost events:   none\n";
  } else {
    o += fmt::format("lost events:   {} windows\n", lost.size());
    for (const auto& w : lost) {
      if (w.buffer_started)
        o += fmt::format("  line {}: CPU {} buffer started (older events overwritten); {} tasks resynchronised\n",
                         w.line, w.cpu, w.tasks_resynced);
      else
        o += fmt::format("  line {}: CPU {} lost {} events; {} tasks resynchronised\n", w.line, w.cpu,
                         w.events >= 0 ? std::to_string(w.events) : "an unknown number of", w.tasks_resynced);
    }
  }
  if (repairs.empty()) {
    o += "repairs:       none\n";
  } else {
    o += fmt::format("repairs:       {}\n", repairs_total());
    for (const auto& [k, r] : repairs)
      o += fmt::format("  {} x{} (first at line {}): {}\n", k, r.count, r.first_line, r.reason);
  }
  o += fmt::format("conservation:  {} (wakes {} = blocks {} + blocked at start {}; run {} ns = on-CPU {} ns)\n",
                   conservation_ok ? "ok" : "FAILED", wakes_total, blocks_total, blocked_at_start,
                   run_total.count(), oncpu_total.count());
  if (channel_mode != TraceChannels::kOff) {
    const ChannelImport& c = channels;
    o += fmt::format("channels:      {} ({} read/write syscalls; {} wakeups between them join {} fd groups: {} replayed as "
                     "channels, {} left as tokens for fewer bytes written than read, {} for only one side seen; "
                     "{} writes, {} reads replace {} wake/block pairs)\n",
                     trace_channels_name(channel_mode), c.syscalls, c.edges, c.groups, c.channels, c.refused_short,
                     c.refused_one_sided, c.writes, c.reads, c.tokens_replaced);
  }
  if (idle_wake.cpu_idle_events + idle_wake.ipi_events > 0) o += describe_idle_wake(idle_wake);
  for (const auto& w : warnings) o += "warning: " + w + "\n";
  return o;
}

namespace {

// Nearest-rank percentile of unsorted samples (q in 0..100); v must not be empty.
int64_t percentile(std::vector<int64_t> v, double q) {
  std::sort(v.begin(), v.end());
  size_t k = static_cast<size_t>(q / 100.0 * static_cast<double>(v.size()) + 0.999999);
  return v[std::min(v.size(), std::max<size_t>(k, 1)) - 1];
}

std::string latency_row(const std::string& label, const std::vector<int64_t>& v) {
  if (v.empty()) return fmt::format("  {:<18} n=0\n", label);
  return fmt::format("  {:<18} n={:<6} p50={:.1f}us p90={:.1f}us p99={:.1f}us\n", label, v.size(),
                     static_cast<double>(percentile(v, 50)) / 1e3, static_cast<double>(percentile(v, 90)) / 1e3,
                     static_cast<double>(percentile(v, 99)) / 1e3);
}

constexpr int64_t kModelIpi = 600;          // CostModel's ipi_same_package default (ns)
constexpr size_t kMinIdleWakeSamples = 20;

std::string spread_row(const std::string& label, const std::vector<int64_t>& v) {
  if (v.empty()) return fmt::format("  {:<18} n=0\n", label);
  return fmt::format("  {:<18} n={:<6} p10={:.1f}us p50={:.1f}us p90={:.1f}us\n", label, v.size(),
                     static_cast<double>(percentile(v, 10)) / 1e3, static_cast<double>(percentile(v, 50)) / 1e3,
                     static_cast<double>(percentile(v, 90)) / 1e3);
}

// The waking-to-switch-in p50 of the measured remote preempting wakes, whole: the engine charges
// a wake into a busy CPU of the waker's LLC no wake IPI (ttwu_queue_cond() sends none there;
// engine.cpp wake_delay()), so all of it is the resched_ipi a replay waits after its decision
// to preempt. (On a machine with several LLCs the samples also hold cross-LLC wakes, which the
// model sends through the wake list with the wake IPI and preempts locally.)
int64_t suggested_resched_ipi(const IdleWakeObserved& m) {
  std::vector<int64_t> lat;
  for (const auto& r : m.resched) lat.push_back(r.latency);
  return percentile(lat, 50);
}

std::string describe_resched(const IdleWakeObserved& m) {
  std::string o = fmt::format("resched IPIs:  measured in the trace ({} irq_vectors:reschedule_entry events; all tasks; "
                              "remote wakes whose wakee preempted the task running on the target at the waking, "
                              "after an ipi_send_cpu from the waker's CPU to the target)\n",
                              m.resched_entry_events);
  std::vector<int64_t> lat, send, delivery, after;
  for (const auto& r : m.resched) {
    lat.push_back(r.latency);
    send.push_back(r.ipi);
    if (r.entry >= 0) {
      delivery.push_back(r.entry - r.ipi);
      after.push_back(r.latency - r.entry);
    }
  }
  o += spread_row("waking->switch-in", lat);
  o += spread_row("waking->IPI sent", send);
  if (m.resched_entry_events > 0) {
    o += spread_row("IPI->resched entry", delivery);
    o += spread_row("entry->switch-in", after);
  }
  if (lat.size() >= kMinIdleWakeSamples)
    o += fmt::format("  suggested resched_ipi = p50 = {} ns (a busy target in the waker's LLC pays no wake IPI)\n",
                     suggested_resched_ipi(m));
  else
    o += fmt::format("  no resched_ipi suggested: {} samples (fewer than {})\n", lat.size(), kMinIdleWakeSamples);
  o += fmt::format("  not sampled: {} remote preempting wakes with no IPI from the waker's CPU to the target",
                   m.resched_no_ipi);
  if (m.resched_entry_events > 0)
    o += fmt::format(", {} sampled wakes with no reschedule_entry on the target before the switch-in",
                     lat.size() - delivery.size());
  return o + "\n";
}

}  // namespace

std::string describe_idle_wake(const IdleWakeObserved& m) {
  std::string o = fmt::format("idle wakes:    measured in the trace ({} power:cpu_idle, {} ipi_send_cpu events; all tasks; "
                              "waking to switch-in of remote wakes to an idle CPU, by how long it had been idle)\n",
                              m.cpu_idle_events, m.ipi_events);
  static const char* const kLabels[5] = {"idle <20us", "idle 20-50us", "idle 50-200us", "idle 0.2-2ms", "idle >=2ms"};
  for (size_t b = 0; b < 5; ++b) o += latency_row(kLabels[b], m.by_idle[b]);
  for (const auto& [state, v] : m.by_state) o += latency_row(fmt::format("idle state {}", state), v);
  if (m.ipi_events > 0) o += latency_row("IPI to idle cpu", m.ipi_to_idle);
  o += fmt::format("  not in the rows above: {} local wakes by an interrupt on the idle target itself (timer wakes: "
                   "--idle-wake-costs's timer_wake_table or timer_wake_local), {} idle exits with no recorded switch "
                   "from idle\n",
                   m.local_wakes, m.unrecorded);
  if (m.ipi_events > 0) o += describe_resched(m);
  return o;
}

std::vector<IdleClass> idle_classes(const std::vector<IdleWakeObserved::Sample>& samples, size_t min_samples,
                                    std::vector<std::string>* merges) {
  // Each class as its samples' latencies; edges[i] = the class's lower idle bound.
  std::vector<int64_t> edges(std::begin(kIdleClassEdges), std::end(kIdleClassEdges));
  std::vector<std::vector<int64_t>> lat(edges.size());
  for (const auto& s : samples) {
    size_t c = static_cast<size_t>(std::upper_bound(edges.begin(), edges.end(), s.idle) - edges.begin());
    lat[c == 0 ? 0 : c - 1].push_back(s.latency);  // a negative idle time (clock repair) counts as 0
  }
  for (size_t i = lat.size(); i-- > 0;)
    if (lat[i].empty()) {
      lat.erase(lat.begin() + static_cast<std::ptrdiff_t>(i));
      edges.erase(edges.begin() + static_cast<std::ptrdiff_t>(i));
    }
  auto label = [&](size_t i) {
    const std::string hi = i + 1 < edges.size() ? format_duration(Duration::ns(edges[i + 1])) : "";
    return fmt::format("{}-{}", format_duration(Duration::ns(edges[i])), hi);
  };
  while (lat.size() > 1) {
    size_t small = 0;
    for (size_t i = 1; i < lat.size(); ++i)
      if (lat[i].size() < lat[small].size()) small = i;
    if (lat[small].size() >= min_samples) break;
    size_t into = small == 0 ? 1 : small - 1;
    if (small > 0 && small + 1 < lat.size() && lat[small + 1].size() < lat[small - 1].size()) into = small + 1;
    if (merges)
      merges->push_back(fmt::format("idle {} (n={}) merged into idle {} (n={})", label(small), lat[small].size(),
                                    label(into), lat[into].size()));
    lat[into].insert(lat[into].end(), lat[small].begin(), lat[small].end());
    // The merged class starts at the lower of the two edges.
    const size_t lo = std::min(small, into), hi = std::max(small, into);
    if (into == hi) lat[lo].swap(lat[hi]);
    lat.erase(lat.begin() + static_cast<std::ptrdiff_t>(hi));
    edges.erase(edges.begin() + static_cast<std::ptrdiff_t>(hi));
  }
  std::vector<IdleClass> out;
  for (size_t i = 0; i < lat.size(); ++i) out.push_back({edges[i], lat[i].size(), percentile(lat[i], 50)});
  if (!out.empty()) out.front().from = 0;  // the table covers every idle time from 0
  return out;
}

namespace {
// A cost table's JSON and its note: per class, p50 - ipi (not below 0).
std::string table_json(const std::vector<IdleClass>& classes, int64_t ipi, std::string& note) {
  std::string j = "[";
  for (size_t i = 0; i < classes.size(); ++i) {
    const IdleClass& c = classes[i];
    const int64_t cost = std::max<int64_t>(0, c.p50 - ipi);
    j += fmt::format("{}\n    {{\"idle_from\": {}, \"cost\": {}, \"samples\": {}}}", i ? "," : "", c.from, cost, c.n);
    note += fmt::format("{}idle >= {}: {} ns (p50 {} ns of {})", i ? ", " : "", format_duration(Duration::ns(c.from)),
                        cost, c.p50, c.n);
  }
  return j + "\n  ]";
}
}  // namespace

std::string idle_wake_costs_json(const IdleWakeObserved& m, const std::string& trace, std::string* note) {
  const bool idle = m.remote.size() >= kMinIdleWakeSamples, resched = m.resched.size() >= kMinIdleWakeSamples;
  const bool timer = m.local.size() >= kMinIdleWakeSamples;
  if (!idle && !resched && !timer)
    throw InputError(SourceLoc{trace}, fmt::format("--idle-wake-costs: {} remote wakes to an idle CPU with a recorded "
                                                   "switch from idle, {} remote preempting wakes after a recorded "
                                                   "IPI and {} local timer wakes with a recorded switch from idle; at "
                                                   "least {} of one kind are needed",
                                                   m.remote.size(), m.resched.size(), m.local.size(),
                                                   kMinIdleWakeSamples));
  std::vector<std::string> merges;
  std::string n;
  std::string json = fmt::format("{{\n  {}\"ipi_same_package\": {}", idle ? "\"idle_wake\": \"table\",\n  " : "",
                                 kModelIpi);
  if (idle) {
    n = fmt::format("idle_exit_table (waking to switch-in p50 - ipi {} ns): ", kModelIpi);
    json += ",\n  \"idle_exit_table\": " + table_json(idle_classes(m.remote, kMinIdleWakeSamples, &merges), kModelIpi, n);
    if (m.local.size() >= kMinIdleWakeSamples) {
      // A local timer wake sends no IPI: its cost is the whole waking-to-switch-in time.
      std::vector<std::string> timer_merges;
      n += "; timer_wake_table (local timer wakes, waking to switch-in p50): ";
      json += ",\n  \"timer_wake_table\": " + table_json(idle_classes(m.local, kMinIdleWakeSamples, &timer_merges), 0, n);
      for (const auto& mg : timer_merges) merges.push_back("timer " + mg);
    } else {
      n += fmt::format("; no timer_wake_table: {} local timer wakes with a recorded switch from idle (fewer than {})",
                       m.local.size(), kMinIdleWakeSamples);
    }
  } else {
    // The idle-wake model stays as it was (the file selects no idle_wake mode).
    n = fmt::format("no idle_exit_table nor timer_wake_table: {} remote wakes to an idle CPU with a recorded switch "
                    "from idle (fewer than {})",
                    m.remote.size(), kMinIdleWakeSamples);
    // A timer-driven trace (cyclictest) wakes its sleepers from their own CPU's hrtimer interrupt
    // and seldom wakes an idle CPU from another: its local timer wakes still measure the wake
    // from idle with no IPI (interrupt exit, idle exit, the switch). Without the idle table the
    // file selects no idle_wake mode, so a scalar: timer_wake_local, which every mode charges on a
    // timer wake (under `table` when the file it is merged into has no timer_wake_table).
    if (timer) {
      std::vector<int64_t> lat;
      for (const auto& s : m.local) lat.push_back(s.latency);
      const int64_t p50 = percentile(lat, 50);
      json += fmt::format(",\n  \"timer_wake_local\": {}", p50);
      n += fmt::format("; timer_wake_local (local timer wakes, waking to switch-in p50): {} ns of {}", p50,
                       m.local.size());
    }
  }
  // The reschedule IPI of a remote preemption (docs/traces.md "The reschedule IPI measured from
  // the trace"): written when 20 were measured, like the tables' classes.
  if (resched) {
    const int64_t resched_ipi = suggested_resched_ipi(m);
    json += fmt::format(",\n  \"resched_ipi\": {}", resched_ipi);
    n += fmt::format("; resched_ipi (remote preempting wakes, waking to switch-in p50): {} ns of {}", resched_ipi,
                     m.resched.size());
  } else {
    n += fmt::format("; no resched_ipi: {} remote preempting wakes after a recorded IPI (fewer than {})",
                     m.resched.size(), kMinIdleWakeSamples);
  }
  for (const auto& mg : merges) n += "; " + mg;
  if (note) *note = n;
  return json + "\n}\n";
}

std::string describe_workload(const Workload& w) {
  std::string o;
  size_t forked = 0, runnable = 0, blocked = 0, sleeping = 0, kthreads = 0;
  for (const auto& t : w.tasks) {
    switch (t.start) {
      case StartState::kForked: ++forked; break;
      case StartState::kRunnable: ++runnable; break;
      case StartState::kBlocked: ++blocked; break;
      case StartState::kSleeping: ++sleeping; break;
    }
    kthreads += t.kthread;
  }
  auto c = w.expanded_action_counts();
  o += fmt::format("workload:      {} tasks ({} forked, {} runnable at start, {} blocked, {} sleeping; {} per-CPU kthreads)\n",
                   w.tasks.size(), forked, runnable, blocked, sleeping, kthreads);
  o += fmt::format("actions:       run {}  wake {}  fork {}  block {}  sleep {}  exit {}  exec {}", c[0], c[1], c[2],
                   c[3], c[4], c[5], c[6]);
  const auto wr = static_cast<size_t>(ActionKind::kWrite), rd = static_cast<size_t>(ActionKind::kRead);
  if (c[wr] + c[rd] > 0) o += fmt::format("  write {}  read {}", c[wr], c[rd]);
  o += "\n";
  o += fmt::format("work:          {} ns of run", w.total_work().count());
  // The observed runtime below is the measured tasks' alone: say which part is theirs.
  if (const size_t nb = w.background_count(); nb > 0) {
    const int64_t measured = w.total_work(/*measured_only=*/true).count();
    o += fmt::format(" ({} ns by the measured tasks, {} ns by the {} background task{})", measured,
                     w.total_work().count() - measured, nb, nb == 1 ? "" : "s");
  }
  o += "\n";
  const ObservedStats& s = w.observed;
  if (!s.present) return o;
  o += "observed:\n";
  o += "  wakeup latency " + hist_line(s.wakeup_latency) + "\n";
  if (s.wakeup_latency_inferred > 0)
    // As in run's simulated-vs-observed table: those samples end at a switch-in placed at the
    // earliest time no event contradicts (infer_switch_from_idle), so the figures above are
    // lower bounds (docs/fidelity.md, "Measurement caveats").
    o += fmt::format("                 (lower bounds: {} of {} samples end at a switch-in from idle the trace did not "
                     "record)\n",
                     s.wakeup_latency_inferred, s.wakeup_latency.count());
  o += "  runqueue wait  " + hist_line(s.runqueue_wait) + "\n";
  o += fmt::format("  wakeups {}  migrations {}  context switches {}  cpus {}\n", s.wakeups, s.migrations,
                   s.context_switches, s.nr_cpus);
  o += fmt::format("  span {}  runtime {}\n", format_duration(s.span), format_duration(s.total_runtime));
  return o;
}

bool is_trace_file(const std::string& path, std::optional<InputError>* why) {
  try {
    LineReader rd(path);
    LineParser lp(ParseOptions{1, StateLayout::kV4_14, true});
    std::string_view line;
    int nonempty = 0;
    while (rd.next(line) && nonempty < 64) {
      if (rd.line_no() == 1) {
        if (line.starts_with(kTraceDatMagic) && tracedat_supported() && path != "-") return true;
        if (looks_like_perf_data(line) && path != "-") return true;
        check_text_trace(line, path);
      }
      size_t f = line.find_first_not_of(" \t\r");
      if (f == std::string_view::npos) continue;
      std::string_view t = line.substr(f);
      if (nonempty++ == 0) {
        if (t.starts_with("# tracer:") || t.starts_with("cpus=") || t.starts_with("version = ")) return true;
        if (t.starts_with("<!DOCTYPE html") || t.starts_with("<html")) {
          while (rd.next(line) && rd.line_no() < 20000)
            if (line.find("class=\"trace-data\"") != std::string_view::npos) return true;
          return false;
        }
      }
      TraceEvent ev;
      LineKind k = lp.parse(line, ev);
      if (k == LineKind::kEvent) return true;
      if (k == LineKind::kError) {
        // An event line with a bad field (a pid out of range, ...) is a damaged trace: say so.
        if (why && lp.error().rfind("not a trace event line", 0) != 0)
          why->emplace(SourceLoc{path, rd.line_no(), lp.error_col()}, lp.error(), std::string(line));
        return false;
      }
    }
    if (why && nonempty == 0) {
      if (rd.truncated_stream())
        why->emplace(SourceLoc{path}, fmt::format("the {} stream ends early before any complete line "
                                                  "(file cut or damaged)", compression_name(rd.compression())));
      else if (rd.bytes_out() == 0)
        why->emplace(SourceLoc{path}, "empty file: expected a workload or a kernel trace");
    }
  } catch (const InputError& e) {
    if (why) why->emplace(e);  // unreadable, corrupt stream, binary file, line past the bound
  } catch (const std::exception&) {
  }
  return false;
}

namespace {
// A first pass read some numeric prev_state provisionally in a way the inferred layout reads
// otherwise: the import starts over with that layout.
struct ReadAgain {
  StateLayout layout;
};

Workload import_once(const std::string& path, const std::string_view* data, const ExtractOptions& opt,
                     ImportReport* report, std::optional<StateLayout> layout) {
  ImportReport local;
  ImportReport& rep = report ? *report : local;
  rep = ImportReport{};
  rep.path = path;
  // A trace.dat is rendered as ftrace text by libtracecmd (tracedat.cpp) and read from memory.
  TraceDatSource dat_source;
  const std::optional<std::string> dat_text = tracedat_text_if_any(path, data, &dat_source);
  const std::string_view dat_view = dat_text ? std::string_view(*dat_text) : std::string_view();
  if (dat_text) data = &dat_view;
  // A perf.data is decoded record by record (perfdata.cpp), without text.
  std::unique_ptr<PerfData> perf;
  Compression perf_compression = Compression::kNone;
  if (!dat_text) {
    if (std::optional<PerfDataBytes> bytes = perf_data_bytes_if_any(path, data, &perf_compression)) {
      StateLayout given = StateLayout::kV4_14;
      if (!opt.kernel_version.empty() && !state_layout_for_kernel(opt.kernel_version, given))
        throw InputError(fmt::format("bad --kernel-version '{}': expected MAJOR.MINOR, e.g. 4.9", opt.kernel_version));
      perf = std::make_unique<PerfData>(std::move(*bytes), path, opt.kernel_version.empty() ? nullptr : &given);
      layout = perf->layout();
    }
  }
  std::vector<bool> selection, bg_selection;
  bool two_pass = !opt.comm_regex.empty() || !opt.background_comm_regex.empty();
  if (two_pass && path == "-" && !data)
    throw InputError(fmt::format("{} reads the trace twice (exec renames tasks); give a file, not stdin",
                                 opt.comm_regex.empty() ? "--background-comm" : "--comm"));
  if (two_pass) {
    // Pass 1: which task lives ever carried a matching comm (exec renames tasks, so the
    // decision needs the whole trace).
    ImportReport scratch;
    ExtractOptions o1 = opt;
    o1.strict = false;
    o1.on_event = nullptr;  // the caller sees the events of the second pass only
    Extractor ex1(o1, scratch, path);
    Pass p1(path, data, o1, scratch, ex1, layout);
    p1.set_perf_data(perf.get());
    p1.run();
    selection = ex1.comm_matches();
    bg_selection = ex1.background_comm_matches();
  }
  Extractor ex(opt, rep, path);
  if (!opt.comm_regex.empty()) ex.set_selection(std::move(selection));
  if (!opt.background_comm_regex.empty()) ex.set_background_selection(std::move(bg_selection));
  Pass pass(path, data, opt, rep, ex, layout);
  pass.set_perf_data(perf.get());
  pass.run();
  if (std::optional<StateLayout> again = pass.check_state_layout()) {
    const std::string why = fmt::format("its numeric prev_state values fit only the {} layout, which reads "
                                        "some of them otherwise than a first pass did",
                                        state_layout_kernels(*again));
    if (path == "-" && !data)
      throw InputError(SourceLoc{path}, fmt::format("{}; standard input cannot be read twice: give "
                                                    "--kernel-version {}", why, state_layout_version(*again)));
    if (opt.on_event && !opt.on_restart)
      throw InputError(SourceLoc{path}, fmt::format("{}: give --kernel-version {}", why, state_layout_version(*again)));
    throw ReadAgain{*again};
  }
  if (rep.events == 0 && rep.repairs.count("truncated-stream"))
    throw InputError(SourceLoc{path}, fmt::format("no trace events before the {} stream ends early (file "
                                                  "cut or damaged)", rep.compression));
  if (rep.events == 0 && !opt.buffer.empty() && !pass.skipped_buffers().empty()) {
    // Every event belonged to other buffers: the name is wrong, not the file.
    std::vector<std::string> held;
    for (const auto& [name, n] : pass.skipped_buffers())
      held.push_back(fmt::format("'{}' ({} events)", name.empty() ? "(top level)" : name, n));
    throw InputError(SourceLoc{path}, fmt::format("--buffer '{}': no event of this trace belongs to that buffer; it "
                                                  "holds {}",
                                                  opt.buffer, join(held, ", ")));
  }
  if (rep.events == 0)
    throw InputError(SourceLoc{path}, rep.bytes == 0 ? "empty file: no trace events"
                                                     : "no trace events found (expected ftrace text, trace-cmd "
                                                       "report, perf script or systrace HTML)");
  Workload w = ex.finish();
  if ((!opt.background_comm_regex.empty() || !opt.background_pids.empty()) && rep.tasks_background == 0) {
    // An error, not a warning: a replay without the load asked for would print the figures of
    // the plain selection as if the load had been there.
    std::vector<std::string> asked;
    for (int64_t p : opt.background_pids) asked.push_back(fmt::format("--background-pid {}", p));
    if (!opt.background_comm_regex.empty()) asked.push_back(fmt::format("--background-comm '{}'", opt.background_comm_regex));
    const std::string selected = rep.selection.substr(0, rep.selection.find("; background: "));
    throw InputError(SourceLoc{path}, fmt::format("{} matched no task outside the selection [{}]: no background task "
                                                  "to replay (the selection wins over a background option; "
                                                  "`schedsim trace info` lists the tasks)",
                                                  join(asked, ", "), selected));
  }
  if (rep.tasks_background > 0 && rep.tasks_selected == 0) {
    // The workload would be all background (validate_workload's error for a workload file).
    const std::string selected = rep.selection.substr(0, rep.selection.find("; background: "));
    throw InputError(SourceLoc{path}, fmt::format("no tasks selected: the selection [{}] kept none of the {} tasks seen "
                                                  "in the trace, and its {} background task{} alone would measure "
                                                  "nothing (background options add load to a selection)",
                                                  selected, rep.tasks_seen, rep.tasks_background,
                                                  rep.tasks_background == 1 ? "" : "s"));
  }
  pass.finish_report();
  if (dat_text) {
    rep.format = fmt::format("trace.dat (libtracecmd {}, rendered as {})", tracedat_library_version(), rep.format);
    // The file's compression and the trace.dat's size, not those of the text rendered from it.
    rep.rendered_bytes = rep.bytes;
    rep.compression = compression_name(dat_source.compression);
    rep.bytes = dat_source.bytes;
  }
  if (perf) {
    const PerfDataInfo& info = perf->info();
    rep.format = fmt::format("perf.data (perf {}{}{})", info.perf_version.empty() ? "?" : info.perf_version,
                             info.pipe ? ", pipe mode" : "", info.compressed ? ", zstd records" : "");
    rep.compression = compression_name(perf_compression);
    rep.bytes = info.bytes;
    std::vector<std::string> k{fmt::format("kernel {} (the recording's os release)",
                                           info.osrelease.empty() ? "?" : info.osrelease),
                               "interrupt context from the tracepoints' common_flags"};
    k.push_back(fmt::format("numeric prev_state decoded with the {} layout{}", state_layout_kernels(perf->layout()),
                            opt.kernel_version.empty() ? "" : " (--kernel-version)"));
    for (std::string& h : rep.kernel_hints)
      if (h != "nanosecond timestamps") k.push_back(std::move(h));
    k.emplace_back("nanosecond timestamps");
    rep.kernel_hints = std::move(k);
  }
  const uint64_t wake_events = rep.events_by_type[static_cast<size_t>(EventType::kWaking)] +
                               rep.events_by_type[static_cast<size_t>(EventType::kWakeup)];
  auto no_wake = rep.repairs.find("switch-in-without-wakeup");
  if (wake_events == 0 && no_wake != rep.repairs.end()) {
    // Not a repair: the trace simply did not record wakeups.
    rep.warnings.push_back(fmt::format(
        "the trace has no sched_waking/sched_wakeup events: {} sleeps were replayed as "
        "sleep(observed), without wake causality", no_wake->second.count));
    rep.repairs.erase(no_wake);
  }
  if (!rep.kernel_hints.empty() && rep.kernel_hints[0].rfind("no flag columns", 0) == 0 && wake_events > 0)
    rep.warnings.emplace_back(
        "no flag columns: a wakeup from interrupt context cannot be told from one by the "
        "interrupted task, so some wake() actions may belong to interrupts");
  w.name = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  w.source = path;
  w.meta["trace_format"] = rep.format;
  w.meta["trace_compression"] = rep.compression;
  w.meta["trace_start"] = format_ftrace_time(Instant::from_ns(rep.first_ts));
  if (!rep.kernel_hints.empty()) w.meta["kernel_hints"] = join(rep.kernel_hints, "; ");
  if (rep.repairs_total() > 0) w.meta["trace_repairs"] = std::to_string(rep.repairs_total());
  auto log = log::get("traces");
  for (const auto& wmsg : rep.warnings) log->warn("{}: {}", path, log::brief(wmsg));
  return w;
}

Workload import_any(const std::string& path, const std::string_view* data, const ExtractOptions& opt,
                    ImportReport* report) {
  try {
    return import_once(path, data, opt, report, std::nullopt);
  } catch (const ReadAgain& again) {
    if (opt.on_restart) opt.on_restart();
    return import_once(path, data, opt, report, again.layout);
  }
}
}  // namespace

Workload import_trace(const std::string& path, const ExtractOptions& opt, ImportReport* report) {
  return import_any(path, nullptr, opt, report);
}

Workload import_trace_buffer(std::string_view data, const std::string& name, const ExtractOptions& opt,
                             ImportReport* report) {
  return import_any(name, &data, opt, report);
}

}  // namespace schedsim::traces
