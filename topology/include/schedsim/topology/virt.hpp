#pragma once
/// Facts about the machine that the CPU topology does not carry but cost models need.
#include <string>

namespace schedsim {

/// True when the system under `root` ("/" for this machine) is a KVM guest: its kernel offers
/// the `kvm-clock` clocksource (sysfs devices/system/clocksource/clocksource0/
/// available_clocksource), which only a KVM host provides. False when that file is unreadable.
bool is_kvm_guest(const std::string& root = "/");

}  // namespace schedsim
