// Topology JSON (docs/topology.md): every preset round-trips unchanged; every error names the
// file and the line (syntax) or the JSON pointer (content).
#include <catch2/catch.hpp>

#include "schedsim/base/error.hpp"
#include "schedsim/topology/topology.hpp"

using namespace schedsim;

namespace {

bool same_spec(const MachineSpec& a, const MachineSpec& b) {
  if (a.name != b.name || a.description != b.description || a.distance != b.distance) return false;
  if (a.cpus.size() != b.cpus.size()) return false;
  for (size_t i = 0; i < a.cpus.size(); ++i) {
    const CpuSpec &x = a.cpus[i], &y = b.cpus[i];
    if (x.cpu != y.cpu || x.core != y.core || x.package != y.package || x.cluster != y.cluster || x.llc != y.llc ||
        x.node != y.node || x.capacity != y.capacity)
      return false;
  }
  return true;
}

std::string json_error(const std::string& text) {
  try {
    Topology::build(topology_from_json(text, "t.json"), "t.json");
  } catch (const InputError& e) {
    return e.render();
  }
  return "(no error)";
}

const char* kHead = R"({"schema": "schedsim-topology", "version": 1, )";

}  // namespace

TEST_CASE("every preset round-trips through JSON unchanged", "[topology][json]") {
  for (const auto& p : preset_list()) {
    INFO(p.name);
    MachineSpec spec = preset_spec(p.name);
    std::string text = topology_to_json(spec);
    MachineSpec back = topology_from_json(text, p.name + ".json");
    CHECK(same_spec(spec, back));
    CHECK(topology_to_json(back) == text);
    // The rebuilt topology is the same machine.
    Topology a = Topology::build(spec), b = Topology::build(back);
    CHECK(describe_topology(a) == describe_topology(b));
  }
}

TEST_CASE("JSON export shape", "[topology][json]") {
  MachineSpec s;
  s.name = "tiny \"q\"";
  s.cpus = {CpuSpec{0, 0, 0, 3, 0, 0, 512}, CpuSpec{1, 0, 0, 3, 0, 0, 512}};
  CHECK(topology_to_json(s) ==
        "{\n"
        "  \"schema\": \"schedsim-topology\",\n"
        "  \"version\": 1,\n"
        "  \"name\": \"tiny \\\"q\\\"\",\n"
        "  \"description\": \"\",\n"
        "  \"cpus\": [\n"
        "    {\"cpu\": 0, \"core\": 0, \"package\": 0, \"llc\": 0, \"cluster\": 3, \"node\": 0, \"capacity\": 512},\n"
        "    {\"cpu\": 1, \"core\": 0, \"package\": 0, \"llc\": 0, \"cluster\": 3, \"node\": 0, \"capacity\": 512}\n"
        "  ]\n"
        "}\n");
  MachineSpec back = topology_from_json(topology_to_json(s), "x");
  CHECK(same_spec(s, back));
  CHECK(back.distance.empty());
}

TEST_CASE("optional fields take their defaults", "[topology][json]") {
  MachineSpec s = topology_from_json(
      std::string(kHead) + R"("cpus": [{"cpu": 0, "core": 0, "package": 0, "llc": 0, "node": 0}]})", "t.json");
  REQUIRE(s.cpus.size() == 1);
  CHECK(s.cpus[0].capacity == 1024);
  CHECK(s.cpus[0].cluster == -1);
  CHECK(s.name.empty());
}

TEST_CASE("JSON errors", "[topology][json][errors]") {
  CHECK(json_error("{\n  \"schema\": \"schedsim-topology\",\n  \"version\": 1\n  \"cpus\": []\n}\n") ==
        "t.json:4:3: error: malformed JSON: syntax error while parsing object - unexpected string literal; "
        "expected '}'\n"
        "  \"cpus\": []\n"
        "  ^");
  CHECK(json_error("") ==
        "t.json:1:1: error: malformed JSON: syntax error while parsing value - unexpected end of input; expected "
        "'[', '{', or a literal");
  CHECK(json_error("[1]") == "t.json: error: expected a JSON object at the top level, got array [1]");
  CHECK(json_error(R"({"version": 1, "cpus": []})") ==
        "t.json: error: /schema: expected \"schedsim-topology\" (is this a schedsim topology file?)");
  CHECK(json_error(R"({"schema": "schedsim-topology", "version": 2, "cpus": []})") ==
        "t.json: error: /version: unsupported version 2; this schedsim reads version 1");
  CHECK(json_error(std::string(kHead) + R"("cpu": []})") ==
        "t.json: error: /cpu: unknown key 'cpu'; did you mean 'cpus'? valid: schema, version, name, description, "
        "cpus, node_distance");
  CHECK(json_error(std::string(kHead) + R"("cpus": [{"cpu": 0, "core": "a", "package": 0, "llc": 0, "node": 0}]})") ==
        "t.json: error: /cpus/0/core: expected a non-negative integer, got string \"a\"");
  CHECK(json_error(std::string(kHead) + R"("cpus": [{"cpu": 0, "core": -1, "package": 0, "llc": 0, "node": 0}]})") ==
        "t.json: error: /cpus/0/core: expected a non-negative integer, got number -1");
  CHECK(json_error(std::string(kHead) + R"("cpus": [{"cpu": 0, "package": 0, "llc": 0, "node": 0}]})") ==
        "t.json: error: /cpus/0: missing required key \"core\"");
  CHECK(json_error(std::string(kHead) + R"("cpus": [{"cpu": 0, "core": 0, "package": 0, "llc": 0, "node": 0, "smt": 1}]})") ==
        "t.json: error: /cpus/0/smt: unknown key 'smt'; valid: cpu, core, package, llc, node, cluster, capacity");
  CHECK(json_error(std::string(kHead) +
                   R"("cpus": [{"cpu": 0, "core": 0, "package": 0, "llc": 0, "node": 0}], "node_distance": [[10.5]]})") ==
        "t.json: error: /node_distance/0/0: expected a distance (integer 10..255), got number 10.5");
  // Content errors from Topology::build keep the file name and the pointer.
  CHECK(json_error(std::string(kHead) +
                   R"("cpus": [{"cpu": 0, "core": 0, "package": 0, "llc": 0, "node": 0},
                               {"cpu": 1, "core": 1, "package": 1, "llc": 1, "node": 1}],
                      "node_distance": [[10, 20], [30, 10]]})") ==
        "t.json: error: /node_distance/0/1: distance matrix is not symmetric: node 0 to 1 is 20 but node 1 to 0 is "
        "30");
}
