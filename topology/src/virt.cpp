#include "schedsim/topology/virt.hpp"

#include <fstream>
#include <sstream>

namespace schedsim {

bool is_kvm_guest(const std::string& root) {
  std::string base = root.empty() || root.back() != '/' ? root + "/" : root;
  std::ifstream in(base + "sys/devices/system/clocksource/clocksource0/available_clocksource");
  if (!in) return false;
  std::string word;
  while (in >> word)
    if (word == "kvm-clock") return true;
  return false;
}

}  // namespace schedsim
