#pragma once
/// Shared pieces of the libFuzzer targets (docs/reliability.md "Fuzzing").
///
/// Each <reader>_fuzz.cpp defines its entry point with SCHEDSIM_FUZZ_TARGET(name). In the fuzz
/// build (clang, -fsanitize=fuzzer) that is LLVMFuzzerTestOneInput; in the normal build the same
/// file is compiled into `fuzz_replay` (fuzz/replay_main.cpp) under the name <name>_fuzz_one, so
/// the regression inputs under tests/data/fuzz-regressions/ replay with GCC in every ctest run.
///
/// The contract of every target: an input the reader rejects with InputError is fine; anything
/// else escaping (another exception, an assertion, a sanitizer report, a hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "schedsim/traces/import.hpp"

#ifdef SCHEDSIM_FUZZ_REPLAY
#define SCHEDSIM_FUZZ_TARGET(name) int name##_fuzz_one(const uint8_t* data, size_t size)
#else
#define SCHEDSIM_FUZZ_TARGET(name) extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
#endif

namespace schedsim::fuzz {

/// The input as text (bytes unchanged, NULs included).
inline std::string_view as_text(const uint8_t* data, size_t size) {
  return size == 0 ? std::string_view() : std::string_view(reinterpret_cast<const char*>(data), size);
}

/// Sends every module logger to a null sink once (warnings are still formatted, not printed).
void quiet_logs();

/// Takes the first byte of `in` (0 when empty) and advances past it: for targets whose first
/// byte chooses options.
uint8_t take_byte(std::string_view& in);

/// Lines of `text` split on '\n' (a final line without '\n' included).
std::vector<std::string_view> split_lines(std::string_view text);

/// The whole trace import (sniffing, decompression, line parsing, reorder window, extraction) on
/// `text` held in memory. An InputError is an expected rejection; a workload that import
/// accepted must also pass validate_workload(), be written (JSON and CBOR, to a scratch directory)
/// and read back by the native reader, and the report and workload summaries (`trace info`) must
/// render.
void import_and_check(std::string_view text, const traces::ExtractOptions& opt);

/// The body of the per-format trace targets (ftrace, tracecmd, perf): import_and_check() of the
/// input with default options except a reorder window of 64 events (the inputs are small; a
/// 4096-event pool per input would cost more than the parse). trace_import_fuzz runs the
/// default window and varies the options.
void import_small_window(const uint8_t* data, size_t size);

/// import_small_window() of a binary format's input with `magic` put in front when it does not
/// start with it (tracedat, perfdata), so the fuzzer spends its time past the magic.
void import_with_magic(const uint8_t* data, size_t size, std::string_view magic);

/// The body of the native workload targets (workload_json, workload_cbor): read_workload_buffer()
/// of the input under the name `source` (its extension is only a hint: the reader sniffs the
/// bytes), then the `trace info` summary of what it accepted.
void read_workload_and_describe(const uint8_t* data, size_t size, const char* source);

/// Aborts with `what` on stderr: a harness-level finding (an invariant the reader broke without
/// crashing by itself).
[[noreturn]] void finding(const std::string& what);

/// A private directory under /dev/shm (else $TMPDIR or /tmp), emptied by reset() and removed at exit.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  /// Removes everything inside.
  void reset();
  /// Writes `content` to `relative` (parent directories created); false if the name is unsafe.
  bool write(const std::string& relative, std::string_view content);

 private:
  std::string path_;
};

}  // namespace schedsim::fuzz
