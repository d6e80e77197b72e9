// perf.data read directly (traces/src/perfdata.cpp). The fixtures are real `perf sched record`
// files (perf 6.1, kernel 6.18, 2 vCPUs) with the `perf script --ns` text of each: the direct
// reader must deliver the events the text parser reads from that text, field by field (only the
// interrupt context differs: perf.data has the tracepoints' common_flags, the text has no flag
// column). Damaged and foreign files are cut or patched copies of the first fixture.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "schedsim/base/error.hpp"
#include "schedsim/base/gzip.hpp"
#include "schedsim/traces/import.hpp"

using namespace schedsim;
using namespace schedsim::traces;

namespace {

const std::string kDir = std::string(SCHEDSIM_SOURCE_DIR) + "/tests/data/traces/";

// A gzip'd fixture's bytes (base's gunzip, as the readers of schedsim's own .gz files use).
std::string gunzip(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  const std::string gz{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return schedsim::gunzip(gz, path, kMaxInMemoryInput);
}

struct Seen {
  std::vector<TraceEvent> events;
  ImportReport report;
};

Seen import_events(const std::string& bytes, const std::string& name, ExtractOptions opt = {}) {
  Seen s;
  opt.on_event = [&s](const TraceEvent& ev) { s.events.push_back(ev); };
  import_trace_buffer(bytes, name, opt, &s.report);
  return s;
}

std::string error_of(const std::string& bytes, const ExtractOptions& opt = {}) {
  try {
    import_trace_buffer(bytes, "x.data", opt, nullptr);
  } catch (const InputError& e) {
    return e.message();
  }
  return "(no error)";
}

void put_u64(std::string& b, size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); }
uint64_t get_u64(const std::string& b, size_t at) {
  uint64_t v = 0;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}

}  // namespace

TEST_CASE("perf.data: the events of perf script --ns, field by field", "[traces]") {
  // The third is a pipe-mode recording (perf sched record -o -): its header travels as records.
  for (const char* base : {"perf618-hb-g1-l10-pipe-thread", "perf618-hb-g1-l10-zstd", "perf618-hb-g1-l10-pipemode"}) {
    INFO(base);
    const Seen data = import_events(gunzip(kDir + base + ".data.gz"), "x.data");
    const Seen text = import_events(gunzip(kDir + base + ".perf-script.gz"), "x.txt");
    REQUIRE(data.events.size() == text.events.size());
    REQUIRE(data.events.size() > 500);
    size_t irq = 0;
    for (size_t i = 0; i < data.events.size(); ++i) {
      const TraceEvent& a = data.events[i];
      const TraceEvent& b = text.events[i];
      INFO("event " << i << " (line " << b.line << ")");
      CHECK(a.line == b.line);
      CHECK(a.type == b.type);
      CHECK(a.ts == b.ts);
      CHECK(a.cpu == b.cpu);
      CHECK(a.line_pid == b.line_pid);
      CHECK(a.line_comm == b.line_comm);
      CHECK(a.pid == b.pid);
      CHECK(a.comm == b.comm);
      CHECK(a.other_pid == b.other_pid);
      CHECK(a.other_comm == b.other_comm);
      CHECK(a.state == b.state);
      CHECK(a.prio == b.prio);
      CHECK(a.other_prio == b.other_prio);
      CHECK(a.target_cpu == b.target_cpu);
      CHECK(a.orig_cpu == b.orig_cpu);
      CHECK(a.event_name == b.event_name);
      CHECK_FALSE(b.irq_context);
      irq += a.irq_context ? 1 : 0;
    }
    // Some wakeups of a hackbench run come from interrupts (timer, IPI); only perf.data says so.
    CHECK(irq > 0);
    CHECK(irq < data.events.size() / 10);
    CHECK(data.report.format.rfind("perf.data (perf 6.1.187", 0) == 0);
    CHECK(data.report.header_cpus == 2);
    CHECK(data.report.events == text.report.events);
  }
}

namespace {
// The first fixture with its first COMM record turned into a PERF_RECORD_LOST of `count` events
// whose sample_id names `cpu` (TID, TIME, CPU, IDENTIFIER end the record: the CPU is 16 bytes
// before its end).
std::string with_lost_record(uint32_t cpu, uint64_t count) {
  std::string b = gunzip(kDir + "perf618-hb-g1-l10-pipe-thread.data.gz");
  const uint64_t data = get_u64(b, 40), end = data + get_u64(b, 48);
  for (uint64_t p = data; p < end;) {
    uint32_t type = 0;
    uint16_t size = 0;
    std::memcpy(&type, b.data() + p, 4);
    std::memcpy(&size, b.data() + p + 6, 2);
    if (type == 3) {
      const uint32_t lost = 2;
      std::memcpy(b.data() + p, &lost, 4);
      put_u64(b, p + 16, count);
      std::memcpy(b.data() + p + size - 16, &cpu, 4);
      return b;
    }
    p += size;
  }
  FAIL("no COMM record");
  return b;
}
}  // namespace

