// The engine's event queue (engine/src/event_queue.hpp, private to the engine), with and without
// the tick FIFO: pops follow
// (time, ticks after every other event of the same instant, insertion sequence) exactly as the
// std::priority_queue it replaced did, checked against a reference ordering on random
// interleavings of pushes and pops with many equal times.
#include <catch2/catch.hpp>

#include <algorithm>
#include <tuple>
#include <vector>

#include "event_queue.hpp"
#include "schedsim/base/random.hpp"

using namespace schedsim;
using detail::Ev;
using detail::Event;
using detail::EventQueue;

namespace {

// The order the engine has always used, written out independently of the packed `ord` word.
bool ref_before(const Event& x, const Event& y) {
  auto key = [](const Event& e) {
    bool tick = e.type == Ev::kTick;
    uint64_t seq = e.ord & ~EventQueue::kTickBit;
    return std::make_tuple(e.at.ns(), tick, seq);
  };
  return key(x) < key(y);
}

Event make(int64_t at, uint64_t seq, Ev type) {
  uint64_t ord = seq | (type == Ev::kTick ? EventQueue::kTickBit : 0);
  return Event{Instant::from_ns(at), ord, seq * 7, static_cast<uint32_t>(seq), 3, type};
}

}  // namespace

TEST_CASE("event queue pops in (time, ticks last, sequence) order", "[engine][event_queue]") {
  SplitMix64 rng{42};
  for (int round = 0; round < 50; ++round) {
    EventQueue q;
    // Odd rounds with the tick FIFO: these ticks come in any time order, so some go to the heap.
    q.set_tick_fifo(round % 2 == 1);
    std::vector<Event> ref;  // pending, kept unsorted; the minimum is found by scanning
    uint64_t seq = 0;
    int64_t now = 0;
    for (int step = 0; step < 2000; ++step) {
      bool do_push = ref.empty() || rng.next() % 3 != 0;
      if (do_push) {
        // Few distinct times so equal instants (and ticks among them) are common.
        int64_t at = now + static_cast<int64_t>(rng.next() % 4);
        Ev type = rng.next() % 3 == 0 ? Ev::kTick : static_cast<Ev>(rng.next() % 4);
        Event e = make(at, seq++, type);
        q.push(e);
        ref.push_back(e);
      } else {
        auto it = std::min_element(ref.begin(), ref.end(), ref_before);
        REQUIRE(q.size() == ref.size());
        const Event& top = q.top();
        REQUIRE(top.at == it->at);
        REQUIRE(top.ord == it->ord);
        REQUIRE(top.type == it->type);
        REQUIRE(top.gen == it->gen);
        REQUIRE(top.a == it->a);
        REQUIRE(top.b == it->b);
        now = top.at.ns();
        q.pop();
        ref.erase(it);
      }
    }
    while (!ref.empty()) {
      auto it = std::min_element(ref.begin(), ref.end(), ref_before);
      REQUIRE(q.top().ord == it->ord);
      q.pop();
      ref.erase(it);
    }
    REQUIRE(q.empty());
  }
}

TEST_CASE("event queue: a tick at the same instant comes after a later-inserted completion",
          "[engine][event_queue]") {
  EventQueue q;
  q.set_tick_fifo(GENERATE(false, true));
  q.push(make(100, 0, Ev::kTick));
  q.push(make(100, 1, Ev::kRunDone));
  q.push(make(99, 2, Ev::kEnqueue));
  REQUIRE(q.top().type == Ev::kEnqueue);
  q.pop();
  REQUIRE(q.top().type == Ev::kRunDone);
  q.pop();
  REQUIRE(q.top().type == Ev::kTick);
  q.pop();
  REQUIRE(q.empty());
}
