// The run option table: every row's setter writes the request, values are read as a sweep writes
// them, and the refusals say what was expected.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>

#include "schedsim/driver/run_options.hpp"

using namespace schedsim;
using namespace schedsim::driver;

namespace {

/// Every field of a request, as text: two requests print alike only when they are alike.
std::string describe(const RunRequest& r) {
  std::ostringstream o;
  auto list = [&o](const auto& v) {
    for (const auto& x : v) o << x << ';';
    o << '|';
  };
  o << r.input << '|' << r.workload_gen << '|' << r.topology << '|' << r.kernel << '|';
  for (const auto& [k, v] : r.modules) o << k << '=' << v << ';';
  list(r.features);
  list(r.costs);
  o << r.seed << '|' << r.jitter << '|' << r.preempt.value_or("-") << '|' << r.update_curr.value_or("-") << '|';
  list(r.slices);
  o << r.format << '|' << r.output << '|' << r.label << '|' << r.trace_out << '|' << r.trace_window << '|' << r.stop_at
    << '|' << r.max_sim_time << '|' << r.check_invariants << '|' << r.view << '|' << r.quiet << '|' << r.allow_incomplete
    << '|' << r.progress << '|' << r.max_memory << '|' << r.table_tasks << '|' << r.table_cpus << '|' << r.smt_normalize
    << '|' << r.recorded_on << '|' << r.repeat << '|' << r.noise << '|';
  const auto& e = r.extract;
  o << e.comm_regex << '|';
  list(e.pids);
  o << e.descendants_of << '|' << e.exclude_kthreads << '|' << e.all_tasks << '|' << e.background_comm_regex << '|';
  list(e.background_pids);
  o << static_cast<int>(e.channels) << '|' << static_cast<int>(e.wake_match) << '|' << e.strict << '|' << e.clock_hz << '|' << e.kernel_version << '|' << e.buffer;
  return o.str();
}

/// A value each type accepts that no default equals.
std::string sample(const RunOption& o) {
  switch (o.type) {
    case OptionType::kText:
      if (std::string(o.name) == "channels") return "pipe";
      if (std::string(o.name) == "wake-match") return "recorded";
      return "x";
    case OptionType::kTexts: return "a b";
    case OptionType::kFlag: return "on";
    case OptionType::kCount32:
    case OptionType::kCount64: return "7";
    case OptionType::kInt: return "9";
    case OptionType::kInts: return "12 13";
  }
  return "";
}

}  // namespace

TEST_CASE("run options: every row writes its own part of the request") {
  std::set<std::string> names, seen;
  const std::string blank = describe(RunRequest{});
  for (const auto& o : run_options()) {
    INFO("--" << o.name);
    CHECK(names.insert(o.name).second);  // declared once
    CHECK(find_run_option(o.name) == &o);
    CHECK(std::string(o.help).size() > 10);
    RunRequest r;
    set_option_text(r, o, sample(o));
    const std::string d = describe(r);
    CHECK(d != blank);
    CHECK(seen.insert(d).second);  // no two options write the same field alike
  }
  CHECK(find_run_option("no-such-option") == nullptr);
  CHECK(names.count("input"));
  CHECK(names.count("placement"));
}

TEST_CASE("run options: the defaults the table prints are the request's own") {
  // A row's default is what RunRequest holds when the option is not given (table_cpus: run's 64
  // is applied as every default is, by the command; the request's 0 means all).
  for (const auto& o : run_options()) {
    if (!o.default_text) continue;
    INFO("--" << o.name << " default " << o.default_text);
    RunRequest given, blank;
    set_option_text(given, o, o.default_text);
    if (std::string(o.name) == "cpus" || std::string(o.name) == "max-sim-time") {
      CHECK(describe(given) != describe(blank));
      continue;
    }
    CHECK(describe(given) == describe(blank));
  }
}

TEST_CASE("run options: values as a sweep writes them") {
  RunRequest r;
  set_option_text(r, *find_run_option("pid"), "12 13");
  set_option_text(r, *find_run_option("feature"), "NO_SIS_UTIL 'SIS_PROP'");
  set_option_text(r, *find_run_option("exclude-kthreads"), "yes");
  set_option_text(r, *find_run_option("placement"), "sis-fold-opt");
  CHECK(r.extract.pids == std::vector<int64_t>{12, 13});
  CHECK(r.features == std::vector<std::string>{"NO_SIS_UTIL", "SIS_PROP"});
  CHECK(r.extract.exclude_kthreads);
  CHECK(r.modules.at("placement") == "sis-fold-opt");

  CHECK_THROWS_WITH(set_option_text(r, *find_run_option("pid"), "12 x"), "expected pids (integers, space-separated)");
  CHECK_THROWS_WITH(set_option_text(r, *find_run_option("strict"), "maybe"), "expected on or off");
  CHECK_THROWS_WITH(set_option_text(r, *find_run_option("clock-hz"), "0"), "expected a positive tick rate (Hz)");
  CHECK_THROWS_WITH(set_option_text(r, *find_run_option("clock-hz"), "1e9"), "expected a positive tick rate (Hz)");
  CHECK_THROWS_WITH(set_option_text(r, *find_run_option("channels"), "fifo"), "expected off, pipe or socket");
  CHECK_THROWS_WITH(set_option_text(r, *find_run_option("wake-match"), "paired"), "expected token or recorded");
  CHECK_THROWS_WITH(set_option_text(r, *find_run_option("repeat"), "-1"), "expected a non-negative integer");
  CHECK_THROWS_WITH(set_option_text(r, *find_run_option("repeat"), "4294967296"), "expected a non-negative integer");
  CHECK_THROWS_WITH(set_option_text(r, *find_run_option("descendants-of"), "12a"), "expected a pid");
}

TEST_CASE("run options: an empty value is refused where it would mean the default") {
  RunRequest r;
  CHECK_THROWS_WITH(set_option_text(r, *find_run_option("topology"), ""), "expected a value, got ''");
  CHECK_THROWS_WITH(set_option_text(r, *find_run_option("recorded-on"), ""),
                    "expected a machine (preset, topology file or 'host'), got ''");
  CHECK(empty_value_message(*find_run_option("recorded-on"), "run") ==
        "expected a machine (preset, topology file or 'host'), got ''");
  CHECK(empty_value_message(*find_run_option("topology"), "sweep").find("'schedsim help sweep'") != std::string::npos);
  // A label may be empty: it names nothing by default either.
  set_option_text(r, *find_run_option("label"), "");
  CHECK(r.label.empty());
}
