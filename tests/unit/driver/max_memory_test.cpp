// --max-memory values.
#include <catch2/catch.hpp>

#include "schedsim/driver/run.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/run_control.hpp"

using namespace schedsim;

TEST_CASE("parse_max_memory", "[cli][memory]") {
  CHECK(driver::parse_max_memory("none") == 0);
  CHECK(driver::parse_max_memory("0") == 0);
  CHECK(driver::parse_max_memory("512M") == 512ull << 20);
  CHECK(driver::parse_max_memory("512MiB") == 512ull << 20);
  CHECK(driver::parse_max_memory("2g") == 2ull << 30);
  CHECK(driver::parse_max_memory("1.5G") == 3ull << 29);
  CHECK(driver::parse_max_memory("4096") == 4096);
  for (const char* bad : {"", "12Q", "-1G", "G", "1.2.3M", "0%", "101%", "1e3M"})
    if (*bad) CHECK_THROWS_AS(driver::parse_max_memory(bad), InputError);
  uint64_t avail = mem_available_bytes();
  if (avail > 0) {
    CHECK(driver::parse_max_memory("") == avail / 100 * driver::kDefaultMemoryPercent);
    uint64_t half = driver::parse_max_memory("50%");
    CHECK(half > avail / 3);  // MemAvailable moves between the two reads; the order of magnitude holds
    CHECK(half < avail);
  }
  CHECK(resident_bytes() > 0);
}
