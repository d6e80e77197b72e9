// fuzz_replay: runs inputs through a fuzz target's entry point without libFuzzer, so the
// regression inputs (tests/data/fuzz-regressions/<target>/) and the corpus (fuzz/corpus/<target>/)
// replay in the normal GCC build and its ASan+UBSan build (one ctest test per target).
//   fuzz_replay TARGET FILE|DIR...
// A crash, assertion or sanitizer report fails the test; an input rejected with InputError passes.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_common.hpp"

// The one list of targets (keep in step with SCHEDSIM_FUZZ_TARGETS in fuzz/CMakeLists.txt).
#define SCHEDSIM_FUZZ_TARGET_LIST(X) \
  X(ftrace) X(tracecmd) X(tracedat) X(perf) X(perfdata) X(trace_import) X(line_parser) X(workload_json) \
  X(workload_cbor) X(topology_json) X(sysfs) X(lscpu) X(cost) X(results) X(sweep_results) X(sweep_spec) \
  X(validation) X(sched_views) X(engine_ab)

#define SCHEDSIM_DECLARE_TARGET(name) SCHEDSIM_FUZZ_TARGET(name);
SCHEDSIM_FUZZ_TARGET_LIST(SCHEDSIM_DECLARE_TARGET)

namespace {

using Entry = int (*)(const uint8_t*, size_t);
struct Target {
  const char* name;
  Entry entry;
};
#define SCHEDSIM_TARGET_ROW(name) Target{#name, &name##_fuzz_one},
const Target kTargets[] = {SCHEDSIM_FUZZ_TARGET_LIST(SCHEDSIM_TARGET_ROW)};

std::vector<std::filesystem::path> inputs_under(const std::filesystem::path& p) {
  std::vector<std::filesystem::path> out;
  if (std::filesystem::is_directory(p)) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(p))
      if (e.is_regular_file()) out.push_back(e.path());
    std::sort(out.begin(), out.end());
  } else {
    out.push_back(p);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: fuzz_replay TARGET FILE|DIR...\n");
    return 2;
  }
  const Target* target = nullptr;
  for (const auto& t : kTargets)
    if (std::strcmp(t.name, argv[1]) == 0) target = &t;
  if (!target) {
    std::fprintf(stderr, "fuzz_replay: unknown target '%s'\n", argv[1]);
    return 2;
  }
  size_t count = 0;
  for (int i = 2; i < argc; ++i) {
    if (!std::filesystem::exists(argv[i])) {
      std::fprintf(stderr, "fuzz_replay: %s does not exist\n", argv[i]);
      return 2;
    }
    for (const auto& file : inputs_under(argv[i])) {
      std::ifstream in(file, std::ios::binary);
      std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      std::fprintf(stderr, "fuzz_replay %s: %s (%zu bytes)\n", target->name, file.c_str(), bytes.size());
      target->entry(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++count;
    }
  }
  std::printf("fuzz_replay %s: %zu inputs, no crash\n", target->name, count);
  return 0;
}
