// Trace-to-workload extraction. Models what happened around try_to_wake_up() and __schedule()
// (kernel/sched/core.c) as seen through the sched tracepoints:
//  * on-CPU time between two points of interest becomes run(d);
//  * a sched_waking in a selected task's own context (not h/s irq flags, not idle) becomes
//    wake(wakee) at that point of the waker's program and block() in the wakee's; a wakeup from
//    anywhere else becomes sleep(observed) in the wakee;
//  * sched_waking is emitted by try_to_wake_up() only once ttwu_state_match() saw the wakee in a
//    sleeping state, but the wakee may still be on its CPU on the way into __schedule(), and the
//    per-CPU clocks differ: so a waking can precede the wakee's own switch-out. It is held and
//    paired with the next switch-out if that one sleeps (within race_window); if the wakee is
//    switched out runnable instead (ttwu_runnable() put it back to TASK_RUNNING) or keeps
//    running, the waking was a no-op and creates no token;
//  * exit: do_exit() emits sched_process_exit, then wakes the parent (exit_notify()), and only the
//    final __schedule() with prev_state X/Z ends the life, so exit() goes there.
// Every block() is emitted together with exactly one wake(), so conservation holds by
// construction; the final check guards the construction.
#include "schedsim/traces/extractor.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

// libstdc++ 12's <regex> trips -Wmaybe-uninitialized inside std::function when built with the
// sanitizers (a false positive in _Compiler::_M_assertion); the CI treats warnings as errors.
// (GCC only: clang has no such warning and rejects the unknown name under -Werror.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <regex>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include <fmt/format.h>

#include "schedsim/base/assert.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "idle_wake_probe.hpp"

namespace schedsim::traces {

namespace {

// Not always lost events: a trace with no lost-event marker shows it too (a tracer that does not
// record some switches, seen on a sandbox's agent threads), so the text names both causes.
constexpr const char* kMissingSwitchOut =
    "a CPU ran another task than the one its last sched_switch switched in: a switch-out is missing (lost "
    "events, or a switch the tracer did not record); the other task was resynchronised";

enum class St : uint8_t { kNew, kRunning, kRunnable, kBlocked, kWoken, kUnknown, kDead };

struct TaskRec {
  int64_t pid = -1;
  int64_t tgid = -1;
  int32_t prio = -1;
  std::string comm;
  bool selected = true;
  // --background-comm/--background-pid and not selected: imported as a background task (load
  // only, TaskSpec::background); its program and the wakes it exchanges with imported tasks are
  // extracted like a selected task's, but the observed statistics and span ignore it.
  bool background = false;
  bool bg_comm_matched = false;
  bool in_workload() const { return selected || background; }
  uint32_t pairs = 0;  // --wake-match recorded: sleeps numbered so far (Action::body of wake and block)
  bool fork_wait = false;  // woken by its fork: the first switch-in is fork latency, not wakeup
  bool kthread = false;
  bool descendant = false;
  bool comm_matched = false;
  St st = St::kNew;
  int32_t cpu = -1;       // running: current CPU; otherwise the last one it ran on
  int64_t since = 0;      // running: switch-in; blocked: switch-out; woken: waking; runnable: queued
  int64_t pending_run = 0;
  int32_t pending_cpu = -1;  // the CPU pending_run was recorded on (one per run action)
  int64_t oncpu = 0;
  int64_t corun_saved = 0;  // on-CPU time removed by SMT normalisation
  // A waking seen while the task was still running (the race described above).
  bool early = false;
  bool early_inside = false;
  int64_t early_ts = 0;
  uint32_t early_waker = 0;
  uint32_t early_action = 0;
  StartState start = StartState::kRunnable;
  int64_t start_ts = 0;
  int32_t initial_cpu = -1;
  int32_t fd_table = -1;          // --channels: its fd table (index into fd_tables)
  // The read/write syscall it is inside: an index into scs with --channels, kScMarkOnly with
  // only syscall_marks (where the syscall is matters then, not its fd or bytes).
  int64_t cur_sc = -1;
  bool sc_returned = false;       // a syscall exit not yet followed by a user-mode run
  bool sc_entered = false;        // a syscall enter not yet followed by a flagged run
  int64_t early_sc = -1;          // --channels: the waker's syscall of the early waking
  std::vector<Action> prog;       // wake/fork args hold record ordinals until finish()
  // A background task's past before the measured span (start_span()): prog[0, trim_at) is
  // dropped; `trimmed_blocked` = asleep at the span start, its life starts at its next wakeup.
  size_t trim_at = 0;
  bool trimmed = false;
  bool trimmed_blocked = false;
  std::vector<uint32_t> cancelled;  // indices into prog of wakes that turned out to be no-ops
};

// TaskRec::cur_sc without --channels: inside a read/write syscall that is not tracked in scs.
constexpr int64_t kScMarkOnly = INT64_MAX;

// --channels: one read/write syscall of a selected task (enter seen).
struct Syscall {
  uint32_t task = 0;
  uint32_t key = 0;        // its (fd table, fd) key
  bool write = false;
  bool done = false;       // exit seen with a positive return value
  int64_t bytes = 0;
  int64_t at = -1;         // prog index of its placeholder action (read: at enter; write: at exit)
};

// --channels: a task's fd table. A forked task starts with a copy of its parent's: an fd it has
// not closed since is the file its parent had under that number when it forked. `gen` counts the
// closes of each fd in this table (a number used again after a close is another file); `snap`
// is the parent's `gen` at the fork.
struct FdTable {
  int32_t parent = -1;
  std::unordered_map<int64_t, uint32_t> gen, snap;
};

// --channels: a wakeup issued inside syscall `wsc` (wake action `wi` of task `w`) to a task
// blocked inside syscall `bsc` (block action `bi` of task `b`).
struct SyscallEdge {
  uint32_t wsc, bsc, w, b;
  uint32_t wi, bi;
};

struct CpuState {
  int64_t cur = -1;        // pid current on this CPU, 0 = idle, -1 = unknown
  int64_t first_ts = -1;   // first event on this CPU (or first after a lost window)
  int64_t last_ts = -1;
};

bool looks_like_kthread_name(const std::string& c) {
  static const char* const kPrefixes[] = {
      "kworker/", "ksoftirqd/", "migration/", "rcu_", "rcuc/", "rcuog/", "rcuop/", "rcub/",
      "cpuhp/", "idle_inject/", "watchdog/", "irq/", "kthreadd", "kcompactd", "kswapd",
      "khugepaged", "oom_reaper", "kauditd", "ksmd", "kblockd", "kintegrityd", "kdevtmpfs",
      "writeback", "scsi_", "khungtaskd", "kthrotld", "kstrp", "zswap", "ipv6_addrconf",
      "ext4-rsv", "xfs", "hwrng", "psimon", "pool_workqueue", "card", "mld", "netns",
      "inet_frag_wq", "kmpath", "jbd2/", "edac-poller", "watchdogd", "devfreq_wq",
      "blkcg_punt_bio", "tpm_dev_wq", "md", "ata_sff", "acpi_thermal_pm", "kvfree_rcu_reclaim"};
  for (const char* p : kPrefixes)
    if (c.rfind(p, 0) == 0) return true;
  return false;
}

// "ksoftirqd/3", "kworker/3:1", "migration/3", "cpuhp/3": bound to one CPU (not kworker/u8:1).
int32_t percpu_kthread_cpu(const std::string& c) {
  size_t slash = c.find('/');
  if (slash == std::string::npos || slash + 1 >= c.size()) return -1;
  size_t p = slash + 1;
  if (c[p] < '0' || c[p] > '9') return -1;
  int32_t v = 0;
  while (p < c.size() && c[p] >= '0' && c[p] <= '9') v = v * 10 + (c[p++] - '0');
  if (p != c.size() && c[p] != ':') return -1;
  return v;
}

}  // namespace

struct Extractor::Impl {
  ExtractOptions opt;
  ImportReport& rep;
  std::string path;
  std::vector<TaskRec> recs;
  std::unordered_map<int64_t, uint32_t> live;  // pid -> current life
  // pid -> line of the switch-out that ended its life, until a fork (or a switch-in) starts a
  // new life with that pid. The kernel emits nothing as a task after its final switch-out, so a
  // line naming such a pid as current is false (event-by-exited-pid).
  std::unordered_map<int64_t, long> exited_at;
  // On-CPU time per CPU, of every task: a CPU runs one task at a time, so none may exceed the
  // trace's span. Independent of the per-task totals the conservation check also compares.
  std::vector<int64_t> cpu_busy;
  std::vector<CpuState> cpus;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> busy_iv;  // per CPU on-CPU intervals (SMT normalisation)
  std::vector<bool> selection;  // by ordinal, when set
  bool has_selection = false;
  std::vector<bool> bg_selection;  // --background-comm matches by ordinal (first pass)
  std::unique_ptr<std::regex> comm_re, bg_comm_re;
  bool seen_waking = false;
  bool inferring_switch_in = false;  // switch_in() is placing a switch-in the trace did not record
  int64_t first_ts = -1, last_ts = -1;
  long first_line = 0;  // input line of first_ts, for the span error
  int64_t prev_last_ts = -1;  // the event CPU's previous event (before the current one)
  int64_t sel_first = -1, sel_last = -1;
  bool span_started = false;  // a selected task was named by an event (start_span())
  std::vector<uint32_t> lost_pending;  // CPUs whose next event starts after a lost window
  ObservedStats obs;
  const TraceEvent* cur_ev = nullptr;
  // --channels
  std::vector<Syscall> scs;
  std::vector<SyscallEdge> sc_edges;
  IdleWakeProbe idle_probe{rep.idle_wake};
  std::vector<FdTable> fd_tables;
  std::map<std::tuple<int32_t, int64_t, uint32_t>, uint32_t> fd_keys;  // (table, fd, gen) -> key

