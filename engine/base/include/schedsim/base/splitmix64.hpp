#pragma once
/// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA
/// 2014): the project's one random source. std:: distributions are not guaranteed to give the
/// same numbers across library versions; byte-identical output across machines needs this.
#include <cstdint>

namespace schedsim {

/// splitmix64's output function applied to state z.
constexpr uint64_t splitmix64_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// splitmix64 as a hash: the first value a generator seeded with x returns.
constexpr uint64_t splitmix64(uint64_t x) { return splitmix64_mix(x + 0x9e3779b97f4a7c15ull); }

/// The generator: each next() advances the state by the golden-ratio increment.
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(uint64_t seed) : x_(seed) {}
  constexpr uint64_t next() { return splitmix64_mix(x_ += 0x9e3779b97f4a7c15ull); }
  /// Uniform in [0, n) (n > 0); the modulo bias is below 2^-40 for the ranges used here.
  constexpr uint64_t below(uint64_t n) { return next() % n; }
  /// Uniform in [0, 1), 53 random bits.
  constexpr double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t x_;
};

}  // namespace schedsim
