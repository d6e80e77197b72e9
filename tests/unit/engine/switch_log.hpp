#pragma once
// An observer that logs every context switch and wakeup, and a task on CPU 0 at the start: for
// hand-computed engine tests on one CPU (preempt_model_test.cpp, update_curr_test.cpp).
#include <string>
#include <utility>
#include <vector>

#include "schedsim/engine/observer.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim::testing {

struct SwitchLog : Observer {
  struct Sw {
    Instant at;
    TaskId prev, next;
    SwitchReason why;
  };
  std::vector<Sw> log;
  std::vector<WakeFact> wakes;
  void on_switch(Instant t, CpuId, TaskId prev, SwitchReason why, TaskId next) override {
    log.push_back({t, prev, next, why});
  }
  void on_wake(const WakeFact& f) override { wakes.push_back(f); }
  // The n-th switch-in (0-based) of task `id`, or nullptr.
  const Sw* in(uint32_t id, size_t n = 0) const {
    for (const auto& s : log)
      if (s.next.value() == id && n-- == 0) return &s;
    return nullptr;
  }
  const Sw* first_in(uint32_t id) const { return in(id, 0); }
};

// Runnable at the start on CPU 0.
inline TaskSpec running(std::string name, std::vector<Action> prog) {
  TaskSpec t;
  t.name = std::move(name);
  t.program = std::move(prog);
  t.initial_cpu = 0;
  return t;
}

}  // namespace schedsim::testing
