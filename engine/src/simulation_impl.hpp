#pragma once
// Simulation::Impl, the engine's state and its three parts (private to engine/src):
//
//   engine.cpp       the core.c model and the event loop: events, wakeups (try_to_wake_up,
//                    select_task_rq via the placement slot, ttwu_queue), enqueue/dequeue,
//                    __schedule(), the tick, idle bookkeeping, the end-of-run checks
//   interpreter.cpp  the task-program interpreter: executes a running task's actions (run, wake,
//                    block, sleep, fork, exec, exit, channel read/write) until it needs CPU time
//                    or leaves the CPU (per-task state: interpreter.hpp)
//   work.cpp         the exact work/rate accountant applied to CPUs: a CPU's running task's
//                    progress at its rate (SMT co-run), its completion event (arithmetic: work.hpp)
//
// One struct, because the three share the scheduler state and call each other on every event
// (the interpreter wakes and blocks tasks; the core starts the interpreter when a task runs; both
// account progress); the split is by concept, one file each.
#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/base/random.hpp"
#include "schedsim/engine/engine.hpp"
#include "channel.hpp"
#include "event_queue.hpp"
#include "interpreter.hpp"
#include "work.hpp"

namespace schedsim {

struct Simulation::Impl : BalanceOps {
  using i128 = detail::i128;
  using Ev = detail::Ev;
  using Event = detail::Event;
  using Prog = detail::Prog;

  struct CpuRun {
    detail::CpuRate acct;   // progress of curr accounted up to acct.seg_start, at acct.rate
    uint64_t done_gen = 0;
    uint64_t tick_gen = 0;
    bool tick_armed = false;
    bool need_resched = false;
    // SimConfig::preempt: a preemption of curr was asked for while it could not take effect (curr
    // inside a syscall, or lazy): TIF_NEED_RESCHED(_LAZY) set, acted on at curr's return to user
    // space (interpreter) or, lazy, at the next tick; cleared by schedule().
    bool resched_deferred = false;
    // CostModel::resched_ipi: another CPU's wakeup asked to preempt curr and its reschedule IPI
    // is on the way (event kReschedIpi with generation ipi_gen); cleared by schedule(), which
    // is what TIF_NEED_RESCHED being consumed before the IPI lands amounts to.
    bool resched_ipi_pending = false;
    uint64_t ipi_gen = 0;
    // curr's run time not yet given to the scheduler (sum_exec, the queue's update_curr()):
    // accounted at a syscall boundary, where the kernel makes no scheduler call (on_run_done()),
    // and under SimConfig::update_curr = kEvents at every run end and SMT rate change; charged
    // at the CPU's next scheduler event (a non-quiet update_progress()).
    Duration unreported;
    bool was_idle = true;   // last idle() value seen, for exact idle-core accounting
    bool busy = false;      // curr valid, as last propagated to siblings and observers
    SwitchReason leave_reason = SwitchReason::kPreempt;  // why curr is leaving (set before resched)
  };

  const Workload& w;
  const Topology& topo;
  PolicyStack pol;
  CostModel cost;
  SimConfig cfg;
  SchedState s;
  std::vector<Observer*> obs;
  std::function<void(Instant, uint64_t)> poll;  // Simulation::set_poll()
  std::vector<Prog> prog;
  ChannelTable chans;  // pipes and sockets of write/read actions (channel.hpp)
  std::vector<CpuRun> run;
  detail::EventQueue q;
  std::vector<uint32_t> resched_list;
  std::vector<uint32_t> resched_work;  // drain_resched()'s batch being processed
  uint64_t seq = 0;
  SimSummary sum;
  SplitMix64 rng;  // the portable seeded generator (base/random.hpp): byte-identical jitter
  i128 work_done_scaled = 0;
  i128 work_expected_scaled = 0;
  // Background tasks (TaskSpec::background): their share of the two totals above (the summary
  // reports the measured tasks' work only), how many there are, and how many measured tasks
  // have not exited yet: with background tasks present the run ends when that reaches zero
  // (cut_background), whatever the background tasks are doing.
  i128 bg_work_done_scaled = 0;
  i128 bg_work_expected_scaled = 0;
  uint32_t nr_background = 0;
  uint32_t fg_live = 0;
  bool cut_background = false;
  // checked_after(): the message of the earliest event past cfg.max_time planned for a run with
  // background tasks, and its time; an InputError when the loop reaches past the limit.
  std::string past_limit;
  i128 past_limit_at = 0;
  std::shared_ptr<spdlog::logger> log = log::get("engine");

