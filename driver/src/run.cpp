#include "schedsim/driver/run.hpp"

#include <algorithm>
#include <cstdlib>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include <sys/utsname.h>

#include <fmt/format.h>

#include "schedsim/driver/inputs.hpp"
#include "schedsim/driver/simulate.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/gzip.hpp"
#include "schedsim/base/run_control.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/base/random.hpp"
#include "schedsim/metrics/collector.hpp"
#include "schedsim/metrics/ftrace_writer.hpp"
#include "schedsim/metrics/progress.hpp"
#include "schedsim/policies/registry.hpp"
#include "schedsim/engine/cost_profile.hpp"
#include "schedsim/topology/topology.hpp"
#include "schedsim/topology/virt.hpp"
#include "schedsim/workload/generators.hpp"

#ifndef SCHEDSIM_VERSION
#define SCHEDSIM_VERSION "0.0.0"
#endif

namespace schedsim::driver {

const char* const kSchedsimVersion = SCHEDSIM_VERSION;

std::string quoted_command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    bool plain = !a.empty();
    for (char ch : a)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && std::string_view("_@%+=:,./-").find(ch) == std::string_view::npos)
        plain = false;
    std::string q;
    if (plain) {
      q = a;
    } else {
      q = "'";
      for (char ch : a) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
      q += "'";
    }
    out += (out.empty() ? "" : " ") + q;
  }
  return out;
}

namespace {

void check_output_path(const std::string& path, const std::string& option) {
  if (path.empty() || path == "-") return;
  namespace fs = std::filesystem;
  fs::path p(path);
  fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(SourceLoc{path}, option + ": directory '" + dir.string() + "' does not exist");
  if (fs::is_directory(p, ec)) throw InputError(SourceLoc{path}, option + ": is a directory");
}

int64_t parse_jitter(const std::string& text, const char* flag = "--jitter") {
  double frac = parse_fraction(text, flag);
  if (frac >= 1.0) throw InputError(SourceLoc{flag}, "jitter must be below 100%, got '" + text + "'");
  return static_cast<int64_t>(std::llround(frac * 1000.0));
}

// The two things that end a run early, polled from the progress reporter's callback (every
// Simulation::kPollEvery engine events, whatever they are): a pending
// SIGINT/SIGTERM (a load of one flag) and the memory budget (resident set size from
// /proc/self/statm, about 10 us, every kMemoryEvery polls).
class RunGuard {
 public:
  static constexpr uint64_t kMemoryEvery = 4;
  void poll(Instant at) {
    throw_if_interrupted();
    if (++polls_ % kMemoryEvery == 0) check_memory(fmt::format("at simulated time {:.6f} s", static_cast<double>(at.ns()) / 1e9));
  }
  /// The process's budget check (base/run_control) with run's advice; `where` says when.
  static void check_memory(const std::string& where) {
    check_memory_budget(where, "raise it (--max-memory SIZE, none = unlimited), or shorten the run (--stop-at, a "
                               "smaller workload or trace selection)");
  }

 private:
  uint64_t polls_ = 0;
};

// Adds what the CLI knows to the engine's reasons (the trace selection) and checks work
// conservation: simulated work must equal the workload's run total (for a trace, the extracted
// on-CPU time), or a note/reason says by how much and why. `imported_work` is the measured
// tasks' run total as imported, before a repetition's machine-speed factor scaled `w`: that is
// what the trace's on-CPU time is compared with.
void check_completeness(RunOutcome& out, const Workload& w, const traces::ImportReport* rep, const RunRequest& req,
                        const SimConfig& sim, Duration imported_work) {
  RunResults& r = out.results;
  const SimSummary& sum = out.summary;
  auto ms = [](int64_t ns) { return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6); };
  int64_t normalized = 0;  // on-CPU time SMT normalisation turned into co-run slowdown (--smt-normalize)
  if (auto it = w.meta.find("smt_normalized_ns"); it != w.meta.end()) normalized = std::stoll(it->second);
  if (rep && w.observed.present && w.observed.total_runtime.count() - normalized != imported_work.count())
    out.notes.push_back(fmt::format(
        "warning: the workload's run total {} differs from the trace's on-CPU time {} (the import's conservation "
        "check failed, see above): the replay cannot reproduce the trace's work exactly",
        ms(imported_work.count()), ms(w.observed.total_runtime.count())));
  const int64_t done = r.work_done_ns, expected = r.work_expected_ns;
  if (done != expected) {
    const std::string what = fmt::format("simulated work {} of the workload's {}{} ({:+.2f}%)", ms(done), ms(expected),
                                         rep ? " of on-CPU time" : "",
                                         expected ? 100.0 * static_cast<double>(done - expected) / static_cast<double>(expected) : 0.0);
    if (sum.stop == StopReason::kStopAt)
      out.notes.push_back(fmt::format("note: {}: the rest comes after --stop-at {}", what, req.stop_at));
    else if (sim.jitter_permille > 0 && sum.unfinished.empty() && sum.stop == StopReason::kNone)
      out.notes.push_back(fmt::format("note: {}: {} scaled the run() durations", what,
                                      req.jitter.empty() ? fmt::format("the noise model's jitter ({:g}%)",
                                                                       static_cast<double>(sim.jitter_permille) / 10.0)
                                                         : "--jitter " + req.jitter));
    else if (!sum.complete)
      r.incomplete.push_back(fmt::format("{}: the rest belongs to the tasks above, which never ran it", what));
    else
      r.incomplete.push_back(fmt::format("{} with every task finished: work was not conserved (a schedsim bug; "
                                         "please report it with this workload)", what));
  }
  r.complete = sum.complete && r.incomplete.empty();
  // Token banking (docs/model.md "The pipe's wakeup rule and what it means for replays"): a wake
  // the trace records is replayed when its waker gets there; if the wakee has not yet reached the
  // sleep the trace records, the wake is banked and the wakee later runs on through that sleep.
  // Each banked wake is a wakeup, a wake latency and a sleep the real run had and this replay
  // does not, so past kBankedWarnShare of the replayed wakes the wake figures describe another
  // schedule (calibrate down-weights such traces from the same share). The share is of the wakes
  // the replay posted to measured tasks (each either woke a blocked task or was banked), not of
  // the trace's observed wakeups: those leave out a waking that raced with its wakee's switch-out
  // (sched_waking before the sched_switch that blocks, "paired with a later switch-out" in
  // `trace info`), which the replay posts before the block and so nearly always banks (share
  // above 100% on a trace of such wakes), and a --stop-at run replays only part of them (a share
  // of the whole trace's would stay under the threshold however many of its wakes were banked).
  // A workload file `import` wrote from a trace keeps the trace's observed figures and replays
  // alike (`import -o W && run W` gives what `run TRACE` gives), so it gets the warning too: keyed
  // on the observed figures, not on the input being a trace.
  if (const uint64_t replayed = replayed_wakes(r);
      w.observed.present && replayed > 0 &&
      static_cast<double>(r.tokens_banked) >= kBankedWarnShare * static_cast<double>(replayed)) {
    // Under --wake-match recorded a wake is held for the one sleep it ended, not banked for any.
    const bool recorded = req.extract.wake_match == traces::TraceWakeMatch::kRecorded;
    out.notes.push_back(fmt::format(
        "warning: {:.0f}% of the wakes replayed from the trace ({} of {}) were {}: the replay has {} wakeups where "
        "the trace has {}\n(a {} wake found its wakee not yet asleep{}, and the wakee ran on through the sleep the "
        "trace records), so its wake latencies and run-queue waits come from a schedule with fewer sleeps than the "
        "real one: set them beside the trace's, or another policy's, with care (docs/fidelity.md \"Where fidelity "
        "stands\")",
        100.0 * static_cast<double>(r.tokens_banked) / static_cast<double>(replayed), r.tokens_banked, replayed,
        recorded ? "held for the sleep they ended (--wake-match recorded)" : "banked as tokens", r.placement.wakeups,
        w.observed.wakeups, recorded ? "held" : "banked", recorded ? " in the sleep it ended" : ""));
  }
  if (sim.preempt != PreemptModel::kFull) {
    if (!w.marks_syscalls())
      out.notes.push_back(fmt::format(
          "note: --preempt {} changes nothing here: no task's program says where its system calls are\n(run actions "
          "flagged 'syscall' come from a trace recorded with syscall events: schedsim record --extra-events syscalls), "
          "so every preemption is immediate as under full",
          to_string(sim.preempt)));
    else if (sim.preempt == PreemptModel::kVoluntary)
      out.notes.emplace_back(
          "warning: --preempt voluntary is replayed as none:\nthe explicit scheduling points (cond_resched(), "
          "might_sleep()) inside a system call are not modelled, so a preemption waits for the syscall's return "
          "where the real kernel may switch earlier");
  }
}

