// lmbench lat_proc (models src/lat_proc.c of lmbench).
//
//   fork   parent: fork(); child: exit(1) at once; parent: waitpid()
//   exec   as fork, the child execve()s a tiny static program, which exits
//   shell  as exec, but the child is /bin/sh -c PROG: sh forks PROG, waits, exits
//
// Every child is its own task (forked exactly once), so tasks = P * (1 + N) (shell: P*(1+2N)).
// The child wakes its parent *before* exiting (the exit path's __wake_up_parent, a sync wake):
// sched_process_exit is only the start of do_exit() (docs/traces.md "Extraction"). exec is a placement point of its own (sched_exec).
// Left out: the warmup and repetition loops (-W, -N) of the timing harness; the parent's
// SIGCHLD handling.
#include <fmt/format.h>

#include "gen_common.hpp"
#include "schedsim/base/run_control.hpp"

namespace schedsim::gen {

Workload gen_fork(const std::vector<std::string>& args, bool help_only, std::string* help, const GenCosts& /*costs*/) {
  Options o("fork", "[fork|exec|shell] [-n ITERATIONS] [-P PARALLELISM]",
            "lmbench lat_proc: P parents each fork N children one after another and wait for\n"
            "each; the child exits (fork), execs a tiny program (exec), or runs it through\n"
            "/bin/sh -c (shell). Tasks: P*(1+N), shell P*(1+2N).");
  o.positional("mode", "fork (default), exec or shell")
      .value("iterations,n", "children per parent (default 1000; 1..1000000)")
      .value("parallelism,P", "parallel copies (default 1; 1..4096)")
      .value("cost-fork", "parent CPU per fork() (default 30us)")
      .value("cost-child", "child CPU from fork return to exit, exit teardown included (default 20us)")
      .value("cost-exec", "CPU of execve() plus the tiny program (default 150us)")
      .value("cost-shell", "CPU of /bin/sh start-up before it forks (default 400us)")
      .value("cost-wait", "parent CPU after waitpid() returns (default 3us)");
  if (help_only) {
    *help = o.help();
    return {};
  }
  o.parse(args);
  const std::string mode = o.choice("mode", "fork", {"fork", "exec", "shell"});
  const int64_t n = o.integer("iterations", 1000, 1, 1000000);
  const int64_t par = o.integer("parallelism", 1, 1, 4096);
  const Duration c_fork = o.duration("cost-fork", Duration::us(30), Duration::zero(), Duration::s(1));
  const Duration c_child = o.duration("cost-child", Duration::us(20), Duration::zero(), Duration::s(1));
  const Duration c_exec = o.duration("cost-exec", Duration::us(150), Duration::zero(), Duration::s(1));
  const Duration c_shell = o.duration("cost-shell", Duration::us(400), Duration::zero(), Duration::s(1));
  const Duration c_wait = o.duration("cost-wait", Duration::us(3), Duration::zero(), Duration::s(1));
  const int64_t per_iter = mode == "shell" ? 2 : 1;
  check_task_count(o, par * (1 + per_iter * n), mode == "shell" ? "-P * (1 + 2 * -n)" : "-P * (1 + -n)");
  o.seed();

  Workload w;
  w.name = fmt::format("lat_proc-{}-n{}-P{}", mode, n, par);
  int64_t pid = kFirstGenPid;
  for (int64_t p = 0; p < par; ++p) {
    poll_resources();
    TaskId parent = w.add_task(make_task(fmt::format("lat_proc{}", p), StartState::kRunnable, pid, pid));
    ++pid;
    for (int64_t i = 0; i < n; ++i) {
      TaskId child = w.add_task(make_task(fmt::format("lat_proc{}-c{}", p, i), StartState::kForked, pid, pid));
      ++pid;
      std::vector<Action>& pp = w.tasks[parent.value()].program;
      pp.push_back(Action::run(c_fork));
      pp.push_back(Action::fork(child));
      pp.push_back(Action::block());  // waitpid
      pp.push_back(Action::run(c_wait));
      std::vector<Action> cp = {Action::run(c_child)};
      if (mode == "exec") {
        cp.push_back(Action::exec());
        cp.push_back(Action::run(c_exec));
      } else if (mode == "shell") {
        TaskId grand = w.add_task(make_task(fmt::format("lat_proc{}-c{}-sh", p, i), StartState::kForked, pid, pid));
        ++pid;
        cp.push_back(Action::exec());  // /bin/sh
        cp.push_back(Action::run(c_shell));
        cp.push_back(Action::run(c_fork));
        cp.push_back(Action::fork(grand));
        cp.push_back(Action::block());  // sh waits for PROG
        w.tasks[grand.value()].program = {Action::run(c_child), Action::exec(), Action::run(c_exec),
                                    Action::wake(child, kWakeSync), Action::exit()};
      }
      cp.push_back(Action::wake(parent, kWakeSync));  // __wake_up_parent, before the exit
      cp.push_back(Action::exit());
      w.tasks[child.value()].program = std::move(cp);
    }
    w.tasks[parent.value()].program.push_back(Action::exit());
  }
  return w;
}

}  // namespace schedsim::gen
