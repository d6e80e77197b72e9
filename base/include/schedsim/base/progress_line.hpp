#pragma once
/// A progress line on stderr for commands that run many units (sweep's runs, validate's runs):
/// "PREFIX: [DETAIL, ]DONE/TOTAL runs, RATE runs/s, ETA H:MM:SS", rewritten in place at most every
/// 200 ms and always at the last unit. The rate counts the units done since the line was made
/// (a resumed sweep's earlier records are not this process's work).
#include <chrono>
#include <cstddef>
#include <string>

namespace schedsim {

class ProgressLine {
 public:
  /// `mode`: "auto" (shown when stderr is a terminal), "always" or "never".
  ProgressLine(const std::string& mode, std::string prefix, size_t total, size_t already = 0);
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine();  ///< ends the line
  void update(size_t done, const std::string& detail = "");

 private:
  bool on_;
  std::string prefix_;
  size_t total_, base_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace schedsim
