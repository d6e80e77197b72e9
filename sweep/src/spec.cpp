// Sweep specs: command-line and JSON forms, canonical JSON and hash, expansion into points.
#include "schedsim/sweep/spec.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
#include "schedsim/base/gzip.hpp"
#include "schedsim/base/json_keys.hpp"
#include "schedsim/base/random.hpp"
#include "schedsim/base/run_control.hpp"

namespace schedsim::sweep {

namespace {

using ojson = nlohmann::ordered_json;

std::vector<std::string> split_values(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

/// "KEY=V1,V2" -> key and values; `option` names the flag in errors.
std::pair<std::string, std::vector<std::string>> parse_assignment(const std::string& text, const std::string& option) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(SourceLoc{option}, "expected KEY=VALUE[,VALUE...], got '" + text + "'");
  std::string key = text.substr(0, eq);
  std::vector<std::string> values = split_values(text.substr(eq + 1));
  for (const auto& v : values)
    if (v.empty()) throw InputError(SourceLoc{option}, "empty value in '" + text + "'");
  return {key, values};
}

[[noreturn]] void fail_at(const std::string& source, const std::string& path, const std::string& msg) {
  throw InputError(SourceLoc{source}, "sweep spec " + (path.empty() ? std::string("/") : path) + ": " + msg);
}

std::string type_name(const ojson& j) {
  switch (j.type()) {
    case ojson::value_t::null: return "null";
    case ojson::value_t::object: return "object";
    case ojson::value_t::array: return "array";
    case ojson::value_t::string: return "string";
    case ojson::value_t::boolean: return "boolean";
    case ojson::value_t::number_float: return "number";
    default: return "integer";
  }
}

/// JSON pointer escaping of one reference token (RFC 6901).
std::string ptr_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string scalar_text(const ojson& j, const std::string& source, const std::string& path) {
  if (j.is_string()) {
    if (j.get<std::string>().empty()) fail_at(source, path, "empty string");
    return j.get<std::string>();
  }
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  if (j.is_number_integer() || j.is_number_unsigned()) return j.dump();
  if (j.is_number_float()) return j.dump();
  fail_at(source, path, "expected a string, number or boolean, got " + type_name(j));
}

std::vector<std::string> value_list(const ojson& j, const std::string& source, const std::string& path) {
  std::vector<std::string> out;
  if (!j.is_array()) {
    out.push_back(scalar_text(j, source, path));
    return out;
  }
  if (j.empty()) fail_at(source, path, "empty list of values");
  for (size_t i = 0; i < j.size(); ++i) out.push_back(scalar_text(j[i], source, path + "/" + std::to_string(i)));
  return out;
}

uint64_t json_uint(const ojson& j, const std::string& source, const std::string& path, uint64_t lo, uint64_t hi) {
  // is_number_integer() is also true of an unsigned number, whose get<int64_t>() wraps past
  // 2^63-1: a seed of 2^64-1 was refused as "got integer".
  if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<int64_t>() >= 0))
    fail_at(source, path, "expected a non-negative integer, got " + (j.is_number() ? j.dump() : type_name(j)));
  uint64_t v = j.get<uint64_t>();
  if (v < lo || v > hi) fail_at(source, path, fmt::format("{} is out of range; allowed {}..{}", v, lo, hi));
  return v;
}

bool has_key(const Spec& s, const std::string& key) {
  auto ks = s.keys();
  return std::find(ks.begin(), ks.end(), key) != ks.end();
}

void remove_key(Spec& s, const std::string& key) {
  s.fixed.erase(std::remove_if(s.fixed.begin(), s.fixed.end(), [&](const auto& kv) { return kv.first == key; }),
                s.fixed.end());
  for (auto& a : s.axes)
    for (size_t k = 0; k < a.keys.size(); ++k)
      if (a.keys[k] == key) {
        a.keys.erase(a.keys.begin() + static_cast<std::ptrdiff_t>(k));
        a.values.erase(a.values.begin() + static_cast<std::ptrdiff_t>(k));
        break;
      }
  s.axes.erase(std::remove_if(s.axes.begin(), s.axes.end(), [](const Axis& a) { return a.keys.empty(); }), s.axes.end());
  s.origins.erase(std::remove_if(s.origins.begin(), s.origins.end(), [&](const auto& kv) { return kv.first == key; }),
                  s.origins.end());
}

}  // namespace

