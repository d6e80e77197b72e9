#pragma once
/// The sweep's JSON Lines results file (docs/sweep.md "Results file"): a header record naming
/// the spec and its hash, then one record per (point, repetition) in that order. The file is
/// always a prefix of the complete output: records are written in order, each with one write()
/// of a whole line, so a killed sweep leaves whole records (and at worst a partial last line,
/// which --resume drops).
#include <cstdint>
#include <string>
#include <vector>

#include "schedsim/sweep/spec.hpp"

namespace schedsim::sweep {

inline constexpr const char* kSweepSchema = "schedsim-sweep";
inline constexpr int kSweepVersion = 1;
/// The record members this module reads (the rest of a record is opaque to it): the point index
/// and the repetition index. driver/src/sweep_params.cpp write_record() writes the rest.
inline constexpr const char* kRecordType = "run";
inline constexpr const char* kRecordPoint = "point";
inline constexpr const char* kRecordRep = "rep";

/// Shard K of N (1-based); N == 0 means "not sharded".
struct Shard {
  uint32_t k = 1, n = 0;
  bool sharded() const { return n > 0; }
  /// Unit u (= point * repeat + rep) belongs to shard K when u % N == K - 1 (round robin, so
  /// slow and fast points spread over the shards).
  bool owns(uint64_t unit) const { return !sharded() || unit % n == k - 1; }
  std::string text() const;
};
/// Parses "K/N" (1 <= K <= N). Throws InputError naming `option`.
Shard parse_shard(const std::string& text, const std::string& option);

/// The header line (with '\n'): {"type":"sweep","schema":...,"version":1,"spec_hash":...,
/// "points":P,"repeat":R,["shard":"K/N",]"spec":{...}[,"inputs":{PATH: HASH}]}.
/// `inputs`: the "inputs" member to write (merge: the shards'); null computes input_hashes().
std::string header_line(const Spec& spec, const Shard& shard, const nlohmann::ordered_json* inputs = nullptr);
/// The files the points read: every word of a parameter value (split at ',', ';' and blanks)
/// that names an existing regular file, each with the FNV-1a 64 of its content (16 hex digits).
nlohmann::ordered_json input_hashes(const Spec& spec);

/// The units (point * repeat + rep) of `shard`, in output order.
std::vector<uint64_t> shard_units(const Spec& spec, const Shard& shard);

/// What an existing results file holds, checked against what this sweep would write.
struct Existing {
  size_t records = 0;          ///< whole records present (a prefix of `units`)
  uint64_t keep_bytes = 0;     ///< file size without a partial trailing line
  bool partial_tail = false;   ///< a trailing line without '\n' was found (to be dropped)
};
/// Reads `path` for --resume: the header must equal `header` byte for byte (otherwise an
/// InputError says what changed in the spec), every record must be the next expected unit.
Existing scan_existing(const std::string& path, const std::string& header, const Spec& spec,
                       const std::vector<uint64_t>& units);

/// Appends whole lines to a results file: one write() per line (retried for the rest if the
/// kernel writes less); fdatasync() at most once a second and at close(). Not thread-safe.
///
/// The writer holds an exclusive flock(2) on the file for its whole life, taken before anything
/// is read or truncated: a second sweep or `--resume` on the same file is refused at once
/// (another sweep's records would otherwise interleave with this one's, or be truncated away
/// under it). The lock goes with the descriptor, so a killed sweep leaves none behind.
class RecordWriter {
 public:
  enum class Mode { kCreate, kResume };
  /// kCreate: creates `path` (it must not exist), locks it and writes `header`. kResume: opens
  /// the existing `path` and locks it; the caller then scans it (scan_existing) and calls
  /// resume_at. Throws InputError (also when another process holds the lock).
  RecordWriter(const std::string& path, const std::string& header, Mode mode);
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;
  ~RecordWriter();
  /// kResume: truncates the file to `keep_bytes` (its whole records) and appends from there;
  /// writes the header when nothing is kept.
  void resume_at(uint64_t keep_bytes);
  void append(const std::string& line);
  /// fdatasync and close. Throws InputError.
  void close();

 private:
  void write_all(const std::string& line);
  void lock();
  std::string path_, header_;
  int fd_ = -1;
  int64_t last_sync_ms_ = 0;
};

/// One results file's lines: the header and the record lines (without '\n').
struct ResultsFile {
  std::string path;
  std::string header_text;
  nlohmann::ordered_json header;
  Spec spec;
  std::vector<std::string> records;
  std::vector<long> lines;   ///< line number of each record
};
/// Reads a whole results file (merge, summary). Throws InputError: missing file, no header,
/// malformed line (path:line), a truncated last line.
ResultsFile read_results(const std::string& path);

/// `schedsim merge`: checks that every input has the same spec, that every (point, repetition)
/// is present exactly once, and writes the header and the records in order to `output`
/// atomically; the result is byte-identical to an unsharded run of the spec. Returns the merged
/// lines (header first). Throws InputError.
std::vector<std::string> merge_results(const std::vector<std::string>& inputs, const std::string& output);

/// The (point, rep) of a record line; throws InputError naming `where` on a bad record.
std::pair<uint64_t, uint64_t> record_key(const std::string& line, const std::string& where);

}  // namespace schedsim::sweep
