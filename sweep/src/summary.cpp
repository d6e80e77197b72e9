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

// Per point (and per column): what the records of a sweep say.
struct Tally {
  std::vector<std::vector<Acc>> acc;
  std::vector<size_t> runs, incomplete, warned;
  std::vector<std::string> first_reason, first_warning;
  std::vector<std::vector<size_t>> empty, absent;
  // Whether some record carries an optional column's figure: only then is a point without it
  // worth a warning (a sweep of workloads without a benchmark timer has none anywhere). The
  // column itself is always there, so the column set depends on the options alone, never on
  // the records (scripts index CSV columns by name).
  std::vector<bool> seen;

  Tally(size_t points, size_t columns)
      : acc(points, std::vector<Acc>(columns)),
        runs(points, 0),
        incomplete(points, 0),
        warned(points, 0),
        first_reason(points),
        first_warning(points),
        empty(points, std::vector<size_t>(columns, 0)),
        absent(points, std::vector<size_t>(columns, 0)),
        seen(columns, false) {}
};

// Counts record `j` of point `p`: completion, warnings and each column's value.
void tally_record(const nlohmann::json& j, uint64_t p, const SummaryOptions& opts, Tally& t) {
  ++t.runs[p];
  if (!opts.complete_pointer.empty()) {
    nlohmann::json::json_pointer cp(opts.complete_pointer);
    if (j.contains(cp) && j[cp].is_boolean() && !j[cp].get<bool>()) {
      ++t.incomplete[p];
      if (!opts.incomplete_pointer.empty() && t.first_reason[p].empty()) {
        nlohmann::json::json_pointer ip(opts.incomplete_pointer);
        if (j.contains(ip) && j[ip].is_array() && !j[ip].empty() && j[ip][0].is_string())
          t.first_reason[p] = j[ip][0].get<std::string>();
      }
    }
  }
  if (!opts.notes_pointer.empty()) {
    nlohmann::json::json_pointer np(opts.notes_pointer);
    if (j.contains(np) && j[np].is_array())
      for (const auto& n : j[np])
        if (n.is_string() && n.get<std::string>().rfind("warning:", 0) == 0) {
          if (t.warned[p]++ == 0) t.first_warning[p] = log::headline(n.get<std::string>());
          break;
        }
  }
  for (size_t c = 0; c < opts.columns.size(); ++c) {
    nlohmann::json::json_pointer ptr(opts.columns[c].pointer);
    if (opts.columns[c].optional && !j.contains(ptr)) {
      ++t.absent[p][c];
      continue;
    }
    t.seen[c] = true;
    if (!j.contains(ptr) || !j[ptr].is_number())
      throw InputError(fmt::format("sweep record of point {} has no number at {}", p, opts.columns[c].pointer));
    if (!opts.columns[c].count_pointer.empty()) {
      // A mean or percentile of no samples is undefined, not 0 (the record holds 0 for it).
      nlohmann::json::json_pointer np(opts.columns[c].count_pointer);
      if (j.contains(np) && j[np].is_number() && j[np].get<double>() == 0) {
        ++t.empty[p][c];
        continue;
      }
    }
    t.acc[p][c].add(j[ptr].get<double>() * opts.columns[c].scale);
  }
}

// Column titles: swept keys by short name, runs, metrics.
std::vector<std::string> header_row(const std::vector<std::string>& keys, const SummaryOptions& opts) {
  std::vector<std::string> key_titles;
  for (const auto& k : keys) {
    std::string t = k;
    for (const char* prefix : {"gen.", "cost.", "feature."})
      if (t.rfind(prefix, 0) == 0) t = t.substr(std::string(prefix).size());
    key_titles.push_back(t);
  }
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
  return head;
}

// What the warnings after the table name: the points (and columns) with too little to show.
struct Gaps {
  size_t total_incomplete = 0, missing_points = 0, total_warned = 0;
  std::vector<std::string> incomplete_points, warned_points, empty_cells;
  std::vector<std::vector<std::string>> absent_cells;
};

