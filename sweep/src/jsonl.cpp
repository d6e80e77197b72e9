// The sweep results file: header, ordered records, resume scanning, the record writer, merge.
#include "schedsim/sweep/jsonl.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "schedsim/base/atomic_file.hpp"
#include "schedsim/base/gzip.hpp"
#include "schedsim/base/error.hpp"

namespace schedsim::sweep {

namespace {

using ojson = nlohmann::ordered_json;

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string read_all(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(SourceLoc{path}, "cannot open " + what + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw InputError(SourceLoc{path}, "cannot open " + what + ": it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLoc{path}, "cannot open " + what + ": " + std::strerror(errno));
  check_whole_read_size(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// What changed between two canonical specs, as "/repeat: 10 -> 12; /params/gen.group changed".
std::string spec_diff(const ojson& was, const ojson& now) {
  std::vector<std::string> parts;
  for (const auto& op : ojson::diff(was, now)) {
    std::string path = op["path"].get<std::string>();
    std::string kind = op["op"].get<std::string>();
    if (kind == "replace") {
      ojson::json_pointer ptr(path);
      parts.push_back(path + ": " + was.at(ptr).dump() + " -> " + now.at(ptr).dump());
    } else if (kind == "add") {
      parts.push_back(path + " added");
    } else {
      parts.push_back(path + " removed");
    }
    if (parts.size() == 5) {
      parts.emplace_back("...");
      break;
    }
  }
  // Equal values, yet not the same header: keys in another order, or an edited spec_hash.
  if (parts.empty()) return "the same values, but in another order or under another spec_hash";
  return join(parts, "; ");
}

// True when `h` has member `key` holding a string equal to `want` (a member of another type is
// not the header we wrote: ojson::value() would throw type_error 302 on it, found by fuzzing).
bool string_member_is(const ojson& h, const char* key, std::string_view want) {
  auto it = h.find(key);
  return it != h.end() && it->is_string() && it->get_ref<const std::string&>() == want;
}

void check_header(const ojson& h, const std::string& path) {
  if (!h.is_object() || !string_member_is(h, "type", "sweep") || !string_member_is(h, "schema", kSweepSchema))
    throw InputError(SourceLoc{path, 1}, std::string("not a schedsim sweep results file (expected a header with \"schema\": \"") + kSweepSchema + "\")");
  if (!h.contains("version") || h["version"] != kSweepVersion)
    throw InputError(SourceLoc{path, 1}, fmt::format("unsupported sweep results version {}; this schedsim reads version {}",
                                                     h.contains("version") ? h["version"].dump() : "(none)", kSweepVersion));
  if (!h.contains("spec") || !h.contains("spec_hash") || !h["spec"].is_object() || !h["spec_hash"].is_string())
    throw InputError(SourceLoc{path, 1}, "sweep header without \"spec\" (an object) and \"spec_hash\" (a string)");
  if (h.contains("shard") && !h["shard"].is_string())
    throw InputError(SourceLoc{path, 1}, "sweep header's \"shard\" is not a string K/N");
}

ojson parse_header(const std::string& line, const std::string& path) {
  ojson h;
  try {
    h = ojson::parse(line);
  } catch (const ojson::exception&) {  // parse_error, or out_of_range (406) for a huge number
    throw InputError(SourceLoc{path, 1}, std::string("not a schedsim sweep results file (its first line is not the JSON header with \"schema\": \"") +
                                             kSweepSchema + "\")");
  }
  check_header(h, path);
  return h;
}

std::string unit_text(const Spec& spec, uint64_t unit) {
  return fmt::format("point {} rep {}", unit / spec.repeat, unit % spec.repeat);
}

}  // namespace

std::string Shard::text() const { return fmt::format("{}/{}", k, n); }

Shard parse_shard(const std::string& text, const std::string& option) {
  unsigned long k = 0, n = 0;
  char extra = 0;
  if (std::sscanf(text.c_str(), "%lu/%lu%c", &k, &n, &extra) != 2 || text.find('-') != std::string::npos)
    throw InputError(SourceLoc{option}, "expected K/N (the K-th of N slices, 1 <= K <= N), got '" + text + "'");
  if (n == 0 || k == 0 || k > n || n > 1000000)
    throw InputError(SourceLoc{option}, fmt::format("shard {} is out of range: need 1 <= K <= N <= 1000000", text));
  return Shard{static_cast<uint32_t>(k), static_cast<uint32_t>(n)};
}

namespace {
// FNV-1a 64 of a file's bytes, streamed (a trace may be gigabytes); "" when it cannot be read.
std::string file_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  uint64_t h = 0xcbf29ce484222325ull;
  std::string buf(1 << 16, '\0');
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    const auto n = static_cast<size_t>(in.gcount());
    for (size_t i = 0; i < n; ++i) {
      h ^= static_cast<uint8_t>(buf[i]);
      h *= 0x100000001b3ull;
    }
  }
  return in.bad() ? "" : fmt::format("{:016x}", h);
}
}  // namespace

nlohmann::ordered_json input_hashes(const Spec& spec) {
  // Which values name files is each option's business (a workload, a trace, a topology, cost
  // files, a mix file inside a generator spec, ...): every word of every value that names an
  // existing regular file is taken, so an option added later is covered too.
  std::set<std::string> paths;
  auto scan = [&paths](const std::string& value) {
    size_t at = 0;
    while (at < value.size()) {
      size_t end = value.find_first_of(",; \t", at);
      if (end == std::string::npos) end = value.size();
      if (end > at) {
        std::string word = value.substr(at, end - at);
        std::error_code ec;
        if (word != "-" && std::filesystem::is_regular_file(word, ec)) paths.insert(word);
      }
      at = end + 1;
    }
  };
  for (const auto& [k, v] : spec.fixed) scan(v);
  for (const Axis& a : spec.axes)
    for (const auto& values : a.values)
      for (const auto& v : values) scan(v);
  ojson out = ojson::object();
  for (const auto& p : paths) out[p] = file_hash(p);
  return out;
}

std::string header_line(const Spec& spec, const Shard& shard, const nlohmann::ordered_json* inputs) {
  ojson h;
  h["type"] = "sweep";
  h["schema"] = kSweepSchema;
  h["version"] = kSweepVersion;
  h["spec_hash"] = spec.hash();
  h["points"] = spec.nr_points();
  h["repeat"] = spec.repeat;
  if (shard.sharded()) h["shard"] = shard.text();
  h["spec"] = spec.to_json();
  // What the points read, so --resume can refuse when a file changed under the same spec.
  if (ojson in = inputs ? *inputs : input_hashes(spec); !in.empty()) h["inputs"] = std::move(in);
  return h.dump() + "\n";
}

std::vector<uint64_t> shard_units(const Spec& spec, const Shard& shard) {
  std::vector<uint64_t> out;
  uint64_t total = static_cast<uint64_t>(spec.nr_points()) * spec.repeat;
  for (uint64_t u = 0; u < total; ++u)
    if (shard.owns(u)) out.push_back(u);
  return out;
}

std::pair<uint64_t, uint64_t> record_key(const std::string& line, const std::string& where) {
  ojson j;
  try {
    j = ojson::parse(line);
  } catch (const ojson::exception&) {  // parse_error, or out_of_range (406) for a huge number
    throw InputError(SourceLoc{where}, "malformed record (not JSON)");
  }
  if (!j.is_object() || !j.contains(kRecordPoint) || !j.contains(kRecordRep) || !j[kRecordPoint].is_number_unsigned() ||
      !j[kRecordRep].is_number_unsigned())
    throw InputError(SourceLoc{where}, fmt::format("not a sweep record (expected non-negative integers \"{}\" and \"{}\")",
                                                   kRecordPoint, kRecordRep));
  return {j[kRecordPoint].get<uint64_t>(), j[kRecordRep].get<uint64_t>()};
}

Existing scan_existing(const std::string& path, const std::string& header, const Spec& spec,
                       const std::vector<uint64_t>& units) {
  std::string text = read_all(path, "results file");
  Existing ex;
  size_t nl = text.find('\n');
  if (nl == std::string::npos) {
    // Not even a whole header: the sweep was killed before its first write completed.
    if (!header.starts_with(text))
      throw InputError(SourceLoc{path, 1}, "not a schedsim sweep results file; refusing to --resume into it");
    ex.partial_tail = !text.empty();
    ex.keep_bytes = 0;
    return ex;
  }
  std::string first = text.substr(0, nl + 1);
  if (first != header) {
    ojson h = parse_header(first.substr(0, first.size() - 1), path);
    check_header(h, path);
    ojson now = ojson::parse(header);
    if (h["spec_hash"] != now["spec_hash"] || h["spec"] != now["spec"])
      throw InputError(SourceLoc{path, 1}, "the sweep spec changed since this file was started (" +
                                               spec_diff(h["spec"], now["spec"]) +
                                               "); refusing to --resume: write to a new file or restore the spec");
    auto what = [](const ojson& hdr) {
      return hdr.contains("shard") ? "shard " + hdr["shard"].get<std::string>() : std::string("the whole sweep");
    };
    if (what(h) != what(now))
      throw InputError(SourceLoc{path, 1}, "this file holds " + what(h) + ", not " + what(now) + "; refusing to --resume");
    if (!h.contains("inputs") && now.contains("inputs"))
      throw InputError(SourceLoc{path, 1}, "this file's header records no input hashes (written by an older schedsim), "
                                           "so an input changed since cannot be detected; refusing to --resume: write "
                                           "to a new file");
    const ojson none = ojson::object();
    const ojson& was = h.contains("inputs") ? h["inputs"] : none;
    const ojson& is = now.contains("inputs") ? now["inputs"] : none;
    for (auto it = is.begin(); it != is.end(); ++it) {
      if (!was.contains(it.key()))
        throw InputError(SourceLoc{path, 1}, fmt::format("the input '{}' was not read when this file was started (a "
                                                         "file created since, or one the header does not record); "
                                                         "refusing to --resume: write to a new file",
                                                         it.key()));
      if (was[it.key()] != it.value())
        throw InputError(SourceLoc{path, 1},
                         fmt::format("the input '{}' changed since this file was started (content hash {} -> {}): its "
                                     "records would mix two inputs; refusing to --resume: restore it or write to a new "
                                     "file",
                                     it.key(), was[it.key()].dump(), it.value().dump()));
    }
    for (auto it = was.begin(); it != was.end(); ++it)
      if (!is.contains(it.key()))
        throw InputError(SourceLoc{path, 1}, fmt::format("the input '{}' this file was started with is gone; refusing "
                                                         "to --resume: restore it or write to a new file",
                                                         it.key()));
    throw InputError(SourceLoc{path, 1}, "the header differs from the one this sweep writes, though spec, shard and "
                                         "inputs agree (edited, or written with other line endings?); refusing to "
                                         "--resume: write to a new file");
  }
  size_t pos = nl + 1;
  long lineno = 1;
  ex.keep_bytes = pos;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    ++lineno;
    if (end == std::string::npos) {
      ex.partial_tail = true;  // killed mid-write: dropped
      break;
    }
    std::string line = text.substr(pos, end - pos);
    std::string where = fmt::format("{}:{}", path, lineno);
    auto [point, rep] = record_key(line, where);
    if (ex.records >= units.size())
      throw InputError(SourceLoc{path, lineno}, "more records than the sweep has; refusing to --resume");
    uint64_t expect = units[ex.records];
    if (point * spec.repeat + rep != expect || rep >= spec.repeat)
      throw InputError(SourceLoc{path, lineno}, fmt::format("expected the record of {}, found point {} rep {}; refusing to --resume",
                                                            unit_text(spec, expect), point, rep));
    ++ex.records;
    pos = end + 1;
    ex.keep_bytes = pos;
  }
  return ex;
}

RecordWriter::RecordWriter(const std::string& path, const std::string& header, Mode mode)
    : path_(path), header_(header) {
  namespace fs = std::filesystem;
  fs::path p(path);
  fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(SourceLoc{path}, "cannot write results: directory '" + dir.string() + "' does not exist");
  if (fs::is_directory(p, ec)) throw InputError(SourceLoc{path}, "cannot write results: it is a directory");
  if (mode == Mode::kResume) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) throw InputError(SourceLoc{path}, std::string("cannot open results for --resume: ") + std::strerror(errno));
    lock();
    return;
  }
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0 && errno == EEXIST)
    throw InputError(SourceLoc{path}, "exists; --resume continues that sweep, or remove the file to start over");
  if (fd_ < 0) throw InputError(SourceLoc{path}, std::string("cannot create results: ") + std::strerror(errno));
  // A --resume that opened the file in the instant after O_EXCL created it may hold the lock:
  // then this sweep is the second writer and is refused like one.
  lock();
  write_all(header);
  ::fdatasync(fd_);
  last_sync_ms_ = now_ms();
}

