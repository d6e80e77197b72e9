#include "schedsim/metrics/progress.hpp"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

namespace schedsim {

ProgressReporter::ProgressReporter(Mode mode, std::FILE* out, std::chrono::milliseconds delay,
                                   std::chrono::milliseconds interval)
    : out_(out), delay_(delay), interval_(interval) {
  switch (mode) {
    case Mode::kAuto: enabled_ = out != nullptr && ::isatty(::fileno(out)) != 0; break;
    case Mode::kAlways: enabled_ = out != nullptr; break;
    case Mode::kNever: enabled_ = false; break;
  }
}

void ProgressReporter::on_start(const SchedState&) {
  start_ = last_print_ = std::chrono::steady_clock::now();
  events_ = 0;
}

void ProgressReporter::check() {
  auto now = std::chrono::steady_clock::now();
  if (now - start_ < delay_ || now - last_print_ < interval_) return;
  last_print_ = now;
  print(false);
}

void ProgressReporter::print(bool final_line) {
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double rate = wall > 0 ? static_cast<double>(events_) / wall : 0.0;
  std::string line = fmt::format("\r[schedsim] {} events, simulated {} s, {:.2f} M events/s, {:.1f} s elapsed",
                                 events_, format_ftrace_time(now_), rate / 1e6, wall);
  // Time left if the rest of the work goes at the pace so far: wall * (1 - f) / f. Said only once
  // 1% is done (before that the pace is mostly start-up), never on the final line.
  if (const double f = fraction_ ? fraction_() : 0; !final_line && f >= 0.01 && f < 1)
    line += fmt::format(", {:.0f}% of the work, about {:.0f} s left", 100 * f, wall * (1 - f) / f);
  // The line is rewritten in place (\r): spaces over what a longer earlier one left behind.
  if (line.size() < widest_) line.append(widest_ - line.size(), ' ');
  widest_ = std::max(widest_, line.size());
  std::fputs(line.c_str(), out_);
  if (final_line) std::fputs("\n", out_);
  std::fflush(out_);
  ++updates_;
}

void ProgressReporter::on_end(const SchedState&, Instant end) {
  now_ = end;
  // Finish the line only if one was started: short runs stay silent.
  if (enabled_ && updates_ > 0) print(true);
}

}  // namespace schedsim
