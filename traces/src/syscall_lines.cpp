#include "syscall_lines.hpp"

namespace schedsim::traces {

std::string syscall_event_name(std::string_view line, size_t at) {
  if (line.substr(at, 4) != "sys_") return {};
  size_t e = at + 4;
  while (e < line.size() && (line[e] == '_' || (line[e] >= 'a' && line[e] <= 'z') || (line[e] >= '0' && line[e] <= '9')))
    ++e;
  if (e == at + 4 || e >= line.size()) return {};
  std::string_view call = line.substr(at + 4, e - at - 4);
  if (line[e] == '(' && line.back() == ')') return "sys_enter_" + std::string(call);
  if (line.substr(e, 4) == " -> ") return "sys_exit_" + std::string(call);
  return {};
}

}  // namespace schedsim::traces
