// Extraction rules of docs/traces.md "Extraction" on small hand-made traces: the waking-before-sleep race, the
// exit pitfall, PID reuse, no-op wakings, interrupt wakeups, selection and conservation.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "schedsim/base/error.hpp"
#include "schedsim/traces/import.hpp"
#include "schedsim/traces/line_reader.hpp"

using namespace schedsim;
using namespace schedsim::traces;

namespace {
const char* kHeader =
    "# tracer: nop\n"
    "#\n"
    "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
    "#              | |         |   |||||     |         |\n";

std::string sw(const char* comm, int pid, int cpu, const char* ts, const char* state, const char* ncomm, int npid,
               const char* flags = "d..2.") {
  char b[512];
  std::snprintf(b, sizeof b,
                "%16s-%-7d [%03d] %s %12s: sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 prev_state=%s ==> "
                "next_comm=%s next_pid=%d next_prio=120\n",
                comm, pid, cpu, flags, ts, comm, pid, state, ncomm, npid);
  return b;
}
std::string ev(const char* comm, int pid, int cpu, const char* ts, const char* name, const std::string& payload,
               const char* flags = "d..3.") {
  char b[512];
  std::snprintf(b, sizeof b, "%16s-%-7d [%03d] %s %12s: %s: %s\n", comm, pid, cpu, flags, ts, name, payload.c_str());
  return b;
}
std::string waking(const char* comm, int pid, int cpu, const char* ts, const char* wcomm, int wpid,
                   const char* flags = "d..3.", int target_cpu = 0, const char* event = "sched_waking") {
  char tc[8];
  std::snprintf(tc, sizeof tc, "%03d", target_cpu);
  return ev(comm, pid, cpu, ts, event,
            std::string("comm=") + wcomm + " pid=" + std::to_string(wpid) + " prio=120 target_cpu=" + tc, flags);
}

struct TempTrace {
  std::string path;
  explicit TempTrace(const std::string& body) {
    char tmpl[] = "/tmp/schedsim-traces-test-XXXXXX";
    int fd = mkstemp(tmpl);
    REQUIRE(fd >= 0);
    close(fd);
    path = tmpl;
    std::ofstream(path) << kHeader << body;
  }
  ~TempTrace() { std::remove(path.c_str()); }
};

const TaskSpec& task(const Workload& w, const std::string& name, int64_t pid, int nth = 0) {
  for (const auto& t : w.tasks)
    if (t.name == name && t.pid == pid && nth-- == 0) return t;
  FAIL("no task " << name << " " << pid);
  return w.tasks.front();
}
int count(const TaskSpec& t, ActionKind k) {
  int n = 0;
  for (const auto& a : t.program) n += a.kind == k;
  return n;
}
}  // namespace

TEST_CASE("extract: a waking before the wakee's own switch-out pairs with that sleep", "[traces]") {
  // B (pid 11) is still on CPU 1 when A (pid 10, CPU 0) wakes it; B's S switch-out comes 3 us
  // later in the merged stream. The waking must become A: wake(B) and B: block().
  TempTrace t(sw("swapper/0", 0, 0, "1.000000", "R", "A", 10) + sw("swapper/1", 0, 1, "1.000001", "R", "B", 11) +
              waking("A", 10, 0, "1.000100", "B", 11) + sw("B", 11, 1, "1.000103", "S", "swapper/1", 0) +
              sw("swapper/1", 0, 1, "1.000200", "R", "B", 11) + sw("A", 10, 0, "1.000300", "S", "swapper/0", 0));
  ImportReport rep;
  Workload w = import_trace(t.path, ExtractOptions{}, &rep);
  const TaskSpec& a = task(w, "A", 10);
  const TaskSpec& b = task(w, "B", 11);
  CHECK(count(a, ActionKind::kWake) == 1);
  CHECK(count(b, ActionKind::kBlock) == 1);
  CHECK(rep.early_wakes_paired == 1);
  CHECK(rep.conservation_ok);
  // A ran 100 us before the wake: run(100us) wake(B) run(200us).
  REQUIRE(a.program.size() == 3);
  CHECK(a.program[0] == Action::run_recorded(Duration::us(100), 0));
  CHECK(a.program[1].kind == ActionKind::kWake);
  CHECK(w.observed.wakeup_latency.count() == 1);
  CHECK(w.observed.wakeup_latency.max() == 100000);  // waking 1.000100 -> switch-in 1.000200
  // The kernel woke that sleep: a wakeup, as many as the latency samples.
  CHECK(w.observed.wakeups == 1);
}

TEST_CASE("extract: --wake-match recorded numbers each sleep and the wake that ended it", "[traces]") {
  // B sleeps at 1.000010 and A wakes it (a plain pair); then C wakes B while B is still on CPU 1,
  // before B's own switch-out (the early-waking race, paired at that switch-out).
  TempTrace t(sw("swapper/0", 0, 0, "1.000000", "R", "A", 10) + sw("swapper/1", 0, 1, "1.000001", "R", "B", 11) +
              sw("B", 11, 1, "1.000010", "S", "swapper/1", 0) + waking("A", 10, 0, "1.000050", "B", 11) +
              sw("swapper/1", 0, 1, "1.000060", "R", "B", 11) + sw("A", 10, 0, "1.000070", "S", "C", 12) +
              waking("C", 12, 0, "1.000100", "B", 11) + sw("B", 11, 1, "1.000103", "S", "swapper/1", 0) +
              sw("swapper/1", 0, 1, "1.000200", "R", "B", 11) + sw("C", 12, 0, "1.000300", "S", "swapper/0", 0));
  auto pairs = [](const TaskSpec& s, ActionKind k) {
    std::vector<uint32_t> v;
    for (const Action& a : s.program)
      if (a.kind == k) v.push_back(a.body);
    return v;
  };
  ImportReport rep;
  ExtractOptions o;
  Workload tok = import_trace(t.path, o, &rep);
  CHECK(pairs(task(tok, "B", 11), ActionKind::kBlock) == std::vector<uint32_t>{0, 0});
  CHECK(pairs(task(tok, "A", 10), ActionKind::kWake) == std::vector<uint32_t>{0});
  o.wake_match = TraceWakeMatch::kRecorded;
  Workload rec = import_trace(t.path, o, &rep);
  CHECK(rep.early_wakes_paired == 1);
  CHECK(rep.conservation_ok);
  CHECK(pairs(task(rec, "B", 11), ActionKind::kBlock) == std::vector<uint32_t>{1, 2});
  CHECK(pairs(task(rec, "A", 10), ActionKind::kWake) == std::vector<uint32_t>{1});
  CHECK(pairs(task(rec, "C", 12), ActionKind::kWake) == std::vector<uint32_t>{2});
  CHECK(parse_trace_wake_match("recorded") == TraceWakeMatch::kRecorded);
  CHECK_THROWS_WITH(parse_trace_wake_match("pairs"), "--wake-match: error: unknown wake matching 'pairs'; valid: token, recorded");
}

TEST_CASE("extract: a waking of a task that keeps running creates no token", "[traces]") {
  // A wakes B while B runs; B is then preempted (R+), not asleep: the wake was a no-op.
  TempTrace t(sw("swapper/0", 0, 0, "1.000000", "R", "A", 10) + sw("swapper/1", 0, 1, "1.000001", "R", "B", 11) +
              waking("A", 10, 0, "1.000100", "B", 11) + sw("B", 11, 1, "1.000103", "R+", "C", 12) +
              sw("C", 12, 1, "1.000200", "S", "B", 11) + sw("A", 10, 0, "1.000300", "S", "swapper/0", 0));
  ImportReport rep;
  Workload w = import_trace(t.path, ExtractOptions{}, &rep);
  CHECK(count(task(w, "A", 10), ActionKind::kWake) == 0);
  CHECK(count(task(w, "B", 11), ActionKind::kBlock) == 0);
  // The cancelled wake leaves one merged run: 1.000000 -> 1.000300.
  CHECK(task(w, "A", 10).program == std::vector<Action>{Action::run_recorded(Duration::us(300), 0)});
  CHECK(rep.wakeups_noop == 1);
  CHECK(rep.conservation_ok);
}

