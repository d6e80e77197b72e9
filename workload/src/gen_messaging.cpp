// perf bench sched messaging / hackbench as an action program (models
// tools/perf/bench/sched-messaging.c and rt-tests src/hackbench/hackbench.c).
//
// Structure. A main task forks, per group, F receivers then F senders (F = --fds, 20). Every
// child writes one byte to the "ready" pipe (wake main) and polls the shared wake fd (block).
// Main collects the N ready bytes (N blocks), then writes one byte that wakes all N children at
// once (N wakes from one task: the thundering herd), then reaps them (N blocks; every child
// wakes main just before it exits, as the exit path's __wake_up_parent or the joiner's futex
// wake does).
//
// Channels as semaphores. A write to receiver r is run(write cost) + wake(r, sync): the token is
// the message. A read is block + run(read cost). So a receiver sleeps only when its channel is
// empty, and a write to a running receiver is a no-op that leaves the message queued: the
// batching of wakeups comes out of the simulation's timing, as in the kernel, instead of being
// fixed when the workload is generated.
//
// Flow control (the one simplification that is fixed at generation time). A real sender blocks
// when a receiver's buffer is full. With one semaphore per task a sender cannot wait on one
// particular channel, so capacity is modelled as credits: each sender may be W writes ahead
// (W = per-channel capacity B, since F senders share each channel, rounded to whole rounds of F
// writes), then blocks once every R writes (R = W/2 rounded to whole rounds, like the socket
// layer's "writable when half empty"). Each receiver issues a credit (wakes one sender, rotating
// (j + k) mod F) after every R reads, exactly as many as every sender consumes, so tokens balance:
//   n = ceil((F*L - W) / R) credits per receiver = blocks per sender (0 when F*L <= W).
// A sender thus waits for the group's receivers to drain, not for one channel.
//
// --channel-model pipe (docs/model.md "The pipe channel model"): each receiver's pipe or
// socket is a channel, senders `write` DATASIZE bytes to it and the receiver `read`s DATASIZE
// bytes per message. Whether a write wakes the receiver, whether a read sleeps and when a sender
// blocks on a full channel are then decided by the engine from the channel's state (the kernel's
// rules for pipes and unix stream sockets), with no credits. The start barrier, the ready pipe
// and the join stay wake/block actions.
#include <fmt/format.h>

#include "gen_common.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/run_control.hpp"

