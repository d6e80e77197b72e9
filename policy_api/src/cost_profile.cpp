#include "schedsim/engine/cost_profile.hpp"

#include <array>
#include <sstream>

#include <fmt/format.h>

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
               ProfileKind::kReference,
               true});
  v.push_back(
      {"xeon-e5-2690v2",
       "2 x Intel Xeon E5-2690 v2 (Ivy Bridge-EP, 3.0 GHz base), 40 CPUs",
       {
           {"ipi_same_package", "533ns", std::string(kPallipadi) + ": ~1600 cycles in one socket, at 3.0 GHz",
            CostBasis::kDerived},
           {"ipi_cross_package", "667ns", std::string(kPallipadi) + ": ~2000 cycles across sockets, at 3.0 GHz",
            CostBasis::kDerived},
           {"idle_exit", "1us",
            "drivers/idle/intel_idle.c ivt_cstates (Ivy Town): C1 exit latency 1 us (C1E 10 us needs 80 us "
            "of predicted idle, C6 82 us needs 300 us)",
            CostBasis::kVendorTable},
           {"msg_write_pipe_thread", "2591ns",
            "fitted by `schedsim calibrate --workload-gen` to the published time of perf bench sched messaging "
            "--pipe --thread --group 4 --loop 50000 on this machine, 15.7831 s mean of 30 runs (commit "
            "765cc3a4b224, 'sched/core: Optimize sched_feat() for !CONFIG_SCHED_DEBUG builds', 2017-11); "
            "split in the reference machine's write:read ratio",
            CostBasis::kFitted},
           {"msg_read_pipe_thread", "2383ns",
            "the same fit as msg_write_pipe_thread (15.7831 s, commit 765cc3a4b224)", CostBasis::kFitted},
       },
       ProfileKind::kRealMachine,
       false});
  v.push_back({"xeon-gold-6248",
               "2 x Intel Xeon Gold 6248 (Cascade Lake, 2.5 GHz base), 80 CPUs",
               {
                   {"ipi_same_package", "640ns", std::string(kPallipadi) + ": ~1600 cycles in one socket, at 2.5 GHz",
                    CostBasis::kDerived},
                   {"ipi_cross_package", "800ns", std::string(kPallipadi) + ": ~2000 cycles across sockets, at 2.5 GHz",
                    CostBasis::kDerived},
                   {"idle_exit", "2us",
                    "drivers/idle/intel_idle.c skx_cstates (Skylake-SP; Cascade Lake has the same CPU model "
                    "number, 0x55, and gets the same table): C1 exit latency 2 us (C1E 10 us, C6 133 us)",
                    CostBasis::kVendorTable},
               },
               ProfileKind::kRealMachine,
               false});
  // Zen 3 has no kernel idle table: acpi_idle takes the C-state exit latencies from the firmware's
  // ACPI _CST, which differs by board and BIOS; no IPI or per-message measurement of a Milan
  // machine was found either.
  v.push_back({"epyc-milan-2s",
               "2 x AMD EPYC 7763 (Milan, Zen 3), 256 CPUs; no published per-event figure of it was found (its "
               "idle exit latencies come from the board's ACPI _CST, not a kernel table)",
               {},
               ProfileKind::kRealMachine,
               false});
  // POWER9 under OPAL: the firmware (skiboot) publishes the stop states and their exit latencies
  // in the device tree (ibm,cpu-idle-state-latencies-ns), which the powernv cpuidle driver reads;
  // the shallowest, stop0_lite, is what a CPU idle for a short time sits in.
  v.push_back({"power9-smt4",
               "2 x IBM POWER9 (scale-out, SMT4), 64 CPUs",
               {
                   {"idle_exit", "1us",
                    "OPAL firmware (open-power/skiboot) hw/slw.c power9_cpu_idle_states: stop0_lite exit latency "
                    "1 us (stop0 2 us, stop1 5 us, stop2 10 us), given to Linux as ibm,cpu-idle-state-latencies-ns; "
                    "the firmware calls its figures estimates",
                    CostBasis::kVendorTable},
               },
               ProfileKind::kRealMachine,
               false});
  for (const char* name : {"big-little", "dense-2s-1024"})
    v.push_back({name, "a synthetic machine, no real machine to measure", {},
                 ProfileKind::kSynthetic, false});
  return v;
}

