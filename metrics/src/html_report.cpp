// The self-contained HTML report: inline CSS, inline SVG, one tiny inline script; no network.
#include "schedsim/metrics/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/stats/stats.hpp"
#include "schedsim/metrics/compare.hpp"
#include "report_util.hpp"

namespace schedsim {

namespace {

const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                          "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
constexpr size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

// Placement outcomes in the order select_task_rq tries them, for bar segments and legends.
const char* kOutcomeOrder[] = {"target",       "prev",     "recent",   "kthread",   "idle_core", "idle_cpu",
                               "idle_sibling", "capacity", "fallback", "slow_path", "pinned",   "delayed"};
const char* kOutcomeColor[] = {"#4e79a7", "#a0cbe8", "#86bcb6", "#bab0ac", "#59a14f", "#8cd17d",
                               "#f1ce63", "#b6992d", "#e15759", "#ff9d9a", "#79706e", "#d4a6c8"};
// What each outcome means, shown under the bars (the same order).
const char* kOutcomeDefinition[] = {
    "the wake-affine target CPU (the waker's, or the wakee's previous) was idle and was taken at once",
    "the wakee's previous CPU was idle (or shares the target's cache and is idle): taken without a search",
    "the CPU the wakee recently used (recent_used_cpu) was idle and shares the target's cache",
    "the waker is a per-CPU kernel thread about to sleep: the wakee is stacked on its CPU",
    "the search of the target's LLC found a core whose SMT siblings are all idle",
    "the search found an idle CPU (its sibling may be busy)",
    "an idle SMT sibling of the target was taken (select_idle_smt, or a folded search's fallback)",
    "asymmetric-capacity machine: the search picked an idle CPU big enough for the task's utilization",
    "nothing idle was found: the task was queued on the target, possibly behind a running task",
    "fork or exec placement (find_idlest_cpu): the least loaded group and CPU of the machine",
    "the task may run on one CPU only: no choice was made",
    "the task was still queued (DELAY_DEQUEUE) and was woken in place, without select_task_rq"};
static_assert(std::size(kOutcomeOrder) == std::size(kOutcomeDefinition));

std::string esc(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string f1(double v) { return fmt::format("{:.1f}", v); }
std::string f2(double v) { return fmt::format("{:.2f}", v); }
std::string us3(double ns) { return fmt::format("{:.3f}", ns / 1e3); }
std::string ms3(double ns) { return fmt::format("{:.3f}", ns / 1e6); }

std::string human_ns(double v) {
  if (v == 0) return "0";  // no unit: "0ns" read as a measured nanosecond figure
  if (v >= 1e9) return fmt::format("{:g}s", v / 1e9);
  if (v >= 1e6) return fmt::format("{:g}ms", v / 1e6);
  if (v >= 1e3) return fmt::format("{:g}us", v / 1e3);
  return fmt::format("{:g}ns", v);
}

const char* color(size_t i) { return kPalette[i % kPaletteSize]; }

// ---- latency CDF on a log x axis ------------------------------------------------------------

struct PlotBox {
  double W, H, L, T, pw, ph;  ///< size, left and top margins, plot area
};

// Opens a latency plot into `s`: the <svg> element of class "plot CLS" and its frame. The latency
// axis spans the decades [d0, d1] from the smallest `low(d)` to the largest max + 1 over the runs'
// non-empty distributions. When every one is empty the plot is closed with "no samples" and
// false is returned.
template <class Low>
bool open_log_plot(std::string& s, const char* cls, const std::string& id, const std::string& label,
                   const PlotBox& b, const std::vector<RunResults>& runs, const Distribution RunResults::*field,
                   Low low, double& d0, double& d1) {
  double lo = 1e300, hi = 0;
  for (const auto& r : runs) {
    const Distribution& d = r.*field;
    if (d.count == 0) continue;
    lo = std::min(lo, low(d));
    hi = std::max(hi, static_cast<double>(d.max) + 1);
  }
  s += fmt::format(
      "<svg class=\"plot {}\" id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n",
      cls, id, b.W, b.H, b.W, b.H, esc(label));
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"frame\"/>\n", b.L, b.T, b.pw, b.ph);
  if (hi == 0) {
    s += fmt::format("<text x=\"{}\" y=\"{}\" class=\"empty\">no samples</text>\n</svg>\n", b.L + b.pw / 2,
                     b.T + b.ph / 2);
    return false;
  }
  d0 = std::floor(std::log10(lo));
  d1 = std::ceil(std::log10(hi));
  if (d1 <= d0) d1 = d0 + 1;
  return true;
}

// The value below which 1% of a distribution's positive samples lie (bucket lower edge, at least
// 1 ns); 0 when it has no positive sample. A CDF's log axis starts at its decade: the first
// nanoseconds hold almost no samples and took half the width when the axis started at 1 ns.
double low_positive(const Distribution& d) {
  uint64_t positive = 0;
  for (const auto& b : d.buckets)
    if (b.lo > 0) positive += b.count;
  if (positive == 0) return 0;
  const double target = 0.01 * static_cast<double>(positive);
  double cum = 0;
  for (const auto& b : d.buckets) {
    if (b.lo <= 0) continue;
    cum += static_cast<double>(b.count);
    if (cum >= target) return static_cast<double>(b.lo);
  }
  return static_cast<double>(d.max);
}

std::string cdf_plot(const std::string& id, const std::string& what, const std::vector<RunResults>& runs,
                     const Distribution RunResults::*field) {
  const double W = 960, H = 380, L = 64, R = 20, T = 16, B = 48;
  // Samples below the log axis (0 ns, which no log axis holds, and the rare ones under its first
  // decade) rise in a strip of their own at the left, set apart by a gap: the curve's height
  // where the axis starts is their share, which the legend gives.
  const double strip = 50, gap = 20;
  const double pw = W - L - R, ph = H - T - B;
  const double AL = L + strip + gap, apw = pw - strip - gap;  // the log axis's left edge and width
  std::string s;
  double d0 = 0, d1 = 0;
  if (!open_log_plot(s, "cdf", id, what + " CDF", {W, H, L, T, pw, ph}, runs, field,
                     [](const Distribution& d) { return std::max(1.0, low_positive(d)); }, d0, d1))
    return s;
  const double axis_lo = std::pow(10.0, d0);
  auto below = [&](const Distribution& d) {  // samples in the strip: zeros, and positive ones under axis_lo
    std::pair<uint64_t, uint64_t> n{0, 0};
    for (const auto& b : d.buckets)
      if (b.lo <= 0) n.first += b.count;
      else if (static_cast<double>(b.hi) <= axis_lo) n.second += b.count;
    return n;
  };
  bool any_small = false;
  for (const auto& r : runs) any_small = any_small || below(r.*field).second > 0;
  auto xp = [&](double v) {
    double lv = std::log10(std::max(v, axis_lo));
    return AL + (lv - d0) / (d1 - d0) * apw;
  };
  auto yp = [&](double f) { return T + (1.0 - f) * ph; };
  // Grid and axes.
  const double xs = L + strip / 2;
  s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" class=\"grid\"/>\n", xs, T, xs, T + ph);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"xtick\">{}</text>\n", xs, T + ph + 18,
                   any_small ? "&lt;" + human_ns(axis_lo) : std::string("0"));
  for (int d = static_cast<int>(d0); d <= static_cast<int>(d1); ++d) {
    double v = std::pow(10.0, d);
    double x = xp(v);
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" class=\"grid\"/>\n", x, T, x, T + ph);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"xtick\">{}</text>\n", x, T + ph + 18, human_ns(v));
    if (d < static_cast<int>(d1))
      for (int k = 2; k <= 9; ++k) {
        double xm = xp(v * k);
        s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" class=\"grid minor\"/>\n", xm,
                         T + ph, xm, T + ph - 5);
      }
  }
  for (int k = 0; k <= 10; ++k) {
    double f = k / 10.0;
    double y = yp(f);
    s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"grid\"/>\n", L, y, L + pw, y);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"ytick\">{:.1f}</text>\n", L - 6, y + 4, f);
  }
  s += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"axis-break\"/>\n", L + strip, T - 1,
                   gap, ph + 2);
  s += fmt::format("<text x=\"{}\" y=\"{}\" class=\"axis\">{} (log scale)</text>\n", AL + apw / 2, H - 8, esc(what));
  s += fmt::format("<text x=\"14\" y=\"{}\" class=\"axis\" transform=\"rotate(-90 14 {})\">fraction of samples</text>\n",
                   T + ph / 2, T + ph / 2);
  // Curves: the strip's step, then a step CDF through each later bucket's upper edge.
  for (size_t i = 0; i < runs.size(); ++i) {
    const Distribution& d = runs[i].*field;
    if (d.count == 0) continue;
    const double total = static_cast<double>(d.count);
    const auto [zeros, small] = below(d);
    uint64_t cum = zeros + small;
    double prev_y = yp(static_cast<double>(cum) / total);
    std::string pts = fmt::format("{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}", L, yp(0), xs, yp(0), xs, prev_y);
    for (const auto& b : d.buckets) {
      if (b.lo <= 0 || static_cast<double>(b.hi) <= axis_lo) continue;
      double x0 = xp(static_cast<double>(b.lo));
      cum += b.count;
      double y = yp(static_cast<double>(cum) / total);
      pts += fmt::format(" {:.1f},{:.1f} {:.1f},{:.1f}", x0, prev_y, xp(static_cast<double>(b.hi)), y);
      prev_y = y;
    }
    s += fmt::format("<polyline class=\"curve\" data-run=\"{}\" fill=\"none\" stroke=\"{}\" points=\"{}\"><title>{}</title></polyline>\n",
                     i, color(i), pts, esc(runs[i].config.display_label()));
  }
  // Legend at the bottom right: a CDF's curves run along the top there.
  double ly = T + ph - 10 - 16.0 * static_cast<double>(runs.size() - 1);
  for (size_t i = 0; i < runs.size(); ++i) {
    const Distribution& d = runs[i].*field;
    const double lx = L + pw - 520;
    s += fmt::format("<rect x=\"{:.0f}\" y=\"{:.1f}\" width=\"14\" height=\"4\" fill=\"{}\"/>", lx, ly - 4, color(i));
    std::string strip_text;
    if (d.count) {
      const auto [zeros, small] = below(d);
      // A share that rounds to 0.0% is not none: "<0.1%".
      auto pct = [&](uint64_t n) {
        const double p = 100.0 * static_cast<double>(n) / static_cast<double>(d.count);
        return n > 0 && p < 0.05 ? std::string("&lt;0.1%") : fmt::format("{:.1f}%", p);
      };
      strip_text = fmt::format(", {} zero", pct(zeros));
      if (small) strip_text += fmt::format(", {} under {}", pct(small), human_ns(axis_lo));
    }
    s += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" class=\"legend\">{} (n={}, p99 {}{})</text>\n", lx + 20, ly,
                     esc(runs[i].config.display_label()), d.count, human_ns(static_cast<double>(d.p99)),
                     strip_text);
    ly += 16;
  }
  s += "</svg>\n";
  return s;
}

