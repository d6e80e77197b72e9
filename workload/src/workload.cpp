#include "schedsim/workload/workload.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
#include "schedsim/base/int128.hpp"
#include "schedsim/base/run_control.hpp"

namespace schedsim {

namespace {
// Counts the actions a program executes with loops expanded, without visiting every iteration
// (the walk that does visit them is loop_walk.hpp): multiply per-body counts (loops are
// properly nested by validate_workload).
// Products and sums saturate at INT64_MAX (huge loop counts times huge durations must not be
// signed overflow; such a workload fails the engine's simulated-time limit anyway).
int64_t sat_mul(int64_t a, int64_t b) {
  Int128 p = static_cast<Int128>(a) * b;
  return p > INT64_MAX ? INT64_MAX : p < INT64_MIN ? INT64_MIN : static_cast<int64_t>(p);
}
int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

void count_range(const std::vector<Action>& prog, size_t begin, size_t end, int64_t mult,
                 std::vector<uint64_t>& counts, int64_t& work) {
  size_t i = begin;
  while (i < end) {
    const Action& a = prog[i];
    if (a.kind == ActionKind::kLoop) {
      // The body [i-body, i) was already counted once; count it `arg` more times.
      if (a.arg > 0) count_range(prog, i - a.body, i, sat_mul(mult, a.arg), counts, work);
      ++i;
      continue;
    }
    counts[static_cast<size_t>(a.kind)] += static_cast<uint64_t>(mult);
    if (a.kind == ActionKind::kRun) work = sat_add(work, sat_mul(a.arg, mult));
    ++i;
  }
}
}  // namespace

const char* to_string(ActionKind k) {
  static constexpr const char* kNames[] = {"run", "wake", "fork", "block", "sleep", "exit", "exec", "loop", "write", "read"};
  auto i = static_cast<size_t>(k);
  return i < std::size(kNames) ? kNames[i] : "?";
}

Duration Workload::total_work(bool measured_only) const {
  std::vector<uint64_t> counts(static_cast<size_t>(ActionKind::kRead) + 1, 0);
  int64_t work = 0;
  for (const auto& t : tasks)
    if (!measured_only || !t.background) count_range(t.program, 0, t.program.size(), 1, counts, work);
  return Duration::ns(work);
}

Duration program_work(const std::vector<Action>& program) {
  std::vector<uint64_t> counts(static_cast<size_t>(ActionKind::kRead) + 1, 0);
  int64_t work = 0;
  count_range(program, 0, program.size(), 1, counts, work);
  return Duration::ns(work);
}

bool Workload::marks_syscalls() const {
  for (const auto& t : tasks)
    for (const Action& a : t.program)
      if (a.kind == ActionKind::kRun && (a.flags & kRunSyscall) != 0) return true;
  return false;
}

size_t Workload::background_count() const {
  size_t n = 0;
  for (const auto& t : tasks) n += t.background ? 1 : 0;
  return n;
}

std::vector<uint64_t> Workload::expanded_action_counts() const {
  std::vector<uint64_t> counts(static_cast<size_t>(ActionKind::kRead) + 1, 0);
  int64_t work = 0;
  for (const auto& t : tasks) count_range(t.program, 0, t.program.size(), 1, counts, work);
  return counts;
}

namespace {
// Expanded totals of prog[begin, end) run `mult` times, saturating: `over` is set as soon as a
// bound is passed, so no sum ever overflows. Recursion depth is the loop nesting depth, which
// validate_workload bounds (kMaxLoopDepth) before calling this.
struct Totals {
  uint64_t actions = 0;
  int64_t time = 0;  // run + sleep + start times, ns
  bool over = false;
};
void add_range(const std::vector<Action>& prog, size_t begin, size_t end, uint64_t mult, Totals& t) {
  for (size_t i = begin; i < end && !t.over; ++i) {
    const Action& a = prog[i];
    if (__builtin_add_overflow(t.actions, mult, &t.actions) || t.actions > kMaxExpandedActions) t.over = true;
    if (a.kind == ActionKind::kLoop && a.arg > 0) {
      uint64_t inner = 0;
      if (__builtin_mul_overflow(mult, static_cast<uint64_t>(a.arg), &inner) || inner > kMaxExpandedActions)
        t.over = true;
      else
        add_range(prog, i - a.body, i, inner, t);
    } else if (a.kind == ActionKind::kRun || a.kind == ActionKind::kSleep) {
      int64_t d = 0;
      if (mult > static_cast<uint64_t>(kMaxWorkloadTime) ||
          __builtin_mul_overflow(a.arg, static_cast<int64_t>(mult), &d) ||
          __builtin_add_overflow(t.time, d, &t.time) || t.time > kMaxWorkloadTime)
        t.over = true;
    }
  }
}
}  // namespace

std::optional<size_t> first_task_over_bounds(const Workload& w) {
  Totals totals;
  for (size_t ti = 0; ti < w.tasks.size(); ++ti) {
    poll_resources();  // every loop over a workload's tasks polls: signals in run's scope, the memory budget
    const TaskSpec& t = w.tasks[ti];
    add_range(t.program, 0, t.program.size(), 1, totals);
    if (!totals.over && __builtin_add_overflow(totals.time, t.start_time.ns(), &totals.time)) totals.over = true;
    if (totals.over || totals.time > kMaxWorkloadTime) return ti;
  }
  return std::nullopt;
}

void validate_workload(const Workload& w, const std::string& source) {
  const size_t n = w.tasks.size();
  std::vector<int> forked(n, 0);
  std::map<int64_t, uint8_t> chan_kind;  // channel -> flags of its first use (pipe or socket)
  for (size_t ti = 0; ti < n; ++ti) {
    poll_resources();
    const TaskSpec& t = w.tasks[ti];
    auto fail = [&](size_t ai, const std::string& msg) {
      throw InputError(SourceLoc{source}, fmt::format("task {} ('{}'), action {}: {}", ti, t.name, ai, msg));
    };
    if (t.nice < -20 || t.nice > 19) fail(0, fmt::format("nice {} outside -20..19", t.nice));
    if (t.slice.count() != 0 && (t.slice < kMinSlice || t.slice > kMaxSlice))
      fail(0, fmt::format("slice {} ns outside {}..{} ns", t.slice.count(), kMinSlice.count(), kMaxSlice.count()));
    if (t.start_time.ns() < 0 || t.start_time.ns() > kMaxTimeValue)
      fail(0, fmt::format("start_time {} ns outside 0..{} ns", t.start_time.ns(), kMaxTimeValue));
    // Loops must nest: a loop's body may not start inside another loop's body and end after it.
    // `open` holds the outermost loops seen so far as disjoint [start, end) ranges in order, each
    // with its nesting depth; a new loop swallows those inside its body (one pass, O(actions)).
    struct Open {
      size_t start, end;
      int depth;
    };
    std::vector<Open> open;
    std::vector<size_t> forks_before(t.program.size() + 1, 0);
    for (size_t ai = 0; ai < t.program.size(); ++ai) {
      const Action& a = t.program[ai];
      forks_before[ai + 1] = forks_before[ai] + (a.kind == ActionKind::kFork ? 1 : 0);
      switch (a.kind) {
        case ActionKind::kRun:
        case ActionKind::kSleep:
          if (a.arg < 0) fail(ai, "negative duration");
          if (a.arg > kMaxTimeValue) fail(ai, fmt::format("duration {} ns exceeds {} ns", a.arg, kMaxTimeValue));
          if (a.flags != 0 && (a.kind != ActionKind::kRun || a.flags != kRunSyscall))
            fail(ai, fmt::format("unknown {} flags {}", to_string(a.kind), a.flags));
          break;
        case ActionKind::kWake:
        case ActionKind::kFork:
          if (a.arg < 0 || static_cast<size_t>(a.arg) >= n)
            fail(ai, fmt::format("target task {} does not exist (workload has {} tasks)", a.arg, n));
          if (a.kind == ActionKind::kFork) {
            if (w.tasks[static_cast<size_t>(a.arg)].start != StartState::kForked)
              fail(ai, fmt::format("fork target task {} is not declared as forked", a.arg));
            ++forked[static_cast<size_t>(a.arg)];
          }
          break;
        case ActionKind::kLoop: {
          if (a.body == 0 || a.body > ai) fail(ai, fmt::format("loop body of {} actions does not fit before it", a.body));
          if (a.arg < 0) fail(ai, "negative loop count");
          size_t start = ai - a.body;
          int depth = 1;
          while (!open.empty() && open.back().end > start) {
            if (open.back().start < start) fail(ai, "loops overlap without nesting");
            depth = std::max(depth, open.back().depth + 1);
            open.pop_back();
          }
          if (depth > kMaxLoopDepth) fail(ai, fmt::format("loops nested deeper than {}", kMaxLoopDepth));
          if (forks_before[ai] > forks_before[start] && a.arg > 0)
            fail(ai, "a fork inside a loop would fork the same task twice");
          open.push_back({start, ai + 1, depth});
          break;
        }
        case ActionKind::kBlock:
        case ActionKind::kExit:
        case ActionKind::kExec:
          break;
        case ActionKind::kWrite:
        case ActionKind::kRead: {
          if (a.arg < 0 || a.arg > kMaxChannel) fail(ai, fmt::format("channel {} out of range (0..{})", a.arg, kMaxChannel));
          if (a.body == 0) fail(ai, "a channel operation of 0 bytes");
          if ((a.flags & ~kChanSocket) != 0) fail(ai, fmt::format("unknown channel flags {}", a.flags));
          auto [it, fresh] = chan_kind.emplace(a.arg, a.flags);
          if (!fresh && it->second != a.flags)
            fail(ai, fmt::format("channel {} is used both as a pipe and as a socket", a.arg));
          break;
        }
      }
    }
  }
  // After the structural checks: the expansion needs well-formed loops of bounded depth.
  if (const std::optional<size_t> ti = first_task_over_bounds(w))
    throw InputError(SourceLoc{source},
                     fmt::format("task {} ('{}'): with loops expanded, the workload passes {} actions or {} ns "
                                 "of run, sleep and start time (the bounds that keep simulated time "
                                 "within int64)",
                                 *ti, w.tasks[*ti].name, kMaxExpandedActions, kMaxWorkloadTime));
  for (size_t ti = 0; ti < n; ++ti) {
    if (w.tasks[ti].start == StartState::kForked && forked[ti] != 1)
      throw InputError(SourceLoc{source}, fmt::format("task {} ('{}') is declared forked but is forked {} times", ti, w.tasks[ti].name, forked[ti]));
  }
  if (n > 0 && w.background_count() == n)
    throw InputError(SourceLoc{source}, fmt::format("all {} tasks are \"background\": true, so nothing would be measured "
                                                    "(background tasks are load only; leave the field out of the tasks "
                                                    "to measure)",
                                                    n));
}

}  // namespace schedsim
