#pragma once
/// Named spdlog loggers, one per module ("cli", "engine", "topology", "traces", "policy",
/// "metrics"), all writing to stderr. stdout carries results only.
#include <memory>
#include <string>

#include <spdlog/spdlog.h>

namespace schedsim::log {

/// Creates the module loggers once. verbosity: 0 = warn, 1 = info, 2+ = debug. `spec` is a
/// spdlog level spec ("engine=debug,policy=trace"); SPDLOG_LEVEL in the environment is honoured.
void init(int verbosity = 0, const std::string& spec = {});
/// The named module logger (created on first use with the default level if init was not called).
std::shared_ptr<spdlog::logger> get(const std::string& module);

}  // namespace schedsim::log
