// Topology JSON, schema "schedsim-topology" version 1 (docs/topology.md).
//
// Export writes one CPU per line so a dump of a 256-CPU machine stays diffable. Import reports
// malformed JSON as path:line:col with the offending line, and every semantic problem with the
// JSON pointer of the field and what was expected.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "schedsim/base/error.hpp"
#include "schedsim/base/gzip.hpp"
#include "schedsim/base/json_keys.hpp"
#include "schedsim/topology/json_input.hpp"
#include "schedsim/topology/topology.hpp"

namespace schedsim {

namespace {

using nlohmann::json;

constexpr const char* kSchema = "schedsim-topology";
constexpr int kVersion = 1;

std::string quote(const std::string& s) { return json(s).dump(); }

[[noreturn]] void fail(const std::string& source, const std::string& pointer, const std::string& msg) {
  throw InputError(SourceLoc{source}, pointer.empty() ? msg : pointer + ": " + msg);
}

std::string describe_value(const json& v) { return fmt::format("{} {}", v.type_name(), describe_json_value(v)); }

void check_keys(const json& obj, const std::vector<std::string>& allowed, const std::string& pointer,
                const std::string& source) {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string where = pointer + "/" + key;
    fail(source, where, unknown_choice_message("key", key, allowed));
  }
}

uint32_t get_uint(const json& obj, const std::string& key, const std::string& pointer,
                  const std::string& source, uint32_t max = 0xffffffffu) {
  std::string where = pointer + "/" + key;
  auto it = obj.find(key);
  if (it == obj.end()) fail(source, pointer, fmt::format("missing required key \"{}\"", key));
  // nlohmann stores non-negative integers as unsigned; negatives, floats and strings are not.
  if (!it->is_number_unsigned())
    fail(source, where, "expected a non-negative integer, got " + describe_value(*it));
  uint64_t v = it->get<uint64_t>();
  if (v > max) fail(source, where, fmt::format("{} is too large (at most {})", v, max));
  return static_cast<uint32_t>(v);
}

CpuSpec parse_cpu(const json& j, const std::string& pointer, const std::string& source) {
  if (!j.is_object()) fail(source, pointer, "expected an object describing one CPU, got " + describe_value(j));
  check_keys(j, {"cpu", "core", "package", "llc", "node", "cluster", "capacity"}, pointer, source);
  CpuSpec c;
  c.cpu = get_uint(j, "cpu", pointer, source);
  c.core = get_uint(j, "core", pointer, source);
  c.package = get_uint(j, "package", pointer, source);
  c.llc = get_uint(j, "llc", pointer, source);
  c.node = get_uint(j, "node", pointer, source);
  if (j.contains("cluster")) c.cluster = static_cast<int32_t>(get_uint(j, "cluster", pointer, source, 0x7fffffff));
  if (j.contains("capacity")) c.capacity = get_uint(j, "capacity", pointer, source);
  return c;
}

// nlohmann reports a byte offset; turn it into line/column and the text of that line.
SourceLoc locate(const std::string& text, size_t byte, const std::string& source, std::string& line_text) {
  if (byte > text.size()) byte = text.size();
  long line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < byte && i < text.size(); ++i)
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  // nlohmann's offset points one past the last character read: the end of the offending token.
  // For a string token, point at its opening quote instead, where a reader looks for it.
  size_t at = byte > line_start ? byte - 1 : line_start;
  if (at < text.size() && text[at] == '"' && at > line_start) {
    size_t open = text.rfind('"', at - 1);
    if (open != std::string::npos && open >= line_start) at = open;
  }
  size_t line_end = text.find('\n', line_start);
  line_text = text.substr(line_start, line_end == std::string::npos ? std::string::npos : line_end - line_start);
  return SourceLoc{source, line, static_cast<long>(at - line_start) + 1};
}

