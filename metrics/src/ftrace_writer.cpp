// Writes the simulated schedule in the 5.15+ kernel's ftrace text layout (docs/sources.md,
// "Trace formats"). Line prefix, from trace_print_context() in kernel/trace/trace_output.c:
//   "%16s-%-7d " comm-pid, ["(%7d) " tgid,] "[%03d] " cpu, 5 flag characters, " %5lu.%06lu" time,
//   ": ", then "<event>: <payload>" with the TP_printk formats of include/trace/events/sched.h.
#include "schedsim/metrics/ftrace_writer.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "schedsim/base/assert.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/engine/state.hpp"

namespace schedsim {

namespace {

constexpr size_t kTaskCommLen = 15;  // TASK_COMM_LEN - 1

std::string sanitize_comm(const std::string& name, bool truncate) {
  std::string out;
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    out += (u <= ' ' || u == 0x7f) ? '_' : c;
  }
  if (out.empty()) out = "task";
  if (truncate && out.size() > kTaskCommLen) out.resize(kTaskCommLen);
  return out;
}

const char* prev_state(SwitchReason why) {
  switch (why) {
    case SwitchReason::kBlock: return "S";
    case SwitchReason::kSleep: return "S";
    case SwitchReason::kPreempt: return "R+";
    case SwitchReason::kMigrate: return "R";
    case SwitchReason::kExit: return "X";
  }
  return "R";
}

const char* kHeader =
    "#                                _-----=> irqs-off/BH-disabled\n"
    "#                               / _----=> need-resched\n"
    "#                              | / _---=> hardirq/softirq\n"
    "#                              || / _--=> preempt-depth\n"
    "#                              ||| / _-=> migrate-disable\n"
    "#                              |||| /     delay\n"
    "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
    "#              | |         |   |||||     |         |\n";

const char* kHeaderTgid =
    "#                                          _-----=> irqs-off/BH-disabled\n"
    "#                                         / _----=> need-resched\n"
    "#                                        | / _---=> hardirq/softirq\n"
    "#                                        || / _--=> preempt-depth\n"
    "#                                        ||| / _-=> migrate-disable\n"
    "#                                        |||| /     delay\n"
    "#           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION\n"
    "#              | |           |       |   |||||     |         |\n";

}  // namespace

void parse_trace_window(const std::string& text, FtraceOptions& opts, const std::string& option) {
  size_t comma = text.find(',');
  auto bad = [&](const std::string& why) {
    throw InputError(SourceLoc{option, 0, 0},
                     "invalid trace window '" + text + "': " + why + " (expected START,END, e.g. 10ms,20ms)");
  };
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos) bad("need exactly one ','");
  std::string a = text.substr(0, comma), b = text.substr(comma + 1);
  Duration start = Duration::zero(), end = Duration::max();
  if (!a.empty() && !parse_duration(a, start)) bad("'" + a + "' is not a duration");
  if (!b.empty() && !parse_duration(b, end)) bad("'" + b + "' is not a duration");
  if (end <= start) bad("END must be after START");
  opts.window_start = Instant::zero() + start;
  opts.window_end = b.empty() ? Instant::max() : Instant::zero() + end;
}

FtraceWriter::FtraceWriter(const Workload& w, FtraceOptions opts) : workload_(w), opts_(opts) {
  size_t n = w.tasks.size();
  comms_.resize(n);
  pids_.assign(n, -1);
  tgids_.assign(n, -1);
  // Keep the source's pids when positive and unique; give the rest fresh numbers above them all
  // (deterministically, in task order), so every simulated task has its own pid.
  int64_t max_pid = 0;
  for (const auto& t : w.tasks) max_pid = std::max(max_pid, t.pid);
  int64_t next = std::max<int64_t>(max_pid, 1000) + 1;
  std::set<int64_t> used;
  for (size_t i = 0; i < n; ++i) {
    const TaskSpec& t = w.tasks[i];
    comms_[i] = sanitize_comm(t.name, opts_.truncate_comm);
    if (t.pid > 0 && used.insert(t.pid).second)
      pids_[i] = t.pid;
    else
      pids_[i] = next++;
    tgids_[i] = t.tgid > 0 ? t.tgid : pids_[i];
  }
  // Per-task text that every line repeats, formatted once.
  heads_.resize(n);
  fields_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    heads_[i] = fmt::format("{:>16}-{:<7} ", comms_[i], pids_[i]);
    if (opts_.tgid_column) heads_[i] += fmt::format("({:>7}) ", tgids_[i]);
    fields_[i] = fmt::format("comm={} pid={} prio={}", comms_[i], pids_[i], 120 + w.tasks[i].nice);
  }
  idle_head_ = fmt::format("{:>16}-{:<7} ", "<idle>", 0);
  if (opts_.tgid_column) idle_head_ += "(-------) ";
  pending_.assign(n, Pending{});
  task_cpu_.assign(n, -1);
}