/// "1%" for 0.01: up to two decimals, no trailing zeros.
std::string percent_text(double frac) {
  std::string t = fmt::format("{:.2f}", frac * 100.0);
  while (t.back() == '0') t.pop_back();
  if (t.back() == '.') t.pop_back();
  return t + "%";
}

/// A copy of `w` with every run() scaled by `speed` (the repetition's machine-speed factor).
Workload scaled_workload(const Workload& w, double speed) {
  Workload out = w;
  for (auto& t : out.tasks)
    for (auto& a : t.program)
      if (a.kind == ActionKind::kRun) a.arg = std::llround(static_cast<double>(a.arg) * speed);
  return out;
}

}  // namespace

uint64_t parse_max_memory(const std::string& text) {
  if (text.empty()) {
    uint64_t avail = mem_available_bytes();
    return avail / 100 * kDefaultMemoryPercent;
  }
  if (text == "0" || text == "none") return 0;
  auto bad = [&]() {
    return InputError(SourceLoc{"--max-memory"},
                      "expected a size like 512M, 4G or 50% (of MemAvailable), or 'none', got '" + text + "'");
  };
  std::string t = text;
  size_t end = 0;
  while (end < t.size() && (std::isdigit(static_cast<unsigned char>(t[end])) || t[end] == '.')) ++end;
  if (end == 0) throw bad();
  double v = 0;
  auto parsed = std::from_chars(t.data(), t.data() + end, v);
  if (parsed.ec != std::errc() || parsed.ptr != t.data() + end) throw bad();
  std::string unit = t.substr(end);
  double mult = 0;
  if (unit == "%") {
    if (v <= 0 || v > 100) throw bad();
    uint64_t avail = mem_available_bytes();
    if (avail == 0)
      throw InputError(SourceLoc{"--max-memory"}, "a percentage needs MemAvailable from /proc/meminfo, which is unreadable");
    return static_cast<uint64_t>(static_cast<double>(avail) * v / 100.0);
  }
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() == 3 && unit[1] == 'I' && unit[2] == 'B') unit.resize(1);
  else if (unit.size() == 2 && unit[1] == 'B') unit.resize(1);
  if (unit.empty() || unit == "B") mult = 1;
  else if (unit == "K") mult = 1024.0;
  else if (unit == "M") mult = 1024.0 * 1024;
  else if (unit == "G") mult = 1024.0 * 1024 * 1024;
  else if (unit == "T") mult = 1024.0 * 1024 * 1024 * 1024;
  else throw bad();
  double bytes = v * mult;
  if (!std::isfinite(bytes) || bytes < 1 || bytes > 9.0e18) throw bad();
  return static_cast<uint64_t>(bytes);
}

void refuse_recorded_on_alone(const RunRequest& req) {
  if (!req.recorded_on.empty() && !req.smt_normalize)
    throw InputError(SourceLoc{"--recorded-on"},
                     "names the machine a trace was recorded on for --smt-normalize, which is not given: add "
                     "--smt-normalize (without it the recording machine changes nothing)");
}


std::string NoiseModel::text() const {
  std::vector<std::string> parts;
  if (speed_std > 0) parts.push_back("speed=" + percent_text(speed_std));
  if (jitter_permille > 0) parts.push_back("jitter=" + percent_text(static_cast<double>(jitter_permille) / 1000.0));
  return parts.empty() ? "none" : join(parts, ",");
}

