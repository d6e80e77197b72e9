#pragma once
/// `schedsim record`: record a command's scheduler events through tracefs directly (no
/// trace-cmd/perf needed). A private tracefs instance (instances/schedsim-<pid>) is created and
/// removed afterwards, so nothing global changes; events are streamed from trace_pipe while the
/// command runs so the ring buffer does not overrun.
#include <cstdint>
#include <string>
#include <vector>

namespace schedsim::traces {

struct RecordOptions {
  std::string output;                ///< ftrace text; gzip-compressed when it ends in ".gz" or `gzip`
  bool gzip = false;                 ///< compress whatever the name
  std::vector<std::string> events;   ///< sched events to enable (empty = the default set)
  /// Event groups recorded besides the sched events (record_extra_groups()): "idle"
  /// (power:cpu_idle), "ipi" (every ipi:* event), "irq" (x86 irq_vectors: reschedule, local_timer and
  /// call_function_single entry/exit), "syscalls" (sys_enter/exit of read and write).
  std::vector<std::string> extra;
  std::vector<std::string> command;  ///< argv of the command to run
  uint32_t buffer_kb = 32768;        ///< per-CPU ring buffer (buffer_size_kb)
  bool quiet = false;                ///< do not forward a summary to stderr
  /// Run the recorder itself (its trace_pipe drain and compression) as SCHED_IDLE while the
  /// command runs, so the kernel treats a CPU where only the recorder runs as idle for the
  /// command's wakeups and preempts the recorder at once (sched_idle_cpu(), 3c29e651e16d).
  /// Off by default: measured on the 2-vCPU guest it perturbs `perf bench sched pipe` more than
  /// a normal-class recorder does (docs/traces.md, "Recording").
  bool idle_class = false;
};

struct RecordResult {
  int64_t root_pid = -1;        ///< pid of the recorded command (its descendants are its children)
  int exit_status = 0;          ///< the command's exit code (128+signal if killed)
  uint64_t bytes = 0;           ///< trace text bytes written (before compression)
  uint64_t overruns = 0;        ///< per_cpu/cpuN/stats "overrun" + "dropped events", summed
  uint64_t lost_markers = 0;    ///< "[LOST N EVENTS]" lines seen in trace_pipe
  std::vector<std::string> skipped_events;  ///< requested but absent from this kernel
  std::vector<std::string> skipped_extra;   ///< extra events ("group/name") absent from this kernel
};

/// The names `RecordOptions::extra` accepts.
std::vector<std::string> record_extra_groups();

/// The default event set: sched_switch, sched_waking, sched_wakeup, sched_wakeup_new,
/// sched_process_fork/exit/exec, sched_migrate_task.
std::vector<std::string> default_record_events();

/// Records. The output is written through AtomicFile: it appears only complete, after the command
/// has ended and the ring buffer is drained. Throws InputError when not root, when tracefs is
/// unavailable, or when the command cannot be started; throws Interrupted on SIGINT/SIGTERM (the
/// command is killed, the tracefs instance and the temporary output are removed first).
RecordResult record_trace(const RecordOptions& opt);

}  // namespace schedsim::traces
