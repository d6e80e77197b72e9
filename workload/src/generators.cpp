// The generator registry, the shared option handling, and the JSON mix of generators.
#include "schedsim/workload/generators.hpp"

#include <algorithm>
#include <limits>
#include <cmath>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gen_common.hpp"
#include "schedsim/base/assert.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/topology/json_input.hpp"

namespace schedsim {

namespace gen {

Options::Options(std::string kind, std::string usage, std::string description)
    : kind_(std::move(kind)), usage_(std::move(usage)), description_(std::move(description)),
      desc_("options", 100, 50) {}

Options& Options::value(const char* names, const char* help) {
  desc_.add_options()(names, po::value<std::string>()->value_name("ARG"), help);
  return *this;
}

Options& Options::flag(const char* names, const char* help) {
  desc_.add_options()(names, po::bool_switch(), help);
  return *this;
}

Options& Options::positional(const char* name, const char* help) {
  positional_ = name;
  desc_.add_options()(name, po::value<std::string>()->value_name("ARG"), help);
  return *this;
}

std::string Options::help() const {
  std::ostringstream os;
  po::options_description d = desc_;
  d.add_options()("seed", po::value<std::string>()->value_name("N"), "seed of the random choices (default 1)");
  os << "usage: schedsim gen " << kind_ << " " << usage_ << " [-o FILE] [--format json|cbor]\n\n"
     << description_ << "\n\n"
     << d;
  return os.str();
}

void Options::fail(const std::string& msg) const { throw InputError(fmt::format("gen {}: {}", kind_, msg)); }

void Options::parse(const std::vector<std::string>& args) {
  desc_.add_options()("seed", po::value<std::string>(), "seed");
  po::positional_options_description pos;
  if (!positional_.empty()) pos.add(positional_.c_str(), 1);
  try {
    // No prefix guessing: an abbreviation that works today could change meaning when an option
    // is added.
    const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(args).options(desc_).positional(pos).style(style).run(), vm_);
    po::notify(vm_);
  } catch (const po::unknown_option& e) {
    std::vector<std::string> names;
    for (const auto& o : desc_.options()) {
      auto [long_names, count] = o->long_names();
      for (size_t i = 0; i < count; ++i)
        if (long_names[i] != positional_) names.push_back("--" + long_names[i]);
    }
    std::string bad = e.get_option_name();
    std::string msg = fmt::format("unknown option '{}'", bad);
    std::string near = closest_match(bad, names);
    if (!near.empty()) msg += fmt::format("; did you mean '{}'?", near);
    msg += fmt::format(" (schedsim gen {} --help lists the options)", kind_);
    fail(msg);
  } catch (const po::too_many_positional_options_error&) {
    fail(positional_.empty() ? "takes no positional arguments" : "takes one positional argument (" + positional_ + ")");
  } catch (const po::error& e) {
    fail(e.what());
  }
}

bool Options::has(const char* name) const { return vm_.count(name) && !vm_[name].defaulted(); }

bool Options::flag_set(const char* name) const { return vm_.count(name) && vm_[name].as<bool>(); }

std::string Options::raw(const char* name) const { return vm_[name].as<std::string>(); }

int64_t Options::integer(const char* name, int64_t def, int64_t lo, int64_t hi) const {
  if (!has(name)) return def;
  std::string s = raw(name);
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size()) fail(fmt::format("--{}: '{}' is not an integer", name, s));
  if (v < lo || v > hi) fail(fmt::format("--{} {} is out of range; allowed {}..{}", name, v, lo, hi));
  return v;
}

Duration Options::duration(const char* name, Duration def, Duration lo, Duration hi) const {
  if (!has(name)) return def;
  std::string s = raw(name);
  Duration d;
  if (!parse_duration(s, d))
    fail(fmt::format("--{}: '{}' is not a duration; write a number with ns, us, ms or s (e.g. 10us)", name, s));
  if (d < lo || d > hi)
    fail(fmt::format("--{} {} is out of range; allowed {}..{}", name, s, format_duration(lo), format_duration(hi)));
  return d;
}