NoiseModel parse_noise(const std::string& spec) {
  NoiseModel m;
  if (spec == "none") return m;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string part = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t eq = part.find('=');
    std::string key = eq == std::string::npos ? part : part.substr(0, eq);
    std::string val = eq == std::string::npos ? std::string() : part.substr(eq + 1);
    if (key == "jitter" && !val.empty()) {
      m.jitter_permille = parse_jitter(val, "--noise");
    } else if (key == "speed" && !val.empty()) {
      // A uniform factor with this std must stay positive.
      m.speed_std = parse_fraction(val, "--noise");
      if (m.speed_std * 1.7320508075688772 >= 1.0)
        throw InputError(SourceLoc{"--noise"}, "speed std must be below 57%, got '" + val + "'");
    } else {
      throw InputError(SourceLoc{"--noise"}, "expected 'speed=S,jitter=J' (e.g. speed=1%,jitter=5%) or 'none', got '" + spec + "'");
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return m;
}

std::vector<std::string> trace_options_given(const traces::ExtractOptions& e) {
  const traces::ExtractOptions d;
  std::vector<std::string> v;
  if (e.comm_regex != d.comm_regex) v.emplace_back("--comm");
  if (e.pids != d.pids) v.emplace_back("--pid");
  if (e.descendants_of != d.descendants_of) v.emplace_back("--descendants-of");
  if (e.exclude_kthreads != d.exclude_kthreads) v.emplace_back("--exclude-kthreads");
  if (e.all_tasks != d.all_tasks) v.emplace_back("--all-tasks");
  if (e.background_comm_regex != d.background_comm_regex) v.emplace_back("--background-comm");
  if (e.background_pids != d.background_pids) v.emplace_back("--background-pid");
  if (e.strict != d.strict) v.emplace_back("--strict");
  if (e.clock_hz != d.clock_hz) v.emplace_back("--clock-hz");
  if (e.kernel_version != d.kernel_version) v.emplace_back("--kernel-version");
  if (e.buffer != d.buffer) v.emplace_back("--buffer");
  if (e.race_window != d.race_window) v.emplace_back("--race-window");
  if (e.reorder_window != d.reorder_window) v.emplace_back("--reorder-window");
  if (e.clock_tolerance != d.clock_tolerance) v.emplace_back("--clock-tolerance");
  if (e.channels != d.channels) v.emplace_back("--channels");
  if (e.wake_match != d.wake_match) v.emplace_back("--wake-match");
  return v;
}

void refuse_migration_delta(const CostModel& cost, const Workload& w, bool from_trace) {
  if (!from_trace && w.meta.count("trace_format") > 0 && cost.replay_overheads == ReplayOverheads::kMigrationDelta)
    throw InputError(SourceLoc{"--cost"},
                     "replay_overheads=migration-delta needs the trace itself: a workload file imported from one "
                     "does not keep the CPUs its runs were recorded on (replay the trace, or use "
                     "replay_overheads=recorded)");
  // Nor the recorded CPUs of each wake (Action::reserved), which replay_wakes=modelled credits.
  if (!from_trace && w.meta.count("trace_format") > 0 && cost.replay_wakes == ReplayWakes::kModelled)
    throw InputError(SourceLoc{"--cost"},
                     "replay_wakes=modelled needs the trace itself: a workload file imported from one does not keep "
                     "where each recorded wake went (replay the trace, or use replay_wakes=recorded)");
}

// A trace option given with a native or generated workload would silently do nothing.
static void refuse_trace_options(const traces::ExtractOptions& extract, const std::string& what) {
  std::vector<std::string> given = trace_options_given(extract);
  if (given.empty()) return;
  throw InputError(fmt::format("{} {} only to a trace input, and {} is not a trace", join(given, ", "),
                               given.size() == 1 ? "applies" : "apply", what));
}

Workload load_workload_input(const std::string& input, const std::string& workload_gen,
                             const traces::ExtractOptions& extract, traces::ImportReport* report,
                             const GenCosts& gen_costs, std::optional<uint64_t> gen_seed) {
  if (!workload_gen.empty() && !input.empty())
    throw InputError("give either a WORKLOAD file or --workload-gen, not both");
  if (!workload_gen.empty()) {
    refuse_trace_options(extract, "a --workload-gen workload");
    return generate_workload_from_spec(workload_gen, gen_costs, gen_seed);
  }
  if (input.empty()) throw InputError("no workload: give a WORKLOAD or TRACE file, or --workload-gen 'KIND opts'");
  if (input == "-") {
    // Standard input, read whole: a workload (plain or gzip) or a trace, which may then be read
    // twice (--comm, an inferred prev_state layout).
    std::string raw = read_standard_input();
    if (raw.empty()) throw InputError(SourceLoc{"-"}, "standard input is empty: expected a workload or a kernel trace");
    const std::string plain = is_gzip(raw) ? gunzip(raw, "-", kMaxInMemoryInput) : std::string();
    const std::string_view text = plain.empty() ? std::string_view(raw) : std::string_view(plain);
    if (looks_like_workload_buffer(text)) {
      refuse_trace_options(extract, "standard input (a schedsim workload)");
      return read_workload_buffer(text, "-");
    }
    Workload w = traces::import_trace_buffer(raw, "-", extract, report);
    if (report) refuse_empty_selection(w, "-", *report, "nothing to simulate");
    return w;
  }
  std::error_code ec;
  if (!std::filesystem::exists(input, ec)) throw InputError(SourceLoc{input}, "no such file");
  if (std::filesystem::is_directory(input, ec)) throw InputError(SourceLoc{input}, "is a directory, expected a workload or trace file");
  if (looks_like_workload(input)) {
    refuse_trace_options(extract, "'" + input + "' (a schedsim workload)");
    return read_workload(input);
  }
  std::optional<InputError> why;
  if (traces::is_trace_file(input, &why)) {
    Workload w = traces::import_trace(input, extract, report);
    if (report) refuse_empty_selection(w, input, *report, "nothing to simulate");
    return w;
  }
  if (why) throw *why;  // the real cause: unreadable, corrupt stream, binary file, ...
  throw InputError(SourceLoc{input, 1},
                   "not a schedsim workload (JSON/CBOR) nor a recognised kernel trace (ftrace text, "
                   "trace-cmd report or trace.dat, perf script or perf.data; plain, gzip or zstd)");
}

// --kernel host: the running kernel's profile (uname -r). A profile of the running major.minor is
// what was asked for: one line says which; a nearest older profile is a warning with its summary.
static const KernelProfile& host_kernel_profile() {
  struct utsname u;
  if (uname(&u) != 0) throw InputError(SourceLoc{"--kernel host"}, "cannot read the running kernel's release (uname)");
  std::string note;
  bool exact = false;
  const KernelProfile& p = kernel_profile_for_release(u.release, note, &exact);
  if (exact) log::get("cli")->info("--kernel host: running {}, profile {}", u.release, p.version);
  else log::get("cli")->warn("{}", note);
  return p;
}

PolicyStack build_policy_stack(const std::string& kernel, const std::map<std::string, std::string>& modules,
                               const std::vector<std::string>& features, RunConfig& config, std::string* kernel_note) {
  const PolicyRegistry& reg = builtin_registry();
  std::map<std::string, std::string> choice = default_modules();
  FeatureSet explicit_features;
  if (!kernel.empty()) {
    std::string note;
    const KernelProfile& prof = kernel == "host" ? host_kernel_profile() : resolve_kernel_profile(kernel, note);
    config.provenance.kernel = kernel == "host" ? prof.version + " (host)"
                               : note.empty()   ? prof.version
                                                : prof.version + " (for " + kernel + ")";
    // Once per process: --repeat builds a stack per repetition, sweep one per run (in threads).
    static std::mutex warned_mutex;
    static std::string warned;
    if (!note.empty()) {
      std::lock_guard<std::mutex> lock(warned_mutex);
      if (warned != note) log::get("cli")->warn("{}", note);
      warned = note;
    }
    if (kernel_note) *kernel_note = note;
    choice = prof.modules;
    for (const auto& [name, on] : prof.features) explicit_features.set(name, on);
  } else {
    // default_modules() are this profile's, and each module's own flag defaults are its flags.
    config.provenance.kernel = std::string(kDefaultKernel) + " (default)";
  }
  for (const auto& [slot, name] : modules) choice[slot] = name;
  // A profile's flags only apply where a chosen module reads them (a profile sets SIS_PROP even
  // when the user swapped the placement module for one that has no such flag).
  std::map<std::string, bool> readable;
  for (const auto& [slot, name] : choice)
    for (const auto& f : reg.info(slot, name).features) readable[f.name] = true;
  FeatureSet fs;
  for (const auto& [name, on] : explicit_features.all())
    if (readable.count(name)) fs.set(name, on);
  for (const auto& f : features) {
    bool on = f.rfind("NO_", 0) != 0;
    std::string name = on ? f : f.substr(3);
    if (name.empty()) throw InputError(SourceLoc{"--feature"}, "empty feature name");
    fs.set(name, on);
  }
  PolicyStack st = reg.make(choice, fs);
  config.modules = st.names;
  config.features = st.features.all();
  return st;
}

namespace {

// The provenance hashes (64-bit FNV-1a) cover what the simulation reads and nothing else: a
// workload's tasks and programs (not its name, source path or free-form meta, so the same
// workload read from a copy or imported again hashes alike), and the machine's spec as its
// topology JSON.
struct Hasher {
  uint64_t h = kFnvOffset;
  void bytes(std::string_view b) { h = fnv1a64(b, h); }
  void str(const std::string& s) {
    num(static_cast<int64_t>(s.size()));
    bytes(s);
  }
  void num(int64_t v) {
    char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
    bytes(std::string_view(b, 8));
  }
};

}  // namespace

std::string workload_hash(const Workload& w) {
  Hasher h;
  h.num(static_cast<int64_t>(w.tasks.size()));
  for (const auto& t : w.tasks) {
    poll_resources();
    h.str(t.name);
    h.num(t.pid);
    h.num(t.tgid);
    h.num(t.nice);
    h.num(t.affinity.count());
    for (uint32_t c = t.affinity.first(); c < CpuMask::kMaxCpus; c = t.affinity.next(c)) h.num(c);
    h.num(t.kthread ? 1 : 0);
    h.num(static_cast<int64_t>(t.start));
    h.num(t.start_time.ns());
    h.num(t.initial_cpu);
    // Only a custom slice is hashed, so workloads without one keep the hashes they had.
    if (t.slice.count() != 0) {
      h.str("slice");
      h.num(t.slice.count());
    }
    // Likewise only the background flag (load, not measured: the same tasks with it are
    // another experiment, with other metrics).
    if (t.background) h.str("background");
    h.num(static_cast<int64_t>(t.program.size()));
    for (const auto& a : t.program) {
      h.num(static_cast<int64_t>(a.kind));
      h.num(a.flags);
      h.num(a.body);
      h.num(a.arg);
    }
  }
  return hash_hex(h.h);
}

namespace {

std::string file_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return hash_hex(fnv1a64(data));
}

// The default label: what was chosen, "<placement>[+<other choices>]@<topology>", e.g.
// "sis-fold-opt@xeon-e5-2690v2" or "linux-6.6+sis+NO_SIS_UTIL@xeon-gold-6248".
std::string default_label(const RunRequest& req, const RunConfig& config) {
  std::vector<std::string> parts;
  if (!req.kernel.empty()) parts.push_back("linux-" + config.provenance.kernel.substr(0, config.provenance.kernel.find(' ')));
  auto placement = config.modules.find("placement");
  if (placement != config.modules.end()) parts.push_back(placement->second);
  for (const auto& [slot, name] : req.modules)
    if (slot != "placement") parts.push_back(slot + "=" + name);
  for (const auto& f : req.features) parts.push_back(f);
  for (const auto& sl : req.slices) parts.push_back("slice:" + sl);
  if (req.preempt && *req.preempt != "full") parts.push_back("preempt=" + *req.preempt);
  if (req.update_curr && *req.update_curr != "actions") parts.push_back("update-curr=" + *req.update_curr);
  for (const auto& c : req.costs)
    parts.push_back(c.find('=') == std::string::npos ? std::filesystem::path(c).filename().string() : c);
  return join(parts, "+") + "@" + config.topology;
}

/// What the results keep: the lines other modules already logged on stderr for this run (the
/// importer's warnings, the kernel profile fallback), then the caveats `run` prints itself.
std::vector<std::string> results_notes(const std::vector<std::string>& logged, const std::vector<std::string>& notes) {
  std::vector<std::string> all = logged;
  all.insert(all.end(), notes.begin(), notes.end());
  return all;
}

/// A caveat's kind: its text with the digits (counts, shares, times) and a "repetition N: "
/// prefix left out, so the same warning of two repetitions compares equal.
std::string note_kind(const std::string& n) {
  std::string k;
  for (char c : n)
    if (c < '0' || c > '9') k += c;
  const std::string rep = "warning: repetition : ";
  if (k.rfind(rep, 0) == 0) k = "warning: " + k.substr(rep.size());
  return k;
}

/// `run --repeat N`: N simulations of the same inputs, repetition r with seed
/// derive_seed(seed, r), its own machine-speed factor and per-run jitter (NoiseModel).
RunOutcome execute_repeats(const RunRequest& req, const Workload& w, const traces::ImportReport* rep,
                           const Topology& topo, PolicyStack first, const CostModel& cost, SimConfig sim,
                           RunConfig config, RunGuard& guard, const std::vector<std::string>& caveats,
                           const std::vector<std::string>& logged) {
  NoiseModel noise = parse_noise(req.noise.empty() ? "speed=" + percent_text(kDefaultSpeedStd) + ",jitter=" +
                                                         percent_text(static_cast<double>(kDefaultJitterPermille) / 1000.0)
                                                   : req.noise);
  if (!req.jitter.empty()) noise.jitter_permille = sim.jitter_permille;
  config.provenance.noise = noise.text();
  RunOutcome out;
  // The caller's stack serves the first repetition; each later one gets a fresh stack (same
  // kernel, modules and features), so no repetition sees another's policy state.
  std::optional<PolicyStack> spare(std::move(first));
  const Duration imported_work = w.total_work(/*measured_only=*/true);
  const uint32_t first_rep = req.only_rep.value_or(0);
  const uint32_t end_rep = req.only_rep ? first_rep + 1 : req.repeat;
  for (uint32_t r = first_rep; r < end_rep; ++r) {
    // A short repetition may never poll the guard (fewer than Simulation::kPollEvery engine
    // events): `run --repeat 1000000000` of a small workload ignored SIGTERM and grew its kept
    // records past any budget. Signals and the budget are checked between repetitions as well.
    throw_if_interrupted();
    if (r != first_rep) guard.check_memory(fmt::format("after {} repetitions", r - first_rep));
    uint64_t seed = derive_seed(req.seed, r);
    SimConfig s = sim;
    s.seed = seed;
    s.jitter_permille = noise.jitter_permille;
    double u = SplitMix64{derive_seed(seed, 1)}.uniform();
    double speed = 1.0 + noise.speed_std * 1.7320508075688772 * (2.0 * u - 1.0);
    Workload wr = noise.speed_std > 0 ? scaled_workload(w, speed) : w;
    PolicyStack policies = spare ? std::move(*spare) : build_policy_stack(req.kernel, req.modules, req.features, config);
    spare.reset();
    MeteredRun run(wr, topo, std::move(policies), cost, s, req.progress, [&guard](Instant at) { guard.poll(at); });
    // Each repetition is checked like a single run (work conservation, stuck tasks); the notes of
    // the first are kept (the others differ only by their noise), every incomplete reason is kept
    // with its repetition's index.
    RunOutcome one;
    one.notes = caveats;
    one.summary = run.run();
    one.results = run.results(config, one.summary);
    check_completeness(one, wr, rep, req, s, imported_work);
    one.results.notes = results_notes(logged, one.notes);
    out.records.push_back(make_record(one.results, noise.text(), r, seed));
    if (r == first_rep) {
      out.summary = one.summary;
      out.results = one.results;
      out.notes = std::move(one.notes);
      for (auto& line : out.results.incomplete) line = fmt::format("repetition {}: {}", r, line);
    } else {
      if (!one.results.complete) {
        out.results.complete = false;
        for (const auto& line : one.results.incomplete)
          out.results.incomplete.push_back(fmt::format("repetition {}: {}", r, line));
      }
      // stderr shows the first repetition's caveats; a later one's warning of another kind (one the
      // first did not print, figures aside: its share of banked wakes crossed the threshold) is
      // printed too, once, with its repetition. Each record keeps its own notes.
      for (const auto& n : one.notes)
        if (n.rfind("warning:", 0) == 0 && std::none_of(out.notes.begin(), out.notes.end(), [&](const std::string& o) {
              return note_kind(o) == note_kind(n);
            }))
          out.notes.push_back(fmt::format("warning: repetition {}: {}", r, n.substr(std::string("warning: ").size())));
    }
  }
  std::string label = config.display_label();
  if (req.format == "json") out.rendered = render_repeat_json(out.records);
  else if (req.format == "csv") out.rendered = render_repeat_csv(out.records, label);
  else if (req.format == "jsonl") out.rendered = render_jsonl(out.records);
  else out.rendered = render_repeat_table(out.records, label);
  return out;
}

}  // namespace