TEST_CASE("extract: the exiting task wakes its parent before exit()", "[traces]") {
  // do_exit(): sched_process_exit, then the parent's wakeup from exit_notify(), a preemption,
  // and only then the last switch-out in state Z.
  TempTrace t(sw("swapper/0", 0, 0, "1.000000", "R", "sh", 10) +
              ev("sh", 10, 0, "1.000010", "sched_process_fork", "comm=sh pid=10 child_comm=sh child_pid=20", ".....") +
              sw("sh", 10, 0, "1.000020", "S", "sh", 20) +
              ev("sh", 20, 0, "1.000500", "sched_process_exit", "comm=sh pid=20 prio=120 group_dead=true", ".....") +
              waking("sh", 20, 0, "1.000510", "sh", 10) + sw("sh", 20, 0, "1.000520", "R+", "kworker/0:1", 30) +
              sw("kworker/0:1", 30, 0, "1.000530", "I", "sh", 20) + sw("sh", 20, 0, "1.000540", "Z", "sh", 10) +
              sw("sh", 10, 0, "1.000600", "S", "swapper/0", 0));
  ImportReport rep;
  Workload w = import_trace(t.path, ExtractOptions{}, &rep);
  const TaskSpec& child = task(w, "sh", 20);
  CHECK(child.start == StartState::kForked);
  REQUIRE(child.program.size() >= 3);
  CHECK(child.program[child.program.size() - 3].kind == ActionKind::kWake);
  CHECK(child.program.back().kind == ActionKind::kExit);
  CHECK(count(task(w, "sh", 10), ActionKind::kFork) == 1);
  CHECK(count(task(w, "sh", 10), ActionKind::kBlock) == 1);
  CHECK(rep.conservation_ok);
}

TEST_CASE("extract: a pid reused after exit is a new task", "[traces]") {
  std::string body = sw("swapper/0", 0, 0, "1.000000", "R", "p", 10);
  for (int i = 0; i < 2; ++i) {
    std::string base = i == 0 ? "1.00" : "1.01";
    body += ev("p", 10, 0, (base + "0010").c_str(), "sched_process_fork", "comm=p pid=10 child_comm=p child_pid=20", ".....");
    body += sw("p", 10, 0, (base + "0020").c_str(), "S", "c", 20);
    body += waking("c", 20, 0, (base + "0030").c_str(), "p", 10);
    body += sw("c", 20, 0, (base + "0040").c_str(), "Z", "p", 10);
  }
  TempTrace t(body);
  ImportReport rep;
  Workload w = import_trace(t.path, ExtractOptions{}, &rep);
  CHECK(w.tasks.size() == 3);
  CHECK(task(w, "c", 20, 0).program.back().kind == ActionKind::kExit);
  CHECK(task(w, "c", 20, 1).program.back().kind == ActionKind::kExit);
  CHECK(count(task(w, "p", 10), ActionKind::kFork) == 2);
  CHECK(rep.repairs.empty());
  CHECK(rep.conservation_ok);
}

TEST_CASE("extract: wakeups from irq, idle or unselected tasks become sleep(observed)", "[traces]") {
  TempTrace t(sw("swapper/0", 0, 0, "1.000000", "R", "A", 10) + sw("A", 10, 0, "1.000100", "S", "B", 11) +
              waking("B", 11, 0, "1.000400", "A", 10, "d.h3.") + sw("B", 11, 0, "1.000500", "S", "A", 10) +
              sw("A", 10, 0, "1.000600", "S", "swapper/0", 0) + waking("swapper/0", 0, 0, "1.001600", "A", 10) +
              sw("swapper/0", 0, 0, "1.001610", "R", "A", 10));
  Workload w = import_trace(t.path, ExtractOptions{});
  const TaskSpec& a = task(w, "A", 10);
  CHECK(count(a, ActionKind::kBlock) == 0);
  REQUIRE(count(a, ActionKind::kSleep) == 2);
  CHECK(a.program[1] == Action::sleep(Duration::us(300)));   // switch-out 1.000100 -> waking 1.000400
  CHECK(a.program[3] == Action::sleep(Duration::us(1000)));  // 1.000600 -> 1.001600 (idle waker)
  // Selection: with B excluded, B's wake of A from task context is also from outside.
  ExtractOptions o;
  o.pids = {10};
  Workload only_a = import_trace(t.path, o);
  CHECK(only_a.tasks.size() == 1);
}

TEST_CASE("extract: strict mode turns repairs into errors with file:line", "[traces]") {
  // B switched in though it was last seen asleep with no wakeup: a repair.
  TempTrace t(sw("swapper/0", 0, 0, "1.000000", "R", "B", 11) + sw("B", 11, 0, "1.000100", "S", "A", 10) +
              waking("A", 10, 0, "1.000150", "X", 99) + sw("A", 10, 0, "1.000200", "S", "B", 11));
  ImportReport rep;
  Workload w = import_trace(t.path, ExtractOptions{}, &rep);
  REQUIRE(rep.repairs.count("switch-in-without-wakeup") == 1);
  CHECK(rep.repairs["switch-in-without-wakeup"].first_line == 8);
  ExtractOptions strict;
  strict.strict = true;
  try {
    import_trace(t.path, strict);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.loc().line == 8);
    CHECK(e.message().rfind("strict mode: a sleeping task was switched in with no wakeup event", 0) == 0);
  }
}

TEST_CASE("extract: --comm keeps tasks whose comm ever matched, even after exec", "[traces]") {
  TempTrace t(sw("swapper/0", 0, 0, "1.000000", "R", "bash", 10) +
              ev("bash", 10, 0, "1.000010", "sched_process_fork", "comm=bash pid=10 child_comm=bash child_pid=20", ".....") +
              sw("bash", 10, 0, "1.000020", "S", "bash", 20) +
              ev("bash", 20, 0, "1.000030", "sched_process_exec", "filename=/usr/bin/hackbench pid=20 old_pid=20", ".....") +
              sw("hackbench", 20, 0, "1.000100", "S", "swapper/0", 0));
  ExtractOptions o;
  o.comm_regex = "^hack";
  Workload w = import_trace(t.path, o);
  REQUIRE(w.tasks.size() == 1);
  CHECK(w.tasks[0].name == "hackbench");
  CHECK(w.tasks[0].start == StartState::kRunnable);  // forked by an unselected parent
  CHECK(w.tasks[0].start_time == Instant::from_ns(10000));
  ExtractOptions d;
  d.descendants_of = 10;
  CHECK(import_trace(t.path, d).tasks.size() == 2);
}

TEST_CASE("import: small cross-CPU inversions are reordered, large ones repaired", "[traces]") {
  // CPU 1's switch-in of B is printed before CPU 0's waking that caused it (per-CPU streams
  // concatenated): the reorder window restores timestamp order.
  const std::string body = sw("swapper/0", 0, 0, "1.000000", "R", "A", 10) +
                           sw("B", 11, 1, "1.000050", "S", "swapper/1", 0) +
                           sw("swapper/1", 0, 1, "1.000210", "R", "B", 11) +
                           waking("A", 10, 0, "1.000200", "B", 11) +
                           sw("A", 10, 0, "1.000300", "S", "swapper/0", 0);
  TempTrace t(body);
  ImportReport rep;
  Workload w = import_trace(t.path, ExtractOptions{}, &rep);
  CHECK(rep.repairs.empty());
  CHECK(count(task(w, "A", 10), ActionKind::kWake) == 1);
  CHECK(w.observed.wakeup_latency.max() == 10000);
  ExtractOptions tiny;
  tiny.reorder_window = 0;
  ImportReport rep2;
  import_trace(t.path, tiny, &rep2);
  CHECK(rep2.repairs.count("out-of-order") == 1);
}

TEST_CASE("import: fixtures of every format keep conservation", "[traces]") {
  const std::string dir = std::string(SCHEDSIM_SOURCE_DIR) + "/tests/data/traces/";
  for (const char* f : {"hackbench-pipe-g2.ftrace.gz", "fork-loop.ftrace.zst", "perf-sched-messaging.perf-script.gz",
                        "tc316-report-N.txt.gz", "systrace.html", "android-3x-tgid.ftrace.txt"}) {
    INFO(f);
    CHECK(is_trace_file(dir + f));
    ImportReport rep;
    Workload w = import_trace(dir + f, ExtractOptions{}, &rep);
    CHECK(rep.conservation_ok);
    CHECK(w.total_work() == rep.oncpu_total);
    validate_workload(w, f);
  }
  CHECK_FALSE(is_trace_file(std::string(SCHEDSIM_SOURCE_DIR) + "/CMakeLists.txt"));
}

TEST_CASE("import: every fixture imports, or fails with an InputError", "[traces]") {
  // Also runs every parser path under the sanitizers (the CI asan build). A workload import
  // accepts must also be one `run` reads: written and read back (the reader range-checks what
  // validate_workload does not, e.g. the observed statistics).
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(SCHEDSIM_SOURCE_DIR) / "tests/data/traces";
  const std::string out =
      (fs::temp_directory_path() / ("schedsim-import-readback-" + std::to_string(::getpid()) + ".json")).string();
  int ok = 0, refused = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;  // subfolders (xeon-vm-16cpu/) hold real traces for scripts/fidelity.sh
    INFO(e.path().string());
    Workload w;
    try {
      ImportReport rep;
      w = import_trace(e.path().string(), ExtractOptions{}, &rep);
      CHECK(rep.conservation_ok);
      validate_workload(w, e.path().string());
      ++ok;
    } catch (const InputError& err) {
      CHECK(err.loc().path == e.path().string());
      ++refused;
      continue;
    }
    write_workload(w, out, WorkloadFormat::kJson);
    try {
      CHECK(read_workload(out).tasks.size() == w.tasks.size());
    } catch (const InputError& err) {
      FAIL_CHECK("the imported workload does not read back: " << err.render());
    }
  }
  std::remove(out.c_str());
  CHECK(ok == 45);  // 52 files
  // latency, counter clock, bad-state, garbage, tc-raw-3x (--kernel-version), span-12-days,
  // pool-101-sleeps-11-days
  CHECK(refused == 7);
}