  Impl(const ExtractOptions& o, ImportReport& r, std::string p) : opt(o), rep(r), path(std::move(p)) {
    comm_re = compile_comm_regex(opt.comm_regex, "--comm");
    bg_comm_re = compile_comm_regex(opt.background_comm_regex, "--background-comm");
  }

  // null for an empty pattern (the option not given)
  static std::unique_ptr<std::regex> compile_comm_regex(const std::string& pattern, const char* option) {
    if (pattern.empty()) return nullptr;
    try {
      return std::make_unique<std::regex>(pattern, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      throw InputError(fmt::format("bad {} regex '{}': {}", option, pattern, e.what()));
    }
  }

  void repair(const std::string& kind, const std::string& reason) {
    const long line = cur_ev ? cur_ev->line : 0;
    if (opt.strict)
      throw InputError(SourceLoc{path, line, 0}, fmt::format("strict mode: {} ({})", reason, kind));
    auto& r = rep.repairs[kind];
    if (r.count++ == 0) {
      r.first_line = line;
      r.reason = reason;
    }
  }

  CpuState& cpu_state(int32_t c) {
    SCHEDSIM_ASSERT(c >= 0 && c < 65536, "cpu {} out of range", c);
    if (static_cast<size_t>(c) >= cpus.size()) cpus.resize(static_cast<size_t>(c) + 1);
    return cpus[static_cast<size_t>(c)];
  }

  bool match_comm(TaskRec& t) {
    if (bg_comm_re && !t.bg_comm_matched && std::regex_search(t.comm, *bg_comm_re)) t.bg_comm_matched = true;
    if (comm_re && !t.comm_matched && std::regex_search(t.comm, *comm_re)) t.comm_matched = true;
    return t.comm_matched;
  }

  void set_comm(TaskRec& t, const std::string& c) {
    if (c.empty() || c == "<...>" || t.comm == c) return;
    t.comm = c;
    match_comm(t);
  }

  uint32_t create(int64_t pid, const std::string& comm, int64_t parent_ord) {
    exited_at.erase(pid);
    const uint32_t ord = static_cast<uint32_t>(recs.size());
    recs.emplace_back();
    TaskRec& t = recs.back();
    t.pid = pid;
    t.comm = comm == "<...>" ? std::string() : comm;
    match_comm(t);
    if (parent_ord >= 0) {
      const TaskRec& p = recs[static_cast<size_t>(parent_ord)];
      t.kthread = p.pid == 2 || p.kthread;
      t.descendant = p.descendant || pid == opt.descendants_of;
    } else {
      t.kthread = pid == 2 || looks_like_kthread_name(t.comm);
      t.descendant = pid == opt.descendants_of;
    }
    bool by_id = (opt.pids.empty() && opt.descendants_of < 0) || t.descendant ||
                 std::find(opt.pids.begin(), opt.pids.end(), pid) != opt.pids.end();
    t.selected = by_id && !(opt.exclude_kthreads && t.kthread);
    if (has_selection) t.selected = t.selected && ord < selection.size() && selection[ord];
    // The selection wins: a task both selected and matching a background option is measured.
    t.background = !t.selected && ((ord < bg_selection.size() && bg_selection[ord]) ||
                                   std::find(opt.background_pids.begin(), opt.background_pids.end(), pid) !=
                                       opt.background_pids.end());
    live[pid] = ord;
    ++rep.tasks_seen;
    if (t.selected) start_span();
    if (opt.channels != TraceChannels::kOff) {
      FdTable tab;
      if (parent_ord >= 0) {
        tab.parent = recs[static_cast<size_t>(parent_ord)].fd_table;
        tab.snap = fd_tables[static_cast<size_t>(tab.parent)].gen;
      }
      recs[ord].fd_table = static_cast<int32_t>(fd_tables.size());
      fd_tables.push_back(std::move(tab));
    }
    return ord;
  }

  // The live record for pid, created as "alive since before the trace" when unknown.
  uint32_t get(int64_t pid, const std::string& comm) {
    auto it = live.find(pid);
    if (it != live.end()) {
      set_comm(recs[it->second], comm);
      if (recs[it->second].selected) start_span();
      return it->second;
    }
    return create(pid, comm, -1);
  }

  // The measured span starts with the first event that names a selected task; the replay's time
  // origin stays the trace's first event. A background task seen before that moment starts
  // there in the state it is in (as a task alive at trace start does): running or queued on its
  // CPU (kRunnable at that time, initial_cpu = that CPU), woken and not yet running (kRunnable,
  // its last CPU), asleep (its life starts at its next wakeup: kBlocked if a replayed task wakes
  // it, kSleeping until then otherwise, on_wake()), or gone (exited: not imported). Its actions
  // so far are dropped, and with them the on-CPU time before the span; a wake between two
  // background tasks is dropped on both sides (wake and block are pushed at the same event).
  // Without it the replay would run the background task's recorded past before the measured
  // tasks start, and the machine's state at the span start (who runs where, PELT, queues) would
  // be that replay's, not the trace's. Called from get()/create() before the event touches the
  // selected task, so what the event does to it and after it is kept.
  void start_span() {
    if (span_started) return;
    span_started = true;
    const int64_t at = cur_ev != nullptr ? cur_ev->ts : first_ts;
    for (TaskRec& t : recs) {
      if (!t.background) continue;
      // A held waking whose waker's wake action is dropped: from now on it is a wakeup from
      // outside (pairing it creates no block).
      if (t.early && t.early_inside && recs[t.early_waker].background) t.early_inside = false;
      t.trimmed = true;
      t.trim_at = t.prog.size();
      t.pending_run = 0;
      t.pending_cpu = -1;
      t.oncpu = 0;
      t.corun_saved = 0;
      t.cur_sc = -1;  // a syscall entered before the span is never replayed
      t.sc_returned = false;
      t.sc_entered = false;
      switch (t.st) {
        case St::kNew: break;
        case St::kRunning:
          t.since = at;
          [[fallthrough]];
        case St::kRunnable:
        case St::kWoken:
          t.start = StartState::kRunnable;
          t.start_ts = at;
          t.initial_cpu = t.cpu;
          t.fork_wait = false;
          break;
        case St::kBlocked:
        case St::kUnknown:
          t.st = St::kBlocked;
          t.trimmed_blocked = true;
          break;
        case St::kDead: break;
      }
    }
    // --channels: background syscalls before the span carry no bytes into the channels.
    for (Syscall& sc : scs)
      if (recs[sc.task].background) sc.done = false;
  }

  void push(TaskRec& t, Action a) {
    if (t.in_workload()) t.prog.push_back(a);
  }
  // The wake action of a waking in a selected task's context, with where the recording's wake
  // went (Action::reserved, for replay_wakes=modelled): local when the wakee's CPU at the waking
  // (sched_waking's target_cpu: task_cpu() before select_task_rq(); sched_wakeup's: the
  // placement) is the waker's, as scripts/analysis/syscall_wake_cost.py classes the calls it
  // measured wake_local and wake_remote from.
  static Action recorded_wake(uint32_t bord, const TraceEvent& ev) {
    Action a = Action::wake(TaskId(bord));
    if (ev.target_cpu >= 0 && ev.cpu >= 0) a.reserved = ev.target_cpu == ev.cpu ? kRecordedWakeLocal : kRecordedWakeRemote;
    return a;
  }
  // Each run action carries the CPU its time was recorded on (Action::body = cpu + 1), so that a
  // replay can tell where the recording migrated (replay_overheads=migration-delta).
  // Time inside a read/write syscall (--channels or ExtractOptions::syscall_marks: on_syscall())
  // is a run flagged kRunSyscall; after a syscall's exit the next flush
  // outside a syscall pushes the user-mode run even when it is 0 ns (the trace's clock did not
  // tick between the exit and the next event), so the replay sees the return to user space
  // (SimConfig::preempt) between two syscalls. Likewise the first flush inside a syscall pushes
  // a flagged run even when it is 0 ns: the traces' clock has 1 us resolution, and a wake issued
  // in the syscall often carries its enter's timestamp (a third of the wakes inside read/write
  // on hackbench -g 1 -l 400 -p -T, over half on perf bench sched pipe); without it the replay
  // would issue that wake in user space.
  void flush_run(TaskRec& t) {
    const bool in_sc = t.cur_sc >= 0;
    if ((t.pending_run > 0 || (t.sc_returned && !in_sc) || (t.sc_entered && in_sc)) && t.in_workload()) {
      const Duration d = Duration::ns(t.pending_run);
      const uint8_t fl = in_sc ? kRunSyscall : 0;
      t.prog.push_back(t.pending_cpu >= 0 ? Action::run_recorded(d, static_cast<uint32_t>(t.pending_cpu), fl)
                                          : Action::run(d, fl));
      if (!in_sc) t.sc_returned = false;
      if (in_sc) t.sc_entered = false;
    }
    t.pending_run = 0;
  }
  // Flushes a task's on-CPU time up to `ts` (it is running: a point of interest in its own
  // program, such as a wake or fork it issues, splits its run there).
  void flush_at(TaskRec& t, int64_t ts) {
    if (t.st == St::kRunning && ts > t.since) {
      add_run(t, ts - t.since);
      t.since = ts;
    }
    flush_run(t);
  }
  void add_run(TaskRec& t, int64_t d) {
    if (d < 0) {
      repair("negative-interval", "an on-CPU interval ended before it began (clock inversion); counted as 0");
      d = 0;
    }
    // A run action holds time of one CPU: a task preempted and resumed elsewhere starts a new one.
    if (t.pending_run > 0 && t.pending_cpu != t.cpu) flush_run(t);
    t.pending_cpu = t.cpu;
    int64_t work = d;
    if (!opt.smt_siblings.empty() && d > 0 && t.cpu >= 0) work = normalised_work(t, t.since, t.since + d);
    t.pending_run += work;
    t.oncpu += d;
    if (t.cpu >= 0) {
      if (cpu_busy.size() <= static_cast<size_t>(t.cpu)) cpu_busy.resize(static_cast<size_t>(t.cpu) + 1, 0);
      cpu_busy[static_cast<size_t>(t.cpu)] += d;
    }
    t.corun_saved += d - work;
  }
  // SMT normalisation: the interval [a, b] of `t` on its CPU, as reference work. Every on-CPU
  // interval is kept per CPU; a sibling's busy time is its closed intervals plus the one of the
  // task running there now. Siblings' busy times are summed (capped at the interval): exact for
  // SMT2, an upper bound of the union for wider SMT. A sibling interval recorded later (an
  // inferred switch-in placed back in time) is missed.
  int64_t normalised_work(const TaskRec& t, int64_t a, int64_t b) {
    const auto c = static_cast<size_t>(t.cpu);
    if (busy_iv.size() <= c) busy_iv.resize(c + 1);
    int64_t overlap = 0;
    if (c < opt.smt_siblings.size()) {
      for (uint32_t s : opt.smt_siblings[c]) {
        if (s < busy_iv.size()) {
          const auto& iv = busy_iv[s];
          for (size_t k = iv.size(); k-- > 0;) {
            if (iv[k].second < a - opt.clock_tolerance.count()) break;
            overlap += std::max<int64_t>(0, std::min(b, iv[k].second) - std::max(a, iv[k].first));
          }
        }
        if (s < cpus.size() && cpus[s].cur > 0) {
          auto it = live.find(cpus[s].cur);
          if (it != live.end()) {
            const TaskRec& o = recs[it->second];
            if (&o != &t && o.st == St::kRunning && o.cpu == static_cast<int32_t>(s))
              overlap += std::max<int64_t>(0, b - std::max(a, o.since));
          }
        }
      }
    }
    busy_iv[c].emplace_back(a, b);
    overlap = std::min(overlap, b - a);
    return (b - a) - overlap + overlap * opt.corun_permille / 1000;
  }
  void touch_span(const TaskRec& t, int64_t ts) {
    if (!t.selected) return;
    if (sel_first < 0) sel_first = ts;
    sel_last = ts;
  }

  // A task first seen already running at trace start (or after a lost window on its CPU).
  void begin_running_unseen(TaskRec& t, int32_t c, int64_t since) {
    t.start = StartState::kRunnable;
    t.start_ts = first_ts;
    t.initial_cpu = c;
    t.st = St::kRunning;
    t.cpu = c;
    t.since = since;
  }

  // The task on whose behalf an event fired is current on ev.cpu: make the state agree.
  void touch_running(uint32_t ord, const TraceEvent& ev) {
    TaskRec& t = recs[ord];
    CpuState& cs = cpu_state(ev.cpu);
    if (t.st == St::kRunning && t.cpu == ev.cpu) return;
    if (t.st == St::kNew) {
      begin_running_unseen(t, ev.cpu, cs.first_ts);
    } else if (infer_switch_from_idle(ord, ev)) {
      return;
    } else if (t.st == St::kUnknown) {
      t.st = St::kRunning;
      t.cpu = ev.cpu;
      t.since = ev.ts;
    } else if (t.st == St::kBlocked) {
      // Neither its wakeup nor its switch-in was recorded: replay the gap as a timed sleep.
      switch_in(ord, ev.cpu, std::max(t.since, prev_last_ts >= 0 ? prev_last_ts : ev.ts));
      return;
    } else {
      repair("running-without-switch-in",
             "a task emitted events on a CPU it was not seen switched in on (missing sched_switch); "
             "its state was resynchronised");
      if (t.st == St::kRunning) add_run(t, ev.ts - t.since);
      t.st = St::kRunning;
      t.cpu = ev.cpu;
      t.since = ev.ts;
    }
    cs.cur = t.pid;
  }

  // --wake-match recorded: the number of t's next sleep, which its block() and the wake that
  // ended it in the recording both carry (0 under token matching: any wake releases any block).
  uint32_t next_pair(TaskRec& t) const {
    if (opt.wake_match != TraceWakeMatch::kRecorded) return 0;
    // 2^32 sleeps would take 64 GiB of block() actions: the memory budget ends the import first.
    SCHEDSIM_ASSERT(t.pairs < std::numeric_limits<uint32_t>::max(), "sleep numbers of pid {} overflow", t.pid);
    return ++t.pairs;
  }

  void cancel_early(TaskRec& t) {
    if (!t.early) return;
    if (t.early_inside) recs[t.early_waker].cancelled.push_back(t.early_action);
    t.early = false;
    ++rep.wakeups_noop;
  }

  void on_switch(const TraceEvent& ev) {
    CpuState& cs = cpu_state(ev.cpu);
    if (ev.pid != 0) {
      const uint32_t ord = get(ev.pid, ev.comm);
      TaskRec& t = recs[ord];
      if (ev.prio >= 0) t.prio = ev.prio;
      if (cs.cur > 0 && cs.cur != ev.pid) {
        auto it = live.find(cs.cur);
        if (it != live.end() && recs[it->second].st == St::kRunning && recs[it->second].cpu == ev.cpu) {
          repair("missing-switch-out", kMissingSwitchOut);
          TaskRec& o = recs[it->second];
          o.st = St::kUnknown;
          o.since = ev.ts;
        }
      }
      if (t.st == St::kNew) {
        begin_running_unseen(t, ev.cpu, cs.first_ts);
      } else if (t.st == St::kRunning && t.cpu == ev.cpu) {
      } else if (infer_switch_from_idle(ord, ev)) {
      } else if (t.st == St::kUnknown) {
        t.since = std::max(t.since, cs.first_ts);
      } else if (t.st == St::kBlocked) {
        switch_in(ord, ev.cpu, std::max(t.since, cs.last_ts >= 0 ? cs.last_ts : ev.ts));
      } else {
        repair("switch-out-not-running",
               "a task was switched out of a CPU it was not seen switched in on; its on-CPU "
               "interval was counted from its CPU's previous switch");
        t.since = std::max(cs.last_ts, t.since);
      }
      add_run(t, ev.ts - t.since);
      touch_span(t, ev.ts);
      if (t.selected) ++obs.context_switches;
      t.cpu = ev.cpu;
      const StateClass cls = classify_state(ev.state);
      if (t.early) {
        if (cls == StateClass::kBlocked && ev.ts - t.early_ts <= opt.race_window.count()) {
          // The waking raced with this switch-out: it woke this sleep, a wakeup the real kernel
          // did (the waking found the task already off the runqueue or in __schedule(); its
          // latency is already a sample), so it counts among the observed wakeups too.
          t.early = false;
          ++rep.early_wakes_paired;
          if (t.selected) ++obs.wakeups;
          flush_run(t);
          if (t.early_inside) {
            const uint32_t pair = next_pair(t);
            push(t, Action::block(pair));
            recs[t.early_waker].prog[t.early_action].body = pair;
            note_edge_at(t.early_waker, t.early_sc, t.early_action, ord);
          }
          t.st = St::kWoken;
          t.since = t.early_ts;
          goto next_task;
        }
        cancel_early(t);
      }
      switch (cls) {
        case StateClass::kRunnable:
          t.st = St::kRunnable;
          t.since = ev.ts;
          break;
        case StateClass::kBlocked:
          t.st = St::kBlocked;
          t.since = ev.ts;
          break;
        case StateClass::kDead:
          flush_run(t);
          push(t, Action::exit());
          t.st = St::kDead;
          live.erase(t.pid);
          exited_at[t.pid] = ev.line;
          break;
      }
    }
  next_task:
    cs.cur = ev.other_pid;
    if (ev.other_pid == 0) return;
    const uint32_t nord = get(ev.other_pid, ev.other_comm);
    if (ev.other_prio >= 0) recs[nord].prio = ev.other_prio;
    switch_in(nord, ev.cpu, ev.ts);
  }

  // `n` starts running on `cpu` at `ts` (a sched_switch's next, or an inferred switch-in).
  void switch_in(uint32_t nord, int32_t cpu, int64_t ts) {
    TaskRec& n = recs[nord];
    switch (n.st) {
      case St::kNew:
        // Runnable since before the trace started.
        n.start = StartState::kRunnable;
        n.start_ts = first_ts;
        n.initial_cpu = cpu;
        break;
      case St::kRunnable:
        if (n.selected) obs.runqueue_wait.record(ts - n.since);
        break;
      case St::kWoken:
        // Like the simulator's report, a new task's first wait (wake_up_new_task to switch-in)
        // is fork latency and stays out of the wakeup latency distribution.
        if (n.selected && !n.fork_wait) {
          obs.wakeup_latency.record(ts - n.since);
          // Placed at the earliest time no event contradicts (infer_switch_from_idle): a lower bound.
          if (inferring_switch_in) ++obs.wakeup_latency_inferred;
        }
        n.fork_wait = false;
        break;
      case St::kBlocked:
        if (n.trimmed_blocked) {
          // Asleep at the span start and switched in with no wakeup recorded: as a task the
          // trace shows runnable at its start, it starts there (at the switch-in).
          n.trimmed_blocked = false;
          n.start = StartState::kRunnable;
          n.start_ts = ts;
          n.initial_cpu = cpu;
          break;
        }
        repair("switch-in-without-wakeup",
               "a sleeping task was switched in with no wakeup event; its sleep was replayed as "
               "sleep(observed)");
        flush_run(n);
        push(n, Action::sleep(Duration::ns(std::max<int64_t>(0, ts - n.since))));
        break;
      case St::kUnknown:
        flush_run(n);
        push(n, Action::sleep(Duration::ns(std::max<int64_t>(0, ts - n.since))));
        break;
      case St::kRunning:
        if (n.cpu != cpu) {
          repair("switch-in-while-running",
                 "a task was switched in while still running on another CPU (cross-CPU clock "
                 "skew or lost events); its interval there was closed");
          add_run(n, ts - n.since);
          CpuState& other = cpu_state(n.cpu);
          if (other.cur == n.pid) other.cur = -1;
        }
        break;
      case St::kDead: SCHEDSIM_UNREACHABLE("dead tasks are not live");
    }
    if (n.selected && n.cpu >= 0 && n.cpu != cpu && n.st != St::kNew) ++obs.migrations;
    n.st = St::kRunning;
    n.cpu = cpu;
    n.since = ts;
    cpu_state(cpu).cur = n.pid;
    touch_span(n, ts);
  }

  // A woken or queued task is seen running on a CPU that was idle, with no sched_switch from
  // the idle task in between. On the 6.18 VMs this project records on, most switches *out of
  // idle* are missing from the trace; the switch-in is placed at the CPU's previous event, or at
  // the wakeup if that came later or the CPU had no event yet: the earliest time no event
  // contradicts, so the wakeup-latency sample is a lower bound and the run keeps all the time
  // the trace cannot take from it. Returns false if the case does not apply.
  bool infer_switch_from_idle(uint32_t ord, const TraceEvent& ev) {
    TaskRec& t = recs[ord];
    CpuState& cs = cpu_state(ev.cpu);
    if (t.st != St::kWoken && t.st != St::kRunnable) return false;
    int64_t at = std::max(t.since, prev_last_ts);
    if (cs.cur > 0 && cs.cur != t.pid) {
      // Same, but the CPU was running another task whose switch-out is missing (seen on the
      // sandbox's own agent threads, whose switch-outs never appear).
      auto it = live.find(cs.cur);
      if (it != live.end() && recs[it->second].st == St::kRunning && recs[it->second].cpu == ev.cpu) {
        repair("missing-switch-out", kMissingSwitchOut);
        TaskRec& o = recs[it->second];
        add_run(o, std::max<int64_t>(0, at - o.since));
        o.st = St::kUnknown;
        o.since = at;
      }
    } else {
      ++rep.inferred_switch_ins;
      inferring_switch_in = true;
    }
    switch_in(ord, ev.cpu, at);
    inferring_switch_in = false;
    return true;
  }

  void on_wake(const TraceEvent& ev) {
    if (ev.success == 0) {  // pre-4.3: "success=0" means the task was already running
      ++rep.wakeups_noop;
      return;
    }
    if (ev.type == EventType::kWaking) seen_waking = true;
    // With sched_waking recorded, sched_wakeup is the same try_to_wake_up() seen later.
    if (ev.type == EventType::kWakeup && seen_waking) return;
    if (ev.other_pid <= 0) return;
    // The waker: the task current on the CPU, unless in irq context or idle.
    bool inside = false;
    uint32_t word = 0;
    if (ev.line_pid > 0) {
      word = get(ev.line_pid, ev.line_comm);
      touch_running(word, ev);
      inside = !ev.irq_context && recs[word].in_workload();
    }
    const uint32_t bord = get(ev.other_pid, ev.other_comm);
    TaskRec& b = recs[bord];
    if (ev.prio >= 0) b.prio = ev.prio;
    if (b.selected && b.st != St::kRunning && b.st != St::kRunnable && b.st != St::kWoken) ++obs.wakeups;
    switch (b.st) {
      case St::kBlocked:
        if (b.trimmed_blocked) {
          start_at_wakeup(b, bord, inside, word, ev);
          break;
        }
        if (inside && b.in_workload() && word != bord) {
          TaskRec& w = recs[word];
          flush_at(w, ev.ts);
          Action wa = recorded_wake(bord, ev);
          wa.body = next_pair(b);
          push(w, wa);
          flush_run(b);
          push(b, Action::block(wa.body));
          note_edge(word, w.cur_sc, bord);
        } else {
          flush_run(b);
          push(b, Action::sleep(Duration::ns(ev.ts - b.since)));
        }
        b.st = St::kWoken;
        b.since = ev.ts;
        break;
      case St::kRunning:
      case St::kRunnable:
      case St::kWoken:
        // try_to_wake_up() emits sched_waking only after ttwu_state_match() saw a sleeping
        // state: a task we believe runnable must have run meanwhile (a switch-in from idle the
        // trace did not record) and be on its way to sleep. Same race as a running wakee.
        if (b.early) {
          ++rep.wakeups_noop;
          break;
        }
        b.early = true;
        b.early_ts = ev.ts;
        b.early_inside = inside && b.in_workload() && word != bord;
        if (b.early_inside) {
          TaskRec& w = recs[word];
          flush_at(w, ev.ts);
          b.early_waker = word;
          b.early_action = static_cast<uint32_t>(w.prog.size());
          b.early_sc = w.cur_sc;
          push(w, recorded_wake(bord, ev));
        }
        break;
      case St::kNew: start_at_wakeup(b, bord, inside, word, ev); break;
      case St::kUnknown:
        flush_run(b);
        push(b, Action::sleep(Duration::ns(std::max<int64_t>(0, ev.ts - b.since))));
        b.st = St::kWoken;
        b.since = ev.ts;
        break;
      case St::kDead: SCHEDSIM_UNREACHABLE("dead tasks are not live");
    }
    touch_span(b, ev.ts);
  }

  // Blocked since before the trace (or, a background task, since before the measured span): the
  // life starts waiting for this wakeup (StartState::kBlocked is an implicit block() before the
  // program, so no block() is pushed; the program starts with what the task does once woken),
  // or asleep until it when the waker is not replayed (kSleeping).
  // Its initial_cpu is the CPU it last ran on, which the kernel keeps as task_cpu() while it
  // sleeps and try_to_wake_up() hands to select_task_rq() as prev_cpu: sched_waking's
  // target_cpu, which its tracepoint reads from task_cpu() at the top of try_to_wake_up(),
  // before select_task_rq() and set_task_cpu() (so it is the previous CPU, not the placement:
  // sched_wakeup's target_cpu, read after set_task_cpu(), is the placement); without
  // sched_waking, the CPU of its last switch-out if the trace has one (a background task
  // asleep at the span start), else none (the engine then takes its first allowed CPU).
  void start_at_wakeup(TaskRec& b, uint32_t bord, bool inside, uint32_t word, const TraceEvent& ev) {
    if (inside && b.in_workload() && word != bord) {
      TaskRec& w = recs[word];
      flush_at(w, ev.ts);
      push(w, recorded_wake(bord, ev));
      b.start = StartState::kBlocked;
      b.start_ts = first_ts;
    } else {
      b.start = StartState::kSleeping;
      b.start_ts = ev.ts;
    }
    b.initial_cpu = ev.type == EventType::kWaking && ev.target_cpu >= 0 ? ev.target_cpu : b.cpu;
    // Its previous CPU, as the replay's: a first switch-in elsewhere counts as a migration.
    b.cpu = b.initial_cpu;
    b.trimmed_blocked = false;
    b.st = St::kWoken;
    b.since = ev.ts;
  }

  void on_fork(const TraceEvent& ev, int64_t parent_pid, int64_t child, const std::string& child_comm) {
    const uint32_t pord = get(parent_pid, ev.type == EventType::kFork ? ev.comm : ev.line_comm);
    if (ev.line_pid == parent_pid) touch_running(pord, ev);
    auto it = live.find(child);
    if (it != live.end()) {
      TaskRec& old = recs[it->second];
      // A record that never ran may still have a program (it forked or woke a task from a line
      // another task was current on): that is a life, ended like any other.
      if (old.st != St::kNew || !old.prog.empty()) {
        repair("pid-reuse-without-exit",
               "a pid was forked again while its previous life was not seen exiting; the old "
               "life was ended there");
        cancel_early(old);
        if (old.st == St::kRunning) add_run(old, ev.ts - old.since);
        flush_run(old);
        push(old, Action::exit());
        old.st = St::kDead;
      } else {
        // Seen only as a name so far (e.g. wakeup_new before fork): forget that record.
        old.st = St::kDead;
        old.selected = old.background = false;
        --rep.tasks_seen;
      }
      live.erase(it);
    }
    const uint32_t cord = create(child, child_comm, pord);
    TaskRec& p = recs[pord];
    TaskRec& c = recs[cord];
    c.st = St::kWoken;  // wake_up_new_task() follows; latency counts from fork
    c.fork_wait = true;
    c.since = ev.ts;
    if (p.in_workload() && c.in_workload()) {
      flush_at(p, ev.ts);
      push(p, Action::fork(TaskId(cord)));
      c.start = StartState::kForked;
    } else {
      c.start = StartState::kRunnable;  // forked by an untraced parent: starts at fork time
      c.start_ts = ev.ts;
    }
    touch_span(p, ev.ts);
    touch_span(c, ev.ts);
  }

  void on_event(const TraceEvent& ev) {
    cur_ev = &ev;
    idle_probe.on_event(ev);
    if (first_ts < 0) {
      first_ts = ev.ts;
      first_line = ev.line;
    }
    // Every time the workload holds (a run, a sleep, a start time) is a difference of two event
    // timestamps, and the workload format bounds one time value by kMaxTimeValue (11.6 days) so
    // that sums stay far from int64's limit. Events arrive in timestamp order (the importer's
    // reorder window clamps the rest), so checking each against the first bounds them all; a
    // longer trace is refused here rather than yielding a workload its own validator rejects.
    if (ev.ts - first_ts > kMaxTimeValue)
      throw InputError(SourceLoc{path, ev.line, 0},
                       fmt::format("this event is {} after the trace's first event (line {}); schedsim "
                                   "replays at most {} ns (about 11.6 days) of trace",
                                   format_duration(Duration::ns(ev.ts - first_ts)), first_line,
                                   kMaxTimeValue));
    // SMT normalisation reads the siblings of every CPU from the recording machine's topology: an
    // event on a CPU it does not have means the trace was recorded elsewhere, and that CPU's
    // co-run time would go unnormalised.
    if (!opt.smt_siblings.empty() && ev.cpu >= 0 && static_cast<size_t>(ev.cpu) >= opt.smt_siblings.size())
      throw InputError(SourceLoc{path, ev.line, 0},
                       fmt::format("event on CPU {}, but the recording machine given for --smt-normalize, {}, has "
                                   "{} CPUs: give the topology of the machine the trace was recorded on",
                                   ev.cpu, opt.smt_machine, opt.smt_siblings.size()));
    last_ts = std::max(last_ts, ev.ts);
    CpuState& cs = cpu_state(ev.cpu);
    if (cs.first_ts < 0) cs.first_ts = ev.ts;
    prev_last_ts = cs.last_ts;
    // Taken at its word, such a line would bring the task back to life running on this CPU
    // since the CPU's first event, beside the task really current there (a fork by an exited
    // pid doubled a trace's on-CPU time with "repairs: none").
    if (ev.line_pid > 0 && !live.count(ev.line_pid)) {
      if (auto ex = exited_at.find(ev.line_pid); ex != exited_at.end()) {
        repair("event-by-exited-pid",
               fmt::format("an event names as the current task a pid that exited before (switched out dead "
                           "at line {}) and was not forked again; the event was dropped (a fork's child "
                           "kept, as forked by an untraced parent)", ex->second));
        // The child a false fork names may run later: it starts at the fork, runnable, as the
        // child of a parent outside the trace does (on_fork), not "running since the trace began".
        if (ev.type == EventType::kFork && !live.count(ev.other_pid)) {
          TaskRec& c = recs[create(ev.other_pid, ev.other_comm, -1)];
          c.st = St::kWoken;
          c.fork_wait = true;
          c.since = ev.ts;
          c.start = StartState::kRunnable;
          c.start_ts = ev.ts;
          touch_span(c, ev.ts);
        }
        cpu_state(ev.cpu).last_ts = ev.ts;
        cur_ev = nullptr;
        return;
      }
    }
    switch (ev.type) {
      case EventType::kSwitch: on_switch(ev); break;
      case EventType::kWaking:
      case EventType::kWakeup: on_wake(ev); break;
      case EventType::kWakeupNew: {
        auto it = live.find(ev.other_pid);
        if (it == live.end() || recs[it->second].st == St::kNew) {
          // No sched_process_fork recorded: the fork is implied by the parent's wakeup_new.
          on_fork(ev, ev.line_pid, ev.other_pid, ev.other_comm);
        } else if (recs[it->second].st == St::kWoken) {
          recs[it->second].since = std::max(recs[it->second].since, ev.ts);
        }
        break;
      }
      case EventType::kFork: on_fork(ev, ev.pid, ev.other_pid, ev.other_comm); break;
      case EventType::kExit:
        if (ev.line_pid > 0 && ev.line_pid == ev.pid) touch_running(get(ev.pid, ev.comm), ev);
        break;
      case EventType::kExec: {
        uint32_t ord = get(ev.pid, ev.line_comm);
        if (ev.other_pid > 0 && ev.other_pid != ev.pid) {
          // de_thread(): a non-leader thread exec'd and took over the leader's pid.
          auto it = live.find(ev.other_pid);
          if (it != live.end()) {
            TaskRec& old = recs[it->second];
            if (old.st == St::kRunning) add_run(old, ev.ts - old.since);
            cancel_early(old);
            flush_run(old);
            push(old, Action::exit());
            old.st = St::kDead;
            live.erase(it);
          }
        }
        if (ev.line_pid == ev.pid) touch_running(ord, ev);
        TaskRec& t = recs[ord];
        flush_at(t, ev.ts);
        push(t, Action::exec());
        set_comm(t, ev.other_comm.empty() ? ev.line_comm : ev.other_comm);
        touch_span(t, ev.ts);
        break;
      }
      case EventType::kMigrate:
      case EventType::kOther:
        if (ev.line_pid > 0 && !ev.irq_context) {
          const uint32_t ord = get(ev.line_pid, ev.line_comm);
          touch_running(ord, ev);
          if (ev.type == EventType::kOther && (opt.channels != TraceChannels::kOff || opt.syscall_marks))
            on_syscall(ord, ev);
        }
        break;
    }
    cpu_state(ev.cpu).last_ts = ev.ts;
    if (ev.line_tgid > 0 && ev.line_pid > 0) {
      auto it = live.find(ev.line_pid);
      if (it != live.end()) recs[it->second].tgid = ev.line_tgid;
    }
    cur_ev = nullptr;
  }

  // A read/write syscall enter or exit in the context of task `ord`. Its time becomes runs
  // flagged kRunSyscall (flush_run()) so that `run --preempt none` holds a wakeup preemption of
  // the task until the syscall returns, as a preempt=none kernel does (exit_to_user_mode());
  // a wake the task issues inside the syscall (its sched_waking comes between the enter and the
  // exit) splits the flagged time, so the replay's wake is issued in the syscall and the return
  // to user space follows it. --channels also keeps the fd and bytes of each syscall (scs);
  // syscall_marks alone keeps only where each syscall is.
  void on_syscall(uint32_t ord, const TraceEvent& ev) {
    const std::string& n = ev.event_name;
    if (n == "sys_enter_close") {
      if (opt.channels == TraceChannels::kOff) return;
      if (ev.other_value >= 0) ++fd_tables[static_cast<size_t>(recs[ord].fd_table)].gen[ev.other_value];
      return;
    }
    const bool enter = n == "sys_enter_read" || n == "sys_enter_write";
    const bool exit = n == "sys_exit_read" || n == "sys_exit_write";
    if (!enter && !exit) return;
    TaskRec& t = recs[ord];
    if (!t.in_workload()) return;
    const bool write = n.back() == 'e';
    if (enter) {
      t.cur_sc = -1;  // an enter without the previous exit: that one is never replayed
      if (ev.other_value < 0) return;
      flush_at(t, ev.ts);
      t.sc_entered = true;
      if (opt.channels == TraceChannels::kOff) {
        t.cur_sc = kScMarkOnly;
        return;
      }
      auto it = fd_keys.emplace(resolve_fd(t.fd_table, ev.other_value), static_cast<uint32_t>(fd_keys.size())).first;
      Syscall sc;
      sc.task = ord;
      sc.key = it->second;
      sc.write = write;
      if (!write) {
        sc.at = static_cast<int64_t>(t.prog.size());
        t.prog.push_back(Action::read(0, 1));  // placeholder: made a read or dropped in finish()
      }
      t.cur_sc = static_cast<int64_t>(scs.size());
      scs.push_back(sc);
      return;
    }
    if (t.cur_sc < 0) return;
    // The time inside the syscall ends here (flagged kRunSyscall); the write's placeholder is its
    // last kernel step, the return to user space follows.
    flush_at(t, ev.ts);
    t.sc_returned = true;
    t.sc_entered = false;
    if (t.cur_sc == kScMarkOnly) {
      t.cur_sc = -1;
      return;
    }
    Syscall& sc = scs[static_cast<size_t>(t.cur_sc)];
    t.cur_sc = -1;
    if (sc.write != write || ev.other_value <= 0) return;
    sc.done = true;
    sc.bytes = ev.other_value;
    ++rep.channels.syscalls;
    if (write) {
      sc.at = static_cast<int64_t>(t.prog.size());
      t.prog.push_back(Action::write(0, 1));  // placeholder
    }
  }

  // --channels: the file behind fd in table `tab` now, as (table it was opened in, fd, gen).
  std::tuple<int32_t, int64_t, uint32_t> resolve_fd(int32_t tab, int64_t fd) {
    auto get_gen = [fd](const std::unordered_map<int64_t, uint32_t>& m) {
      auto it = m.find(fd);
      return it == m.end() ? 0u : it->second;
    };
    uint32_t g = get_gen(fd_tables[static_cast<size_t>(tab)].gen);
    while (g == 0 && fd_tables[static_cast<size_t>(tab)].parent >= 0) {
      const FdTable& ft = fd_tables[static_cast<size_t>(tab)];
      g = get_gen(ft.snap);
      tab = ft.parent;
    }
    return {tab, fd, g};
  }

  // --channels: the wake just pushed as w's last action woke b, whose block is its last action.
  void note_edge(uint32_t w, int64_t wsc, uint32_t b) {
    if (recs[w].prog.empty()) return;
    note_edge_at(w, wsc, static_cast<uint32_t>(recs[w].prog.size() - 1), b);
  }
  void note_edge_at(uint32_t w, int64_t wsc, uint32_t wi, uint32_t b) {
    const TaskRec& bt = recs[b];
    if (opt.channels == TraceChannels::kOff || wsc < 0 || bt.cur_sc < 0 || bt.prog.empty()) return;
    if (!recs[w].in_workload() || !bt.in_workload()) return;
    sc_edges.push_back({static_cast<uint32_t>(wsc), static_cast<uint32_t>(bt.cur_sc), w, b, wi,
                        static_cast<uint32_t>(bt.prog.size() - 1)});
  }

  // --channels: turns the syscalls of fd groups joined by wakeups into channel actions and drops
  // the wake/block pairs between them; everything else keeps its tokens. Placeholders of
  // syscalls that stay out are cancelled.
  void build_channels() {
    if (opt.channels == TraceChannels::kOff) return;
    ChannelImport& ci = rep.channels;
    std::vector<uint32_t> parent(fd_keys.size());
    for (size_t i = 0; i < parent.size(); ++i) parent[i] = static_cast<uint32_t>(i);
    auto find = [&](uint32_t x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    auto usable = [&](const SyscallEdge& e) {
      const Syscall& a = scs[e.wsc];
      const Syscall& b = scs[e.bsc];
      return a.done && b.done && a.write != b.write && e.w != e.b;
    };
    for (const SyscallEdge& e : sc_edges) {
      if (!usable(e)) continue;
      ++ci.edges;
      uint32_t x = find(scs[e.wsc].key), y = find(scs[e.bsc].key);
      if (x != y) parent[x] = y;
    }
    // Per group: joined by an edge at all, bytes each way.
    struct Group {
      bool joined = false;
      int64_t written = 0, read = 0;
      int64_t chan = -1;
    };
    std::vector<Group> g(parent.size());
    for (const SyscallEdge& e : sc_edges)
      if (usable(e)) g[find(scs[e.wsc].key)].joined = true;
    for (const Syscall& sc : scs) {
      if (!sc.done) continue;
      Group& gr = g[find(sc.key)];
      (sc.write ? gr.written : gr.read) += sc.bytes;
    }
    int64_t next = 0;
    for (size_t i = 0; i < g.size(); ++i) {
      if (find(static_cast<uint32_t>(i)) != i || !g[i].joined) continue;
      ++ci.groups;
      if (g[i].written == 0 || g[i].read == 0) {
        ++ci.refused_one_sided;
      } else if (g[i].written < g[i].read) {
        // Bytes from before the trace, or from a writer that is not selected or whose fd never met
        // a wakeup: the readers would wait for them forever.
        ++ci.refused_short;
      } else {
        g[i].chan = next++;
      }
    }
    ci.channels = static_cast<uint64_t>(next);
    if (ci.syscalls == 0)
      rep.warnings.emplace_back("--channels: the trace has no read/write syscall events of the selected tasks (record "
                                "with schedsim record --extra-events syscalls); every wakeup stays a token");
    const uint8_t flags = opt.channels == TraceChannels::kSocket ? kChanSocket : 0;
    auto chan_of = [&](const Syscall& sc) { return sc.done ? g[find(sc.key)].chan : -1; };
    // A read that slept replays at its first replaced block (where the kernel's pipe_read()
    // sleeps); its placeholder at the enter goes.
    std::vector<int64_t> read_at(scs.size(), -1);
    // The recorded wakes each syscall's channel operation replaces (Action::reserved).
    std::vector<uint16_t> woke(scs.size(), 0);
    for (const SyscallEdge& e : sc_edges) {
      if (!usable(e) || chan_of(scs[e.wsc]) < 0) continue;
      recs[e.w].cancelled.push_back(e.wi);
      woke[e.wsc] |= recs[e.w].prog[e.wi].reserved;
      ++ci.tokens_replaced;
      const Syscall& bs = scs[e.bsc];
      if (!bs.write && read_at[e.bsc] < 0) {
        read_at[e.bsc] = e.bi;
      } else {
        recs[e.b].cancelled.push_back(e.bi);
      }
    }
    for (size_t i = 0; i < scs.size(); ++i) {
      const Syscall& sc = scs[i];
      if (sc.at < 0) continue;
      TaskRec& t = recs[sc.task];
      const int64_t chan = chan_of(sc);
      if (chan < 0) {
        t.cancelled.push_back(static_cast<uint32_t>(sc.at));
        continue;
      }
      const auto bytes = static_cast<uint32_t>(std::min<int64_t>(sc.bytes, UINT32_MAX));
      if (sc.write) {
        t.prog[static_cast<size_t>(sc.at)] = Action::write(chan, bytes, flags);
        t.prog[static_cast<size_t>(sc.at)].reserved = woke[i];
        ++ci.writes;
      } else {
        int64_t at = sc.at;
        if (read_at[i] >= 0) {
          t.cancelled.push_back(static_cast<uint32_t>(sc.at));
          at = read_at[i];
        }
        t.prog[static_cast<size_t>(at)] = Action::read(chan, bytes, flags);
        t.prog[static_cast<size_t>(at)].reserved = woke[i];
        ++ci.reads;
      }
    }
  }

  void on_lost(int32_t cpu, int64_t count, long line, bool started) {
    LostWindow w;
    w.cpu = cpu;
    w.events = count;
    w.line = line;
    w.buffer_started = started;
    if (opt.strict) {
      throw InputError(SourceLoc{path, line, 0},
                       started ? fmt::format("strict mode: CPU {} buffer started late (older events "
                                             "were overwritten)", cpu)
                               : fmt::format("strict mode: {} events lost on CPU {}",
                                             count >= 0 ? std::to_string(count) : "some", cpu));
    }
    CpuState& cs = cpu_state(cpu);
    // Every task whose state depends on what happened on this CPU is resynchronised at its
    // next event: the one that was running there and those queued there.
    for (auto& [pid, ord] : live) {
      TaskRec& t = recs[ord];
      if (t.cpu != cpu) continue;
      if (t.st == St::kRunning) {
        add_run(t, std::max<int64_t>(0, cs.last_ts - t.since));
        t.since = cs.last_ts;
      } else if (t.st != St::kRunnable && t.st != St::kWoken) {
        continue;
      }
      cancel_early(t);
      t.st = St::kUnknown;
      ++w.tasks_resynced;
    }
    cs.cur = -1;
    cs.first_ts = -1;  // re-armed by the next event on this CPU
    rep.lost.push_back(w);
  }

  // The workload format also bounds the sum of every run, sleep and start time over all tasks by
  // kMaxWorkloadTime (10^17 ns, docs/workload-format.md "Limits"), so that the engine's sums over
  // a whole workload stay within int64. on_event()'s span check bounds each task's share by about
  // the span (its runs and sleeps follow one another in time, its start lies inside the trace),
  // not the sum: a trace of more than ~100 tasks spanning close to 11.6 days passes it. Refused
  // here, naming the task at which the sum passes the bound, rather than written as a workload
  // its own reader rejects. The observed on-CPU total (`total_runtime`, which SMT normalisation
  // may make larger than the runs) has the same bound.
  void check_workload_time(const Workload& w, int64_t oncpu_total) const {
    auto refuse = [&](const std::string& what) {
      throw InputError(
          SourceLoc{path},
          fmt::format("the {} selected tasks of this trace (spanning {}) hold more than {} ns (about "
                      "3.2 years) of {}, the most one workload may hold: select fewer tasks (--pid, "
                      "--comm, --descendants-of) or a shorter part of the trace",
                      w.tasks.size(), format_duration(Duration::ns(last_ts - first_ts)), kMaxWorkloadTime, what));
    };
    if (const std::optional<size_t> ti = first_task_over_bounds(w)) {
      const TaskSpec& s = w.tasks[*ti];
      refuse(fmt::format("run, sleep and start time together (the sum passes it at task '{}', pid {})", s.name, s.pid));
    }
    if (oncpu_total > kMaxWorkloadTime) refuse("on-CPU time together");
  }

  Workload finish() {
    // Close what is still open at the end of the trace.
    for (auto& [pid, ord] : live) {
      TaskRec& t = recs[ord];
      if (t.st == St::kRunning) add_run(t, last_ts - t.since);
      cancel_early(t);
    }
    for (auto& t : recs) flush_run(t);
    rep.channel_mode = opt.channels;
    build_channels();

    Workload w;
    std::vector<uint32_t> task_of(recs.size(), TaskId::kInvalid);
    for (size_t i = 0; i < recs.size(); ++i) {
      const TaskRec& t = recs[i];
      if (!t.in_workload()) continue;
      // A task that never did anything (seen only as a name) is not a task; nor is a background
      // task that did nothing after the measured span started (exited before it, or asleep
      // through it): start_span().
      if (t.st == St::kNew && t.prog.size() == t.trim_at) continue;
      if (t.trimmed && t.prog.size() == t.trim_at && (t.st == St::kDead || t.trimmed_blocked)) continue;
      task_of[i] = static_cast<uint32_t>(w.tasks.size());
      w.tasks.emplace_back();
    }
    std::vector<uint64_t> wakes_to(w.tasks.size(), 0);
    int64_t run_total = 0, oncpu_total = 0, corun_saved = 0;
    int64_t bg_oncpu = 0, bg_corun_saved = 0;  // background tasks' share (not observed)
    for (size_t i = 0; i < recs.size(); ++i) {
      TaskRec& t = recs[i];
      if (task_of[i] == TaskId::kInvalid) continue;
      TaskSpec& s = w.tasks[task_of[i]];
      s.name = t.comm;
      s.background = t.background;
      s.pid = t.pid;
      s.tgid = t.tgid;
      if (t.prio >= 100 && t.prio <= 139) s.nice = t.prio - 120;
      int32_t kcpu = t.kthread ? percpu_kthread_cpu(t.comm) : -1;
      if (kcpu >= 0 && kcpu < static_cast<int32_t>(CpuMask::kMaxCpus)) {
        s.kthread = true;
        s.affinity = CpuMask::of({static_cast<uint32_t>(kcpu)});
      }
      s.start = t.start;
      s.start_time = Instant::from_ns(t.start == StartState::kForked ? 0 : std::max<int64_t>(0, t.start_ts - first_ts));
      s.initial_cpu = t.initial_cpu;
      std::sort(t.cancelled.begin(), t.cancelled.end());
      t.cancelled.erase(std::unique(t.cancelled.begin(), t.cancelled.end()), t.cancelled.end());
      size_t ci = 0;
      s.program.reserve(t.prog.size() - t.trim_at);
      for (size_t k = t.trim_at; k < t.prog.size(); ++k) {
        while (ci < t.cancelled.size() && t.cancelled[ci] < k) ++ci;
        if (ci < t.cancelled.size() && t.cancelled[ci] == k) {
          ++ci;
          continue;
        }
        Action a = t.prog[k];
        if (a.kind == ActionKind::kWake || a.kind == ActionKind::kFork) {
          uint32_t target = task_of[static_cast<size_t>(a.arg)];
          SCHEDSIM_ASSERT(target != TaskId::kInvalid, "action targets an unselected task");
          a.arg = target;
          if (a.kind == ActionKind::kWake) ++wakes_to[target];
        }
        if (a.kind == ActionKind::kRun) run_total += a.arg;
        // Adjacent runs (left by a cancelled no-op wake) merge into one when recorded on the
        // same CPU (each run keeps its recorded CPU: replay_overheads=migration-delta) and on the
        // same side of a syscall boundary (kRunSyscall).
        if (a.kind == ActionKind::kRun && !s.program.empty() && s.program.back().kind == ActionKind::kRun &&
            s.program.back().body == a.body && s.program.back().flags == a.flags)
          s.program.back().arg += a.arg;
        else
          s.program.push_back(a);
      }
      oncpu_total += t.oncpu;
      corun_saved += t.corun_saved;
      if (t.background) {
        bg_oncpu += t.oncpu;
        bg_corun_saved += t.corun_saved;
      }
      std::vector<Action>().swap(t.prog);
    }
    check_workload_time(w, oncpu_total);
    // Conservation (docs/traces.md "Extraction"): wakes received == blocks (+1 when the life starts
    // blocked), and total run == on-CPU time.
    rep.conservation_ok = true;
    std::string first_bad;
    for (size_t k = 0; k < w.tasks.size(); ++k) {
      const TaskSpec& s = w.tasks[k];
      uint64_t blocks = 0;
      for (const Action& a : s.program) blocks += a.kind == ActionKind::kBlock;
      uint64_t need = blocks + (s.start == StartState::kBlocked ? 1 : 0);
      rep.blocks_total += blocks;
      rep.blocked_at_start += s.start == StartState::kBlocked ? 1 : 0;
      rep.wakes_total += wakes_to[k];
      if (need != wakes_to[k] && first_bad.empty()) {
        first_bad = fmt::format("task {} (pid {}) receives {} wakes but blocks {} times", s.name,
                                s.pid, wakes_to[k], need);
      }
    }
    rep.run_total = Duration::ns(run_total);
    rep.oncpu_total = Duration::ns(oncpu_total);
    if (run_total + corun_saved != oncpu_total && first_bad.empty())
      first_bad = fmt::format("total run {} ns differs from on-CPU time {} ns", run_total + corun_saved, oncpu_total);
    for (size_t c = 0; c < cpu_busy.size() && first_bad.empty(); ++c)
      if (cpu_busy[c] > last_ts - first_ts)
        first_bad = fmt::format("CPU {} ran tasks for {} ns in a trace of {} ns: two tasks were counted running on it "
                                "at once", c, cpu_busy[c], last_ts - first_ts);
    // Of the measured tasks (the observed total_runtime's counterpart, cli's work check).
    if (!opt.smt_siblings.empty()) w.meta["smt_normalized_ns"] = std::to_string(corun_saved - bg_corun_saved);
    if (!first_bad.empty()) {
      rep.conservation_ok = false;
      if (opt.strict) throw InputError(SourceLoc{path}, "conservation check failed: " + first_bad);
      rep.warnings.push_back("conservation check failed: " + first_bad);
    }
    rep.tasks_background = w.background_count();
    rep.tasks_selected = w.tasks.size() - rep.tasks_background;
    std::vector<std::string> sel;
    if (!opt.pids.empty()) {
      std::vector<std::string> ps;
      for (int64_t p : opt.pids) ps.push_back(std::to_string(p));
      sel.push_back("pid " + join(ps, ", "));
    }
    if (opt.descendants_of >= 0)
      sel.push_back(fmt::format("descendants of {}{}", opt.descendants_of,
                                rep.selection_from_header ? " (the command recorded by schedsim record; --all-tasks for all)" : ""));
    std::string s = sel.empty() ? "all tasks" : join(sel, " or ");
    if (!opt.comm_regex.empty()) s += fmt::format(", comm matching /{}/", opt.comm_regex);
    if (opt.exclude_kthreads) s += ", no kernel threads";
    if (!opt.background_comm_regex.empty() || !opt.background_pids.empty()) {
      std::vector<std::string> bg;
      for (int64_t p : opt.background_pids) bg.push_back(fmt::format("pid {}", p));
      if (!opt.background_comm_regex.empty()) bg.push_back(fmt::format("comm matching /{}/", opt.background_comm_regex));
      s += fmt::format("; background: {} ({} task{})", join(bg, " or "), rep.tasks_background,
                       rep.tasks_background == 1 ? "" : "s");
    }
    rep.selection = s;
    rep.first_ts = first_ts < 0 ? 0 : first_ts;
    rep.last_ts = last_ts < 0 ? 0 : last_ts;
    obs.present = true;
    obs.total_runtime = Duration::ns(oncpu_total - bg_oncpu);
    obs.span = Duration::ns(sel_first < 0 ? 0 : sel_last - sel_first);
    obs.nr_cpus = static_cast<uint32_t>(cpus.size());
    w.observed = obs;
    return w;
  }
};

Extractor::Extractor(const ExtractOptions& opt, ImportReport& report, std::string path)
    : impl_(std::make_unique<Impl>(opt, report, std::move(path))) {}
Extractor::~Extractor() = default;

void Extractor::set_selection(std::vector<bool> by_ordinal) {
  impl_->selection = std::move(by_ordinal);
  impl_->has_selection = true;
}

void Extractor::set_background_selection(std::vector<bool> by_ordinal) { impl_->bg_selection = std::move(by_ordinal); }

std::vector<bool> Extractor::background_comm_matches() const {
  std::vector<bool> out(impl_->recs.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = impl_->recs[i].bg_comm_matched;
  return out;
}

std::vector<bool> Extractor::comm_matches() const {
  std::vector<bool> out(impl_->recs.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = impl_->recs[i].comm_matched;
  return out;
}

void Extractor::set_recorded_root(int64_t pid) {
  ExtractOptions& o = impl_->opt;
  if (o.all_tasks || !o.pids.empty() || o.descendants_of >= 0 || !o.comm_regex.empty()) return;
  SCHEDSIM_ASSERT(impl_->recs.empty(), "the recorded root must be known before any task");
  o.descendants_of = pid;
  impl_->rep.selection_from_header = true;
}

void Extractor::on_event(const TraceEvent& ev) { impl_->on_event(ev); }
void Extractor::on_lost(int32_t cpu, int64_t count, long line, bool started) {
  impl_->on_lost(cpu, count, line, started);
}
Workload Extractor::finish() { return impl_->finish(); }

}  // namespace schedsim::traces
