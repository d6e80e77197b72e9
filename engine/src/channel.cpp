// The channel model (channel.hpp). Written from the behaviour described in docs/model.md
// ("The pipe channel model"), which cites the kernel sources; no kernel code is used.
#include "channel.hpp"

#include <algorithm>

#include "schedsim/base/assert.hpp"

namespace schedsim {

void ChannelTable::init(const Workload& w) {
  int64_t max_chan = -1;
  for (const TaskSpec& t : w.tasks)
    for (const Action& a : t.program)
      if (a.kind == ActionKind::kWrite || a.kind == ActionKind::kRead) max_chan = std::max(max_chan, a.arg);
  chans_.clear();
  if (max_chan < 0) return;
  chans_.resize(static_cast<size_t>(max_chan) + 1);
  for (const TaskSpec& t : w.tasks)
    for (const Action& a : t.program)
      if (a.kind == ActionKind::kWrite || a.kind == ActionKind::kRead)
        chans_[static_cast<size_t>(a.arg)].socket = (a.flags & kChanSocket) != 0;
  ops_.assign(w.tasks.size(), TaskOp{});
  waiting_.assign(w.tasks.size(), 0);
  pending_.assign(chans_.size(), Pending{});
  folded_.assign(chans_.size(), {});
}

bool ChannelTable::full(const Chan& c) const {
  return c.socket ? c.charge >= kSocketSndbuf : static_cast<int64_t>(c.slots.size()) >= kPipeSlots;
}

void ChannelTable::wake_one(std::deque<uint32_t>& q) {
  if (q.empty()) return;
  uint32_t t = q.front();
  q.pop_front();
  waiting_[t] = 0;
  wake_.push_back(t);
}

void ChannelTable::sleep_on(std::deque<uint32_t>& q, uint32_t t) {
  q.push_back(t);
  waiting_[t] = 1;
  ops_[t].slept = true;
}

void ChannelTable::fold_add(const Folded& f) {
  auto& l = folded_[static_cast<size_t>(f.a->arg)];
  // Mostly after the others: looked for from the back.
  auto it = l.end();
  while (it != l.begin() && (it - 1)->at > f.at) --it;
  l.insert(it, f);
  pend(*f.a, +1);
}

void ChannelTable::fold_drop(int64_t at, uint32_t cpu, const Action& a) {
  auto& l = folded_[static_cast<size_t>(a.arg)];
  auto it = l.end();
  while (it != l.begin() && !((it - 1)->at == at && (it - 1)->cpu == cpu)) --it;
  SCHEDSIM_DASSERT(it != l.begin(), "folded operation on channel {} at {} ns not queued", a.arg, at);
  l.erase(it - 1);
  pend(a, -1);
}

// Each as the task's own write() or read() would have been, at its time: a fresh operation (the
// task may be in another one by now) that completes and wakes nobody (may_fold()'s bounds).
void ChannelTable::apply_folded(size_t ci, int64_t now, bool inclusive) {
  auto& l = folded_[ci];
  size_t n = 0;
  for (; n < l.size() && (l[n].at < now || (inclusive && l[n].at == now)); ++n) {
    const Folded& f = l[n];
    TaskOp op;
    const ChannelStep st = f.a->kind == ActionKind::kWrite ? do_write(op, f.task, *f.a) : do_read(op, f.task, *f.a);
    SCHEDSIM_ASSERT(st.done && st.wake->empty(), "folded {} of task{} on channel {} did not complete alone",
                    to_string(f.a->kind), f.task, ci);
    pend(*f.a, -1);
  }
  l.erase(l.begin(), l.begin() + static_cast<std::ptrdiff_t>(n));
}

bool ChannelTable::fold_safe(size_t ci) const {
  const Chan& c = chans_[ci];
  const Pending& p = pending_[ci];
  const bool room = c.socket ? c.charge + p.write <= kSocketSndbuf
                             : pipe_slots(static_cast<int64_t>(c.slots.size()), p.write) <= kPipeSlots;
  return (p.writes == 0 || (c.readers.empty() && room)) && (p.reads == 0 || reads_fold(c, p.read));
}

ChannelStep ChannelTable::write(uint32_t t, const Action& a) { return do_write(ops_[t], t, a); }
ChannelStep ChannelTable::read(uint32_t t, const Action& a) { return do_read(ops_[t], t, a); }

// The operation of task t in state op; wake_ lists the tasks it wakes.
ChannelStep ChannelTable::do_write(TaskOp& op, uint32_t t, const Action& a) {
  wake_.clear();
  Chan& c = chans_[static_cast<size_t>(a.arg)];
  const bool first = op.left < 0;
  if (first) {
    op.left = a.body;
    ++stats_.writes;
  }
  // "Was empty" is taken when the write (or its round after a sleep) starts.
  const bool was_empty = c.bytes == 0;
  if (c.socket) {
    // The whole write is queued at once while the send buffer has room.
    if (!full(c)) {
      int64_t charge = op.left + kSocketOverhead;
      c.sk_writes.push_back({op.left, charge});
      c.bytes += op.left;
      c.charge += charge;
      op.left = 0;
    }
  } else {
    if (first && !was_empty && !c.slots.empty()) {
      // The sub-page remainder joins the last slot if it fits in its page.
      int64_t chars = op.left % kPipePage;
      Slot& last = c.slots.back();
      if (chars > 0 && last.off + last.len + chars <= kPipePage) {
        last.len += chars;
        c.bytes += chars;
        op.left -= chars;
      }
    }
    while (op.left > 0 && static_cast<int64_t>(c.slots.size()) < kPipeSlots) {
      int64_t n = std::min(op.left, kPipePage);
      c.slots.push_back({0, n});
      c.bytes += n;
      op.left -= n;
    }
  }
  ChannelStep st;
  st.wake = &wake_;
  if (op.left > 0) {
    // Full: a pipe that was empty at the start of this round wakes a reader first, then sleeps.
    if (!c.socket && was_empty) {
      wake_one(c.readers);
      stats_.reader_wakes += wake_.size();
    }
    sleep_on(c.writers, t);
    ++stats_.writer_sleeps;
    return st;
  }
  // Done. Pipe: wake a reader only on empty -> non-empty. Socket: every write signals a sleeper.
  if (c.socket || was_empty) {
    wake_one(c.readers);
    stats_.reader_wakes += wake_.size();
  }
  if (!c.socket && op.slept && !full(c)) {
    size_t before = wake_.size();
    wake_one(c.writers);
    stats_.writer_wakes += wake_.size() - before;
  }
  op = TaskOp{};
  st.done = true;
  return st;
}

ChannelStep ChannelTable::do_read(TaskOp& op, uint32_t t, const Action& a) {
  wake_.clear();
  Chan& c = chans_[static_cast<size_t>(a.arg)];
  ChannelStep st;
  st.wake = &wake_;
  if (c.bytes == 0) {
    sleep_on(c.readers, t);
    ++stats_.reader_sleeps;
    return st;
  }
  const bool was_full = full(c);
  bool freed = false;
  int64_t want = a.body;
  if (c.socket) {
    while (want > 0 && !c.sk_writes.empty()) {
      auto& q = c.sk_writes.front();
      int64_t n = std::min(want, q.left);
      q.left -= n;
      c.bytes -= n;
      want -= n;
      if (q.left == 0) {
        c.charge -= q.charge;
        c.sk_writes.pop_front();
        freed = true;
      }
    }
    // A socket's writers are woken (all of them) once the charge is down to a quarter.
    if (freed && c.charge * 4 <= kSocketSndbuf)
      while (!c.writers.empty()) wake_one(c.writers);
    stats_.writer_wakes += wake_.size();
  } else {
    while (want > 0 && !c.slots.empty()) {
      Slot& s = c.slots.front();
      int64_t n = std::min(want, s.len);
      s.off += n;
      s.len -= n;
      c.bytes -= n;
      want -= n;
      if (s.len == 0) {
        c.slots.pop_front();
        freed = true;
      }
    }
    // Freeing a slot of a full pipe wakes one writer (the pipe stopped being full).
    if (was_full && freed) {
      wake_one(c.writers);
      stats_.writer_wakes += wake_.size();
    }
    // A reader that slept and leaves bytes behind passes the wake on to the next reader.
    if (op.slept && c.bytes > 0) {
      size_t before = wake_.size();
      wake_one(c.readers);
      stats_.reader_wakes += wake_.size() - before;
    }
  }
  op.slept = false;
  ++stats_.reads;
  st.done = true;
  return st;
}

}  // namespace schedsim