TEST_CASE("import: a timestamp far off its neighbours is clock trouble, never run time", "[traces]") {
  // A runs 1.000000-1.002000 on CPU 0; B's switch-in on CPU 1 is printed 5 s early.
  auto body = [](const char* b_in) {
    return sw("swapper/0", 0, 0, "1.000000", "R", "A", 10) + sw("swapper/1", 0, 1, b_in, "R", "B", 11) +
           sw("A", 10, 0, "1.002000", "S", "swapper/0", 0) + sw("B", 11, 1, "1.003000", "S", "swapper/1", 0);
  };
  TempTrace clean(body("1.001000"));
  ImportReport rep_clean;
  import_trace(clean.path, ExtractOptions{}, &rep_clean);
  CHECK(rep_clean.repairs.empty());

  TempTrace moved(body("0.001000"));  // 1 s back (behind line 5 by 1 s)
  ImportReport rep;
  Workload w = import_trace(moved.path, ExtractOptions{}, &rep);
  REQUIRE(rep.repairs.count("clock-backwards") == 1);
  CHECK(rep.repairs["clock-backwards"].first_line == 6);
  // Off by at most the gap between its neighbours (1 ms here), never by the 1 s jump.
  CHECK(rep.oncpu_total <= rep_clean.oncpu_total + Duration::ms(1));
  CHECK(w.total_work() == rep.oncpu_total);
  REQUIRE_FALSE(rep.warnings.empty());
  CHECK(rep.warnings[0].rfind("timestamp goes backwards by 999.00ms at line 6 (behind line 5)", 0) == 0);

  TempTrace ahead(body("6.001000"));  // 5 s ahead of its successor, which continues from line 5
  ImportReport rep_ahead;
  import_trace(ahead.path, ExtractOptions{}, &rep_ahead);
  CHECK(rep_ahead.repairs.count("clock-ahead") == 1);
  CHECK(rep_ahead.oncpu_total <= rep_clean.oncpu_total + Duration::ms(1));

  ExtractOptions strict;
  strict.strict = true;
  try {
    import_trace(moved.path, strict);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.loc().line == 6);
    CHECK(e.message() == "strict mode: timestamp goes backwards by 999.00ms at line 6 (behind line 5)");
  }
  // Within the tolerance (skew of the local clock) nothing is reported.
  TempTrace skew(body("0.999000"));  // 1 ms behind line 5
  ImportReport rep_skew;
  import_trace(skew.path, ExtractOptions{}, &rep_skew);
  CHECK(rep_skew.repairs.count("clock-backwards") == 0);
}

TEST_CASE("LineReader: a line past the bound is an error naming the line, not a memory blow-up", "[traces]") {
  TempTrace t(std::string(5000, 'x'));  // header lines 1-4, then 5000 bytes without a newline
  LineReader rd(t.path, 1024);
  std::string_view line;
  for (int i = 0; i < 4; ++i) REQUIRE(rd.next(line));
  try {
    rd.next(line);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.loc().line == 5);
    CHECK(e.message().rfind("line longer than 1024 bytes with no newline", 0) == 0);
  }
}

TEST_CASE("extract: a wakeup whose switch-in from idle was not recorded is a lower-bound sample", "[traces]") {
  // B sleeps on CPU 1; A wakes it; the wakeup is emitted on CPU 1 inside the IPI, but the switch
  // from the idle task to B is missing (as on the 6.18 VMs): B's next event is its own switch-out.
  // The switch-in is placed at CPU 1's previous event (the sched_wakeup), so the sample (4 us)
  // is a lower bound and is counted as such.
  TempTrace t(sw("swapper/0", 0, 0, "1.000000", "R", "A", 10) + sw("swapper/1", 0, 1, "1.000001", "R", "B", 11) +
              sw("B", 11, 1, "1.000010", "S", "swapper/1", 0) + waking("A", 10, 0, "1.000100", "B", 11) +
              ev("<idle>", 0, 1, "1.000104", "sched_wakeup", "comm=B pid=11 prio=120 target_cpu=001", "dNh2.") +
              sw("B", 11, 1, "1.000200", "R", "swapper/1", 0) + sw("A", 10, 0, "1.000300", "S", "swapper/0", 0));
  ImportReport rep;
  Workload w = import_trace(t.path, ExtractOptions{}, &rep);
  CHECK(rep.inferred_switch_ins == 1);
  CHECK(w.observed.wakeup_latency.count() == 1);
  CHECK(w.observed.wakeup_latency.max() == 4000);
  CHECK(w.observed.wakeup_latency_inferred == 1);
  CHECK(rep.conservation_ok);
}

TEST_CASE("import: a trace.dat read through libtracecmd matches its 'trace-cmd report -N' text", "[traces]") {
  // tc316-hackbench.dat.gz is a real recording (trace-cmd 3.1.6 extract of a hackbench run on a
  // 2-CPU VM); tc316-bprint-multiline.txt is `trace-cmd report -N` of the same file with three
  // print events added. The binary path renders nanoseconds, the text has microseconds.
  const std::string dir = std::string(SCHEDSIM_SOURCE_DIR) + "/tests/data/traces/";
  ImportReport rd, rt;
  Workload wd, wt;
  try {
    wd = import_trace(dir + "tc316-hackbench.dat.gz", ExtractOptions{}, &rd);
  } catch (const InputError& e) {
    // A build without libtracecmd refuses it, naming the fallback.
    CHECK(std::string(e.what()).find("trace-cmd report -N -i FILE") != std::string::npos);
    return;
  }
  wt = import_trace(dir + "tc316-bprint-multiline.txt", ExtractOptions{}, &rt);
  CHECK(rd.format.rfind("trace.dat (libtracecmd ", 0) == 0);
  CHECK(rd.nr_cpus == 2);
  CHECK(rd.header_cpus == 2);
  for (int i = 0; i < kNumEventTypes - 1; ++i) CHECK(rd.events_by_type[static_cast<size_t>(i)] == rt.events_by_type[static_cast<size_t>(i)]);
  REQUIRE(wd.tasks.size() == wt.tasks.size());
  CHECK(wd.expanded_action_counts() == wt.expanded_action_counts());
  // Same work to within the text's rounding (30 run actions, each within 1 us).
  CHECK(std::llabs(wd.total_work().count() - wt.total_work().count()) <= 30 * 1000);
  CHECK(wd.total_work() != wt.total_work());  // the binary path really kept nanoseconds
  CHECK(rd.conservation_ok);
}

TEST_CASE("import: schedsim record's '# schedsim record: cpus=N' line is the trace's CPU count", "[traces]") {
  // trace_pipe output has no "#P:" header; the recorder writes the online CPU count itself. Only
  // CPU 0 shows events here: without the line the trace looks like a 1-CPU machine's.
  const std::string events = sw("swapper/0", 0, 0, "1.000000", "R", "A", 10) + sw("A", 10, 0, "1.000100", "S", "swapper/0", 0);
  TempTrace with("# schedsim record: cpus=4\n" + events);
  TempTrace without(events);
  TempTrace late(events + "# schedsim record: cpus=4\n");  // a comment after an event is no header
  ImportReport rw, ro, rl;
  import_trace(with.path, ExtractOptions{}, &rw);
  import_trace(without.path, ExtractOptions{}, &ro);
  import_trace(late.path, ExtractOptions{}, &rl);
  CHECK(rw.header_cpus == 4);
  CHECK(rw.nr_cpus == 1);
  CHECK(ro.header_cpus == -1);
  CHECK(rl.header_cpus == -1);
}

