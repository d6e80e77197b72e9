#pragma once
/// The channel model: pipes and unix stream sockets between the tasks of a workload, driven by
/// the `write` and `read` actions (docs/workload-format.md "Channels"; the rules and their
/// kernel sources are in docs/model.md "The pipe channel model").
///
/// Unlike wake/block tokens, a channel decides *whether* a write wakes anybody and *whether* a
/// read sleeps from the simulated state of the channel, as the kernel does:
///
/// * pipe (fs/pipe.c, anonymous pipes, v5.14 .. v6.18): 16 slots of one 4096-byte page each. A
///   write first merges its sub-page remainder into the last slot when the pipe is not empty and
///   it fits there, then fills new slots a page at a time. It wakes one waiting reader only if the
///   pipe was empty when the write (or its last round after a sleep) began; it sleeps while all
///   16 slots are in use, and a writer that slept and leaves room behind wakes the next waiting
///   writer. A read takes up to its size from the slots present and sleeps only on an empty
///   pipe; freeing a slot of a pipe that was full wakes one waiting writer; a reader that slept
///   and leaves bytes behind wakes the next waiting reader.
/// * socket (net/unix/af_unix.c, stream sockets): every write queues its bytes and wakes a
///   waiting reader; the queue is charged `bytes + kSocketOverhead` per write against a send
///   buffer of kSocketSndbuf bytes; a writer sleeps while the charge would pass it and is woken
///   when the charge falls to a quarter of it. Reads as for a pipe.
///
/// All wakes from a channel are sync wakes (WF_SYNC), as the kernel's pipe and socket wakeups
/// are. Waiters are woken one at a time in FIFO order (exclusive waits).
#include <cstdint>
#include <deque>
#include <vector>

#include "schedsim/workload/workload.hpp"

namespace schedsim {

inline constexpr int64_t kPipePage = 4096;
inline constexpr int64_t kPipeSlots = 16;      ///< PIPE_DEF_BUFFERS
inline constexpr int64_t kSocketSndbuf = 212992;  ///< net.core.wmem_default
inline constexpr int64_t kSocketOverhead = 668;   ///< per-write skb truesize beyond the payload (estimate)

/// What a channel operation asks the engine to do.
struct ChannelStep {
  bool done = false;  ///< the operation completed: advance past the action
  /// tasks to wake (sync), in order; valid until the next call into the table
  const std::vector<uint32_t>* wake = nullptr;
};

/// Counters over a whole run, for reports.
struct ChannelStats {
  uint64_t writes = 0, reads = 0;
  uint64_t reader_wakes = 0, writer_wakes = 0;
  uint64_t writer_sleeps = 0, reader_sleeps = 0;
};

class ChannelTable {
 public:
  /// Sizes the table from the largest channel number in the workload (none: empty table).
  void init(const Workload& w);
  bool empty() const { return chans_.empty(); }
  size_t size() const { return chans_.size(); }

  /// Task t (running) executes write/read action a. A step that is not done means t must block;
  /// it re-executes the same action when a channel wakes it.
  ChannelStep write(uint32_t t, const Action& a);
  ChannelStep read(uint32_t t, const Action& a);

  /// True while t sleeps in a channel operation (only the channel may wake it).
  bool waiting(uint32_t t) const { return t < waiting_.size() && waiting_[t]; }

  const ChannelStats& stats() const { return stats_; }

  // The segment advance (engine/src/segment.cpp) folds writes that find room and reads that
  // find data when neither wakes anybody. The task's side of such an operation (its program
  // moves on) is folded with its CPU's stretch; the channel's side is queued here (folded) and
  // applied in time order when the channel is next used by a real operation (apply_folded()),
  // since a channel's state depends on the order of its reads and writes (a pipe's slots, a read
  // that takes what is there). Whether an operation may be folded is bounded per channel by the
  // folded ones not applied yet:
  //   writes: what they may take (pipe slots, bounded by pipe_slots(); socket send-buffer
  //           charge) must fit beside what the channel holds, and no reader may wait (it would be
  //           woken);
  //   reads:  the bytes they may take must be there (writes only add to them), and no writer may
  //           wait (or, on a pipe, no read may free a slot).
  // Under those bounds each queued operation's outcome is fixed whatever real operations and
  // other folded ones come before it; a real operation that breaks one (fold_safe()) ends the
  // stretches that hold them (their operations not folded yet run as events).
  /// The largest pipe write folded: pipe_slots() bounds the slots such writes take.
  static constexpr int64_t kPipeFoldMax = kPipePage / 2;
  /// What a write or read counts against its channel's bound: bytes (pipe write, read) or
  /// charge (socket write).
  int64_t units(const Action& a) const;
  static int64_t pipe_slots(int64_t held, int64_t bytes);
  /// Whether a write or read (a of task t) may be folded with `more` units of the same kind
  /// already planned on its channel by the stretch being planned (its own included).
  bool may_fold(uint32_t t, const Action& a, int64_t more) const;
  /// A folded operation: action a of task t, at time `at` (ns), in the stretch of `cpu`.
  struct Folded {
    int64_t at;
    uint32_t cpu, task;
    const Action* a;
  };
  void fold_add(const Folded& f);
  /// A folded operation the stretch of cpu gives up (it will run as an event).
  void fold_drop(int64_t at, uint32_t cpu, const Action& a);
  /// Applies the folded operations of channel c before `now` (at `now` too if `inclusive`).
  void apply_folded(size_t c, int64_t now, bool inclusive);
  /// The folded operations of channel c not applied yet, earliest first.
  const std::vector<Folded>& folded(size_t c) const { return folded_[c]; }
  /// The folded operations pending on channel c still have their planned outcome.
  bool fold_safe(size_t c) const;

