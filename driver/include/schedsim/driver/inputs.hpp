#pragma once
/// What the commands and the run pipeline share about their inputs: standard input read whole,
/// an output that would overwrite an input, fractions and kernel versions as options give them,
/// and a trace argument imported with its selection checked.
#include <initializer_list>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "schedsim/traces/import.hpp"
#include "schedsim/traces/record.hpp"
#include "schedsim/traces/sched_views.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim {
struct KernelProfile;
}

namespace schedsim::driver {

/// The kernel profile `--kernel VERSION` names. A MAJOR.MINOR with no profile of its own gets the
/// newest profile not newer than it, and `note` says so ("" for an exact match); the caller
/// prints it as a warning and records the choice. Throws InputError for an unknown name or a
/// version older than every profile.
const KernelProfile& resolve_kernel_profile(const std::string& version, std::string& note);

/// A non-negative fraction written "5%" or "0.05". Throws InputError naming `flag`.
double parse_fraction(const std::string& text, const char* flag);

/// All of standard input (binary). Throws InputError when it cannot be read.
std::string read_standard_input();

/// Throws InputError when `output` (an option's file, "-" and "" = stdout) is the same file as one
/// of `inputs` (by path, hard or symbolic link): the atomic rename would replace the input with
/// the output, as `run w.json -o w.json` replaced the workload with its results. Inputs that are
/// no file (a preset name, "-") are skipped.
void refuse_output_over_inputs(const std::string& output, const std::vector<std::string>& inputs,
                               const std::string& option = "--output");

/// Appends the arguments of a run or calibrate that may name input files, for
/// refuse_output_over_inputs(): the words of a --workload-gen spec (the mix file of `mix FILE`)
/// and every --cost that is a file rather than name=value.
void add_spec_and_cost_files(std::vector<std::string>& inputs, const std::string& workload_gen,
                             const std::vector<std::string>& costs);


/// Imports the trace at `path`; "-" reads standard input whole first, so a trace piped in can be
/// read twice like a file (--comm, an inferred prev_state layout).
Workload import_trace_arg(const std::string& path, const traces::ExtractOptions& o, traces::ImportReport* rep);
/// `trace info --format json`: what `trace info` prints, as one JSON object (schema
/// "schedsim-trace-info", every count, times in ns; docs/traces.md "trace info --format json").
std::string trace_info_json(const traces::ImportReport& r, const Workload& w);

/// perf sched's view `so` of the trace at `path` ("-": standard input), every task shown as perf
/// shows them, written to `out`: `schedsim sched` and the Python module's sched().
void view_trace(const std::string& path, const traces::SchedViewOptions& so, traces::ExtractOptions opt,
                std::ostream& out);
/// A request the command line or the Python module refuses as usage, not as a wrong input:
/// options that do not go together, a missing or unknown argument (exit 2; Python UsageError).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// perf sched's view names: any prefix of "latency" of at least three letters ("lat", as perf
/// takes), "timehist" or "map". Throws UsageError.
traces::SchedView parse_sched_view(const std::string& name);
/// latency's sort keys, comma-separated, first decides: at least one (UsageError), each a known
/// key (InputError).
std::vector<std::string> parse_sched_sort(const std::string& text);
/// `sched map --color-pids`: PIDs, comma-separated. Throws InputError naming --color-pids.
std::vector<int64_t> parse_pid_list(const std::string& text);
/// Refuses (UsageError "--NAME applies to 'sched VIEW' only") an option of one view, named in
/// `given` (the options given, without dashes), for another view.
void check_sched_view_options(traces::SchedView view, const std::vector<std::string>& given);

/// The same view of a simulated schedule (`run --view`: RunOutcome::trace_text), over at least
/// the run's `nr_cpus` CPUs.
void view_schedule(const std::string& schedule, size_t nr_cpus, const traces::SchedViewOptions& so, std::ostream& out);

/// A trace whose selection (--comm, --pid, the recorded root) kept no task is an input error
/// (exit 1), not an incomplete run: nothing about the simulation failed, the options selected
/// nothing. `consequence` says what is not done ("no workload written", "nothing to simulate").
void refuse_empty_selection(const Workload& w, const std::string& path, const traces::ImportReport& rep,
                            const char* consequence);

/// The workload file format: `format` ("json", "cbor") when given, else by the output's name
/// (".cbor" or ".cbor.gz": CBOR, else JSON). Throws InputError for another format.
WorkloadFormat workload_format_for(const std::string& format, const std::string& output);

/// The results format an output's name implies when --format is not given: the first of `by_ext`
/// whose extension (".json") ends the name, a ".gz" after it ignored; else `fallback`. So
/// `run -o r.json` writes JSON, as `import -o w.cbor` writes CBOR and `-o r.json.gz` compresses.
std::string format_by_name(const std::string& output, std::initializer_list<std::pair<std::string_view, const char*>> by_ext,
                           const char* fallback);

/// `schedsim record`: runs `ro.command` under tracefs (traces::record_trace) and writes `out`:
/// the trace, or with `as_workload` the workload of the command and its descendants (the trace
/// then goes to a scratch file beside `out`, named like every temporary so a killed run's
/// leftover is removed by the next one). `on_recorded` sees the recording before it is read
/// back. `summary` is what to print on stdout.
struct RecordOutcome {
  traces::RecordResult result;
  std::string summary;
};
RecordOutcome record_command(traces::RecordOptions ro, const std::string& out, bool as_workload,
                             const std::function<void(const traces::RecordResult&)>& on_recorded);

}  // namespace schedsim::driver
