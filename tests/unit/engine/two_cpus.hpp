#pragma once
// A machine of two CPUs, one package, no SMT: the smallest on which a wake can cross CPUs, for
// hand-computed engine tests.
#include "schedsim/topology/topology.hpp"

namespace schedsim::testing {

inline Topology two_cpus() {
  RegularMachine m;
  m.name = "test";
  m.packages = 1;
  m.cores_per_package = 2;
  m.threads = 1;
  return Topology::build(make_regular_machine(m));
}

}  // namespace schedsim::testing
