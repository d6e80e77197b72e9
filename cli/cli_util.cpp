#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <sstream>
#include <typeinfo>

#include <unistd.h>

#include <fmt/format.h>

#include "command.hpp"
#include "schedsim/driver/commands.hpp"
#include "schedsim/base/atomic_file.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"

namespace schedsim::cli {

namespace {

// Boost reads "-1" into an unsigned option through lexical_cast, which wraps it to the largest
// value: `--cpus -1` showed every row and `--repeat -1` ran 4294967295 repetitions. Every option
// declared with an unsigned type is therefore checked here, once for every command, before the
// value is converted.
template <typename T>
bool is_unsigned_option(const po::value_semantic* s) {
  return dynamic_cast<const po::typed_value<T>*>(s) != nullptr;
}

void refuse_negative_counts(const po::parsed_options& parsed, const po::options_description& desc) {
  for (const auto& o : parsed.options) {
    if (o.unregistered || o.value.empty()) continue;
    const po::option_description* d = desc.find_nothrow(o.string_key, false);
    if (!d) continue;
    const po::value_semantic* s = d->semantic().get();
    if (!is_unsigned_option<unsigned int>(s) && !is_unsigned_option<unsigned long>(s) &&
        !is_unsigned_option<unsigned long long>(s))
      continue;
    for (const auto& v : o.value) {
      const size_t first = v.find_first_not_of(" \t");
      if (first != std::string::npos && v[first] == '-')
        throw po::error(fmt::format("the argument ('{}') for option '--{}' is invalid: expected a non-negative "
                                    "integer", v, o.string_key));
    }
  }
}

}  // namespace

bool parse_args(const std::vector<std::string>& args, const po::options_description& desc,
                const po::positional_options_description& pos, po::variables_map& vm,
                const std::function<std::string()>& help) {
  for (const auto& a : args) {
    if (a == "--") break;
    if (a == "--help" || a == "-h") {
      std::cout << help();
      return false;
    }
  }
  po::options_description all;
  all.add(desc).add(common_options());
  try {
    const po::parsed_options parsed = po::command_line_parser(args).options(all).positional(pos).run();
    refuse_negative_counts(parsed, all);
    po::store(parsed, vm);
  } catch (const po::unknown_option& e) {
    // "did you mean": the nearest of the command's long options (--placment -> --placement).
    const std::string given = e.get_option_name();
    std::vector<std::string> names;
    for (const auto& o : all.options())
      if (!o->long_name().empty() && !o->description().empty()) names.push_back("--" + o->long_name());
    const std::string bare = given.substr(0, given.find('='));
    const std::string near = bare.rfind("--", 0) == 0 ? closest_match(bare, names) : "";
    if (near.empty()) throw;
    throw po::error(fmt::format("unrecognised option '{}'; did you mean '{}'?", given, near));
  }
  po::notify(vm);
  if (vm["explain"].as<bool>()) log::set_explain(true);
  return true;
}

po::options_description common_options() {
  po::options_description g = option_group("every command");
  g.add_options()("explain", po::bool_switch(),
                  "print notes and warnings in full: without it each is one line, ending in [--explain] where "
                  "there is more to say (the results files keep the full text)");
  return g;
}

std::string format_help(const std::string& usage, const std::string& description,
                        const po::options_description& desc) {
  // The usage line wrapped at kHelpWidth, continued under its first word.
  const std::string wrapped = log::wrap_words("usage: " + usage, kHelpWidth, 7);
  std::ostringstream os;
  os << wrapped << "\n\n" << description << "\n";
  if (!desc.options().empty()) os << "\n" << desc;
  os << "\n" << common_options();
  return os.str();
}

void refuse_empty_value(const char* name, const char* command) {
  throw InputError(SourceLoc{std::string("--") + name},
                   fmt::format("expected a value, got '' (leave the option out for its default; 'schedsim help {}' "
                               "lists the values)",
                               command));
}

namespace {

bool in(std::initializer_list<driver::OptionGroup> groups, const driver::RunOption& o) {
  return std::find(groups.begin(), groups.end(), o.group) != groups.end();
}
bool in(std::initializer_list<std::string_view> names, const driver::RunOption& o) {
  return std::find(names.begin(), names.end(), std::string_view(o.name)) != names.end();
}

const po::value_semantic* value_of(const driver::CommandOption& o) {
  using driver::ArgType;
  switch (o.type) {
    case ArgType::kText: {
      auto* v = po::value<std::string>();
      return o.default_text ? v->default_value(o.default_text) : v;
    }
    case ArgType::kTexts: return po::value<std::vector<std::string>>()->composing();
    case ArgType::kWords: return po::value<std::vector<std::string>>()->multitoken();
    case ArgType::kFlag: return po::bool_switch();
    case ArgType::kCount32: {
      auto* v = po::value<uint32_t>();
      return o.default_text ? v->default_value(static_cast<uint32_t>(std::stoul(o.default_text))) : v;
    }
    case ArgType::kCount64: {
      auto* v = po::value<uint64_t>();
      return o.default_text ? v->default_value(std::stoull(o.default_text)) : v;
    }
    case ArgType::kReal: {
      auto* v = po::value<double>();
      return o.default_text ? v->default_value(std::stod(o.default_text), o.default_text) : v;
    }
    case ArgType::kInt: return po::value<int64_t>();
    case ArgType::kInts: return po::value<std::vector<int64_t>>()->composing();
  }
  return nullptr;
}

// A run option row as a command option row: the same Boost value and default.
void add_run_option(po::options_description& d, const driver::RunOption& o) {
  using driver::ArgType;
  using driver::OptionType;
  // A switch, not a chain of conditions: a new OptionType must be given its ArgType here.
  ArgType t = ArgType::kText;
  switch (o.type) {
    case OptionType::kText: t = ArgType::kText; break;
    case OptionType::kTexts: t = ArgType::kTexts; break;
    case OptionType::kFlag: t = ArgType::kFlag; break;
    case OptionType::kCount32: t = ArgType::kCount32; break;
    case OptionType::kCount64: t = ArgType::kCount64; break;
    case OptionType::kInt: t = ArgType::kInt; break;
    case OptionType::kInts: t = ArgType::kInts; break;
  }
  const std::string name = o.short_name ? fmt::format("{},{}", o.name, o.short_name) : o.name;
  d.add_options()(name.c_str(), value_of({o.name, o.short_name, t, o.default_text, o.help}),
                  o.group == driver::OptionGroup::kPositional ? "" : o.help);
}

template <class Selection>
void apply_selected(const po::variables_map& vm, driver::RunRequest& r, Selection selection, const char* command) {
  using driver::OptionType;
  for (const auto& o : driver::run_options()) {
    if (!in(selection, o) || !vm.count(o.name)) continue;
    const po::variable_value& given = vm[o.name];
    driver::OptionValue v;
    std::string shown;  // the value as the error quotes it
    switch (o.type) {
      case OptionType::kText:
        v.text = shown = given.as<std::string>();
        if (o.refuse_empty && v.text.empty() && !given.defaulted())
          throw InputError(SourceLoc{std::string("--") + o.name}, driver::empty_value_message(o, command));
        break;
      case OptionType::kTexts: v.texts = given.as<std::vector<std::string>>(); break;
      case OptionType::kFlag: v.flag = given.as<bool>(); break;
      case OptionType::kCount32: v.count = given.as<uint32_t>(); shown = std::to_string(v.count); break;
      case OptionType::kCount64: v.count = given.as<uint64_t>(); shown = std::to_string(v.count); break;
      case OptionType::kInt: v.integer = given.as<int64_t>(); shown = std::to_string(v.integer); break;
      case OptionType::kInts: v.integers = given.as<std::vector<int64_t>>(); break;
    }
    try {
      o.set(r, v);
    } catch (const driver::OptionValueError& e) {
      throw po::error(fmt::format("the argument ('{}') for option '--{}' is invalid: {}", shown, o.name, e.what()));
    }
  }
}

}  // namespace

void apply_run_options(const po::variables_map& vm, driver::RunRequest& r,
                       std::initializer_list<driver::OptionGroup> groups, const char* command) {
  apply_selected(vm, r, groups, command);
}
void apply_run_options(const po::variables_map& vm, driver::RunRequest& r, std::initializer_list<std::string_view> names,
                       const char* command) {
  apply_selected(vm, r, names, command);
}

std::vector<std::string> given_options(const po::variables_map& vm) {
  std::vector<std::string> out;
  for (const auto& [name, v] : vm)
    if (!v.defaulted() && (v.value().type() != typeid(bool) || v.as<bool>())) out.push_back(name);
  return out;
}

traces::ExtractOptions trace_selection(const po::variables_map& vm) {
  driver::RunRequest r;
  apply_run_options(vm, r, {driver::OptionGroup::kTraceSelection, driver::OptionGroup::kTraceReading}, "run");
  return r.extract;
}

void apply_trace_reading(const po::variables_map& vm, traces::ExtractOptions& o) {
  driver::RunRequest r;
  r.extract = o;
  apply_run_options(vm, r, {driver::OptionGroup::kTraceReading}, "sched");
  o = r.extract;
}

namespace {

void add_section(po::options_description& d, const driver::OptionSection& s) {
  for (const auto& o : s.options) {
    const std::string name = o.short_name ? fmt::format("{},{}", o.name, o.short_name) : o.name;
    d.add_options()(name.c_str(), value_of(o), o.help);
  }
  for (const auto& o : driver::run_options())
    if (std::find(s.run_groups.begin(), s.run_groups.end(), o.group) != s.run_groups.end() ||
        std::find(s.run_names.begin(), s.run_names.end(), std::string_view(o.name)) != s.run_names.end())
      add_run_option(d, o);
}

}  // namespace

po::options_description command_options(const driver::CommandSpec& spec) {
  if (spec.sections.empty()) return option_group("options");
  po::options_description d = option_group(spec.sections[0].title);
  add_section(d, spec.sections[0]);
  for (size_t i = 1; i < spec.sections.size(); ++i) {
    po::options_description sub = option_group(spec.sections[i].title);
    add_section(sub, spec.sections[i]);
    d.add(sub);
  }
  return d;
}

std::string command_help(const driver::CommandSpec& spec) {
  return format_help(spec.usage, spec.description, command_options(spec));
}

bool parse_command(const std::vector<std::string>& args, const char* command, po::variables_map& vm,
                   const std::function<std::string()>& help) {
  const driver::CommandSpec& spec = *driver::find_command_spec(command);
  po::options_description visible = command_options(spec);
  po::options_description all;
  all.add(visible);
  po::positional_options_description pos;
  for (const auto& p : spec.positionals) {
    pos.add(p.name, p.count);
    if (visible.find_nothrow(p.name, false)) continue;
    if (p.count == 1) all.add_options()(p.name, po::value<std::string>(), "");
    else all.add_options()(p.name, po::value<std::vector<std::string>>(), "");
  }
  if (!parse_args(args, all, pos, vm, help ? help : [&spec] { return command_help(spec); })) return false;
  // The table's checks: an option given without the one it needs, an empty text where the
  // command keeps "" for the default, and a value outside the option's choices (each exit 1).
  const std::vector<std::string> given = given_options(vm);
  for (const auto& s : spec.sections)
    for (const auto& o : s.options) {
      const bool is_given = std::find(given.begin(), given.end(), o.name) != given.end();
      if (o.needs && is_given && std::find(given.begin(), given.end(), o.needs) == given.end())
        throw InputError(SourceLoc{std::string("--") + o.name}, std::string("only with --") + o.needs);
      if (o.type != driver::ArgType::kText || !vm.count(o.name) || vm[o.name].defaulted()) continue;
      const std::string& v = vm[o.name].as<std::string>();
      if (o.refuse_empty && v.empty()) refuse_empty_value(o.name, command);
      const std::vector<std::string> choices = driver::option_choices(o);
      if (!choices.empty() && std::find(choices.begin(), choices.end(), v) == choices.end())
        throw InputError(SourceLoc{std::string("--") + o.name}, unknown_choice_message(std::string(o.name) + " value", v, choices));
    }
  return true;
}

void write_output(const std::string& path, const std::string& content) {
  write_file_atomic(path, content, "output", Compress::kByName);
}

}  // namespace schedsim::cli
