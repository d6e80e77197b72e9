#pragma once
// Text helpers shared by the metrics reporters (results tables and CSV, repeat statistics,
// compare): an aligned text table, RFC 4180 CSV quoting and fixed number formatting.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace schedsim::report_util {

/// A column-aligned text table: the first column left-aligned, the others right-aligned.
class TextTable {
 public:
  /// `key_value`: every column left-aligned (for "name  value" lists).
  explicit TextTable(std::vector<std::string> header, bool key_value = false)
      : rows_{std::move(header)}, key_value_(key_value) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string render(const std::string& indent = "  ") const {
    std::vector<size_t> w;
    for (const auto& r : rows_)
      for (size_t i = 0; i < r.size(); ++i) {
        if (w.size() <= i) w.push_back(0);
        w[i] = std::max(w[i], r[i].size());
      }
    std::string out;
    for (const auto& r : rows_) {
      std::string line = indent;
      for (size_t i = 0; i < r.size(); ++i) {
        if (i) line += "  ";
        size_t pad = w[i] - r[i].size();
        if (i == 0 || key_value_)
          line += r[i] + std::string(pad, ' ');
        else
          line += std::string(pad, ' ') + r[i];
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    return out;
  }

 private:
  std::vector<std::vector<std::string>> rows_;
  bool key_value_ = false;
};

inline std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

/// The simulated-vs-observed tables' marks (text and HTML): an observed figure with a note is
/// marked ">=" (a lower bound) or "*", and each note is explained once under the table by
/// observed_note_line().
inline std::string observed_mark(const std::string& note) {
  if (note.empty()) return "";
  return note.rfind("lower bound", 0) == 0 ? ">=" : "*";
}
inline std::string observed_note_line(const std::string& note) {
  return observed_mark(note) + " observed wakeup latency is a " + note;
}
/// The distinct notes of `rows`' figures, in first-seen order.
template <class Rows>
std::vector<std::string> observed_notes(const Rows& rows) {
  std::vector<std::string> notes;
  for (const auto& x : rows)
    if (!x.note.empty() && std::find(notes.begin(), notes.end(), x.note) == notes.end()) notes.push_back(x.note);
  return notes;
}

/// Numbers in CSV and JSON-like text: integers as is, fractions with up to 6 decimals, no
/// trailing zeros (fixed, locale-independent).
inline std::string num(double v) {
  if (std::isnan(v) || std::isinf(v)) return "0";
  std::string s = fmt::format("{:.6f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

}  // namespace schedsim::report_util