 private:
  struct Slot {
    int64_t off = 0, len = 0;
  };
  struct Chan {
    bool socket = false;
    int64_t bytes = 0;    // unread bytes
    int64_t charge = 0;   // socket: send-buffer charge of the queued writes
    std::deque<Slot> slots;         // pipe: occupied slots, oldest first
    struct Queued {
      int64_t left, charge;
    };
    std::deque<Queued> sk_writes;  // socket: each queued write's unread bytes and its charge
    std::deque<uint32_t> readers, writers;  // sleeping tasks, FIFO
  };
  struct TaskOp {
    int64_t left = -1;    // bytes of the current write still to go (-1: no write in progress)
    bool slept = false;   // the current operation slept at least once
  };
  bool full(const Chan& c) const;
  ChannelStep do_write(TaskOp& op, uint32_t t, const Action& a);
  ChannelStep do_read(TaskOp& op, uint32_t t, const Action& a);
  bool reads_fold(const Chan& c, int64_t bytes) const;
  void wake_one(std::deque<uint32_t>& q);
  void sleep_on(std::deque<uint32_t>& q, uint32_t t);

  std::vector<Chan> chans_;
  std::vector<TaskOp> ops_;
  std::vector<uint8_t> waiting_;
  std::vector<uint32_t> wake_;
  ChannelStats stats_;
  struct Pending {
    int64_t write = 0;  // units() of the folded writes not yet applied
    int64_t read = 0;   // bytes of the folded reads not yet applied
    int64_t writes = 0, reads = 0;  // how many (a write of 0 bytes still wakes a waiting reader)
  };
  void pend(const Action& a, int sign);
  std::vector<Pending> pending_;                // per channel
  std::vector<std::vector<Folded>> folded_;     // per channel, by time
};

// What the folded operations of a channel may take: reads their bytes; socket writes their
// charge (bytes + overhead); pipe writes their bytes, bounded in slots by pipe_slots().
inline int64_t ChannelTable::units(const Action& a) const {
  if (a.kind == ActionKind::kRead || !chans_[static_cast<size_t>(a.arg)].socket) return a.body;
  return a.body + kSocketOverhead;
}

// The most slots a pipe holding `held` may reach through fresh writes of at most kPipeFoldMax
// bytes each, `bytes` in all, and any reads (which only free slots), until the next real
// write (after which fold_safe() bounds it again). A write merges into the last slot while that
// slot's page has room (its end offset + the write <= kPipePage), so a slot such a write opens
// has taken more than kPipePage - kPipeFoldMax bytes before the next one opens; the first may
// open at once (the last slot's page may be full). From an emptied pipe the count starts again
// at 0.
inline int64_t ChannelTable::pipe_slots(int64_t held, int64_t bytes) {
  return held + (bytes > 0 ? 1 + bytes / (kPipePage - kPipeFoldMax + 1) : 0);
}

// A write completes at once and wakes nobody if no reader waits (a pipe wakes one only on empty
// -> non-empty, a socket on every write: neither with nobody waiting) and the room it needs is
// there whatever comes before it: pipe slots after it <= kPipeSlots (pipe_slots()); socket charge
// before it < kSocketSndbuf (it is at most held + pending + more - its own charge, which is > 0).
// A write in progress (op.left >= 0: it slept) is never folded: it wakes writers when it ends.
// A read completes and wakes nobody if the bytes are there (held - pending - more >= 0, each
// read at least one byte, covers every read of the bound: writes only add) and no writer waits,
// or, on a pipe, no read frees a slot (a pipe's read wakes a writer only by freeing a slot of a
// full pipe: reads of fewer bytes in all than the first slot holds free none, and a write only
// adds to that slot); a read after a sleep passes a wake on, so op.slept must be clear.
inline bool ChannelTable::may_fold(uint32_t t, const Action& a, int64_t more) const {
  const size_t ci = static_cast<size_t>(a.arg);
  const Chan& c = chans_[ci];
  const Pending& p = pending_[ci];
  if (ops_[t].left >= 0 || ops_[t].slept) return false;
  if (a.kind == ActionKind::kWrite) {
    if (!c.readers.empty()) return false;
    if (c.socket) return c.charge + p.write + more <= kSocketSndbuf;
    return a.body <= kPipeFoldMax && pipe_slots(static_cast<int64_t>(c.slots.size()), p.write + more) <= kPipeSlots;
  }
  return a.body > 0 && reads_fold(c, p.read + more);
}

// Reads of `bytes` in all, each of at least one byte, all complete and wake nobody (may_fold()).
inline bool ChannelTable::reads_fold(const Chan& c, int64_t bytes) const {
  if (c.writers.empty()) return c.bytes - bytes >= 0;
  return !c.socket && !c.slots.empty() && bytes < c.slots.front().len;
}

inline void ChannelTable::pend(const Action& a, int sign) {
  Pending& p = pending_[static_cast<size_t>(a.arg)];
  if (a.kind == ActionKind::kWrite) {
    p.write += sign * units(a);
    p.writes += sign;
  } else {
    p.read += sign * units(a);
    p.reads += sign;
  }
}

}  // namespace schedsim
