#pragma once
// trace-cmd's binary trace.dat, read through libtracecmd (Debian libtracecmd-dev) and rendered
// as ftrace text lines, which the one text pipeline (line parser, reorder window, extractor)
// then reads like any other trace. Built only when CMake finds libtracecmd with pkg-config
// (SCHEDSIM_HAVE_TRACECMD); without it a trace.dat is refused with the fallback command.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "schedsim/traces/line_reader.hpp"

namespace schedsim::traces {

/// trace-cmd's file magic: 0x17 0x08 0x44 "tracing" (then the file version).
inline constexpr std::string_view kTraceDatMagic{"\x17\x08\x44tracing", 10};

/// True when this build reads trace.dat files (linked with libtracecmd).
bool tracedat_supported();

/// The libtracecmd version this build links (pkg-config's), "" without libtracecmd.
const char* tracedat_library_version();

/// Renders every event of a trace.dat as ftrace text: a "# tracer: nop" header, "cpus=N", then
/// one line per event in time order ("comm-pid [cpu] flags sec.nsec: name: fields", the fields
/// as the kernel's own print format renders them, no trace-cmd plugins, so prev_state letters
/// are exact), "CPU:N [LOST M EVENTS]" where a CPU's buffer dropped events, and a "BUF: "
/// prefix per line when the file holds several buffers with data (as `trace-cmd report`). A
/// trace clock that does not count nanoseconds (counter, x86-tsc, uptime) is rendered as
/// integers, so the text pipeline asks for --clock-hz. `data` holds the file's bytes
/// (decompressed) or is null to read `path`. Throws InputError naming `path` when libtracecmd
/// cannot read it, or when this build has no libtracecmd (naming the `trace-cmd report`
/// fallback).
std::string tracedat_to_text(const std::string& path, const std::string_view* data);

/// The CPU time tracedat_to_text() allows libtracecmd for a trace.dat of `bytes` bytes: 60 s plus
/// 30 s per MiB (more than ten times what the sanitizer build needs).
long tracedat_cpu_limit_seconds(uint64_t bytes);

/// What run_isolated() saw of its child.
struct IsolatedResult {
  enum Kind { kOk, kInputError, kCrashed, kCpuLimit, kFailed } kind = kFailed;
  std::string text;  ///< kOk: what the body returned; kInputError: the error's message
  int signal = 0;    ///< kCrashed / kCpuLimit: the signal that ended the child
};

/// Runs `body` in a forked child process limited to `cpu_seconds` of CPU time (RLIMIT_CPU) and
/// without core files, and returns what it produced: its string, the message of an InputError it
/// threw, or how it ended (killed by a signal; over the CPU limit; any other failure). Used for
/// libraries that trust their input (libtracecmd), so that their crash or endless loop on a
/// damaged file is an error of schedsim, not a crash or a hang. Throws InputError when the pipe
/// or the fork cannot be made.
IsolatedResult run_isolated(const std::function<std::string()>& body, long cpu_seconds);

/// If `path` (or `data`, its bytes) is a trace.dat, plain or inside gzip/zstd, its text rendering
/// (tracedat_to_text); nullopt for anything else and for standard input ("-", which cannot be
/// peeked at). Throws InputError as tracedat_to_text does, or when the file cannot be read.
/// For a trace.dat, `source` gets the file's own compression and the trace.dat's size (what
/// `trace info` names, rather than the rendered text's).
struct TraceDatSource {
  Compression compression = Compression::kNone;
  uint64_t bytes = 0;  ///< of the trace.dat, decompressed
};
std::optional<std::string> tracedat_text_if_any(const std::string& path, const std::string_view* data,
                                                TraceDatSource* source = nullptr);

}  // namespace schedsim::traces
