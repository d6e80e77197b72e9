#pragma once
/// The workload model (docs/workload-format.md): tasks with action programs, replayed in
/// simulated time. block/wake use counting-semaphore tokens so replay never deadlocks or loses a
/// wakeup whatever order the simulated policy produces.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schedsim/base/histogram.hpp"
#include "schedsim/base/ids.hpp"
#include "schedsim/base/time.hpp"
#include "schedsim/topology/cpu_mask.hpp"

namespace schedsim {

enum class ActionKind : uint8_t {
  kRun,    ///< consume `arg` ns of CPU work at reference speed (capacity 1024, no SMT co-run)
  kWake,   ///< post one token to task `arg` (flags: kWakeSync)
  kFork,   ///< create task `arg` (must have StartState::kForked); it is placed by the fork path
  kBlock,  ///< wait for a token; consume one and go on at once if one is pending
  kSleep,  ///< timed sleep of `arg` ns of simulated wall time (wakeup from outside the task set)
  kExit,   ///< the task ends; programs that run off their end exit implicitly
  kExec,   ///< exec(): a placement point for the exec balance path (sched_exec)
  kLoop,   ///< compact loop: jump back `body` actions, `arg` more times (nestable)
  /// write `body` bytes to channel `arg` (docs/workload-format.md "Channels"): wakes a reader
  /// only by the channel's rules (a pipe: only when it was empty), blocks while it is full
  kWrite,
  /// read up to `body` bytes from channel `arg`: takes what is there without sleeping, blocks
  /// only while the channel is empty; may wake a writer waiting for room
  kRead,
};

/// Wake flags.
enum : uint8_t {
  kWakeSync = 1,  ///< WF_SYNC: the waker is about to sleep (pipe writes)
};

/// Run flags (run actions imported from a trace with syscall events, `--channels`).
enum : uint8_t {
  /// The run is time the task spent inside a read or write system call (between its
  /// sys_enter_* and sys_exit_*): kernel code on the task's behalf. A run without it that
  /// follows marks the return to user space (SimConfig::preempt: where a preemption requested
  /// under preempt=none takes effect).
  kRunSyscall = 1,
};

/// Channel flags (write/read actions): which kernel object the channel stands for.
enum : uint8_t {
  kChanSocket = 1,  ///< a unix stream socket instead of a pipe (engine/src/channel.hpp)
};

/// Channel numbers are 0 .. kMaxChannel (the engine keeps one slot per number up to the largest).
inline constexpr int64_t kMaxChannel = (int64_t{1} << 24) - 1;

/// One step of a task's program. 16 bytes; a 10-million-action workload is 160 MB of actions.
struct Action {
  ActionKind kind = ActionKind::kExit;
  uint8_t flags = 0;
  uint16_t reserved = 0;  ///< kWake, kWrite, kRead imported from a trace: the recorded wakes
                          ///< the action stands for (kRecordedWakeLocal | kRecordedWakeRemote;
                          ///< replay_wakes=modelled credits them; not kept by the native format)
  uint32_t body = 0;  ///< kLoop: number of actions in the loop body (those just before it);
                      ///< kWrite/kRead: bytes; kRun imported from a trace: the CPU
                      ///< its time was recorded on + 1 (0 = unknown; not kept by the
                      ///< native file format); kWake/kBlock extracted with --wake-match
                      ///< recorded: the wakee's sleep number that pairs them (0 = a token:
                      ///< any wake releases the next block; not kept by the native format)
  int64_t arg = 0;    ///< ns for run/sleep, task index for wake/fork, iterations for loop,
                      ///< channel number for write/read