// ---- latency percentiles p50..p99.99 on a "nines" axis ---------------------------------------

// The value at quantile q of a bucketed distribution, interpolated linearly inside the bucket
// (exact at bucket edges; the histogram's own percentiles are exact below its exact limit).
double quantile_of(const Distribution& d, double q) {
  double target = q * static_cast<double>(d.count);
  double cum = 0;
  for (const auto& b : d.buckets) {
    double n = static_cast<double>(b.count);
    if (cum + n >= target) {
      double f = n > 0 ? (target - cum) / n : 0;
      return static_cast<double>(b.lo) + f * static_cast<double>(b.hi - 1 - b.lo);
    }
    cum += n;
  }
  return static_cast<double>(d.max);
}

// x = -log10(1 - q): p50 at 0.30, p90 at 1, p99 at 2, p99.9 at 3, p99.99 at 4; y = latency on a log
// axis. The tail, where placement policies differ, gets as much width as the median. A run's
// curve stops at the highest quantile its sample count resolves (1 - 1/n), marked with its max.
std::string percentile_plot(const std::string& id, const std::string& what, const std::vector<RunResults>& runs,
                            const Distribution RunResults::*field) {
  const double W = 960, H = 400, L = 64, R = 20, T = 16, B = 48;
  const double pw = W - L - R, ph = H - T - B;
  const double x0 = std::log10(2.0), x1 = 4.0;
  const int steps = 160;
  auto nines_of = [&](const Distribution& d, int k) {
    return x0 + (std::min(x1, std::log10(static_cast<double>(d.count))) - x0) * k / steps;
  };
  // A latency of 0 (a wakee that ran at once: half the wakes of a replayed trace) has no place on
  // a log axis: such points sit on a band of their own under the axis, marked 0, set apart by a
  // gap, and the axis starts at the decade of the smallest positive value a curve shows.
  const double band = 22, gap = 10;
  const double aph = ph - band - gap;
  auto smallest_positive = [&](const Distribution& d) {
    for (int k = 0; k <= steps; ++k)
      if (double v = quantile_of(d, 1.0 - std::pow(10.0, -nines_of(d, k))); v > 0) return std::max(1.0, v);
    return std::max(1.0, static_cast<double>(d.max));
  };
  std::string s;
  double d0 = 0, d1 = 0;
  if (!open_log_plot(s, "pct", id, what + " percentiles", {W, H, L, T, pw, ph}, runs, field, smallest_positive, d0,
                     d1))
    return s;
  bool any_zero = false;
  for (const auto& r : runs) any_zero = any_zero || ((r.*field).count > 0 && quantile_of(r.*field, 0.5) <= 0);
  auto xp = [&](double nines) { return L + (nines - x0) / (x1 - x0) * pw; };
  const double y_zero = T + ph - band / 2;
  auto yp = [&](double v) {
    if (v <= 0 && any_zero) return y_zero;
    double lv = std::log10(std::max(v, std::pow(10.0, d0)));
    return T + (1.0 - (lv - d0) / (d1 - d0)) * (any_zero ? aph : ph);
  };
  for (int d = static_cast<int>(d0); d <= static_cast<int>(d1); ++d) {
    double v = std::pow(10.0, d), y = yp(v);
    s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"grid\"/>\n", L, y, L + pw, y);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"ytick\">{}</text>\n", L - 6, y + 4, human_ns(v));
    if (d < static_cast<int>(d1))
      for (int k = 2; k <= 9; ++k) {
        double ym = yp(v * k);
        s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"grid minor\"/>\n", L, ym,
                         L + 5, ym);
      }
  }
  if (any_zero) {
    s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"grid\"/>\n", L, y_zero, L + pw,
                     y_zero);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"ytick\">0</text>\n", L - 6, y_zero + 4);
    s += fmt::format("<rect x=\"{}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" class=\"axis-break\"/>\n", L - 1,
                     T + aph, pw + 2, gap);
  }
  const std::pair<double, const char*> ticks[] = {{x0, "p50"}, {1, "p90"}, {2, "p99"}, {3, "p99.9"}, {4, "p99.99"}};
  for (const auto& [x, name] : ticks) {
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" class=\"grid\"/>\n", xp(x), T, xp(x),
                     T + ph);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"xtick\">{}</text>\n", xp(x), T + ph + 18, name);
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" class=\"axis\">percentile (each step right is ten times rarer)</text>\n",
                   L + pw / 2, H - 8);
  s += fmt::format("<text x=\"14\" y=\"{}\" class=\"axis\" transform=\"rotate(-90 14 {})\">{} (log scale)</text>\n",
                   T + ph / 2, T + ph / 2, esc(what));
  for (size_t i = 0; i < runs.size(); ++i) {
    const Distribution& d = runs[i].*field;
    if (d.count == 0) continue;
    double xmax = nines_of(d, steps);
    std::string pts;
    for (int k = 0; k <= steps; ++k) {
      double x = nines_of(d, k);
      double q = 1.0 - std::pow(10.0, -x);
      pts += fmt::format("{}{:.1f},{:.1f}", k ? " " : "", xp(x), yp(quantile_of(d, q)));
    }
    s += fmt::format("<polyline class=\"curve\" data-run=\"{}\" fill=\"none\" stroke=\"{}\" points=\"{}\"><title>{}"
                     "</title></polyline>\n",
                     i, color(i), pts, esc(runs[i].config.display_label()));
    s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"><title>{}: max {} (n={})</title></circle>\n",
                     xp(xmax), yp(static_cast<double>(d.max)), color(i), esc(runs[i].config.display_label()),
                     human_ns(static_cast<double>(d.max)), d.count);
  }
  double ly = T + 14;
  for (size_t i = 0; i < runs.size(); ++i) {
    const Distribution& d = runs[i].*field;
    s += fmt::format("<rect x=\"{}\" y=\"{:.1f}\" width=\"14\" height=\"4\" fill=\"{}\"/>", L + 10, ly - 4, color(i));
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"legend\">{}: p50 {}, p99 {}, p99.9 {}, max {}</text>\n", L + 30,
                     ly, esc(runs[i].config.display_label()), human_ns(static_cast<double>(d.p50)),
                     human_ns(static_cast<double>(d.p99)), human_ns(static_cast<double>(d.p999)),
                     human_ns(static_cast<double>(d.max)));
    ly += 16;
  }
  s += "</svg>\n";
  return s;
}

