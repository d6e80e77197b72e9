// Fuzz target: topology JSON (topology/src/json_io.cpp) and the domain builder it feeds
// (Topology::build: validation, masks, sched-domain table with degeneration), then the
// `topology show` rendering and the export round trip, which must accept what it wrote.
#include "fuzz_common.hpp"

#include "schedsim/base/error.hpp"
#include "schedsim/topology/topology.hpp"

SCHEDSIM_FUZZ_TARGET(topology_json) {
  using namespace schedsim;
  fuzz::quiet_logs();
  std::string text(fuzz::as_text(data, size));
  Topology topo;
  try {
    topo = Topology::build(topology_from_json(text, "fuzz.json"), "fuzz.json");
  } catch (const InputError&) {
    return 0;
  }
  (void)describe_topology(topo);
  try {
    (void)Topology::build(topology_from_json(topology_to_json(topo.spec()), "export"), "export");
  } catch (const InputError& e) {
    fuzz::finding("an accepted topology does not survive its own JSON export: " + e.render());
  }
  return 0;
}