void FtraceWriter::on_start(const SchedState& s) {
  nr_cpus_ = s.topo->nr_cpus();
  curr_.assign(nr_cpus_, TaskId());
  swappers_.clear();
  for (uint32_t c = 0; c < nr_cpus_; ++c) swappers_.push_back(fmt::format("swapper/{}", c));
}

int FtraceWriter::prio_of(TaskId t) const { return 120 + workload_.tasks[t.value()].nice; }

const std::string& FtraceWriter::task_fields(TaskId t) const { return fields_[t.value()]; }

// The line before the one starting now is complete: kept if it is not after the run's end so far.
void FtraceWriter::mark_kept() {
  if (lines_ > 0 && last_at_ <= span_end_) keep_ = {written_ + body_.size(), lines_};
}

// SimSummary::end moves to `at` (the engine's note_end(): a measured task leaves a CPU or exits).
// Every line so far is at or before it.
void FtraceWriter::measured_end(Instant at) {
  if (at < span_end_) return;
  span_end_ = at;
  mark_kept();
}

void FtraceWriter::prefix(Instant at, uint32_t cpu, TaskId current, const char* flags) {
  mark_kept();
  last_at_ = at;
  if (sink_ && body_.size() >= kChunkBytes) flush_body();  // a line starts here: body_ holds whole lines
  body_ += current.valid() ? heads_[current.value()] : idle_head_;
  int64_t ns = at.ns();
  if (opts_.usec_timestamps)
    fmt::format_to(std::back_inserter(body_), "[{:03}] {} {:>5}.{:06}: ", cpu, flags, ns / 1000000000,
                   (ns % 1000000000) / 1000);
  else
    fmt::format_to(std::back_inserter(body_), "[{:03}] {} {:>5}.{:09}: ", cpu, flags, ns / 1000000000,
                   ns % 1000000000);
  ++lines_;
}

void FtraceWriter::on_task_start(Instant at, TaskId t, TaskId parent) {
  if (!parent.valid() || !in_window(at)) return;
  int32_t pc = task_cpu_[parent.value()];
  uint32_t cpu = pc >= 0 ? static_cast<uint32_t>(pc) : 0;
  prefix(at, cpu, parent, ".....");
  fmt::format_to(std::back_inserter(body_), "sched_process_fork: comm={} pid={} child_comm={} child_pid={}\n",
                 comms_[parent.value()], pids_[parent.value()], comms_[t.value()], pids_[t.value()]);
}

void FtraceWriter::on_wake(const WakeFact& f) {
  Pending& p = pending_[f.wakee.value()];
  switch (f.kind) {
    case WakeKind::kExec: {
      if (!in_window(f.at)) return;
      int32_t tc = task_cpu_[f.wakee.value()];
      prefix(f.at, tc >= 0 ? static_cast<uint32_t>(tc) : f.waker_cpu.value(), f.wakee, ".....");
      fmt::format_to(std::back_inserter(body_), "sched_process_exec: filename={} pid={} old_pid={}\n",
                     comms_[f.wakee.value()], pids_[f.wakee.value()], pids_[f.wakee.value()]);
      return;
    }
    case WakeKind::kFork:
      p = Pending{true, true, f.waker.valid(), f.waker_cpu.value()};
      // wake_up_new_task() prints sched_wakeup_new in the parent's context right after placing
      // the child (target_cpu = the chosen CPU). A task without a parent in the simulation (alive
      // at start, or started by an untraced parent) has no such context: like a task alive when
      // tracing began, it simply appears at its first sched_switch.
      if (!f.waker.valid() || !in_window(f.at)) return;
      prefix(f.at, f.waker_cpu.value(), f.waker, "d..2.");
      fmt::format_to(std::back_inserter(body_), "sched_wakeup_new: {} target_cpu={:03}\n", task_fields(f.wakee),
                     f.placement.cpu.value());
      return;
    case WakeKind::kWakeup:
      p = Pending{true, false, f.waker.valid(), f.waker_cpu.value()};
      break;
  }
  if (!in_window(f.at)) return;
  // sched_waking runs in the waker's context; a wakeup from outside the task set (timer,
  // interrupt) is printed as the kernel prints an interrupt: the interrupted task, flag 'h'.
  TaskId current = f.waker.valid() ? f.waker : (f.waker_cpu.value() < nr_cpus_ ? curr_[f.waker_cpu.value()] : TaskId());
  prefix(f.at, f.waker_cpu.value(), current, f.waker.valid() ? "d..2." : "d.h2.");
  fmt::format_to(std::back_inserter(body_), "sched_waking: {} target_cpu={:03}\n", task_fields(f.wakee),
                 f.prev_cpu.value());
}