// --channels (docs/traces.md "Channels from syscalls").
namespace {
std::string sys_enter(const char* comm, int pid, int cpu, const char* ts, const char* call, int fd) {
  char b[512];
  std::snprintf(b, sizeof b, "%16s-%-7d [%03d] ..... %12s: sys_%s(fd: %d, buf: 0x55f6, count: 0x64)\n", comm, pid, cpu,
                ts, call, fd);
  return b;
}
std::string sys_exit(const char* comm, int pid, int cpu, const char* ts, const char* call, const char* ret) {
  char b[512];
  std::snprintf(b, sizeof b, "%16s-%-7d [%03d] ..... %12s: sys_%s -> %s\n", comm, pid, cpu, ts, call, ret);
  return b;
}
std::string fork_ev(const char* comm, int pid, int cpu, const char* ts, const char* ccomm, int cpid) {
  return ev(comm, pid, cpu, ts, "sched_process_fork",
            std::string("comm=") + comm + " pid=" + std::to_string(pid) + " child_comm=" + ccomm +
                " child_pid=" + std::to_string(cpid));
}
// Reader B (11) sleeps in read(3); writer A (10) writes fd 4 and wakes it; then A writes again
// while B still has data (no wakeup), and B reads it without sleeping. `second` is the size of
// B's second read.
std::string pipe_trace(const char* second = "0x64") {
  return sw("swapper/0", 0, 0, "1.000000", "R", "A", 10) + sw("swapper/1", 0, 1, "1.000001", "R", "B", 11) +
         sys_enter("B", 11, 1, "1.000010", "read", 3) + sw("B", 11, 1, "1.000020", "S", "swapper/1", 0) +
         sys_enter("A", 10, 0, "1.000100", "write", 4) + waking("A", 10, 0, "1.000110", "B", 11) +
         sys_exit("A", 10, 0, "1.000120", "write", "0x64") + sw("swapper/1", 0, 1, "1.000130", "R", "B", 11) +
         sys_exit("B", 11, 1, "1.000140", "read", "0x64") + sys_enter("A", 10, 0, "1.000200", "write", 4) +
         sys_exit("A", 10, 0, "1.000210", "write", "0x64") + sys_enter("B", 11, 1, "1.000300", "read", 3) +
         sys_exit("B", 11, 1, "1.000310", "read", second) + sw("B", 11, 1, "1.000400", "S", "swapper/1", 0) +
         sw("A", 10, 0, "1.000500", "S", "swapper/0", 0);
}
// The tokens an import of pipe_trace() turns its one wakeup into: {A's wakes, B's blocks, A's
// writes, B's reads}; {1, 1, 0, 0} without channels, {0, 0, 2, 2} with them.
std::array<int, 4> pipe_tokens(const Workload& w) {
  const TaskSpec& a = task(w, "A", 10);
  const TaskSpec& b = task(w, "B", 11);
  return {count(a, ActionKind::kWake), count(b, ActionKind::kBlock), count(a, ActionKind::kWrite),
          count(b, ActionKind::kRead)};
}
}  // namespace

TEST_CASE("extract: an unrecorded switch-in on a CPU with no earlier event is placed at the wakeup", "[traces]") {
  // A (CPU 0) forks C onto CPU 1, which has had no event yet in the trace; C's first event there is
  // its own switch-out 58 us later. Nothing shows CPU 1 idle after the wakeup, so the switch-in is
  // placed at the wakeup, as when the CPU's previous event precedes the wakeup: C ran 58 us.
  // (Placing it at the switch-out instead dropped C's first run to 0 us and shifted every later
  // action of C: on periodic-t24 the first sleeps of the 14 first-forked threads started 16-48 us
  // early, docs/model.md "The periodic tail".)
  TempTrace t(sw("swapper/0", 0, 0, "1.000000", "R", "A", 10) + fork_ev("A", 10, 0, "1.000010", "C", 20) +
              ev("A", 10, 0, "1.000012", "sched_wakeup_new", "comm=C pid=20 prio=120 target_cpu=001", "d..2.") +
              sw("C", 20, 1, "1.000070", "S", "swapper/1", 0) + sw("A", 10, 0, "1.000300", "S", "swapper/0", 0));
  ImportReport rep;
  Workload w = import_trace(t.path, ExtractOptions{}, &rep);
  const TaskSpec& c = task(w, "C", 20);
  REQUIRE_FALSE(c.program.empty());
  CHECK(c.program[0] == Action::run_recorded(Duration::us(58), 1));
  CHECK(rep.inferred_switch_ins == 1);
  CHECK(rep.conservation_ok);
}

TEST_CASE("extract --channels: syscall events carry the fd and the return value", "[traces]") {
  TempTrace t(sys_enter("A", 10, 0, "1.000100", "write", 4) + sys_exit("A", 10, 0, "1.000120", "write", "0x64") +
              sys_exit("A", 10, 0, "1.000130", "read", "0xfffffffffffffff5"));
  std::vector<TraceEvent> seen;
  ExtractOptions o;
  o.on_event = [&](const TraceEvent& e) { seen.push_back(e); };
  import_trace(t.path, o);
  REQUIRE(seen.size() == 3);
  CHECK(seen[0].event_name == "sys_enter_write");
  CHECK(seen[0].other_value == 4);
  CHECK(seen[1].other_value == 100);
  CHECK(seen[2].event_name == "sys_exit_read");
  CHECK(seen[2].other_value == -11);
}

TEST_CASE("extract --channels: a write that wakes a reader becomes channel write/read actions", "[traces]") {
  TempTrace t(pipe_trace());
  ImportReport off_rep;
  Workload off = import_trace(t.path, ExtractOptions{}, &off_rep);
  CHECK(pipe_tokens(off) == std::array{1, 1, 0, 0});

  ExtractOptions o;
  o.channels = TraceChannels::kPipe;
  ImportReport rep;
  Workload w = import_trace(t.path, o, &rep);
  CHECK(pipe_tokens(w) == std::array{0, 0, 2, 2});
  const TaskSpec& a = task(w, "A", 10);
  const TaskSpec& b = task(w, "B", 11);
  for (const auto& x : a.program)
    if (x.kind == ActionKind::kWrite) {
      CHECK(x.arg == 0);
      CHECK(x.body == 100);
      CHECK(x.flags == 0);
    }
  CHECK(rep.conservation_ok);
  CHECK(rep.channels.channels == 1);
  CHECK(rep.channels.tokens_replaced == 1);
  CHECK(rep.channels.syscalls == 4);
  // The same on-CPU time as without channels: syscalls only split runs.
  CHECK(w.total_work() == off.total_work());
  // The read that slept sits where it slept, before the run that followed its wakeup: after
  // the user time before its enter and the kernel time from the enter to the sleep.
  REQUIRE(b.program.size() >= 3);
  CHECK(b.program[0].kind == ActionKind::kRun);
  CHECK(b.program[0].flags == 0);
  CHECK(b.program[1].kind == ActionKind::kRun);
  CHECK(b.program[1].flags == kRunSyscall);
  CHECK(b.program[2].kind == ActionKind::kRead);

  o.channels = TraceChannels::kSocket;
  Workload s = import_trace(t.path, o);
  for (const auto& x : task(s, "A", 10).program)
    if (x.kind == ActionKind::kWrite) CHECK(x.flags == kChanSocket);
}

TEST_CASE("extract --channels: time inside a read or write is a run flagged syscall", "[traces]") {
  // A: 100 us user, write syscall 1.000100-1.000120 (split at its wake), user until 1.000200,
  // write 1.000200-1.000210, user until 1.000500. B: read 1.000010-1.000020 (sleeps in it),
  // back 1.000130-1.000140, user until 1.000300, read 1.000300-1.000310, user until 1.000400.
  TempTrace t(pipe_trace());
  auto flagged = [](const TaskSpec& ts) {
    int64_t in = 0;
    for (const auto& x : ts.program)
      if (x.kind == ActionKind::kRun && (x.flags & kRunSyscall)) in += x.arg;
    return in;
  };
  Workload off = import_trace(t.path, ExtractOptions{});
  // Without --channels or syscall_marks the syscall events are not read: a --preempt full
  // replay keeps its runs whole.
  CHECK(flagged(task(off, "A", 10)) == 0);
  CHECK_FALSE(off.marks_syscalls());
  ExtractOptions o;
  o.channels = TraceChannels::kPipe;
  Workload w = import_trace(t.path, o);
  const TaskSpec& a = task(w, "A", 10);
  const TaskSpec& b = task(w, "B", 11);
  CHECK(flagged(a) == 30000);
  CHECK(flagged(b) == 30000);
  // The return to user space follows every write: an unflagged run right after it.
  for (size_t i = 0; i + 1 < a.program.size(); ++i)
    if (a.program[i].kind == ActionKind::kWrite) {
      CHECK(a.program[i + 1].kind == ActionKind::kRun);
      CHECK(a.program[i + 1].flags == 0);
    }
  // The same on-CPU time as without channels.
  CHECK(w.total_work() == off.total_work());
}

