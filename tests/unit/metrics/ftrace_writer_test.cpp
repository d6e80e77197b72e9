// FtraceWriter: exact kernel-like text for a hand-written schedule, the line grammar and event
// counts of real engine runs, windowing, comm sanitising, pid assignment; ProgressReporter's
// silence rules on a real run.
#include <cstdio>
#include <regex>
#include <sstream>

#include <catch2/catch.hpp>

#include "fixture.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/engine/engine.hpp"
#include "schedsim/metrics/ftrace_writer.hpp"
#include "schedsim/metrics/progress.hpp"
#include "schedsim/policies/registry.hpp"
#include "schedsim/workload/generators.hpp"

using namespace metrics_test;

namespace {

WakeFact fact(int64_t at, uint32_t wakee, TaskId waker, uint32_t waker_cpu, uint32_t prev_cpu, uint32_t cpu,
              WakeKind kind = WakeKind::kWakeup) {
  return wake_fact(at, wakee, waker, waker_cpu, prev_cpu, cpu, kind);
}

// Drives the same schedule into any observer: "Web Content" (pid 2711, nice 0) forks "child"
// (no pid in the workload: gets a fresh one), wakes a pipe peer, gets preempted, exits.
void drive(Observer& o, const SchedState& s) {
  o.on_start(s);
  o.on_task_start(ns(1000000), T(0), kIdle);
  o.on_enqueue(ns(1000000), T(0), C(0));
  o.on_switch(ns(1000500), C(0), kIdle, SwitchReason::kBlock, T(0));
  o.on_task_start(ns(1002000), T(1), T(0));
  o.on_wake(fact(1002000, 1, T(0), 0, 0, 1, WakeKind::kFork));
  o.on_enqueue(ns(1002100), T(1), C(1));
  o.on_switch(ns(1004100), C(1), kIdle, SwitchReason::kBlock, T(1));
  o.on_switch(ns(1005000), C(1), T(1), SwitchReason::kBlock, kIdle);
  o.on_wake(fact(1006000, 1, T(0), 0, 1, 0));
  o.on_migrate(ns(1006000), T(1), C(1), C(0), CpuDistance::kLlc);
  o.on_enqueue(ns(1006040), T(1), C(0));
  o.on_switch(ns(1006040), C(0), T(0), SwitchReason::kPreempt, T(1));
  o.on_exit(ns(1007000), T(1), C(0));
  o.on_switch(ns(1007000), C(0), T(1), SwitchReason::kExit, T(0));
  o.on_wake(fact(1500000, 0, TaskId(), 1, 0, 0));  // a timer: no waker, CPU 1 interrupted (idle)
}

// A real run of `w` on `topo` with `kernel`'s modules, observed by `obs`.
SimSummary run_real(const Workload& w, const Topology& topo, const std::string& kernel, const std::vector<Observer*>& obs,
                    ProgressReporter* progress = nullptr) {
  Simulation sim(w, topo, builtin_registry().make(kernel_profile(kernel).modules, FeatureSet{}), CostModel{},
                 SimConfig{});
  for (Observer* o : obs) sim.add_observer(o);
  if (progress) {
    sim.add_observer(progress);
    sim.set_poll([progress](Instant at, uint64_t events) { progress->poll(at, events); });
  }
  return sim.run();
}

size_t count_events(const std::string& text, const std::string& event) {
  size_t n = 0;
  for (size_t at = text.find(" " + event + ": "); at != std::string::npos; at = text.find(" " + event + ": ", at + 1))
    ++n;
  return n;
}

}  // namespace

