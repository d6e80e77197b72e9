#include "schedsim/base/log.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>

#include <spdlog/cfg/env.h>
#include <spdlog/cfg/helpers.h>
#include <spdlog/sinks/stdout_color_sinks.h>

namespace schedsim::log {
namespace {
const char* const kModules[] = {"cli", "engine", "topology", "traces", "policy", "metrics", "workload"};
std::once_flag g_once;
std::atomic<bool> g_explain{false};

void create_all(spdlog::level::level_enum level) {
  auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>(spdlog::color_mode::never);
  for (const char* m : kModules) {
    if (spdlog::get(m)) continue;
    auto lg = std::make_shared<spdlog::logger>(m, sink);
    lg->set_pattern("schedsim: [%n] %l: %v");
    lg->set_level(level);
    spdlog::register_logger(lg);
  }
}
}  // namespace

void init(int verbosity, const std::string& spec) {
  auto level = verbosity <= 0 ? spdlog::level::warn
               : verbosity == 1 ? spdlog::level::info
                                : spdlog::level::debug;
  std::call_once(g_once, [&] { create_all(level); });
  for (const char* m : kModules) spdlog::get(m)->set_level(level);
  spdlog::cfg::load_env_levels();
  if (!spec.empty()) spdlog::cfg::helpers::load_levels(spec);
}

std::shared_ptr<spdlog::logger> get(const std::string& module) {
  std::call_once(g_once, [] { create_all(spdlog::level::warn); });
  auto lg = spdlog::get(module);
  return lg ? lg : spdlog::get("cli");
}

void set_explain(bool on) { g_explain = on; }
bool explain() { return g_explain; }

std::string_view headline(std::string_view text) { return text.substr(0, text.find('\n')); }

std::string flat(std::string_view text) {
  std::string out(text);
  std::replace(out.begin(), out.end(), '\n', ' ');
  return out;
}

std::string wrap_words(std::string_view text, size_t width, size_t indent) {
  std::string out;
  size_t col = 0;
  for (size_t at = 0; at <= text.size();) {
    const size_t end = std::min(text.find(' ', at), text.size());
    const std::string_view word = text.substr(at, end - at);
    if (col > indent && col + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
    } else if (!out.empty()) {
      out += ' ';
      ++col;
    }
    out += word;
    const size_t nl = word.rfind('\n');
    col = nl == std::string_view::npos ? col + word.size() : word.size() - nl - 1;
    at = end + 1;
  }
  return out;
}

std::string brief(std::string_view text) {
  if (g_explain || text.find('\n') == std::string_view::npos) return flat(text);
  std::string_view h = headline(text);
  while (!h.empty() && (h.back() == ':' || h.back() == ';' || h.back() == ',')) h.remove_suffix(1);
  return std::string(h) + " [--explain]";
}

}  // namespace schedsim::log