// "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error while parsing
// object - unexpected '}'; expected string literal" -> "syntax error while parsing ...".
std::string parse_error_text(const std::string& what) {
  std::string s = what;
  if (auto p = s.find("] "); p != std::string::npos && s.rfind("[json.exception", 0) == 0) s = s.substr(p + 2);
  if (s.rfind("parse error", 0) == 0)
    if (auto p = s.find(": "); p != std::string::npos) s = s.substr(p + 2);
  return s;
}

}  // namespace

std::string describe_json_value(const json& v) {
  std::string text = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

std::string read_input_file(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(SourceLoc{path}, "is a directory, expected a " + what);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLoc{path}, fmt::format("cannot open {}: {}", what, std::strerror(errno)));
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxInputFileBytes)
      throw InputError(SourceLoc{path}, fmt::format("larger than {} MiB: not a {}", kMaxInputFileBytes >> 20, what));
  }
  if (in.bad()) throw InputError(SourceLoc{path}, "cannot read " + what);
  text = gunzip_if_gzip(std::move(text), path, kMaxInputFileBytes);  // a "*.gz" schedsim wrote
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError(SourceLoc{path}, "empty file, expected a " + what);
  return text;
}

json parse_json_input(const std::string& text, const std::string& source) {
  // The parser callback sees each value's depth before it is added to the DOM.
  JsonKeyTracker<json> keys;
  auto bound = [&keys](int depth, json::parse_event_t ev, json& parsed) {
    if (depth > kMaxJsonDepth &&
        (ev == json::parse_event_t::object_start || ev == json::parse_event_t::array_start))
      throw std::length_error("too deep");
    if (std::string dup = keys.on_event(ev, parsed); !dup.empty()) throw JsonDuplicateKey{dup, keys.key()};
    return true;
  };
  try {
    return json::parse(text, bound);
  } catch (const JsonDuplicateKey& d) {
    throw InputError(SourceLoc{source}, d.message());
  } catch (const json::parse_error& e) {
    std::string line_text;
    SourceLoc loc = locate(text, e.byte, source, line_text);
    throw InputError(loc, "malformed JSON: " + parse_error_text(e.what()), line_text);
  } catch (const json::out_of_range& e) {  // a number beyond double's range (error 406)
    throw InputError(SourceLoc{source}, "malformed JSON: " + parse_error_text(e.what()));
  } catch (const std::length_error&) {
    // Find where: the first bracket at depth kMaxJsonDepth + 1 (strings skipped).
    int depth = 0;
    bool in_str = false;
    size_t at = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      if (in_str) {
        if (c == '\\') ++i;
        else if (c == '"') in_str = false;
      } else if (c == '"') {
        in_str = true;
      } else if (c == '[' || c == '{') {
        if (++depth > kMaxJsonDepth) {
          at = i + 1;
          break;
        }
      } else if (c == ']' || c == '}') {
        --depth;
      }
    }
    std::string line_text;
    SourceLoc loc = locate(text, at, source, line_text);
    throw InputError(loc, fmt::format("JSON nested deeper than {} levels", kMaxJsonDepth), line_text);
  }
}

std::string topology_to_json(const MachineSpec& input) {
  MachineSpec spec = input;
  std::sort(spec.cpus.begin(), spec.cpus.end(), [](const CpuSpec& a, const CpuSpec& b) { return a.cpu < b.cpu; });
  std::string out = "{\n";
  out += fmt::format("  \"schema\": \"{}\",\n  \"version\": {},\n", kSchema, kVersion);
  out += fmt::format("  \"name\": {},\n  \"description\": {},\n", quote(spec.name), quote(spec.description));
  out += "  \"cpus\": [\n";
  for (size_t i = 0; i < spec.cpus.size(); ++i) {
    const CpuSpec& c = spec.cpus[i];
    out += fmt::format("    {{\"cpu\": {}, \"core\": {}, \"package\": {}, \"llc\": {}, ", c.cpu, c.core, c.package, c.llc);
    if (c.cluster >= 0) out += fmt::format("\"cluster\": {}, ", c.cluster);
    out += fmt::format("\"node\": {}, \"capacity\": {}}}{}\n", c.node, c.capacity, i + 1 < spec.cpus.size() ? "," : "");
  }
  out += "  ]";
  if (!spec.distance.empty()) {
    out += ",\n  \"node_distance\": [\n";
    for (size_t r = 0; r < spec.distance.size(); ++r) {
      std::vector<std::string> cells;
      for (uint32_t v : spec.distance[r]) cells.push_back(std::to_string(v));
      out += "    [" + join(cells, ", ") + "]" + (r + 1 < spec.distance.size() ? "," : "") + "\n";
    }
    out += "  ]";
  }
  out += "\n}\n";
  return out;
}