  static Action run(Duration d, uint8_t fl = 0) { return {ActionKind::kRun, fl, 0, 0, d.count()}; }
  /// run(d) recorded on `cpu` (a trace import: replay_overheads=migration-delta reads it).
  static Action run_recorded(Duration d, uint32_t cpu, uint8_t fl = 0) {
    return {ActionKind::kRun, fl, 0, cpu + 1, d.count()};
  }
  static Action sleep(Duration d) { return {ActionKind::kSleep, 0, 0, 0, d.count()}; }
  static Action wake(TaskId t, uint8_t fl = 0) { return {ActionKind::kWake, fl, 0, 0, t.value()}; }
  static Action fork(TaskId t) { return {ActionKind::kFork, 0, 0, 0, t.value()}; }
  static Action block(uint32_t pair = 0) { return {ActionKind::kBlock, 0, 0, pair, 0}; }
  static Action exit() { return {ActionKind::kExit, 0, 0, 0, 0}; }
  static Action exec() { return {ActionKind::kExec, 0, 0, 0, 0}; }
  static Action write(int64_t chan, uint32_t bytes, uint8_t fl = 0) { return {ActionKind::kWrite, fl, 0, bytes, chan}; }
  static Action read(int64_t chan, uint32_t bytes, uint8_t fl = 0) { return {ActionKind::kRead, fl, 0, bytes, chan}; }
  /// Repeat the preceding `body_len` actions `extra_iterations` more times.
  static Action loop(uint32_t body_len, int64_t extra_iterations) {
    return {ActionKind::kLoop, 0, 0, body_len, extra_iterations};
  }
  Duration duration() const { return Duration::ns(arg); }
  TaskId task() const { return TaskId(static_cast<uint32_t>(arg)); }
  friend bool operator==(const Action&, const Action&) = default;
};
static_assert(sizeof(Action) == 16);

/// Action::reserved bits: the recording made a wake whose wakee had last run on the waker's CPU
/// (sched_waking's target_cpu, the wakee's task_cpu() at the waking) ...
inline constexpr uint16_t kRecordedWakeLocal = 1;
/// ... or on another CPU.
inline constexpr uint16_t kRecordedWakeRemote = 2;

/// The action's name as the native format writes it ("run", "wake", ...).
const char* to_string(ActionKind k);

/// How a task begins.
enum class StartState : uint8_t {
  kForked,    ///< created by another task's fork(); starts when that action executes
  kRunnable,  ///< runnable at start_time (alive at trace start, or forked by an untraced parent)
  /// alive at start, waiting for a token: the first wake releases it and its program then runs
  /// from its first action (an implicit block() before the program; a program that begins with
  /// block() waits for a second token there)
  kBlocked,
  kSleeping,  ///< alive at start, sleeping until start_time
};

struct TaskSpec {
  std::string name;        ///< comm
  int64_t pid = -1;        ///< from the source, for reports; -1 if synthetic
  int64_t tgid = -1;
  int32_t nice = 0;        ///< -20..19, mapped to a weight by the queue policy
  CpuMask affinity;        ///< empty = every CPU of the machine
  bool kthread = false;    ///< a per-CPU kernel thread (select_idle_sibling's stacking check)
  StartState start = StartState::kRunnable;
  Instant start_time;      ///< when the task becomes runnable / wakes (not for kForked)
  int32_t initial_cpu = -1;  ///< CPU it last ran on, -1 = let the fork path place it
  /// A custom EEVDF slice, as sched_setattr()'s sched_attr.sched_runtime sets one (6.12,
  /// 857b158dc5e8): kMinSlice..kMaxSlice; zero = none, the task gets the base slice (the
  /// kernel's default, and all a trace can show: traces do not record custom slices).
  Duration slice;
  /// Load only (docs/workload-format.md "Background tasks"): simulated like any task (placed,
  /// queued, preempting and preempted, balanced, in PELT and the idle-CPU tests) but left out of
  /// every metric and of the makespan; the run ends when every other task has ended, and a
  /// background task still alive then is cut off without an error. For the other load of the
  /// recording machine (the recorder itself), which the real run competed with.
  bool background = false;
  std::vector<Action> program;
};

/// The range sched_setattr() clamps a fair task's sched_runtime to before it becomes the
/// entity's slice (__setscheduler_params(), 857b158dc5e8): 0.1 ms .. 100 ms.
inline constexpr Duration kMinSlice = Duration::us(100);
inline constexpr Duration kMaxSlice = Duration::ms(100);

/// What the real kernel did, measured from the same trace the workload was extracted from.
struct ObservedStats {
  bool present = false;
  Histogram wakeup_latency;   ///< sched_waking to switch-in, ns
  uint64_t wakeup_latency_inferred = 0;  ///< of those, samples ending at a switch-in the trace did
                                         ///< not record (placed as late as possible: lower bounds)
  Histogram runqueue_wait;    ///< preempted (R) switch-out to next switch-in, ns
  uint64_t wakeups = 0;
  uint64_t migrations = 0;
  uint64_t context_switches = 0;
  Duration span;              ///< first to last event of the selected tasks
  Duration total_runtime;     ///< on-CPU time of the selected tasks
  uint32_t nr_cpus = 0;       ///< CPUs seen in the trace
};

/// A replayable workload: tasks with their programs, plus provenance and observed stats.
struct Workload {
  std::string name;
  std::string source;                       ///< file it came from, or the generator command
  std::map<std::string, std::string> meta;  ///< free-form provenance (kernel version, clock, ...)
  std::vector<TaskSpec> tasks;
  ObservedStats observed;