// "a, b (derived), c (vendor table)": the entries in order, each run of one basis named once.
std::string own_params(const CostProfile& p) {
  std::string out;
  for (size_t i = 0; i < p.entries.size(); ++i) {
    if (i) out += ", ";
    out += p.entries[i].param;
    if (i + 1 == p.entries.size() || p.entries[i + 1].basis != p.entries[i].basis)
      out += fmt::format(" ({})", cost_basis_name(p.entries[i].basis));
  }
  return out;
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

const char* cost_basis_name(CostBasis b) {
  // In CostBasis's order.
  static constexpr std::array<const char*, 3> kNames = {"vendor table", "derived", "fitted"};
  return kNames.at(static_cast<size_t>(b));
}

std::string cost_profile_label(const CostProfile& p) {
  if (p.kind == ProfileKind::kReference || !p.entries.empty()) return p.name;
  return "reference";
}

std::string cost_profile_note(const CostProfile& p) {
  if (p.kind == ProfileKind::kReference || !p.entries.empty()) return {};
  if (p.kind == ProfileKind::kSynthetic) return fmt::format("{} is synthetic", p.name);
  return fmt::format("{} has no measured costs", p.name);
}

std::string cost_profile_summary(const CostProfile& p) {
  if (p.kind == ProfileKind::kReference)
    return "costs: the reference defaults, none measured on this machine";
  if (p.kind == ProfileKind::kSynthetic) return "costs: the reference defaults (a synthetic machine)";
  if (p.entries.empty())
    return "costs: the reference defaults, none measured on this machine (no published figure found)";
  return fmt::format("costs: own {}; the rest are the reference defaults, not measured on this machine",
                     own_params(p));
}

const CostProfileEntry* profile_entry(const CostProfile& p, const std::string& param) {
  for (const auto& e : p.entries)
    if (e.param == param) return &e;
  return nullptr;
}

std::string describe_costs(const CostModel& c, const CostProfile& p, const std::map<std::string, std::string>& given) {
  std::string out;
  if (p.kind == ProfileKind::kReference)
    out += "cost profile: reference (the built-in defaults; none was measured on this machine)\n";
  else if (p.entries.empty())
    out += fmt::format("cost profile: {} ({}): every row is the built-in default, not measured on it\n", p.name,
                       p.machine);
  else
    out += fmt::format("cost profile: {} ({}): 'machine' rows are its own, 'reference' rows the built-in "
                       "defaults, not measured on it\n",
                       p.name, p.machine);
  out += fmt::format("{:<20} {:>10} {:<9} {:<9} {}\n", "parameter", "value", "unit", "origin", "meaning [source]");
  for (const auto& prm : CostModel::params()) {
    const CostProfileEntry* own = profile_entry(p, prm.name);
    if (auto g = given.find(prm.name); g != given.end())
      out += fmt::format("{:<20} {:>10} {:<9} {:<9} {} [{}]\n", prm.name, c.get(prm.name), prm.unit, "given",
                         prm.doc, g->second);
    else if (own)
      out += fmt::format("{:<20} {:>10} {:<9} {:<9} {} [{}: {}]\n", prm.name, c.get(prm.name), prm.unit, "machine",
                         prm.doc, cost_basis_name(own->basis), own->source);
    else
      out += fmt::format("{:<20} {:>10} {:<9} {:<9} {} [{}]\n", prm.name, c.get(prm.name), prm.unit, "reference",
                         prm.doc, prm.source);
  }
  return out;
}

std::vector<std::string> gen_costs_not_from_machine(const CostProfile& p, const std::string& used) {
  std::vector<std::string> out;
  if (p.gen_costs_from_machine) return out;
  std::istringstream in(used);
  for (std::string name; std::getline(in, name, ',');) {
    if (!name.empty() && !profile_entry(p, name)) out.push_back(name);
  }
  return out;
}

}  // namespace schedsim