bool generator_is_random(const std::string& spec, const GenCosts& costs, uint64_t seed) {
  return generator_is_random(spec, costs, seed, generate_workload_from_spec(spec, costs, seed));
}

bool generator_is_random(const std::string& spec, const GenCosts& costs, uint64_t seed, const Workload& at_seed) {
  // The neighbour seed is seed ^ 1, not seed + 1: it stays within the generators' 0..INT64_MAX
  // whenever seed does (INT64_MAX + 1 made a valid run --seed fail).
  return workload_hash(at_seed) != workload_hash(generate_workload_from_spec(spec, costs, seed ^ 1));
}

CostModel build_cost_model(const std::vector<std::string>& costs, const Topology& topo, RunConfig* config,
                           std::map<std::string, std::string>* given) {
  CostModel cost;
  const CostProfile& profile = cost_profile_for(topo.name());
  apply_cost_profile(cost, profile);
  if (config) {
    config->provenance.cost_profile = cost_profile_label(profile);
    config->provenance.cost_profile_note = cost_profile_note(profile);
  }
  for (const auto& c : costs) {
    if (c.find('=') == std::string::npos) {
      for (const auto& name : cost.load_json_file(c))
        if (given) (*given)[name] = "--cost " + c;
      if (!config) continue;
      Provenance& pv = config->provenance;
      pv.cost_files += (pv.cost_files.empty() ? "" : ",") + c;
      pv.cost_files_hash += (pv.cost_files_hash.empty() ? "" : ",") + file_hash(c);
      config->cost_overrides["file"] = c;
    } else {
      cost.set(c);
      if (given) (*given)[c.substr(0, c.find('='))] = "--cost " + c;
      if (config) config->cost_overrides[c.substr(0, c.find('='))] = c.substr(c.find('=') + 1);
    }
  }
  cost.validate("--cost");
  return cost;
}

std::vector<std::string> gen_cost_notes(const Workload& w, const CostModel& cost, const std::string& topology,
                                        bool generated_here) {
  auto used = w.meta.find("gen_cost_params");
  if (used == w.meta.end() || used->second.empty()) return {};
  const CostProfile& profile = cost_profile_for(topology);
  if (generated_here) {
    // Costs the user set with --cost are theirs; the rest come from the profile or the reference.
    std::vector<std::string> missing;
    for (const auto& name : gen_costs_not_from_machine(profile, used->second))
      if (!cost.gen_ops.count(name) || cost.gen_ops.at(name) == gen_cost({}, name)) missing.push_back(name);
    if (missing.empty()) return {};
    return {fmt::format("note: the generator's per-operation costs {} are the reference machine's (a 2-vCPU KVM "
                        "guest), not measured on {}:\nabsolute times (makespan, benchmark time) are not that "
                        "machine's; give them with --cost NAME=VALUE or a cost file from `schedsim calibrate "
                        "--workload-gen` (docs/calibrate.md)",
                        join(missing, ", "), topology)};
  }
  // A workload file: its run() times were fixed when it was generated.
  std::vector<std::string> differ;
  std::istringstream in(used->second);
  for (std::string name; std::getline(in, name, ',');)
    if (!name.empty() && gen_cost(cost.gen_ops, name) != gen_cost({}, name)) differ.push_back(name);
  if (differ.empty()) return {};
  return {fmt::format("note: this workload was generated with the reference per-operation costs, but {}'s cost "
                      "profile has its own ({}):\ngenerate it with `run --workload-gen ... -t {}` to use them",
                      topology, join(differ, ", "), topology)};
}

