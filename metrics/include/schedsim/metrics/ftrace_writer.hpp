#pragma once
/// FtraceWriter: the simulated schedule as ftrace text (the layout Perfetto's systrace_line_tokenizer reads) that Perfetto
/// (ui.perfetto.dev) renders as CPU tracks and `schedsim import` reads back.
///
/// Format: the 5.15+ kernel's `/sys/kernel/tracing/trace` layout: `# tracer: nop` header with the
/// entries line and `#P:<cpus>`, 5 flag columns, `%16s-%-7d` task prefix, optional record-tgid
/// column, `[%03d]` CPU, `%5lu.%09lu` timestamps (ns, or `%06lu` usec with `usec_timestamps`).
/// Events (kernel TP_printk formats, `prio` = 120 + nice):
///   sched_process_fork   on_task_start with a parent, on the parent's CPU
///   sched_waking         on_wake (kind wakeup), on the waker's CPU, target_cpu = previous CPU;
///                        wakeups from outside the task set (timers, interrupts) carry the
///                        hardirq flag `h` and the interrupted task as line prefix
///   sched_migrate_task   on_migrate, on the waker's CPU during a wakeup, else the destination
///   sched_wakeup         on_enqueue after a wakeup: waker's context when enqueued locally,
///                        the target CPU in IPI context (`dNh2.`) when remote
///   sched_wakeup_new     on_wake (kind fork) in the parent's context, target_cpu = chosen CPU; a
///                        task without a parent in the simulation (alive at start, or started by
///                        an untraced parent) first appears in its sched_switch, as a task alive
///                        when tracing began does
///   sched_switch         on_switch: prev_state S (block, sleep), R+ (preempt), R (migrate),
///                        X (exit); idle is `<idle>-0` / `swapper/N`
///   sched_process_exit   on_exit
/// Comms: spaces and control characters become '_', truncated to 15 characters (TASK_COMM_LEN).
/// Pids: the workload's pid when positive and unique, else a fresh number above every pid.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "schedsim/engine/observer.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim {

struct FtraceOptions {
  Instant window_start = Instant::zero();  ///< only events with start <= at < end are written
  Instant window_end = Instant::max();
  bool tgid_column = false;                ///< record-tgid layout
  bool usec_timestamps = false;            ///< `sec.usec` like the kernel, instead of `sec.nsec`
  bool truncate_comm = true;               ///< TASK_COMM_LEN: at most 15 characters
};

/// Parses the `--trace-window START,END` value ("1ms,2.5ms", "0,10s"; an empty side is open).
/// Throws InputError naming `option`.
void parse_trace_window(const std::string& text, FtraceOptions& opts,
                        const std::string& option = "--trace-window");

class FtraceWriter : public Observer {
 public:
  /// `w` supplies comms, pids, tgids and nice values; it must outlive the writer.
  FtraceWriter(const Workload& w, FtraceOptions opts = {});

  void on_start(const SchedState& s) override;
  void on_task_start(Instant at, TaskId t, TaskId parent) override;
  void on_wake(const WakeFact& f) override;
  void on_enqueue(Instant at, TaskId t, CpuId cpu) override;
  void on_switch(Instant at, CpuId cpu, TaskId prev, SwitchReason why, TaskId next) override;
  void on_migrate(Instant at, TaskId t, CpuId from, CpuId to, CpuDistance d) override;
  void on_exit(Instant at, TaskId t, CpuId cpu) override;
  /// Cuts the lines after `end` (the run's span end, SimSummary::end): only background tasks'
  /// events can come after it (a measured task stuck while background ones ran on), and the
  /// schedule written stops where the reported run does.
  void on_end(const SchedState& s, Instant end) override;

  /// The complete trace text: header plus every event line written so far (not when streaming).
  std::string text() const;
  /// Streams the event lines to `sink` (whole lines, in chunks of about kChunkBytes) instead of
  /// keeping them, so memory stays constant however long the run; call flush_body() at the end.
  /// The header is written separately (header()): its entry count is known only at the end.
  /// Lines past the run's end may already have gone to the sink: the trace is the header plus
  /// the first body_bytes() bytes streamed.
  static constexpr size_t kChunkBytes = size_t{1} << 20;
  void stream_body(std::function<void(std::string_view)> sink) { sink_ = std::move(sink); }
  /// Passes the lines still buffered to the sink.
  void flush_body();
  /// The `# tracer: nop` header with the final entry count and CPU count.
  std::string header() const;
  /// Event lines in the trace (after on_end: those up to the run's end).
  uint64_t lines() const { return cut_ ? keep_.lines : lines_; }
  /// Bytes of event lines in the trace (of those streamed, the prefix to copy).
  uint64_t body_bytes() const { return cut_ ? keep_.bytes : written_ + body_.size(); }
  /// Lines written for events after the run's end and left out by on_end().
  uint64_t lines_cut() const { return cut_ ? lines_ - keep_.lines : 0; }
  /// The pid written for task t (for tests and round-trip comparisons).
  int64_t pid_of(TaskId t) const { return pids_[t.value()]; }
  const std::string& comm_of(TaskId t) const { return comms_[t.value()]; }

 private:
  struct Pending {
    bool active = false;
    bool fork = false;
    bool from_task = true;
    uint32_t waker_cpu = 0;
  };
  bool in_window(Instant at) const { return at >= opts_.window_start && at < opts_.window_end; }
  void prefix(Instant at, uint32_t cpu, TaskId current, const char* flags);
  const std::string& task_fields(TaskId t) const;  // "comm=X pid=N prio=P"
  void measured_end(Instant at);
  void mark_kept();
  int prio_of(TaskId t) const;

  const Workload& workload_;
  FtraceOptions opts_;
  uint32_t nr_cpus_ = 0;
  std::vector<std::string> comms_;
  std::vector<int64_t> pids_, tgids_;
  std::vector<std::string> heads_, fields_;  // per task: "%16s-%-7d [(tgid) ]", "comm= pid= prio="
  std::string idle_head_;
  std::vector<std::string> swappers_;         // per CPU: the idle task's comm
  std::vector<TaskId> curr_;       // per CPU
  std::vector<int32_t> task_cpu_;  // per task: the CPU it is current on, -1 if not running
  std::vector<Pending> pending_;
  std::string body_;
  std::function<void(std::string_view)> sink_;
  uint64_t lines_ = 0;
  uint64_t written_ = 0;  // bytes passed to the sink
  // The run's end as the engine moves it (SimSummary::end: a measured task's switch-out or
  // exit), and the position after the last line at or before it. Lines come in time order, so
  // on_end() can cut at that position; an end at or after the last line cuts nothing.
  struct Position {
    uint64_t bytes = 0, lines = 0;
  };
  Instant span_end_ = Instant::zero();
  Instant last_at_ = Instant::zero();  // time of the last line written (lines_ > 0)
  Position keep_;
  bool cut_ = false;
};

}  // namespace schedsim