TEST_CASE("ftrace writer produces kernel-layout text", "[metrics][ftrace]") {
  Fixture fx(machine(2), {"Web Content", "child"});
  fx.w.tasks[0].pid = 2711;
  fx.w.tasks[1].pid = -1;
  fx.w.tasks[1].nice = 5;
  FtraceWriter fw(fx.w);
  drive(fw, fx.state);
  CHECK(fw.pid_of(T(1)) == 2712);
  CHECK(fw.comm_of(T(0)) == "Web_Content");
  const char* expected =
      "# tracer: nop\n"
      "#\n"
      "# entries-in-buffer/entries-written: 12/12   #P:2\n"
      "#\n"
      "#                                _-----=> irqs-off/BH-disabled\n"
      "#                               / _----=> need-resched\n"
      "#                              | / _---=> hardirq/softirq\n"
      "#                              || / _--=> preempt-depth\n"
      "#                              ||| / _-=> migrate-disable\n"
      "#                              |||| /     delay\n"
      "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
      "#              | |         |   |||||     |         |\n"
      "          <idle>-0       [000] d..2.     0.001000500: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=Web_Content next_pid=2711 next_prio=120\n"
      "     Web_Content-2711    [000] .....     0.001002000: sched_process_fork: comm=Web_Content pid=2711 child_comm=child child_pid=2712\n"
      "     Web_Content-2711    [000] d..2.     0.001002000: sched_wakeup_new: comm=child pid=2712 prio=125 target_cpu=001\n"
      "          <idle>-0       [001] d..2.     0.001004100: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=child next_pid=2712 next_prio=125\n"
      "           child-2712    [001] d..2.     0.001005000: sched_switch: prev_comm=child prev_pid=2712 prev_prio=125 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"
      "     Web_Content-2711    [000] d..2.     0.001006000: sched_waking: comm=child pid=2712 prio=125 target_cpu=001\n"
      "     Web_Content-2711    [000] d..2.     0.001006000: sched_migrate_task: comm=child pid=2712 prio=125 orig_cpu=1 dest_cpu=0\n"
      "     Web_Content-2711    [000] d..2.     0.001006040: sched_wakeup: comm=child pid=2712 prio=125 target_cpu=000\n"
      "     Web_Content-2711    [000] d..2.     0.001006040: sched_switch: prev_comm=Web_Content prev_pid=2711 prev_prio=120 prev_state=R+ ==> next_comm=child next_pid=2712 next_prio=125\n"
      "           child-2712    [000] .....     0.001007000: sched_process_exit: comm=child pid=2712 prio=125\n"
      "           child-2712    [000] d..2.     0.001007000: sched_switch: prev_comm=child prev_pid=2712 prev_prio=125 prev_state=X ==> next_comm=Web_Content next_pid=2711 next_prio=120\n"
      "          <idle>-0       [001] d.h2.     0.001500000: sched_waking: comm=Web_Content pid=2711 prio=120 target_cpu=000\n";
  CHECK(fw.text() == expected);
}

TEST_CASE("ftrace lines match the Perfetto tokenizer and the importer's prefix grammar", "[metrics][ftrace]") {
  // Perfetto's systrace_line_tokenizer and the prefix of trace_print_context() (docs/sources.md).
  std::regex perfetto(R"(-(\d+)\s+\(?\s*(\d+|-+)?\)?\s?\[(\d+)\]\s*[a-zA-Z0-9.]{0,5}\s*(\d+\.\d+):\s+(\S+):)");
  std::regex prefix(
      R"(^\s*(.*?)-(\d+)\s+(?:\(\s*(\d+|-+)\)\s+)?\[(\d+)\]\s+(?:([.a-zA-Z0-9]{1,8})\s+)?(\d+(?:\.\d+)?):\s+([\w:.-]+):\s?(.*)$)");
  // Real runs: a messaging workload (forks, pipe wakeups, migrations between two LLCs) on two
  // kernels' stacks, with and without the tgid column.
  Topology topo = machine(4, 2, 2);
  Workload w = generate_workload_from_spec("messaging --group 2 --nr_loops 5 --pipe");
  for (const char* kernel : {"4.17", "6.12"})
    for (bool tgid : {false, true}) {
      INFO(kernel << (tgid ? " with tgid" : ""));
      FtraceOptions o;
      o.tgid_column = tgid;
      FtraceWriter fw(w, o);
      SimSummary sum = run_real(w, topo, kernel, {&fw});
      REQUIRE(sum.complete);
      const std::string text = fw.text();
      std::istringstream in(text);
      std::string line;
      size_t events = 0;
      while (std::getline(in, line)) {
        if (line.rfind('#', 0) == 0) continue;
        ++events;
        INFO(line);
        CHECK(std::regex_search(line, perfetto));
        CHECK(std::regex_match(line, prefix));
        CHECK(line.find("  ", line.find(": ") + 2) == std::string::npos);  // no spaces in payload values
      }
      CHECK(events == fw.lines());
      // One line per engine event: every wakeup, fork, migration and exit of the run.
      CHECK(count_events(text, "sched_waking") == sum.wakeups);
      CHECK(count_events(text, "sched_wakeup") == sum.wakeups);
      CHECK(count_events(text, "sched_process_fork") == sum.forks);
      CHECK(count_events(text, "sched_wakeup_new") == sum.forks);  // the main task, alive at the start, has none
      CHECK(count_events(text, "sched_migrate_task") == sum.migrations);
      CHECK(count_events(text, "sched_process_exit") == w.tasks.size());
      CHECK(events > 1000);
    }
}

TEST_CASE("ftrace window, usec timestamps and trace-window parsing", "[metrics][ftrace]") {
  Fixture fx(machine(2), {"Web Content", "child"});
  FtraceOptions o;
  parse_trace_window("1.004ms,1.0065ms", o);
  CHECK(o.window_start == ns(1004000));
  CHECK(o.window_end == ns(1006500));
  o.usec_timestamps = true;
  FtraceWriter fw(fx.w, o);
  drive(fw, fx.state);
  CHECK(fw.lines() == 6);  // the events at 1004100 .. 1006040
  CHECK(fw.text().find("[001] d..2.     0.001004: sched_switch:") != std::string::npos);

  FtraceOptions open;
  parse_trace_window("2ms,", open);
  CHECK(open.window_start == ns(2000000));
  CHECK(open.window_end == Instant::max());
  auto err = [](const std::string& text) {
    FtraceOptions x;
    try {
      parse_trace_window(text, x);
    } catch (const InputError& e) {
      return e.render();
    }
    return std::string("no error");
  };
  CHECK(err("5ms,1ms") ==
        "--trace-window: error: invalid trace window '5ms,1ms': END must be after START (expected START,END, e.g. "
        "10ms,20ms)");
  CHECK(err("abc").find("need exactly one ','") != std::string::npos);
  CHECK(err("1x,2ms").find("'1x' is not a duration") != std::string::npos);
}

