// The engine's private work/rate accountant (engine/src/work.hpp) and the interpreter's loop
// resolution (engine/src/interpreter.hpp, Prog::fetch), on their own.
#include <catch2/catch.hpp>

#include <vector>

#include "interpreter.hpp"
#include "schedsim/base/random.hpp"
#include "work.hpp"

using namespace schedsim;
using detail::i128;
using detail::kScale;
using detail::Prog;
using detail::TaskWork;

TEST_CASE("work: overhead is consumed before run() work, and only work is reported", "[engine][work]") {
  TaskWork w;
  w.work_left = 1000 * i128{kScale};
  w.charge(Duration::ns(300));
  REQUIRE(w.left() == 1300 * i128{kScale});
  // 200 ns of budget: all overhead.
  REQUIRE(detail::consume(w, 200 * i128{kScale}) == 0);
  REQUIRE(w.overhead_left == 100 * i128{kScale});
  // 500 ns: 100 overhead, then 400 of work.
  REQUIRE(detail::consume(w, 500 * i128{kScale}) == 400 * i128{kScale});
  REQUIRE(w.overhead_left == 0);
  REQUIRE(w.work_left == 600 * i128{kScale});
  // More budget than owed: the surplus is not work done.
  REQUIRE(detail::consume(w, 10000 * i128{kScale}) == 600 * i128{kScale});
  REQUIRE_FALSE(w.pending());
}

TEST_CASE("work: completion time is rounded up to the nanosecond, on both division paths", "[engine][work]") {
  // Reference CPU (capacity 1024, no SMT co-run): rate 1024 x 1000 scaled units per ns.
  const int64_t rate = detail::work_rate(1024, 1000);
  REQUIRE(rate == kScale);
  REQUIRE(detail::wall_to_done(0, rate) == 0);
  REQUIRE(detail::wall_to_done(1, rate) == 1);
  REQUIRE(detail::wall_to_done(rate, rate) == 1);
  REQUIRE(detail::wall_to_done(i128{rate} + 1, rate) == 2);
  // Half capacity with a 0.6 co-run factor: 550 ns of work takes ceil(550 / 0.3) wall ns.
  const int64_t slow = detail::work_rate(512, 600);
  REQUIRE(detail::wall_to_done(550 * i128{kScale}, slow) == 1834);
  // Past 64 bits the 128-bit path gives the exact ceiling too.
  const i128 big = (i128{1} << 80) + 12345;
  REQUIRE(detail::wall_to_done(big, rate) == (big + rate - 1) / rate);
  const i128 edge = i128{INT64_MAX} - rate + 1;  // the first value on the 128-bit path
  REQUIRE(detail::wall_to_done(edge, rate) == (edge + rate - 1) / rate);
  REQUIRE(detail::wall_to_done(edge - 1, rate) == (edge - 1 + rate - 1) / rate);
}

TEST_CASE("work: scaled units convert to reference ns by truncation, on both paths", "[engine][work]") {
  REQUIRE(detail::scaled_to_ns(kScale - 1) == Duration::zero());
  REQUIRE(detail::scaled_to_ns(3 * i128{kScale} + 7) == Duration::ns(3));
  const i128 big = i128{INT64_MAX} * 4;
  REQUIRE(detail::scaled_to_ns(big) == Duration::ns(static_cast<int64_t>(big / kScale)));
}

TEST_CASE("work: refill cost by distance", "[engine][work]") {
  CostModel c;
  c.refill_smt = Duration::ns(1);
  c.refill_cluster = Duration::ns(2);
  c.refill_llc = Duration::ns(3);
  c.refill_package = Duration::ns(4);
  c.refill_numa = Duration::ns(5);
  REQUIRE(detail::refill_cost(c, CpuDistance::kSame) == Duration::zero());
  REQUIRE(detail::refill_cost(c, CpuDistance::kSmt) == Duration::ns(1));
  REQUIRE(detail::refill_cost(c, CpuDistance::kCluster) == Duration::ns(2));
  REQUIRE(detail::refill_cost(c, CpuDistance::kLlc) == Duration::ns(3));
  REQUIRE(detail::refill_cost(c, CpuDistance::kPackage) == Duration::ns(4));
  REQUIRE(detail::refill_cost(c, CpuDistance::kNuma) == Duration::ns(5));
}

namespace {

std::vector<int64_t> fetch_all(const std::vector<Action>& code) {
  Prog p;
  p.code = code.data();
  p.code_size = code.size();
  std::vector<int64_t> out;
  while (const Action* a = p.fetch()) {
    out.push_back(a->arg);
    ++p.pc;
  }
  return out;
}

}  // namespace

TEST_CASE("interpreter: fetch resolves nested and empty loops in program order", "[engine][interpreter]") {
  auto run = [](int64_t d) { return Action::run(Duration::ns(d)); };
  // 1, (2, (3) x3) x2, 4 with an inner loop repeated twice more and an outer once more;
  // a loop with 0 extra iterations runs its body once; 5 then ends.
  std::vector<Action> code = {run(1), run(2), run(3), Action::loop(1, 2), Action::loop(3, 1),
                              run(4), Action::loop(1, 0), run(5)};
  REQUIRE(fetch_all(code) == std::vector<int64_t>{1, 2, 3, 3, 3, 2, 3, 3, 3, 4, 5});
  // The inner loop restarts with its full count on each outer iteration: three 3s per 2 above.
}

TEST_CASE("interpreter: fetch executes as many actions as the workload's expanded count", "[engine][interpreter]") {
  SplitMix64 rng{7};
  for (int round = 0; round < 200; ++round) {
    // Random properly nested loops: each loop closes over the actions since an open point.
    std::vector<Action> code;
    std::vector<size_t> open;
    for (int k = 0; k < 12; ++k) {
      uint64_t r = rng.next() % 4;
      if (r == 0) {
        open.push_back(code.size());
      } else if (r == 1 && !open.empty() && open.back() < code.size()) {
        size_t from = open.back();
        open.pop_back();
        code.push_back(Action::loop(static_cast<uint32_t>(code.size() - from), static_cast<int64_t>(rng.next() % 4)));
      } else {
        code.push_back(Action::run(Duration::ns(static_cast<int64_t>(code.size()))));
      }
    }
    Workload w;
    TaskSpec t;
    t.name = "t";
    t.program = code;
    w.tasks.push_back(t);
    REQUIRE(fetch_all(code).size() == w.expanded_action_counts().at(static_cast<size_t>(ActionKind::kRun)));
  }
}