  // The segment advance (segment.cpp): a CPU whose running task goes from run to run through
  // steps that only pass blocks with banked wakes or bank wakes for running or queued tasks goes
  // through those completions without events. At most this many completions a stretch (more are
  // rarely reached before something ends it).
  static constexpr size_t kMaxStretch = 16;
  // A stretch that walks the program plans fewer: an enqueue on the CPU or a wakee's block ends
  // a third of them early, and each planned completion costs a walk step and a tie entry.
  static constexpr size_t kMaxWalk = 8;
  static constexpr size_t kMaxBanks = 2 * kMaxWalk;  // wakes banked in one stretch
  static constexpr size_t kMaxChanOps = 2 * kMaxWalk;  // channel reads and writes in one stretch
  static constexpr int kMaxLocal = 8;                    // actions between two folded runs
  struct Stretch {
    bool on = false;
    uint32_t task = 0;
    // The runs after the first are the rest of a loop of (block, run of run_ns): folded at once.
    bool row = false;
    int64_t run_ns = 0;
    // The completion times (ns) of the run in progress and of the runs after it, `count` of
    // them; all but the last are folded, the last is the CPU's pending kRunDone.
    std::array<int64_t, kMaxStretch> ends{};
    uint32_t count = 0;
    // The completions applied so far (catch_up(): a wakee's block needed the banks before now).
    uint32_t done = 0;
    // The wakes its folded steps bank: after completion `after`, a token for `task`.
    struct Bank {
      uint32_t after;
      uint32_t task;
    };
    std::array<Bank, kMaxBanks> banks{};
    uint32_t nbanks = 0;
    // The channel reads and writes its folded steps make: after completion `after`, action `a`
    // (each queued on its channel until applied, ChannelTable::fold_add()).
    struct ChanOp {
      uint32_t after;
      const Action* a;
    };
    std::array<ChanOp, kMaxChanOps> chops{};
    uint32_t nchops = 0;
    const int64_t* begin() const { return ends.data(); }
    const int64_t* end() const { return ends.data() + count; }
    int64_t last() const { return ends[count - 1]; }
  };
  struct Walk {  // next_action()'s state, for looking ahead without moving the task's own
    const Action* code = nullptr;
    size_t code_size = 0;
    size_t pc = 0;
    std::vector<LoopFrame> loops;
  };
  static constexpr uint32_t kTieBits = 14;
  bool segment = false;                          // SCHEDSIM_ENGINE_SEGMENT and the run allow it
  bool seg_channels = false;                     // SCHEDSIM_ENGINE_SEGMENT=channels: channel operations too
  std::vector<Stretch> stretch;                  // per CPU
  std::vector<uint32_t> stretch_cpus;            // the CPUs with one on
  std::vector<uint32_t> stretch_pos;             // per CPU: its index in stretch_cpus while on
  // Folded completion times by tie_slot(): how many, and the XOR of their CPUs + 1 (which names
  // the CPU when there is one; CpuMask::kMaxCpus fits 16 bits).
  struct TieSlot {
    uint16_t count = 0;
    uint16_t cpus = 0;
  };
  std::vector<TieSlot> tie_count;
  bool ticking = false;                          // the event being handled is a tick (or the run's end)
  std::vector<std::vector<uint64_t>> phantom;    // per CPU: generations of stale stretch ends
  uint64_t nr_phantoms = 0;
  uint64_t seg_stretches = 0, seg_folded = 0, seg_banked = 0, seg_chanops = 0;  // for the end-of-run info line
  // Per task: the CPUs whose stretch banks a wake for it (the wakee's block and exit look).
  std::vector<std::vector<uint32_t>> bank_cpus;
  Walk walk;

  Impl(const Workload& wl, const Topology& t, PolicyStack p, CostModel c, SimConfig cf);

  // ---- event queue (engine.cpp) ----
  void push(Instant at, Ev type, uint32_t a, uint32_t b = 0, uint64_t gen = 0) {
    SCHEDSIM_DASSERT(at >= s.now, "event scheduled in the past");
    SCHEDSIM_DASSERT(b <= detail::EventQueue::kMaxB, "event cpu out of range");
    // An event at a folded completion's time ends that stretch first (segment.cpp).
    if (!stretch_cpus.empty() && type != Ev::kTick) [[unlikely]]
      split_ties(at);
    enqueue_event(at, type, a, b, gen);
  }
  void enqueue_event(Instant at, Ev type, uint32_t a, uint32_t b, uint64_t gen) {
    uint64_t ord = seq++ | (type == Ev::kTick ? detail::EventQueue::kTickBit : 0);
    q.push(Event{at, ord, gen, a, b & detail::EventQueue::kMaxB, type});
  }

