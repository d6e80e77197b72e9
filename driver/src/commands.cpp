// Every command's interface as data (commands.hpp): the usage, description and options that
// --help prints and the CLI parses. Each description says what the command does and how to
// read its output; each option's help says what a value means and its default.
#include "schedsim/driver/commands.hpp"

#include <algorithm>

namespace schedsim::driver {

namespace {

using A = ArgType;
using G = OptionGroup;

// `schedsim calibrate`.
CommandSpec calibrate_spec() {
  // clang-format off
  return
  {"calibrate", "fit cost parameters so that replays of real traces match them; writes a cost file",
   "schedsim calibrate TRACE...|--workload-gen SPEC --benchmark-time T -t TOPOLOGY [--kernel V] -o COSTS.json|--check-only [options]",
   "Fits cost-model parameters so that replays of TRACE... on TOPOLOGY match what the real\n"
   "kernel did in them: makespan, wakeup count, wakeup latency p50/p90/p99 and the run-queue\n"
   "wait of preempted tasks (p50, when the trace has 30 such samples). Objective: the mean over\n"
   "traces of the mean of ln(1 + ln(simulated/observed)^2) (a squared log-ratio for small misses,\n"
   "damped beyond a factor e) plus the priors' penalty; method: a deterministic coordinate\n"
   "search on a log scale with every parameter inside a documented plausible range\n"
   "(docs/calibrate.md). Writes a cost file that run (also with --workload-gen) and sweep accept,\n"
   "and prints the fit per trace and metric. Refuses traces it cannot fit: lost events, an import\n"
   "that did not conserve on-CPU time, a span under 10 ms, fewer than 100 wakeups, a replay that\n"
   "does not complete; and refuses a fit (prints it, writes nothing, exit 1) whose parameter\n"
   "ended at a bound while the benchmark time is still more than 5% off, or a trace's metric\n"
   "a factor 10.\n"
   "To generalise beyond its traces: a parameter measured directly (--prior, or the idle exits\n"
   "from the traces' own idle wakes) is held near its measurement; a parameter whose doubling and\n"
   "halving does not move the objective is not fitted (\"not identifiable\"); a trace whose replay\n"
   "banks 10% or more of its wakes as tokens has its makespan, wakeup and latency metrics\n"
   "down-weighted (excluded from 50%). The report says each decision and why.\n"
   "With --workload-gen SPEC --benchmark-time T it fits the generator's per-operation costs\n"
   "(one common factor) so that the simulated benchmark time on TOPOLOGY is T, the time the\n"
   "real program reported on that machine.\n"
   "With --check-only it fits nothing and writes nothing: it makes the checks above on every\n"
   "TRACE (with the same options: selection, background, topology, starting costs) and prints,\n"
   "per trace, whether calibrate would use it and every reason it would not; exit 0 when it\n"
   "would use them all, 6 when it would refuse one of them or the set.\n"
   "With --cross-validate it also checks the fit on traces it did not see: each trace is left out\n"
   "of one fit with the same options and replayed with that fit's costs; a warning says when\n"
   "those replays are worse than with the starting costs (the cost file is still written).\n\n"
   "examples:\n"
   "  schedsim calibrate a.trace.gz b.trace.gz -t lscpu-p.txt --kernel 6.18 --comm loadgen -o costs.json\n"
   "  schedsim calibrate t.trace.gz -t host --kernel host -c idle_wake=vm-halt-poll -o host-costs.json\n"
   "  schedsim run t2.trace.gz -t host --kernel host -c host-costs.json\n"
   "  schedsim calibrate set/*.ftrace.gz -t set/lscpu-p.txt --background-comm '^schedsim$' \\\n"
   "      --check-only -f tsv\n"
   "  schedsim calibrate --workload-gen 'messaging -p -T -g 4 -l 50000' --benchmark-time 15.78s \\\n"
   "      -t xeon-e5-2690v2 --kernel 4.17 -o xeon-msg.json",
   {{"options", {
      {"topology", 't', A::kText, nullptr,
       "the machine the traces were recorded on: preset, topology JSON, sysfs dir, lscpu -p file, or 'host' (required)"},
      {"kernel", 'k', A::kText, nullptr,
       "kernel profile to replay with ('host' = the running kernel's); default modules when absent", nullptr, true},
      {"output", 'o', A::kText, nullptr,
       "the fitted cost file to write (atomically; required, except with --check-only)"},
      {"cost", 'c', A::kTexts, nullptr,
       "starting point: name=value or a cost file, repeatable (e.g. idle_wake=vm-halt-poll); kept in the output"},
      {"fit", 0, A::kText, nullptr,
       "comma-separated parameters to fit (default on traces: the IPI costs, the idle exit of the idle-wake model, context_switch with -c replay_overheads=charged; on --workload-gen: the generator's per-operation costs)", nullptr, true},
      {"workload-gen", 0, A::kText, nullptr,
       "instead of traces: a generator spec as run takes it, whose per-operation costs are fitted to --benchmark-time", nullptr, true},
      {"benchmark-time", 0, A::kText, nullptr,
       "with --workload-gen: the time the real program reported on the machine (e.g. 15.78s)"},
      {"prior", 0, A::kTexts, nullptr,
       "a measured value of a fitted parameter: name=value or a cost file (e.g. from trace info --idle-wake-costs), or 'start' (every fitted parameter without another prior: its starting value), repeatable; the fit pays --prior-weight * ln(fitted/measured)^2 to move away from it. Without it the vm-halt-poll (or constant) idle exits take their prior from the traces' own idle wakes, with the search kept in the samples' interquartile range"},
      {"prior-weight", 0, A::kText, "1",
       "weight of a prior's penalty against the data objective (>= 0; 0 keeps only the measured ranges)"},
      {"max-evals", 0, A::kCount32, "200",
       "evaluations at most (each replays every trace once)"},
      {"seed", 0, A::kCount64, "1",
       "seed of every replay, as run --seed (the 6.18 profile's NI_RANDOM newidle balance draws from it); refit with other seeds to see how much a fit depends on it"},
      {"smt-normalize", 0, A::kFlag, nullptr,
       "the traces were recorded on the -t machine, which has SMT: replay their on-CPU time during which a sibling was busy as work at -t's starting co-run rate (as run --smt-normalize), so the replays apply the co-run slowdown once; without it an SMT -t gets a warning"},
      {"cross-validate", 0, A::kFlag, nullptr,
       "also fit once per trace without it and replay it with that fit (leave one out, at least 2 traces; as many extra fits as traces): reports each left-out trace against the starting costs and warns when the fits replay them worse"},
      {"check-only", 0, A::kFlag, nullptr,
       "fit nothing, write nothing: for every TRACE, whether calibrate with these options would use it and, if not, every reason (the checks it makes before fitting: lost events, import not conserved, span under 10 ms, under 100 wakeups, a start replay that does not complete); exit 6 when it would refuse one (or the set). Not with -o or --cross-validate"},
      {"format", 'f', A::kText, nullptr,
       "with --check-only: text (default), tsv (trace, used, checks, reasons) or json", "text|tsv|json", true,
       "check-only"},
      {"progress", 0, A::kText, "auto",
       "progress on stderr: auto (if a terminal), always, never", "auto|always|never", false},
   }},
    {"the model every replay runs (as run's)", {}, {}, {"jitter", "slice", "preempt", "update-curr"}},
    {"trace options", {}, {G::kTraceSelection, G::kTraceReading}}},
   {{"input", -1}}};
  // clang-format on
}

// `schedsim compare`.
CommandSpec compare_spec() {
  // clang-format off
  return
  {"compare", "before/after table of two results with significance tests; a CI gate with --fail-on",
   "schedsim compare BASE NEW [options]",
   "Compares two result files point by point: `run` JSON (with or without --repeat) or JSON Lines\n"
   "records (run --format jsonl). Per metric: count, mean, std, min, p50, p99, max on each side, the\n"
   "change of the mean in % with a bootstrap confidence interval, Welch's t and Mann-Whitney U\n"
   "p-values corrected for the number of rows (Holm by default), and a verdict: improved, regressed,\n"
   "changed (no better direction) or no significant change. With one run per side it compares the\n"
   "latency histograms (percentile changes with bootstrap intervals, Kolmogorov-Smirnov) and says\n"
   "that run-to-run noise is not covered. docs/compare.md explains every column.\n\n"
   "exit status: 0 no --fail-on tripped, 7 a significant change crossed a --fail-on threshold,\n"
   "1 bad input (unmatched points, mismatched setups, missing metrics, malformed files, a --fail-on\n"
   "on a row without repetitions), 2 usage (unknown option, missing argument).\n\n"
   "examples:\n"
   "  schedsim run --repeat 10 --placement sis-fold-2018 --workload-gen 'messaging -g 4' -o base.jsonl\n"
   "  schedsim run --repeat 10 --placement sis-fold-opt --workload-gen 'messaging -g 4' -o new.jsonl\n"
   "  schedsim compare base.jsonl new.jsonl -o table.md --fail-on 'wakeup.p99>+5%'",
   {{"options", {
      {"by", 0, A::kTexts, nullptr,
       "match points on these parameters only (comma-separated or repeated); default: every parameter but module.*, feature.*, cost.*, seed, label"},
      {"ignore", 0, A::kTexts, nullptr,
       "drop these parameters from matching and from the consistency checks"},
      {"allow-mismatch", 0, A::kFlag, nullptr,
       "compare points whose workload, workload_source, topology, nr_cpus, noise, workload_hash or topology_hash differ (printed as a note)"},
      {"metrics", 0, A::kText, nullptr,
       "comma-separated metrics to compare, or 'all' (default: makespan, benchmark_time where every record has one, wakeup.mean/p50/p99, runqueue_wait.mean/p99, probes.mean, migrations)", nullptr, true},
      {"min-effect", 0, A::kText, "1%",
       "smallest |change| that can be a verdict"},
      {"alpha", 0, A::kReal, "0.05",
       "significance level after correction"},
      {"correction", 0, A::kText, "holm",
       "multiple-comparison correction: holm (family-wise) or bh (Benjamini-Hochberg, false discovery rate)"},
      {"confidence", 0, A::kReal, "0.95",
       "bootstrap interval level"},
      {"resamples", 0, A::kCount64, "2000",
       "bootstrap resamples (100 to 1000000)"},
      {"seed", 0, A::kCount64, "1",
       "bootstrap seed (same seed, same output)"},
      {"fail-on", 0, A::kTexts, nullptr,
       "exit 7 when a significant change crosses this, e.g. 'wakeup.p99>+5%' (repeatable)"},
      {"format", 'f', A::kText, nullptr,
       "table, markdown, json or csv (default: the -o name's extension: .md, .json, .csv, each also .gz; else table)", "table|markdown|json|csv", false},
      {"output", 'o', A::kText, "-",
       "write here (atomically) instead of stdout", nullptr, true},
   }}},
   {{"base", 1}, {"new", 1}}};
  // clang-format on
}

// `schedsim import`.
CommandSpec import_spec() {
  // clang-format off
  return
  {"import", "convert a kernel trace into a native workload file",
   "schedsim import TRACE|- -o WORKLOAD|- [--format json|cbor] [trace options]",
   "Converts a kernel scheduler trace into a native workload: ftrace text (trace, trace_pipe,\n"
   "systrace HTML), trace-cmd report text (-N recommended) or trace.dat, perf script output\n"
   "of perf sched record or its perf.data, plain or gzip/zstd compressed. Prints a summary of\n"
   "the extracted workload (on stderr when the workload goes to stdout); repairs and warnings\n"
   "go to stderr.\n"
   "TRACE '-' reads standard input. See docs/traces.md.",
   {{"options", {
      {"trace", 0, A::kText, nullptr,
       "input trace (positional)"},
      {"output", 'o', A::kText, nullptr,
       "output workload file (required; '-' = stdout, '*.gz' is gzip-compressed)", nullptr, true},
      {"format", 0, A::kText, nullptr,
       "output format: json or cbor (default: cbor if the name ends in .cbor or .cbor.gz, else json)", "json|cbor", true},
      {"syscall-marks", 0, A::kFlag, nullptr,
       "flag the time inside read/write syscalls (a trace recorded with --extra-events syscalls) as runs marked 'syscall', for run --preempt none|voluntary|lazy; wakeups stay wake/block tokens (--channels marks them too); off by default: the finer runs move a --preempt full replay (docs/model.md \"Syscall marks in plain replays\")"},
   }},
    {"trace options", {}, {G::kTraceSelection, G::kTraceReading}}},
   {{"trace", 1}}};
  // clang-format on
}

// `schedsim merge`.
CommandSpec merge_spec() {
  // clang-format off
  return
  {"merge", "join the shard files of one sweep, checking every run is present once",
   "schedsim merge SHARD.jsonl... -o ALL.jsonl",
   "Joins the results files of `schedsim sweep --shard K/N` runs of one sweep. Checks that\n"
   "every file holds the same spec (the header's spec hash) and that every (point,\n"
   "repetition) is present exactly once, then writes the header and the records in order:\n"
   "the same bytes an unsharded `schedsim sweep -o` writes.",
   {{"options", {
      {"output", 'o', A::kText, nullptr,
       "the merged results file (written atomically; required)", nullptr, true},
      {"summary", 0, A::kText, "none",
       "also print the sweep summary: table, csv, markdown or none", "table|csv|markdown|none", false},
   }}},
   {{"inputs", -1}}};
  // clang-format on
}

// `schedsim record`.
CommandSpec record_spec() {
  // clang-format off
  return
  {"record", "record a command's scheduler events through tracefs",
   "schedsim record -o FILE [--events EV...] [--workload] [--buffer-kb N] [--recorder-class idle|normal] -- COMMAND [ARGS...]",
   "Runs COMMAND and records its scheduler events through tracefs (needs root). A private\n"
   "tracefs instance is created and removed afterwards; tracefs is mounted if needed.\n"
   "Events are streamed from trace_pipe while the command runs; ring-buffer overruns are\n"
   "reported. The trace covers the whole machine; importing it keeps the command and its\n"
   "descendants by default (the trace's header names the command; --all-tasks keeps all).\n"
   "--workload writes the extracted workload instead of the trace.\n"
   "The output appears only complete, once the command has ended. SIGINT or SIGTERM (Ctrl-C)\n"
   "abandons the recording: the command is killed, tracing turned off, the instance removed,\n"
   "no output written, exit 130 / 143.",
   {{"options", {
      {"output", 'o', A::kText, nullptr,
       "output file: ftrace text (.gz = gzip), or a workload with --workload"},
      {"events", 0, A::kWords, nullptr,
       "sched events to enable (default: switch, waking, wakeup, wakeup_new, process_fork/exit/exec, migrate_task)"},
      {"extra-events", 0, A::kWords, nullptr,
       "also record: idle (power:cpu_idle), ipi (ipi:*), irq (x86 irq_vectors: reschedule, local_timer and call_function_single entry/exit), syscalls (read/write enter/exit and close enter, with the TGID column; marks the time inside read/write for run --preempt, and --channels replays them as channels), comma-separated; events this kernel lacks are skipped with a warning (idle, ipi and irq feed the wake-to-run and reschedule-IPI costs of `trace info --idle-wake-costs`; a replay does not read them)"},
      {"workload", 0, A::kFlag, nullptr,
       "write the extracted workload of the command and its descendants instead of the trace (.cbor = CBOR, else JSON)"},
      {"buffer-kb", 0, A::kCount32, "32768",
       "per-CPU ring buffer size in KiB"},
      {"recorder-class", 0, A::kText, "normal",
       "scheduling class of the recorder while the command runs: normal (SCHED_OTHER, like the command) or idle (SCHED_IDLE: preempted at once by the command's tasks, and its CPU counts as idle for their wakeups; docs/traces.md says when each perturbs less)", "idle|normal", false},
      {"command", 0, A::kTexts, nullptr,
       "the command (after --)"},
   }}},
   {{"command", -1}}};
  // clang-format on
}

// `schedsim report`.
CommandSpec report_spec() {
  // clang-format off
  return
  {"report", "render results files into one self-contained HTML report",
   "schedsim report FILE... [-o report.html] [--title T]",
   "Renders one or more results files (schedsim run --format json) into one self-contained HTML\n"
   "page: latency CDFs per run on a log axis, placement-outcome bars, a per-CPU utilization\n"
   "timeline heatmap per run, and the summary tables.\n"
   "Given repetitions (run --repeat N -o F.jsonl or F.json) or a sweep's file (sweep -o F.jsonl),\n"
   "it renders a study instead: each metric (benchmark time, makespan, wakeup p50/p99, run-queue\n"
   "wait p99, migrations) against the numeric parameter that differs between the points (e.g.\n"
   "gen.group), one line per combination of the others, with the 95% confidence band of the mean\n"
   "and a dot per run; without such a parameter, one row per point with its runs, mean and\n"
   "interval; then a table of every point. The page needs no network: inline SVG, inline CSS,\n"
   "no external scripts or fonts. The file is written atomically.\n\n"
   "examples:\n"
   "  schedsim report base.json new.json -o report.html\n"
   "  schedsim report sweep.jsonl -o study.html --title 'messaging on xeon-e5-2690v2'",
   {{"options", {
      {"output", 'o', A::kText, "report.html",
       "HTML file to write ('-' = stdout)", nullptr, true},
      {"title", 0, A::kText, "schedsim report",
       "page title"},
   }}},
   {{"results", -1}}};
  // clang-format on
}

// `schedsim gen` (parses its own arguments: a generator's options follow the real program's).
CommandSpec gen_spec() {
  // clang-format off
  return
  {"gen", "generate a synthetic workload (messaging, pipe, schbench, rr, fork, periodic)",
   "schedsim gen KIND [options] [-o FILE] [--format json|cbor]\n"
   "       schedsim gen list\n"
   "       schedsim gen KIND --help",
   "Generates a synthetic workload in the native format (docs/workload-format.md), written to\n"
   "FILE or to stdout. The options follow the real programs' names, so a benchmark command\n"
   "line can be pasted (docs/generators.md says what each generator models and leaves out).",
   {}, {}};
  // clang-format on
}

// `schedsim help`.
CommandSpec help_spec() {
  // clang-format off
  return
  {"help", "help for a command", "schedsim help [COMMAND]", "Prints the command list, or one command's help.", {}, {}};
  // clang-format on
}

// `schedsim policies` (parses its own arguments).
CommandSpec policies_spec() {
  // clang-format off
  return
  {"policies", "list policy modules by slot, and their feature flags",
   "schedsim policies\n"
   "       schedsim policies --features [MODULE | SLOT:MODULE]\n"
   "       schedsim policies --kernel list | table | VERSION",
   "Lists the policy modules of every slot (placement, idle-cores, util, queue, balance)\n"
   "with a one-line summary. --features lists the sched_feat flags each module reads, with\n"
   "its default and what it governs (turn one off with --feature NO_NAME on 'run');\n"
   "--kernel lists the kernel profiles, prints them all as a markdown table of modules and\n"
   "flags (table), or shows one version's modules and flags.",
   {}, {}};
  // clang-format on
}

// `schedsim run` (its options are the run option table's, driver/run_options.hpp).
CommandSpec run_spec() {
  // clang-format off
  return
  {"run", "simulate a workload or trace on a modeled machine and print latency metrics",
   "schedsim run [WORKLOAD|TRACE] [options]",
   "Replays WORKLOAD (a native workload file, or a kernel trace: ftrace text, trace-cmd report,\n"
   "perf script or perf.data; plain, gzip or zstd) on a modeled machine with the chosen policy\n"
   "modules and prints wakeup latency, run-queue wait, makespan, migrations and per-CPU\n"
   "utilization (and, for a generated benchmark whose real program prints a time of its own,\n"
   "that benchmark time: docs/generators.md). With a trace, the real kernel's figures from the\n"
   "same trace are printed side by side.\n"
   "WORKLOAD '-' reads standard input (schedsim gen ... -o - | schedsim run -). With the same\n"
   "inputs and --seed the output is byte-identical.\n\n"
   "examples:\n"
   "  schedsim run tests/data/traces/hackbench-pipe-g2.ftrace.gz --topology xeon-e5-2690v2\n"
   "  schedsim run --workload-gen 'messaging --group 10 --pipe' -t xeon-gold-6248 --kernel 6.6\n"
   "  schedsim run w.json --placement sis-fold-opt --feature NO_SIS_UTIL -o r.json",
   {{option_group_title(G::kEssentials), {}, {G::kEssentials}},
    {option_group_title(G::kModules), {}, {G::kModules}},
    {option_group_title(G::kModel), {}, {G::kModel}},
    {option_group_title(G::kOutput), {}, {G::kOutput}},
    {option_group_title(G::kLimits), {}, {G::kLimits}},
    {"trace options (when the input is a kernel trace)", {}, {G::kTraceSelection, G::kTraceReading}}},
   {{"input", 1}}};
  // clang-format on
}

// `schedsim sched`.
CommandSpec sched_spec() {
  // clang-format off
  return
  {"sched", "perf sched latency, timehist and map of a recorded or simulated (--trace-out) trace",
   "schedsim sched latency|timehist|map TRACE [options]",
   "perf sched's views of a scheduler trace, in perf's columns: 'latency' ('lat' as in perf; per\n"
   "task: runtime, switches, average and maximum scheduling delay, sorted by -s like perf sched\n"
   "latency), 'timehist' (one row per switch-out: wait time, scheduling delay, run time) and\n"
   "'map' (one column per CPU, one row per context switch). TRACE is any trace 'trace info' reads\n"
   "(ftrace, trace-cmd report or trace.dat, perf script or perf.data) or the simulated schedule of\n"
   "'run ... --trace-out sim.txt', so simulated and recorded runs print in the same form.\n"
   "--format json or csv writes the same rows for programs (pandas). On a terminal, timehist's\n"
   "rows with a long scheduling delay and map's switching CPU are coloured (not with NO_COLOR\n"
   "set, https://no-color.org). Definitions: docs/sched-views.md.",
   {{"options", {
      {"view", 0, A::kText, nullptr,
       "latency, timehist or map (positional)"},
      {"trace", 0, A::kText, nullptr,
       "input trace (positional): any trace `trace info` reads, or `run --trace-out` output"},
      {"sort", 's', A::kText, nullptr,
       "latency: sort keys, comma-separated, first decides: runtime, switch, avg, max, pid, comm (default avg,max,switch,runtime); in 'timehist', -s is --summary, as in perf"},
      {"pids", 'p', A::kFlag, nullptr,
       "latency: one row per pid instead of one per comm"},
      {"wakeups", 'w', A::kFlag, nullptr,
       "timehist: also a row per wake event (sched_waking, sched_wakeup, sched_wakeup_new): the task current on the CPU, 'awakened: comm[pid]' (perf sched timehist -w)"},
      {"migrations", 'M', A::kFlag, nullptr,
       "timehist: also a row per sched_migrate_task: 'migrated: comm[pid] cpu FROM => TO' (perf sched timehist -M)"},
      {"summary", 0, A::kFlag, nullptr,
       "timehist (-s): instead of the rows, the runtime summary per task: sched-in count, run time, min, avg, max, stddev, migrations; then idle time per CPU and totals (perf sched timehist -s)"},
      {"with-summary", 'S', A::kFlag, nullptr,
       "timehist: the rows, then the runtime summary (perf sched timehist -S)"},
      {"cpu-visual", 'V', A::kFlag, nullptr,
       "timehist: a column of one character per CPU marking the row's CPU: 's' a switch, 'i' the idle task's, 'm' a migration (perf sched timehist -V)"},
      {"highlight-delay", 0, A::kReal, nullptr,
       "timehist: on a terminal, rows whose sch delay exceeds this many ms are red (default 1)"},
      {"compact", 0, A::kFlag, nullptr,
       "map: a column only for each CPU that switches, added where it first does (perf sched map --compact)"},
      {"cpus", 0, A::kText, nullptr,
       "map: only these CPUs' columns and rows, a list like 0,2-3 (perf sched map --cpus)"},
      {"color-pids", 0, A::kText, nullptr,
       "map: on a terminal, these tasks' names in blue, PIDs like 10,12 (perf sched map --color-pids)"},
      {"color-cpus", 0, A::kText, nullptr,
       "map: on a terminal, highlight only these CPUs' switches (not every CPU's), a list like 0,2-3 (perf sched map --color-cpus)"},
      {"format", 'f', A::kText, nullptr,
       "table (perf's, the default), json or csv: the same rows for programs (docs/sched-views.md)", "table|json|csv", false},
   }},
    {"trace options", {}, {G::kTraceReading}}},
   {{"view", 1}, {"trace", 1}, {"extra", -1}}};
  // clang-format on
}

// `schedsim sweep`.
CommandSpec sweep_spec() {
  // clang-format off
  return
  {"sweep", "run a parameter grid with repetitions in parallel (JSON Lines, resume, shards, Slurm)",
   "schedsim sweep [WORKLOAD|TRACE] [--spec FILE] [--set KEY=V1,V2...]... [options]",
   "Runs a grid of simulations: every combination of the swept parameters (the points), each\n"
   "repeated --repeat times with seeds derived from --seed, the point and the repetition, on\n"
   "--jobs threads. Records stream to -o in (point, repetition) order, so the file is the same\n"
   "bytes for any --jobs and a killed sweep continues with --resume (on SIGINT/SIGTERM the\n"
   "finished records are written whole and the sweep exits 130/143). Parameters are `run`\n"
   "options (topology, placement, kernel, input, workload-gen, jitter, ...), generator options\n"
   "gen.KEY, cost parameters cost.NAME and sched_feat flags feature.NAME=on|off; docs/sweep.md\n"
   "lists them and the spec file format.\n\n"
   "examples:\n"
   "  schedsim sweep --set workload-gen='messaging --pipe --thread' \\\n"
   "      --set placement=sis-fold-2018,sis-fold-opt --set gen.group=1,2,5,10,20,40 \\\n"
   "      --set topology=xeon-e5-2690v2 --repeat 10 -o fold.jsonl\n"
   "  schedsim sweep --spec study.json -o study.jsonl --resume\n"
   "  schedsim sweep --spec study.json -o study.jsonl --slurm --array-size 20 --submit",
   {{"options", {
      {"spec", 0, A::kText, nullptr,
       "read the grid from this JSON spec file (docs/sweep.md); --set adds or replaces parameters", nullptr, true},
      {"set", 0, A::kTexts, nullptr,
       "KEY=V1[,V2...]: one value fixes a parameter, several sweep it (crossed with the others); repeatable"},
      {"zip", 0, A::kTexts, nullptr,
       "KEY=V1,V2...: every --zip parameter advances together (equal lengths), crossed with the --set ones"},
      {"repeat", 'r', A::kCount32, nullptr,
       "repetitions per point (default 1, or the spec's)"},
      {"seed", 0, A::kCount64, nullptr,
       "sweep seed (default 1, or the spec's); repetition seeds derive from it, the point and the index"},
      {"jobs", 'j', A::kCount32, nullptr,
       "simulations run in parallel (default: every CPU this process may use; at most 4 per CPU)"},
      {"output", 'o', A::kText, nullptr,
       "stream the records to this JSON Lines file (created; never overwritten)", nullptr, true},
      {"resume", 0, A::kFlag, nullptr,
       "continue the -o file of an interrupted sweep: skip its records, refuse a changed spec", nullptr, false, "output"},
      {"summary", 0, A::kText, "table",
       "summary on stdout: table, csv, markdown or none", "table|csv|markdown|none", false},
      {"progress", 0, A::kText, "auto",
       "progress line on stderr: auto (if a terminal), always, never", "auto|always|never", false},
      {"dry-run", 0, A::kFlag, nullptr,
       "print the points (index, seed, label) and stop"},
      {"shard", 0, A::kText, nullptr,
       "run only slice K/N of the (point, repetition) list (round robin); `schedsim merge` joins the slices"},
      {"slurm", 0, A::kFlag, nullptr,
       "write a Slurm array job running the shards and a merge job instead of running (needs -o)"},
      {"array-size", 0, A::kCount32, nullptr,
       "--slurm: number of array tasks (shards), default min(runs, 100)", nullptr, false, "slurm"},
      {"partition", 0, A::kText, nullptr,
       "--slurm: the partition to submit to", nullptr, true, "slurm"},
      {"slurm-dir", 0, A::kText, nullptr,
       "--slurm: directory for the spec, scripts, shards and logs (default OUTPUT.slurm)", nullptr, true, "slurm"},
      {"submit", 0, A::kFlag, nullptr,
       "--slurm: submit with sbatch (array, then merge with --dependency=afterok)", nullptr, false, "slurm"},
      {"wait", 0, A::kFlag, nullptr,
       "--slurm --submit: wait for the merge job, then print the summary", nullptr, false, "submit"},
   }}},
   {{"input", 1}}};
  // clang-format on
}

// `schedsim topology`.
CommandSpec topology_spec() {
  // clang-format off
  return
  {"topology", "list, show and export modeled machines (presets, JSON, sysfs, lscpu -p)",
   "schedsim topology list\n"
   "       schedsim topology show TOPOLOGY\n"
   "       schedsim topology export TOPOLOGY --format json [-o FILE]",
   "Lists the built-in machine presets (and which cost parameters are each machine's own rather\n"
   "than the reference defaults), shows a machine's CPUs, sched-domain levels, masks and NUMA\n"
   "distances, or exports it as JSON (schema in docs/topology.md).\n\n"
   "TOPOLOGY is a preset name (see 'list'), 'host' (this machine's /sys), a topology JSON file,\n"
   "a saved copy of a sysfs tree (a directory holding devices/system/cpu), or a file holding\n"
   "`lscpu -p` output.",
   {{"options", {
      {"format", 0, A::kText, "json",
       "export format: json", "json", false},
      {"output", 'o', A::kText, "-",
       "export to FILE (atomically) instead of stdout", nullptr, true},
   }}},
   {{"action", 1}, {"target", 1}, {"extra", -1}}};
  // clang-format on
}

// `schedsim trace`.
CommandSpec trace_spec() {
  // clang-format off
  return
  {"trace", "inspect a kernel trace: format, tasks, events, repairs, observed latency",
   "schedsim trace info TRACE [--comm REGEX] [--pid PID]... [--descendants-of PID] "
   "[--exclude-kthreads] [--background-comm REGEX] [--background-pid PID]... [--strict] [--channels MODE] "
   "[--idle-wake-costs FILE] [--format text|json]",
   "Inspects a kernel scheduler trace: the format detected, kernel version hints, CPUs,\n"
   "events by type, tasks, lost-event windows, repairs made, the extracted workload and the\n"
   "observed statistics of the real run (wakeup latency, run-queue wait, migrations, span).",
   {{"options", {
      {"action", 0, A::kText, nullptr,
       "info (positional)"},
      {"trace", 0, A::kText, nullptr,
       "input trace (positional)"},
      {"format", 'f', A::kText, "text",
       "text, or json: the same facts as one JSON object (docs/traces.md \"trace info --format json\"), times in ns, for scripts and pandas", "text|json", true},
      {"idle-wake-costs", 0, A::kText, nullptr,
       "also write a cost file (run --cost FILE) from the trace's own measurements: idle_wake=table with idle_exit_table (and timer_wake_table, given 20 local timer wakes) from its idle wakes by idle-time class, each class at least 20 wakes; without 20 idle wakes, timer_wake_local from 20 local timer wakes (their p50); resched_ipi from its remote preempting wakes after a recorded IPI, given 20 (docs/traces.md)", nullptr, true},
   }},
    {"trace options", {}, {G::kTraceSelection, G::kTraceReading}}},
   {{"action", 1}, {"trace", 1}}};
  // clang-format on
}

// `schedsim validate`.
CommandSpec validate_spec() {
  // clang-format off
  return
  {"validate", "run the corpus of published before/after results and judge the simulated changes",
   "schedsim validate [DIR|FILE...] [options]",
   "Runs the validation corpus: per published before/after table of a merged scheduler change\n"
   "(one JSON file each, validation/README.md), every row's benchmark on the entry's machine under\n"
   "the two kernels' run options, --repeat times per side with run --repeat's noise model, and\n"
   "sets the simulated change (mean after / mean before - 1, 95% bootstrap interval) and its\n"
   "verdict beside the published change and verdict. The summary counts, per half, the rows whose\n"
   "published change exceeds its published noise, how many verdicts agree and how many changes are\n"
   "within 30% (or 2 percentage points) of the published size; also curves over a parameter.\n"
   "The corpus is split once by commit id: even first hex digit = development, odd = validation;\n"
   "the validation half is for reporting only (docs/validation.md).\n"
   "DIR defaults to ./validation. Same inputs and seed, same output, whatever --jobs.\n\n"
   "exit status: 0 every row simulated; 4 a row's simulation did not complete or gave no figure\n"
   "for its metric (the report says which, and the row is left out of the goals); 1 bad input;\n"
   "2 usage.\n\n"
   "examples:\n"
   "  schedsim validate --list\n"
   "  schedsim validate --half dev --repeat 5 -o validation-dev.md\n"
   "  schedsim validate validation/cluster-scan-8881e1639f1f-kunpeng920-node0.json -o v.html",
   {{"options", {
      {"half", 0, A::kText, "all",
       "dev (commit ids starting with an even hex digit), val (odd) or all", "dev|val|all", true},
      {"filter", 0, A::kText, nullptr,
       "only entries whose file name or commit matches this regular expression", nullptr, true},
      {"repeat", 'r', A::kCount32, "5",
       "repetitions per side and row, with run --repeat's noise model (2..1000)"},
      {"seed", 0, A::kCount64, "1",
       "base seed of the repetitions and of the bootstrap"},
      {"jobs", 'j', A::kCount32, nullptr,
       "simulations at once (default: the CPUs this process may use; at most 4 per CPU)"},
      {"format", 'f', A::kText, nullptr,
       "markdown, json or html (default: by -o's extension, .json or .html, else markdown)", "markdown|json|html", true},
      {"output", 'o', A::kText, "-",
       "write here (atomically) instead of stdout", nullptr, true},
      {"cost", 0, A::kTexts, nullptr,
       "NAME=VALUE or a cost file, as run --cost, for every run (after each machine's cost profile); the report names them"},
      {"gen-option", 0, A::kTexts, nullptr,
       "GEN:OPTIONS, repeatable: OPTIONS appended to the spec of every row whose generator is GEN (e.g. 'messaging:--channel-model pipe'); the report names them"},
      {"list", 0, A::kFlag, nullptr,
       "list the corpus (entries, halves, machine families, benchmarks) without running it"},
      {"progress", 0, A::kText, "auto",
       "auto (on a terminal), always or never: runs done on stderr", "auto|always|never", true},
   }}},
   {{"input", -1}}};
  // clang-format on
}

std::vector<CommandSpec> specs() {
  std::vector<CommandSpec> t = {calibrate_spec(), compare_spec(),  import_spec(), merge_spec(), record_spec(),
                                report_spec(),    gen_spec(),      help_spec(),   policies_spec(), run_spec(),
                                sched_spec(),     sweep_spec(),    topology_spec(), trace_spec(),  validate_spec()};
  std::sort(t.begin(), t.end(), [](const CommandSpec& a, const CommandSpec& b) {
    return std::string_view(a.name) < std::string_view(b.name);
  });
  return t;
}

}  // namespace

const std::vector<CommandSpec>& command_specs() {
  static const std::vector<CommandSpec> t = specs();
  return t;
}

const CommandSpec* find_command_spec(std::string_view name) {
  for (const auto& c : command_specs())
    if (name == c.name) return &c;
  return nullptr;
}

std::vector<std::string> option_choices(const CommandOption& o) {
  std::vector<std::string> out;
  if (!o.choices) return out;
  std::string_view s(o.choices);
  for (size_t at = 0; at <= s.size();) {
    const size_t bar = std::min(s.find('|', at), s.size());
    out.emplace_back(s.substr(at, bar - at));
    at = bar + 1;
  }
  return out;
}

const char* exit_codes_help() {
  return
    "exit codes:\n"
    "  0    success; also a run ended by --stop-at, or an incomplete one with --allow-incomplete\n"
    "  1    input or output error: a file, option value, workload or trace is wrong, or an output\n"
    "       (standard output included) cannot be written; the message names it\n"
    "  2    usage error: unknown command or option, missing argument\n"
    "  3    internal error: out of memory or a schedsim bug\n"
    "  4    simulation incomplete: tasks blocked forever, wake tokens never consumed, or work not\n"
    "       conserved; the results are still written, with \"complete\": false\n"
    "  5    the memory budget was exceeded: run's --max-memory, else SCHEDSIM_MAX_MEMORY, else 80%\n"
    "       of MemAvailable (every command checks it)\n"
    "  6    calibrate --check-only: calibrate would refuse a trace (or the set); the reasons are printed\n"
    "  7    compare --fail-on: a significant change crossed a threshold (each reason on stderr)\n"
    "  130  interrupted by SIGINT: temporaries removed, tracefs restored, no output written\n"
    "  143  terminated by SIGTERM: as for 130\n";

}

const char* global_usage() {
  return "usage: schedsim [-v|-vv] [--log SPEC] [--explain] <command> [options]\n"
         "       schedsim help <command> | schedsim <command> --help\n\n"
         "A trace-driven discrete-event simulator of the Linux scheduler's wakeup path.\n\n"
         "commands:\n";
}

const char* global_options_help() {
  return "\nglobal options:\n"
         "  -h, --help       this help\n"
         "  --version        print the version and the commit it was built from\n"
         "  -v, -vv          more logging on stderr (info, debug)\n"
         "  --log SPEC       per-module log levels, e.g. engine=debug,policy=trace\n"
         "  --explain        notes and warnings in full (else one line each; every command takes it too)\n\n";
}

}  // namespace schedsim::driver