TEST_CASE("extract syscall_marks: without --channels the time inside a read or write is flagged syscall", "[traces]") {
  // The same trace as above, plain import with syscall_marks (run --preempt none, import
  // --syscall-marks): wakes stay wake/block tokens, and the syscall events mark the kernel time
  // so that run --preempt none holds a preemption until the return to user space. A's first
  // write (1.000100-1.000120) wakes B at 1.000110: the wake sits between the two flagged halves,
  // and the return to user space comes after it.
  TempTrace t(pipe_trace());
  ImportReport rep;
  ExtractOptions o;
  o.syscall_marks = true;
  Workload w = import_trace(t.path, o, &rep);
  CHECK(w.marks_syscalls());
  CHECK(w.total_work() == import_trace(t.path, ExtractOptions{}).total_work());
  CHECK(pipe_tokens(w) == std::array{1, 1, 0, 0});
  const TaskSpec& a = task(w, "A", 10);
  const TaskSpec& b = task(w, "B", 11);
  CHECK(rep.conservation_ok);
  std::vector<std::pair<int64_t, uint8_t>> seq;  // (run ns, flags); a wake as (-1, 0)
  for (const auto& x : a.program)
    if (x.kind == ActionKind::kRun)
      seq.emplace_back(x.arg, x.flags);
    else if (x.kind == ActionKind::kWake)
      seq.emplace_back(-1, 0);
  const std::vector<std::pair<int64_t, uint8_t>> want = {
      {100000, 0}, {10000, kRunSyscall}, {-1, 0}, {10000, kRunSyscall}, {80000, 0}, {10000, kRunSyscall}, {290000, 0}};
  CHECK(seq == want);
  // B sleeps inside its first read: the block follows the flagged time from its enter, and the
  // time after its wakeup up to the exit is flagged too.
  std::vector<std::pair<int64_t, uint8_t>> bseq;
  for (const auto& x : b.program)
    if (x.kind == ActionKind::kRun)
      bseq.emplace_back(x.arg, x.flags);
    else if (x.kind == ActionKind::kBlock)
      bseq.emplace_back(-1, 0);
  const std::vector<std::pair<int64_t, uint8_t>> bwant = {{9000, 0},     {10000, kRunSyscall}, {-1, 0},
                                                          {10000, kRunSyscall}, {160000, 0},   {10000, kRunSyscall},
                                                          {90000, 0}};
  CHECK(bseq == bwant);
}

TEST_CASE("extract syscall_marks: a wake at its syscall's enter timestamp is issued inside the syscall", "[traces]") {
  // The traces' clock ticks in microseconds: A's write enters and wakes B in the same one. A 0 ns
  // run flagged syscall comes before the wake, so the replay issues it in the kernel (under
  // --preempt none the switch to B waits for the write's return).
  TempTrace t(sw("swapper/0", 0, 0, "1.000000", "R", "A", 10) + sw("swapper/1", 0, 1, "1.000001", "R", "B", 11) +
              sys_enter("B", 11, 1, "1.000010", "read", 3) + sw("B", 11, 1, "1.000020", "S", "swapper/1", 0) +
              sys_enter("A", 10, 0, "1.000100", "write", 4) + waking("A", 10, 0, "1.000100", "B", 11) +
              sys_exit("A", 10, 0, "1.000120", "write", "0x64") + sw("A", 10, 0, "1.000500", "S", "swapper/0", 0));
  ExtractOptions o;
  o.syscall_marks = true;
  Workload w = import_trace(t.path, o);
  std::vector<std::pair<int64_t, uint8_t>> seq;  // (run ns, flags); a wake as (-1, 0)
  for (const auto& x : task(w, "A", 10).program)
    if (x.kind == ActionKind::kRun)
      seq.emplace_back(x.arg, x.flags);
    else if (x.kind == ActionKind::kWake)
      seq.emplace_back(-1, 0);
  const std::vector<std::pair<int64_t, uint8_t>> want = {
      {100000, 0}, {0, kRunSyscall}, {-1, 0}, {20000, kRunSyscall}, {380000, 0}};
  CHECK(seq == want);
}

TEST_CASE("extract --channels: back-to-back syscalls keep a 0 ns user run between them", "[traces]") {
  // A's second write enters in the same microsecond its first one returned.
  TempTrace t(sw("swapper/0", 0, 0, "1.000000", "R", "A", 10) + sys_enter("A", 10, 0, "1.000100", "write", 4) +
              sys_exit("A", 10, 0, "1.000120", "write", "0x64") + sys_enter("A", 10, 0, "1.000120", "write", 4) +
              sys_exit("A", 10, 0, "1.000130", "write", "0x64") + sw("A", 10, 0, "1.000500", "S", "swapper/0", 0));
  ExtractOptions o;
  o.channels = TraceChannels::kPipe;
  Workload w = import_trace(t.path, o);
  const auto& p = task(w, "A", 10).program;
  // user 100 us, kernel 20 us, user 0 ns, kernel 10 us, user 370 us (no write becomes a channel:
  // nobody reads).
  std::vector<std::pair<int64_t, uint8_t>> runs;
  for (const auto& x : p)
    if (x.kind == ActionKind::kRun) runs.emplace_back(x.arg, x.flags);
  REQUIRE(runs.size() == 5);
  CHECK(runs[0] == std::make_pair(int64_t{100000}, uint8_t{0}));
  CHECK(runs[1] == std::make_pair(int64_t{20000}, uint8_t{kRunSyscall}));
  CHECK(runs[2] == std::make_pair(int64_t{0}, uint8_t{0}));
  CHECK(runs[3] == std::make_pair(int64_t{10000}, uint8_t{kRunSyscall}));
  CHECK(runs[4] == std::make_pair(int64_t{370000}, uint8_t{0}));
}

TEST_CASE("extract --channels: a group with fewer bytes written than read keeps its tokens", "[traces]") {
  // B's second read returns 0x200 bytes that no traced write produced: replaying it as a channel
  // read would wait forever.
  TempTrace t(pipe_trace("0x200"));
  ExtractOptions o;
  o.channels = TraceChannels::kPipe;
  ImportReport rep;
  Workload w = import_trace(t.path, o, &rep);
  CHECK(count(task(w, "A", 10), ActionKind::kWake) == 1);
  CHECK(count(task(w, "B", 11), ActionKind::kBlock) == 1);
  CHECK(count(task(w, "A", 10), ActionKind::kWrite) == 0);
  CHECK(count(task(w, "B", 11), ActionKind::kRead) == 0);
  CHECK(rep.channels.refused_short == 1);
  CHECK(rep.channels.channels == 0);
  CHECK(rep.conservation_ok);
}

TEST_CASE("extract --channels: forked processes share their parent's fds until it closes them", "[traces]") {
  // P (9) forks writers A1 (10) and A2 (12) and reader B (11). Only A1's write wakes B; A2's fd 4
  // is the same pipe through the fork. With `close` between the forks, A2's fd 4 is another file,
  // so B's group is short of bytes and keeps its tokens.
  auto body = [](bool close_between) {
    std::string s = sw("swapper/0", 0, 0, "1.000000", "R", "P", 9) + fork_ev("P", 9, 0, "1.000001", "A1", 10) +
                    fork_ev("P", 9, 0, "1.000002", "B", 11);
    if (close_between) s += sys_enter("P", 9, 0, "1.000003", "close", 4);
    s += fork_ev("P", 9, 0, "1.000004", "A2", 12) + sw("P", 9, 0, "1.000005", "S", "A1", 10) +
         sw("swapper/1", 0, 1, "1.000006", "R", "B", 11) + sys_enter("B", 11, 1, "1.000010", "read", 3) +
         sw("B", 11, 1, "1.000020", "S", "swapper/1", 0) + sys_enter("A1", 10, 0, "1.000100", "write", 4) +
         waking("A1", 10, 0, "1.000110", "B", 11) + sys_exit("A1", 10, 0, "1.000120", "write", "0x64") +
         sw("A1", 10, 0, "1.000125", "S", "A2", 12) + sys_enter("A2", 12, 0, "1.000130", "write", 4) +
         sys_exit("A2", 12, 0, "1.000135", "write", "0x64") + sw("swapper/1", 0, 1, "1.000140", "R", "B", 11) +
         sys_exit("B", 11, 1, "1.000150", "read", "0xc8") + sw("B", 11, 1, "1.000400", "S", "swapper/1", 0) +
         sw("A2", 12, 0, "1.000500", "S", "swapper/0", 0);
    return s;
  };
  ExtractOptions o;
  o.channels = TraceChannels::kPipe;
  TempTrace shared(body(false));
  ImportReport rep;
  Workload w = import_trace(shared.path, o, &rep);
  CHECK(rep.channels.channels == 1);
  CHECK(count(task(w, "A2", 12), ActionKind::kWrite) == 1);
  CHECK(count(task(w, "B", 11), ActionKind::kRead) == 1);
  CHECK(rep.conservation_ok);

  TempTrace closed(body(true));
  ImportReport rep2;
  Workload w2 = import_trace(closed.path, o, &rep2);
  CHECK(rep2.channels.channels == 0);
  CHECK(rep2.channels.refused_short == 1);
  CHECK(count(task(w2, "B", 11), ActionKind::kBlock) == 1);
  CHECK(rep2.conservation_ok);
}

