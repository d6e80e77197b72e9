#pragma once
/// ProgressReporter: a one-line progress display on stderr for long runs (events simulated,
/// simulated time, event rate, and with set_fraction the share done and an estimate of the time
/// left), silent unless stderr is a terminal and the run has lasted more than a second. The wall clock is read only at poll(), every Simulation::kPollEvery events.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>

#include "schedsim/engine/observer.hpp"

namespace schedsim {

class ProgressReporter : public Observer {
 public:
  enum class Mode { kAuto, kAlways, kNever };  ///< kAuto: only when isatty(fileno(out))

  explicit ProgressReporter(Mode mode = Mode::kAuto, std::FILE* out = stderr,
                            std::chrono::milliseconds delay = std::chrono::seconds(1),
                            std::chrono::milliseconds interval = std::chrono::milliseconds(250));

  bool enabled() const { return enabled_; }
  /// The checks that must run during the simulation (interrupts, memory budget), called by
  /// poll(), so they need no observer of their own.
  void set_poll(std::function<void(Instant)> poll) { poll_ = std::move(poll); }
  /// The share of the run done so far (0..1), for the time-left estimate: `run` gives the
  /// measured tasks' simulated work against the workload's total. Unset: no estimate.
  void set_fraction(std::function<double()> fraction) { fraction_ = std::move(fraction); }
  /// Called by the engine's event loop (Simulation::set_poll) every Simulation::kPollEvery
  /// events: runs the checks, then prints a line when one is due.
  void poll(Instant at, uint64_t events) {
    now_ = at;
    events_ = events;
    if (poll_) poll_(at);
    if (enabled_) check();
  }
  /// Lines (updates) printed so far.
  uint64_t updates() const { return updates_; }

  void on_start(const SchedState&) override;
  void on_end(const SchedState&, Instant end) override;

 private:
  void check();
  void print(bool final_line);

  bool enabled_ = false;
  std::FILE* out_;
  std::chrono::milliseconds delay_, interval_;
  std::chrono::steady_clock::time_point start_, last_print_;
  uint64_t events_ = 0, updates_ = 0;
  size_t widest_ = 0;  // the longest line printed so far
  Instant now_;
  std::function<void(Instant)> poll_;
  std::function<double()> fraction_;
};

}  // namespace schedsim
