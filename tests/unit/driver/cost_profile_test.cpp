// Machine cost profiles: a preset's profile is applied under --cost, generators take their
// per-operation costs from it, and a run says when a generated workload's costs are not the
// machine's own.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "schedsim/driver/run.hpp"
#include "schedsim/engine/cost_profile.hpp"
#include "schedsim/topology/topology.hpp"
#include "schedsim/workload/generators.hpp"

using namespace schedsim;

TEST_CASE("a preset's cost profile is applied under --cost", "[cli][cost_profile]") {
  Topology xeon = load_topology("xeon-e5-2690v2");
  RunConfig config;
  CostModel c = driver::build_cost_model({}, xeon, &config);
  CHECK(config.provenance.cost_profile == "xeon-e5-2690v2");
  CHECK(c.get("ipi_same_package") == "533");
  CHECK(c.get("idle_exit") == "1000");
  CHECK(c.get("msg_write_pipe_thread") == "2591");
  CHECK(c.get("msg_write_socket_process") == "1172");  // not in the profile: the reference value
  // --cost wins over the profile.
  CostModel u = driver::build_cost_model({"ipi_same_package=900ns", "msg_write_pipe_thread=1us"}, xeon, nullptr);
  CHECK(u.get("ipi_same_package") == "900");
  CHECK(u.get("msg_write_pipe_thread") == "1000");
  // Machines without a profile of their own use the reference (the built-in defaults).
  CostModel s = driver::build_cost_model({}, load_topology("smp2"), &config);
  CHECK(config.provenance.cost_profile == "reference");
  CHECK(s.get("ipi_same_package") == CostModel{}.get("ipi_same_package"));
  CHECK(cost_profile_for("no-such-machine").name == "reference");
}

TEST_CASE("generators take their per-operation costs from the machine", "[cli][cost_profile]") {
  CostModel c = driver::build_cost_model({}, load_topology("xeon-e5-2690v2"), nullptr);
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
  CostModel xeon = driver::build_cost_model({}, load_topology("xeon-e5-2690v2"), nullptr);
  // Generated here: pipe+thread has the machine's costs, sockets+processes do not.
  Workload pt = generate_workload_from_spec("messaging --pipe --thread --group 1 --nr_loops 2", xeon.gen_ops);
  CHECK(driver::gen_cost_notes(pt, xeon, "xeon-e5-2690v2", true).empty());
  Workload sp = generate_workload_from_spec("messaging --group 1 --nr_loops 2", xeon.gen_ops);
  auto notes = driver::gen_cost_notes(sp, xeon, "xeon-e5-2690v2", true);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("msg_write_socket_process, msg_read_socket_process") != std::string::npos);
  // ... unless the user gave them.
  CostModel given = driver::build_cost_model({"msg_write_socket_process=3us", "msg_read_socket_process=3us"},
                                          load_topology("xeon-e5-2690v2"), nullptr);
  CHECK(driver::gen_cost_notes(sp, given, "xeon-e5-2690v2", true).empty());
  // A workload file made with the reference costs, run on a machine whose profile has its own.
  Workload file = generate_workload_from_spec("messaging --pipe --thread --group 1 --nr_loops 2");
  auto fnotes = driver::gen_cost_notes(file, xeon, "xeon-e5-2690v2", false);
  REQUIRE(fnotes.size() == 1);
  CHECK(fnotes[0].find("run --workload-gen") != std::string::npos);
  CostModel smp2 = driver::build_cost_model({}, load_topology("smp2"), nullptr);
  CHECK(driver::gen_cost_notes(file, smp2, "smp2", false).empty());
  CHECK(driver::gen_cost_notes(sp, smp2, "smp2", true).empty());
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