MachineSpec topology_from_json(const std::string& text, const std::string& source) {
  json root = parse_json_input(text, source);
  try {
    if (!root.is_object()) fail(source, "", "expected a JSON object at the top level, got " + describe_value(root));
    check_keys(root, {"schema", "version", "name", "description", "cpus", "node_distance"}, "", source);
    auto schema = root.find("schema");
    if (schema == root.end() || !schema->is_string() || schema->get<std::string>() != kSchema)
      fail(source, "/schema", fmt::format("expected \"{}\" (is this a schedsim topology file?)", kSchema));
    uint32_t version = get_uint(root, "version", "", source);
    if (version != kVersion)
      fail(source, "/version", fmt::format("unsupported version {}; this schedsim reads version {}", version, kVersion));
    MachineSpec spec;
    for (const char* key : {"name", "description"}) {
      auto it = root.find(key);
      if (it == root.end()) continue;
      if (!it->is_string()) fail(source, std::string("/") + key, "expected a string, got " + describe_value(*it));
      (std::string(key) == "name" ? spec.name : spec.description) = it->get<std::string>();
    }
    auto cpus = root.find("cpus");
    if (cpus == root.end()) fail(source, "", "missing required key \"cpus\"");
    if (!cpus->is_array()) fail(source, "/cpus", "expected an array of CPU objects, got " + describe_value(*cpus));
    if (cpus->size() > CpuMask::kMaxCpus)
      fail(source, "/cpus", fmt::format("{} CPUs exceed the supported maximum of {} (CpuMask::kMaxCpus)",
                                        cpus->size(), CpuMask::kMaxCpus));
    for (size_t i = 0; i < cpus->size(); ++i) spec.cpus.push_back(parse_cpu((*cpus)[i], fmt::format("/cpus/{}", i), source));
    if (auto d = root.find("node_distance"); d != root.end()) {
      if (!d->is_array()) fail(source, "/node_distance", "expected an array of rows, got " + describe_value(*d));
      for (size_t r = 0; r < d->size(); ++r) {
        const json& row = (*d)[r];
        std::string where = fmt::format("/node_distance/{}", r);
        if (!row.is_array()) fail(source, where, "expected an array of distances, got " + describe_value(row));
        std::vector<uint32_t> cells;
        for (size_t k = 0; k < row.size(); ++k) {
          const json& v = row[k];
          if (!v.is_number_unsigned())
            fail(source, fmt::format("{}/{}", where, k), "expected a distance (integer 10..255), got " + describe_value(v));
          uint64_t x = v.get<uint64_t>();
          if (x > 255) fail(source, fmt::format("{}/{}", where, k), fmt::format("distance {} exceeds 255 (the SLIT maximum)", x));
          cells.push_back(static_cast<uint32_t>(x));
        }
        spec.distance.push_back(std::move(cells));
      }
    }
    return spec;
  } catch (const json::exception& e) {
    // Not expected (every access above is checked), but never let a library exception escape
    // as an internal error: JSON_DIAGNOSTICS puts the JSON pointer in e.what().
    throw InputError(SourceLoc{source}, std::string("invalid topology JSON: ") + e.what());
  }
}

}  // namespace schedsim
