// The channel's side of the segment advance (engine/src/channel.hpp): folded reads and writes
// queued under ChannelTable::may_fold()'s bounds keep their outcome (they complete and wake
// nobody: apply_folded() asserts it) whatever real operations and other folded ones come
// before them, as long as the engine settles the queue when fold_safe() says a real operation
// broke a bound. Random schedules of both, on a pipe and on a socket.
#include <catch2/catch.hpp>

#include <vector>

#include "channel.hpp"
#include "schedsim/base/random.hpp"

using namespace schedsim;

namespace {

constexpr uint32_t kWriters = 4;
constexpr uint32_t kTasks = kWriters + 2;  // two readers

// One random schedule: folded operations are planned and queued at increasing times, real ones
// run in between (after the queue's operations before them, as channel_op() does); a real one
// that breaks a bound drops the queue (the engine settles its stretches: those run as events).
// Returns how many folded operations were applied.
uint64_t schedule(bool socket, uint64_t seed) {
  Workload w;
  for (uint32_t t = 0; t < kTasks; ++t) {
    TaskSpec spec;
    spec.name = "t" + std::to_string(t);
    w.add_task(std::move(spec));
  }
  const uint8_t fl = socket ? kChanSocket : 0;
  // Sizes around a page and the folded writes' limit (ChannelTable::kPipeFoldMax).
  static const uint32_t kSizes[] = {1, 100, 100, 2048, 2049, 4096, 5000};
  std::vector<Action> acts;
  for (uint32_t b : kSizes) {
    acts.push_back(Action::write(0, b, fl));
    acts.push_back(Action::read(0, b, fl));
  }
  w.tasks[0].program = acts;  // init() sizes the table from the actions it finds
  ChannelTable ch;
  ch.init(w);
  SplitMix64 rng(seed);
  std::vector<const Action*> redo(kTasks, nullptr);  // a real operation that slept, to re-execute
  std::vector<uint8_t> asleep(kTasks, 0);
  uint64_t applied = 0;
  int64_t now = 0;
  auto pick = [&](uint32_t t) -> const Action& {
    const size_t size = rng.below(std::size(kSizes));
    return acts[2 * size + (t >= kWriters ? 1 : 0)];
  };
  for (int step = 0; step < 400; ++step) {
    now += 1 + static_cast<int64_t>(rng.below(3));
    const uint32_t t = static_cast<uint32_t>(rng.below(kTasks));
    if (asleep[t]) continue;
    if (rng.below(3) != 0 && redo[t] == nullptr) {
      // Plan a folded operation a little ahead, if the bounds allow it.
      const Action& a = pick(t);
      if (ch.may_fold(t, a, ch.units(a))) ch.fold_add({now + static_cast<int64_t>(rng.below(20)), t, t, &a});
      continue;
    }
    // A real operation now: the queue's earlier ones first.
    const size_t before = ch.folded(0).size();
    ch.apply_folded(0, now, false);
    applied += before - ch.folded(0).size();
    const Action& a = redo[t] != nullptr ? *redo[t] : pick(t);
    const ChannelStep st = a.kind == ActionKind::kWrite ? ch.write(t, a) : ch.read(t, a);
    for (uint32_t u : *st.wake) asleep[u] = 0;
    redo[t] = st.done ? nullptr : &a;
    asleep[t] = st.done ? 0 : 1;
    if (!ch.fold_safe(0)) {
      const std::vector<ChannelTable::Folded> queued = ch.folded(0);
      for (const auto& f : queued) ch.fold_drop(f.at, f.cpu, *f.a);
    }
  }
  const size_t before = ch.folded(0).size();
  ch.apply_folded(0, INT64_MAX, true);
  return applied + before;
}

}  // namespace

TEST_CASE("folded channel operations keep their outcome under may_fold()'s bounds", "[engine][channel][segment]") {
  for (const bool socket : {false, true}) {
    uint64_t applied = 0;
    for (uint64_t seed = 1; seed <= 300; ++seed) {
      // An operation that would not complete alone fails apply_folded()'s assertion (abort).
      applied += schedule(socket, seed);
    }
    CAPTURE(socket);
    CHECK(applied > 10000);  // the schedules do fold
  }
}

TEST_CASE("pipe_slots() bounds the slots small writes open", "[engine][channel][segment]") {
  // A pipe whose last slot's page is full: the first 100-byte write opens a slot, and the next
  // one only after kPipePage - 100 more bytes; 41 writes (4,100 bytes) open two.
  CHECK(ChannelTable::pipe_slots(3, 0) == 3);
  CHECK(ChannelTable::pipe_slots(3, 100) == 4);
  CHECK(ChannelTable::pipe_slots(3, 4100) == 6);  // 1 + 4100 / 2049: a bound, not the count
  CHECK(ChannelTable::pipe_slots(0, 2049) == 2);
}
