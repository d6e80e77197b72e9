#pragma once
// A machine of two CPUs, one package, no SMT: the smallest on which a wake can cross CPUs, for
// hand-computed engine tests.
#include "schedsim/topology/topology.hpp"

namespace schedsim::testing {

// `n` CPUs in one package, no SMT.
inline Topology regular_cpus(uint32_t n) {
  RegularMachine m;
  m.name = "test";
  m.packages = 1;
  m.cores_per_package = n;
  m.threads = 1;
  return Topology::build(make_regular_machine(m));
}

inline Topology two_cpus() { return regular_cpus(2); }

}  // namespace schedsim::testing
