#pragma once
// The engine's pending-event set: a 4-ary min-heap of 32-byte events, with the ticks in a FIFO
// beside it (private to engine/src).
//
// Order is total and the same as before this queue existed: (time, ticks after every other
// event of the same instant, insertion sequence). The tick flag and the sequence share one
// 64-bit word (`ord`, tick in the top bit) so a comparison is two integer compares.
//
// Why 4-ary: the pending set of a busy machine holds a completion and a tick per CPU plus the
// lazily cancelled leftovers (a few hundred events at 40 CPUs). A 4-ary heap halves the depth of
// a binary one, and the four children of a node share one or two cache lines; the sift-down of
// each pop dominates (every event is popped once). Measured against std::priority_queue in
// bench/README.md ("Engine optimizations"). Taking the ticks (one pending per busy CPU, all on
// tick boundaries) out of the heap into a FIFO shrinks it by about 40% at 40 busy CPUs and
// measured 4% less CPU on the seed workload (the same place).
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "schedsim/base/time.hpp"

namespace schedsim::detail {

enum class Ev : uint8_t { kTaskStart, kSleepEnd, kEnqueue, kRunDone, kTick, kReschedIpi };

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

// The 4-ary min-heap itself.
class EventHeap {
 public:
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

// Ticks in arrival order. A CPU's next tick is at the next multiple of the tick period after
// now (Impl::arm_tick), so ticks are pushed in non-decreasing time and increasing sequence: a
// FIFO holds them sorted, with O(1) push and pop and no sift. A tick that would break the order
// (none does today) goes to the heap instead, so the order stays right whatever the caller does.
class TickFifo {
 public:
  bool empty() const { return head_ == q_.size(); }
  size_t size() const { return q_.size() - head_; }
  const Event& front() const { return q_[head_]; }
  bool accepts(const Event& e) const { return empty() || !e.before(q_.back()); }
  void push(const Event& e) { q_.push_back(e); }
  void pop() {
    if (++head_ == q_.size()) {
      q_.clear();
      head_ = 0;
    } else if (head_ >= 1024 && head_ * 2 >= q_.size()) {
      q_.erase(q_.begin(), q_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

 private:
  std::vector<Event> q_;
  size_t head_ = 0;
};

// The pending-event set the engine uses: the heap, and (by default) the ticks in a FIFO beside
// it. The pops are the same sequence either way: both hold the same set of events under one
// total order and the top is the earlier of the two fronts, so the FIFO changes speed only.
// SCHEDSIM_ENGINE_TICK_FIFO=0 in the environment keeps every event in the heap;
// tests/engine_ab.cmake runs workloads both ways and compares the outputs byte for byte.
class EventQueue {
 public:
  static constexpr uint64_t kTickBit = uint64_t{1} << 63;
  static constexpr uint32_t kMaxB = (1u << 24) - 1;

  void set_tick_fifo(bool on) { fifo_on_ = on; }

  bool empty() const { return heap_.empty() && ticks_.empty(); }
  size_t size() const { return heap_.size() + ticks_.size(); }
  const Event& top() const { return from_ticks() ? ticks_.front() : heap_.top(); }
  void push(const Event& e) {
    if (fifo_on_ && e.type == Ev::kTick && ticks_.accepts(e))
      ticks_.push(e);
    else
      heap_.push(e);
  }
  void pop() {
    if (from_ticks())
      ticks_.pop();
    else
      heap_.pop();
  }

 private:
  bool from_ticks() const { return !ticks_.empty() && (heap_.empty() || ticks_.front().before(heap_.top())); }

  EventHeap heap_;
  TickFifo ticks_;
  bool fifo_on_ = false;
};

}  // namespace schedsim::detail