// The project's one splitmix64 and seed derivation (base/random.hpp), so a sweep repetition's seed
// is the one `run --seed S --repeat N` gives repetition r.
uint64_t mix64(uint64_t x) { return schedsim::splitmix64(x); }

uint64_t derive_seed(uint64_t seed, uint64_t index) { return schedsim::derive_seed(seed, index); }

uint64_t fnv1a64(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : text) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::vector<std::string> Spec::keys() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : fixed) out.push_back(k);
  for (const auto& a : axes) out.insert(out.end(), a.keys.begin(), a.keys.end());
  return out;
}

std::string Spec::origin(const std::string& key) const {
  for (const auto& [k, o] : origins)
    if (k == key) return o;
  return "";
}

size_t Spec::nr_points() const {
  size_t n = 1;
  for (const auto& a : axes) {
    if (a.size() != 0 && n > SIZE_MAX / a.size()) return SIZE_MAX;
    n *= a.size();
  }
  return n;
}

ojson Spec::to_json() const {
  ojson j;
  j["schedsim_sweep"] = 1;
  ojson params = ojson::object();
  for (const auto& [k, v] : fixed) params[k] = v;
  ojson zip = ojson::array();
  for (const auto& a : axes) {
    if (a.keys.size() == 1) {
      params[a.keys[0]] = a.values[0];
    } else {
      ojson group = ojson::object();
      for (size_t k = 0; k < a.keys.size(); ++k) group[a.keys[k]] = a.values[k];
      zip.push_back(group);
    }
  }
  j["params"] = params;
  // The order of axes is part of the spec (it orders the points); a zipped group's place among
  // the crossed parameters is kept by "order".
  ojson order = ojson::array();
  for (const auto& a : axes) order.push_back(a.keys[0]);
  if (!zip.empty()) {
    j["zip"] = zip;
    j["order"] = order;
  }
  j["repeat"] = repeat;
  j["seed"] = seed;
  return j;
}

std::string Spec::hash() const { return fmt::format("{:016x}", fnv1a64(to_json().dump())); }

void set_param(Spec& spec, const std::string& key, const std::vector<std::string>& values, const std::string& origin) {
  // Replace in place: a fixed parameter stays fixed, an axis stays where it was.
  for (auto& [k, v] : spec.fixed)
    if (k == key && values.size() == 1) {
      v = values[0];
      for (auto& o : spec.origins)
        if (o.first == key) o.second = origin;
      return;
    }
  for (auto& a : spec.axes)
    if (a.keys.size() == 1 && a.keys[0] == key && values.size() > 1) {
      a.values[0] = values;
      for (auto& o : spec.origins)
        if (o.first == key) o.second = origin;
      return;
    }
  if (has_key(spec, key)) remove_key(spec, key);
  if (values.size() == 1) spec.fixed.emplace_back(key, values[0]);
  else spec.axes.push_back(Axis{{key}, {values}});
  spec.origins.emplace_back(key, origin);
}

Spec spec_from_cli(const std::vector<std::string>& sets, const std::vector<std::string>& zips) {
  Spec s;
  for (const auto& text : sets) {
    auto [key, values] = parse_assignment(text, "--set");
    if (has_key(s, key)) throw InputError(SourceLoc{"--set"}, "parameter '" + key + "' is given twice");
    set_param(s, key, values, "--set " + key);
  }
  if (!zips.empty()) {
    Axis group;
    for (const auto& text : zips) {
      auto [key, values] = parse_assignment(text, "--zip");
      if (has_key(s, key) || std::find(group.keys.begin(), group.keys.end(), key) != group.keys.end())
        throw InputError(SourceLoc{"--zip"}, "parameter '" + key + "' is given twice");
      if (!group.keys.empty() && values.size() != group.size())
        throw InputError(SourceLoc{"--zip"}, fmt::format("zipped parameters need equal numbers of values: '{}' has {}, '{}' has {}",
                                                         group.keys[0], group.size(), key, values.size()));
      group.keys.push_back(key);
      group.values.push_back(values);
      s.origins.emplace_back(key, "--zip " + key);
    }
    s.axes.push_back(group);
  }
  return s;
}

