#pragma once
/// CpuMask: a fixed-capacity CPU bitset after the kernel's cpumask and LLVM's BitVector.
///
/// Capacity is kMaxCpus (the kernel's NR_CPUS idea) in 64-bit words, and a mask never
/// allocates. Only the first used_ words hold CPUs: words at index >= used_ are never read (they
/// are left uninitialised, and read as zero through word()), so construction, copies, set
/// algebra and iteration all cost in proportion to the highest CPU a mask has held (4 words on a
/// 256-CPU machine), not to kMaxCpus. Indexes that could leave the array (set(), word()) are
/// checked in every build; reset() and test() ignore CPUs past kMaxCpus.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "schedsim/base/assert.hpp"

namespace schedsim {

class CpuMask {
 public:
  static constexpr uint32_t kMaxCpus = 4096;
  static constexpr uint32_t kWords = kMaxCpus / 64;

  CpuMask() noexcept {}  // NOLINT: words_ past used_ are deliberately left uninitialised
  CpuMask(const CpuMask& o) noexcept : used_(o.used_) { copy_words(o); }
  CpuMask& operator=(const CpuMask& o) noexcept {
    used_ = o.used_;
    copy_words(o);
    return *this;
  }
  /// A mask with CPUs [0, n) set.
  static CpuMask first_n(uint32_t n) {
    SCHEDSIM_ASSERT(n <= kMaxCpus, "first_n({}) beyond kMaxCpus {}", n, kMaxCpus);
    CpuMask m;
    const uint32_t full = n >> 6;
    for (uint32_t i = 0; i < full; ++i) m.words_[i] = ~uint64_t{0};
    m.used_ = static_cast<uint16_t>(full);
    if (n & 63) {
      m.words_[full] = (uint64_t{1} << (n & 63)) - 1;
      m.used_ = static_cast<uint16_t>(full + 1);
    }
    return m;
  }
  static CpuMask of(std::initializer_list<uint32_t> cpus) {
    CpuMask m;
    for (uint32_t c : cpus) m.set(c);
    return m;
  }

  void set(uint32_t cpu) {
    // Always on (Release too): an index past the array would write outside the mask. One
    // compare against a constant; bench/README.md has the before/after figure.
    SCHEDSIM_ASSERT(cpu < kMaxCpus, "CPU {} beyond kMaxCpus {}", cpu, kMaxCpus);
    uint32_t w = cpu >> 6;
    if (w >= used_) {
      for (uint32_t i = used_; i <= w; ++i) words_[i] = 0;
      used_ = static_cast<uint16_t>(w + 1);
    }
    words_[w] |= uint64_t{1} << (cpu & 63);
  }
  void reset(uint32_t cpu) {
    if ((cpu >> 6) < used_) words_[cpu >> 6] &= ~(uint64_t{1} << (cpu & 63));
  }
  bool test(uint32_t cpu) const {
    return (cpu >> 6) < used_ && ((words_[cpu >> 6] >> (cpu & 63)) & 1u) != 0;
  }
  void clear() { used_ = 0; }

  uint32_t count() const {
    uint32_t n = 0;
    for (uint32_t i = 0; i < used_; ++i) n += static_cast<uint32_t>(std::popcount(words_[i]));
    return n;
  }
  bool empty() const {
    for (uint32_t i = 0; i < used_; ++i)
      if (words_[i]) return false;
    return true;
  }
  /// The lowest set CPU, or kMaxCpus when empty (like cpumask_first returning nr_cpu_ids).
  uint32_t first() const { return next_from(0); }
  /// The lowest set CPU strictly greater than `after`, or kMaxCpus.
  uint32_t next(uint32_t after) const {
    return after >= kMaxCpus - 1 ? kMaxCpus : next_from(after + 1);
  }
  /// The lowest set CPU >= `from`, or kMaxCpus: a word scan with countr_zero.
  uint32_t next_from(uint32_t from) const {
    uint32_t w = from >> 6;
    if (w >= used_) return kMaxCpus;
    uint64_t bits = words_[w] & (~uint64_t{0} << (from & 63));
    while (true) {
      if (bits) return (w << 6) + static_cast<uint32_t>(std::countr_zero(bits));
      if (++w >= used_) return kMaxCpus;
      bits = words_[w];
    }
  }
  /// The next set CPU at or after `from`, wrapping around to the start (for_each_cpu_wrap order).
  uint32_t next_wrap(uint32_t from) const {
    uint32_t c = next_from(from);
    return c < kMaxCpus ? c : first();
  }
  /// The n-th set CPU (0-based), or kMaxCpus.
  uint32_t nth(uint32_t n) const {
    for (uint32_t w = 0; w < used_; ++w) {
      uint32_t pc = static_cast<uint32_t>(std::popcount(words_[w]));
      if (n < pc) {
        uint64_t bits = words_[w];
        for (uint32_t k = 0; k < n; ++k) bits &= bits - 1;
        return (w << 6) + static_cast<uint32_t>(std::countr_zero(bits));
      }
      n -= pc;
    }
    return kMaxCpus;
  }