  TaskId add_task(TaskSpec t) {
    tasks.push_back(std::move(t));
    return TaskId(static_cast<uint32_t>(tasks.size() - 1));
  }
  /// Total run(d) work over every task, expanding loops (for the conservation check); with
  /// `measured_only`, over the tasks that are not background (what the metrics measure).
  Duration total_work(bool measured_only = false) const;
  /// Number of background tasks (TaskSpec::background).
  size_t background_count() const;
  /// Some task's program has a run flagged kRunSyscall (it says where its system calls are: the
  /// only tasks `run --preempt` other than full acts on).
  bool marks_syscalls() const;
  /// Number of actions of each kind after loop expansion (kind-indexed).
  std::vector<uint64_t> expanded_action_counts() const;
};

/// The CPU work of one program, its loops expanded (what total_work() sums over the tasks).
Duration program_work(const std::vector<Action>& program);

/// Bounds on what a workload may hold (docs/workload-format.md "Limits"), chosen so that no sum
/// the engine forms over a whole workload can overflow int64 nanoseconds:
/// one time value (run, sleep, start_time, observed times) at most 10^15 ns (about 11.6 days);
/// with loops expanded, all run + sleep + start times at most 10^17 ns (about 3.2 years) and at
/// most 10^12 actions; loops nested at most 32 deep; pids -1 (none) .. 4194304.
inline constexpr int64_t kMaxTimeValue = 1'000'000'000'000'000;
inline constexpr int64_t kMaxWorkloadTime = 100'000'000'000'000'000;
inline constexpr uint64_t kMaxExpandedActions = 1'000'000'000'000;
inline constexpr int kMaxLoopDepth = 32;
inline constexpr int64_t kMaxWorkloadPid = 4194304;

/// The first task at which the workload, its loops expanded and summed over the tasks so far in
/// order, passes kMaxExpandedActions actions or kMaxWorkloadTime ns of run, sleep and start time;
/// nullopt when it stays within both. Loops must be well formed and nest at most kMaxLoopDepth
/// deep (validate_workload checks that first; a trace import has no loops).
std::optional<size_t> first_task_over_bounds(const Workload& w);

/// Structural validation: wake/fork targets exist, forked tasks are forked exactly once, loop
/// bodies are in range and nest, durations are non-negative, the bounds above hold, and not
/// every task is background (nothing would be measured).
/// Throws InputError naming `source`.
void validate_workload(const Workload& w, const std::string& source);

/// Native on-disk format (docs/workload-format.md): JSON for small hand-written workloads,
/// CBOR (same schema) for large ones; both read streaming (no DOM for the programs).
enum class WorkloadFormat { kJson, kCbor };
void write_workload(const Workload& w, const std::string& path, WorkloadFormat fmt);
Workload read_workload(const std::string& path);
/// The same on bytes in memory (JSON or CBOR); `name` stands for the file in errors.
Workload read_workload_buffer(std::string_view data, const std::string& name);
/// True if the file starts like a native workload (JSON with "schedsim_workload", or CBOR magic),
/// plain or gzip-compressed.
bool looks_like_workload(const std::string& path);
/// The same on bytes in memory (plain).
bool looks_like_workload_buffer(std::string_view data);

}  // namespace schedsim