Spec spec_from_json(const std::string& text, const std::string& source) {
  ojson j;
  JsonKeyTracker<ojson> keys;
  auto no_repeats = [&keys](int, ojson::parse_event_t ev, ojson& parsed) {
    if (std::string dup = keys.on_event(ev, parsed); !dup.empty()) throw JsonDuplicateKey{dup, keys.key()};
    return true;
  };
  try {
    j = ojson::parse(text, no_repeats);
  } catch (const JsonDuplicateKey& d) {
    throw InputError(SourceLoc{source}, "malformed sweep spec: " + d.message());
  } catch (const ojson::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 3, column 5: ..." -> path:3:5
    std::string msg = e.what();
    long line = 0, col = 0;
    size_t at = msg.find("at line ");
    if (at != std::string::npos) std::sscanf(msg.c_str() + at, "at line %ld, column %ld", &line, &col);
    size_t p = msg.find("parse error");
    throw InputError(SourceLoc{source, line, col}, "malformed sweep spec: " + (p == std::string::npos ? msg : msg.substr(p)));
  } catch (const ojson::out_of_range& e) {  // a number beyond double's range (error 406)
    std::string msg = e.what();
    size_t at = msg.find("] ");
    throw InputError(SourceLoc{source}, "malformed sweep spec: " + (at == std::string::npos ? msg : msg.substr(at + 2)));
  }
  if (!j.is_object()) fail_at(source, "", "expected an object, got " + type_name(j));
  static const std::vector<std::string> known = {"schedsim_sweep", "params", "zip", "order", "repeat", "seed"};
  for (const auto& [k, v] : j.items())
    if (std::find(known.begin(), known.end(), k) == known.end())
      fail_at(source, "/" + ptr_token(k), unknown_choice_message("member", k, known));
  if (!j.contains("schedsim_sweep")) fail_at(source, "/schedsim_sweep", "missing (expected \"schedsim_sweep\": 1)");
  if (j["schedsim_sweep"] != 1)
    fail_at(source, "/schedsim_sweep", "unsupported version " + j["schedsim_sweep"].dump() + "; this schedsim reads version 1");
  Spec s;
  std::map<std::string, Axis> by_first;  // axis keyed by its first key, for "order"
  std::vector<std::string> natural;      // axes in file order
  if (j.contains("params")) {
    const ojson& p = j["params"];
    if (!p.is_object()) fail_at(source, "/params", "expected an object, got " + type_name(p));
    for (const auto& [k, v] : p.items()) {
      std::string path = "/params/" + ptr_token(k);
      if (k.empty()) fail_at(source, path, "empty parameter name");
      std::vector<std::string> values = value_list(v, source, path);
      if (v.is_array() && values.size() > 1) {
        by_first[k] = Axis{{k}, {values}};
        natural.push_back(k);
      } else {
        s.fixed.emplace_back(k, values[0]);
      }
      s.origins.emplace_back(k, path);
    }
  }
  if (j.contains("zip")) {
    const ojson& z = j["zip"];
    if (!z.is_array()) fail_at(source, "/zip", "expected an array of objects, got " + type_name(z));
    for (size_t g = 0; g < z.size(); ++g) {
      std::string gpath = "/zip/" + std::to_string(g);
      if (!z[g].is_object() || z[g].empty()) fail_at(source, gpath, "expected a non-empty object of value lists, got " + type_name(z[g]));
      Axis a;
      for (const auto& [k, v] : z[g].items()) {
        std::string path = gpath + "/" + ptr_token(k);
        if (!v.is_array()) fail_at(source, path, "expected an array of values, got " + type_name(v));
        std::vector<std::string> values = value_list(v, source, path);
        if (!a.keys.empty() && values.size() != a.size())
          fail_at(source, path, fmt::format("{} values, but '{}' in the same group has {}", values.size(), a.keys[0], a.size()));
        for (const auto& other : s.keys())
          if (other == k) fail_at(source, path, "parameter '" + k + "' is also in /params");
        for (const auto& [fk, axis] : by_first)
          for (const auto& ak : axis.keys)
            if (ak == k) fail_at(source, path, "parameter '" + k + "' is given twice");
        a.keys.push_back(k);
        a.values.push_back(values);
        s.origins.emplace_back(k, path);
      }
      by_first[a.keys[0]] = a;
      natural.push_back(a.keys[0]);
    }
  }
  std::vector<std::string> order = natural;
  if (j.contains("order")) {
    const ojson& o = j["order"];
    if (!o.is_array()) fail_at(source, "/order", "expected an array of parameter names, got " + type_name(o));
    order.clear();
    for (size_t i = 0; i < o.size(); ++i) {
      std::string path = "/order/" + std::to_string(i);
      if (!o[i].is_string()) fail_at(source, path, "expected a string, got " + type_name(o[i]));
      std::string k = o[i].get<std::string>();
      if (!by_first.count(k)) fail_at(source, path, unknown_choice_message("swept parameter (the first key of each zip group)", k, natural));
      if (std::find(order.begin(), order.end(), k) != order.end()) fail_at(source, path, "'" + k + "' is listed twice");
      order.push_back(k);
    }
    if (order.size() != natural.size()) {
      for (const auto& k : natural)
        if (std::find(order.begin(), order.end(), k) == order.end()) fail_at(source, "/order", "does not list the swept parameter '" + k + "'");
    }
  }
  for (const auto& k : order) s.axes.push_back(by_first[k]);
  if (j.contains("repeat")) s.repeat = static_cast<uint32_t>(json_uint(j["repeat"], source, "/repeat", 1, 1000000));
  if (j.contains("seed")) s.seed = json_uint(j["seed"], source, "/seed", 0, UINT64_MAX);
  return s;
}