double Options::fraction(const char* name, double def, double lo, double hi) const {
  if (!has(name)) return def;
  std::string s = raw(name);
  bool pct = !s.empty() && s.back() == '%';
  std::string num = pct ? s.substr(0, s.size() - 1) : s;
  char* end = nullptr;
  double v = std::strtod(num.c_str(), &end);
  if (num.empty() || end != num.c_str() + num.size() || !std::isfinite(v))
    fail(fmt::format("--{}: '{}' is not a fraction; write e.g. 10% or 0.1", name, s));
  if (pct) v /= 100.0;
  if (v < lo || v > hi) fail(fmt::format("--{} {} is out of range; allowed {}%..{}%", name, s, lo * 100, hi * 100));
  return v;
}

std::string Options::text(const char* name, const std::string& def) const {
  return has(name) ? raw(name) : def;
}

std::string Options::choice(const char* name, const std::string& def, const std::vector<std::string>& valid) const {
  if (!has(name)) return def;
  std::string s = raw(name);
  for (const auto& v : valid)
    if (v == s) return s;
  fail(unknown_choice_message(fmt::format("--{} value", name), s, valid));
}

uint64_t Options::seed() const {
  return static_cast<uint64_t>(integer("seed", 1, 0, std::numeric_limits<int64_t>::max()));
}

void append_repeated(std::vector<Action>& prog, const std::vector<Action>& body, int64_t times) {
  if (times <= 0 || body.empty()) return;
  prog.insert(prog.end(), body.begin(), body.end());
  if (times > 1) prog.push_back(Action::loop(static_cast<uint32_t>(body.size()), times - 1));
}

void check_task_count(const Options& o, int64_t tasks, const char* what) {
  const int64_t most = kMaxWorkloadPid - kFirstGenPid + 1;
  if (tasks > most)
    o.fail(fmt::format("{} makes {} tasks; at most {} (their pids, from {}, must stay within {}, the kernel's "
                       "PID_MAX_LIMIT, which workload files hold)",
                       what, tasks, most, kFirstGenPid, kMaxWorkloadPid));
}

TaskSpec make_task(std::string name, StartState start, int64_t pid, int64_t tgid) {
  TaskSpec t;
  t.name = std::move(name);
  t.start = start;
  t.pid = pid;
  t.tgid = tgid;
  return t;
}

std::string canonical_source(const std::string& kind, const std::vector<std::string>& args) {
  std::string out = "gen " + kind;
  for (const auto& a : args) {
    bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:/=%+@") == std::string::npos;
    if (plain) {
      out += " " + a;
    } else {
      std::string q = "'";
      for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += " " + q + "'";
    }
  }
  return out;
}

Duration machine_cost(const Options& o, Workload& w, const char* option, const char* param, const GenCosts& costs) {
  if (o.has(option)) return o.duration(option, Duration::zero(), Duration::zero(), Duration::s(1));
  std::string& used = w.meta["gen_cost_params"];
  used += (used.empty() ? "" : ",") + std::string(param);
  return gen_cost(costs, param);
}

}  // namespace gen

Duration gen_cost(const GenCosts& costs, const std::string& name) {
  auto it = costs.find(name);
  if (it != costs.end()) return it->second;
  for (const auto& p : kGenCostParams)
    if (name == p.name) return Duration::ns(p.reference_ns);
  SCHEDSIM_ASSERT(false, "unknown generator cost {}", name);
  return Duration::zero();
}