// ---- placement outcome bars -----------------------------------------------------------------

std::string placement_bars(const std::vector<RunResults>& runs) {
  const double W = 960, L = 300, R = 20, T = 10, bar = 26, gap = 12;
  const double pw = W - L - R;
  double H = T + static_cast<double>(runs.size()) * (bar + gap) + 4;
  std::string s = fmt::format(
      "<svg class=\"plot bars\" id=\"placement-bars\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
      "height=\"{:.0f}\" viewBox=\"0 0 {} {:.0f}\" role=\"img\" aria-label=\"placement outcomes\">\n",
      W, H, W, H);
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& oc = runs[i].placement.outcomes;
    uint64_t total = 0;
    for (const auto& [k, v] : oc) total += v;
    double y = T + static_cast<double>(i) * (bar + gap);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"barlabel\">{}</text>\n", L - 8, y + bar * 0.65,
                     esc(runs[i].config.display_label()));
    s += fmt::format("<rect x=\"{}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" class=\"frame\"/>\n", L, y, pw, bar);
    if (total == 0) {
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"empty\">no placements</text>\n", L + 8, y + bar * 0.65);
      continue;
    }
    double x = L;
    for (size_t k = 0; k < std::size(kOutcomeOrder); ++k) {
      auto it = oc.find(kOutcomeOrder[k]);
      if (it == oc.end() || it->second == 0) continue;
      double share = static_cast<double>(it->second) / static_cast<double>(total);
      double w = share * pw;
      s += fmt::format("<rect class=\"seg\" data-outcome=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                       "height=\"{}\" fill=\"{}\"><title>{}: {} ({:.1f}%)</title></rect>\n",
                       kOutcomeOrder[k], x, y, w, bar, kOutcomeColor[k], kOutcomeOrder[k], it->second, 100 * share);
      if (w > 44)
        s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"seglabel\">{:.0f}%</text>\n", x + w / 2,
                         y + bar * 0.65, 100 * share);
      x += w;
    }
  }
  // The legend is the definitions list under the plot (outcome_definitions), same colors.
  s += "</svg>\n";
  return s;
}

std::string outcome_definitions() {
  std::string s = "<dl class=\"defs\" id=\"outcome-definitions\">\n";
  for (size_t k = 0; k < std::size(kOutcomeOrder); ++k)
    s += fmt::format("<dt><span class=\"swatch\" style=\"background:{}\"></span> {}</dt><dd>{}</dd>\n", kOutcomeColor[k],
                     kOutcomeOrder[k], kOutcomeDefinition[k]);
  s += "</dl>\n";
  return s;
}

// Definitions of the summary's derived columns.
const char* kWastedDefinition =
    "<dl class=\"defs\" id=\"metric-definitions\">\n"
    "<dt>wasted</dt><dd>time a CPU sat idle with an empty run queue while a task allowed to run on it waited in "
    "another CPU's queue (the work-conservation violation of Lozi et al., &quot;The Linux Scheduler: a Decade of "
    "Wasted Cores&quot;, EuroSys 2016), as a share of makespan &times; CPUs. A task between its wakeup and its "
    "enqueue (IPI, idle exit in flight) is not waiting in a queue.</dd>\n"
    "<dt>util</dt><dd>busy time (a task current) as a share of makespan &times; CPUs.</dd>\n"
    "<dt>wakeup latency</dt><dd>from the wake (sched_waking) to the wakee's next switch-in: search, IPI, idle exit "
    "and queueing included.</dd>\n"
    "<dt>rq wait</dt><dd>from any enqueue or preemption to the task's next switch-in; 0 when it ran at once.</dd>\n"
    "<dt>(&plusmn;x%)</dt><dd>change against the first run (the first row); for latencies and wasted time "
    "lower is better.</dd>\n"
    "</dl>\n";

// An axis step for [0, max]: 1, 2 or 5 times a power of ten, giving at most `intervals` of them
// (a max of 0 or less is taken as 1).
double round_step(double max, int intervals) {
  if (max <= 0) max = 1;
  double step = std::pow(10.0, std::floor(std::log10(max / intervals)));
  for (const double k : {1.0, 2.0, 5.0, 10.0})
    if (max / (step * k) <= intervals) return step * k;
  return step * 10;
}

// ---- utilization heatmap --------------------------------------------------------------------

// Sequential blue scale: 0 -> #f7fbff, 1 -> #08306b.
std::string heat_color(double f) {
  f = std::clamp(f, 0.0, 1.0);
  auto mix = [&](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * f)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(0xf7, 0x08), mix(0xfb, 0x30), mix(0xff, 0x6b));
}

// Rows are CPUs grouped by LLC (then by id), so a task bouncing between caches shows as blocks
// changing group; a thin line separates LLCs, a thick one NUMA nodes, drawn across the cells only
// (the CPU labels stay readable). Each run has its own time axis over the full width: a shared
// one gave a 13 ms run 18% of the width beside a 75 ms run, too little to see its pattern; the
// axis text and ticks say each run's span.
std::string heatmap(size_t idx, const RunResults& r) {
  const UtilTimeline& tl = r.timeline;
  size_t ncpu = tl.busy.size();
  const double W = 960, L = 64, R = 90, T = 10, B = 40;
  const double pw = W - L - R;
  double row = ncpu ? std::clamp(420.0 / static_cast<double>(ncpu), 3.0, 16.0) : 16.0;
  double ph = row * static_cast<double>(std::max<size_t>(ncpu, 1));
  double H = T + ph + B;
  std::string s = fmt::format(
      "<svg class=\"plot heatmap\" id=\"heatmap-{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
      "height=\"{:.0f}\" viewBox=\"0 0 {} {:.0f}\" role=\"img\" aria-label=\"CPU utilization timeline\">\n",
      idx, W, H, W, H);
  const double span_ns = static_cast<double>(tl.bucket_ns) * static_cast<double>(tl.buckets);
  if (tl.buckets == 0 || ncpu == 0 || span_ns <= 0) {
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{:.1f}\" fill=\"{}\"/>\n", L, T, pw, ph,
                     heat_color(0));
    s += fmt::format("<text x=\"{}\" y=\"{}\" class=\"empty\">no timeline</text>\n</svg>\n", L + pw / 2, T + 20);
    return s;
  }
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"/>\n", L, T, pw, ph,
                   heat_color(0));
  // Row order: by (node, LLC, cpu) when the results know each CPU's LLC and node.
  std::vector<size_t> order(ncpu);
  for (size_t c = 0; c < ncpu; ++c) order[c] = c;
  auto llc_of = [&](size_t c) { return c < r.cpus.size() ? r.cpus[c].llc : 0u; };
  auto node_of = [&](size_t c) { return c < r.cpus.size() ? r.cpus[c].node : 0u; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tuple(node_of(a), llc_of(a), a) < std::tuple(node_of(b), llc_of(b), b);
  });
  double cw = pw / static_cast<double>(tl.buckets);
  size_t label_every = std::max<size_t>(1, static_cast<size_t>(std::ceil(12.0 / row)));
  for (size_t k = 0; k < ncpu; ++k) {
    size_t c = order[k];
    double y = T + static_cast<double>(k) * row;
    // Run-length merge cells of the same color level (20 levels) to keep the file small.
    const auto& v = tl.busy[c];
    size_t b = 0;
    while (b < v.size()) {
      long level = std::lround(v[b] * 20);
      size_t e = b + 1;
      while (e < v.size() && std::lround(v[e] * 20) == level) ++e;
      if (level > 0)
        s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"/>\n",
                         L + static_cast<double>(b) * cw, y, static_cast<double>(e - b) * cw, row,
                         heat_color(static_cast<double>(level) / 20.0));
      b = e;
    }
    if (k % label_every == 0)
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"ytick\">cpu{}</text>\n", L - 6, y + row * 0.8, c);
  }
  // LLC and NUMA boundaries, and each group's name at the right edge.
  size_t group_start = 0;
  for (size_t k = 1; k <= ncpu; ++k) {
    bool end = k == ncpu;
    bool new_node = !end && node_of(order[k]) != node_of(order[k - 1]);
    bool new_llc = !end && (new_node || llc_of(order[k]) != llc_of(order[k - 1]));
    if (!end && !new_llc) continue;
    double yb = T + static_cast<double>(k) * row;
    if (!end)
      s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"{}\"/>\n", L, yb, L + pw,
                       yb, new_node ? "numa-line" : "llc-line");
    double ym = T + (static_cast<double>(group_start) + static_cast<double>(k - group_start) / 2.0) * row;
    s += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" class=\"legend\">LLC {} / node {}</text>\n", L + pw + 4, ym + 4,
                     llc_of(order[group_start]), node_of(order[group_start]));
    group_start = k;
  }
  // Time axis: round ticks over this run's span.
  const double step = round_step(span_ns, 6);
  for (double t = 0; t <= span_ns * (1 + 1e-9); t += step) {
    double x = L + pw * t / span_ns;
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>\n", x, T + ph, x,
                     T + ph + 5);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"xtick\">{}</text>\n", x, T + ph + 18, human_ns(t));
  }
  s += fmt::format("<text x=\"{}\" y=\"{:.0f}\" class=\"axis\">time since start, this run's own axis (span {} ms, "
                   "bucket {}; dark = busy)</text>\n",
                   L + pw / 2, H - 4, ms3(span_ns), human_ns(static_cast<double>(tl.bucket_ns)));
  s += "</svg>\n";
  return s;
}

