// CpuMask: unit cases, and property tests against a std::set<int> oracle (kernel-free:
// the mask must behave exactly like a set of CPU numbers below kMaxCpus).
#include <catch2/catch.hpp>

#include <algorithm>
#include <iterator>
#include <random>
#include <set>
#include <unordered_set>

#include "schedsim/topology/cpu_mask.hpp"

using schedsim::CpuMask;

namespace {

std::set<uint32_t> to_set(const CpuMask& m) {
  std::set<uint32_t> s;
  for (uint32_t c : m) s.insert(c);
  return s;
}

CpuMask from_set(const std::set<uint32_t>& s) {
  CpuMask m;
  for (uint32_t c : s) m.set(c);
  return m;
}

// A random set: mostly small CPU numbers, sometimes near kMaxCpus, with runs so cpulists get
// ranges.
std::set<uint32_t> random_set(std::mt19937_64& rng) {
  std::uniform_int_distribution<uint32_t> span_pick(0, 3);
  const uint32_t spans[] = {8, 70, 300, CpuMask::kMaxCpus};
  uint32_t span = spans[span_pick(rng)];
  std::uniform_int_distribution<uint32_t> cpu(0, span - 1), len(1, 6), count(0, 20);
  std::set<uint32_t> s;
  for (uint32_t k = 0, n = count(rng); k < n; ++k) {
    uint32_t start = cpu(rng);
    for (uint32_t j = 0, l = len(rng); j < l && start + j < span; ++j) s.insert(start + j);
  }
  return s;
}

}  // namespace

TEST_CASE("CpuMask basic operations", "[topology][cpumask]") {
  CpuMask m;
  CHECK(m.empty());
  CHECK(m.count() == 0);
  CHECK(m.first() == CpuMask::kMaxCpus);
  m.set(3);
  m.set(64);
  m.set(4095);
  CHECK(m.count() == 3);
  CHECK(m.test(64));
  CHECK_FALSE(m.test(65));
  CHECK_FALSE(m.test(5000));  // out of range is simply "not set"
  CHECK(m.first() == 3);
  CHECK(m.next(3) == 64);
  CHECK(m.next(64) == 4095);
  CHECK(m.next(4095) == CpuMask::kMaxCpus);
  CHECK(m.nth(2) == 4095);
  CHECK(m.nth(3) == CpuMask::kMaxCpus);
  CHECK(m.next_wrap(65) == 4095);
  m.reset(4095);
  CHECK(m.next_wrap(65) == 3);
  CHECK(m.to_cpulist() == "3,64");
  CHECK(CpuMask::first_n(5).to_cpulist() == "0-4");
  CHECK(CpuMask::of({1, 2, 3, 7}).to_cpulist() == "1-3,7");
}

TEST_CASE("CpuMask equal masks hash equally regardless of history", "[topology][cpumask]") {
  // reset() leaves the high-water mark where it was; equality and hashing must ignore it.
  CpuMask a = CpuMask::of({1, 200});
  a.reset(200);
  CpuMask b = CpuMask::of({1});
  CHECK(a == b);
  CHECK(a.hash() == b.hash());
  std::unordered_set<CpuMask> set{a};
  CHECK(set.count(b) == 1);
  CHECK_FALSE(a < b);
  CHECK_FALSE(b < a);
}

