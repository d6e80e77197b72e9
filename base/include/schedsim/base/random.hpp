#pragma once
/// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA
/// 2014; constants from Vigna's public-domain reference): the project's one portable, seeded
/// generator. std:: distributions are not guaranteed to give the same numbers across library
/// versions, and byte-identical output across machines needs that; the engine's jitter, the
/// workload generators, the random-idle placement baseline, repetition seeds and the statistics'
/// bootstrap all draw from here.
#include <cstdint>

namespace schedsim {

/// splitmix64's output function applied to state z.
constexpr uint64_t splitmix64_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// splitmix64 as a hash (a bijective 64-bit mixer): the first value a generator seeded with x
/// returns.
constexpr uint64_t splitmix64(uint64_t x) { return splitmix64_mix(x + 0x9e3779b97f4a7c15ull); }

/// The generator: each next() advances the state by the golden-ratio increment.
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(uint64_t seed) : x_(seed) {}
  constexpr uint64_t next() { return splitmix64_mix(x_ += 0x9e3779b97f4a7c15ull); }
  /// Uniform in [0, n) (n > 0); the modulo bias is below 2^-40 for the ranges used here (n below
  /// 2^24). Kept as a modulo because the generators' and the engine's outputs depend on it.
  constexpr uint64_t below(uint64_t n) { return next() % n; }
  /// Uniform in [0, 1), 53 random bits.
  constexpr double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t x_;
};

/// A seed for stream `index` derived from `seed` (repetition r of a run, point p of a sweep): a
/// hash, so nearby seeds and indices give unrelated streams and the result of one index never
/// depends on which others were run, or in what order.
constexpr uint64_t derive_seed(uint64_t seed, uint64_t index) {
  return splitmix64(splitmix64(seed) ^ splitmix64(index ^ 0x5851f42d4c957f2dull));
}

}  // namespace schedsim
