#pragma once
/// Machine cost profiles (docs/calibrate.md "Machine cost profiles"): the cost parameters of the
/// machine a topology preset names, each with its source. `run`, `calibrate` and `sweep` start
/// from the built-in defaults, apply the topology's profile, then `--cost` on top; results record
/// the profile in their provenance (`cost_profile`).
#include <map>
#include <string>
#include <vector>

#include "schedsim/engine/cost_model.hpp"

namespace schedsim {

/// How a profile value was obtained for its machine (printed by `topology list` and `run --cost
/// list -t PRESET`, so a user sees which figures belong to the machine and how firmly).
enum class CostBasis {
  kVendorTable,  ///< the vendor's per-model table the kernel uses (intel_idle, OPAL firmware)
  kDerived,      ///< a measurement of another machine converted to this one (e.g. cycles at its clock)
  kFitted,       ///< fitted by `schedsim calibrate` to this machine's published benchmark time
};
const char* cost_basis_name(CostBasis b);

struct CostProfileEntry {
  std::string param, value;  ///< a `--cost` assignment
  std::string source;        ///< where the value comes from
  CostBasis basis = CostBasis::kVendorTable;
};

/// What a profile's machine is: the reference machine itself, a real machine (whose profile
/// may still set nothing when no figure of it was found), or a synthetic preset (no real machine
/// to measure: it always uses the reference costs).
enum class ProfileKind { kReference, kRealMachine, kSynthetic };

struct CostProfile {
  std::string name;     ///< the topology preset it belongs to, or "reference"
  std::string machine;  ///< the machine in words
  std::vector<CostProfileEntry> entries;
  ProfileKind kind = ProfileKind::kRealMachine;
  /// Generator per-operation costs (gen_costs.hpp) this profile does NOT have from its machine:
  /// "all" (none measured there), or empty when the reference values are the machine's own (the
  /// reference profile) or the profile sets what it has. A generated workload that uses a cost
  /// the machine's profile lacks gets a note that its absolute times are not that machine's.
  bool gen_costs_from_machine = false;
};

/// The profile's own entry for a parameter, or nullptr when the profile leaves it at the default.
const CostProfileEntry* profile_entry(const CostProfile& p, const std::string& param);

/// Every profile, "reference" first.
const std::vector<CostProfile>& cost_profiles();
/// The profile of a topology by its name (a preset's name, "host", or an imported machine's):
/// the preset's own, else "reference" (the machine the built-in defaults were calibrated on; test
/// machines and imported topologies use it until `calibrate` gives them a cost file).
const CostProfile& cost_profile_for(const std::string& topology_name);
/// Sets every entry of `p` in `c` and records its name in c.profile.
void apply_cost_profile(CostModel& c, const CostProfile& p);
/// The profile as the results' provenance records it (`cost_profile`): the preset's name when it
/// sets costs of its own, else "reference" (the costs the run used). A key, never prose: JSON
/// consumers group and filter runs by it; why a preset runs on the reference costs is
/// cost_profile_note's.
std::string cost_profile_label(const CostProfile& p);
/// Why a run on preset `p` used the reference costs (`cost_profile_note`): "epyc-milan-2s has no
/// measured costs", "dense-2s-1024 is synthetic"; "" when cost_profile_label is the preset itself
/// or `p` is the reference.
std::string cost_profile_note(const CostProfile& p);
/// One line for `topology list`: which parameters are the machine's own (and how obtained) and
/// that the rest are the reference defaults, not measured on it.
std::string cost_profile_summary(const CostProfile& p);
/// `run --cost list`: every parameter's value under `c` (the defaults with `p` applied), whether it
/// is the machine's own or the reference default, and its source.
/// `given`: parameters the caller set (name -> where, e.g. "--cost costs.json"): their rows say
/// origin "given" and where, whatever the profile has.
std::string describe_costs(const CostModel& c, const CostProfile& p,
                           const std::map<std::string, std::string>& given = {});
/// The generator costs `used` (names, comma-separated, as a workload's meta "gen_cost_params")
/// that `p` does not have from its machine: empty when all are the machine's own.
std::vector<std::string> gen_costs_not_from_machine(const CostProfile& p, const std::string& used);

}  // namespace schedsim