TEST_CASE("idle wakes: latency by idle duration and state, IPI to an idle CPU, from the trace's own events",
          "[traces]") {
  // B sleeps on CPU 1 at 1.000000 (idle from then, state 1 at 1.000001). A wakes it from CPU 0
  // 100 us later and kicks CPU 1 with an IPI; CPU 1 leaves idle 3 us after the IPI and runs B
  // 6 us after the waking. A second, local wake (the waker on the idle target) is not sampled.
  TempTrace t(sw("swapper/0", 0, 0, "0.999990", "R", "A", 10) + sw("swapper/1", 0, 1, "0.999991", "R", "B", 11) +
              sw("B", 11, 1, "1.000000", "S", "swapper/1", 0) +
              ev("<idle>", 0, 1, "1.000001", "cpu_idle", "state=1 cpu_id=1") +
              waking("A", 10, 0, "1.000100", "B", 11) +
              ev("A", 10, 0, "1.000101", "ipi_send_cpu", "cpu=1 callsite=wakeup_preempt+0x92/0xa0 callback=0x0") +
              ev("<idle>", 0, 1, "1.000104", "cpu_idle", "state=4294967295 cpu_id=1") +
              sw("swapper/1", 0, 1, "1.000106", "R", "B", 11) + sw("B", 11, 1, "1.000200", "S", "swapper/1", 0) +
              waking("swapper/1", 0, 1, "1.000300", "B", 11, "dNh2.") + sw("swapper/1", 0, 1, "1.000302", "R", "B", 11) +
              sw("B", 11, 1, "1.000400", "S", "swapper/1", 0) + sw("A", 10, 0, "1.000500", "S", "swapper/0", 0));
  ImportReport rep;
  import_trace(t.path, ExtractOptions{}, &rep);
  const IdleWakeObserved& m = rep.idle_wake;
  CHECK(m.cpu_idle_events == 2);
  CHECK(m.ipi_events == 1);
  REQUIRE(m.by_idle[2].size() == 1);  // idle 50-200 us
  CHECK(m.by_idle[2][0] == 6000);
  CHECK(m.by_idle[0].empty());
  REQUIRE(m.by_state.count(1) == 1);
  CHECK(m.by_state.at(1) == std::vector<int64_t>{6000});
  REQUIRE(m.ipi_to_idle.size() == 1);
  CHECK(m.ipi_to_idle[0] == 3000);
  CHECK(m.local_wakes == 1);
  // the same samples with their idle times: the remote wake after 100 us, the local (timer) one
  // after 100 us of idle (B switched out at 1.000200, woken at 1.000300, ran at 1.000302)
  REQUIRE(m.remote.size() == 1);
  CHECK(m.remote[0].idle == 100000);
  CHECK(m.remote[0].latency == 6000);
  REQUIRE(m.local.size() == 1);
  CHECK(m.local[0].idle == 100000);
  CHECK(m.local[0].latency == 2000);
  CHECK(rep.describe().find("idle 50-200us      n=1      p50=6.0us") != std::string::npos);
  // Too few wakes to derive costs from: an error naming the trace.
  CHECK_THROWS_WITH(idle_wake_costs_json(m, "t.trace", nullptr),
                    Catch::Contains("t.trace") && Catch::Contains("1 remote wakes to an idle CPU"));
}

TEST_CASE("idle wakes: a task woken while still running is no idle wake when it later starts on an idle CPU",
          "[traces]") {
  // CPU 1 idle from 1.000000. X (15) runs on CPU 2 when A wakes it from CPU 0 at 1.000100 (it had
  // not reached __schedule(): ttwu_runnable(), no sleep). X is preempted at 1.000150 and moves to
  // CPU 1, starting there from idle at 1.000160: that is no wake that brought CPU 1 out of idle.
  TempTrace t(sw("swapper/0", 0, 0, "0.999990", "R", "A", 10) + sw("swapper/1", 0, 1, "0.999991", "R", "B", 11) +
              sw("swapper/2", 0, 2, "0.999992", "R", "X", 15) + sw("B", 11, 1, "1.000000", "S", "swapper/1", 0) +
              waking("A", 10, 0, "1.000100", "X", 15) + sw("X", 15, 2, "1.000150", "R", "swapper/2", 0) +
              sw("swapper/1", 0, 1, "1.000160", "R", "X", 15) + sw("X", 15, 1, "1.000200", "S", "swapper/1", 0) +
              sw("A", 10, 0, "1.000300", "S", "swapper/0", 0));
  ImportReport rep;
  import_trace(t.path, ExtractOptions{}, &rep);
  CHECK(rep.idle_wake.remote.empty());
  CHECK(rep.idle_wake.local.empty());
  for (const auto& bin : rep.idle_wake.by_idle) CHECK(bin.empty());
}

TEST_CASE("resched IPIs: remote preempting wakes, their IPI and reschedule_entry, from the trace's own events",
          "[traces]") {
  // A (10) runs on CPU 0 throughout; C (12) runs on CPU 1 whenever B (11) sleeps.
  // 1: A wakes B at 1.000100, sends CPU 1 an IPI at +2 us, CPU 1 enters the reschedule vector at
  //    +5 us and switches C (R+) -> B at +11 us: sampled (11 / 2 / 5 us).
  // 2: the same with no IPI recorded: counted as not sampled.
  // 3: an IPI and no reschedule_entry: sampled, without the split (8 / 1 us).
  // 4: C blocks (S) before B runs: no preemption. 5: CPU 1 switched to D after the waking, and D is
  //    preempted: not the task that ran at the waking. 6: a local preemption on CPU 0.
  auto ipi = [](const char* ts) {
    return ev("A", 10, 0, ts, "ipi_send_cpu", "cpu=1 callsite=wakeup_preempt+0x92/0xa0 callback=0x0", "d..4.");
  };
  TempTrace t(sw("swapper/0", 0, 0, "0.999990", "R", "A", 10) + sw("swapper/1", 0, 1, "0.999991", "R", "B", 11) +
              sw("B", 11, 1, "1.000000", "S", "C", 12) +
              waking("A", 10, 0, "1.000100", "B", 11) + ipi("1.000102") +
              ev("C", 12, 1, "1.000105", "reschedule_entry", "vector=253", "d.h1.") +
              ev("C", 12, 1, "1.000106", "reschedule_exit", "vector=253", "dNh1.") +
              sw("C", 12, 1, "1.000111", "R+", "B", 11) + sw("B", 11, 1, "1.000200", "S", "C", 12) +
              waking("A", 10, 0, "1.000300", "B", 11) + sw("C", 12, 1, "1.000304", "R", "B", 11) +
              sw("B", 11, 1, "1.000400", "S", "C", 12) +
              waking("A", 10, 0, "1.000500", "B", 11) + ipi("1.000501") + sw("C", 12, 1, "1.000508", "R", "B", 11) +
              sw("B", 11, 1, "1.000600", "S", "C", 12) +
              waking("A", 10, 0, "1.000700", "B", 11) + sw("C", 12, 1, "1.000705", "S", "B", 11) +
              sw("B", 11, 1, "1.000800", "S", "D", 13) + sw("D", 13, 1, "1.000850", "S", "C", 12) +
              waking("A", 10, 0, "1.000900", "B", 11) + ipi("1.000901") + sw("C", 12, 1, "1.000902", "S", "D", 13) +
              sw("D", 13, 1, "1.000905", "R", "B", 11) + sw("B", 11, 1, "1.001000", "S", "C", 12) +
              waking("A", 10, 0, "1.001100", "E", 14) + sw("A", 10, 0, "1.001103", "R", "E", 14) +
              sw("E", 14, 0, "1.001200", "S", "A", 10) + sw("A", 10, 0, "1.001300", "S", "swapper/0", 0));
  ImportReport rep;
  import_trace(t.path, ExtractOptions{}, &rep);
  const IdleWakeObserved& m = rep.idle_wake;
  CHECK(m.ipi_events == 3);
  CHECK(m.resched_entry_events == 1);
  REQUIRE(m.resched.size() == 2);
  CHECK(m.resched[0].latency == 11000);
  CHECK(m.resched[0].ipi == 2000);
  CHECK(m.resched[0].entry == 5000);
  CHECK(m.resched[1].latency == 8000);
  CHECK(m.resched[1].ipi == 1000);
  CHECK(m.resched[1].entry == -1);
  CHECK(m.resched_no_ipi == 1);
  const std::string d = rep.describe();
  CHECK(d.find("resched IPIs:  measured in the trace (1 irq_vectors:reschedule_entry events;") != std::string::npos);
  CHECK(d.find("  waking->switch-in  n=2      p10=8.0us p50=8.0us p90=11.0us\n") != std::string::npos);
  CHECK(d.find("  IPI->resched entry n=1      p10=3.0us p50=3.0us p90=3.0us\n") != std::string::npos);
  CHECK(d.find("  entry->switch-in   n=1      p10=6.0us p50=6.0us p90=6.0us\n") != std::string::npos);
  CHECK(d.find("  no resched_ipi suggested: 2 samples (fewer than 20)\n") != std::string::npos);
  CHECK(d.find("1 remote preempting wakes with no IPI from the waker's CPU to the target, 1 sampled wakes with no "
               "reschedule_entry") != std::string::npos);
}

