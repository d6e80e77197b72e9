// The sweep summary table (aligned text, CSV, Markdown).
#include "schedsim/base/log.hpp"
#include "schedsim/sweep/summary.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
#include "schedsim/sweep/jsonl.hpp"

namespace schedsim::sweep {

namespace {

struct Acc {
  size_t n = 0;
  double sum = 0, sum_sq = 0;
  void add(double v) {
    ++n;
    sum += v;
    sum_sq += v * v;
  }
  double mean() const { return n ? sum / static_cast<double>(n) : 0; }
  /// Sample standard deviation (n - 1); undefined for a single value (callers show none), 0 here.
  double stddev() const {
    if (n < 2) return 0;
    double m = mean();
    double var = (sum_sq - static_cast<double>(n) * m * m) / static_cast<double>(n - 1);
    return var > 0 ? std::sqrt(var) : 0;
  }
};

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string render_summary(const Spec& spec, const std::vector<std::string>& records, const SummaryOptions& opts,
                           std::vector<std::string>& warnings) {
  std::vector<Point> points = expand(spec);
  // The swept keys (every axis key), shown by their label names.
  std::vector<std::string> keys;
  for (const auto& a : spec.axes) keys.insert(keys.end(), a.keys.begin(), a.keys.end());
  std::vector<std::vector<Acc>> acc(points.size(), std::vector<Acc>(opts.columns.size()));
  std::vector<size_t> runs(points.size(), 0), incomplete(points.size(), 0);
  std::vector<std::string> first_reason(points.size());
  std::vector<size_t> warned(points.size(), 0);
  std::vector<std::string> first_warning(points.size());
  std::vector<std::vector<size_t>> empty(points.size(), std::vector<size_t>(opts.columns.size(), 0));
  std::vector<std::vector<size_t>> absent(points.size(), std::vector<size_t>(opts.columns.size(), 0));
  // Whether some record carries an optional column's figure: only then is a point without it
  // worth a warning (a sweep of workloads without a benchmark timer has none anywhere). The
  // column itself is always there, so the column set depends on the options alone, never on
  // the records (scripts index CSV columns by name).
  std::vector<bool> seen(opts.columns.size(), false);
  for (const auto& line : records) {
    auto j = nlohmann::json::parse(line);
    uint64_t p = j[kRecordPoint].get<uint64_t>();
    if (p >= points.size()) continue;
    ++runs[p];
    if (!opts.complete_pointer.empty()) {
      nlohmann::json::json_pointer cp(opts.complete_pointer);
      if (j.contains(cp) && j[cp].is_boolean() && !j[cp].get<bool>()) {
        ++incomplete[p];
        if (!opts.incomplete_pointer.empty() && first_reason[p].empty()) {
          nlohmann::json::json_pointer ip(opts.incomplete_pointer);
          if (j.contains(ip) && j[ip].is_array() && !j[ip].empty() && j[ip][0].is_string())
            first_reason[p] = j[ip][0].get<std::string>();
        }
      }
    }
    if (!opts.notes_pointer.empty()) {
      nlohmann::json::json_pointer np(opts.notes_pointer);
      if (j.contains(np) && j[np].is_array())
        for (const auto& n : j[np])
          if (n.is_string() && n.get<std::string>().rfind("warning:", 0) == 0) {
            if (warned[p]++ == 0) first_warning[p] = log::headline(n.get<std::string>());
            break;
          }
    }
    for (size_t c = 0; c < opts.columns.size(); ++c) {
      nlohmann::json::json_pointer ptr(opts.columns[c].pointer);
      if (opts.columns[c].optional && !j.contains(ptr)) {
        ++absent[p][c];
        continue;
      }
      seen[c] = true;
      if (!j.contains(ptr) || !j[ptr].is_number())
        throw InputError(fmt::format("sweep record of point {} has no number at {}", p, opts.columns[c].pointer));
      if (!opts.columns[c].count_pointer.empty()) {
        // A mean or percentile of no samples is undefined, not 0 (the record holds 0 for it).
        nlohmann::json::json_pointer np(opts.columns[c].count_pointer);
        if (j.contains(np) && j[np].is_number() && j[np].get<double>() == 0) {
          ++empty[p][c];
          continue;
        }
      }
      acc[p][c].add(j[ptr].get<double>() * opts.columns[c].scale);
    }
  }
  // Column titles: swept keys by short name, runs, metrics.
  std::vector<std::string> key_titles;
  for (const auto& k : keys) {
    std::string t = k;
    for (const char* prefix : {"gen.", "cost.", "feature."})
      if (t.rfind(prefix, 0) == 0) t = t.substr(std::string(prefix).size());
    key_titles.push_back(t);
  }
  auto value_of = [&](const Point& pt, const std::string& key) {
    for (const auto& [k, v] : pt.params)
      if (k == key) return v;
    return std::string();
  };
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head = key_titles;
  if (keys.empty()) head.emplace_back("point");
  head.emplace_back("runs");
  for (size_t c = 0; c < opts.columns.size(); ++c) {
    if (opts.format == "csv") {
      head.push_back(opts.columns[c].name + " mean");
      head.push_back(opts.columns[c].name + " std");
    } else {
      head.push_back(opts.columns[c].name);
    }
  }
  size_t total_incomplete = 0, missing_points = 0, total_warned = 0;
  std::vector<std::string> incomplete_points, warned_points, empty_cells;
  std::vector<std::vector<std::string>> absent_cells(opts.columns.size());
  for (size_t p = 0; p < points.size(); ++p) {
    std::vector<std::string> row;
    row.reserve(keys.size() + 1 + 2 * opts.columns.size());
    for (const auto& k : keys) row.push_back(value_of(points[p], k));
    if (keys.empty()) row.push_back(std::to_string(p));
    row.push_back(std::to_string(runs[p]));
    total_incomplete += incomplete[p];
    std::string name = points[p].label.empty() ? "point " + std::to_string(p) : points[p].label;
    if (incomplete[p])
      incomplete_points.push_back(fmt::format("{} ({} of {}{})", name, incomplete[p], runs[p],
                                              first_reason[p].empty() ? "" : ": " + first_reason[p]));
    total_warned += warned[p];
    if (warned[p]) warned_points.push_back(fmt::format("{} ({} of {}: {})", name, warned[p], runs[p], first_warning[p]));
    if (runs[p] == 0) ++missing_points;
    if (size_t e = empty[p].empty() ? 0 : *std::max_element(empty[p].begin(), empty[p].end()); e > 0)
      empty_cells.push_back(fmt::format("{} ({} of {} runs)", name, e, runs[p]));
    for (size_t c = 0; c < opts.columns.size(); ++c) {
      if (absent[p][c] > 0 && seen[c]) absent_cells[c].push_back(fmt::format("{} ({} of {} runs)", name, absent[p][c], runs[p]));
      const Acc& a = acc[p][c];
      int d = opts.columns[c].decimals;
      if (runs[p] == 0 || a.n == 0) {
        // No value: an empty CSV cell (read as missing, NaN in pandas), "-" in the text forms.
        row.emplace_back(opts.format == "csv" ? "" : "-");
        if (opts.format == "csv") row.emplace_back("");
      } else if (opts.format == "csv") {
        row.push_back(fmt::format("{:.{}f}", a.mean(), d + 1));
        // The sample standard deviation of one value is undefined, not 0 (the table shows no "±").
        row.push_back(a.n > 1 ? fmt::format("{:.{}f}", a.stddev(), d + 1) : std::string());
      } else if (a.n > 1) {
        row.push_back(fmt::format("{:.{}f} ± {:.{}f}", a.mean(), d, a.stddev(), d));
      } else {
        row.push_back(fmt::format("{:.{}f}", a.mean(), d));
      }
    }
    rows.push_back(std::move(row));
  }
  auto some = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size() && i < 3; ++i) s += (i ? "; " : "") + v[i];
    if (v.size() > 3) s += fmt::format("; and {} more", v.size() - 3);
    return s;
  };
  if (total_incomplete)
    warnings.push_back(fmt::format("{} run(s) did not finish (\"complete\": false); their figures cover only the "
                                   "simulated part: {}",
                                   total_incomplete, some(incomplete_points)));
  if (total_warned)
    warnings.push_back(fmt::format("{} run(s) came with a warning (results.summary.notes of their records): their figures may not "
                                   "mean what they seem: {}",
                                   total_warned, some(warned_points)));
  const char* no_value = opts.format == "csv" ? "empty" : "\"-\"";
  if (!empty_cells.empty())
    warnings.push_back(fmt::format("runs with no samples of a latency column (no wakeup) are left out of it ({} "
                                   "when no run of the point has one): {}",
                                   no_value, some(empty_cells)));
  for (size_t c = 0; c < opts.columns.size(); ++c)
    if (!absent_cells[c].empty())
      warnings.push_back(fmt::format("runs with no {} ({}) are left out of that column ({} when no run of the "
                                     "point has one): {}",
                                     opts.columns[c].name, opts.columns[c].absent_why, no_value, some(absent_cells[c])));
  if (missing_points) warnings.push_back(fmt::format("{} point(s) have no records yet", missing_points));

