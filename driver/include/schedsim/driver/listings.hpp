#pragma once
/// The lists the commands print: policy modules, feature flags, kernel profiles, machine
/// presets and cost parameters (`schedsim policies`, `schedsim topology list`, and `run` options
/// given the value 'list', as ninja's -t list). Rendered here, from the registries, so every
/// command prints the same list the same way.
#include <optional>
#include <string>

#include "schedsim/driver/run_request.hpp"

namespace schedsim {
struct KernelProfile;
}

namespace schedsim::driver {

/// One line per module of `slot` ("" for every slot, grouped under "SLOT:" headings).
std::string list_modules(const std::string& slot);
/// One line per kernel profile: version, summary.
std::string list_kernels();
/// One line per sched_feat flag of every module: name, default, what it governs.
std::string list_features();
/// `policies --features [MODULE | SLOT:MODULE]`: the flags of each matching module (a bare
/// name may match modules of several slots; every module with flags when `spec` is ""). Throws
/// InputError for an unknown slot or module, with the choices.
std::string list_module_features(const std::string& spec);
/// Every profile as one markdown row: its modules per slot and its flags (docs/policies.md's
/// table is this output, checked by scripts/profile-table.sh).
std::string kernel_profile_table();
/// One profile: its modules per slot and its flags.
std::string describe_kernel_profile(const KernelProfile& p);
/// The machine presets (name, CPUs, summary, which costs are the machine's own) and what else a
/// topology may be.
std::string list_topologies();
/// What `run` prints instead of running when one of `r`'s options is 'list': the modules of
/// that slot, the presets, the kernel profiles, the feature flags, or every cost parameter a run
/// on `r`'s topology with `r`'s other --cost values would start from (value, whether it is the
/// machine's own or the default, source). nullopt when no option is 'list'.
std::optional<std::string> run_listing(const RunRequest& r);

}  // namespace schedsim::driver
