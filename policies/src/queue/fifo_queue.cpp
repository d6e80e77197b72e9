// `fifo`: a plain first-in first-out run queue with no preemption at all (SCHED_FIFO at one
// priority). A baseline: a task runs until it blocks, sleeps or exits.
#include <deque>

#include "features.hpp"
#include "schedsim/policies/registry.hpp"

namespace schedsim {
namespace {

class FifoQueue final : public QueuePolicy {
 public:
  void attach(SchedState& s) override { q_.assign(s.cpus.size(), {}); curr_.assign(s.cpus.size(), TaskId()); }
  void enqueue(SchedState& s, uint32_t cpu, TaskId p, EnqueueKind) override {
    q_[cpu].push_back(p);
    ++s.cpus[cpu].nr_running;
  }
  void dequeue(SchedState& s, uint32_t cpu, TaskId p, DequeueKind) override {
    if (curr_[cpu] == p) {
      curr_[cpu] = TaskId();
    } else {
      auto& d = q_[cpu];
      for (auto it = d.begin(); it != d.end(); ++it)
        if (*it == p) {
          d.erase(it);
          break;
        }
    }
    --s.cpus[cpu].nr_running;
  }
  TaskId pick_next(SchedState&, uint32_t cpu) override {
    if (curr_[cpu].valid()) return curr_[cpu];
    if (q_[cpu].empty()) return TaskId();
    curr_[cpu] = q_[cpu].front();
    q_[cpu].pop_front();
    return curr_[cpu];
  }
  // A task put back while still runnable keeps the CPU (FIFO never preempts); it only happens
  // when the engine reschedules for another reason, so it stays current.
  void put_prev(SchedState&, uint32_t, TaskId) override {}
  void update_curr(SchedState&, uint32_t, Duration) override {}
  bool check_preempt_wakeup(SchedState&, uint32_t, TaskId) override { return false; }
  bool check_preempt_tick(SchedState&, uint32_t) override { return false; }
  void for_each_queued(const SchedState&, uint32_t cpu, const std::function<bool(TaskId)>& fn) const override {
    for (TaskId t : q_[cpu])
      if (!fn(t)) return;
  }

 private:
  std::vector<std::deque<TaskId>> q_;
  std::vector<TaskId> curr_;
};

}  // namespace

ModuleDef<QueuePolicy> fifo_queue() {
  return {{"", "fifo", "FIFO baseline: no preemption, a task runs until it blocks", {}},
          [](const Features&) { return std::make_unique<FifoQueue>(); }};
}

}  // namespace schedsim