TEST_CASE("CpuMask never reads a word it no longer uses", "[topology][cpumask]") {
  // Only the used words are kept up to date: a mask that shrank (&=, clear) and grows again
  // (set, |=, ^=) must not bring back the CPUs its old high words held.
  CpuMask a = CpuMask::of({3, 700, 4000});
  a &= CpuMask::of({3});
  CHECK(a.used_words() == 1);
  CHECK_FALSE(a.test(700));
  a.set(1000);
  CHECK(a.to_cpulist() == "3,1000");
  CHECK(a.word(700 / 64) == 0);
  CHECK(a.word(4000 / 64) == 0);
  a.clear();
  a |= CpuMask::of({2000});
  CHECK(a.to_cpulist() == "2000");
  a.clear();
  a ^= CpuMask::of({64, 128});
  CHECK(a.to_cpulist() == "64,128");
  CHECK(a == CpuMask::of({64, 128}));
  CHECK(a.hash() == CpuMask::of({128, 64}).hash());
  // Copies carry only the used words, and compare equal to masks with other histories.
  CpuMask b = a;
  CHECK(b == a);
  b = CpuMask::of({1});
  CHECK(b.to_cpulist() == "1");
  CHECK((CpuMask::of({5, 3000}) & CpuMask::of({5})) == CpuMask::of({5}));
  CHECK(CpuMask::of({5}) < CpuMask::of({6}));
  CHECK_FALSE(CpuMask::of({5, 3000}) == CpuMask::of({5}));
  CHECK(CpuMask::first_n(130).to_cpulist() == "0-129");
  CHECK(CpuMask::first_n(128).to_cpulist() == "0-127");
  CHECK(CpuMask::first_n(0).empty());
  CHECK(CpuMask::first_n(CpuMask::kMaxCpus).count() == CpuMask::kMaxCpus);
}

TEST_CASE("CpuMask sysfs formats", "[topology][cpumask]") {
  // 40 CPUs all set, as /sys/devices/system/cpu/.../cpus prints on a 40-CPU machine.
  CHECK(CpuMask::first_n(40).to_hex_mask(40) == "ff,ffffffff");
  CHECK(CpuMask::first_n(8).to_hex_mask(8) == "ff");
  CHECK(CpuMask::of({0}).to_hex_mask(6) == "01");
  CHECK(CpuMask::of({0}).to_hex_mask(4) == "1");
  CHECK(CpuMask::of({0, 32}).to_hex_mask(64) == "00000001,00000001");
  CHECK(CpuMask{}.to_hex_mask(0) == "0");
  CHECK(CpuMask::first_n(4096).to_hex_mask(4096).size() == 128 * 9 - 1);

  CHECK(CpuMask::parse_hex_mask("ff,ffffffff")->to_cpulist() == "0-39");
  CHECK(CpuMask::parse_hex_mask("0x3\n")->to_cpulist() == "0-1");
  // Groups are 32 bits each, even when printed short.
  CHECK(CpuMask::parse_hex_mask("f,f")->to_cpulist() == "0-3,32-35");
  CHECK(CpuMask::parse_hex_mask("100000000")->to_cpulist() == "32");
  std::string err;
  CHECK_FALSE(CpuMask::parse_hex_mask("fg", &err));
  CHECK(err == "unexpected character 'g' in hex mask");
  CHECK_FALSE(CpuMask::parse_hex_mask("1,123456789", &err));
  CHECK(err == "hex mask group '123456789' has more than 8 digits");
  CHECK_FALSE(CpuMask::parse_hex_mask("", &err));

  CHECK(CpuMask::parse_cpulist("0-3,8\n")->to_cpulist() == "0-3,8");
  CHECK(CpuMask::parse_cpulist("")->empty());
  CHECK_FALSE(CpuMask::parse_cpulist("3-1", &err));
  CHECK(err == "range 3-1 is descending");
  CHECK_FALSE(CpuMask::parse_cpulist("0-4096", &err));
  CHECK(err == "CPU 4096 exceeds the supported maximum of 4095");
  CHECK_FALSE(CpuMask::parse_cpulist("1,", &err));
  CHECK(err == "trailing ','");
  CHECK_FALSE(CpuMask::parse_cpulist("0-7:2", &err));
  CHECK(err == "unexpected character ':' at offset 3");
}