namespace {

using GenFn = Workload (*)(const std::vector<std::string>&, bool, std::string*, const GenCosts&);

struct Entry {
  const char* name;
  const char* summary;
  GenFn fn;
};

Workload gen_mix_entry(const std::vector<std::string>& args, bool help_only, std::string* help, const GenCosts& costs);

const std::vector<Entry>& entries() {
  static const std::vector<Entry> e = {
      {"messaging", "perf bench sched messaging / hackbench: groups of 20 senders x 20 receivers", gen::gen_messaging},
      {"pipe", "perf bench sched pipe: two tasks ping-ponging over a pair of pipes", gen::gen_pipe},
      {"schbench", "schbench: message threads waking every queued worker in one pass (--old: 2016 version)",
       gen::gen_schbench},
      {"rr", "netperf TCP_RR / tbench: client/server pairs exchanging requests and responses", gen::gen_rr},
      {"fork", "lmbench lat_proc: fork+exit, fork+exec or fork+/bin/sh -c loops", gen::gen_fork},
      {"periodic", "rt-app style periodic tasks: run, then sleep for the rest of the period", gen::gen_periodic},
      {"mix", "a JSON file combining several generators in one workload", gen_mix_entry},
  };
  return e;
}

const Entry& find_entry(const std::string& kind_or_alias) {
  // The real programs' names work too.
  std::string kind = kind_or_alias;
  if (kind == "hackbench" || kind == "sched-messaging") kind = "messaging";
  if (kind == "sched-pipe") kind = "pipe";
  if (kind == "lat_proc") kind = "fork";
  if (kind == "netperf" || kind == "tbench") kind = "rr";
  if (kind == "rt-app") kind = "periodic";
  std::vector<std::string> names;
  for (const auto& e : entries()) {
    if (kind == e.name) return e;
    names.emplace_back(e.name);
  }
  throw InputError(unknown_choice_message("generator", kind, names));
}

[[noreturn]] void mix_fail(const std::string& path, const std::string& msg) {
  throw InputError(SourceLoc{path}, msg);
}

/// Whether a generator's arguments choose its seed ("--seed N" or "--seed=N").
bool gives_seed(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--seed" || a.starts_with("--seed="); });
}

Workload generate_mix(const std::string& path, const GenCosts& costs, std::optional<uint64_t> seed = std::nullopt) {
  // Bounded in size and nesting, syntax errors with line:col, a repeated key refused.
  nlohmann::json j = parse_json_input(read_input_file(path, "mix file"), path);
  if (!j.is_object() || !j.contains("schedsim_mix"))
    mix_fail(path, "not a mix file: expected an object with \"schedsim_mix\": 1 and \"parts\"");
  for (const auto& [k, v] : j.items()) {
    static const std::vector<std::string> valid = {"schedsim_mix", "name", "seed", "parts"};
    if (std::find(valid.begin(), valid.end(), k) == valid.end())
      mix_fail(path, "/" + k + ": " + unknown_choice_message("mix key", k, valid));
  }
  if (!j["schedsim_mix"].is_number_integer() || j["schedsim_mix"].get<int64_t>() != 1)
    mix_fail(path, "/schedsim_mix: only version 1 is supported");
  if (!j.contains("parts") || !j["parts"].is_array() || j["parts"].empty())
    mix_fail(path, "/parts: expected a non-empty array of generator parts");
  uint64_t base_seed = seed.value_or(1);
  if (j.contains("seed")) {
    if (!j["seed"].is_number_unsigned()) mix_fail(path, "/seed: expected a non-negative integer");
    base_seed = j["seed"].get<uint64_t>();
  }
  Workload out;
  out.name = j.value("name", std::filesystem::path(path).stem().string());
  out.source = "gen mix " + path;
  out.meta["generator"] = "mix";
  int64_t copy_index = 0;  // meta "partN": every generated copy, in order
  // Every generator numbers its tasks from the same first pid, so two parts would share pids and
  // tgids: the per-task tables would show two tasks as one pid, and a `run --trace-out` of the
  // mix would put unrelated tasks in one thread group. Each part's ids are shifted past the
  // highest id an earlier part used (the first part keeps its own).
  int64_t max_id = -1;
  for (size_t pi = 0; pi < j["parts"].size(); ++pi) {
    const nlohmann::json& part = j["parts"][pi];
    std::string where = fmt::format("/parts/{}", pi);
    if (!part.is_object()) mix_fail(path, where + ": expected an object like {\"gen\": \"pipe --loops 1000\"}");
    std::vector<std::string> words;
    for (const auto& [k, v] : part.items()) {
      static const std::vector<std::string> valid = {"gen", "kind", "args", "start", "count"};
      if (std::find(valid.begin(), valid.end(), k) == valid.end())
        mix_fail(path, where + "/" + k + ": " + unknown_choice_message("part key", k, valid));
    }
    if (part.contains("gen")) {
      if (!part["gen"].is_string()) mix_fail(path, where + "/gen: expected a string \"KIND options\"");
      words = split_command_line(part["gen"].get<std::string>());
    } else if (part.contains("kind")) {
      if (!part["kind"].is_string()) mix_fail(path, where + "/kind: expected a string");
      words.push_back(part["kind"].get<std::string>());
      if (part.contains("args")) {
        if (!part["args"].is_array()) mix_fail(path, where + "/args: expected an array of strings");
        for (const auto& a : part["args"]) {
          if (!a.is_string()) mix_fail(path, where + "/args: expected an array of strings");
          words.push_back(a.get<std::string>());
        }
      }
    } else {
      mix_fail(path, where + ": needs \"gen\": \"KIND options\" (or \"kind\" and \"args\")");
    }
    if (words.empty()) mix_fail(path, where + "/gen: empty");
    if (words[0] == "mix") mix_fail(path, where + ": a mix cannot include another mix");
    Duration start;
    if (part.contains("start")) {
      const auto& s = part["start"];
      if (s.is_number_unsigned()) {
        start = Duration::ns(s.get<int64_t>());
      } else if (!s.is_string() || !parse_duration(s.get<std::string>(), start)) {
        mix_fail(path, where + "/start: expected a duration like \"5ms\" or integer nanoseconds");
      }
    }
    int64_t count = 1;
    if (part.contains("count")) {
      if (!part["count"].is_number_unsigned() || part["count"].get<int64_t>() < 1 || part["count"].get<int64_t>() > 100000)
        mix_fail(path, where + "/count: expected an integer in 1..100000");
      count = part["count"].get<int64_t>();
    }
    for (int64_t copy = 0; copy < count; ++copy) {
      std::vector<std::string> args(words.begin() + 1, words.end());
      if (!gives_seed(args)) {
        args.emplace_back("--seed");
        args.push_back(std::to_string(base_seed + pi * 1000 + static_cast<uint64_t>(copy)));
      }
      Workload part_w;
      try {
        part_w = generate_workload(words[0], args, costs);
      } catch (const InputError& e) {
        mix_fail(path, where + ": " + e.message());
      }
      auto offset = static_cast<uint32_t>(out.tasks.size());
      int64_t min_id = -1;
      for (const TaskSpec& t : part_w.tasks)
        for (int64_t id : {t.pid, t.tgid})
          if (id >= 0 && (min_id < 0 || id < min_id)) min_id = id;
      const int64_t id_shift = min_id >= 0 && max_id >= min_id ? max_id + 1 - min_id : 0;
      for (TaskSpec& t : part_w.tasks) {
        if (t.pid >= 0) t.pid += id_shift;
        if (t.tgid >= 0) t.tgid += id_shift;
        max_id = std::max({max_id, t.pid, t.tgid});
        for (Action& a : t.program)
          if (a.kind == ActionKind::kWake || a.kind == ActionKind::kFork) a.arg += offset;
        if (t.start != StartState::kForked) t.start_time += start;
        out.tasks.push_back(std::move(t));
      }
      if (max_id > kMaxWorkloadPid)
        mix_fail(path, where + fmt::format(": with the parts and copies before it, pids reach {}; at most {} (the kernel's "
                                           "PID_MAX_LIMIT, which workload files hold): fewer parts or copies",
                                           max_id, kMaxWorkloadPid));
      out.meta[fmt::format("part{}", copy_index++)] = part_w.source;
      auto used = part_w.meta.find("gen_cost_params");
      if (used != part_w.meta.end()) {
        std::string& all = out.meta["gen_cost_params"];
        std::istringstream names(used->second);
        for (std::string name; std::getline(names, name, ',');)
          if (("," + all + ",").find("," + name + ",") == std::string::npos) all += (all.empty() ? "" : ",") + name;
      }
    }
  }
  validate_workload(out, path);
  return out;
}

Workload gen_mix_entry(const std::vector<std::string>& args, bool help_only, std::string* help, const GenCosts& costs) {
  if (help_only) {
    *help =
        "usage: schedsim gen mix FILE.json [-o FILE] [--format json|cbor]\n\n"
        "Combines several generators in one workload. The file looks like\n"
        "  {\"schedsim_mix\": 1, \"name\": \"web+batch\", \"seed\": 7,\n"
        "   \"parts\": [{\"gen\": \"messaging --group 2 --pipe\"},\n"
        "             {\"gen\": \"periodic -n 4 --period 1ms --run 200us\", \"start\": \"5ms\"},\n"
        "             {\"kind\": \"pipe\", \"args\": [\"--loops\", \"1000\"], \"count\": 2}]}\n"
        "Each part is generated on its own (seeded with seed + 1000*index + copy unless it passes\n"
        "--seed), its tasks are appended, and its start times are shifted by \"start\".\n";
    return {};
  }
  if (args.size() != 1) throw InputError("gen mix: expected one argument, the mix JSON file");
  return generate_mix(args[0], costs);
}

}  // namespace

