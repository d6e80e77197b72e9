// perf bench sched pipe (models tools/perf/bench/sched-pipe.c): two
// tasks and two pipes; task 0 reads then writes, task 1 writes then reads, `loops` times. Every
// operation is two wakeups, each the other task's only wakeup source, both WF_SYNC (pipe_write
// wakes the reader with wake_up_interruptible_sync_poll).
//
// Left out: the parent that forks/creates the two workers and waits for them (it sleeps for the
// whole run), and perf's optional cgroup placement (-G).
#include <fmt/format.h>

#include "gen_common.hpp"

namespace schedsim::gen {

Workload gen_pipe(const std::vector<std::string>& args, bool help_only, std::string* help, const GenCosts& costs) {
  Options o("pipe", "[-l LOOPS] [-T]",
            "perf bench sched pipe: two tasks ping-pong a 4-byte token over two pipes, LOOPS round\n"
            "trips (2 wakeups each). Tasks: 2.");
  o.value("loops,nr_loops,l", "round trips (default 1000000; 1..10^12)")
      .flag("threaded,thread,T", "threads of one process instead of two processes")
      .value("cost-op", "CPU per half round trip: one read() plus one write() (default: the machine's pipe_op, reference 2us)");
  if (help_only) {
    *help = o.help();
    return {};
  }
  o.parse(args);
  const int64_t loops = o.integer("loops", 1000000, 1, 1000000000000);
  const bool threaded = o.flag_set("threaded");
  Workload w;
  const Duration cost = machine_cost(o, w, "cost-op", "pipe_op", costs);
  o.seed();

  w.name = fmt::format("pipe-l{}-{}", loops, threaded ? "thread" : "process");
  TaskId a = w.add_task(make_task("pipe-0", StartState::kRunnable, 1000, 1000));
  TaskId b = w.add_task(make_task("pipe-1", StartState::kRunnable, 1001, threaded ? 1000 : 1001));
  append_repeated(w.tasks[a.v].program, {Action::block(), Action::run(cost), Action::wake(b, kWakeSync)}, loops);
  w.tasks[a.v].program.push_back(Action::exit());
  append_repeated(w.tasks[b.v].program, {Action::run(cost), Action::wake(a, kWakeSync), Action::block()}, loops);
  w.tasks[b.v].program.push_back(Action::exit());
  return w;
}

}  // namespace schedsim::gen