TEST_CASE("CpuMask matches a std::set oracle under random operations", "[topology][cpumask][property]") {
  // Seeded from Catch's --rng-seed (printed on failure) so a failing case replays exactly.
  auto seed = GENERATE(take(200, random(0u, 0xffffffffu)));
  std::mt19937_64 rng(seed);
  auto sa = random_set(rng), sb = random_set(rng);
  CpuMask a = from_set(sa), b = from_set(sb);
  INFO("a = " << a.to_cpulist() << ", b = " << b.to_cpulist());

  std::set<uint32_t> uni, inter, diff, sym;
  std::set_union(sa.begin(), sa.end(), sb.begin(), sb.end(), std::inserter(uni, uni.end()));
  std::set_intersection(sa.begin(), sa.end(), sb.begin(), sb.end(), std::inserter(inter, inter.end()));
  std::set_difference(sa.begin(), sa.end(), sb.begin(), sb.end(), std::inserter(diff, diff.end()));
  std::set_symmetric_difference(sa.begin(), sa.end(), sb.begin(), sb.end(), std::inserter(sym, sym.end()));
  CHECK(to_set(a | b) == uni);
  CHECK(to_set(a & b) == inter);
  CHECK(to_set(a - b) == diff);
  CHECK(to_set(a ^ b) == sym);
  CHECK(a.count() == sa.size());
  CHECK(a.empty() == sa.empty());
  CHECK(a.intersects(b) == !inter.empty());
  CHECK(a.is_subset_of(b) == std::includes(sb.begin(), sb.end(), sa.begin(), sa.end()));
  CHECK(a.first() == (sa.empty() ? CpuMask::kMaxCpus : *sa.begin()));
  CHECK((a == b) == (sa == sb));

  // next / next_wrap / nth against the oracle at random probe points.
  std::uniform_int_distribution<uint32_t> probe(0, CpuMask::kMaxCpus - 1);
  for (int k = 0; k < 20; ++k) {
    uint32_t p = probe(rng);
    auto it = sa.upper_bound(p);
    CHECK(a.next(p) == (it == sa.end() ? CpuMask::kMaxCpus : *it));
    auto lo = sa.lower_bound(p);
    uint32_t wrap = lo != sa.end() ? *lo : (sa.empty() ? CpuMask::kMaxCpus : *sa.begin());
    CHECK(a.next_wrap(p) == wrap);
  }
  uint32_t idx = 0;
  for (uint32_t c : sa) CHECK(a.nth(idx++) == c);

  // Random set/reset sequence.
  std::uniform_int_distribution<int> coin(0, 1);
  for (int k = 0; k < 50; ++k) {
    uint32_t c = probe(rng) % 300;
    if (coin(rng)) {
      a.set(c);
      sa.insert(c);
    } else {
      a.reset(c);
      sa.erase(c);
    }
  }
  CHECK(to_set(a) == sa);
  CHECK(a == from_set(sa));
  CHECK(a.hash() == from_set(sa).hash());

  // complement_within stays inside the universe.
  CpuMask universe = CpuMask::first_n(300);
  CpuMask comp = a.complement_within(universe);
  CHECK_FALSE(comp.intersects(a));
  CHECK((comp | (a & universe)) == universe);
}

TEST_CASE("CpuMask cpulist and hex round trips", "[topology][cpumask][property]") {
  auto seed = GENERATE(take(200, random(0u, 0xffffffffu)));
  std::mt19937_64 rng(seed);
  CpuMask m = from_set(random_set(rng));
  uint32_t nr_cpus = 0;
  for (uint32_t c : m) nr_cpus = c + 1;
  std::uniform_int_distribution<uint32_t> extra(0, 100);
  nr_cpus = std::min(CpuMask::kMaxCpus, nr_cpus + extra(rng));
  INFO("mask " << m.to_cpulist() << " nr_cpus " << nr_cpus);

  auto from_list = CpuMask::parse_cpulist(m.to_cpulist());
  REQUIRE(from_list);
  CHECK(*from_list == m);
  std::string hex = m.to_hex_mask(nr_cpus);
  auto from_hex = CpuMask::parse_hex_mask(hex);
  REQUIRE(from_hex);
  CHECK(*from_hex == m);
  // sysfs shape: ceil(nr_cpus / 32) groups, all but the first 8 digits wide.
  size_t groups = static_cast<size_t>(std::count(hex.begin(), hex.end(), ',')) + 1;
  CHECK(groups == std::max<size_t>(1, (nr_cpus + 31) / 32));
}
