#include "schedsim/engine/cost_profile.hpp"

#include <sstream>

namespace schedsim {

namespace {

// IPI figures: V. Pallipadi, "Extend mwait idle to optimize away IPIs", LKML 2012-02-06, measured
// smp_call_function_single on Westmere at ~1600 cycles within a socket and ~2000 across sockets;
// converted at each machine's base clock (a derivation: the cycle counts of later Intel server
// generations were not published there).
constexpr const char* kPallipadi = "V. Pallipadi, 'Extend mwait idle to optimize away IPIs', LKML 2012-02-06";

std::vector<CostProfile> make_profiles() {
  std::vector<CostProfile> v;
  v.push_back({"reference",
               "the 2-vCPU KVM guest (Linux 6.18) the built-in defaults were calibrated on; also smp2, host, the "
               "test machines and imported topologies",
               {},
               true});
  v.push_back(
      {"xeon-e5-2690v2",
       "2 x Intel Xeon E5-2690 v2 (Ivy Bridge-EP, 3.0 GHz base), 40 CPUs",
       {
           {"ipi_same_package", "533ns", std::string(kPallipadi) + ": ~1600 cycles in one socket, at 3.0 GHz"},
           {"ipi_cross_package", "667ns", std::string(kPallipadi) + ": ~2000 cycles across sockets, at 3.0 GHz"},
           {"idle_exit", "1us",
            "drivers/idle/intel_idle.c ivt_cstates (Ivy Town): C1 exit latency 1 us (C1E 10 us needs 80 us "
            "of predicted idle, C6 82 us needs 300 us)"},
           {"msg_write_pipe_thread", "2591ns",
            "fitted by `schedsim calibrate --workload-gen` to the published time of perf bench sched messaging "
            "--pipe --thread --group 4 --loop 50000 on this machine, 15.7831 s mean of 30 runs (commit "
            "765cc3a4b224, 'sched/core: Optimize sched_feat() for !CONFIG_SCHED_DEBUG builds', 2017-11); "
            "split in the reference machine's write:read ratio"},
           {"msg_read_pipe_thread", "2383ns", "same fit"},
       },
       false});
  v.push_back({"xeon-gold-6248",
               "2 x Intel Xeon Gold 6248 (Cascade Lake, 2.5 GHz base), 80 CPUs",
               {
                   {"ipi_same_package", "640ns", std::string(kPallipadi) + ": ~1600 cycles in one socket, at 2.5 GHz"},
                   {"ipi_cross_package", "800ns", std::string(kPallipadi) + ": ~2000 cycles across sockets, at 2.5 GHz"},
                   {"idle_exit", "2us",
                    "drivers/idle/intel_idle.c skx_cstates (Skylake-SP, also used for Cascade Lake): C1 exit "
                    "latency 2 us (C1E 10 us, C6 133 us)"},
               },
               false});
  for (const char* name : {"epyc-milan-2s", "power9-smt4", "dense-2s-1024"})
    v.push_back({name, "no published per-event measurements of this machine were found: the reference costs", {}, false});
  return v;
}

}  // namespace

const std::vector<CostProfile>& cost_profiles() {
  static const std::vector<CostProfile> p = make_profiles();
  return p;
}

const CostProfile& cost_profile_for(const std::string& topology_name) {
  for (const auto& p : cost_profiles())
    if (p.name == topology_name) return p;
  return cost_profiles().front();
}

void apply_cost_profile(CostModel& c, const CostProfile& p) {
  for (const auto& e : p.entries) c.set(e.param + "=" + e.value, "cost profile " + p.name);
  c.profile = p.name;
}

std::vector<std::string> gen_costs_not_from_machine(const CostProfile& p, const std::string& used) {
  std::vector<std::string> out;
  if (p.gen_costs_from_machine) return out;
  std::istringstream in(used);
  for (std::string name; std::getline(in, name, ',');) {
    bool have = false;
    for (const auto& e : p.entries) have = have || e.param == name;
    if (!have && !name.empty()) out.push_back(name);
  }
  return out;
}

}  // namespace schedsim