// ---- tables ---------------------------------------------------------------------------------

std::string modules_text(const RunConfig& c) {
  std::string m;
  for (const auto& [slot, name] : c.modules) m += (m.empty() ? "" : ", ") + slot + "=" + name;
  return m.empty() ? "-" : m;
}

std::string summary_table(const std::vector<RunResults>& runs) {
  // The benchmark's own time, only for workloads with a benchmark timer: a column when some run
  // has one, "-" for a run without (never 0), and no change against a run without.
  const bool any_bench =
      std::any_of(runs.begin(), runs.end(), [](const RunResults& r) { return r.benchmark_time_ns >= 0; });
  std::string s =
      "<table id=\"summary\"><thead><tr><th></th><th>run</th><th>workload</th><th>topology</th><th>modules</th>"
      "<th>wakeups</th><th>wakeup mean us</th><th>p50 us</th><th>p99 us</th><th>p99.9 us</th><th>max us</th>"
      "<th>rq wait p99 us</th><th>makespan ms</th>" +
      std::string(any_bench ? "<th title=\"the time the benchmark program itself reports (its own timer, "
                              "docs/generators.md); - for a workload without one\">benchmark ms</th>"
                            : "") +
      "<th>util</th><th>wasted</th><th>migrations</th></tr></thead><tbody>\n";
  // "value (+x%)": a later run's change against the first run.
  auto delta = [&](size_t i, double v, double base) {
    if (i == 0 || base == 0 || v == base) return std::string();
    double pct = 100.0 * (v - base) / base;
    return fmt::format(" <span class=\"delta {}\">({:+.1f}%)</span>", pct > 0 ? "up" : "down", pct);
  };
  const RunResults& first = runs[0];
  // A statistic of a run with no sample of it (stored as 0) is undefined: "-", and no change
  // against (or from) it.
  auto stat = [&](size_t i, const Distribution& d, const Distribution& d0, double v, double v0) {
    if (d.count == 0) return std::string("-");
    return us3(v) + (d0.count == 0 ? std::string() : delta(i, v, v0));
  };
  double first_cap = static_cast<double>(first.makespan_ns) * static_cast<double>(first.cpus.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunResults& r = runs[i];
    double cap = static_cast<double>(r.makespan_ns) * static_cast<double>(r.cpus.size());
    const Distribution& w = r.wakeup_latency;
    const Distribution& w0 = first.wakeup_latency;
    auto dv = [](int64_t v) { return static_cast<double>(v); };
    double wasted = cap > 0 ? 100.0 * static_cast<double>(r.wasted_ns) / cap : 0.0;
    double wasted0 = first_cap > 0 ? 100.0 * static_cast<double>(first.wasted_ns) / first_cap : 0.0;
    s += fmt::format(
        "<tr><td><span class=\"swatch\" style=\"background:{}\"></span></td><td>{}</td><td>{}</td><td>{} ({} CPUs)</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}"
        "<td>{}%</td><td>{}</td><td>{}</td></tr>\n",
        color(i), esc(r.config.display_label()), esc(r.config.workload), esc(r.config.topology), r.config.nr_cpus,
        esc(modules_text(r.config)), w.count, stat(i, w, w0, w.mean, w0.mean), stat(i, w, w0, dv(w.p50), dv(w0.p50)),
        stat(i, w, w0, dv(w.p99), dv(w0.p99)), stat(i, w, w0, dv(w.p999), dv(w0.p999)),
        stat(i, w, w0, dv(w.max), dv(w0.max)),
        stat(i, r.runqueue_wait, first.runqueue_wait, dv(r.runqueue_wait.p99), dv(first.runqueue_wait.p99)),
        ms3(dv(r.makespan_ns)) + delta(i, dv(r.makespan_ns), dv(first.makespan_ns)),
        !any_bench                ? std::string()
        : r.benchmark_time_ns < 0 ? std::string("<td>-</td>")
                                  : "<td>" + ms3(dv(r.benchmark_time_ns)) +
                                        (first.benchmark_time_ns < 0
                                             ? std::string()
                                             : delta(i, dv(r.benchmark_time_ns), dv(first.benchmark_time_ns))) +
                                        "</td>",
        f1(cap > 0 ? 100.0 * static_cast<double>(r.busy_ns) / cap : 0.0), f2(wasted) + "%" + delta(i, wasted, wasted0),
        r.migrations_total);
  }
  s += "</tbody></table>\n";
  return s;
}

std::string latency_table(const std::vector<RunResults>& runs) {
  std::string s =
      "<table id=\"latency\"><thead><tr><th>run</th><th>metric</th><th>count</th><th>mean</th><th>std</th>"
      "<th>min</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr></thead><tbody>\n";
  for (const auto& r : runs) {
    const std::pair<const char*, const Distribution*> rows[] = {{"wakeup latency", &r.wakeup_latency},
                                                                {"preempt delay", &r.preempt_delay},
                                                                {"run-queue wait", &r.runqueue_wait},
                                                                {"fork latency", &r.fork_latency}};
    for (const auto& [name, d] : rows) {
      if (d->count == 0) {  // no sample: every statistic is undefined
        s += fmt::format("<tr><td>{}</td><td>{}</td><td>0</td>{}</tr>\n", esc(r.config.display_label()), name,
                         "<td>-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td>");
        continue;
      }
      s += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
          "<td>{}</td><td>{}</td></tr>\n",
          esc(r.config.display_label()), name, d->count, us3(d->mean), us3(d->stddev), us3(static_cast<double>(d->min)),
          us3(static_cast<double>(d->p50)), us3(static_cast<double>(d->p90)), us3(static_cast<double>(d->p99)),
          us3(static_cast<double>(d->p999)), us3(static_cast<double>(d->max)));
    }
  }
  s += "</tbody></table>\n<p class=\"note\">All latencies in microseconds.</p>\n";
  return s;
}

std::string placement_table(const std::vector<RunResults>& runs) {
  std::string s =
      "<table id=\"placement\"><thead><tr><th>run</th><th>wakeups</th><th>probes mean</th><th>probes p99</th>"
      "<th>search mean ns</th><th>search p99 ns</th><th>to idle CPU</th><th>cross-LLC (waker)</th>"
      "<th>cross-LLC (prev)</th><th>hint read</th><th>hint stale yes</th><th>hint stale no</th></tr></thead><tbody>\n";
  for (const auto& r : runs) {
    const PlacementStats& p = r.placement;
    const bool none = p.probes.count == 0;  // no wakeup placed: no per-wakeup figure
    s += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
        esc(r.config.display_label()), p.wakeups, none ? "-" : f2(p.probes.mean),
        none ? "-" : std::to_string(p.probes.p99), none ? "-" : f1(p.search_ns.mean),
        none ? "-" : std::to_string(p.search_ns.p99), p.to_idle_cpu, p.cross_llc_waker, p.cross_llc_prev, p.hint_consulted, p.hint_stale_yes,
        p.hint_stale_no);
  }
  s += "</tbody></table>\n";
  return s;
}