void FtraceWriter::on_enqueue(Instant at, TaskId t, CpuId cpu_id) {
  const uint32_t cpu = cpu_id.value();
  Pending p = pending_[t.value()];
  pending_[t.value()].active = false;
  if (!in_window(at)) return;
  if (p.active && p.fork) return;  // sched_wakeup_new went out with the fork (on_wake)
  if (p.active) {
    if (cpu == p.waker_cpu)
      prefix(at, cpu, curr_[cpu], p.from_task ? "d..2." : "d.h2.");
    else
      prefix(at, cpu, curr_[cpu], "dNh2.");  // ttwu_queue: the target CPU's IPI handler
    fmt::format_to(std::back_inserter(body_), "sched_wakeup: {} target_cpu={:03}\n", task_fields(t), cpu);
    return;
  }
}

void FtraceWriter::on_switch(Instant at, CpuId cpu_id, TaskId prev, SwitchReason why, TaskId next) {
  const uint32_t cpu = cpu_id.value();
  if (cpu < nr_cpus_) curr_[cpu] = next;
  if (prev.valid()) task_cpu_[prev.value()] = -1;
  if (next.valid()) {
    task_cpu_[next.value()] = static_cast<int32_t>(cpu);
  }
  if (prev.valid() && !workload_.tasks[prev.value()].background) measured_end(at);
  if (!prev.valid() && !next.valid()) return;
  if (!in_window(at)) return;
  prefix(at, cpu, prev, "d..2.");
  const std::string& idle = swappers_[cpu];
  if (prev.valid())
    fmt::format_to(std::back_inserter(body_), "sched_switch: prev_comm={} prev_pid={} prev_prio={} prev_state={}",
                   comms_[prev.value()], pids_[prev.value()], prio_of(prev), prev_state(why));
  else
    fmt::format_to(std::back_inserter(body_), "sched_switch: prev_comm={} prev_pid=0 prev_prio=120 prev_state=R",
                   idle);
  if (next.valid())
    fmt::format_to(std::back_inserter(body_), " ==> next_comm={} next_pid={} next_prio={}\n", comms_[next.value()],
                   pids_[next.value()], prio_of(next));
  else
    fmt::format_to(std::back_inserter(body_), " ==> next_comm={} next_pid=0 next_prio=120\n", idle);
}

void FtraceWriter::on_migrate(Instant at, TaskId t, CpuId from_id, CpuId to_id, CpuDistance) {
  const uint32_t from = from_id.value();
  const uint32_t to = to_id.value();
  if (!in_window(at)) return;
  // set_task_cpu() runs in try_to_wake_up() on the waker's CPU, or on the CPU pulling the task
  // (load balance, which runs on the destination).
  const Pending& p = pending_[t.value()];
  uint32_t cpu = p.active && p.waker_cpu < nr_cpus_ ? p.waker_cpu : to;
  prefix(at, cpu, curr_[cpu], "d..2.");
  fmt::format_to(std::back_inserter(body_), "sched_migrate_task: {} orig_cpu={} dest_cpu={}\n", task_fields(t),
                 from, to);
}

void FtraceWriter::on_exit(Instant at, TaskId t, CpuId cpu_id) {
  const uint32_t cpu = cpu_id.value();
  if (!workload_.tasks[t.value()].background) measured_end(at);
  if (!in_window(at)) return;
  prefix(at, cpu, t, ".....");
  fmt::format_to(std::back_inserter(body_), "sched_process_exit: {}\n", task_fields(t));
}

void FtraceWriter::on_end(const SchedState&, Instant end) {
  mark_kept();
  if (lines_ == 0 || last_at_ <= end) return;
  // Lines after the end: the engine ended the span at the last measured switch-out or exit
  // (a stopped run ends at or after every event), which measured_end() followed.
  SCHEDSIM_ASSERT(end == span_end_, "trace lines until {} ns after the run's end {} ns, but its last measured "
                  "switch was at {} ns", last_at_.ns(), end.ns(), span_end_.ns());
  cut_ = true;
  if (!sink_) body_.resize(keep_.bytes);
}

void FtraceWriter::flush_body() {
  if (!sink_ || body_.empty()) return;
  sink_(body_);
  written_ += body_.size();
  body_.clear();
}

std::string FtraceWriter::header() const {
  std::string out = "# tracer: nop\n#\n";
  out += fmt::format("# entries-in-buffer/entries-written: {}/{}   #P:{}\n#\n", lines(), lines(), nr_cpus_);
  out += opts_.tgid_column ? kHeaderTgid : kHeader;
  return out;
}

std::string FtraceWriter::text() const {
  SCHEDSIM_ASSERT(!sink_, "FtraceWriter::text() while streaming");
  return header() + body_;
}

}  // namespace schedsim