void RecordWriter::lock() {
  int r;
  do r = ::flock(fd_, LOCK_EX | LOCK_NB);
  while (r != 0 && errno == EINTR);
  if (r == 0) return;
  int err = errno;
  // A file system without flock (some network mounts) leaves the file unguarded, as before.
  if (err == ENOLCK || err == EOPNOTSUPP || err == ENOSYS) return;
  ::close(fd_);
  fd_ = -1;
  if (err == EWOULDBLOCK)
    throw InputError(SourceLoc{path_}, "another schedsim sweep is writing this file (it holds its lock); "
                                       "wait for it to end, then --resume if it did not finish, or write to another file");
  throw InputError(SourceLoc{path_}, std::string("cannot lock results: ") + std::strerror(err));
}

void RecordWriter::resume_at(uint64_t keep_bytes) {
  if (::ftruncate(fd_, static_cast<off_t>(keep_bytes)) != 0 || ::lseek(fd_, 0, SEEK_END) < 0)
    throw InputError(SourceLoc{path_}, std::string("cannot truncate results: ") + std::strerror(errno));
  if (keep_bytes == 0) write_all(header_);
  ::fdatasync(fd_);
  last_sync_ms_ = now_ms();
}

RecordWriter::~RecordWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void RecordWriter::write_all(const std::string& line) {
  size_t done = 0;
  while (done < line.size()) {
    ssize_t w = ::write(fd_, line.data() + done, line.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      int err = errno;
      // Leave only whole records: cut what this line managed to write.
      off_t end = ::lseek(fd_, 0, SEEK_CUR);
      if (end >= 0 && ::ftruncate(fd_, end - static_cast<off_t>(done)) == 0) (void)::lseek(fd_, 0, SEEK_END);
      throw InputError(SourceLoc{path_}, std::string("cannot write results: ") + (w == 0 ? "no space" : std::strerror(err)));
    }
    done += static_cast<size_t>(w);
  }
}

