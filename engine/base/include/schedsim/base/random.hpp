#pragma once
/// splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014;
/// constants from Vigna's public-domain reference): the project's one portable, seeded generator.
/// std:: distributions are not guaranteed to give the same numbers across library versions, and
/// byte-identical output across machines needs that; the engine's jitter, the random-idle
/// placement baseline, repetition seeds and the statistics' bootstrap all draw from here.
#include <cstdint>

namespace schedsim {

/// The splitmix64 finaliser of x + golden gamma: a bijective 64-bit mixer (a hash of x).
constexpr uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// The generator: state advances by the golden gamma, each output is the mixed state.
struct SplitMix64 {
  uint64_t x = 0;
  uint64_t next() {
    uint64_t r = splitmix64(x);
    x += 0x9e3779b97f4a7c15ull;
    return r;
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  /// Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; bias below 2^-32 for n < 2^32).
  uint64_t below(uint64_t n) {
    __extension__ typedef unsigned __int128 U128;
    return static_cast<uint64_t>((static_cast<U128>(next()) * n) >> 64);
  }
};

/// A seed for stream `index` derived from `seed` (repetition r of a run, point p of a sweep): a
/// hash, so nearby seeds and indices give unrelated streams and the result of one index never
/// depends on which others were run, or in what order.
constexpr uint64_t derive_seed(uint64_t seed, uint64_t index) {
  return splitmix64(splitmix64(seed) ^ splitmix64(index ^ 0x5851f42d4c957f2dull));
}

}  // namespace schedsim
