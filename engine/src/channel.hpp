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

  /// Task t (running) executes write/read action a. A step that is not done means t must block;
  /// it re-executes the same action when a channel wakes it.
  ChannelStep write(uint32_t t, const Action& a);
  ChannelStep read(uint32_t t, const Action& a);

  /// True while t sleeps in a channel operation (only the channel may wake it).
  bool waiting(uint32_t t) const { return t < waiting_.size() && waiting_[t]; }

  const ChannelStats& stats() const { return stats_; }

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
  void wake_one(std::deque<uint32_t>& q);
  void sleep_on(std::deque<uint32_t>& q, uint32_t t);

  std::vector<Chan> chans_;
  std::vector<TaskOp> ops_;
  std::vector<uint8_t> waiting_;
  std::vector<uint32_t> wake_;
  ChannelStats stats_;
};

}  // namespace schedsim
