#pragma once
#include <string>
#include <string_view>

namespace schedsim::traces {

/// The syscalls:sys_enter_* / sys_exit_* events print without the "name:" of other events:
/// "sys_write(fd: 1, buf: 0x..., count: 0x444)" (enter) and "sys_write -> 0x444" (exit)
/// (kernel/trace/trace_syscalls.c's output format). Given the line and where the event text
/// starts, returns the event's tracefs name ("sys_enter_write", "sys_exit_write"), or "" when
/// the text is not a syscall event. Such events are counted as other events and not interpreted.
std::string syscall_event_name(std::string_view line, size_t at);

}  // namespace schedsim::traces
