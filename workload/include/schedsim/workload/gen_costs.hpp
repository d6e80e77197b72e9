#pragma once
/// Per-operation CPU costs of the workload generators (docs/generators.md, docs/calibrate.md
/// "Machine cost profiles"). They are properties of the machine the benchmark runs on, not of the
/// benchmark: `run --workload-gen` takes them from the topology's cost profile (and `--cost`), so
/// one command line generates the machine's own per-message costs. The values here are the
/// reference: calibrated on the project's 2-vCPU KVM guest (Linux 6.18) with
/// scripts/calibrate-messaging.sh, which is also the profile of `smp2` and `host`.
#include <cstdint>
#include <map>
#include <string>

#include "schedsim/base/time.hpp"

namespace schedsim {

struct GenCostParam {
  const char* name;      ///< cost-model parameter name (`--cost NAME=VALUE`)
  int64_t reference_ns;  ///< value on the reference machine
  const char* doc;
};

/// Every generator per-operation cost, in a fixed order.
inline constexpr GenCostParam kGenCostParams[] = {
    {"msg_write_pipe_thread", 598, "messaging --pipe --thread: CPU per write() of a message, wakeup path included"},
    {"msg_read_pipe_thread", 550, "messaging --pipe --thread: CPU per read() of a message"},
    {"msg_write_pipe_process", 370, "messaging --pipe (processes): CPU per write()"},
    {"msg_read_pipe_process", 397, "messaging --pipe (processes): CPU per read()"},
    {"msg_write_socket_thread", 1134, "messaging --thread (AF_UNIX stream sockets): CPU per write()"},
    {"msg_read_socket_thread", 1180, "messaging --thread (sockets): CPU per read()"},
    {"msg_write_socket_process", 1172, "messaging (sockets, processes): CPU per write()"},
    {"msg_read_socket_process", 1245, "messaging (sockets, processes): CPU per read()"},
    {"pipe_op", 2000, "pipe (perf bench sched pipe): CPU per half round trip, one read() plus one write()"},
    {"rr_op", 7800, "rr (netperf TCP_RR, tbench): CPU per half transaction, one recv() plus one send() over loopback TCP"},
};

/// Values that differ from the reference, by parameter name: what a machine cost profile or
/// `--cost` set. A generator looks its per-operation costs up here (gen_cost) and records the
/// names it used in the workload's meta "gen_cost_params".
using GenCosts = std::map<std::string, Duration>;

/// The value of `name` in `costs`, else its reference value. `name` must be in kGenCostParams.
Duration gen_cost(const GenCosts& costs, const std::string& name);

}  // namespace schedsim