const std::vector<GeneratorInfo>& list_generators() {
  static const std::vector<GeneratorInfo> list = [] {
    std::vector<GeneratorInfo> v;
    for (const auto& e : entries()) v.push_back({e.name, e.summary});
    return v;
  }();
  return list;
}

std::string generator_help(const std::string& kind) {
  std::string help;
  find_entry(kind).fn({}, true, &help, GenCosts{});
  return help;
}

Workload generate_workload(const std::string& kind, const std::vector<std::string>& args, const GenCosts& costs) {
  const Entry& e = find_entry(kind);
  Workload w = e.fn(args, false, nullptr, costs);
  if (w.source.empty()) w.source = gen::canonical_source(kind, args);
  if (w.name.empty()) w.name = kind;
  w.meta["generator"] = kind;
  validate_workload(w, w.source);
  return w;
}

std::vector<std::string> split_command_line(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < text.size() && (text[i + 1] == '"' || text[i + 1] == '\\')) {
        cur += text[++i];
      } else {
        cur += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      cur += text[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (quote) throw InputError(fmt::format("unterminated {} quote in '{}'", quote == '"' ? "double" : "single", text));
  if (in_word) out.push_back(cur);
  return out;
}

Workload generate_workload_from_spec(const std::string& spec, const GenCosts& costs, std::optional<uint64_t> seed) {
  std::vector<std::string> words = split_command_line(spec);
  if (words.empty()) throw InputError("empty workload generator spec; expected e.g. 'messaging --group 2'");
  if (words.size() == 1 && words[0].size() > 5 && words[0].ends_with(".json")) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(words[0], ec)) return generate_mix(words[0], costs, seed);
  }
  std::vector<std::string> args(words.begin() + 1, words.end());
  if (seed && !gives_seed(args)) {
    // The generators' own --seed is a non-negative int64; a larger seed given for them (run's
    // --seed takes any uint64) would otherwise fail as "--seed: '...' is not an integer".
    if (*seed > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      throw InputError(fmt::format("--seed {} is out of the generators' range 0..{}; give a smaller one, or "
                                   "one in the generator spec",
                                   *seed, std::numeric_limits<int64_t>::max()));
    if (words[0] == "mix" && !args.empty()) return generate_mix(args[0], costs, seed);
    args.emplace_back("--seed");
    args.push_back(std::to_string(*seed));
  }
  return generate_workload(words[0], args, costs);
}

}  // namespace schedsim
