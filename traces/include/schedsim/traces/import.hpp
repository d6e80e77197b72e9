#pragma once
/// Trace import: parse a kernel scheduler trace (ftrace text, trace_pipe, systrace HTML,
/// `trace-cmd report`, `perf script` of `perf sched record`; plain, gzip or zstd) and extract
/// a replayable Workload with the observed statistics of the real run (docs/traces.md,
/// docs/workload-format.md and "Pitfalls that real traces hold").
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schedsim/base/error.hpp"
#include "schedsim/base/time.hpp"
#include "schedsim/traces/trace_event.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim::traces {

/// What a trace's read/write syscalls become (`--channels`, docs/traces.md "Channels from
/// syscalls"). kOff: they are ignored and every wakeup between traced tasks is a wake/block
/// token. kPipe / kSocket: fds that a wakeup pairs (a write that wakes a task blocked in a read,
/// or a read that wakes a writer blocked on a full pipe) become channels of that kind, and their
/// reads and writes replay as channel read/write actions instead of tokens.
enum class TraceChannels : uint8_t { kOff, kPipe, kSocket };
const char* trace_channels_name(TraceChannels c);
/// "off", "pipe" or "socket"; throws InputError naming --channels otherwise.
TraceChannels parse_trace_channels(const std::string& s);

/// Which wake releases a replayed block (`--wake-match`, docs/traces.md "Wake matching").
/// kToken: any wake posted to the task (a counting semaphore: a wake finding its wakee awake is
/// banked and the wakee's next block passes at once). kRecorded: the extractor numbers each
/// sleep of a task and the wake that ended it in the recording (Action::body of both), and a
/// block waits for that wake only; a wake posted early is held for its own block.
enum class TraceWakeMatch : uint8_t { kToken, kRecorded };
const char* trace_wake_match_name(TraceWakeMatch m);
/// "token" or "recorded"; throws InputError naming --wake-match otherwise.
TraceWakeMatch parse_trace_wake_match(const std::string& s);