namespace schedsim::gen {

namespace {

// Declares the generator's options on `o`.
void declare_options(Options& o) {
  o.value("group,groups,g", "groups of senders and receivers (default 10; 1..100000); also --groups")
      .value("nr_loops,loops,l", "messages each sender writes to each receiver (default 100); also --loops")
      .flag("pipe,pipes,p", "use pipe() instead of socketpair() (sets the default capacity)")
      .flag("thread,threads,T", "threads instead of processes (shared tgid, futex join); also -t")
      .flag("process,P", "processes (the default)")
      .value("fds,f", "senders and receivers per group (default 20; 1..1000)")
      .value("datasize,s", "bytes per message (default 100); sets the default capacity")
      .value("capacity", "messages a channel holds (default: pipe 16*floor(4096/s), socket 212992/(s+668))")
      .value("cost-write", "CPU per write(), wakeup path included (default: the machine's, see above)")
      .value("cost-read", "CPU per read() (default: the machine's, see above)")
      .value("cost-wake", "CPU a waker spends per wakeup at known wake points (default 1us)")
      .value("cost-fork", "CPU main spends per child created (default: 30us process, 12us thread)")
      .value("cost-start", "CPU a child runs before reporting ready (default 5us)")
      .flag("no-main", "leave out the main task: children start runnable at time 0, no barrier")
      .value("channel-model", "token (default: a message is a wake token, capacity as credits) or pipe\n"
                              "(write/read actions on one channel per receiver: the kernel's pipe or\n"
                              "socket rules decide wakes and blocking; docs/model.md \"The pipe channel model\")");
}

// The parsed options and what follows from them, shared by the program builders below.
struct Params {
  int64_t groups = 0, loops = 0, datasize = 0, capacity = 0;
  bool pipe = false, thread = false, with_main = false, channels = false;
  Duration c_write, c_read, c_wake, c_fork, c_start;
  int64_t F = 0;          // senders = receivers per group
  int64_t M = 0;          // messages per sender = per receiver
  int64_t W = 0, R = 0;   // credit window and credit size (see the header comment)
  int64_t n_credits = 0;  // credits per receiver = blocks per sender
  TaskId main_id;
};

// Parses `args` and derives the sizes; the cost options record their source in `w`.
Params read_params(Options& o, Workload& w, const std::vector<std::string>& args, const GenCosts& costs) {
  // perf spells the thread flag -t, hackbench -T.
  std::vector<std::string> argv = args;
  for (auto& a : argv)
    if (a == "-t") a = "-T";
  o.parse(argv);
  if (o.flag_set("thread") && o.flag_set("process")) o.fail("--thread and --process exclude each other");
  Params m;
  m.groups = o.integer("group", 10, 1, 100000);
  m.loops = o.integer("nr_loops", 100, 1, 1000000000);
  m.pipe = o.flag_set("pipe");
  m.thread = o.flag_set("thread");
  const int64_t fds = o.integer("fds", 20, 1, 1000);
  m.datasize = o.integer("datasize", 100, 1, 1 << 20);
  const int64_t def_capacity =
      m.pipe ? 16 * std::max<int64_t>(1, 4096 / m.datasize) : std::max<int64_t>(1, 212992 / (m.datasize + 668));
  m.capacity = o.integer("capacity", def_capacity, 1, 1 << 30);
  // Per-message costs are machine properties (gen_costs.hpp): the machine's cost profile gives
  // them; the reference values were calibrated with scripts/calibrate-messaging.sh (hackbench
  // -g 10 -l 100, 2-vCPU VM, 6.18).
  const std::string mode = fmt::format("{}_{}", m.pipe ? "pipe" : "socket", m.thread ? "thread" : "process");
  const std::string write_param = "msg_write_" + mode, read_param = "msg_read_" + mode;
  m.c_write = machine_cost(o, w, "cost-write", write_param.c_str(), costs);
  m.c_read = machine_cost(o, w, "cost-read", read_param.c_str(), costs);
  m.c_wake = o.duration("cost-wake", Duration::us(1), Duration::zero(), Duration::s(1));
  m.c_fork = o.duration("cost-fork", Duration::us(m.thread ? 12 : 30), Duration::zero(), Duration::s(1));
  m.c_start = o.duration("cost-start", Duration::us(5), Duration::zero(), Duration::s(1));
  m.with_main = !o.flag_set("no-main");
  m.channels = o.choice("channel-model", "token", {"token", "pipe"}) == "pipe";
  if (m.channels && o.has("capacity"))
    o.fail("--capacity sets the token model's credits; with --channel-model pipe the channel's own capacity applies "
           "(a pipe: 16 pages; a socket: the 212992-byte send buffer)");
  o.seed();  // accepted for uniformity; this generator draws no random numbers

  m.F = fds;
  m.M = m.F * m.loops;
  // Main's pid is kept with --no-main. The bound also keeps --channel-model pipe's one channel per
  // receiver (--group * --fds, at most 2,096,652) within kMaxChannel.
  check_task_count(o, m.groups * 2 * m.F + 1, "--group * 2 * --fds + 1");
  static_assert((kMaxWorkloadPid - kFirstGenPid) / 2 <= kMaxChannel + 1);
  // Window W and credit size R in whole rounds of F writes (see the header comment).
  m.W = std::max<int64_t>(1, m.capacity / m.F) * m.F;
  m.R = std::max<int64_t>(1, m.W / m.F / 2) * m.F;
  m.n_credits = m.M > m.W ? (m.M - m.W + m.R - 1) / m.R : 0;
  return m;
}

// The workload's name and meta data, and its tasks (main, then per group F receivers and F
// senders) with empty programs; sets m.main_id.
void add_tasks(Workload& w, Params& m) {
  const int64_t F = m.F;
  w.name = fmt::format("messaging-g{}-l{}-{}-{}", m.groups, m.loops, m.pipe ? "pipe" : "socket",
                       m.thread ? "thread" : "process");
  w.meta["messages"] = std::to_string(m.groups * F * F * m.loops);
  w.meta["capacity"] = std::to_string(m.capacity);
  if (m.channels) {
    w.meta["channel_model"] = m.pipe ? "pipe" : "pipe (socket rules)";
  } else {
    w.meta["credit_window"] = std::to_string(m.W);
    w.meta["credit_size"] = std::to_string(m.R);
  }
  // hackbench and perf bench messaging time from just before main's write that releases the start
  // barrier to the last join: the metrics take main's first wake to its exit (results
  // "benchmark_time_ns").
  if (m.with_main) w.meta["benchmark_timer"] = "0";
  const int64_t main_pid = kFirstGenPid;
  if (m.with_main) m.main_id = w.add_task(make_task("msg-main", StartState::kRunnable, main_pid, main_pid));
  const StartState child_start = m.with_main ? StartState::kForked : StartState::kRunnable;
  for (int64_t g = 0; g < m.groups; ++g, poll_resources())
    for (int side = 0; side < 2; ++side)
      for (int64_t j = 0; j < F; ++j) {
        int64_t pid = main_pid + 1 + g * 2 * F + side * F + j;
        w.add_task(make_task(fmt::format("msg-g{}-{}{}", g, side ? "send" : "recv", j), child_start, pid,
                             m.thread ? main_pid : pid));
      }
}

// Receiver j (or sender j) of group g.
TaskId child(const Params& m, int64_t g, bool sender, int64_t j) {
  int64_t idx = (m.with_main ? 1 : 0) + g * 2 * m.F + (sender ? m.F : 0) + j;
  return TaskId(static_cast<uint32_t>(idx));
}

// A child's start: report ready to main, then wait for the start barrier.
void prologue(const Params& m, std::vector<Action>& p) {
  if (!m.with_main) return;
  p.push_back(Action::run(m.c_start));
  p.push_back(Action::wake(m.main_id));  // write(ready)
  p.push_back(Action::block());          // poll(wakefd)
}

void epilogue(const Params& m, std::vector<Action>& p) {
  const uint8_t exit_flags = m.thread ? 0 : kWakeSync;  // __wake_up_parent is a sync wake; futex is not
  if (m.with_main) p.push_back(Action::wake(m.main_id, exit_flags));
  p.push_back(Action::exit());
}

// Group g's programs under --channel-model pipe: reads and writes on one channel per receiver.
void add_channel_group(Workload& w, const Params& m, int64_t g) {
  const int64_t F = m.F;
  const uint8_t kind = m.pipe ? 0 : kChanSocket;
  const auto bytes = static_cast<uint32_t>(m.datasize);
  auto chan = [&](int64_t j) { return g * F + j; };
  for (int64_t j = 0; j < F; ++j) {
    std::vector<Action>& p = w.tasks[child(m, g, false, j).value()].program;
    prologue(m, p);
    append_repeated(p, {Action::read(chan(j), bytes, kind), Action::run(m.c_read)}, m.M);
    epilogue(m, p);
  }
  std::vector<Action> round;
  for (int64_t r = 0; r < F; ++r) {
    round.push_back(Action::run(m.c_write));
    round.push_back(Action::write(chan(r), bytes, kind));
  }
  for (int64_t s = 0; s < F; ++s) {
    std::vector<Action>& p = w.tasks[child(m, g, true, s).value()].program;
    prologue(m, p);
    append_repeated(p, round, m.loops);
    epilogue(m, p);
  }
}

// Group g's receivers under the token model: units of R reads followed by one credit, F units
// per rotation period.
void add_token_receivers(Workload& w, const Params& m, int64_t g) {
  const int64_t F = m.F, R = m.R, n_credits = m.n_credits;
  for (int64_t j = 0; j < F; ++j) {
    std::vector<Action>& p = w.tasks[child(m, g, false, j).value()].program;
    prologue(m, p);
    auto reads = [&](std::vector<Action>& body, int64_t count) {
      append_repeated(body, {Action::block(), Action::run(m.c_read)}, count);
    };
    const int64_t periods = n_credits / F, rest = n_credits % F;
    std::vector<Action> period;
    for (int64_t k = 0; k < std::min(F, n_credits); ++k) {
      reads(period, R);
      period.push_back(Action::wake(child(m, g, true, (j + k) % F), kWakeSync));
      period.push_back(Action::run(m.c_wake));
    }
    if (periods > 0) {
      append_repeated(p, period, periods);
    }
    // The first `rest` units of another period, then the reads that earn no credit.
    for (int64_t k = 0; k < rest; ++k) {
      reads(p, R);
      p.push_back(Action::wake(child(m, g, true, (j + periods * F + k) % F), kWakeSync));
      p.push_back(Action::run(m.c_wake));
    }
    reads(p, m.M - n_credits * R);
    epilogue(m, p);
  }
}

// Group g's senders under the token model: rounds of F writes (one to every receiver), W writes
// ahead, then a credit block before every R writes.
void add_token_senders(Workload& w, const Params& m, int64_t g) {
  const int64_t F = m.F, M = m.M, W = m.W, R = m.R, n_credits = m.n_credits;
  std::vector<Action> round;
  for (int64_t r = 0; r < F; ++r) {
    round.push_back(Action::run(m.c_write));
    round.push_back(Action::wake(child(m, g, false, r), kWakeSync));
  }
  for (int64_t s = 0; s < F; ++s) {
    std::vector<Action>& p = w.tasks[child(m, g, true, s).value()].program;
    prologue(m, p);
    append_repeated(p, round, std::min(M, W) / F);
    if (n_credits > 0) {
      std::vector<Action> unit = {Action::block()};
      append_repeated(unit, round, R / F);
      append_repeated(p, unit, n_credits - 1);
      const int64_t last = M - W - (n_credits - 1) * R;  // writes after the last credit, 1..R
      p.push_back(Action::block());
      append_repeated(p, round, last / F);
    }
    epilogue(m, p);
  }
}

// Main: fork every child, collect their ready bytes, release the barrier, reap them.
void add_main_program(Workload& w, const Params& m) {
  std::vector<Action>& p = w.tasks[m.main_id.value()].program;
  const int64_t n = m.groups * 2 * m.F;
  for (int64_t i = 0; i < n; ++i) {
    p.push_back(Action::run(m.c_fork));
    p.push_back(Action::fork(TaskId(static_cast<uint32_t>(1 + i))));
  }
  append_repeated(p, {Action::block()}, n);  // read N ready bytes
  p.push_back(Action::run(m.c_write));       // the one write to the wake fd ...
  for (int64_t i = 0; i < n; ++i) {          // ... wakes every poller
    p.push_back(Action::wake(TaskId(static_cast<uint32_t>(1 + i)), kWakeSync));
    p.push_back(Action::run(m.c_wake));
  }
  append_repeated(p, {Action::block()}, n);  // reap
  p.push_back(Action::exit());
}

}  // namespace

Workload gen_messaging(const std::vector<std::string>& args, bool help_only, std::string* help, const GenCosts& costs) {
  Options o("messaging", "[-g GROUPS] [-l LOOPS] [-p] [-T] [-f FDS] [-s BYTES]",
            "perf bench sched messaging / hackbench: per group, F senders each write LOOPS messages\n"
            "to each of F receivers; a start barrier wakes every task at once. Tasks: 1 main +\n"
            "2*F per group. Write/read costs per message are machine properties: `run -t MACHINE\n"
            "--workload-gen` takes them from the machine's cost profile (msg_write_pipe_thread ...,\n"
            "`run --cost list`); the reference values, calibrated on a 2-vCPU VM (docs/generators.md,\n"
            "scripts/calibrate-messaging.sh), are pipe+thread 598/550 ns, pipe+process 370/397 ns,\n"
            "socket+thread 1134/1180 ns, socket+process 1172/1245 ns.");
  declare_options(o);
  if (help_only) {
    *help = o.help();
    return {};
  }
  Workload w;
  Params m = read_params(o, w, args, costs);
  add_tasks(w, m);
  for (int64_t g = 0; g < m.groups; ++g) {
    poll_resources();
    if (m.channels) {
      add_channel_group(w, m, g);
    } else {
      add_token_receivers(w, m, g);
      add_token_senders(w, m, g);
    }
  }
  if (m.with_main) add_main_program(w, m);
  return w;
}

}  // namespace schedsim::gen
