#pragma once
// The engine's pending-event set: a 4-ary min-heap of 32-byte events (private to engine/src).
//
// Order is total and the same as before this queue existed: (time, ticks after every other
// event of the same instant, insertion sequence). The tick flag and the sequence share one
// 64-bit word (`ord`, tick in the top bit) so a comparison is two integer compares.
//
// Why 4-ary: the pending set of a busy machine holds a completion and a tick per CPU plus the
// lazily cancelled leftovers (a few hundred events at 40 CPUs). A 4-ary heap halves the depth of
// a binary one, and the four children of a node share one or two cache lines; the sift-down of
// each pop dominates (every event is popped once). Measured against std::priority_queue in
// bench/README.md ("Engine optimizations").
#include <cstdint>
#include <utility>
#include <vector>

#include "schedsim/base/time.hpp"

namespace schedsim::detail {

enum class Ev : uint8_t { kTaskStart, kSleepEnd, kEnqueue, kRunDone, kTick };

struct Event {
  Instant at;
  uint64_t ord;  // (tick ? 1 << 63 : 0) | insertion sequence
  uint64_t gen;  // lazy cancellation
  uint32_t a;    // task or cpu
  uint32_t b : 24;  // cpu for kEnqueue
  Ev type;
  // Ticks sort after every other event of the same instant: a run that ends exactly on a tick
  // completes before the tick can preempt it.
  bool before(const Event& o) const { return at != o.at ? at < o.at : ord < o.ord; }
};
static_assert(sizeof(Event) == 32);

class EventQueue {
 public:
  static constexpr uint64_t kTickBit = uint64_t{1} << 63;
  static constexpr uint32_t kMaxB = (1u << 24) - 1;
  static constexpr size_t kArity = 4;

  bool empty() const { return h_.empty(); }
  size_t size() const { return h_.size(); }
  const Event& top() const { return h_.front(); }

  void push(const Event& e) {
    size_t i = h_.size();
    h_.push_back(e);
    while (i > 0) {
      size_t parent = (i - 1) / kArity;
      if (!e.before(h_[parent])) break;
      h_[i] = h_[parent];
      i = parent;
    }
    h_[i] = e;
  }

  void pop() {
    Event last = h_.back();
    h_.pop_back();
    const size_t n = h_.size();
    if (n == 0) return;
    size_t i = 0;
    for (;;) {
      size_t c = kArity * i + 1;
      if (c >= n) break;
      size_t best = c;
      size_t end = c + kArity < n ? c + kArity : n;
      for (size_t k = c + 1; k < end; ++k)
        if (h_[k].before(h_[best])) best = k;
      if (!h_[best].before(last)) break;
      h_[i] = h_[best];
      i = best;
    }
    h_[i] = last;
  }

 private:
  std::vector<Event> h_;
};

}  // namespace schedsim::detail
