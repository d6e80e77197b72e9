#pragma once
/// ProgressReporter: a one-line progress display on stderr for long runs (events simulated,
/// simulated time, event rate), silent unless stderr is a terminal and the run has lasted more
/// than a second. The wall clock is read only every kCheckEvery observer callbacks.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>

#include "schedsim/engine/observer.hpp"

namespace schedsim {

class ProgressReporter : public Observer {
 public:
  static constexpr uint64_t kCheckEvery = 8192;
  enum class Mode { kAuto, kAlways, kNever };  ///< kAuto: only when isatty(fileno(out))

  explicit ProgressReporter(Mode mode = Mode::kAuto, std::FILE* out = stderr,
                            std::chrono::milliseconds delay = std::chrono::seconds(1),
                            std::chrono::milliseconds interval = std::chrono::milliseconds(250));

  bool enabled() const { return enabled_; }
  /// Called every kCheckEvery callbacks with the simulated time, printing or not: the hook for
  /// checks that must run during the simulation (interrupts, memory budget) without an observer
  /// of their own (every observer costs a dispatch on every engine callback).
  void set_poll(std::function<void(Instant)> poll) { poll_ = std::move(poll); }
  /// Lines (updates) printed so far.
  uint64_t updates() const { return updates_; }

  void on_start(const SchedState&) override;
  void on_wake(const WakeFact& f) override { tick(f.at); }
  void on_enqueue(Instant at, TaskId, CpuId) override { tick(at); }
  void on_switch(Instant at, CpuId, TaskId, SwitchReason, TaskId) override { tick(at); }
  void on_migrate(Instant at, TaskId, CpuId, CpuId, CpuDistance) override { tick(at); }
  void on_exit(Instant at, TaskId, CpuId) override { tick(at); }
  void on_end(const SchedState&, Instant end) override;

 private:
  void tick(Instant at) {
    ++events_;
    now_ = at;
    if (events_ % kCheckEvery != 0) return;
    if (poll_) poll_(at);
    if (enabled_) check();
  }
  void check();
  void print(bool final_line);

  bool enabled_ = false;
  std::FILE* out_;
  std::chrono::milliseconds delay_, interval_;
  std::chrono::steady_clock::time_point start_, last_print_;
  uint64_t events_ = 0, updates_ = 0;
  Instant now_;
  std::function<void(Instant)> poll_;
};

}  // namespace schedsim
