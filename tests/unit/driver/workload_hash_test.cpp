// The provenance workload_hash: what the simulation reads is hashed, so two workloads that run
// differently never share a hash (compare and the HTML report trust it to pair runs).
#include <catch2/catch.hpp>

#include "schedsim/driver/run.hpp"

using namespace schedsim;

namespace {
Workload pair_and_hog() {
  Workload w;
  for (const char* n : {"ping", "hog"}) {
    TaskSpec t;
    t.name = n;
    t.program = {Action::run(Duration::us(50))};
    w.add_task(t);
  }
  return w;
}
}  // namespace

TEST_CASE("workload_hash tells a background task from the same task measured", "[cli][provenance]") {
  const Workload plain = pair_and_hog();
  Workload bg = pair_and_hog();
  bg.tasks[1].background = true;
  // Another experiment (the hog is load, not measured): metrics differ, so must the hash.
  CHECK(driver::workload_hash(plain) != driver::workload_hash(bg));
  // Deterministic, and unchanged for workloads without the flag.
  CHECK(driver::workload_hash(bg) == driver::workload_hash(Workload(bg)));
  CHECK(driver::workload_hash(plain) == driver::workload_hash(pair_and_hog()));
}