namespace {
struct SliceSpec {
  std::string text, pattern;
  std::regex re;
  Duration slice;
};
std::vector<SliceSpec> parse_slices(const std::vector<std::string>& specs) {
  std::vector<SliceSpec> out;
  for (const std::string& spec : specs) {
    const SourceLoc where{"--slice"};
    const size_t eq = spec.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      throw InputError(where, fmt::format("expected REGEX=DURATION (e.g. 'rt-.*=300us'), got '{}'", spec));
    SliceSpec sl{spec, spec.substr(0, eq), {}, {}};
    const std::string value = spec.substr(eq + 1);
    if (!parse_duration(value, sl.slice) || sl.slice < kMinSlice || sl.slice > kMaxSlice)
      throw InputError(where, fmt::format("'{}': expected a slice from {} to {} (the range sched_setattr() allows "
                                          "sched_runtime), got '{}'",
                                          spec, format_duration(kMinSlice), format_duration(kMaxSlice), value));
    try {
      sl.re = std::regex(sl.pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw InputError(where, fmt::format("'{}': bad regex '{}': {}", spec, sl.pattern, e.what()));
    }
    out.push_back(std::move(sl));
  }
  return out;
}
InputError no_task_matches(const SliceSpec& sl) {
  return InputError(SourceLoc{"--slice"}, fmt::format("'{}': no task name matches /{}/", sl.text, sl.pattern));
}
}  // namespace

void check_slices(const std::vector<std::string>& specs) { (void)parse_slices(specs); }

void check_slices(const std::vector<std::string>& specs, const Workload& w) {
  for (const SliceSpec& sl : parse_slices(specs))
    if (std::none_of(w.tasks.begin(), w.tasks.end(), [&](const TaskSpec& t) { return std::regex_search(t.name, sl.re); }))
      throw no_task_matches(sl);
}

void apply_slices(Workload& w, const std::vector<std::string>& specs) {
  for (const SliceSpec& sl : parse_slices(specs)) {
    size_t matched = 0;
    for (TaskSpec& t : w.tasks)
      if (std::regex_search(t.name, sl.re)) {
        t.slice = sl.slice;
        ++matched;
      }
    if (matched == 0) throw no_task_matches(sl);
  }
}

// Custom slices are read only by the EEVDF queues, and exist only from 6.12 (857b158dc5e8):
// say so when a workload sets them where they change nothing or where the kernel had none.
std::optional<std::string> custom_slice_note(const Workload& w, const RunConfig& config) {
  // A forked child without a slice of its own runs with its parent's (sched_fork() keeps the
  // copied se.custom_slice; the engine's fork path): counted too, down the whole fork tree.
  std::vector<char> has(w.tasks.size(), 0);
  std::vector<size_t> todo;
  for (size_t i = 0; i < w.tasks.size(); ++i)
    if (w.tasks[i].slice.count() != 0) {
      has[i] = 1;
      todo.push_back(i);
    }
  while (!todo.empty()) {
    const size_t i = todo.back();
    todo.pop_back();
    for (const Action& a : w.tasks[i].program)
      if (a.kind == ActionKind::kFork && !has[a.task().value()]) {
        has[a.task().value()] = 1;
        todo.push_back(a.task().value());
      }
  }
  const auto custom = std::count(has.begin(), has.end(), 1);
  if (custom == 0) return std::nullopt;
  auto q = config.modules.find("queue");
  const std::string queue = q == config.modules.end() ? "" : q->second;
  if (queue.rfind("eevdf", 0) != 0)
    return fmt::format("note: {} task(s) have a custom slice, which the queue module {} does not read (only the "
                       "EEVDF queues do): the slices change nothing here",
                       custom, queue);
  const std::string& kernel = config.provenance.kernel;
  if (kernel.rfind("6.6", 0) == 0 && (kernel.size() == 3 || kernel[3] == ' '))
    return fmt::format("warning: {} task(s) have a custom slice, but 6.6 has none (sched_runtime sets a fair "
                       "task's slice from 6.12, 857b158dc5e8): the eevdf queue applies them anyway",
                       custom);
  return std::nullopt;
}

namespace {
// --recorded-on's topology: an error that names no file (an unknown preset) names the option.
Topology load_recording_topology(const std::string& name) {
  try {
    return load_topology(name);
  } catch (const InputError& e) {
    if (!e.loc().path.empty()) throw;
    throw InputError(SourceLoc{"--recorded-on"}, e.message());
  }
}
}  // namespace

// After a --smt-normalize import: the trace's header names the recording machine's CPU count
// even where it shows events on fewer CPUs (the extractor refuses an event on a CPU beyond the
// recording machine's, naming its line). A trace from another machine than the one named is
// normalised with the wrong siblings, silently: a smaller header count, or nothing normalised at
// all (a 40-CPU trace read with an 80-CPU machine's siblings, c and c+40), gets a note.
void check_smt_normalisation(const traces::ImportReport& rep, const traces::ExtractOptions& extract,
                             const Workload& w, std::vector<std::string>& caveats) {
  const auto cpus = static_cast<int64_t>(extract.smt_siblings.size());
  if (rep.header_cpus > cpus)
    throw InputError(SourceLoc{rep.path},
                     fmt::format("the trace's header says it was recorded on {} CPUs, but the recording machine "
                                 "given for --smt-normalize, {}, has {}: give the topology of the machine the "
                                 "trace was recorded on",
                                 rep.header_cpus, extract.smt_machine, cpus));
  if (rep.header_cpus > 0 && rep.header_cpus < cpus)
    caveats.push_back(fmt::format("note: the trace's header says {} CPUs were online, but the recording machine "
                                  "given for --smt-normalize, {}, has {}: if the trace comes from another machine, "
                                  "its co-run time was normalised with the wrong SMT siblings",
                                  rep.header_cpus, extract.smt_machine, cpus));
  auto it = w.meta.find("smt_normalized_ns");
  if (it != w.meta.end() && it->second == "0")
    caveats.push_back(fmt::format("note: --smt-normalize found no on-CPU time during which an SMT sibling was busy "
                                  "on {}: nothing was normalised (is it the machine the trace was recorded on?)",
                                  extract.smt_machine));
}

void set_smt_siblings(const Topology& rec, int64_t corun_permille, const std::string& machine,
                      traces::ExtractOptions& extract) {
  extract.smt_siblings.assign(rec.nr_cpus(), {});
  for (uint32_t c = 0; c < rec.nr_cpus(); ++c)
    for (uint32_t s : rec.smt_mask(c))
      if (s != c) extract.smt_siblings[c].push_back(s);
  extract.corun_permille = corun_permille;
  extract.smt_machine = machine;
}

namespace {
// SMT normalisation (run --smt-normalize): the machine the trace was recorded on is --recorded-on,
// or -t without it. Its SMT siblings and its co-run work rate (smt_corun_permille) turn the
// recorded on-CPU time during which a sibling was busy into reference work (the extractor's
// normalised_work); the replay on -t then applies -t's own co-run slowdown once, or none on a
// machine without SMT. The recording machine's rate is its cost profile's (-c sets the replay
// machine's costs), unless it is the -t machine itself, whose costs -c already gives. Returns
// whether the recording machine is another one than -t.
bool set_smt_normalisation(const RunRequest& req, const Topology& topo, const CostModel& cost,
                           traces::ExtractOptions& extract, RunConfig& config, std::string& rate_note) {
  const bool named = !req.recorded_on.empty();
  const Topology rec = named ? load_recording_topology(req.recorded_on) : topo;
  const bool other = named && (rec.name() != topo.name() ||
                               topology_to_json(rec.spec()) != topology_to_json(topo.spec()));
  if (!rec.has_smt()) {
    if (!named)
      throw InputError(SourceLoc{"--smt-normalize"},
                       fmt::format("the topology {} has no SMT siblings: there is no co-run time to normalise "
                                   "(give the machine the trace was recorded on)",
                                   topo.name()));
    throw InputError(SourceLoc{"--recorded-on"},
                     fmt::format("the recording machine {} has no SMT siblings: its trace holds no co-run time to "
                                 "normalise (drop --smt-normalize, or name the machine the trace was recorded on)",
                                 rec.name()));
  }
  int64_t corun = cost.smt_corun_permille;
  std::string source = "as -t";
  if (other) {
    CostModel rc;
    const CostProfile& profile = cost_profile_for(rec.name());
    apply_cost_profile(rc, profile);
    corun = rc.smt_corun_permille;
    source = "cost profile " + profile.name;
    if (!profile_entry(profile, "smt_corun_permille"))
      rate_note = fmt::format("note: --smt-normalize takes the co-run rate of the recording machine {} from its cost "
                              "profile, which has none measured: the reference {} permille (a rate fitted with "
                              "`calibrate` on that machine's traces cannot be given for it here)",
                              rec.name(), corun);
  }
  set_smt_siblings(rec, corun, fmt::format("{} ({})", rec.name(), named ? "--recorded-on" : "-t"), extract);
  config.cost_overrides["smt_normalize"] =
      named ? fmt::format("recorded on {} (--recorded-on), co-run {} permille ({})", rec.name(), corun, source)
            : fmt::format("recorded on {}, co-run {} permille", rec.name(), corun);
  return other;
}
}  // namespace

// A lower bound of the --trace-out text: the lines the workload's actions produce whatever the
// schedule (a fork: sched_process_fork + sched_wakeup_new; a timed sleep: a sched_switch out and
// a wakeup; an exit: sched_process_exit + a sched_switch; a wake or block may meet a banked token
// and print nothing), at 110 bytes a line (the shortest ftrace prints); the scratch file holds it
// and the target's temporary a copy (an eighth of it gzip-compressed) until the rename. So a
// refusal is never wrong; a run that needs more than the estimate still fails cleanly if the
// disk fills (the outputs are committed only when complete).
void refuse_trace_out_without_room(const Workload& w, const std::string& target, const std::string& scratch) {
  const std::vector<uint64_t> n = w.expanded_action_counts();
  auto count = [&n](ActionKind k) { return static_cast<size_t>(k) < n.size() ? n[static_cast<size_t>(k)] : 0; };
  const double lines = 2.0 * static_cast<double>(count(ActionKind::kFork) + count(ActionKind::kSleep) +
                                                 count(ActionKind::kExit));
  const bool gz = target.size() > 3 && target.compare(target.size() - 3, 3, ".gz") == 0;
  const double need = 110.0 * lines * (gz ? 1.125 : 2.0);
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::absolute(scratch, ec).parent_path();
  const std::filesystem::space_info sp = std::filesystem::space(dir, ec);
  if (ec || sp.available == static_cast<std::uintmax_t>(-1)) return;  // unknown: nothing to say
  if (need > static_cast<double>(sp.available))
    throw InputError(SourceLoc{target},
                     fmt::format("--trace-out: the trace would take at least {} ({:.0f} lines the workload's forks, "
                                 "sleeps and exits produce, as a scratch file and the written copy), and {} has {} free; free "
                                 "space, write it elsewhere, compress it (a .gz name) or simulate less (--stop-at)",
                                 format_bytes(static_cast<uint64_t>(need)), lines, dir.string(),
                                 format_bytes(sp.available)));
}

SimConfig sim_config_of(const RunRequest& req, RunConfig& config) {
  SimConfig sim;
  sim.seed = req.seed;
  if (!req.jitter.empty()) sim.jitter_permille = parse_jitter(req.jitter);
  if (req.preempt && !parse_preempt_model(*req.preempt, sim.preempt))
    throw InputError(SourceLoc{"--preempt"},
                     unknown_choice_message("preemption model", *req.preempt, {"full", "none", "voluntary", "lazy"}));
  if (req.update_curr && !parse_update_curr(*req.update_curr, sim.update_curr))
    throw InputError(SourceLoc{"--update-curr"},
                     unknown_choice_message("run-time accounting rule", *req.update_curr, {"actions", "events"}));
  // Both are recorded beside the cost overrides (treatments: compare lists them as differences,
  // and they are in the default label) only when they are not the default, so default results
  // are unchanged.
  if (sim.preempt != PreemptModel::kFull) config.cost_overrides["preempt"] = to_string(sim.preempt);
  if (sim.update_curr != UpdateCurr::kActions) config.cost_overrides["update_curr"] = to_string(sim.update_curr);
  sim.check_invariants_full = req.check_invariants;
  if (!req.stop_at.empty()) {
    Duration d;
    if (!parse_duration(req.stop_at, d) || d.count() <= 0)
      throw InputError(SourceLoc{"--stop-at"}, "expected a positive duration like 2s or 500ms, got '" + req.stop_at + "'");
    sim.stop_at = Instant::zero() + d;
  }
  if (!req.max_sim_time.empty()) {
    Duration d;
    if (!parse_duration(req.max_sim_time, d) || d.count() <= 0 || Instant::zero() + d > SimConfig::kMaxTimeLimit)
      throw InputError(SourceLoc{"--max-sim-time"},
                       fmt::format("expected a positive duration up to {}s (366 days), like 172800s, got '{}'",
                                   SimConfig::kMaxTimeLimit.ns() / 1000000000, req.max_sim_time));
    sim.max_time = Instant::zero() + d;
  }
  return sim;
}

std::string topology_beside(const std::string& input) {
  if (input.empty() || input == "-") return "";
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::path(input).parent_path();
  for (const char* name : {"topology.json", "lscpu-p.txt", "sysfs"}) {
    const fs::path p = dir / name;
    if (fs::exists(p, ec)) return p.string();
  }
  return "";
}

std::string recording_machine(const std::string& input, const traces::ImportReport& rep, const Workload& w,
                              std::string& note) {
  if (std::string beside = topology_beside(input); !beside.empty()) {
    note = fmt::format("note: no --topology: replayed on the recording machine that {} describes", beside);
    return beside;
  }
  if (const int64_t cpus = traced_cpus(rep.header_cpus, w); cpus > 0 && cpus <= CpuMask::kMaxCpus) {
    note = fmt::format("note: no --topology: replayed on smp{0}, the {0} CPUs the trace's {1} but without their "
                       "layout (SMT siblings, LLCs); give -t (an lscpu -p file, a saved sysfs tree, a preset) for it",
                       cpus, rep.header_cpus > 0 ? "header names" : "events show");
    return fmt::format("smp{}", cpus);
  }
  note = fmt::format("note: no --topology, and the trace says nothing of its machine: replayed on {}", kDefaultTopology);
  return kDefaultTopology;
}

namespace {

/// The checks of a request that need nothing read: formats, repetitions, output paths.
void check_request(const RunRequest& req) {
  if (req.format != "table" && req.format != "json" && req.format != "csv" && req.format != "jsonl")
    throw InputError(SourceLoc{"--format"}, unknown_choice_message("format", req.format, {"table", "json", "csv", "jsonl"}));
  if (req.repeat == 0) throw InputError(SourceLoc{"--repeat"}, "expected at least 1 repetition");
  if (req.only_rep && *req.only_rep >= req.repeat)
    throw InputError(SourceLoc{"--repeat"}, fmt::format("repetition {} of {} does not exist", *req.only_rep, req.repeat));
  if (req.repeat > 1 && !req.trace_out.empty())
    throw InputError(SourceLoc{"--trace-out"}, "writes one schedule; it cannot be combined with --repeat");
  if (req.repeat == 1 && !req.noise.empty())
    throw InputError(SourceLoc{"--noise"}, "models run-to-run noise between repetitions: it needs --repeat N with N > 1");
  if (req.progress != "auto" && req.progress != "always" && req.progress != "never")
    throw InputError(SourceLoc{"--progress"}, unknown_choice_message("progress mode", req.progress, {"auto", "always", "never"}));
  check_output_path(req.output, "--output");
  check_output_path(req.trace_out, "--trace-out");
  {
    std::vector<std::string> inputs = {req.input, req.topology.empty() ? topology_beside(req.input) : req.topology,
                                       req.recorded_on};
    // `--workload-gen 'mix m.json' -o m.json` replaced the mix file.
    add_spec_and_cost_files(inputs, req.workload_gen, req.costs);
    refuse_output_over_inputs(req.output, inputs, "--output");
    refuse_output_over_inputs(req.trace_out, inputs, "--trace-out");
    // Both are committed by rename: the second would silently replace the first.
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!req.trace_out.empty() && req.trace_out != "-" && req.output != "-" &&
        fs::weakly_canonical(fs::absolute(req.trace_out, ec), ec) ==
            fs::weakly_canonical(fs::absolute(req.output, ec), ec))
      throw InputError(SourceLoc{req.trace_out}, "--trace-out names the --output file; give each its own file");
  }
  if (!req.trace_window.empty() && req.trace_out.empty())
    throw InputError(SourceLoc{"--trace-window"}, "needs --trace-out");

}

/// The caveats about the inputs (appended to `caveats`; the observed column's machine into
/// `config`): another recording machine, SMT double counting, custom slices, background tasks.
/// `rep` is the import's report for a trace, nullptr otherwise; `traced` its CPU count
/// (traced_cpus(), 0 for a workload that is no trace).
void add_input_caveats(const RunRequest& req, const traces::ImportReport* rep, const traces::ExtractOptions& extract,
                       const Workload& w, const Topology& topo, const CostModel& run_cost, int64_t traced,
                       bool recorded_elsewhere, const std::string& smt_rate_note, RunConfig& config,
                       std::vector<std::string>& caveats) {
  // migration-delta credits each recorded migration by the topology distance between the two
  // CPUs it was recorded on: those ids only mean something on the recording machine.
  if (run_cost.replay_overheads == ReplayOverheads::kMigrationDelta && traced > 0 &&
      traced != static_cast<int64_t>(topo.nr_cpus()))
    throw InputError(SourceLoc{"--cost"},
                     fmt::format("replay_overheads=migration-delta needs the machine the trace was recorded on: it "
                                 "credits each recorded migration by the distance between the recorded CPUs, but the "
                                 "trace comes from a {}-CPU machine and {} has {} CPUs (replay on the recording "
                                 "machine's topology, or use replay_overheads=recorded)",
                                 traced, topo.name(), topo.nr_cpus()));
  if (req.smt_normalize) check_smt_normalisation(*rep, extract, w, caveats);
  if (!smt_rate_note.empty()) caveats.push_back(smt_rate_note);
  if (rep && w.observed.present && !w.tasks.empty()) {
    if (traced > 0 && traced != static_cast<int64_t>(topo.nr_cpus())) {
      config.observed_elsewhere = fmt::format("recorded on {} CPUs, replayed on {}'s {}", traced, topo.name(), topo.nr_cpus());
      caveats.push_back(fmt::format("note: the trace comes from a {}-CPU machine and is replayed on {} ({} CPUs): its "
                                    "observed figures are from another machine, not a prediction for this one",
                                    traced, topo.name(), topo.nr_cpus()));
    } else if (recorded_elsewhere) {
      config.observed_elsewhere = fmt::format("recorded on {}, replayed on {}", extract.smt_machine, topo.name());
      caveats.push_back(fmt::format("note: the trace was recorded on {} and is replayed on {}: its observed figures "
                                    "are from another machine, not a prediction for this one",
                                    extract.smt_machine, topo.name()));
    }
  }
  // A trace replayed on an SMT model without --smt-normalize: the recorded on-CPU time of a thread
  // whose sibling was busy already ran at the recording machine's co-run rate, and the replay
  // slows it again by -t's (docs/model.md "SMT normalisation of recorded on-CPU time": +52% on
  // a same-machine replay of messaging). Which machine recorded it is unknown to the replay: a
  // trace with -t's CPU count was probably recorded there (a warning); one from another machine
  // double counts only if that machine had SMT too (a note).
  if (rep && !req.smt_normalize && topo.has_smt() && run_cost.smt_corun_permille < 1000 && !w.tasks.empty()) {
    if (traced == static_cast<int64_t>(topo.nr_cpus()))
      caveats.push_back(fmt::format(
          "warning: the trace comes from a {}-CPU machine like {}, which has SMT siblings: if it was recorded there, "
          "its on-CPU times already hold the co-run slowdown and this replay applies it again (a thread runs at {} "
          "permille while its sibling is busy), which lengthens co-run time by up to {:.0f}%;\nadd --smt-normalize "
          "(docs/model.md \"SMT normalisation of recorded on-CPU time\")",
          traced, topo.name(), run_cost.smt_corun_permille, 100.0 * (1000.0 / static_cast<double>(run_cost.smt_corun_permille) - 1.0)));
    else
      caveats.push_back(fmt::format(
          "note: {} has SMT siblings: if the machine that recorded the trace had SMT too, its on-CPU times already "
          "hold that machine's co-run slowdown and this replay applies {}'s on top;\nadd --smt-normalize --recorded-on "
          "MACHINE (docs/model.md \"SMT normalisation of recorded on-CPU time\")",
          topo.name(), topo.name()));
  }
  if (auto note = custom_slice_note(w, config)) caveats.push_back(*note);
  if (const size_t nb = w.background_count(); nb > 0)
    caveats.push_back(fmt::format("note: {} background task{} replayed as load and excluded from the metrics\n"
                                  "(latencies, counts, per-task rows, makespan); the run ends when the {} measured "
                                  "task{} ended",
                                  nb, nb == 1 ? "" : "s", w.tasks.size() - nb, w.tasks.size() - nb == 1 ? " has" : "s have"));
}

/// One simulation of the loaded inputs (execute_run without --repeat), rendered, with the
/// --trace-out schedule streamed to its file or kept in memory.
RunOutcome execute_single(const RunRequest& req, const Workload& w, const traces::ImportReport* rep,
                          const Topology& topo, PolicyStack policies, const CostModel& run_cost, const SimConfig& sim,
                          const FtraceOptions& fopts, const RunConfig& config, RunGuard& guard,
                          std::vector<std::string> caveats, const std::vector<std::string>& logged) {
  MeteredRun run(w, topo, std::move(policies), run_cost, sim, req.progress, [&guard](Instant at) { guard.poll(at); });
  RunOutcome out;
  out.notes = std::move(caveats);
  // --trace-out to a file streams: event lines go to a scratch file next to the target as they
  // happen; at the end the header (whose entry count is known only then) and the lines are
  // copied into the target's own temporary, which the caller commits with the results.
  std::unique_ptr<FtraceWriter> writer;
  std::unique_ptr<AtomicFile> body;
  if (!req.trace_out.empty()) {
    writer = std::make_unique<FtraceWriter>(w, fopts);
    run.add_observer(writer.get());
    if (req.trace_out != "-") {
      // The scratch sits next to the target (same file system, cleaned like every temporary);
      // for a target that is not a regular file (/dev/null, a FIFO) in the temporary directory.
      std::error_code ec;
      bool special = std::filesystem::exists(req.trace_out, ec) && !std::filesystem::is_regular_file(req.trace_out, ec);
      std::string scratch = special ? (std::filesystem::temp_directory_path() / "trace-out.body").string()
                                    : req.trace_out + ".body";
      // A run cut by --stop-at writes only its part: no lower bound from the whole workload.
      if (!special && req.stop_at.empty()) refuse_trace_out_without_room(w, req.trace_out, scratch);
      body = std::make_unique<AtomicFile>(scratch, "--trace-out");
      writer->stream_body([b = body.get()](std::string_view chunk) { b->write(chunk); });
    }
  }
  try {
    out.summary = run.run();
  } catch (const InputError& e) {
    // The engine names the task and action; the file is the one the user gave.
    if (!e.loc().path.empty() || req.input.empty()) throw;
    throw InputError(SourceLoc{req.input}, e.message(), e.context());
  }
  out.results = run.results(config, out.summary);
  check_completeness(out, w, rep, req, sim, w.total_work(/*measured_only=*/true));
  // Known once the run has ended (FtraceWriter::on_end()); before the notes are copied into the
  // results, so they hold every line printed with them.
  if (writer && writer->lines_cut() > 0)
    out.notes.push_back(fmt::format("note: the simulated schedule (--trace-out, --view) leaves out the {} later "
                                    "event{} of background tasks\n(it stops where the run's span ends, {:.6f} s: the "
                                    "measured tasks' last switch or exit)",
                                    writer->lines_cut(), writer->lines_cut() == 1 ? "" : "s",
                                    static_cast<double>(out.results.end_ns) / 1e9));
  out.results.notes = results_notes(logged, out.notes);
  // The record (flat parameters + scalar metrics) is made for every run: `--format jsonl` prints
  // it, and `schedsim sweep` embeds it in its JSON Lines records so `compare` reads sweep files.
  out.records.push_back(make_record(out.results, NoiseModel{0, sim.jitter_permille}.text(), 0, req.seed));
  if (req.format == "json") out.rendered = render_json(out.results);
  else if (req.format == "csv") out.rendered = render_csv(out.results);
  else if (req.format == "jsonl") out.rendered = render_jsonl(out.records);
  else out.rendered = render_table(out.results, req.table_tasks, req.table_cpus);
  if (writer && body) {
    writer->flush_body();
    body->flush();
    guard.check_memory("at the end of the simulation");
    out.trace_file = std::make_unique<AtomicFile>(req.trace_out, "--trace-out", Compress::kByName);
    out.trace_file->write(writer->header());
    out.trace_file->append_file(body->temp_path(), writer->body_bytes());
    out.trace_file->close();
  } else if (writer) {
    out.trace_text = writer->text();
  }
  return out;
}

}  // namespace