TEST_CASE("resched IPIs: the cost file gets resched_ipi = the waking-to-switch-in p50, from 20 wakes",
          "[traces]") {
  IdleWakeObserved m;
  for (int i = 0; i < 20; ++i) m.remote.push_back({10000, 5000});
  for (int i = 0; i < 19; ++i) m.resched.push_back({10000 + (i % 3) * 1000, 2000, -1});  // p50 11000
  std::string note;
  std::string json = idle_wake_costs_json(m, "t", &note);
  CHECK(json.find("resched_ipi") == std::string::npos);
  CHECK(note.find("no resched_ipi: 19 remote preempting wakes after a recorded IPI (fewer than 20)") != std::string::npos);
  m.resched.push_back({30000, 2000, -1});
  json = idle_wake_costs_json(m, "t", &note);
  CHECK(json.find(",\n  \"resched_ipi\": 11000\n}") != std::string::npos);
  CHECK(note.find("resched_ipi (remote preempting wakes, waking to switch-in p50): 11000 ns of 20") !=
        std::string::npos);
  // too few idle wakes: a file with resched_ipi alone (the idle-wake model left as it was)
  m.remote.resize(19);
  json = idle_wake_costs_json(m, "t", &note);
  CHECK(json == "{\n  \"ipi_same_package\": 600,\n  \"resched_ipi\": 11000\n}\n");
  CHECK(note.rfind("no idle_exit_table nor timer_wake_table: 19 remote wakes to an idle CPU", 0) == 0);
  // too few of both: an error naming both counts
  m.resched.resize(19);
  CHECK_THROWS_WITH(idle_wake_costs_json(m, "t.trace", nullptr),
                    Catch::Contains("t.trace") && Catch::Contains("19 remote wakes to an idle CPU") &&
                        Catch::Contains(", 19 remote preempting wakes after a recorded IPI and 0 local timer wakes "
                                        "with a recorded switch from idle; at least 20 of one kind"));
}

TEST_CASE("idle-wake costs: a timer-driven trace gives timer_wake_local from 20 local timer wakes", "[traces]") {
  // cyclictest: its threads wake from their own CPU's hrtimer, hardly any remote idle wake.
  IdleWakeObserved m;
  for (int i = 0; i < 5; ++i) m.remote.push_back({10000, 5000});
  for (int i = 0; i < 19; ++i) m.local.push_back({300000, 4000 + (i % 3) * 1000});  // p50 5000
  CHECK_THROWS_WITH(idle_wake_costs_json(m, "t.trace", nullptr), Catch::Contains("19 local timer wakes"));
  m.local.push_back({300000, 90000});
  std::string note;
  const std::string json = idle_wake_costs_json(m, "t", &note);
  // No idle_wake mode (no idle table): the scalar every mode charges on a timer wake.
  CHECK(json == "{\n  \"ipi_same_package\": 600,\n  \"timer_wake_local\": 5000\n}\n");
  CHECK(note.find("timer_wake_local (local timer wakes, waking to switch-in p50): 5000 ns of 20") != std::string::npos);
  // With the idle table the local wakes make a timer_wake_table instead (and no scalar).
  for (int i = 0; i < 15; ++i) m.remote.push_back({10000, 5000});
  const std::string table = idle_wake_costs_json(m, "t", &note);
  CHECK(table.find("\"timer_wake_table\"") != std::string::npos);
  CHECK(table.find("timer_wake_local") == std::string::npos);
}

TEST_CASE("idle classes: cut at the candidate edges, small classes merged into their smaller neighbour",
          "[traces]") {
  using S = IdleWakeObserved::Sample;
  std::vector<S> v;
  auto add = [&](int64_t idle_us, int n, int64_t lat_ns) {
    for (int i = 0; i < n; ++i) v.push_back({idle_us * 1000, lat_ns});
  };
  add(10, 25, 5000);    // 0-20 us
  add(30, 25, 6000);    // 20-50 us
  add(120, 5, 7000);    // 100-150 us: too few
  add(170, 8, 14000);   // 150-200 us: too few
  add(300, 30, 15000);  // 200-500 us
  std::vector<std::string> merges;
  auto c = idle_classes(v, 20, &merges);
  // 100-150 (5) is the smallest: its neighbours are 20-50 (25) and 150-200 (8): into 150-200,
  // which starts the merged class at 100 us; 100-200 then has 13, merged into 20-50 (25, smaller
  // than 200-500's 30)
  REQUIRE(c.size() == 3);
  CHECK(c[0].from == 0);
  CHECK(c[0].n == 25);
  CHECK(c[0].p50 == 5000);
  CHECK(c[1].from == 20000);
  CHECK(c[1].n == 38);
  CHECK(c[1].p50 == 6000);
  CHECK(c[2].from == 200000);
  CHECK(c[2].n == 30);
  CHECK(c[2].p50 == 15000);
  REQUIRE(merges.size() == 2);
  CHECK(merges[0].find("100.0us-150.0us (n=5) merged into idle 150.0us-200.0us (n=8)") != std::string::npos);
  // a first class above 0 still covers idle 0; one class left when nothing reaches the minimum
  c = idle_classes({{300000, 1}, {400000, 3}}, 20, nullptr);
  REQUIRE(c.size() == 1);
  CHECK(c[0].from == 0);
  CHECK(c[0].n == 2);
  CHECK(idle_classes({}, 20, nullptr).empty());
}

TEST_CASE("idle wakes: the cost file is a table of p50s by idle class minus the IPI", "[traces]") {
  IdleWakeObserved m;
  for (int i = 0; i < 30; ++i) m.remote.push_back({10000, 4000 + (i % 3) * 1000});  // p50 5000
  for (int i = 0; i < 25; ++i) m.remote.push_back({300000, 14000});
  std::string note;
  std::string json = idle_wake_costs_json(m, "t", &note);
  CHECK(json.find("\"idle_wake\": \"table\"") != std::string::npos);
  CHECK(json.find("{\"idle_from\": 0, \"cost\": 4400, \"samples\": 30}") != std::string::npos);
  CHECK(json.find("{\"idle_from\": 200000, \"cost\": 13400, \"samples\": 25}") != std::string::npos);
  CHECK(json.find("timer_wake_table") == std::string::npos);
  CHECK(note.find("0 local timer wakes") != std::string::npos);
  // (the engine tests read this form back; golden trace-idle-wake-costs-pingsleep writes one)
  // 20 local timer wakes: a timer table, without an IPI taken off
  for (int i = 0; i < 20; ++i) m.local.push_back({1000000, 7000});
  json = idle_wake_costs_json(m, "t", &note);
  CHECK(json.find("\"timer_wake_table\": [\n    {\"idle_from\": 0, \"cost\": 7000, \"samples\": 20}\n  ]") !=
        std::string::npos);
  // too few long-idle wakes: merged into the short class, and the note says so
  m.remote.resize(35);
  json = idle_wake_costs_json(m, "t", &note);
  CHECK(json.find("\"idle_exit_table\": [\n    {\"idle_from\": 0, \"cost\": 4400, \"samples\": 35}\n  ]") !=
        std::string::npos);
  CHECK(note.find("(n=5) merged into") != std::string::npos);
}

TEST_CASE("extract: each run action carries the CPU it was recorded on, a migration starts a new one",
          "[traces]") {
  // A runs 100 us on CPU 0, is preempted (R) by C, resumes 50 us later on CPU 1 and runs 200 us
  // more. One merged run would hide the migration (replay_overheads=migration-delta needs it):
  // the import gives run(100us)@0 run(200us)@1.
  TempTrace t(sw("swapper/0", 0, 0, "1.000000", "R", "A", 10) + sw("A", 10, 0, "1.000100", "R", "C", 12) +
              sw("swapper/1", 0, 1, "1.000150", "R", "A", 10) + sw("A", 10, 1, "1.000350", "S", "swapper/1", 0) +
              sw("C", 12, 0, "1.000400", "S", "swapper/0", 0));
  ImportReport rep;
  Workload w = import_trace(t.path, ExtractOptions{}, &rep);
  CHECK(rep.conservation_ok);
  const TaskSpec& a = task(w, "A", 10);
  REQUIRE(a.program.size() >= 2);
  CHECK(a.program[0] == Action::run_recorded(Duration::us(100), 0));
  CHECK(a.program[1] == Action::run_recorded(Duration::us(200), 1));
  // Preempted and resumed on the same CPU: one run, as before.
  TempTrace same(sw("swapper/0", 0, 0, "1.000000", "R", "A", 10) + sw("A", 10, 0, "1.000100", "R", "C", 12) +
                 sw("C", 12, 0, "1.000150", "S", "A", 10) + sw("A", 10, 0, "1.000350", "S", "swapper/0", 0));
  Workload w2 = import_trace(same.path, ExtractOptions{}, &rep);
  REQUIRE(!task(w2, "A", 10).program.empty());
  CHECK(task(w2, "A", 10).program[0] == Action::run_recorded(Duration::us(300), 0));
}

