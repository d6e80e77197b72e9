// schbench (models masoncl/schbench schbench.c; --old the 2016-2021
// version, commit 8d075b3).
//
// New schbench, per worker request: post to the message thread (wake it), wait to be woken
// (block), usleep(-s) (sleep), then the matrix work (run). The message thread wakes every queued
// worker in one pass and sleeps until the next post. Old schbench: the worker spins -c (run) and
// posts; the message thread wakes everyone, then usleep(s + rand() % (s/4)) (seeded here).
//
// Simplification: a static program cannot know which workers are queued when the message thread
// runs, so the message thread works in rounds: it collects one post from each of its T workers
// (T blocks; the first sleeps, later ones often find a token pending) and then wakes all T in one
// pass. This keeps the 1->T wake storm that makes schbench interesting and balances tokens
// exactly, but synchronises workers more tightly than the real program once they drift apart.
// Requests per worker come from the runtime: ceil(-r / (sleep + work)) (the uncontended rate);
// --requests overrides. Wakeup latency in schbench is measured from the message thread's
// timestamp taken before the pass; the workload records that in meta "latency_origin".
//
// Left out: warmup (-w), the per-CPU lock (-L), pipe mode (-p), RPS modes (-R/-A), pinning.
#include <cmath>

#include <fmt/format.h>

#include "gen_common.hpp"
#include "schedsim/base/run_control.hpp"

namespace schedsim::gen {

Workload gen_schbench(const std::vector<std::string>& args, bool help_only, std::string* help, const GenCosts& /*costs*/) {
  Options o("schbench", "[-m THREADS] [-t WORKERS] [-r SECONDS] [-F KB] [-n OPS] [-s USEC] [--old]",
            "schbench: M message threads, each with T workers; per request a worker wakes its\n"
            "message thread, waits to be woken, sleeps, then works. Tasks: M*(1+T).\n"
            "--old: the 2016 version (defaults m=2 t=16, 30 ms spin, 30 ms + rand sleep).");
  o.value("message-threads,m", "message threads (default 1; --old 2)")
      .value("threads,t", "workers per message thread (default 16; the real default is ceil(CPUs/m))")
      .value("runtime,r", "run time in seconds (default 30)")
      .value("sleep,s", "new: usleep per request in us (default 100); old: message thread sleep (default 30000)")
      .value("footprint,F", "new: cache footprint in KB (default 256), sets the matrix size")
      .value("operations,n", "new: matrix multiplies per request (default 5)")
      .value("cputime,c", "old: worker spin per request in us (default 30000)")
      .value("madd-cost", "new: CPU per multiply-add of the matrix work (default 1ns)")
      .value("work", "new: CPU per request, overriding the -F/-n formula (e.g. 3ms)")
      .value("requests", "requests per worker, overriding the runtime estimate")
      .flag("old", "the 2016-2021 schbench (spin, then post; message thread sleeps between passes)");
  if (help_only) {
    *help = o.help();
    return {};
  }
  o.parse(args);
  const bool old = o.flag_set("old");
  const int64_t m = o.integer("message-threads", old ? 2 : 1, 1, 4096);
  const int64_t t = o.integer("threads", 16, 1, 65536);
  const int64_t runtime_s = o.integer("runtime", 30, 1, 86400);
  const int64_t sleep_us = o.integer("sleep", old ? 30000 : 100, 0, 100000000);
  Duration work;
  if (old) {
    for (const char* n : {"footprint", "operations", "madd-cost", "work"})
      if (o.has(n)) o.fail(fmt::format("--{} applies to the new schbench only, not with --old", n));
    work = Duration::us(o.integer("cputime", 30000, 0, 100000000));
  } else {
    if (o.has("cputime")) o.fail("--cputime applies to --old only; use -F/-n or --work");
    const int64_t footprint_kb = o.integer("footprint", 256, 1, 1 << 24);
    const int64_t ops = o.integer("operations", 5, 0, 1000000);
    const Duration madd = o.duration("madd-cost", Duration::ns(1), Duration::zero(), Duration::us(1));
    // Three square matrices of unsigned long fill the footprint: 3 * 8 * N^2 bytes.
    auto n = static_cast<int64_t>(std::sqrt(static_cast<double>(footprint_kb) * 1024.0 / 24.0));
    Duration formula = Duration::ns(ops * n * n * n * madd.count());
    work = o.duration("work", formula, Duration::zero(), Duration::s(100));
  }
  const Duration sleep = Duration::us(sleep_us);
  const Duration cycle = work + (old ? sleep + sleep / 8 : sleep);
  const int64_t est = cycle.count() > 0 ? (Duration::s(runtime_s).count() + cycle.count() - 1) / cycle.count() : 1;
  const int64_t requests = o.integer("requests", std::max<int64_t>(1, est), 1, 1000000000);
  check_task_count(o, m * (1 + t), "-m * (1 + -t)");
  Rng rng(o.seed());

  Workload w;
  w.name = fmt::format("schbench{}-m{}-t{}", old ? "-old" : "", m, t);
  w.meta["latency_origin"] = "message thread timestamp before its wake-all pass";
  w.meta["requests_per_worker"] = std::to_string(requests);
  w.meta["work_per_request_ns"] = std::to_string(work.count());
  const int64_t pid0 = kFirstGenPid;
  for (int64_t i = 0; i < m; ++i) {
    poll_resources();
    TaskId msg = w.add_task(make_task(fmt::format("schbench-msg{}", i), StartState::kRunnable, pid0 + i * (1 + t), pid0));
    std::vector<TaskId> workers;
    for (int64_t k = 0; k < t; ++k)
      workers.push_back(w.add_task(
          make_task(fmt::format("schbench-w{}-{}", i, k), StartState::kRunnable, pid0 + i * (1 + t) + 1 + k, pid0)));
    std::vector<Action> pass;
    append_repeated(pass, {Action::block()}, t);  // one post from each worker
    for (TaskId wk : workers) pass.push_back(Action::wake(wk));
    std::vector<Action>& mp = w.tasks[msg.value()].program;
    if (old) {
      // usleep(sleeptime + rand() % (sleeptime / 4)) after every pass: drawn per round.
      for (int64_t r = 0; r < requests; ++r) {
        mp.insert(mp.end(), pass.begin(), pass.end());
        int64_t extra = sleep_us / 4 > 0 ? static_cast<int64_t>(rng.below(static_cast<uint64_t>(sleep_us / 4))) : 0;
        mp.push_back(Action::sleep(Duration::us(sleep_us + extra)));
      }
    } else {
      append_repeated(mp, pass, requests);
    }
    mp.push_back(Action::exit());
    for (TaskId wk : workers) {
      std::vector<Action>& p = w.tasks[wk.value()].program;
      if (old)
        append_repeated(p, {Action::wake(msg), Action::block(), Action::run(work)}, requests);
      else
        append_repeated(p, {Action::wake(msg), Action::block(), Action::sleep(sleep), Action::run(work)}, requests);
      p.push_back(Action::exit());
    }
  }
  return w;
}

}  // namespace schedsim::gen
