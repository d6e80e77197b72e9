// perf bench sched pipe (models tools/perf/bench/sched-pipe.c): two
// tasks and two pipes; task 0 reads then writes, task 1 writes then reads, `loops` times. Every
// operation is two wakeups, each the other task's only wakeup source, both WF_SYNC (pipe_write
// wakes the reader with wake_up_interruptible_sync_poll).
//
// Left out: the creation of the two workers (a fork, or two pthread_create) and the join that
// ends the run, and perf's optional cgroup placement (-G).
//
// Benchmark timer: perf takes gettimeofday() after creating the two pipes and before creating
// the workers, and again after the last join (pthread_join of both threads, or waitpid of the
// forked child in the parent, which itself runs worker 1), and prints the difference as "Total
// time" and that over the loops as "usecs/op" (tools/perf/bench/sched-pipe.c, bench_sched_pipe(),
// read at torvalds/linux bb667d58af1b; a later version, seen in the Kingxukai/linux mirror at
// 0291023e7330, adds -G and -n and has both workers write first, and times the same span). The
// modelled part of that interval runs from the workers' start to the exit of pipe-1 (worker 1,
// in the parent, which exits last: it waits for pipe-0's final write). The creation the
// generator leaves out is the unmodelled rest.
#include <fmt/format.h>

#include "gen_common.hpp"

namespace schedsim::gen {

Workload gen_pipe(const std::vector<std::string>& args, bool help_only, std::string* help, const GenCosts& costs) {
  Options o("pipe", "[-l LOOPS] [-T]",
            "perf bench sched pipe: two tasks ping-pong a 4-byte token over two pipes, LOOPS round\n"
            "trips (2 wakeups each). Tasks: 2. Reports perf's \"Total time\" and usecs/op as the benchmark\n"
            "time (from the workers' start; their creation is not modelled: docs/generators.md).");
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
  append_repeated(w.tasks[a.value()].program, {Action::block(), Action::run(cost), Action::wake(b, kWakeSync)}, loops);
  w.tasks[a.value()].program.push_back(Action::exit());
  append_repeated(w.tasks[b.value()].program, {Action::run(cost), Action::wake(a, kWakeSync), Action::block()}, loops);
  w.tasks[b.value()].program.push_back(Action::exit());
  w.meta["benchmark_timer"] = std::to_string(b.value());
  w.meta["benchmark_timer_from"] = "start";
  w.meta["benchmark_ops"] = std::to_string(loops);
  return w;
}

}  // namespace schedsim::gen
