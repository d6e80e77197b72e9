// The loop walk the engine's interpreter runs on every step (loop_walk.hpp, Prog::fetch) pinned
// against hand-expanded programs and against Workload::expanded_action_counts(), the counter
// that multiplies loop bodies without walking them: the two must agree on every program.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "schedsim/base/random.hpp"
#include "schedsim/workload/loop_walk.hpp"
#include "schedsim/workload/workload.hpp"

using namespace schedsim;

namespace {

// Runs `prog` to its end through next_action(), as the interpreter does (execute, then step
// past the action), recording the argument of every run() it visits.
std::vector<int64_t> walk(const std::vector<Action>& prog) {
  struct {
    const Action* code;
    size_t code_size;
    size_t pc = 0;
    std::vector<LoopFrame> loops;
  } w{prog.data(), prog.size(), 0, {}};
  std::vector<int64_t> out;
  while (const Action* a = next_action(w)) {
    REQUIRE(a->kind != ActionKind::kLoop);
    out.push_back(a->kind == ActionKind::kRun ? a->arg : -1);
    ++w.pc;
  }
  CHECK(w.loops.empty());
  return out;
}

Action run(int64_t ns) { return Action::run(Duration::ns(ns)); }

}  // namespace

TEST_CASE("loop walk: nested loops, zero-count loops, a loop at the start", "[workload][loop]") {
  // run1, then (run2 (run3) x3 more) x1 more, then (run4) x0 more, then run5.
  std::vector<Action> prog = {run(1), run(2), run(3), Action::loop(1, 2), Action::loop(3, 1),
                              run(4), Action::loop(1, 0), run(5)};
  CHECK(walk(prog) == std::vector<int64_t>{1, 2, 3, 3, 3, 2, 3, 3, 3, 4, 5});
  // A loop whose body is the program's first action, and an empty program.
  CHECK(walk({run(7), Action::loop(1, 3)}) == std::vector<int64_t>{7, 7, 7, 7});
  CHECK(walk({}).empty());
}

TEST_CASE("loop walk agrees with expanded_action_counts on random nested programs", "[workload][loop]") {
  SplitMix64 rng(11);
  for (int round = 0; round < 200; ++round) {
    // Random properly nested program: each loop closes over a suffix of the actions emitted
    // since the last loop boundary at its depth, at most 3 deep.
    std::vector<Action> prog;
    std::vector<size_t> open;  // start index of each open body
    for (int i = 0; i < 24; ++i) {
      uint64_t r = rng.next() % 6;
      if (r == 0 && open.size() < 3) {
        open.push_back(prog.size());
      } else if (r == 1 && !open.empty() && prog.size() > open.back()) {
        size_t start = open.back();
        open.pop_back();
        prog.push_back(Action::loop(static_cast<uint32_t>(prog.size() - start), static_cast<int64_t>(rng.next() % 4)));
      } else {
        prog.push_back(r == 2 ? Action::block() : run(static_cast<int64_t>(1 + rng.next() % 9)));
      }
    }
    Workload w;
    TaskSpec t;
    t.program = prog;
    w.tasks.push_back(t);
    std::vector<uint64_t> counts = w.expanded_action_counts();
    std::vector<int64_t> seen = walk(prog);
    uint64_t runs = 0, blocks = 0;
    int64_t work = 0;
    for (int64_t x : seen) {
      if (x < 0) ++blocks;
      else {
        ++runs;
        work += x;
      }
    }
    INFO("round " << round);
    CHECK(runs == counts[static_cast<size_t>(ActionKind::kRun)]);
    CHECK(blocks == counts[static_cast<size_t>(ActionKind::kBlock)]);
    CHECK(work == w.total_work().count());
  }
}