// Each preset's profile: the values docs/calibrate.md "Machine cost profiles" documents, with
// their sources and how they were obtained; every other parameter is the reference default.
TEST_CASE("every preset's cost profile has its documented values and sources", "[cli][cost_profile]") {
  struct Expect {
    std::string param, value, source_has;
    CostBasis basis;
  };
  const std::map<std::string, std::vector<Expect>> documented = {
      {"xeon-e5-2690v2",
       {{"ipi_same_package", "533", "Pallipadi", CostBasis::kDerived},
        {"ipi_cross_package", "667", "Pallipadi", CostBasis::kDerived},
        {"idle_exit", "1000", "intel_idle.c ivt_cstates", CostBasis::kVendorTable},
        {"msg_write_pipe_thread", "2591", "765cc3a4b224", CostBasis::kFitted},
        {"msg_read_pipe_thread", "2383", "765cc3a4b224", CostBasis::kFitted}}},
      {"xeon-gold-6248",
       {{"ipi_same_package", "640", "Pallipadi", CostBasis::kDerived},
        {"ipi_cross_package", "800", "Pallipadi", CostBasis::kDerived},
        {"idle_exit", "2000", "intel_idle.c skx_cstates", CostBasis::kVendorTable}}},
      {"power9-smt4", {{"idle_exit", "1000", "skiboot) hw/slw.c power9_cpu_idle_states", CostBasis::kVendorTable}}},
      {"epyc-milan-2s", {}},
      {"dense-2s-1024", {}},
      {"big-little", {}},
      {"smp2", {}},
      {"smt2x2", {}},
      {"llc2-smt2", {}},
      {"numa2-smt2", {}},
  };
  // Every preset is covered here.
  for (const auto& p : preset_list()) CHECK(documented.count(p.name) == 1);
  const CostModel ref;
  for (const auto& [preset, expect] : documented) {
    INFO(preset);
    const CostProfile& prof = cost_profile_for(preset);
    REQUIRE(prof.entries.size() == expect.size());
    CostModel c = driver::build_cost_model({}, load_topology(preset), nullptr);
    for (size_t i = 0; i < expect.size(); ++i) {
      INFO(expect[i].param);
      CHECK(prof.entries[i].param == expect[i].param);
      CHECK(c.get(expect[i].param) == expect[i].value);
      CHECK(prof.entries[i].source.find(expect[i].source_has) != std::string::npos);
      CHECK(prof.entries[i].basis == expect[i].basis);
    }
    // Everything the profile does not set is the reference default.
    for (const auto& prm : CostModel::params()) {
      bool own = false;
      for (const auto& e : expect) own = own || e.param == prm.name;
      if (!own) CHECK(c.get(prm.name) == ref.get(prm.name));
    }
  }
  CHECK(cost_profile_for("dense-2s-1024").kind == ProfileKind::kSynthetic);
  CHECK(cost_profile_for("big-little").kind == ProfileKind::kSynthetic);
  CHECK(cost_profile_for("epyc-milan-2s").kind == ProfileKind::kRealMachine);
  CHECK(cost_profile_for("smp2").kind == ProfileKind::kReference);
}

TEST_CASE("results and listings say which costs are the machine's own", "[cli][cost_profile]") {
  // Provenance: a preset without costs of its own records that it ran on the reference costs:
  // cost_profile is the key ("reference", what JSON consumers group by), the why is in
  // cost_profile_note, and the table shows both in one row as before.
  RunConfig config;
  (void)driver::build_cost_model({}, load_topology("epyc-milan-2s"), &config);
  CHECK(config.provenance.cost_profile == "reference");
  CHECK(config.provenance.cost_profile_note == "epyc-milan-2s has no measured costs");
  CHECK(config.provenance.cost_profile_text() == "reference (epyc-milan-2s has no measured costs)");
  (void)driver::build_cost_model({}, load_topology("dense-2s-1024"), &config);
  CHECK(config.provenance.cost_profile == "reference");
  CHECK(config.provenance.cost_profile_note == "dense-2s-1024 is synthetic");
  (void)driver::build_cost_model({}, load_topology("power9-smt4"), &config);
  CHECK(config.provenance.cost_profile == "power9-smt4");
  CHECK(config.provenance.cost_profile_note.empty());
  (void)driver::build_cost_model({}, load_topology("numa2-smt2"), &config);
  CHECK(config.provenance.cost_profile == "reference");
  CHECK(config.provenance.cost_profile_note.empty());
  // Every profile's provenance value is a key of cost_profiles() (a fixed vocabulary), never prose.
  for (const auto& p : cost_profiles()) {
    const std::string key = cost_profile_label(p);
    CHECK(std::any_of(cost_profiles().begin(), cost_profiles().end(),
                      [&](const CostProfile& q) { return q.name == key; }));
  }
  // topology list's line: own parameters with how they were obtained, the rest reference.
  CHECK(cost_profile_summary(cost_profile_for("xeon-e5-2690v2")) ==
        "costs: own ipi_same_package, ipi_cross_package (derived), idle_exit (vendor table), msg_write_pipe_thread, "
        "msg_read_pipe_thread (fitted); the rest are the reference defaults, not measured on this machine");
  CHECK(cost_profile_summary(cost_profile_for("epyc-milan-2s")).find("none measured on this machine") !=
        std::string::npos);
  CHECK(cost_profile_summary(cost_profile_for("big-little")).find("synthetic") != std::string::npos);
  // run --cost list: each row says machine or reference.
  const CostProfile& p9 = cost_profile_for("power9-smt4");
  const std::string list = describe_costs(driver::build_cost_model({}, load_topology("power9-smt4"), nullptr), p9);
  CHECK(list.find("idle_exit                  1000 ns        machine") != std::string::npos);
  CHECK(list.find("ipi_same_package            600 ns        reference") != std::string::npos);
}
