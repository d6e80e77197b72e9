// The run option table (run_options.hpp): one row per option of `run`.
#include "schedsim/driver/run_options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
#include "schedsim/workload/generators.hpp"

namespace schedsim::driver {

namespace {

using T = OptionType;
using G = OptionGroup;

/// The reason shared by the options that shape output rather than the simulation.
constexpr const char* kSweepOutput = "a sweep writes JSON Lines records (-o) and a summary (--summary)";
constexpr const char* kSweepTraceOut = "run the point alone with `schedsim run --trace-out`";

void set_module(RunRequest& r, const char* slot, const OptionValue& v) { r.modules[slot] = v.text; }

// The rows of `run` itself, in help order (the trace rows follow in trace_rows()).
std::vector<RunOption> run_rows() {
  // clang-format off
  return {
    {"input", 0, T::kText, G::kPositional, nullptr, "the workload file or kernel trace ('-' = standard input)",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { r.input = v.text; }},

    // The essentials.
    {"workload-gen", 0, T::kText, G::kEssentials, nullptr,
     "generate the workload instead of reading one: 'KIND [options]' (see schedsim gen list)",
     nullptr, true, nullptr, [](RunRequest& r, const OptionValue& v) { r.workload_gen = v.text; }},
    {"topology", 't', T::kText, G::kEssentials, nullptr,
     "preset name, smpN, topology JSON, saved sysfs dir, lscpu -p file, or 'host' ('list' for the presets). Default: a trace's recording machine (a topology.json, lscpu-p.txt or sysfs/ beside the trace, else smpN for the N CPUs the trace names), anything else xeon-e5-2690v2",
     nullptr, true, nullptr, [](RunRequest& r, const OptionValue& v) { r.topology = v.text; }},
    {"kernel", 'k', T::kText, G::kEssentials, nullptr,
     "set every slot and flag to a kernel version's defaults ('list' to list, 'host' = the running kernel's); a version without a profile gets the nearest at or below, with a warning; explicit options override. Without it: 6.12's modules and flags (as --kernel 6.12 gives them; results say kernel \"6.12 (default)\"). 6.18 is the 6.18.y stable kernel (NI_RANDOM newidle), 6.17 also stands for 6.18.0 (newidle cost bump)",
     nullptr, true, nullptr, [](RunRequest& r, const OptionValue& v) { r.kernel = v.text; }},
    {"placement", 0, T::kText, G::kEssentials, nullptr, "placement module ('list' to list)",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { set_module(r, "placement", v); }},
    {"feature", 'F', T::kTexts, G::kEssentials, nullptr, "sched_feat flag X or NO_X, repeatable ('list' to list)",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { r.features.insert(r.features.end(), v.texts.begin(), v.texts.end()); }},
    {"cost", 'c', T::kTexts, G::kEssentials, nullptr,
     "cost parameter name=value, a JSON file of them, or 'list', repeatable; idle_wake=table charges the idle exit by the target's idle time from idle_exit_table=FROM:COST,... (e.g. 0:3400ns,50us:6400ns,100us:16400ns; written by `trace info --idle-wake-costs`)",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { r.costs.insert(r.costs.end(), v.texts.begin(), v.texts.end()); }},
    {"repeat", 0, T::kCount32, G::kEssentials, "1",
     "repetitions with modelled run-to-run noise; prints each and their statistics (docs/compare.md)",
     "use the sweep's --repeat (or \"repeat\" in the spec file)", false, nullptr,
     [](RunRequest& r, const OptionValue& v) { r.repeat = static_cast<uint32_t>(v.count); }},
    {"seed", 0, T::kCount64, G::kEssentials, "1",
     "seed for jitter and randomized modules (random-idle placement, NI_RANDOM newidle balance); given explicitly, it also seeds a --workload-gen generator whose spec has no --seed of its own (docs/generators.md \"Seeds\"). --repeat reuses one generated workload",
     "each run's seed derives from the sweep's --seed, the point and the repetition", false, nullptr,
     [](RunRequest& r, const OptionValue& v) { r.seed = v.count; }},
    {"output", 'o', T::kText, G::kEssentials, "-",
     "write results here (atomically; NAME.gz gzip-compressed) instead of stdout",
     kSweepOutput, true, nullptr, [](RunRequest& r, const OptionValue& v) { r.output = v.text; }},
    {"format", 'f', T::kText, G::kEssentials, nullptr,
     "table, json, csv, or jsonl (one record per repetition, for compare); with --repeat, csv gives each value's unit (times in ns). Default: the -o name's extension (.json, .jsonl, .csv, each also .gz), else table",
     kSweepOutput, false, nullptr, [](RunRequest& r, const OptionValue& v) { r.format = v.text; }},

    // Policy modules.
    {"idle-cores", 0, T::kText, G::kModules, nullptr, "idle-core tracking module ('list' to list)",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { set_module(r, "idle-cores", v); }},
    {"util", 0, T::kText, G::kModules, nullptr, "utilization estimation module ('list' to list)",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { set_module(r, "util", v); }},
    {"queue", 0, T::kText, G::kModules, nullptr, "run-queue module ('list' to list)",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { set_module(r, "queue", v); }},
    {"balance", 0, T::kText, G::kModules, nullptr, "load-balance module ('list' to list)",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { set_module(r, "balance", v); }},

    // The model.
    {"jitter", 0, T::kText, G::kModel, nullptr, "scale each run() by U[1-j,1+j], e.g. 5%",
     nullptr, true, nullptr, [](RunRequest& r, const OptionValue& v) { r.jitter = v.text; }},
    {"noise", 0, T::kText, G::kModel, nullptr,
     "noise between repetitions: 'speed=S,jitter=J' or 'none' (default speed=1%,jitter=5%)",
     nullptr, true, nullptr, [](RunRequest& r, const OptionValue& v) { r.noise = v.text; }},
    {"slice", 0, T::kTexts, G::kModel, nullptr,
     "REGEX=DURATION: give every task whose name matches REGEX a custom EEVDF slice, as sched_setattr()'s sched_runtime does (100us..100ms; traces do not record slices, so tasks otherwise get the base slice); repeatable, a later match wins; with PREEMPT_SHORT (6.12+) a shorter slice may wake-up preempt (docs/kernel-versions.md)",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { r.slices.insert(r.slices.end(), v.texts.begin(), v.texts.end()); }},
    {"preempt", 0, T::kText, G::kModel, nullptr,
     "preemption model of the kernel replayed: full (default: a preemption is immediate), none or voluntary (a task inside a system call is switched at its return to user space; if it blocks first it just sleeps), lazy (also waits for the next tick or syscall return in user space); only tasks whose program marks its system calls (a trace recorded with syscall events, with or without --channels) are affected (docs/model.md \"Where a preemption takes effect\"); recorded as cost override preempt when not the default",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { r.preempt = v.text; }},
    {"update-curr", 0, T::kText, G::kModel, nullptr,
     "when the running task's CPU time reaches the run queue (its vruntime, the average V): actions (default, schedsim's historical rule: at every end of a replayed run action, except at a syscall entry or exit), events (the kernel's: only at scheduler events, the tick, an enqueue or dequeue on that CPU, the wakeup-preemption check, schedule(), a migration; a DELAY_DEQUEUE'd wakee woken in place is then re-placed against a V without the waker's latest run, docs/model.md \"Local wakeup preemption\"); recorded as cost override update_curr when not the default",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { r.update_curr = v.text; }},
    {"smt-normalize", 0, T::kFlag, G::kModel, nullptr,
     "trace input recorded on an SMT machine (--recorded-on, else --topology): replay on-CPU time during which an SMT sibling was busy as work at that machine's co-run rate, so the replay machine's co-run slowdown is applied once (docs/model.md \"SMT normalisation of recorded on-CPU time\")",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { r.smt_normalize = v.flag; }},
    {"recorded-on", 0, T::kText, G::kModel, nullptr,
     "with --smt-normalize: the machine the trace was recorded on (preset, topology JSON, sysfs dir, lscpu -p file, or 'host'), when --topology is another machine to replay on",
     nullptr, true, "a machine (preset, topology file or 'host')",
     [](RunRequest& r, const OptionValue& v) { r.recorded_on = v.text; }},

    // Output.
    {"label", 0, T::kText, G::kOutput, nullptr, "label of this run in reports",
     "labels name what differs between points", false, nullptr, [](RunRequest& r, const OptionValue& v) { r.label = v.text; }},
    {"trace-out", 0, T::kText, G::kOutput, nullptr,
     "also write the simulated schedule as ftrace text (Perfetto opens it; '-' = stdout when -o names a file, NAME.gz gzip-compressed); it ends where the run's span ends (background tasks' events after it are left out)",
     kSweepTraceOut, true, nullptr, [](RunRequest& r, const OptionValue& v) { r.trace_out = v.text; }},
    {"view", 0, T::kText, G::kOutput, nullptr,
     "after the results, print the perf sched view of the simulated schedule: latency, timehist or map (as 'schedsim sched VIEW' on its --trace-out; the schedule is held in memory)",
     "run the point alone with `schedsim run --view`", false, nullptr, [](RunRequest& r, const OptionValue& v) { r.view = v.text; }},
    {"trace-window", 0, T::kText, G::kOutput, nullptr, "only that time window in --trace-out: START,END (e.g. 10ms,20ms)",
     kSweepTraceOut, true, nullptr, [](RunRequest& r, const OptionValue& v) { r.trace_window = v.text; }},
    {"tasks", 0, T::kCount64, G::kOutput, "20", "per-task rows in the table (0 = all)",
     "a sweep prints no per-task table", false, nullptr, [](RunRequest& r, const OptionValue& v) { r.table_tasks = v.count; }},
    {"cpus", 0, T::kCount64, G::kOutput, "64",
     "per-CPU rows in the table: a machine with more CPUs shows this many busiest, in CPU order (0 = all; the per-LLC table covers every CPU)",
     "a sweep prints no per-CPU table", false, nullptr, [](RunRequest& r, const OptionValue& v) { r.table_cpus = v.count; }},
    {"progress", 0, T::kText, G::kOutput, "auto",
     "progress line on stderr after a second (events, simulated time, rate, share of the work done and time left): auto (if a terminal), always, never",
     "the sweep shows its own progress (--progress)", false, nullptr, [](RunRequest& r, const OptionValue& v) { r.progress = v.text; }},
    {"quiet", 'q', T::kFlag, G::kOutput, nullptr,
     "leave the notes (stderr lines 'schedsim: note: ...') off stderr; the results keep them (summary.notes). Warnings and errors are always printed",
     "a sweep prints no run's notes; each record keeps them (summary.notes)", false, nullptr,
     [](RunRequest& r, const OptionValue& v) { r.quiet = v.flag; }},

    // Limits and checks.
    {"stop-at", 0, T::kText, G::kLimits, nullptr,
     "stop the simulation at this simulated time (e.g. 2s): the results cover the run up to it, the makespan ends there; complete: false, exit 0",
     nullptr, true, nullptr, [](RunRequest& r, const OptionValue& v) { r.stop_at = v.text; }},
    {"max-sim-time", 0, T::kText, G::kLimits, "86400s",
     "simulated-time limit: an action, start time or wakeup past it is an error (at most 366 days)",
     nullptr, true, nullptr, [](RunRequest& r, const OptionValue& v) { r.max_sim_time = v.text; }},
    {"max-memory", 0, T::kText, G::kLimits, nullptr,
     "fail (exit 5) when resident memory exceeds SIZE: 512M, 4G, 50% (of MemAvailable) or none; default 80% of MemAvailable",
     "resident memory is the whole sweep process's, shared by its --jobs workers: limit the process instead (ulimit -v, a Slurm --mem)",
     true, nullptr, [](RunRequest& r, const OptionValue& v) { r.max_memory = v.text; }},
    {"allow-incomplete", 0, T::kFlag, G::kLimits, nullptr,
     "exit 0 even when the run is incomplete (tasks blocked forever, tokens never consumed, work not conserved); still reported",
     "a sweep keeps going past incomplete runs: each record says \"complete\" and the summary counts the incomplete ones", false, nullptr,
     [](RunRequest& r, const OptionValue& v) { r.allow_incomplete = v.flag; }},
    {"check-invariants", 0, T::kFlag, G::kLimits, nullptr, "check every engine invariant after every event (slow)",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { r.check_invariants = v.flag; }},
  };
  // clang-format on
}

// The trace rows: which tasks of a trace are imported (import, trace info, run, calibrate) and
// how it is read (also sched).
std::vector<RunOption> trace_rows() {
  // clang-format off
  return {
    {"comm", 0, T::kText, G::kTraceSelection, nullptr, "keep tasks whose comm (any name they had) matches REGEX",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { r.extract.comm_regex = v.text; }},
    {"pid", 0, T::kInts, G::kTraceSelection, nullptr, "keep this pid (repeatable)",
     nullptr, false, "pids (integers, space-separated)",
     [](RunRequest& r, const OptionValue& v) { r.extract.pids.insert(r.extract.pids.end(), v.integers.begin(), v.integers.end()); }},
    {"descendants-of", 0, T::kInt, G::kTraceSelection, nullptr, "keep PID and every task it forks, transitively",
     nullptr, false, "a pid", [](RunRequest& r, const OptionValue& v) { r.extract.descendants_of = v.integer; }},
    {"exclude-kthreads", 0, T::kFlag, G::kTraceSelection, nullptr, "drop kernel threads",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { r.extract.exclude_kthreads = v.flag; }},
    {"all-tasks", 0, T::kFlag, G::kTraceSelection, nullptr,
     "keep every task even in a trace made by schedsim record (which selects the recorded command's descendants by default)",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { r.extract.all_tasks = v.flag; }},
    {"background-comm", 0, T::kText, G::kTraceSelection, nullptr,
     "also import the unselected tasks whose comm (any name they had) matches REGEX as background tasks: replayed as load, left out of every metric and the makespan (the selection wins)",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { r.extract.background_comm_regex = v.text; }},
    {"background-pid", 0, T::kInts, G::kTraceSelection, nullptr,
     "also import this unselected pid as a background task (repeatable)", nullptr, false, "pids (integers, space-separated)",
     [](RunRequest& r, const OptionValue& v) {
       r.extract.background_pids.insert(r.extract.background_pids.end(), v.integers.begin(), v.integers.end());
     }},
    {"channels", 0, T::kText, G::kTraceSelection, nullptr,
     "read/write syscalls recorded in the trace (record --extra-events syscalls): 'pipe' or 'socket' replays the fds that wakeups pair as channels of that kind (write/read actions: the simulated pipe decides who sleeps and who is woken) instead of wake/block tokens; 'off' ignores them (default: off)",
     nullptr, false, "off, pipe or socket",
     [](RunRequest& r, const OptionValue& v) { r.extract.channels = traces::parse_trace_channels(v.text); }},
    {"wake-match", 0, T::kText, G::kTraceSelection, nullptr,
     "which wake releases a replayed sleep: 'token' (default) any wake posted to the task, banked when it finds the task awake; 'recorded' only the wake that ended that sleep in the recording, held until the task reaches it (docs/traces.md \"Wake matching\"); not with import",
     nullptr, false, "token or recorded",
     [](RunRequest& r, const OptionValue& v) { r.extract.wake_match = traces::parse_trace_wake_match(v.text); }},

    // Trace reading (also `sched`).
    {"strict", 0, T::kFlag, G::kTraceReading, nullptr, "make every repair (lost events, inconsistencies) an error",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { r.extract.strict = v.flag; }},
    {"clock-hz", 0, T::kInt, G::kTraceReading, nullptr, "ticks per second of an integer trace clock (counter, x86-tsc)",
     nullptr, false, "a positive tick rate (Hz)", [](RunRequest& r, const OptionValue& v) {
       if (v.integer <= 0) throw OptionValueError("expected a positive tick rate (Hz)");
       r.extract.clock_hz = v.integer;
     }},
    {"kernel-version", 0, T::kText, G::kTraceReading, nullptr,
     "kernel MAJOR.MINOR, to decode numeric prev_state (default: inferred from the values, docs/traces.md)",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { r.extract.kernel_version = v.text; }},
    {"buffer", 0, T::kText, G::kTraceReading, nullptr, "trace-cmd multi-buffer report: the buffer to keep",
     nullptr, false, nullptr, [](RunRequest& r, const OptionValue& v) { r.extract.buffer = v.text; }},
  };
  // clang-format on
}

const std::vector<RunOption>& table() {
  static const std::vector<RunOption> rows = [] {
    std::vector<RunOption> all = run_rows();
    for (auto& r : trace_rows()) all.push_back(r);
    return all;
  }();
  return rows;
}

template <typename Int>
bool parse_whole(const std::string& text, Int& out) {
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && p == end && !text.empty();
}

std::string expected(const RunOption& o) {
  if (o.expects) return std::string("expected ") + o.expects;
  switch (o.type) {
    case T::kFlag: return "expected on or off";
    case T::kCount32:
    case T::kCount64: return "expected a non-negative integer";
    case T::kInt: return "expected an integer";
    case T::kInts: return "expected integers, space-separated";
    case T::kText:
    case T::kTexts: break;
  }
  return "expected a value";
}

}  // namespace

const std::vector<RunOption>& run_options() { return table(); }

bool parse_on_off(const std::string& text, bool& out) {
  if (text == "on" || text == "true" || text == "1" || text == "yes") out = true;
  else if (text == "off" || text == "false" || text == "0" || text == "no") out = false;
  else return false;
  return true;
}

const RunOption* find_run_option(std::string_view name) {
  for (const auto& o : table())
    if (name == o.name) return &o;
  return nullptr;
}

const char* option_group_title(OptionGroup g) {
  switch (g) {
    case G::kEssentials: return "options (the essentials)";
    case G::kModules: return "policy modules (each defaults to --kernel's)";
    case G::kModel: return "the model";
    case G::kOutput: return "output";
    case G::kLimits: return "limits and checks";
    case G::kTraceSelection: return "trace options";
    case G::kTraceReading: return "trace reading";
    case G::kPositional: return "arguments";
  }
  return "";
}

std::string empty_value_message(const RunOption& o, const std::string& command) {
  if (o.expects) return fmt::format("expected {}, got ''", o.expects);
  return fmt::format("expected a value, got '' (leave the option out for its default; 'schedsim help {}' lists the values)",
                     command);
}

OptionValue parse_option_text(const RunOption& o, const std::string& text) {
  OptionValue v;
  switch (o.type) {
    case T::kText:
      if (text.empty() && o.refuse_empty) throw OptionValueError(o.expects ? fmt::format("expected {}, got ''", o.expects) : "expected a value, got ''");
      v.text = text;
      break;
    case T::kTexts: v.texts = split_command_line(text); break;
    case T::kFlag:
      if (!parse_on_off(text, v.flag)) throw OptionValueError(expected(o));
      break;
    case T::kCount32:
    case T::kCount64:
      if (!parse_whole(text, v.count) || (o.type == T::kCount32 && v.count > UINT32_MAX)) throw OptionValueError(expected(o));
      break;
    case T::kInt:
      if (!parse_whole(text, v.integer)) throw OptionValueError(expected(o));
      break;
    case T::kInts:
      for (const auto& word : split_command_line(text)) {
        int64_t i = 0;
        if (!parse_whole(word, i)) throw OptionValueError(expected(o));
        v.integers.push_back(i);
      }
      break;
  }
  return v;
}

void set_option_text(RunRequest& r, const RunOption& o, const std::string& text) {
  const OptionValue v = parse_option_text(o, text);
  try {
    o.set(r, v);
  } catch (const InputError&) {
    // A setter that parses with a library reader (--channels) gets that reader's message; as a
    // parameter the expectation says it in the point's own words.
    if (!o.expects) throw;
    throw OptionValueError(expected(o));
  }
}

}  // namespace schedsim::driver
