// is_kvm_guest(): the kvm-clock clocksource marks a KVM guest; anything else, or no file, does not.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "schedsim/topology/virt.hpp"

using namespace schedsim;
namespace fs = std::filesystem;

namespace {
fs::path fake_root(const std::string& name, const char* clocksources) {
  fs::path root = fs::temp_directory_path() / ("schedsim-virt-" + name);
  fs::remove_all(root);
  if (clocksources) {
    fs::path dir = root / "sys/devices/system/clocksource/clocksource0";
    fs::create_directories(dir);
    std::ofstream(dir / "available_clocksource") << clocksources;
  } else {
    fs::create_directories(root);
  }
  return root;
}
}  // namespace

TEST_CASE("is_kvm_guest reads the available clocksources") {
  CHECK(is_kvm_guest(fake_root("kvm", "tsc kvm-clock \n").string()));
  CHECK(is_kvm_guest(fake_root("kvm-first", "kvm-clock tsc hpet\n").string() + "/"));
  CHECK_FALSE(is_kvm_guest(fake_root("metal", "tsc hpet acpi_pm \n").string()));
  CHECK_FALSE(is_kvm_guest(fake_root("xen", "xen tsc\n").string()));
  CHECK_FALSE(is_kvm_guest(fake_root("none", nullptr).string()));
  // a prefix is not the word
  CHECK_FALSE(is_kvm_guest(fake_root("prefix", "kvm-clockx\n").string()));
}