Spec load_spec_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLoc{path}, "cannot open sweep spec");
  check_whole_read_size(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return spec_from_json(ss.str(), path);
}

std::vector<Point> expand(const Spec& spec) {
  std::vector<Params> all;
  size_t n = spec.nr_points();
  if (n > kMaxPoints) {
    std::string sizes;
    for (const auto& a : spec.axes) sizes += (sizes.empty() ? "" : " x ") + fmt::format("{} ({})", a.size(), a.keys[0]);
    std::string total = n == SIZE_MAX ? "more than 2^64" : std::to_string(n);
    throw InputError(SourceLoc{spec.origin(spec.axes.front().keys[0])},
                     fmt::format("the sweep grid has {} points ({}); at most {} are supported: split it into several sweeps",
                                 total, sizes, kMaxPoints));
  }
  all.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    // Up to 10^6 points, each with every parameter: a grid of long values takes gigabytes, so
    // the expansion stops at the memory budget (exit 5) rather than at the machine's end.
    poll_resources();
    Params p = spec.fixed;
    // Mixed radix, last axis fastest.
    std::vector<size_t> idx(spec.axes.size());
    size_t rest = i;
    for (size_t a = spec.axes.size(); a-- > 0;) {
      idx[a] = rest % spec.axes[a].size();
      rest /= spec.axes[a].size();
    }
    for (size_t a = 0; a < spec.axes.size(); ++a)
      for (size_t k = 0; k < spec.axes[a].keys.size(); ++k) p.emplace_back(spec.axes[a].keys[k], spec.axes[a].values[k][idx[a]]);
    all.push_back(std::move(p));
  }
  std::vector<std::string> labels = default_labels(spec, all);
  std::vector<Point> out(n);
  for (size_t i = 0; i < n; ++i) {
    poll_resources();
    out[i].index = i;
    Params sorted = all[i];
    std::sort(sorted.begin(), sorted.end());
    std::string key;
    for (const auto& [k, v] : sorted) key += k + "=" + v + "\n";
    out[i].seed = derive_seed(spec.seed, fnv1a64(key));
    out[i].params = std::move(all[i]);
    out[i].label = labels[i];
  }
  return out;
}

std::vector<std::string> default_labels(const Spec& spec, const std::vector<Params>& points) {
  (void)spec;
  std::vector<std::string> labels(points.size());
  if (points.size() <= 1) return labels;
  // Keys whose value differs somewhere.
  std::vector<std::string> differing;
  for (size_t k = 0; k < points[0].size(); ++k) {
    const std::string& key = points[0][k].first;
    for (const auto& p : points)
      if (p[k].second != points[0][k].second) {
        differing.push_back(key);
        break;
      }
  }
  auto short_name = [&](const std::string& key) {
    for (const char* prefix : {"gen.", "cost.", "feature."}) {
      std::string pre = prefix;
      if (key.rfind(pre, 0) != 0) continue;
      std::string s = key.substr(pre.size());
      int same = 0;
      for (const auto& [k, v] : points[0]) {
        std::string other = k;
        for (const char* p2 : {"gen.", "cost.", "feature."})
          if (other.rfind(p2, 0) == 0) other = other.substr(std::string(p2).size());
        if (other == s) ++same;
      }
      if (same == 1) return s;
    }
    return key;
  };
  for (size_t i = 0; i < points.size(); ++i) {
    std::string l;
    for (const auto& key : differing)
      for (const auto& [k, v] : points[i])
        if (k == key) l += (l.empty() ? "" : ",") + short_name(k) + "=" + v;
    labels[i] = l;
  }
  return labels;
}

}  // namespace schedsim::sweep
