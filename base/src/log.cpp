#include "schedsim/base/log.hpp"

#include <mutex>

#include <spdlog/cfg/env.h>
#include <spdlog/cfg/helpers.h>
#include <spdlog/sinks/stdout_color_sinks.h>

namespace schedsim::log {
namespace {
const char* const kModules[] = {"cli", "engine", "topology", "traces", "policy", "metrics", "workload"};
std::once_flag g_once;

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

}  // namespace schedsim::log