RunOutcome execute_run(const RunRequest& req) {
  check_request(req);

  RunConfig config;
  config.label = req.label;
  config.seed = req.seed;
  config.provenance.version = kSchedsimVersion;
  config.provenance.command = req.command_line;
  config.provenance.stop_at = req.stop_at;
  SimConfig sim = sim_config_of(req, config);
  FtraceOptions fopts;
  if (!req.trace_window.empty()) parse_trace_window(req.trace_window, fopts);
  // Without --max-memory, the process's budget (main: SCHEDSIM_MAX_MEMORY, else 80% of
  // MemAvailable); with it, that budget for the engine's guard and the loops around it.
  if (!req.max_memory.empty()) set_memory_budget(parse_max_memory(req.max_memory), "--max-memory " + req.max_memory);
  RunGuard guard;

  traces::ImportReport import_report;
  traces::ExtractOptions extract = req.extract;
  // A preemption model other than full acts only on tasks whose runs say where their syscalls
  // are: a trace with syscall events gets those marks (not under full, whose replay the finer
  // runs would move: docs/model.md "Syscall marks in plain replays").
  if (sim.preempt != PreemptModel::kFull) extract.syscall_marks = true;
  refuse_recorded_on_alone(req);
  // Without --topology a trace is replayed on the machine it was recorded on, as far as it says
  // (its observed column is then that machine's), so it is read before the machine is built: a
  // 2-CPU recording replayed on the 40-CPU default compared the two machines, not the policies.
  std::string topology = req.topology;
  std::optional<Workload> read_first;
  std::string machine_note;
  if (topology.empty()) {
    if (!req.workload_gen.empty()) {
      topology = kDefaultTopology;
    } else if (req.smt_normalize) {
      if (req.recorded_on.empty())
        throw InputError(SourceLoc{"--smt-normalize"},
                         "needs the machine the trace was recorded on: give --recorded-on MACHINE or --topology");
      topology = req.recorded_on;
    } else {
      read_first = load_workload_input(req.input, "", extract, &import_report, GenCosts{}, std::nullopt);
      topology = import_report.path.empty() ? std::string(kDefaultTopology)
                                            : recording_machine(req.input, import_report, *read_first, machine_note);
    }
  }
  Topology topo = load_topology(topology);
  CostModel cost = build_cost_model(req.costs, topo, &config);
  // Machine cost profile: this machine as a KVM guest gets the guest's idle-wake model unless the
  // user chose one (presets and imported files keep the constant; a cost file gives theirs).
  if (!cost.idle_wake_set && topology == "host" && is_kvm_guest()) {
    cost.idle_wake = IdleWakeMode::kVmHaltPoll;
    config.cost_overrides["idle_wake"] = "vm-halt-poll (host: KVM guest)";
  }
  std::string kernel_note;
  PolicyStack policies = build_policy_stack(req.kernel, req.modules, req.features, config, &kernel_note);
  bool recorded_elsewhere = false;  // --recorded-on names another machine than -t
  std::string smt_rate_note;        // the recording machine's co-run rate is not measured
  if (req.smt_normalize) {
    if (!req.workload_gen.empty() || (!req.input.empty() && looks_like_workload(req.input)))
      throw InputError(SourceLoc{"--smt-normalize"}, "normalises a kernel trace's on-CPU time; the input is not a trace");
    recorded_elsewhere = set_smt_normalisation(req, topo, cost, extract, config, smt_rate_note);
  }
  // An explicit --seed also seeds a generator spec without a --seed of its own: a user who runs
  // --seed 1, 2, 3 on a generated workload expects three samples of its random choices too.
  const std::optional<uint64_t> gen_seed =
      req.seed_given && !req.workload_gen.empty() ? std::optional<uint64_t>(req.seed) : std::nullopt;
  Workload w = read_first ? std::move(*read_first)
                          : load_workload_input(req.input, req.workload_gen, extract, &import_report, cost.gen_ops, gen_seed);
  // Whether the generated workload draws random numbers: the spec generated with another seed
  // differs. Where the seed changed nothing (no random choices, or --seed 1, the generators'
  // default), the workload is the spec's own, its source line without an appended --seed, so
  // such runs still compare as runs of one workload.
  // `w` is the spec at gen_seed, or at the generators' default seed 1 when no run seed reached it.
  const bool gen_random =
      !req.workload_gen.empty() && generator_is_random(req.workload_gen, cost.gen_ops, gen_seed.value_or(1), w);
  // A seeded workload equal to the spec's own (no random choices, or --seed 1): only its source
  // line differs, and the spec's own is regenerated for it. A random one at another seed differs.
  if (gen_seed && (!gen_random || *gen_seed == 1)) {
    Workload plain = generate_workload_from_spec(req.workload_gen, cost.gen_ops);
    if (workload_hash(plain) == workload_hash(w)) w = std::move(plain);
  }
  apply_slices(w, req.slices);
  const bool from_trace = !import_report.path.empty();
  if (req.smt_normalize && !from_trace)  // a workload on standard input
    throw InputError(SourceLoc{"--smt-normalize"}, "normalises a kernel trace's on-CPU time; the input is not a trace");
  // A replayed trace's recorded on-CPU time already holds the switch and refill costs, and so
  // does a workload file `import` wrote from a trace (its meta names the trace format): replayed
  // alike, `import -o W && run W` gives what `run TRACE` gives. Such a file does not keep the
  // CPUs its runs were recorded on, which migration-delta needs.
  const bool recorded_times = from_trace || w.meta.count("trace_format") > 0;
  refuse_migration_delta(cost, w, from_trace);
  const CostModel run_cost = cost.for_input(recorded_times);
  std::optional<std::string> replay_note;
  if (recorded_times) {
    config.cost_overrides["replay_overheads"] = cost.get("replay_overheads");
  } else if (config.cost_overrides.count("replay_overheads")) {
    // Generated and hand-written workloads hold no recorded switch: they are always charged.
    config.cost_overrides["replay_overheads"] = "charged";
    if (config.cost_overrides.count("replay_wakes")) config.cost_overrides["replay_wakes"] = "recorded";
    replay_note =
        "note: --cost replay_overheads applies to kernel traces and workloads imported from one; this workload's "
        "run() times hold no recorded switch, so context_switch and refill_* are charged";
  }
  config.workload = w.name;
  config.workload_source = w.source;
  config.topology = topo.name();
  config.nr_cpus = topo.nr_cpus();
  std::vector<std::string> caveats = gen_cost_notes(w, cost, topo.name(), !req.workload_gen.empty());
  if (replay_note) caveats.push_back(*replay_note);
  if (!machine_note.empty()) caveats.push_back(machine_note);
  const int64_t traced = from_trace ? traced_cpus(import_report.header_cpus, w) : 0;
  add_input_caveats(req, from_trace ? &import_report : nullptr, extract, w, topo, run_cost, traced, recorded_elsewhere,
                    smt_rate_note, config, caveats);
  config.provenance.workload_hash = workload_hash(w);
  config.provenance.topology_hash = hash_hex(fnv1a64(topology_to_json(topo.spec())));
  config.provenance.noise = NoiseModel{0, sim.jitter_permille}.text();
  if (config.label.empty()) config.label = default_label(req, config);

  guard.check_memory("after loading the workload");
  // Repetitions reuse the one generated workload: they sample the noise model, not the
  // generator's random choices. Said, so no one reads their spread as the workload's.
  if (req.repeat > 1 && gen_random)
    caveats.push_back(fmt::format(
        "note: the {} repetitions share one generated workload: they vary the noise, not the generator's random "
        "choices\n(the workload: {}; they vary the machine-speed and jitter noise and randomized modules); for "
        "independent samples of the generator's choices run separate seeds (run --seed N) or sweep the generator's "
        "seed (sweep --set gen.seed=1,2,3)",
        req.repeat, w.source));
  // Lines already logged on stderr while loading (the kernel profile fallback, the importer's
  // warnings about the trace itself): kept in the results with the caveats, not printed again.
  std::vector<std::string> logged;
  if (!kernel_note.empty()) logged.push_back("warning: " + kernel_note);
  if (from_trace)
    for (const auto& wmsg : import_report.warnings) logged.push_back(fmt::format("warning: {}: {}", req.input, wmsg));
  if (req.repeat > 1) {
    return execute_repeats(req, w, from_trace ? &import_report : nullptr, topo, std::move(policies), run_cost, sim,
                           config, guard, caveats, logged);
  }

  return execute_single(req, w, from_trace ? &import_report : nullptr, topo, std::move(policies), run_cost, sim, fopts,
                        config, guard, std::move(caveats), logged);
}

