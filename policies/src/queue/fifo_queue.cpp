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
  void enqueue(SchedState& s, CpuId cpu, TaskId p, EnqueueKind) override {
    q_[cpu.value()].push_back(p);
    ++s.rq(cpu).nr_running;
  }
  void dequeue(SchedState& s, CpuId cpu, TaskId p, DequeueKind) override {
    if (curr_[cpu.value()] == p) {
      curr_[cpu.value()] = TaskId();
    } else {
      auto& d = q_[cpu.value()];
      for (auto it = d.begin(); it != d.end(); ++it)
        if (*it == p) {
          d.erase(it);
          break;
        }
    }
    --s.rq(cpu).nr_running;
  }
  TaskId pick_next(SchedState&, CpuId cpu) override {
    if (curr_[cpu.value()].valid()) return curr_[cpu.value()];
    if (q_[cpu.value()].empty()) return TaskId();
    curr_[cpu.value()] = q_[cpu.value()].front();
    q_[cpu.value()].pop_front();
    return curr_[cpu.value()];
  }
  // A task put back while still runnable keeps the CPU (FIFO never preempts); it only happens
  // when the engine reschedules for another reason, so it stays current.
  void put_prev(const SchedState&, CpuId, TaskId) override {}
  void update_curr(const SchedState&, CpuId, Duration) override {}
  bool update_curr_is_local(const SchedState&, CpuId) const override { return true; }
  bool check_preempt_wakeup(const SchedState&, CpuId, TaskId, const WakeFlags&) override { return false; }
  bool check_preempt_tick(const SchedState&, CpuId) override { return false; }
  void for_each_queued(const SchedState&, CpuId cpu, const std::function<bool(TaskId)>& fn) const override {
    for (TaskId t : q_[cpu.value()])
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