  CpuMask& operator&=(const CpuMask& o) {
    // Words past o.used_ become zero: the mask shrinks to the common words.
    if (o.used_ < used_) used_ = o.used_;
    for (uint32_t i = 0; i < used_; ++i) words_[i] &= o.words_[i];
    return *this;
  }
  CpuMask& operator|=(const CpuMask& o) {
    uint32_t i = 0;
    for (const uint32_t n = used_ < o.used_ ? used_ : o.used_; i < n; ++i) words_[i] |= o.words_[i];
    for (; i < o.used_; ++i) words_[i] = o.words_[i];
    if (o.used_ > used_) used_ = o.used_;
    return *this;
  }
  CpuMask& operator^=(const CpuMask& o) {
    uint32_t i = 0;
    for (const uint32_t n = used_ < o.used_ ? used_ : o.used_; i < n; ++i) words_[i] ^= o.words_[i];
    for (; i < o.used_; ++i) words_[i] = o.words_[i];
    if (o.used_ > used_) used_ = o.used_;
    return *this;
  }
  /// Set difference (andnot).
  CpuMask& operator-=(const CpuMask& o) {
    uint32_t n = used_ < o.used_ ? used_ : o.used_;
    for (uint32_t i = 0; i < n; ++i) words_[i] &= ~o.words_[i];
    return *this;
  }
  friend CpuMask operator&(const CpuMask& a, const CpuMask& b) {
    CpuMask m;
    m.used_ = a.used_ < b.used_ ? a.used_ : b.used_;
    for (uint32_t i = 0; i < m.used_; ++i) m.words_[i] = a.words_[i] & b.words_[i];
    return m;
  }
  friend CpuMask operator|(CpuMask a, const CpuMask& b) { return a |= b; }
  friend CpuMask operator^(CpuMask a, const CpuMask& b) { return a ^= b; }
  friend CpuMask operator-(CpuMask a, const CpuMask& b) { return a -= b; }

  bool intersects(const CpuMask& o) const {
    uint32_t n = used_ < o.used_ ? used_ : o.used_;
    for (uint32_t i = 0; i < n; ++i)
      if (words_[i] & o.words_[i]) return true;
    return false;
  }
  bool is_subset_of(const CpuMask& o) const {
    for (uint32_t i = 0; i < used_; ++i)
      if (words_[i] & ~o.word_or_zero(i)) return false;
    return true;
  }
  /// The CPUs of `universe` not in this mask. There is no bare operator~: bits past the
  /// machine's CPUs must stay zero.
  CpuMask complement_within(const CpuMask& universe) const { return universe - *this; }

  friend bool operator==(const CpuMask& a, const CpuMask& b) {
    uint32_t n = a.used_ > b.used_ ? a.used_ : b.used_;
    for (uint32_t i = 0; i < n; ++i)
      if (a.word_or_zero(i) != b.word_or_zero(i)) return false;
    return true;
  }
  /// Lexicographic by lowest differing CPU's word (for ordered containers).
  friend bool operator<(const CpuMask& a, const CpuMask& b) {
    uint32_t n = a.used_ > b.used_ ? a.used_ : b.used_;
    for (uint32_t i = 0; i < n; ++i)
      if (a.word_or_zero(i) != b.word_or_zero(i)) return a.word_or_zero(i) < b.word_or_zero(i);
    return false;
  }
  /// Equal masks hash equally: trailing zero words (used_ is only a high-water mark, reset()
  /// does not lower it) are not hashed.
  size_t hash() const {
    uint32_t n = used_;
    while (n > 0 && words_[n - 1] == 0) --n;
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < n; ++i) h = (h ^ words_[i]) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
  /// Word i (CPUs 64i..64i+63); zero past the used words.
  uint64_t word(uint32_t i) const {
    SCHEDSIM_ASSERT(i < kWords, "mask word {} beyond {}", i, kWords);
    return word_or_zero(i);
  }
  /// How many leading words may hold CPUs (an upper bound: trailing ones may be zero).
  uint32_t used_words() const { return used_; }

  class iterator {
   public:
    iterator(const CpuMask* m, uint32_t c) : m_(m), c_(c) {}
    uint32_t operator*() const { return c_; }
    iterator& operator++() {
      c_ = m_->next(c_);
      return *this;
    }
    bool operator==(const iterator& o) const { return c_ == o.c_; }

   private:
    const CpuMask* m_;
    uint32_t c_;
  };
  iterator begin() const { return iterator(this, first()); }
  iterator end() const { return iterator(this, kMaxCpus); }

  /// sysfs cpulist format: "0-3,8,10-11"; "" for the empty mask.
  std::string to_cpulist() const;
  /// sysfs hex mask format: 32-bit groups, most significant first: "ff,ffffffff".
  /// `nr_cpus` sets how many groups are printed (at least one).
  std::string to_hex_mask(uint32_t nr_cpus) const;
  /// Parses a cpulist ("0-3,8", "0-7:2" strides are not accepted). nullopt + message on error.
  static std::optional<CpuMask> parse_cpulist(const std::string& text, std::string* error = nullptr);
  /// Parses a sysfs hex mask ("ff,ffffffff", optional 0x). Each comma-separated group holds 32
  /// bits, the last group CPUs 0-31 (so "f,f" is CPUs 0-3 and 32-35). nullopt + message on error.
  static std::optional<CpuMask> parse_hex_mask(const std::string& text, std::string* error = nullptr);

 private:
  uint64_t word_or_zero(uint32_t i) const { return i < used_ ? words_[i] : 0; }
  void copy_words(const CpuMask& o) {
    for (uint32_t i = 0; i < used_; ++i) words_[i] = o.words_[i];
  }

  uint16_t used_ = 0;
  std::array<uint64_t, kWords> words_;  // only [0, used_) is ever read
};

}  // namespace schedsim

template <> struct std::hash<schedsim::CpuMask> {
  size_t operator()(const schedsim::CpuMask& m) const noexcept { return m.hash(); }
};
template <> struct fmt::formatter<schedsim::CpuMask> : fmt::formatter<std::string> {
  auto format(const schedsim::CpuMask& m, format_context& ctx) const {
    return fmt::formatter<std::string>::format(m.to_cpulist(), ctx);
  }
};