  // The time `d` after now, checked: an event past cfg.max_time that the loop would process
  // (it is not after stop_at) is an InputError naming what needs it, never an overflow or a
  // hang. `what` is only called to build that message. With background tasks the run may end
  // before the limit (cut_background) whatever they still have planned, so there the error is
  // deferred to the loop reaching past the limit (past_limit: the earliest such event's).
  template <class What>
  [[gnu::always_inline]] Instant checked_after(i128 d, What&& what) {
    i128 t = static_cast<i128>(s.now.ns()) + d;
    if (t <= cfg.max_time.ns()) return Instant::from_ns(static_cast<int64_t>(t));
    // Past a stop_at below the limit: the loop stops before it (stop_at < INT64_MAX then).
    const Instant capped = t > INT64_MAX ? Instant::max() : Instant::from_ns(static_cast<int64_t>(t));
    if (cfg.stop_at <= cfg.max_time && t > cfg.stop_at.ns()) return capped;
    std::string msg = fmt::format("{} would end at simulated time {}, past the simulated-time limit of {} "
                                  "(schedsim run --max-sim-time)",
                                  what(), format_sim_time(t), format_limit(cfg.max_time));
    if (nr_background == 0) throw InputError(SourceLoc{w.source}, msg);
    if (past_limit.empty() || t < past_limit_at) {
      past_limit = std::move(msg);
      past_limit_at = t;
    }
    return capped;
  }
  static std::string format_sim_time(i128 t);
  // The --max-sim-time limit in seconds: whole ones as such ("86400 s"), else with the ns.
  static std::string format_limit(Instant limit);
  std::string task_label(uint32_t t) const;

  // ---- the work/rate accountant applied to CPUs (work.cpp) ----
  int64_t rate_of(uint32_t cpu) const;
  // Every read or change of a CPU's running task goes through here, so a stretch of folded
  // completions is applied first (settle()).
  void update_progress(uint32_t cpu, bool quiet = false) {
    settle_if(cpu);
    account(cpu, quiet);
  }
  void account(uint32_t cpu, bool quiet);
  void log_banked_wake(uint32_t t) const;
  // A wake banked for t (a token, or a recorded pair before its block), at `at`: counted and
  // reported (do_wake(); the segment advance's folded steps report theirs late, segment.cpp).
  void note_banked(uint32_t t, Instant at) {
    if (!prog[t].background) ++sum.tokens_banked;  // a measured figure, like tokens_left
    for (auto* o : obs) o->on_token(at, TaskId(t), false);
  }
  void plan_completion(uint32_t cpu);

  // ---- the program interpreter (interpreter.cpp) ----
  std::string action_label(uint32_t t, size_t pc) const;
  void advance(uint32_t t, uint32_t cpu);
  bool channel_op(uint32_t t, uint32_t cpu, const Action& a);