std::string migration_table(const std::vector<RunResults>& runs) {
  const char* levels[] = {"smt", "cluster", "llc", "package", "numa"};
  std::string s = "<table id=\"migrations\"><thead><tr><th>run</th>";
  for (const char* l : levels) s += fmt::format("<th>{}</th>", l);
  s += "<th>total</th></tr></thead><tbody>\n";
  for (const auto& r : runs) {
    s += "<tr><td>" + esc(r.config.display_label()) + "</td>";
    for (const char* l : levels) {
      auto it = r.migrations.find(l);
      s += fmt::format("<td>{}</td>", it == r.migrations.end() ? 0 : it->second);
    }
    s += fmt::format("<td>{}</td></tr>\n", r.migrations_total);
  }
  s += "</tbody></table>\n";
  return s;
}

std::string cpu_table(const std::vector<RunResults>& runs) {
  size_t ncpu = 0;
  for (const auto& r : runs) ncpu = std::max(ncpu, r.cpus.size());
  std::string s = "<table id=\"cpus\"><thead><tr><th>cpu</th>";
  for (const auto& r : runs) s += "<th>" + esc(r.config.display_label()) + " util / wasted ms</th>";
  s += "</tr></thead><tbody>\n";
  for (size_t c = 0; c < ncpu; ++c) {
    s += fmt::format("<tr><td>{}</td>", c);
    for (const auto& r : runs) {
      if (c < r.cpus.size())
        s += fmt::format("<td>{}% / {}</td>", f1(100 * r.cpus[c].utilization),
                         ms3(static_cast<double>(r.cpus[c].wasted_ns)));
      else
        s += "<td>-</td>";
    }
    s += "</tr>\n";
  }
  s += "</tbody></table>\n";
  return s;
}

std::string task_table(const RunResults& r, size_t n) {
  std::vector<const TaskRow*> rows;
  for (const auto& t : r.tasks_detail) rows.push_back(&t);
  std::stable_sort(rows.begin(), rows.end(), [](const TaskRow* a, const TaskRow* b) {
    if (a->max_delay_ns != b->max_delay_ns) return a->max_delay_ns > b->max_delay_ns;
    return a->id < b->id;
  });
  rows.resize(std::min(rows.size(), n));
  std::string s =
      "<table class=\"tasks\"><thead><tr><th>task</th><th>pid</th><th>switches</th><th>runtime ms</th>"
      "<th>avg delay us</th><th>max delay us</th><th>max delay at s</th></tr></thead><tbody>\n";
  for (const TaskRow* t : rows)
    s += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.6f}</td></tr>\n",
                     esc(t->name), t->pid, t->switches, ms3(static_cast<double>(t->runtime_ns)), us3(t->avg_delay_ns()),
                     us3(static_cast<double>(t->max_delay_ns)), static_cast<double>(t->max_delay_start_ns) / 1e9);
  s += "</tbody></table>\n";
  return s;
}

std::string observed_table(const RunResults& r) {
  const bool elsewhere = !r.config.observed_elsewhere.empty();
  std::string s = elsewhere ? "<p class=\"note\">Observed on another machine: " + esc(r.config.observed_elsewhere) +
                                  "; its figures are no prediction for the simulated one.</p>\n"
                            : std::string();
  s += fmt::format(
      "<table class=\"observed\"><thead><tr><th>metric</th><th>simulated</th><th>{}</th><th>rel error</th>"
      "</tr></thead><tbody>\n",
      elsewhere ? "observed elsewhere" : "observed");
  // The cells as the text table prints them (observed_cells): catalog names, display units.
  for (const auto& o : r.observed) {
    std::string row = "<tr>";
    for (const auto& cell : observed_cells(r.observed, o)) row += "<td>" + esc(cell) + "</td>";
    s += row + "</tr>\n";
  }
  s += "</tbody></table>\n";
  for (const auto& n : report_util::observed_notes(r.observed))
    s += "<p class=\"note\">" + esc(report_util::observed_note_line(n)) + "</p>\n";
  return s;
}