// Appends one column's cell(s) (mean and std in CSV) of a point with `runs` runs.
void add_value_cells(std::vector<std::string>& row, const Acc& a, size_t runs, int d, const SummaryOptions& opts) {
  if (runs == 0 || a.n == 0) {
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

// The table's body, a row per point; collects the gaps the warnings name.
std::vector<std::vector<std::string>> body_rows(const std::vector<Point>& points, const std::vector<std::string>& keys,
                                                const SummaryOptions& opts, const Tally& t, Gaps& gaps) {
  auto value_of = [&](const Point& pt, const std::string& key) {
    for (const auto& [k, v] : pt.params)
      if (k == key) return v;
    return std::string();
  };
  std::vector<std::vector<std::string>> rows;
  gaps.absent_cells.resize(opts.columns.size());
  for (size_t p = 0; p < points.size(); ++p) {
    std::vector<std::string> row;
    row.reserve(keys.size() + 1 + 2 * opts.columns.size());
    for (const auto& k : keys) row.push_back(value_of(points[p], k));
    if (keys.empty()) row.push_back(std::to_string(p));
    row.push_back(std::to_string(t.runs[p]));
    gaps.total_incomplete += t.incomplete[p];
    std::string name = points[p].label.empty() ? "point " + std::to_string(p) : points[p].label;
    if (t.incomplete[p])
      gaps.incomplete_points.push_back(fmt::format("{} ({} of {}{})", name, t.incomplete[p], t.runs[p],
                                                   t.first_reason[p].empty() ? "" : ": " + t.first_reason[p]));
    gaps.total_warned += t.warned[p];
    if (t.warned[p])
      gaps.warned_points.push_back(fmt::format("{} ({} of {}: {})", name, t.warned[p], t.runs[p], t.first_warning[p]));
    if (t.runs[p] == 0) ++gaps.missing_points;
    if (size_t e = t.empty[p].empty() ? 0 : *std::max_element(t.empty[p].begin(), t.empty[p].end()); e > 0)
      gaps.empty_cells.push_back(fmt::format("{} ({} of {} runs)", name, e, t.runs[p]));
    for (size_t c = 0; c < opts.columns.size(); ++c) {
      if (t.absent[p][c] > 0 && t.seen[c])
        gaps.absent_cells[c].push_back(fmt::format("{} ({} of {} runs)", name, t.absent[p][c], t.runs[p]));
      add_value_cells(row, t.acc[p][c], t.runs[p], opts.columns[c].decimals, opts);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

void add_warnings(const Gaps& gaps, const SummaryOptions& opts, std::vector<std::string>& warnings) {
  auto some = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size() && i < 3; ++i) s += (i ? "; " : "") + v[i];
    if (v.size() > 3) s += fmt::format("; and {} more", v.size() - 3);
    return s;
  };
  if (gaps.total_incomplete)
    warnings.push_back(
        fmt::format("{} run(s) did not finish (\"complete\": false); their figures cover only the "
                    "simulated part: {}",
                    gaps.total_incomplete, some(gaps.incomplete_points)));
  if (gaps.total_warned)
    warnings.push_back(
        fmt::format("{} run(s) came with a warning (results.summary.notes of their records): their figures may not "
                    "mean what they seem: {}",
                    gaps.total_warned, some(gaps.warned_points)));
  const char* no_value = opts.format == "csv" ? "empty" : "\"-\"";
  if (!gaps.empty_cells.empty())
    warnings.push_back(
        fmt::format("runs with no samples of a latency column (no wakeup) are left out of it ({} "
                    "when no run of the point has one): {}",
                    no_value, some(gaps.empty_cells)));
  for (size_t c = 0; c < opts.columns.size(); ++c)
    if (!gaps.absent_cells[c].empty())
      warnings.push_back(
          fmt::format("runs with no {} ({}) are left out of that column ({} when no run of the "
                      "point has one): {}",
                      opts.columns[c].name, opts.columns[c].absent_why, no_value, some(gaps.absent_cells[c])));
  if (gaps.missing_points) warnings.push_back(fmt::format("{} point(s) have no records yet", gaps.missing_points));
}

std::string render_csv(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows) {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (size_t i = 0; i < cells.size(); ++i) l += (i ? "," : "") + csv_field(cells[i]);
    return l + "\n";
  };
  out += line(head);
  for (const auto& r : rows) out += line(r);
  return out;
}

// The aligned text table, or with `markdown` a Markdown table; the first `nkeys` columns (the
// parameters) are left-aligned, the numbers right-aligned.
std::string render_aligned(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows,
                           size_t nkeys, bool markdown) {
  std::string out;
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
  auto cell = [&](const std::string& s, size_t i) {
    std::string pad(w[i] - width(s), ' ');
    return i < nkeys ? s + pad : pad + s;  // parameters left, numbers right
  };
  if (markdown) {
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

}  // namespace

std::string render_summary(const Spec& spec, const std::vector<std::string>& records, const SummaryOptions& opts,
                           std::vector<std::string>& warnings) {
  std::vector<Point> points = expand(spec);
  // The swept keys (every axis key), shown by their label names.
  std::vector<std::string> keys;
  for (const auto& a : spec.axes) keys.insert(keys.end(), a.keys.begin(), a.keys.end());
  Tally tally(points.size(), opts.columns.size());
  for (const auto& line : records) {
    auto j = nlohmann::json::parse(line);
    uint64_t p = j[kRecordPoint].get<uint64_t>();
    if (p >= points.size()) continue;
    tally_record(j, p, opts, tally);
  }
  const std::vector<std::string> head = header_row(keys, opts);
  Gaps gaps;
  const std::vector<std::vector<std::string>> rows = body_rows(points, keys, opts, tally, gaps);
  add_warnings(gaps, opts, warnings);
  if (opts.format == "csv") return render_csv(head, rows);
  return render_aligned(head, rows, keys.empty() ? 1 : keys.size(), opts.format == "markdown");
}

}  // namespace schedsim::sweep
