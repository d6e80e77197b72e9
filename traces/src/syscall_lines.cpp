#include "syscall_lines.hpp"

#include "schedsim/traces/trace_event.hpp"

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

namespace {

// A number as the kernel prints syscall values: "0x" hex or decimal. False when none is there.
bool parse_sys_number(std::string_view s, size_t p, uint64_t& v) {
  v = 0;
  if (s.substr(p, 2) == "0x") {
    size_t b = p += 2;
    for (; p < s.size() && p - b < 16; ++p) {
      char c = s[p];
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) break;
      v = v * 16 + static_cast<uint64_t>(d);
    }
    return p > b;
  }
  size_t b = p;
  for (; p < s.size() && s[p] >= '0' && s[p] <= '9' && p - b < 19; ++p) v = v * 10 + static_cast<uint64_t>(s[p] - '0');
  return p > b;
}

}  // namespace

int64_t syscall_event_value(std::string_view line, size_t at, bool enter) {
  uint64_t v = 0;
  if (enter) {
    size_t open = line.find('(', at);
    if (open == std::string_view::npos) return -1;
    size_t colon = line.find(": ", open);
    if (colon == std::string_view::npos || !parse_sys_number(line, colon + 2, v) || v > INT32_MAX) return -1;
    return static_cast<int64_t>(v);
  }
  size_t arrow = line.find(" -> ", at);
  if (arrow == std::string_view::npos || !parse_sys_number(line, arrow + 4, v)) return 0;
  return static_cast<int64_t>(v);  // two's complement: errors come out negative
}

namespace {
// The decimal value of "key=N" in payload, or false.
bool field(std::string_view payload, std::string_view key, uint64_t& v) {
  size_t at = 0;
  while ((at = payload.find(key, at)) != std::string_view::npos) {
    if ((at == 0 || payload[at - 1] == ' ') && at + key.size() < payload.size() && payload[at + key.size()] == '=')
      return parse_sys_number(payload, at + key.size() + 1, v);
    at += key.size();
  }
  return false;
}
}  // namespace

void parse_power_ipi(std::string_view name, std::string_view payload, TraceEvent& ev) {
  uint64_t a = 0, b = 0;
  if (name == "cpu_idle") {
    if (field(payload, "state", a) && field(payload, "cpu_id", b)) set_power_ipi(name, a, b, ev);
  } else if (name == "ipi_send_cpu") {
    if (field(payload, "cpu", a)) set_power_ipi(name, a, 0, ev);
  }
}

void set_power_ipi(std::string_view name, uint64_t first, uint64_t second, TraceEvent& ev) {
  if (name == "cpu_idle") {
    if (second > 65535) return;
    ev.other_value = first >= 0xffffffffULL ? -1 : static_cast<int64_t>(first);
    ev.target_cpu = static_cast<int32_t>(second);
  } else if (name == "ipi_send_cpu") {
    if (first > 65535) return;
    ev.target_cpu = static_cast<int32_t>(first);
  }
}

}  // namespace schedsim::traces