TEST_CASE("perf.data: a LOST record is a lost-events window on its CPU", "[traces]") {
  const Seen s = import_events(with_lost_record(1, 7), "x.data");
  REQUIRE(s.report.lost.size() == 1);
  CHECK(s.report.lost[0].cpu == 1);
  CHECK(s.report.lost[0].events == 7);
  CHECK(error_of(with_lost_record(0xffff, 7)).find("a LOST record that names no CPU") != std::string::npos);
}

TEST_CASE("perf.data in pipe mode: cut anywhere, refused with where", "[traces]") {
  const std::string pipe = gunzip(kDir + "perf618-hb-g1-l10-pipemode.data.gz");
  CHECK(import_events(pipe, "x.data").report.format == "perf.data (perf 6.1.187, pipe mode)");
  for (size_t cut : {size_t{16}, size_t{20}, size_t{100}, size_t{5000}, pipe.size() / 2, pipe.size() - 3}) {
    INFO("cut at " << cut);
    CHECK_FALSE(error_of(pipe.substr(0, cut)) == "(no error)");
  }
  CHECK(error_of(pipe.substr(0, 16)).find("without attribute records") != std::string::npos);
  // The first record (HEADER_ATTR) said to be 40 bytes long: no room for a 64-byte attribute.
  std::string b = pipe;
  uint32_t type = 0;
  std::memcpy(&type, b.data() + 16, 4);
  REQUIRE(type == 64);
  const uint16_t short_size = 40;
  std::memcpy(b.data() + 16 + 6, &short_size, 2);
  CHECK(error_of(b) == "perf.data byte 16: an attribute record of 40 bytes: too short for an attribute (at least 72)");
}

TEST_CASE("perf.data: the zstd records (perf record -z) are read", "[traces]") {
  const Seen s = import_events(gunzip(kDir + "perf618-hb-g1-l10-zstd.data.gz"), "x.data");
  CHECK(s.report.format == "perf.data (perf 6.1.187, zstd records)");
}

TEST_CASE("perf.data: damaged and foreign files are refused with what is wrong and where", "[traces]") {
  const std::string good = gunzip(kDir + "perf618-hb-g1-l10-pipe-thread.data.gz");
  REQUIRE(good.size() > 100000);

  // Cut anywhere: a section or a record runs past the end, never a crash or a partial import.
  for (size_t cut : {size_t{20}, size_t{104}, size_t{600}, good.size() / 3, good.size() - 50}) {
    INFO("cut at " << cut);
    const std::string e = error_of(good.substr(0, cut));
    CHECK(e.find("runs past the end") != std::string::npos);
  }

  std::string b = good;
  std::memcpy(b.data(), "2ELIFREP", 8);
  CHECK(error_of(b).find("big-endian perf.data") != std::string::npos);
  std::memcpy(b.data(), "PERFFILE", 8);
  CHECK(error_of(b).find("pre-2.6.39 format") != std::string::npos);

  // A file's header said to be a pipe's: its attribute table is not a record stream.
  b = good;
  put_u64(b, 8, 16);
  CHECK_FALSE(error_of(b) == "(no error)");

  // Feature bit 1 (the tracing data) cleared: the sections that follow shift, and the file no
  // longer names its event formats.
  b = good;
  put_u64(b, 72, get_u64(b, 72) & ~uint64_t{2});
  CHECK_FALSE(error_of(b) == "(no error)");

  // The data section said to be longer than the file.
  b = good;
  put_u64(b, 48, get_u64(b, 48) + 1000000);
  CHECK(error_of(b).find("runs past the end") != std::string::npos);

  // --kernel-version overrides the os release for prev_state, and the report says so.
  ExtractOptions old;
  old.kernel_version = "4.9";
  const Seen s = import_events(good, "x.data", old);
  bool said = false;
  for (const std::string& h : s.report.kernel_hints)
    said = said || h == "numeric prev_state decoded with the 4.8-4.13 layout (--kernel-version)";
  CHECK(said);
}
