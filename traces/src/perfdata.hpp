#pragma once
// perf.data (`perf record`, `perf sched record`), read directly: the file header, the attribute
// table, the header features (os release, CPU count, the tracing-data section with the event
// formats) and the sample records of the tracepoints, decoded into TraceEvents in time order.
// The import then treats them as it treats parsed text lines (reorder window, clock checks,
// extraction), without rendering or parsing any text. Layouts: tools/perf/util/header.c,
// tools/perf/util/trace-event-read.c and include/uapi/linux/perf_event.h (docs/traces.md).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "schedsim/traces/line_reader.hpp"
#include "schedsim/traces/task_state.hpp"
#include "schedsim/traces/trace_event.hpp"

namespace schedsim::traces {

/// perf.data's file magic ("PERFILE2" as a little-endian u64); "PERFFILE" is the pre-2.6.39 format.
inline constexpr std::string_view kPerfDataMagic{"PERFILE2", 8};

/// What the header says about the recording (for the import report and `trace info`).
struct PerfDataInfo {
  std::string osrelease;     ///< HEADER_OSRELEASE ("6.18.44-..."), "" when absent
  std::string perf_version;  ///< HEADER_VERSION
  int64_t nr_cpus = -1;      ///< HEADER_NRCPUS, CPUs available (-1 when absent)
  bool compressed = false;   ///< the records were zstd-compressed (perf record -z)
  bool pipe = false;         ///< pipe mode (perf record -o -): the header travels as records
  uint64_t bytes = 0;        ///< the perf.data's size (decompressed when gzip/zstd held it)
};

/// munmap() of a mapping of `len` bytes (PerfDataBytes' deleter).
struct PerfDataUnmap {
  size_t len = 0;
  void operator()(void* p) const;
};

/// A perf.data's bytes: a read-only mapping of a plain file (the page cache holds it, not the
/// process's heap), the caller's buffer (which must outlive it), or a decompressed copy. Moves
/// keep the view valid: it is derived from whichever of the three is held.
class PerfDataBytes {
 public:
  PerfDataBytes() = default;
  explicit PerfDataBytes(std::string owned) : owned_(std::move(owned)) {}
  static PerfDataBytes borrowed(std::string_view v) {
    PerfDataBytes b;
    b.borrowed_ = v;
    return b;
  }
  /// Maps `path` (`size` bytes); throws InputError naming it when mmap fails.
  static PerfDataBytes mapped(const std::string& path, size_t size);
  std::string_view view() const {
    if (map_) return {static_cast<const char*>(map_.get()), map_.get_deleter().len};
    return owned_.empty() ? borrowed_ : std::string_view(owned_);
  }

 private:
  std::string owned_;
  std::string_view borrowed_;
  std::unique_ptr<void, PerfDataUnmap> map_;
};

/// A perf.data file, indexed. Construction reads the header, the features and the event formats
/// and sorts every record by time (perf's own ordering: `perf script` prints in the same order).
/// Throws InputError naming `path` and the byte offset for anything it cannot read: a foreign
/// byte order, pipe mode, a directory (--threads) recording, a section or record past the end of
/// the file, a sample too short for its format, a field out of range.
class PerfData {
 public:
  /// `file`: the whole perf.data (decompressed). `layout`: how to read sched_switch's numeric
  /// prev_state; nullptr picks it from the header's os release (an error when there is none).
  PerfData(PerfDataBytes file, const std::string& path, const StateLayout* layout);
  ~PerfData();
  PerfData(const PerfData&) = delete;
  PerfData& operator=(const PerfData&) = delete;

  enum class Item : uint8_t { kEvent, kLost, kFork, kEnd };
  /// The next item in time order. kEvent fills `ev`, with ev.line the sample's 1-based position
  /// among the tracepoint samples in time order: the line of `perf script --ns -i FILE` that
  /// prints it when the recording holds only tracepoints (as perf sched record's does).
  /// kLost: lost_cpu() / lost_count() describe events the kernel dropped there.
  /// kFork: a FORK record (perf synthesizes one for every task alive when recording starts):
  /// fork_tid() was created by process fork_ppid(), the parent perf's thread table keeps.
  Item next(TraceEvent& ev);
  /// Back to the first record (the import reads a trace twice to select tasks by comm).
  void rewind();
  int32_t lost_cpu() const { return lost_cpu_; }
  int64_t lost_count() const { return lost_count_; }
  int64_t fork_tid() const { return fork_tid_; }
  int64_t fork_ppid() const { return fork_ppid_; }
  StateLayout layout() const;
  const PerfDataInfo& info() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int32_t lost_cpu_ = -1;
  int64_t lost_count_ = -1;
  int64_t fork_tid_ = -1, fork_ppid_ = -1;
};

/// True when `head` (a file's first bytes) is a perf.data of either generation or byte order.
bool looks_like_perf_data(std::string_view head);

/// If `path` (or `data`, its bytes) is a perf.data, plain or inside gzip/zstd, its bytes
/// (decompressed), with the file's own compression in `compression`; nullopt for anything else
/// and for standard input ("-", which cannot be peeked at). Throws InputError when the file
/// cannot be read or its compressed stream ends early.
std::optional<PerfDataBytes> perf_data_bytes_if_any(const std::string& path, const std::string_view* data,
                                                    Compression* compression);

}  // namespace schedsim::traces
