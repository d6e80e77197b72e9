// The bare event-queue ceiling: a classic "hold" loop (pop the earliest event, push one new event
// a random delay later) on the engine's own queue type, a std::priority_queue of the engine's
// 40-byte event layout with the same ordering (time, ticks last, then sequence number). It does
// no simulation work at all, so its events/s is what a simulator built on this queue could reach
// at best; bench/README.md quotes the engine's events/s as a ratio of it at the same pending-set
// size.
//
//   heap_hold_bench [--events N] [--sizes 40,80,160]
//
// Delays are exponential with a 5 us mean (the order of a messaging run() slice), drawn from
// splitmix64, so the pattern of inserts (mostly near the back, some near the front) resembles a
// simulation's. Prints one row per pending-set size: ns per event and events/s, both by wall
// time and by the thread's CPU time (the CPU figure is what to compare on a shared machine).
#include <time.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "schedsim/base/random.hpp"

namespace {

// The engine's Event (engine/src/event_queue.hpp): the same fields, size and comparison.
enum class Ev : uint8_t { kTaskStart, kSleepEnd, kEnqueue, kRunDone, kTick };
struct Event {
  int64_t at;
  uint64_t seq;
  Ev type;
  uint32_t a;
  uint32_t b;
  uint64_t gen;
  bool operator>(const Event& o) const {
    if (at != o.at) return at > o.at;
    bool tick = type == Ev::kTick, otick = o.type == Ev::kTick;
    if (tick != otick) return tick;
    return seq > o.seq;
  }
};

volatile uint64_t g_sink = 0;

double cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

struct Result {
  double wall_ns, cpu_ns;
};

Result ns_per_event(size_t size, uint64_t events) {
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> q;
  schedsim::SplitMix64 rng(12345);
  uint64_t seq = 0;
  auto delay = [&] {
    double u = rng.uniform();
    return static_cast<int64_t>(-std::log1p(-u) * 5000.0);  // exponential, mean 5 us
  };
  for (size_t i = 0; i < size; ++i)
    q.push(Event{delay(), seq++, static_cast<Ev>(i % 5), static_cast<uint32_t>(i), 0, 0});
  uint64_t sum = 0;
  auto t0 = std::chrono::steady_clock::now();
  double c0 = cpu_ns();
  for (uint64_t i = 0; i < events; ++i) {
    Event e = q.top();
    q.pop();
    sum += e.a;
    q.push(Event{e.at + delay(), seq++, e.type, e.a, e.b, e.gen});
  }
  auto t1 = std::chrono::steady_clock::now();
  double c1 = cpu_ns();
  g_sink = g_sink + sum;
  const double n = static_cast<double>(events);
  return {std::chrono::duration<double, std::nano>(t1 - t0).count() / n, (c1 - c0) / n};
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t events = 20'000'000;
  std::string sizes = "16,40,80,160,1024,4096";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--events")) events = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--sizes")) sizes = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: heap_hold_bench [--events N] [--sizes 40,80,...]\n");
      return 2;
    }
  }
  std::printf("bare binary-heap hold loop (std::priority_queue of the engine's 40-byte Event), %llu events\n",
              static_cast<unsigned long long>(events));
  std::printf("%-14s %12s %14s %12s %14s\n", "pending set", "wall ns/ev", "events/s", "CPU ns/ev",
              "CPU events/s");
  size_t pos = 0;
  while (pos < sizes.size()) {
    size_t comma = sizes.find(',', pos);
    if (comma == std::string::npos) comma = sizes.size();
    size_t n = std::strtoull(sizes.substr(pos, comma - pos).c_str(), nullptr, 10);
    pos = comma + 1;
    if (n == 0) continue;
    Result r = ns_per_event(n, events);
    std::printf("%-14zu %12.2f %14.0f %12.2f %14.0f\n", n, r.wall_ns, 1e9 / r.wall_ns, r.cpu_ns, 1e9 / r.cpu_ns);
  }
  return g_sink == 42 ? 1 : 0;
}
