// Machine cost profiles: a preset's profile is applied under --cost, generators take their
// per-operation costs from it, and a run says when a generated workload's costs are not the
// machine's own.
#include <catch2/catch.hpp>

#include "run_request.hpp"
#include "schedsim/engine/cost_profile.hpp"
#include "schedsim/topology/topology.hpp"
#include "schedsim/workload/generators.hpp"

using namespace schedsim;

TEST_CASE("a preset's cost profile is applied under --cost", "[cli][cost_profile]") {
  Topology xeon = load_topology("xeon-e5-2690v2");
  RunConfig config;
  CostModel c = cli::build_cost_model({}, xeon, &config);
  CHECK(config.provenance.cost_profile == "xeon-e5-2690v2");
  CHECK(c.get("ipi_same_package") == "533");
  CHECK(c.get("idle_exit") == "1000");
  CHECK(c.get("msg_write_pipe_thread") == "2591");
  CHECK(c.get("msg_write_socket_process") == "1172");  // not in the profile: the reference value
  // --cost wins over the profile.
  CostModel u = cli::build_cost_model({"ipi_same_package=900ns", "msg_write_pipe_thread=1us"}, xeon, nullptr);
  CHECK(u.get("ipi_same_package") == "900");
  CHECK(u.get("msg_write_pipe_thread") == "1000");
  // Machines without a profile of their own use the reference (the built-in defaults).
  CostModel s = cli::build_cost_model({}, load_topology("smp2"), &config);
  CHECK(config.provenance.cost_profile == "reference");
  CHECK(s.get("ipi_same_package") == CostModel{}.get("ipi_same_package"));
  CHECK(cost_profile_for("no-such-machine").name == "reference");
}

TEST_CASE("generators take their per-operation costs from the machine", "[cli][cost_profile]") {
  CostModel c = cli::build_cost_model({}, load_topology("xeon-e5-2690v2"), nullptr);
  const std::string spec = "messaging --pipe --thread --group 1 --nr_loops 2";
  Workload ref = generate_workload_from_spec(spec);
  Workload xeon = generate_workload_from_spec(spec, c.gen_ops);
  CHECK(ref.meta.at("gen_cost_params") == "msg_write_pipe_thread,msg_read_pipe_thread");
  CHECK(xeon.total_work() > ref.total_work());
  // --cost-write given on the generator's command line is used and not recorded as a machine cost.
  Workload own = generate_workload_from_spec(spec + " --cost-write 1us --cost-read 1us", c.gen_ops);
  CHECK(own.meta.count("gen_cost_params") == 0);
}

TEST_CASE("a run notes generator costs that are not the machine's", "[cli][cost_profile]") {
  CostModel xeon = cli::build_cost_model({}, load_topology("xeon-e5-2690v2"), nullptr);
  // Generated here: pipe+thread has the machine's costs, sockets+processes do not.
  Workload pt = generate_workload_from_spec("messaging --pipe --thread --group 1 --nr_loops 2", xeon.gen_ops);
  CHECK(cli::gen_cost_notes(pt, xeon, "xeon-e5-2690v2", true).empty());
  Workload sp = generate_workload_from_spec("messaging --group 1 --nr_loops 2", xeon.gen_ops);
  auto notes = cli::gen_cost_notes(sp, xeon, "xeon-e5-2690v2", true);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("msg_write_socket_process, msg_read_socket_process") != std::string::npos);
  // ... unless the user gave them.
  CostModel given = cli::build_cost_model({"msg_write_socket_process=3us", "msg_read_socket_process=3us"},
                                          load_topology("xeon-e5-2690v2"), nullptr);
  CHECK(cli::gen_cost_notes(sp, given, "xeon-e5-2690v2", true).empty());
  // A workload file made with the reference costs, run on a machine whose profile has its own.
  Workload file = generate_workload_from_spec("messaging --pipe --thread --group 1 --nr_loops 2");
  auto fnotes = cli::gen_cost_notes(file, xeon, "xeon-e5-2690v2", false);
  REQUIRE(fnotes.size() == 1);
  CHECK(fnotes[0].find("run --workload-gen") != std::string::npos);
  CostModel smp2 = cli::build_cost_model({}, load_topology("smp2"), nullptr);
  CHECK(cli::gen_cost_notes(file, smp2, "smp2", false).empty());
  CHECK(cli::gen_cost_notes(sp, smp2, "smp2", true).empty());
}

TEST_CASE("a replayed trace is not charged switch and refill costs again", "[cli][cost_profile]") {
  CostModel c;
  CostModel trace = c.for_input(true), gen = c.for_input(false);
  CHECK(trace.context_switch == Duration::zero());
  CHECK(trace.refill_llc == Duration::zero());
  CHECK(trace.ipi_same_package == c.ipi_same_package);
  CHECK(gen.context_switch == c.context_switch);
  c.set("replay_overheads=charged");
  CHECK(c.for_input(true).context_switch == c.context_switch);
  CHECK_THROWS_AS(c.set("replay_overheads=twice"), InputError);
}