uint64_t set_default_memory_budget(const std::string& default_source, std::string* source) {
  uint64_t budget = 0;
  std::string from = default_source;
  if (const char* env = std::getenv("SCHEDSIM_MAX_MEMORY"); env && *env) {
    try {
      budget = parse_max_memory(env);
    } catch (const InputError& e) {
      throw InputError(SourceLoc{"SCHEDSIM_MAX_MEMORY"}, e.message());
    }
    from = std::string("SCHEDSIM_MAX_MEMORY=") + env;
  } else {
    budget = parse_max_memory("");
  }
  set_memory_budget(budget, from);
  if (source) *source = from;
  return budget;
}

RunStatus run_status(const RunOutcome& out, bool quiet) {
  RunStatus st;
  // A note explains a figure; a warning says it may be wrong, and is never silenced.
  for (const auto& n : out.notes)
    if (!quiet || n.rfind("note:", 0) != 0) st.lines.push_back(n);
  const RunResults& r = out.results;
  if (r.complete) return st;
  if (out.summary.stop != StopReason::kStopAt) {
    st.incomplete = r.incomplete;
    return st;
  }
  if (!quiet)
    st.lines.emplace_back("note: stopped by --stop-at as asked: the results cover the run up to there (\"complete\": false)");
  // Any reason beyond the stop itself (the first line) is one the results may be wrong for.
  for (size_t i = 1; i < r.incomplete.size(); ++i) st.lines.push_back("warning: " + r.incomplete[i]);
  return st;
}

}  // namespace schedsim::driver
