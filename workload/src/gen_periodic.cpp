// Periodic tasks in the style of rt-app's "run" + "sleep" phases: every period a task runs for
// --run, then sleeps for the rest of the period. With --jitter J each period's run time is drawn
// uniformly from [run*(1-J), run*(1+J)] (seeded, per task), and the sleep fills the period up.
//
// Simplification: sleep(d) is relative, so a task delayed by the scheduler drifts (rt-app's
// "sleep", not its absolute "timer"); the period is exact only when the task runs at once.
// Without jitter the program is one compact loop; with jitter it holds 2 actions per period.
#include <fmt/format.h>

#include "gen_common.hpp"
#include "schedsim/base/run_control.hpp"

namespace schedsim::gen {

Workload gen_periodic(const std::vector<std::string>& args, bool help_only, std::string* help, const GenCosts& /*costs*/) {
  Options o("periodic", "[-n TASKS] [--period T] [--run T] [--jitter J] [--duration T | --count N]",
            "N periodic tasks (rt-app style): run, then sleep for the rest of the period.\n"
            "Tasks: N.");
  o.value("tasks,n", "number of tasks (default 4; 1..100000)")
      .value("period", "period (default 10ms)")
      .value("run", "CPU time per period, at most the period (default 2ms)")
      .value("jitter", "run-time jitter, uniform +-J, as 10% or 0.1 (default 0)")
      .value("duration", "length of the run, rounded down to whole periods (default 1s)")
      .value("count", "periods per task, instead of --duration")
      .value("phase", "start offsets: 'random' within one period (seeded, default) or 'zero'")
      .value("nice", "nice value of every task (default 0)")
      .value("slice", "custom EEVDF slice of every task, as sched_setattr()'s sched_runtime sets one (100us..100ms; default none: the base slice)")
      .value("name", "task name prefix (default 'periodic')");
  if (help_only) {
    *help = o.help();
    return {};
  }
  o.parse(args);
  const int64_t n = o.integer("tasks", 4, 1, 100000);
  const Duration period = o.duration("period", Duration::ms(10), Duration::us(1), Duration::s(3600));
  const Duration run = o.duration("run", Duration::ms(2), Duration::zero(), Duration::s(3600));
  if (run > period)
    o.fail(fmt::format("--run {} exceeds --period {}", format_duration(run), format_duration(period)));
  const double jitter = o.fraction("jitter", 0.0, 0.0, 1.0);
  if (o.has("duration") && o.has("count")) o.fail("give --duration or --count, not both");
  int64_t count;
  if (o.has("count")) {
    count = o.integer("count", 0, 1, 1000000000);
  } else {
    const Duration total = o.duration("duration", Duration::s(1), Duration::us(1), Duration::s(86400 * 7));
    count = total / period;
    if (count < 1) o.fail("--duration is shorter than one --period");
  }
  if (jitter > 0 && n * count > 50000000)
    o.fail(fmt::format("--jitter with {} tasks x {} periods would hold {} actions; at most 50000000", n, count,
                       2 * n * count));
  const std::string phase = o.choice("phase", "random", {"random", "zero"});
  const auto nice = static_cast<int32_t>(o.integer("nice", 0, -20, 19));
  const Duration slice = o.has("slice") ? o.duration("slice", kMinSlice, kMinSlice, kMaxSlice) : Duration::zero();
  const std::string prefix = o.text("name", "periodic");
  Rng rng(o.seed());

  Workload w;
  w.name = fmt::format("periodic-n{}-{}-{}", n, format_duration(period), format_duration(run));
  for (int64_t i = 0; i < n; ++i) {
    poll_resources();
    TaskSpec t = make_task(fmt::format("{}{}", prefix, i), StartState::kRunnable, 1000 + i, 1000 + i);
    t.nice = nice;
    t.slice = slice;
    if (phase == "random") t.start_time = Instant::from_ns(static_cast<int64_t>(rng.below(static_cast<uint64_t>(period.count()))));
    if (jitter == 0.0) {
      std::vector<Action> body = {Action::run(run)};
      if (period > run) body.push_back(Action::sleep(period - run));
      append_repeated(t.program, body, count);
    } else {
      t.program.reserve(static_cast<size_t>(2 * count + 1));
      for (int64_t k = 0; k < count; ++k) {
        double f = 1.0 + jitter * (2.0 * rng.uniform() - 1.0);
        auto r = std::min(period.count(), static_cast<int64_t>(static_cast<double>(run.count()) * f));
        t.program.push_back(Action::run(Duration::ns(r)));
        if (period.count() > r) t.program.push_back(Action::sleep(Duration::ns(period.count() - r)));
      }
    }
    t.program.push_back(Action::exit());
    w.add_task(std::move(t));
  }
  return w;
}

}  // namespace schedsim::gen