TEST_CASE("long comms are truncated like TASK_COMM_LEN and pids stay unique", "[metrics][ftrace]") {
  Fixture fx(machine(1), {"a-very-long-task-name", "dup", "dup2"});
  fx.w.tasks[1].pid = 5;
  fx.w.tasks[2].pid = 5;  // duplicate: gets a fresh pid
  FtraceWriter fw(fx.w);
  CHECK(fw.comm_of(T(0)) == "a-very-long-tas");
  CHECK(fw.pid_of(T(1)) == 5);
  CHECK(fw.pid_of(T(2)) == 1001);
  CHECK(fw.pid_of(T(0)) == 100);
  FtraceOptions keep;
  keep.truncate_comm = false;
  FtraceWriter full(fx.w, keep);
  CHECK(full.comm_of(T(0)) == "a-very-long-task-name");
}

TEST_CASE("progress reporter is silent unless asked, and for short runs", "[metrics][progress]") {
  // A real run that takes well under a second, with enough events for several polls (one every
  // Simulation::kPollEvery events).
  Topology topo = machine(4, 2);
  Workload w = generate_workload_from_spec("messaging --group 1 --nr_loops 1000 --pipe");
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  {
    // Auto mode on a regular file: not a terminal, never prints; the checks still run.
    ProgressReporter p(ProgressReporter::Mode::kAuto, f);
    uint64_t polls = 0;
    p.set_poll([&polls](Instant) { ++polls; });
    CHECK_FALSE(p.enabled());
    SimSummary sum = run_real(w, topo, "6.12", {}, &p);
    CHECK(p.updates() == 0);
    CHECK(sum.events >= 3 * Simulation::kPollEvery);
    CHECK(polls == sum.events / Simulation::kPollEvery);
  }
  {
    // Forced with a one-second delay: a sub-second run prints nothing.
    ProgressReporter p(ProgressReporter::Mode::kAlways, f);
    run_real(w, topo, "6.12", {}, &p);
    CHECK(p.updates() == 0);
  }
  CHECK(std::ftell(f) == 0);
  {
    // Forced with no delay: prints updates and a final line.
    ProgressReporter p(ProgressReporter::Mode::kAlways, f, std::chrono::milliseconds(0), std::chrono::milliseconds(0));
    run_real(w, topo, "6.12", {}, &p);
    CHECK(p.updates() >= 2);
  }
  std::rewind(f);
  char buf[256] = {};
  CHECK(std::fgets(buf, sizeof buf, f) != nullptr);
  CHECK(std::string(buf).find("[schedsim] ") != std::string::npos);
  std::fclose(f);
  // With the share done known: the time left, never on the final line; every rewrite covers
  // the longer line before it.
  std::FILE* g = std::tmpfile();
  REQUIRE(g);
  {
    ProgressReporter p(ProgressReporter::Mode::kAlways, g, std::chrono::milliseconds(0), std::chrono::milliseconds(0));
    p.set_fraction([] { return 0.25; });
    run_real(w, topo, "6.12", {}, &p);
    CHECK(p.updates() >= 2);
  }
  std::rewind(g);
  std::string all;
  for (int c; (c = std::fgetc(g)) != EOF;) all += static_cast<char>(c);
  std::fclose(g);
  CHECK(all.find(", 25% of the work, about ") != std::string::npos);
  const std::string last = all.substr(all.rfind('\r'));
  CHECK(last.find("% of the work") == std::string::npos);
  CHECK(last.size() >= all.substr(all.find('\r'), all.find('\r', 1) - all.find('\r')).size());
}

TEST_CASE("ftrace writer streams whole lines and the result equals the in-memory text", "[metrics][ftrace]") {
  Fixture fx(machine(2), {"Web Content", "child"});
  FtraceWriter kept(fx.w), streamed(fx.w);
  std::string body;
  size_t chunks = 0;
  bool final_flush = false;
  streamed.stream_body([&](std::string_view c) {
    if (!final_flush) CHECK(c.size() >= FtraceWriter::kChunkBytes);  // only full chunks until flush_body()
    CHECK(c.back() == '\n');
    body += c;
    ++chunks;
  });
  for (int i = 0; i < 2000; ++i) {  // about 2.5 MB of lines
    drive(kept, fx.state);
    drive(streamed, fx.state);
  }
  CHECK(chunks >= 2);
  size_t before = body.size();
  final_flush = true;
  streamed.flush_body();
  CHECK(body.size() > before);
  CHECK(streamed.header() + body == kept.text());
}