  // ---- the segment advance (segment.cpp) ----
  static size_t tie_slot(int64_t at) { return static_cast<size_t>((static_cast<uint64_t>(at) * 0x9e3779b97f4a7c15ull) >> (64 - kTieBits)); }
  void init_segment();
  bool try_stretch(uint32_t t, uint32_t cpu);
  // Whether the next action of pr (between its current run and the next) may begin a step: one
  // a step may hold (try_stretch() walks what follows), or the loop action closing a loop of
  // (block, run) whose remaining iterations are a row. Inline, before the call: most runs of a
  // channel model's tasks fail here (a write or read next, or a loop jumping back to one).
  bool may_stretch(const Prog& pr) const {
    const size_t pc = pr.pc;
    if (pc >= pr.code_size) return false;
    auto steps = [&](ActionKind k) {
      return k == ActionKind::kBlock || k == ActionKind::kWake || k == ActionKind::kRun || k == ActionKind::kLoop ||
             (seg_channels && (k == ActionKind::kWrite || k == ActionKind::kRead));
    };
    const Action& a = pr.code[pc];
    if (a.kind == ActionKind::kRun || !steps(a.kind)) return false;
    if (a.kind != ActionKind::kLoop) return true;
    // A loop action that jumps back (next_action()): the action it jumps to.
    const bool open = !pr.loops.empty() && pr.loops.back().at == pc;
    return !(open ? pr.loops.back().left >= 1 : a.arg > 0) || steps(pr.code[pc - a.body].kind);
  }
  void settle(uint32_t cpu);
  void settle_if(uint32_t cpu) {
    if (stretch[cpu].on) settle(cpu);
  }
  void fold(uint32_t cpu, size_t from, size_t to);
  int64_t fold_step(uint32_t t, int64_t at, const Stretch::Bank*& bank, const Stretch::Bank* bank_end, size_t i);
  bool banks_to(uint32_t t, const Action& a) const;
  // A folded completion (or a channel operation queued for one) at `at` came before the event
  // being handled: before now, or at now when that event is a tick (due()).
  bool is_due(int64_t at) const { return at < s.now.ns() || (ticking && at == s.now.ns()); }
  size_t due(const Stretch& st) const;
  bool chan_may_fold(uint32_t t, const Action& a, const Stretch& st, uint32_t nc);
  void chan_check(size_t c);
  void catch_up(uint32_t t);
  void unbank(uint32_t t);
  void account_runs(uint32_t cpu, uint32_t t, int64_t k, Duration d, int64_t c, Instant end, bool quiet);
  void split_ties(Instant at);
  void tie_add(int64_t at, uint32_t cpu) {
    TieSlot& t = tie_count[tie_slot(at)];
    ++t.count;
    t.cpus ^= static_cast<uint16_t>(cpu + 1);
  }
  void tie_remove(int64_t at, uint32_t cpu) {
    TieSlot& t = tie_count[tie_slot(at)];
    --t.count;
    t.cpus ^= static_cast<uint16_t>(cpu + 1);
  }
  int64_t stretch_at(int64_t at) const;
  void end_stretch(uint32_t cpu, size_t folded);
  bool drop_phantom(const Event& e);

  // ---- the core.c model (engine.cpp) ----
  void refresh_cpu(uint32_t cpu);
  void resched(uint32_t cpu) {
    if (!run[cpu].need_resched) {
      run[cpu].need_resched = true;
      resched_list.push_back(cpu);
    }
  }
  void preempt_curr(uint32_t cpu, bool from_tick);
  void preempt_from(uint32_t cpu, uint32_t from_cpu);
  void on_resched_ipi(uint32_t cpu, uint64_t gen);
  void return_to_user(uint32_t cpu);
  void arm_tick(uint32_t cpu);
  void leave_cpu(uint32_t t, uint32_t cpu, TaskState st);
  void do_exit(uint32_t t, uint32_t cpu);
  Duration wake_delay(const WakeContext& ctx, uint32_t to_cpu, Duration scan) const;
  void do_wake(uint32_t t, TaskId waker, uint32_t waker_cpu, bool sync, uint32_t pair = 0);
  void activate(uint32_t t, TaskId waker, uint32_t waker_cpu, bool sync);
  void wake_delayed(const WakeContext& ctx);
  WakeFact decide(const WakeContext& ctx);
  void charge_wake(const WakeContext& ctx, uint32_t target);
  void credit_recorded_wakes(uint32_t t, uint16_t recorded);
  void place_and_send(const WakeContext& ctx);
  void do_fork(uint32_t child, uint32_t parent, uint32_t cpu);
  void start_new(const WakeContext& ctx);
  bool do_exec(uint32_t t, uint32_t cpu);
  bool migrate_queued(TaskId p, CpuId to) override;  // BalanceOps
  PlacementWrites placement_writes() override { return PlacementWrites(s, pol.util.get(), pol.idle_cores.get()); }
  void note_migration(TaskId p, uint32_t src, uint32_t dst);
  void schedule(uint32_t cpu);

  // ---- event handlers and the loop (engine.cpp) ----
  void on_enqueue(uint32_t t, uint32_t cpu);
  void on_task_start(uint32_t t);
  void on_sleep_end(uint32_t t, uint64_t gen);
  void on_tick(uint32_t cpu, uint64_t gen);
  void on_run_done(uint32_t cpu, uint64_t gen);
  void drain_resched();
  void check_full();
  Instant checked_start(uint32_t t);
  SimSummary run_all();
  void finish();
  void explain_incomplete();
  /// With background tasks: the number of measured tasks blocked while no measured task can run
  /// any more (the rest exited or were never forked); 0 otherwise.
  uint32_t measured_stuck() const;
  // The makespan's end moves with measured tasks only (a background task's switch or exit
  // after the last measured event is not part of the run's measured span).
  void note_end(TaskId t) {
    if (!prog[t.value()].background) sum.end = std::max(sum.end, s.now);
  }
};

}  // namespace schedsim
