#pragma once
/// A sweep specification: fixed parameters, crossed axes and zipped groups, repetitions and the
/// sweep seed; its expansion into points, labels and seeds. Parameters are opaque KEY=VALUE
/// strings here (what a key means is the caller's business: driver/src/sweep_params.cpp maps
/// them onto `run` options); this module only checks the shape (docs/sweep.md, "Spec file").
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace schedsim::sweep {

using Params = std::vector<std::pair<std::string, std::string>>;  ///< KEY -> VALUE, in spec order

/// One axis of the grid: a crossed parameter (one key) or a zipped group (several keys whose
/// value lists have equal length and advance together).
struct Axis {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;  ///< values[key][i]
  size_t size() const { return values.empty() ? 0 : values[0].size(); }
};

struct Spec {
  Params fixed;                ///< parameters with one value
  std::vector<Axis> axes;      ///< crossed with each other; the first varies slowest
  uint32_t repeat = 1;         ///< repetitions per point
  uint64_t seed = 1;           ///< the sweep seed
  /// Where each key came from, for error messages ("--set gen.group", "/params/gen.group").
  std::vector<std::pair<std::string, std::string>> origins;

  /// The canonical JSON form (also a valid spec file): what is hashed and stored in headers.
  nlohmann::ordered_json to_json() const;
  /// 16 hex digits of FNV-1a 64 over to_json().dump().
  std::string hash() const;
  /// Every key, fixed first, then axes in order.
  std::vector<std::string> keys() const;
  /// The origin of `key` ("" if unknown).
  std::string origin(const std::string& key) const;
  /// The number of points; saturates at SIZE_MAX (expand() refuses grids past kMaxPoints).
  size_t nr_points() const;
};

/// The largest grid a sweep accepts: its points are expanded in memory up front (and the
/// product of many axes would otherwise overflow).
inline constexpr size_t kMaxPoints = 1000000;

/// One point of the grid.
struct Point {
  size_t index = 0;
  Params params;        ///< every parameter (fixed, then axes in order)
  std::string label;    ///< what differs between points: "placement=sis-fold-opt,group=10"
  uint64_t seed = 0;    ///< derive_seed(spec seed, hash of the point's parameters)
};

/// The spec from command-line pieces: `sets` are "KEY=V1,V2,..." (one value = fixed, several = a
/// crossed axis), every `zips` entry "KEY=V1,V2,..." joins one zipped group. Throws InputError.
Spec spec_from_cli(const std::vector<std::string>& sets, const std::vector<std::string>& zips);
/// Parses a spec file's text; errors name `source` and the JSON path. Throws InputError.
Spec spec_from_json(const std::string& text, const std::string& source);
Spec load_spec_file(const std::string& path);
/// Sets (or replaces, keeping its place) one parameter with its values.
void set_param(Spec& spec, const std::string& key, const std::vector<std::string>& values,
               const std::string& origin);

/// The grid's points in order (first axis slowest, last axis fastest). Throws InputError when
/// the grid has more than kMaxPoints points.
std::vector<Point> expand(const Spec& spec);
/// The default label of every point: KEY=VALUE for each key whose value differs between points,
/// keys shortened to the part after "gen." / "cost." / "feature." when that stays unambiguous.
/// With a single point: "".
std::vector<std::string> default_labels(const Spec& spec, const std::vector<Params>& points);

/// splitmix64's finaliser (Steele, Lea, Flood, OOPSLA 2014): a bijective 64-bit mixer.
uint64_t mix64(uint64_t x);
/// Seed of stream `index` derived from `seed`: a hash, so neighbouring seeds and indices give
/// unrelated streams. Point p's seed is derive_seed(sweep seed, fnv1a(p's parameters));
/// repetition r's seed is derive_seed(point seed, r), as `run --seed S --repeat N` derives its
/// repetitions from S.
uint64_t derive_seed(uint64_t seed, uint64_t index);
/// FNV-1a 64 of `text`.
uint64_t fnv1a64(const std::string& text);

}  // namespace schedsim::sweep
