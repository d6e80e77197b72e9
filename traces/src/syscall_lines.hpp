#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace schedsim::traces {

/// The syscalls:sys_enter_* / sys_exit_* events print without the "name:" of other events:
/// "sys_write(fd: 1, buf: 0x..., count: 0x444)" (enter) and "sys_write -> 0x444" (exit)
/// (kernel/trace/trace_syscalls.c's output format). Given the line and where the event text
/// starts, returns the event's tracefs name ("sys_enter_write", "sys_exit_write"), or "" when
/// the text is not a syscall event. Such events are counted as other events and not interpreted.
std::string syscall_event_name(std::string_view line, size_t at);

/// The value a syscall event carries (TraceEvent::other_value): for an enter, its first argument
/// ("fd: 5", or "fd: 0x5" as older kernels print it); for an exit, the return value ("-> 0x444",
/// errors as the 64-bit two's complement "-> 0xfffffffffffffff5"). -1 for an enter whose
/// first argument is not a number.
int64_t syscall_event_value(std::string_view line, size_t at, bool enter);

struct TraceEvent;
/// power:cpu_idle ("state=1 cpu_id=0"; state 4294967295 is the exit) and ipi:ipi_send_cpu
/// ("cpu=1 callsite=..."): fills TraceEvent::other_value and target_cpu from `payload` (the text
/// after the event name). Other names, or a payload without the fields, leave `ev` as it is.
void parse_power_ipi(std::string_view name, std::string_view payload, TraceEvent& ev);
/// The same from the fields' values (perf.data): cpu_idle's state and cpu_id, ipi_send_cpu's cpu
/// (`second` unused). A CPU past 65535 leaves `ev` as it is.
void set_power_ipi(std::string_view name, uint64_t first, uint64_t second, TraceEvent& ev);

}  // namespace schedsim::traces