void RecordWriter::append(const std::string& line) {
  write_all(line);
  int64_t t = now_ms();
  if (t - last_sync_ms_ >= 1000) {
    ::fdatasync(fd_);
    last_sync_ms_ = t;
  }
}

void RecordWriter::close() {
  if (fd_ < 0) return;
  bool ok = ::fdatasync(fd_) == 0 || errno == EINVAL;
  ok = ::close(fd_) == 0 && ok;
  fd_ = -1;
  if (!ok) throw InputError(SourceLoc{path_}, std::string("cannot write results: ") + std::strerror(errno));
}

ResultsFile read_results(const std::string& path) {
  std::string text = read_all(path, "sweep results");
  ResultsFile rf;
  rf.path = path;
  if (text.empty()) throw InputError(SourceLoc{path}, "empty file, expected a schedsim sweep results file");
  size_t pos = 0;
  long lineno = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    ++lineno;
    if (end == std::string::npos)
      throw InputError(SourceLoc{path, lineno}, "truncated last line (the sweep was interrupted; `schedsim sweep --resume` completes it)");
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (lineno == 1) {
      rf.header = parse_header(line, path);
      check_header(rf.header, path);
      rf.header_text = line;
      rf.spec = spec_from_json(rf.header["spec"].dump(), path + " (header spec)");
      if (rf.spec.hash() != rf.header["spec_hash"])
        throw InputError(SourceLoc{path, 1}, "the header's spec_hash does not match its spec (edited by hand?)");
      continue;
    }
    record_key(line, fmt::format("{}:{}", path, lineno));
    rf.records.push_back(std::move(line));
    rf.lines.push_back(lineno);
  }
  return rf;
}