const char* kStyle = R"(
body{font:14px/1.4 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:24px 32px;color:#222;max-width:1300px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:3px}
h3{font-size:14px;margin:14px 0 4px}.meta,.note{color:#666;font-size:12px}
table{border-collapse:collapse;font-size:12px;margin:4px 0}th,td{border:1px solid #ddd;padding:3px 7px;text-align:right}
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
#summary td:nth-child(-n+5),#summary th:nth-child(-n+5){text-align:left}
#latency td:nth-child(-n+2),#placement td:first-child,.tasks td:first-child{text-align:left}
.swatch{display:inline-block;width:12px;height:12px;border-radius:2px}
svg.plot{display:block;background:#fff;margin:6px 0}
svg .frame{fill:none;stroke:#999}svg .grid{stroke:#e3e3e3}svg .grid.minor{stroke:#bbb}
svg .curve{stroke-width:2}svg text{font-size:11px;fill:#333}
svg .xtick{text-anchor:middle}svg .ytick{text-anchor:end}svg .axis{text-anchor:middle;font-size:12px}
svg .barlabel{text-anchor:end;font-size:12px}svg .seglabel{text-anchor:middle;fill:#fff;font-size:11px}
svg .empty{text-anchor:middle;fill:#999}svg .legend{font-size:11px}
svg .axis-break{fill:#fff;stroke:none}svg .band{fill-opacity:.18;stroke:none}svg .rep{fill-opacity:.55}
svg .ci{stroke-width:2}svg .mean{stroke-width:3}svg .llc-line{stroke:#e15759;stroke-width:1}svg .numa-line{stroke:#000;stroke-width:2.5}
.warn{background:#fff4e5;border:1px solid #f0b46c;padding:6px 12px;margin:8px 0}.warn ul{margin:4px 0}
#provenance td{text-align:left}#provenance td.cmd{font-family:monospace;font-size:11px;max-width:420px;word-break:break-all}
dl.defs{font-size:12px;display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:6px 0}
dl.defs dt{font-weight:bold}dl.defs dd{margin:0}.delta{color:#666;font-size:11px}.delta.up{color:#b22}.delta.down{color:#272}
)";

/// Each later run against the first: one run per side, so percentile changes carry within-run
/// bootstrap intervals and KS of the histograms (compare's one-run mode, docs/compare.md).
std::string delta_section(const std::vector<RunResults>& runs, const std::vector<std::string>& sources) {
  auto where = [&](size_t i) { return i < sources.size() ? sources[i] : runs[i].config.display_label(); };
  std::string s = "<h2 id=\"sec-compare\">Changes against the first run</h2>\n";
  s += "<p class=\"note\">Base: " + esc(runs[0].config.display_label()) +
       ". Times in microseconds. For significance across repetitions use run --repeat N and schedsim compare "
       "(docs/compare.md).</p>\n";
  CompareOptions o;
  o.allow_mismatch = true;
  o.metrics = {"makespan", "wakeup.mean", "wakeup.p50", "wakeup.p90", "wakeup.p99", "wakeup.p99_9",
               "runqueue_wait.mean", "runqueue_wait.p99", "probes.mean", "migrations"};
  RecordFile base = record_file_of(runs[0], where(0));
  for (size_t i = 1; i < runs.size(); ++i) {
    s += "<h3>" + esc(runs[i].config.display_label()) + "</h3>\n";
    // The benchmark's own time beside the makespan where both runs have one.
    CompareOptions oi = o;
    if (runs[0].benchmark_time_ns >= 0 && runs[i].benchmark_time_ns >= 0)
      oi.metrics.insert(oi.metrics.begin() + 1, kBenchmarkTimeMetric);
    s += render_compare_html(compare_records(base, record_file_of(runs[i], where(i)), oi),
                             "compare-" + std::to_string(i), esc);
  }
  return s;
}

std::string provenance_table(const std::vector<RunResults>& runs) {
  std::string s = "<table id=\"provenance\"><thead><tr><th>run</th>";
  Provenance none;
  for (const auto& [k, v] : none.display_fields()) s += "<th>" + esc(k) + "</th>";
  s += "<th>seed</th></tr></thead><tbody>\n";
  for (const auto& r : runs) {
    s += "<tr><td>" + esc(r.config.display_label()) + "</td>";
    for (const auto& [k, v] : r.config.provenance.display_fields())
      s += std::string(k == "command" ? "<td class=\"cmd\">" : "<td>") + (v.empty() ? "-" : esc(v)) + "</td>";
    s += fmt::format("<td>{}</td></tr>\n", r.config.seed);
  }
  s += "</tbody></table>\n<p class=\"note\">How each run was produced (docs/results-schema.md, \"provenance\"); "
       "\"-\" = not recorded (a results file from an older schedsim, or not given).</p>\n";
  return s;
}

}  // namespace

std::vector<std::string> report_warnings(const std::vector<RunResults>& runs, const std::vector<std::string>& sources) {
  auto name = [&](size_t i) { return i < sources.size() ? sources[i] : "run " + std::to_string(i + 1); };
  std::vector<std::string> out;
  std::map<std::string, std::vector<size_t>> by_label;
  for (size_t i = 0; i < runs.size(); ++i) by_label[runs[i].config.display_label()].push_back(i);
  for (const auto& [label, idx] : by_label) {
    if (idx.size() < 2) continue;
    std::vector<std::string> files;
    for (size_t i : idx) files.push_back(name(i));
    out.push_back(fmt::format("{} runs share the label '{}' ({}): the page cannot tell them apart; give each run "
                              "its own --label",
                              idx.size(), label, join(files, ", ")));
  }
  // A run that did not finish (--stop-at, or accepted with --allow-incomplete) has the figures of
  // the simulated part only: next to complete runs its latencies look better than they are.
  for (size_t i = 0; i < runs.size(); ++i)
    if (!runs[i].complete)
      out.push_back(fmt::format("{} did not finish (\"complete\": false{}): its figures cover only the simulated part",
                                name(i), runs[i].incomplete.empty() ? "" : ": " + runs[i].incomplete.front()));
  // A run that came with a warning (its results' notes: a trace replay that banked most wakes as
  // tokens, SMT counted twice, ...): the first one, so the page is read with it.
  for (size_t i = 0; i < runs.size(); ++i)
    if (const std::string* n = first_warning(runs[i].notes)) out.push_back(fmt::format("{} came with a {}", name(i), *n));
  if (runs.empty()) return out;
  const Provenance& first = runs[0].config.provenance;
  for (size_t i = 1; i < runs.size(); ++i) {
    const Provenance& p = runs[i].config.provenance;
    const std::pair<const char*, std::pair<const std::string*, const std::string*>> checks[] = {
        {"workload", {&first.workload_hash, &p.workload_hash}}, {"machine", {&first.topology_hash, &p.topology_hash}}};
    for (const auto& [what, h] : checks) {
      const std::string& a = *h.first;
      const std::string& b = *h.second;
      if (a.empty() || b.empty() || a == b) continue;
      out.push_back(fmt::format("{} simulated a different {} than the first run {} ({}_hash {} vs {}): its "
                                "differences are not the policies' alone",
                                name(i), what, name(0), std::string(what) == "machine" ? "topology" : "workload", b,
                                a));
    }
  }
  return out;
}

namespace {

// The only script: marks the page as rendered (tests read the attributes from the DOM) and
// records any script error.
const char* const kPageEnd =
    "<script>\n"
    "window.addEventListener('error',function(e){document.documentElement.setAttribute('data-js-error',"
    "String(e.message));});\n"
    "(function(){var p=document.querySelectorAll('svg.plot');"
    "document.documentElement.setAttribute('data-plots',String(p.length));"
    "document.documentElement.setAttribute('data-report-ready','1');})();\n"
    "</script>\n</body>\n</html>\n";

std::string page_head(const std::string& title) {
  std::string s = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  s += "<meta name=\"generator\" content=\"schedsim report\">\n";
  s += "<title>" + esc(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  s += "<h1>" + esc(title) + "</h1>\n";
  return s;
}

}  // namespace

std::string render_html_report(const std::vector<RunResults>& runs, const std::string& title,
                               const std::vector<std::string>& sources) {
  std::string s = page_head(title);
  s += fmt::format("<p class=\"meta\">{} run{}", runs.size(), runs.size() == 1 ? "" : "s");
  if (!sources.empty()) {
    s += ": ";
    for (size_t i = 0; i < sources.size(); ++i) s += (i ? ", " : "") + esc(sources[i]);
  }
  s += "</p>\n";
  std::vector<std::string> warnings = report_warnings(runs, sources);
  if (!warnings.empty()) {
    s += "<div id=\"warnings\" class=\"warn\"><b>Warning</b><ul>\n";
    for (const auto& w : warnings) s += "<li>" + esc(w) + "</li>\n";
    s += "</ul></div>\n";
  }

  s += "<h2 id=\"sec-summary\">Summary</h2>\n" + summary_table(runs) + kWastedDefinition;
  s += "<h2 id=\"sec-pct\">Wakeup latency percentiles, p50 to p99.99</h2>\n";
  s += "<p class=\"note\">Where placement policies differ: the tail. Each step to the right is a ten times rarer "
       "wakeup; the latency axis is logarithmic. A curve ends (dot: its maximum) at the highest percentile its sample "
       "count resolves.</p>\n";
  s += percentile_plot("pct-wakeup", "wakeup latency", runs, &RunResults::wakeup_latency);
  s += "<h2 id=\"sec-cdf\">Wakeup latency CDF</h2>\n";
  s += "<p class=\"note\">Wake (sched_waking) to the wakee's first instruction on a CPU: search, IPI, idle exit and "
       "queueing included.</p>\n";
  s += cdf_plot("cdf-wakeup", "wakeup latency", runs, &RunResults::wakeup_latency);
  s += "<h2 id=\"sec-rqwait\">Run-queue wait CDF</h2>\n";
  s += "<p class=\"note\">A wait of 0 ns (the task ran at once) cannot sit on a log axis: zero samples rise in the "
       "strip at the left, marked 0 (with the rare samples under the axis's first decade, if any, marked &lt;), and "
       "their share is in the legend.</p>\n";
  s += cdf_plot("cdf-rqwait", "run-queue wait", runs, &RunResults::runqueue_wait);
  s += "<h2 id=\"sec-placement\">Placement outcomes</h2>\n" + placement_bars(runs) + outcome_definitions() +
       placement_table(runs);
  s += "<h2 id=\"sec-heatmap\">CPU utilization timeline</h2>\n";
  s += "<p class=\"note\">Each row a CPU, grouped by last-level cache (thin lines) and NUMA node (thick lines); "
       "each column a time bucket, darker = busier (white = idle, 100% = dark blue). Each run spans the full "
       "width on its own time axis: read the ticks before comparing two runs column by column.</p>\n";
  for (size_t i = 0; i < runs.size(); ++i) {
    s += "<h3>" + esc(runs[i].config.display_label()) + "</h3>\n";
    s += heatmap(i, runs[i]);
  }
  s += "<h2 id=\"sec-latency\">Latency percentiles</h2>\n" + latency_table(runs);
  if (runs.size() >= 2) s += delta_section(runs, sources);
  s += "<h2 id=\"sec-migrations\">Migrations by topology level</h2>\n" + migration_table(runs);
  s += "<h2 id=\"sec-cpus\">Per-CPU utilization and wasted idle time</h2>\n" + cpu_table(runs);
  s += "<h2 id=\"sec-tasks\">Tasks with the largest delay</h2>\n";
  for (const auto& r : runs) s += "<h3>" + esc(r.config.display_label()) + "</h3>\n" + task_table(r, 10);
  s += "<h2 id=\"sec-provenance\">How each run was produced</h2>\n" + provenance_table(runs);
  bool any_observed = false;
  for (const auto& r : runs) any_observed = any_observed || r.has_observed;
  if (any_observed) {
    s += "<h2 id=\"sec-observed\">Simulated vs observed</h2>\n";
    for (const auto& r : runs)
      if (r.has_observed) s += "<h3>" + esc(r.config.display_label()) + "</h3>\n" + observed_table(r);
  }
  s += kPageEnd;
  return s;
}

}  // namespace schedsim

// ---- the study report: repetitions and sweeps -----------------------------------------------

namespace schedsim {
namespace {

/// A metric a study report plots: its catalog name, title and the factor to its display unit.
struct StudyMetric {
  const char* name;
  const char* title;
  double scale;
  const char* unit;
};

// The study's metrics, named, titled and scaled by the catalog (metric_label), as compare's table
// and sweep's summary show them.
const std::vector<StudyMetric>& study_metrics() {
  static const std::vector<StudyMetric> m = [] {
    std::vector<StudyMetric> out;
    for (const char* name : {kBenchmarkTimeMetric, "makespan", "wakeup.p50", "wakeup.p99", "runqueue_wait.p99", "migrations"}) {
      const MetricDef& d = *find_metric(name);
      out.push_back({d.name, d.name, display_scale(d), display_unit(d)});
    }
    return out;
  }();
  return m;
}

/// A number as a parameter value may hold it ("4", "0.5"); nullopt for anything else ("5%", "sis-util").
std::optional<double> numeric_value(const std::string& v) {
  if (v.empty()) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (end != v.c_str() + v.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

struct StudyPoint {
  std::map<std::string, std::string> params;  ///< what identifies the point
  std::vector<const Record*> recs;
};

/// The value of `m` in `r`, or nullopt when the record has none (a statistic of no sample, a
/// benchmark time of a workload without a timer).
std::optional<double> study_value(const Record& r, const StudyMetric& m) {
  auto it = r.metrics.find(m.name);
  if (it == r.metrics.end() || sample_state(r.metrics, m.name) == SampleState::kNone) return std::nullopt;
  return it->second * m.scale;
}

/// A point's runs for one metric: their values (the runs that have one), mean and 95% interval.
struct PointStats {
  std::vector<double> values;
  double mean = 0;
  stats::Interval ci;  ///< NaN bounds with fewer than 2 values
};
PointStats point_stats(const StudyPoint& p, const StudyMetric& m) {
  PointStats ps;
  for (const Record* r : p.recs)
    if (auto x = study_value(*r, m)) ps.values.push_back(*x);
  if (ps.values.empty()) return ps;
  ps.mean = stats::summarize(ps.values).mean;
  ps.ci = stats::mean_ci(ps.values, 0.95);
  return ps;
}

/// The largest value of `m` over every run (0 when none has one): the top of the value axis.
double largest_value(const std::vector<StudyPoint>& points, const StudyMetric& m) {
  double top = 0;
  for (const auto& p : points)
    for (const Record* r : p.recs)
      if (auto v = study_value(*r, m)) top = std::max(top, *v);
  return top;
}

std::string fmt_value(double v) {
  if (std::fabs(v) >= 1000) return fmt::format("{:.0f}", v);
  if (std::fabs(v) >= 10) return fmt::format("{:.1f}", v);
  return fmt::format("{:.3g}", v);
}

/// One metric against the swept parameter `xkey`: a line through each series' means, its 95%
/// confidence band of the mean, and a dot per repetition. Log x when the values span a factor of
/// ten or more and are all positive (groups 1, 2, 5, 10, 20, 40).
std::string study_line_plot(size_t idx, const StudyMetric& m, const std::string& xkey,
                            const std::vector<StudyPoint>& points,
                            const std::vector<std::pair<std::string, std::vector<size_t>>>& series) {
  const double W = 960, H = 340, L = 74, R = 230, T = 16, B = 46;
  const double pw = W - L - R, ph = H - T - B;
  // The parameter's values, in order: the x ticks and the axis's ends.
  std::vector<double> xs;
  xs.reserve(points.size());
  for (const auto& p : points) xs.push_back(*numeric_value(p.params.at(xkey)));
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  const double xmin = xs.front(), xmax = xs.back();
  const double ymax = largest_value(points, m);
  std::string s = fmt::format(
      "<svg class=\"plot study\" id=\"study-{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{} against {}\">\n",
      idx, W, H, W, H, esc(m.title), esc(xkey));
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"frame\"/>\n", L, T, pw, ph);
  const double step = round_step(ymax, 5);
  const double ytop = std::max(step, std::ceil(ymax / step) * step);
  const bool logx = xmin > 0 && xmax / xmin >= 10;
  auto xp = [&](double x) {
    if (xmax == xmin) return L + pw / 2;
    const double f = logx ? std::log(x / xmin) / std::log(xmax / xmin) : (x - xmin) / (xmax - xmin);
    return L + 12 + f * (pw - 24);
  };
  auto yp = [&](double y) { return T + (1.0 - y / ytop) * ph; };
  for (double y = 0; y <= ytop * (1 + 1e-9); y += step) {
    s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"grid\"/>\n", L, yp(y), L + pw, yp(y));
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"ytick\">{:g}</text>\n", L - 6, yp(y) + 4, y);
  }
  for (double x : xs) {
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" class=\"grid\"/>\n", xp(x), T, xp(x), T + ph);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"xtick\">{:g}</text>\n", xp(x), T + ph + 18, x);
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" class=\"axis\">{}{}</text>\n", L + pw / 2, H - 8, esc(xkey),
                   logx ? " (log scale)" : "");
  s += fmt::format("<text x=\"14\" y=\"{}\" class=\"axis\" transform=\"rotate(-90 14 {})\">{}{}</text>\n",
                   T + ph / 2, T + ph / 2, esc(m.title), *m.unit ? fmt::format(" ({})", m.unit) : std::string());
  for (size_t si = 0; si < series.size(); ++si) {
    // Points of the series in x order: mean, band, dots.
    std::vector<std::pair<double, PointStats>> row;
    for (size_t pi : series[si].second)
      if (PointStats ps = point_stats(points[pi], m); !ps.values.empty())
        row.emplace_back(*numeric_value(points[pi].params.at(xkey)), std::move(ps));
    std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string upper, lower, line;
    bool band = !row.empty();
    for (const auto& [x, ps] : row) band = band && !std::isnan(ps.ci.lo);
    for (const auto& [x, ps] : row) {
      line += fmt::format("{}{:.1f},{:.1f}", line.empty() ? "" : " ", xp(x), yp(ps.mean));
      if (band) {
        upper += fmt::format("{:.1f},{:.1f} ", xp(x), yp(std::min(ytop, ps.ci.hi)));
        lower = fmt::format("{:.1f},{:.1f} ", xp(x), yp(std::max(0.0, ps.ci.lo))) + lower;
      }
    }
    if (band)
      s += fmt::format("<polygon class=\"band\" data-series=\"{}\" fill=\"{}\" points=\"{}{}\"/>\n", si, color(si),
                       upper, lower);
    s += fmt::format("<polyline class=\"curve\" data-series=\"{}\" fill=\"none\" stroke=\"{}\" points=\"{}\"><title>{}"
                     "</title></polyline>\n",
                     si, color(si), line, esc(series[si].first));
    for (const auto& [x, ps] : row)
      for (double y : ps.values)
        s += fmt::format("<circle class=\"rep\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.2\" fill=\"{}\"/>\n", xp(x), yp(y),
                         color(si));
    double ly = T + 12 + 16.0 * static_cast<double>(si);
    s += fmt::format("<rect x=\"{}\" y=\"{:.1f}\" width=\"14\" height=\"4\" fill=\"{}\"/>", L + pw + 12, ly - 4, color(si));
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"legend\">{}</text>\n", L + pw + 32, ly, esc(series[si].first));
  }
  s += "</svg>\n";
  return s;
}

/// One metric with no numeric parameter to plot against: a row per point, a dot per repetition,
/// the mean as a bar and its 95% confidence interval as a whisker.
std::string study_dot_plot(size_t idx, const StudyMetric& m, const std::vector<StudyPoint>& points,
                           const std::vector<std::string>& names) {
  const double W = 960, L = 300, R = 30, T = 12, row = 26, B = 42;
  const double pw = W - L - R, ph = row * static_cast<double>(points.size()), H = T + ph + B;
  const double ymax = largest_value(points, m);
  const double step = round_step(ymax, 5);
  const double top = std::max(step, std::ceil(ymax / step) * step);
  auto xp = [&](double v) { return L + v / top * pw; };
  std::string s = fmt::format(
      "<svg class=\"plot study\" id=\"study-{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{:.0f}\" "
      "viewBox=\"0 0 {} {:.0f}\" role=\"img\" aria-label=\"{} per point\">\n",
      idx, W, H, W, H, esc(m.title));
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{:.0f}\" class=\"frame\"/>\n", L, T, pw, ph);
  for (double v = 0; v <= top * (1 + 1e-9); v += step) {
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{:.0f}\" class=\"grid\"/>\n", xp(v), T, xp(v),
                     T + ph);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.0f}\" class=\"xtick\">{:g}</text>\n", xp(v), T + ph + 16, v);
  }
  s += fmt::format("<text x=\"{}\" y=\"{:.0f}\" class=\"axis\">{}{}</text>\n", L + pw / 2, H - 6, esc(m.title),
                   *m.unit ? fmt::format(" ({})", m.unit) : std::string());
  for (size_t pi = 0; pi < points.size(); ++pi) {
    const double yc = T + row * (static_cast<double>(pi) + 0.5);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"barlabel\">{}</text>\n", L - 8, yc + 4, esc(names[pi]));
    const auto [v, mean, ci] = point_stats(points[pi], m);
    if (v.empty()) {
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"legend\">no value</text>\n", L + 6, yc + 4);
      continue;
    }
    if (!std::isnan(ci.lo))
      s += fmt::format("<line class=\"ci\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\"/>\n",
                       xp(std::max(0.0, ci.lo)), yc, xp(std::min(top, ci.hi)), yc, color(pi));
    s += fmt::format("<line class=\"mean\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\"><title>"
                     "mean {} (n={})</title></line>\n",
                     xp(mean), yc - 8, xp(mean), yc + 8, color(pi), fmt_value(mean), v.size());
    for (double x : v)
      s += fmt::format("<circle class=\"rep\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"/>\n", xp(x), yc,
                       color(pi));
  }
  s += "</svg>\n";
  return s;
}

}  // namespace

std::string render_study_report(const std::vector<RecordFile>& files, const std::string& title,
                                const std::vector<std::string>& sources, std::vector<std::string>& warnings) {
  // Points: a sweep record's point parameters; otherwise its file and label (a `run --repeat`
  // file is one point).
  std::vector<StudyPoint> points;
  std::map<std::map<std::string, std::string>, size_t> index;
  size_t n_records = 0, incomplete = 0, warned = 0;
  std::string first_warned;
  for (size_t fi = 0; fi < files.size(); ++fi)
    for (const Record& r : files[fi].records) {
      std::map<std::string, std::string> key = r.point_params;
      if (key.empty()) {
        key["file"] = fi < sources.size() ? sources[fi] : files[fi].path;
        auto label = r.params.find("label");
        if (label != r.params.end()) key["label"] = label->second;
      }
      auto [it, fresh] = index.emplace(key, points.size());
      if (fresh) points.push_back({key, {}});
      points[it->second].recs.push_back(&r);
      ++n_records;
      if (!r.complete) ++incomplete;
      if (const std::string* w = first_warning(r.notes)) {
        if (warned++ == 0) first_warned = std::string(log::headline(*w));
      }
    }
  if (incomplete)
    warnings.push_back(fmt::format("{} of the {} runs did not finish (\"complete\": false): their figures cover only the "
                                   "simulated part",
                                   incomplete, n_records));
  if (warned)
    warnings.push_back(fmt::format("{} of the {} runs came with a warning, the first: {}", warned, n_records, first_warned));
  // The parameters that differ between points; a numeric one with the most values is the x axis,
  // the others name the series.
  std::set<std::string> keys;
  for (const auto& p : points)
    for (const auto& [k, v] : p.params) keys.insert(k);
  std::vector<std::string> varying;
  for (const auto& k : keys) {
    std::set<std::string> values;
    for (const auto& p : points) values.insert(p.params.count(k) ? p.params.at(k) : "");
    if (values.size() > 1) varying.push_back(k);
  }
  std::string xkey;
  size_t best = 1;
  for (const auto& k : varying) {
    std::set<double> values;
    bool numeric = true;
    for (const auto& p : points) {
      auto it = p.params.find(k);
      auto v = it == p.params.end() ? std::nullopt : numeric_value(it->second);
      if (!v) numeric = false;
      else values.insert(*v);
    }
    if (numeric && values.size() > best) {
      best = values.size();
      xkey = k;
    }
  }
  auto name_of = [&](const std::map<std::string, std::string>& params, const std::string& skip) {
    std::string n;
    for (const auto& k : varying)
      if (k != skip) n += (n.empty() ? "" : ", ") + k + "=" + (params.count(k) ? params.at(k) : "");
    return n.empty() ? std::string("all runs") : n;
  };
  std::vector<std::pair<std::string, std::vector<size_t>>> series;
  std::vector<std::string> point_names;
  for (size_t pi = 0; pi < points.size(); ++pi) {
    point_names.push_back(name_of(points[pi].params, ""));
    const std::string sname = name_of(points[pi].params, xkey);
    auto it = std::find_if(series.begin(), series.end(), [&](const auto& x) { return x.first == sname; });
    if (it == series.end()) series.push_back({sname, {pi}});
    else it->second.push_back(pi);
  }
  size_t single = 0;
  for (const auto& p : points) single += p.recs.size() < 2;
  if (single)
    warnings.push_back(fmt::format("{} of the {} points have one run: no confidence interval (run --repeat N, or "
                                   "sweep --repeat N)",
                                   single, points.size()));

  std::string s = page_head(title);
  s += fmt::format("<p class=\"meta\">{} runs in {} point{}", n_records, points.size(), points.size() == 1 ? "" : "s");
  if (!sources.empty()) {
    s += ": ";
    for (size_t i = 0; i < sources.size(); ++i) s += (i ? ", " : "") + esc(sources[i]);
  }
  s += "</p>\n";
  if (!warnings.empty()) {
    s += "<div id=\"warnings\" class=\"warn\"><b>Warning</b><ul>\n";
    for (const auto& w : warnings) s += "<li>" + esc(w) + "</li>\n";
    s += "</ul></div>\n";
  }
  s += xkey.empty()
           ? "<p class=\"note\">Each row a point (what differs between them: " +
                 esc(varying.empty() ? std::string("nothing; the runs are repetitions") : join(varying, ", ")) +
                 "); a dot per run, the vertical bar its mean and the line the 95% confidence interval of the mean "
                 "(Student t over the runs).</p>\n"
           : "<p class=\"note\">Each metric against " + esc(xkey) + ", one line per " +
                 esc(series.size() > 1 ? "combination of the other parameters" : "study") +
                 " through the means of its runs, the shaded band the 95% confidence interval of the mean (Student t "
                 "over the runs: with few runs it is wide, as it should be), a dot per run.</p>\n";
  size_t idx = 0;
  for (const auto& m : study_metrics()) {
    bool any = false;
    for (const auto& p : points)
      for (const Record* r : p.recs) any = any || study_value(*r, m).has_value();
    if (!any) continue;
    s += fmt::format("<h2 id=\"sec-{}\">{}</h2>\n", m.name, esc(m.title));
    s += xkey.empty() ? study_dot_plot(idx++, m, points, point_names) : study_line_plot(idx++, m, xkey, points, series);
  }
  // The table: per point, runs and mean [95% CI] of each metric.
  s += "<h2 id=\"sec-points\">Points</h2>\n<table id=\"points\"><thead><tr><th>point</th><th>runs</th>";
  for (const auto& m : study_metrics()) s += fmt::format("<th>{}{}</th>", esc(m.title), *m.unit ? fmt::format(" ({})", m.unit) : "");
  s += "</tr></thead><tbody>\n";
  for (size_t pi = 0; pi < points.size(); ++pi) {
    s += fmt::format("<tr><td>{}</td><td>{}</td>", esc(point_names[pi]), points[pi].recs.size());
    for (const auto& m : study_metrics()) {
      const auto [v, mean, ci] = point_stats(points[pi], m);
      if (v.empty()) {
        s += "<td>-</td>";
        continue;
      }
      s += std::isnan(ci.lo) ? fmt::format("<td>{}</td>", fmt_value(mean))
                             : fmt::format("<td>{} <span class=\"delta\">[{}, {}]</span></td>", fmt_value(mean),
                                           fmt_value(ci.lo), fmt_value(ci.hi));
    }
    s += "</tr>\n";
  }
  s += "</tbody></table>\n<p class=\"note\">Mean over the point's runs [95% confidence interval of the mean]; "
       "\"-\" where no run has the figure (no sample, or no benchmark timer). For a verdict between two points use "
       "schedsim compare (docs/compare.md).</p>\n";
  s += kPageEnd;
  return s;
}

std::string render_report_files(const std::vector<std::string>& paths, const std::string& title,
                                std::vector<std::string>& warnings) {
  std::vector<std::string> names;
  names.reserve(paths.size());
  for (const auto& p : paths) names.push_back(std::filesystem::path(p).filename().string());
  std::vector<RunResults> runs;
  std::vector<std::optional<RecordFile>> records(paths.size());  ///< the files that are not results
  bool study = false;
  for (size_t i = 0; i < paths.size(); ++i) {
    try {
      runs.push_back(load_results_json(paths[i]));
    } catch (const InputError& not_results) {
      try {
        records[i] = load_record_file(paths[i]);
      } catch (const InputError&) {
        // A JSON Lines file is records or nothing: the records reader says which line is wrong
        // (a truncated sweep file); anything else gets the results reader's message.
        if (not_results.message().find("JSON Lines") != std::string::npos) throw;
        throw not_results;
      }
      if (records[i]->kind == "results") throw not_results;
      study = true;
    }
  }
  if (!study) {
    for (auto& w : report_warnings(runs, names)) warnings.push_back(std::move(w));
    return render_html_report(runs, title, names);
  }
  std::vector<RecordFile> files;
  size_t next_run = 0;
  for (size_t i = 0; i < paths.size(); ++i)
    files.push_back(records[i] ? std::move(*records[i]) : record_file_of(std::move(runs[next_run++]), paths[i]));
  return render_study_report(files, title, names, warnings);
}

}  // namespace schedsim
