// ProgressLine (progress_line.hpp).
#include "schedsim/base/progress_line.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include <fmt/format.h>

namespace schedsim {

ProgressLine::ProgressLine(const std::string& mode, std::string prefix, size_t total, size_t already)
    : on_(mode == "always" || (mode == "auto" && ::isatty(STDERR_FILENO))),
      prefix_(std::move(prefix)),
      total_(total),
      base_(already),
      start_(std::chrono::steady_clock::now()) {}

ProgressLine::~ProgressLine() {
  if (on_) std::fputs("\n", stderr);
}

void ProgressLine::update(size_t done, const std::string& detail) {
  if (!on_) return;
  const auto now = std::chrono::steady_clock::now();
  if (done < total_ && now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  const double secs = std::chrono::duration<double>(now - start_).count();
  const double rate = secs > 0 ? static_cast<double>(done - base_) / secs : 0;
  std::string eta = "-";
  if (rate > 0) {
    const auto left = std::lround(static_cast<double>(total_ - done) / rate);
    eta = fmt::format("{}:{:02d}:{:02d}", left / 3600, (left / 60) % 60, left % 60);
  }
  std::fputs(fmt::format("\r{}: {}{}{}/{} runs, {:.2f} runs/s, ETA {}   ", prefix_, detail, detail.empty() ? "" : ", ",
                         done, total_, rate, eta)
                 .c_str(),
             stderr);
  std::fflush(stderr);
}

}  // namespace schedsim
