// Duration / Instant: arithmetic checked against __int128 (no silent wrap in the tested range),
// the compile-time shape of the API, parsing and formatting.
#include <catch2/catch.hpp>

#include <chrono>
#include <random>

#include "schedsim/base/int128.hpp"
#include "schedsim/base/time.hpp"

using schedsim::Duration;
using schedsim::Instant;

using i128 = schedsim::Int128;

// Only meaningful arithmetic compiles (fmt-style compile checks, done with requires-expressions).
template <class A, class B>
concept Addable = requires(A a, B b) { a + b; };
template <class A, class B>
concept Subtractable = requires(A a, B b) { a - b; };
template <class A, class B>
concept Multipliable = requires(A a, B b) { a * b; };
static_assert(!Addable<Instant, Instant>, "Instant + Instant must not compile");
static_assert(Addable<Instant, Duration>);
static_assert(Addable<Duration, Duration>);
static_assert(Subtractable<Instant, Instant>);
static_assert(std::is_same_v<decltype(Instant{} - Instant{}), Duration>);
static_assert(std::is_same_v<decltype(Duration{} / Duration::ns(1)), int64_t>);
static_assert(!Multipliable<Duration, Duration>, "Duration * Duration has no meaning");
static_assert(!Addable<Duration, Instant>, "Duration + Instant is spelled Instant + Duration");
static_assert(!std::is_convertible_v<int64_t, Duration>, "raw integers need Duration::ns()");
static_assert(!std::is_convertible_v<int64_t, Instant>);
static_assert(std::is_trivially_copyable_v<Duration> && sizeof(Duration) == 8);

TEST_CASE("Duration and Instant arithmetic matches __int128", "[base][time][property]") {
  auto seed = GENERATE(take(100, random(0u, 0xffffffffu)));
  std::mt19937_64 rng(seed);
  // Magnitudes up to 2^61 so sums never overflow int64; products use a small factor.
  std::uniform_int_distribution<int64_t> big(-(int64_t{1} << 61), int64_t{1} << 61);
  std::uniform_int_distribution<int64_t> small(-1000, 1000);
  for (int k = 0; k < 100; ++k) {
    int64_t a = big(rng), b = big(rng), f = small(rng);
    if (b == 0) b = 1;
    Duration da = Duration::ns(a), db = Duration::ns(b);
    CHECK(static_cast<i128>((da + db).count()) == static_cast<i128>(a) + b);
    CHECK(static_cast<i128>((da - db).count()) == static_cast<i128>(a) - b);
    CHECK(static_cast<i128>((-da).count()) == -static_cast<i128>(a));
    int64_t fa = a / 1024;  // keep the product in range
    CHECK(static_cast<i128>((Duration::ns(fa) * f).count()) == static_cast<i128>(fa) * f);
    CHECK(static_cast<i128>(da / db) == static_cast<i128>(a) / b);  // truncation toward zero
    if (f != 0) CHECK(static_cast<i128>((da / f).count()) == static_cast<i128>(a) / f);
    CHECK((da < db) == (a < b));
    CHECK((da == db) == (a == b));
    Instant t = Instant::from_ns(a);
    CHECK(static_cast<i128>((t + db).ns()) == static_cast<i128>(a) + b);
    CHECK(static_cast<i128>((t - db).ns()) == static_cast<i128>(a) - b);
    CHECK(static_cast<i128>((t - Instant::from_ns(b)).count()) == static_cast<i128>(a) - b);
    Instant u = t;
    u += db;
    CHECK(u == t + db);
    Duration acc = da;
    acc += db;
    acc -= db;
    CHECK(acc == da);
  }
}

TEST_CASE("Duration constructors and conversions", "[base][time]") {
  using namespace std::chrono_literals;
  CHECK(Duration::us(3).count() == 3000);
  CHECK(Duration::ms(3).count() == 3000000);
  CHECK(Duration::s(3).count() == 3000000000);
  CHECK(Duration(10ms) == Duration::ms(10));
  CHECK(Duration(std::chrono::seconds(2)) == Duration::s(2));
  CHECK(Duration::ms(1500).to_s() == Approx(1.5));
  CHECK(Duration::us(2).to_us() == Approx(2.0));
  CHECK(Duration::max().count() == std::numeric_limits<int64_t>::max());
  CHECK(Instant::zero() + Duration::s(1) - Instant::zero() == Duration::s(1));
}

TEST_CASE("parse_duration", "[base][time]") {
  struct Ok {
    const char* text;
    int64_t ns;
  };
  for (const Ok& c : {Ok{"10ms", 10000000}, Ok{"2.5us", 2500}, Ok{"300ns", 300}, Ok{"1s", 1000000000},
                      Ok{"42", 42}, Ok{"0", 0}, Ok{"0.5s", 500000000}, Ok{"1.0000004ns", 1}, Ok{"9000000000s", 9000000000000000000}}) {
    INFO(c.text);
    Duration d;
    REQUIRE(schedsim::parse_duration(c.text, d));
    CHECK(d.count() == c.ns);
  }
  for (const char* bad : {"", "ms", "-5ms", "10 ms", "10m", "1.5.2ms", "1e3", "10000000000s", "abc", "5MS"}) {
    INFO(bad);
    Duration d = Duration::ns(7);
    CHECK_FALSE(schedsim::parse_duration(bad, d));
    CHECK(d.count() == 7);  // untouched on failure
  }
}

TEST_CASE("time formatting", "[base][time]") {
  CHECK(schedsim::format_duration(Duration::ns(850)) == "850ns");
  CHECK(schedsim::format_duration(Duration::ns(-850)) == "-850ns");
  CHECK(schedsim::format_duration(Duration::ns(12345)) == "12.3us");
  CHECK(schedsim::format_duration(Duration::ns(4560000)) == "4.56ms");
  CHECK(schedsim::format_duration(Duration::ms(1500)) == "1.500s");
  CHECK(schedsim::format_ftrace_time(Instant::from_ns(1234567890)) == "1.234567");
  CHECK(schedsim::format_ftrace_time(Instant::from_ns(-1500000)) == "-0.001500");
  CHECK(fmt::format("{}", Duration::us(5)) == "5.0us");
  CHECK(fmt::format("{}", Instant::from_ns(2000000000)) == "2.000000");
}