TEST_CASE("extract --background-comm/--background-pid: load imported, observed figures unchanged", "[traces]") {
  // rec (pid 5, the recorder) forks cmd (pid 20, the selected command), which wakes rec and is
  // preempted by it; after cmd's last event rec is woken from idle and runs on.
  TempTrace t(sw("swapper/0", 0, 0, "1.000000", "R", "rec", 5) +
              ev("rec", 5, 0, "1.000010", "sched_process_fork", "comm=rec pid=5 child_comm=rec child_pid=20", ".....") +
              sw("rec", 5, 0, "1.000020", "S", "rec", 20) +
              ev("rec", 20, 0, "1.000030", "sched_process_exec", "filename=/usr/bin/cmd pid=20 old_pid=20", ".....") +
              waking("cmd", 20, 0, "1.000100", "rec", 5) + sw("cmd", 20, 0, "1.000110", "R", "rec", 5) +
              sw("rec", 5, 0, "1.000200", "S", "cmd", 20) + sw("cmd", 20, 0, "1.000300", "S", "swapper/0", 0) +
              waking("swapper/0", 0, 0, "1.000500", "rec", 5) + sw("swapper/0", 0, 0, "1.000510", "R", "rec", 5) +
              sw("rec", 5, 0, "1.000900", "S", "swapper/0", 0));
  ExtractOptions sel;
  sel.descendants_of = 20;
  ImportReport rep0;
  Workload plain = import_trace(t.path, sel, &rep0);
  REQUIRE(plain.tasks.size() == 1);
  CHECK(plain.tasks[0].start == StartState::kRunnable);  // forked by an unselected parent

  for (int by_pid = 0; by_pid < 2; ++by_pid) {
    ExtractOptions o = sel;
    if (by_pid)
      o.background_pids = {5};
    else
      o.background_comm_regex = "^rec$";  // the command too was named rec before its exec: selection wins
    ImportReport rep;
    Workload w = import_trace(t.path, o, &rep);
    REQUIRE(w.tasks.size() == 2);
    const TaskSpec& rec = task(w, "rec", 5);
    const TaskSpec& cmd = task(w, "cmd", 20);
    CHECK(rec.background);
    CHECK_FALSE(cmd.background);
    CHECK(w.background_count() == 1);
    CHECK(rep.tasks_selected == 1);
    CHECK(rep.tasks_background == 1);
    CHECK(rep.conservation_ok);
    // The fork and the wake between the two are real actions now.
    CHECK(cmd.start == StartState::kForked);
    CHECK(count(rec, ActionKind::kFork) == 1);
    CHECK(count(cmd, ActionKind::kWake) == 1);
    CHECK(count(rec, ActionKind::kBlock) == 1);
    // The selected task's work and the observed statistics are the plain import's.
    CHECK(w.total_work(/*measured_only=*/true) == plain.total_work());
    CHECK(w.observed.span == plain.observed.span);
    CHECK(w.observed.total_runtime == plain.observed.total_runtime);
    CHECK(w.observed.wakeups == plain.observed.wakeups);
    CHECK(w.observed.context_switches == plain.observed.context_switches);
    CHECK(w.observed.migrations == plain.observed.migrations);
    CHECK(w.observed.wakeup_latency.count() == plain.observed.wakeup_latency.count());
    CHECK(w.observed.runqueue_wait.count() == plain.observed.runqueue_wait.count());
    CHECK(rep.selection == rep0.selection + (by_pid ? "; background: pid 5 (1 task)"
                                                     : "; background: comm matching /^rec$/ (1 task)"));
  }
  ExtractOptions none = sel;
  none.background_comm_regex = "^nothing$";
  try {
    import_trace(t.path, none);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.message() ==
          "--background-comm '^nothing$' matched no task outside the selection [descendants of 20]: no background "
          "task to replay (the selection wins over a background option; `schedsim trace info` lists the tasks)");
  }
  // Background tasks alone: nothing would be measured.
  ExtractOptions only_bg;
  only_bg.descendants_of = 999;
  only_bg.background_pids = {5};
  CHECK_THROWS_WITH(import_trace(t.path, only_bg),
                    Catch::Contains("no tasks selected: the selection [descendants of 999] kept none of the 2 tasks "
                                    "seen in the trace, and its 1 background task alone would measure nothing"));
}

TEST_CASE("extract --background-pid: a background task starts at the measured span in the state it is in then",
          "[traces]") {
  // Background tasks B (5), C (6) and D (7) live before the selected task A (30) appears at
  // 1.000500: B sleeps 100 us (woken from idle) and runs again on CPU 1, C blocks on CPU 0, D
  // exits. From the span start, A wakes C and both run, B runs on until 1.000700.
  TempTrace t(sw("swapper/1", 0, 1, "1.000000", "R", "B", 5) + sw("swapper/0", 0, 0, "1.000000", "R", "C", 6) +
              sw("C", 6, 0, "1.000050", "S", "D", 7) + sw("B", 5, 1, "1.000100", "S", "swapper/1", 0) +
              ev("D", 7, 0, "1.000150", "sched_process_exit", "comm=D pid=7 prio=120 group_dead=true", ".....") +
              sw("D", 7, 0, "1.000150", "Z", "swapper/0", 0) +
              waking("swapper/1", 0, 1, "1.000200", "B", 5, "dNh2.", 1) +
              sw("swapper/1", 0, 1, "1.000210", "R", "B", 5) + sw("swapper/0", 0, 0, "1.000500", "R", "A", 30) +
              waking("A", 30, 0, "1.000600", "C", 6) + sw("A", 30, 0, "1.000610", "S", "C", 6) +
              sw("B", 5, 1, "1.000700", "S", "swapper/1", 0) + sw("C", 6, 0, "1.000800", "S", "swapper/0", 0));
  ExtractOptions o;
  o.pids = {30};
  o.background_pids = {5, 6, 7};
  ImportReport rep;
  Workload w = import_trace(t.path, o, &rep);
  CHECK(rep.conservation_ok);
  // D exited before the span: nothing of it is replayed.
  REQUIRE(w.tasks.size() == 3);
  // B was running on CPU 1 at the span start: it starts there, runnable, with the rest of that run.
  const TaskSpec& b = task(w, "B", 5);
  CHECK(b.background);
  CHECK(b.start == StartState::kRunnable);
  CHECK(b.start_time == Instant::from_ns(500'000));
  CHECK(b.initial_cpu == 1);
  REQUIRE(b.program.size() == 1);
  CHECK(b.program[0] == Action::run_recorded(Duration::us(200), 1));
  // C was asleep (switched out on CPU 0): its life starts blocked, released by A's wake, and its
  // first wakeup's previous CPU is CPU 0.
  const TaskSpec& c = task(w, "C", 6);
  CHECK(c.start == StartState::kBlocked);
  CHECK(c.initial_cpu == 0);
  REQUIRE(c.program.size() == 1);
  CHECK(c.program[0] == Action::run_recorded(Duration::us(190), 0));
  CHECK(count(task(w, "A", 30), ActionKind::kWake) == 1);
  // The on-CPU total keeps only the background time inside the span (B 200 us, C 190 us).
  CHECK(rep.oncpu_total == Duration::us(110 + 200 + 190));
  // The measured task's work and the observed figures are those of the import without them.
  ExtractOptions plain_o;
  plain_o.pids = {30};
  Workload plain = import_trace(t.path, plain_o);
  CHECK(w.total_work(/*measured_only=*/true) == plain.total_work());
  CHECK(w.observed.span == plain.observed.span);
  CHECK(w.observed.total_runtime == plain.observed.total_runtime);
}

TEST_CASE("extract: a task whose life starts at its wakeup starts on its previous CPU (sched_waking's target_cpu)",
          "[traces]") {
  // W wakes S (seen first at that waking) from CPU 1; sched_waking's target_cpu is S's task_cpu()
  // when try_to_wake_up() starts, the prev_cpu its placement uses: CPU 0. sched_wakeup's
  // target_cpu (1) is where it was placed, and it runs on CPU 1: a migration.
  const std::string tail = sw("W", 40, 1, "1.000030", "S", "S", 41) + sw("S", 41, 1, "1.000100", "S", "swapper/1", 0);
  TempTrace t(sw("swapper/1", 0, 1, "1.000000", "R", "W", 40) + waking("W", 40, 1, "1.000010", "S", 41) +
              waking("W", 40, 1, "1.000011", "S", 41, "d..4.", 1, "sched_wakeup") + tail);
  ImportReport rep;
  Workload w = import_trace(t.path, ExtractOptions{}, &rep);
  CHECK(rep.conservation_ok);
  const TaskSpec& s = task(w, "S", 41);
  CHECK(s.start == StartState::kBlocked);
  CHECK(s.initial_cpu == 0);
  CHECK(w.observed.migrations == 1);
  // With sched_wakeup alone, target_cpu is the placement's result, not the previous CPU: none.
  TempTrace only_wakeup(sw("swapper/1", 0, 1, "1.000000", "R", "W", 40) +
                        waking("W", 40, 1, "1.000011", "S", 41, "d..4.", 1, "sched_wakeup") + tail);
  Workload w2 = import_trace(only_wakeup.path, ExtractOptions{});
  CHECK(task(w2, "S", 41).start == StartState::kBlocked);
  CHECK(task(w2, "S", 41).initial_cpu == -1);
  CHECK(w2.observed.migrations == 0);
}