/// Idle-exit and IPI latencies measured in the trace itself (ImportReport::idle_wake; docs/traces.md
/// "Idle wakes measured from the trace"). Over every task of the trace, not only the selected ones:
/// they describe the machine. Samples in ns.
// clang-tidy 14 reports the '__i0' of the struct's implicit member-wise copy (compiler-generated),
// not a name in this code.
struct IdleWakeObserved {  // NOLINT(bugprone-reserved-identifier)
  /// Upper bounds (ns) of the idle-duration bins; the last bin is open.
  static constexpr int64_t kBinEdges[4] = {20'000, 50'000, 200'000, 2'000'000};
  /// Remote wakeups of a task switched in on a CPU that was idle at the sched_waking: waking to
  /// switch-in, by how long the target had been idle at the waking (from its switch to idle).
  std::array<std::vector<int64_t>, 5> by_idle;
  /// One sampled wake: how long the target had been idle at the waking, and waking to switch-in.
  struct Sample {
    int64_t idle;
    int64_t latency;
  };
  /// Every by_idle sample with its idle duration (the cost table's classes are cut from these).
  std::vector<Sample> remote;
  /// Local wakes (an interrupt on the idle target wakes a task there: timer wakes) whose switch
  /// from idle was recorded: waking to switch-in, by how long that CPU had been idle.
  std::vector<Sample> local;
  /// The same samples by the idle state the target last entered (power:cpu_idle), when recorded.
  std::map<int64_t, std::vector<int64_t>> by_state;
  /// ipi_send_cpu to a CPU that was idle: send to that CPU's next event (with power:cpu_idle
  /// recorded, its idle exit): IPI delivery plus idle exit.
  std::vector<int64_t> ipi_to_idle;
  /// One remote wake whose wakee preempted the task running on the target at the waking, after
  /// an ipi_send_cpu from the waker's CPU to the target (`resched_ipi`, docs/traces.md "The
  /// reschedule IPI measured from the trace"): waking to switch-in, waking to the IPI send, and
  /// waking to the target's first irq_vectors:reschedule_entry after the send (-1: none recorded
  /// before the switch-in).
  struct ReschedSample {
    int64_t latency;
    int64_t ipi;
    int64_t entry;
  };
  std::vector<ReschedSample> resched;
  /// Remote preempting wakes with no ipi_send_cpu from the waker's CPU to the target between the
  /// waking and the switch-in (not in `resched`: the target rescheduled for another reason).
  uint64_t resched_no_ipi = 0;
  uint64_t cpu_idle_events = 0, ipi_events = 0, resched_entry_events = 0;
  uint64_t local_wakes = 0;     ///< idle target = the waker's CPU (an interrupt on it): in `local`, not in by_idle
  uint64_t unrecorded = 0;      ///< CPUs leaving idle with no recorded switch from idle (their wakes are not sampled)
};

/// Which tasks become workload tasks, and how to read the trace.
struct ExtractOptions {
  std::string comm_regex;            ///< keep tasks whose comm (any name it had) matches (ECMAScript)
  std::vector<int64_t> pids;         ///< keep these pids (union with descendants_of)
  int64_t descendants_of = -1;       ///< keep this pid and every task it (transitively) forks
  bool exclude_kthreads = false;     ///< drop kernel threads (children of kthreadd, or by name)
  /// Tasks not selected but imported as background tasks (TaskSpec::background: load, not
  /// measured): comm (any name it had) matching this (ECMAScript), or one of these pids.
  std::string background_comm_regex;
  std::vector<int64_t> background_pids;
  /// Keep every task even when the trace names its recorded command ("# schedsim record:
  /// root_pid=N", written by `schedsim record`); by default such a trace selects N's descendants.
  bool all_tasks = false;
  bool strict = false;               ///< every repair is an error with file:line
  int64_t clock_hz = 0;              ///< ticks per second for integer timestamps (counter, x86-tsc)
  std::string kernel_version;        ///< picks the numeric prev_state table ("" = inferred from the values)
  std::string buffer;                ///< trace-cmd multi-buffer report: buffer to keep ("" = first)
  Duration race_window = Duration::ms(1);  ///< waking-before-sleep pairing window
  size_t reorder_window = 4096;      ///< events held back to repair cross-CPU inversions
  /// An event earlier than its predecessor (in the file, or on its CPU) by more than this, or
  /// later than its successor by more than this, is clock trouble: warned about (an error with
  /// `strict`) and given its predecessor's timestamp.
  Duration clock_tolerance = Duration::ms(10);
  /// Called with every event of the kept buffer in time order, after the reorder window and the
  /// clock repairs (what extraction sees), whatever the task selection: `schedsim sched` views.
  std::function<void(const TraceEvent&)> on_event;
  /// Called when the import starts over (with no kernel_version, the prev_state layout inferred
  /// after a first pass reads some value otherwise than that pass did): forget the events seen.
  /// Without it, such a trace with on_event set is an error asking for kernel_version.
  std::function<void()> on_restart;
  /// perf.data only: called with each FORK record's child tid and parent pid (perf's own thread
  /// table, which perf synthesizes for every task alive when recording starts): the parent
  /// `perf sched timehist -s` prints. Not in time order with on_event.
  std::function<void(int64_t tid, int64_t ppid)> on_fork_record;
  /// SMT normalisation (`run --smt-normalize`): the recording machine's SMT siblings of each CPU
  /// (empty = off) and its co-run work rate in permille. On-CPU time during which a sibling was
  /// busy ran at that rate on the recording machine; it is replayed as that much less reference
  /// work, so a replay on an SMT model applies the co-run slowdown once, not twice. The workload's
  /// meta "smt_normalized_ns" holds the on-CPU time removed.
  /// An event on a CPU beyond smt_siblings is an error: the trace comes from another machine.
  std::vector<std::vector<uint32_t>> smt_siblings;
  int64_t corun_permille = 1000;
  std::string smt_machine;  ///< the recording machine as error messages name it ("xeon (-t)")
  TraceChannels channels = TraceChannels::kOff;
  TraceWakeMatch wake_match = TraceWakeMatch::kToken;
  /// Flag the time inside read/write syscalls (a trace recorded with syscall events) as runs
  /// with kRunSyscall without turning them into channels, so that `run --preempt none` holds a
  /// preemption of such a task until the syscall returns (docs/model.md "Syscall marks in
  /// plain replays"). `--channels` marks them anyway. `run --preempt` other than full sets it;
  /// `import --syscall-marks` writes the marks into a workload file. Off by default: splitting
  /// runs at syscall boundaries moves a `--preempt full` replay (the same docs section).
  bool syscall_marks = false;
};

/// What `--channels` made of the trace's read/write syscalls (ImportReport::channels).
struct ChannelImport {
  uint64_t syscalls = 0;        ///< completed read/write syscalls of selected tasks with an fd
  uint64_t edges = 0;           ///< wakeups from inside a read/write to a task blocked in the other
  uint64_t groups = 0;          ///< fd groups joined by those wakeups
  uint64_t channels = 0;        ///< groups replayed as channels
  uint64_t refused_short = 0;   ///< groups left as tokens: fewer bytes written than read
  uint64_t refused_one_sided = 0;  ///< groups left as tokens: only reads or only writes
  uint64_t writes = 0, reads = 0;  ///< channel actions emitted
  uint64_t tokens_replaced = 0;    ///< wake/block pairs the channels replace
};

/// One kind of repair the importer made, with why.
struct RepairCount {
  uint64_t count = 0;
  long first_line = 0;
  std::string reason;
};

/// A window of lost events (ring-buffer overrun) and what it cost.
struct LostWindow {
  int32_t cpu = -1;
  int64_t events = -1;          ///< -1 when the marker gives no count
  long line = 0;
  bool buffer_started = false;  ///< "##### CPU N buffer started ####" (older history overwritten)
  uint64_t tasks_resynced = 0;
};

/// What import saw and did; `trace info` prints describe().
struct ImportReport {
  std::string path;
  std::string format;           ///< detected: "ftrace", "ftrace (trace_pipe)", "trace-cmd report -N", ...
  std::string compression;      ///< none, gzip, zstd
  std::vector<std::string> kernel_hints;
  std::string selection;        ///< which tasks were kept, in words
  uint64_t tasks_background = 0;  ///< of the workload's tasks, background ones (not in tasks_selected)
  bool selection_from_header = false;  ///< descendants of the `schedsim record` root pid
  uint64_t bytes = 0;           ///< decompressed bytes (of a trace.dat: the binary file's)
  uint64_t rendered_bytes = 0;  ///< a trace.dat's text rendering read (libtracecmd); 0 for text traces
  uint64_t lines = 0;          ///< lines read; for a perf.data its samples (the lines `perf script --ns` prints)
  uint64_t events = 0;
  std::array<uint64_t, kNumEventTypes> events_by_type{};
  std::map<std::string, uint64_t> other_events;
  uint32_t nr_cpus = 0;         ///< highest CPU seen + 1
  int64_t header_cpus = -1;     ///< "#P:N" / "cpus=N" / "# schedsim record: cpus=N"
  int64_t entries_in_buffer = -1, entries_written = -1;
  int64_t first_ts = 0, last_ts = 0;  ///< ns, trace clock
  uint64_t tasks_seen = 0;      ///< task lives seen (pid reuse counts twice), idle excluded
  uint64_t tasks_selected = 0;
  uint64_t wakeups_noop = 0;    ///< wakings of tasks already runnable or running (no token)
  uint64_t early_wakes_paired = 0;  ///< wakings paired with a later switch-out (race)
  uint64_t inferred_switch_ins = 0;  ///< switch-ins from idle that the trace did not record
  std::map<std::string, RepairCount> repairs;
  std::vector<LostWindow> lost;
  std::vector<std::string> warnings;
  // Conservation check results (filled by extraction).
  bool conservation_ok = true;
  uint64_t wakes_total = 0, blocks_total = 0, blocked_at_start = 0;
  Duration run_total, oncpu_total;
  TraceChannels channel_mode = TraceChannels::kOff;
  ChannelImport channels;
  IdleWakeObserved idle_wake;