std::vector<std::string> merge_results(const std::vector<std::string>& inputs, const std::string& output) {
  if (inputs.empty()) throw InputError("merge: no input files");
  // Renaming the merged file over a shard would replace an input the user still has only there.
  {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path out = fs::weakly_canonical(fs::absolute(output, ec), ec);
    for (const auto& p : inputs)
      if (output != "-" && fs::weakly_canonical(fs::absolute(p, ec), ec) == out)
        throw InputError(SourceLoc{output}, "-o names an input shard; write the merged file elsewhere");
  }
  std::vector<ResultsFile> files;
  files.reserve(inputs.size());
  for (const auto& p : inputs) files.push_back(read_results(p));
  const ResultsFile& first = files[0];
  for (const auto& f : files)
    if (f.header["spec_hash"] != first.header["spec_hash"])
      throw InputError(SourceLoc{f.path, 1}, "a different sweep than " + first.path + " (" +
                                                 spec_diff(first.header["spec"], f.header["spec"]) + "); refusing to merge");
  // The merged file records what the shards read when they ran, not what the files hold now;
  // shards that read different contents of one input are two sweeps.
  const ojson no_inputs = ojson::object();
  const ojson& inputs_of_first = first.header.contains("inputs") ? first.header["inputs"] : no_inputs;
  for (const auto& f : files) {
    const ojson& in = f.header.contains("inputs") ? f.header["inputs"] : no_inputs;
    if (in != inputs_of_first)
      throw InputError(SourceLoc{f.path, 1}, fmt::format("this shard read other inputs than {} ({} vs {}); refusing "
                                                         "to merge: rerun the shards on the same files",
                                                         first.path, in.dump(), inputs_of_first.dump()));
  }
  const Spec& spec = first.spec;
  uint64_t total = static_cast<uint64_t>(spec.nr_points()) * spec.repeat;
  std::vector<std::pair<int, long>> where(total, {-1, 0});  // file index, line
  std::vector<const std::string*> line_of(total, nullptr);
  for (size_t fi = 0; fi < files.size(); ++fi) {
    const auto& f = files[fi];
    for (size_t r = 0; r < f.records.size(); ++r) {
      auto [point, rep] = record_key(f.records[r], f.path);
      uint64_t u = point * spec.repeat + rep;
      if (point >= spec.nr_points() || rep >= spec.repeat)
        throw InputError(SourceLoc{f.path, f.lines[r]}, fmt::format("point {} rep {} is outside the sweep ({} points x {} repetitions)",
                                                                    point, rep, spec.nr_points(), spec.repeat));
      if (line_of[u])
        throw InputError(SourceLoc{f.path, f.lines[r]}, fmt::format("point {} rep {} is also in {}:{}; refusing to merge duplicates",
                                                                    point, rep, files[static_cast<size_t>(where[u].first)].path, where[u].second));
      line_of[u] = &f.records[r];
      where[u] = {static_cast<int>(fi), f.lines[r]};
    }
  }
  std::vector<uint64_t> missing;
  for (uint64_t u = 0; u < total; ++u)
    if (!line_of[u]) missing.push_back(u);
  if (!missing.empty()) {
    std::vector<std::string> names;
    for (size_t i = 0; i < missing.size() && i < 5; ++i) names.push_back(unit_text(spec, missing[i]));
    if (missing.size() > 5) names.emplace_back("...");
    throw InputError(fmt::format("merge: {} of {} records missing ({}); run the missing shards (with --resume if they were interrupted)",
                                 missing.size(), total, join(names, ", ")));
  }
  std::vector<std::string> out;
  out.push_back(header_line(spec, Shard{}, &inputs_of_first));
  for (uint64_t u = 0; u < total; ++u) out.push_back(*line_of[u] + "\n");
  AtomicFile f(output, "merged results");
  for (const auto& l : out) f.write(l);
  f.commit();
  return out;
}

}  // namespace schedsim::sweep
