// Request/response pairs over loopback: netperf TCP_RR (and UDP_RR) with N concurrent
// instances, and the request/response core of tbench. Each pair is a client and a server task;
// per transaction the client sends a request and blocks in recv(), the server (blocked in
// recv()) is woken, handles it, sends the response and blocks again:
//
//   client: L x { run(op), wake(server, sync), block }      then wake(main), exit
//   server: L x { block, run(op + server), wake(client, sync) }, exit
//
// Both wakes are WF_SYNC: a loopback send runs the receiver's protocol processing inline (the
// softirq is run at local_bh_enable on the sending CPU) and tcp_data_ready() / sock_def_readable()
// wake the reader with wake_up_interruptible_sync_poll(), as a pipe write does. So a transaction
// is two sync wakeups, each the other task's only wakeup source: perf bench sched pipe's pattern
// with a loopback socket's per-operation cost (`rr_op`, one recv() plus one send() of a small
// message, the receiver's softirq included) and N pairs at once.
//
// netperf runs for a fixed time (-l) and reports transactions per second; the generator runs a
// fixed number of transactions per pair and reports them over the time the last pair needs: a
// main task blocks until every client has finished (its benchmark timer runs from its start),
// and `benchmark_ops` = N x L, so throughput = ops / benchmark time.
//
// Left out: the data copy of larger messages (-r 1,1 is the netperf default), Nagle/delayed ACKs
// (TCP_NODELAY-like: the response carries the ACK), the netserver fork per connection, and
// tbench's file-system work on the server (--cost-server adds CPU per request for it).
#include <fmt/format.h>

#include "gen_common.hpp"
#include "schedsim/base/run_control.hpp"

namespace schedsim::gen {

Workload gen_rr(const std::vector<std::string>& args, bool help_only, std::string* help, const GenCosts& costs) {
  Options o("rr", "[-n PAIRS] [-l LOOPS] [--cost-op D] [--cost-server D]",
            "netperf TCP_RR / tbench style request/response pairs over loopback: PAIRS clients each\n"
            "send a request to their own server and wait for the response, LOOPS transactions each\n"
            "(2 sync wakeups per transaction). Tasks: 1 + 2*PAIRS. Reports transactions per second\n"
            "(benchmark ops over the benchmark time) and usecs per transaction.");
  o.value("pairs,clients,n", "client/server pairs, like netperf instances or tbench clients (default 1; 1..100000)")
      .value("loops,nr_loops,l", "transactions per pair (default 10000; 1..10^12)")
      .value("cost-op", "CPU per half transaction: one recv() plus one send() over loopback (default: the machine's rr_op)")
      .value("cost-server", "extra server CPU per request (default 0; tbench's file-system work)");
  if (help_only) {
    *help = o.help();
    return {};
  }
  o.parse(args);
  const int64_t pairs = o.integer("pairs", 1, 1, 100000);
  const int64_t loops = o.integer("loops", 10000, 1, 1000000000000);
  check_task_count(o, 1 + 2 * pairs, "1 + 2 * --pairs");
  Workload w;
  const Duration op = machine_cost(o, w, "cost-op", "rr_op", costs);
  const Duration server = o.duration("cost-server", Duration::ns(0), Duration::ns(0), Duration::s(1));
  o.seed();

  w.name = fmt::format("rr-n{}-l{}", pairs, loops);
  const TaskId main_id = w.add_task(make_task("rr-main", StartState::kRunnable, kFirstGenPid, kFirstGenPid));
  for (int64_t i = 0; i < pairs; ++i) {
    poll_resources();
    const int64_t pid = kFirstGenPid + 1 + 2 * i;
    const TaskId c = w.add_task(make_task(fmt::format("rr-client{}", i), StartState::kRunnable, pid, pid));
    const TaskId s = w.add_task(make_task(fmt::format("rr-server{}", i), StartState::kRunnable, pid + 1, pid + 1));
    auto& cp = w.tasks[c.value()].program;
    append_repeated(cp, {Action::run(op), Action::wake(s, kWakeSync), Action::block()}, loops);
    cp.push_back(Action::wake(main_id));
    cp.push_back(Action::exit());
    auto& sp = w.tasks[s.value()].program;
    append_repeated(sp, {Action::block(), Action::run(op + server), Action::wake(c, kWakeSync)}, loops);
    sp.push_back(Action::exit());
  }
  auto& mp = w.tasks[main_id.value()].program;
  append_repeated(mp, {Action::block()}, pairs);
  mp.push_back(Action::exit());
  w.meta["benchmark_timer"] = std::to_string(main_id.value());
  w.meta["benchmark_timer_from"] = "start";
  w.meta["benchmark_ops"] = std::to_string(pairs * loops);
  return w;
}

}  // namespace schedsim::gen