  uint64_t repairs_total() const;
  /// Multi-line human summary (no trailing workload/observed part).
  std::string describe() const;
};

/// Content sniffing: true for ftrace text, trace_pipe output, systrace HTML, trace-cmd report
/// and perf script text, plain or gzip/zstd compressed. Never throws: false if unreadable, and
/// then `why` (when given) holds the real cause if there is one (cannot open, corrupt or
/// binary file, a line past the bound), so a caller can say it instead of "not a trace".
bool is_trace_file(const std::string& path, std::optional<InputError>* why = nullptr);

/// Parses and extracts. Throws InputError "path:line:col: error: ..." on unreadable input,
/// unsupported formats (latency format, integer clocks without clock_hz), and in strict mode on
/// any repair or conservation mismatch.
Workload import_trace(const std::string& path, const ExtractOptions& opt,
                      ImportReport* report = nullptr);
/// The same on a trace held in memory (plain, gzip or zstd); `name` stands for the file in
/// errors and in the workload's name. The fuzz targets' entry point.
Workload import_trace_buffer(std::string_view data, const std::string& name, const ExtractOptions& opt,
                             ImportReport* report = nullptr);

/// The `idle wakes:` block of `trace info` (ImportReport::describe() prints it when the trace has
/// power:cpu_idle or ipi events).
std::string describe_idle_wake(const IdleWakeObserved& m);

/// One class of an idle-duration cost table: samples whose idle time is >= from (and below the
/// next class's from), their count and their p50 (ns).
struct IdleClass {
  int64_t from;
  size_t n;
  int64_t p50;
};
/// Candidate class edges (ns): where the mechanisms put steps (50 us and 200 us: the old
/// vm-halt-poll bounds, 200 us being KVM's default halt_poll_ns; 150 us: where the 16-vCPU guest's
/// cost steps up) and a 1-2-5 ladder to 5 ms.
inline constexpr int64_t kIdleClassEdges[] = {0,       20'000,  50'000,    100'000,   150'000,
                                              200'000, 500'000, 1'000'000, 2'000'000, 5'000'000};
/// Cuts `samples` into kIdleClassEdges' classes, then merges every class with fewer than
/// `min_samples` into a neighbour: the smallest class first (the lower one on a tie), into its
/// smaller neighbour (the lower one on a tie), until every class has `min_samples` or one class is
/// left. Empty classes vanish; `merges` (if given) receives one line per merge. Empty result for
/// no samples.
std::vector<IdleClass> idle_classes(const std::vector<IdleWakeObserved::Sample>& samples, size_t min_samples,
                                    std::vector<std::string>* merges);

/// A cost file (JSON, the `--cost FILE` format) selecting the `table` idle-wake model with the
/// trace's measured idle wakes (`trace info --idle-wake-costs`): idle_exit_table = per idle class
/// (idle_classes, at least 20 wakes each) the waking-to-switch-in p50 of remote wakes to an idle
/// CPU minus the model's IPI cost; timer_wake_table = the same of local timer wakes, when 20 of
/// them were measured; resched_ipi = the waking-to-switch-in p50 of the remote preempting wakes
/// after a recorded IPI (IdleWakeObserved::resched) minus the IPI, when 20 were measured. With
/// fewer than 20 remote wakes to an idle CPU the file holds no table (nor `idle_wake`), only
/// resched_ipi. `note` receives the classes, merges and what was left out and why. Throws
/// InputError when neither 20 remote idle wakes nor 20 remote preempting wakes were measured.
std::string idle_wake_costs_json(const IdleWakeObserved& m, const std::string& trace, std::string* note);

/// Human summary of an extracted workload and its observed stats (for `trace info`/`import`).
std::string describe_workload(const Workload& w);

}  // namespace schedsim::traces