  std::string out;
  if (opts.format == "csv") {
    auto line = [&](const std::vector<std::string>& cells) {
      std::string l;
      for (size_t i = 0; i < cells.size(); ++i) l += (i ? "," : "") + csv_field(cells[i]);
      return l + "\n";
    };
    out += line(head);
    for (const auto& r : rows) out += line(r);
    return out;
  }
  // Display width: count UTF-8 code points ("±", "µ").
  auto width = [](const std::string& s) {
    size_t w = 0;
    for (char c : s)
      if ((static_cast<uint8_t>(c) & 0xc0) != 0x80) ++w;
    return w;
  };
  std::vector<size_t> w(head.size());
  for (size_t i = 0; i < head.size(); ++i) w[i] = width(head[i]);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], width(r[i]));
  size_t nkeys = keys.empty() ? 1 : keys.size();
  auto cell = [&](const std::string& s, size_t i) {
    std::string pad(w[i] - width(s), ' ');
    return i < nkeys ? s + pad : pad + s;  // parameters left, numbers right
  };
  if (opts.format == "markdown") {
    auto line = [&](const std::vector<std::string>& cells) {
      std::string l = "|";
      for (size_t i = 0; i < cells.size(); ++i) l += " " + cell(cells[i], i) + " |";
      return l + "\n";
    };
    out += line(head);
    std::string sep = "|";
    for (size_t i = 0; i < head.size(); ++i) sep += (i < nkeys ? ":" + std::string(w[i] + 1, '-') : std::string(w[i] + 1, '-') + ":") + "|";
    out += sep + "\n";
    for (const auto& r : rows) out += line(r);
    return out;
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (size_t i = 0; i < cells.size(); ++i) l += (i ? "  " : "") + cell(cells[i], i);
    while (!l.empty() && l.back() == ' ') l.pop_back();
    return l + "\n";
  };
  out += line(head);
  for (const auto& r : rows) out += line(r);
  return out;
}

}  // namespace schedsim::sweep
