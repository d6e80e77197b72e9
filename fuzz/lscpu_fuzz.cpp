// Fuzz target: `lscpu -p` import (topology/src/import.cpp topology_from_lscpu, both the default
// and the -p=CPU,CORE,SOCKET,NODE,CACHE column sets) and the domain builder it feeds.
#include "fuzz_common.hpp"

#include "schedsim/base/error.hpp"
#include "schedsim/topology/topology.hpp"

SCHEDSIM_FUZZ_TARGET(lscpu) {
  using namespace schedsim;
  fuzz::quiet_logs();
  std::string text(fuzz::as_text(data, size));
  try {
    Topology topo = Topology::build(topology_from_lscpu(text, "fuzz-lscpu.txt"), "fuzz-lscpu.txt");
    (void)describe_topology(topo);
  } catch (const InputError&) {
  }
  return 0;
}
