// perf.data read directly (perfdata.hpp). Layouts, in our own words:
//  * file header (tools/perf/util/header.h, struct perf_file_header): magic "PERFILE2", header
//    size, size of one attribute entry, then (offset, size) of the attribute table, the data and
//    the unused event-type table, then a 256-bit bitmap of the features whose sections follow
//    the data, one (offset, size) each, in bit order;
//  * an attribute entry: a struct perf_event_attr (include/uapi/linux/perf_event.h: type,
//    size, config, sample_period, sample_type, read_format, then the flag bits with
//    sample_id_all at bit 18), then the (offset, size) of its u64 sample ids;
//  * records: struct perf_event_header (u32 type, u16 misc, u16 size) and a body; a sample's
//    body holds the fields its sample_type asks for, in the order of the PERF_SAMPLE_* bits
//    (IDENTIFIER first), and every other kernel record ends with the sample_id fields
//    (TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER) when sample_id_all is set;
//  * the tracing-data feature (tools/perf/util/trace-event-read.c): "\x17\x08\x44tracing", a
//    version string, endianness, long size, page size, the header_page and header_event
//    files, the ftrace formats and then, per system, the event format files tracefs shows
//    (name, ID, one "field:TYPE NAME; offset:N; size:N; signed:N;" line per field).
// The format files are parsed here rather than by libtraceevent: only field offsets and sizes
// are needed, and an in-process library that trusts its input would make a damaged file a
// crash (libtracecmd runs in a child process for that reason, tracedat.cpp).
#include "perfdata.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unordered_map>

#include "schedsim/base/error.hpp"
#include "schedsim/traces/line_parser.hpp"
#include "syscall_lines.hpp"
#include "tracedat.hpp"

namespace schedsim::traces {

namespace {

// PERF_SAMPLE_* bits (include/uapi/linux/perf_event.h).
constexpr uint64_t kSampleIp = 1u << 0, kSampleTid = 1u << 1, kSampleTime = 1u << 2, kSampleAddr = 1u << 3,
                   kSampleRead = 1u << 4, kSampleCallchain = 1u << 5, kSampleId = 1u << 6, kSampleCpu = 1u << 7,
                   kSamplePeriod = 1u << 8, kSampleStreamId = 1u << 9, kSampleRaw = 1u << 10,
                   kSampleIdentifier = 1u << 16;
// PERF_FORMAT_* bits of read_format.
constexpr uint64_t kFormatEnabled = 1, kFormatRunning = 2, kFormatId = 4, kFormatGroup = 8, kFormatLost = 16;
// Record types (PERF_RECORD_*; 64 and above are perf's own, without a sample_id trailer, and
// only the compressed ones among those are read).
constexpr uint32_t kRecLost = 2, kRecComm = 3, kRecFork = 7, kRecSample = 9, kRecLostSamples = 13,
                   kRecCompressed = 81, kRecCompressed2 = 83;
// Pipe mode's header records (perf record -o -): an attribute with its ids, the tracing data
// (whose bytes follow the record, outside its size, padded to 8), one header feature.
constexpr uint32_t kRecHeaderAttr = 64, kRecHeaderTracingData = 66, kRecHeaderFeature = 80;
// Header features (HEADER_* of tools/perf/util/header.h).
constexpr int kFeatTracingData = 1, kFeatOsRelease = 4, kFeatVersion = 5, kFeatNrCpus = 7,
              kFeatDirFormat = 24;
constexpr uint32_t kAttrTypeTracepoint = 2;
constexpr uint64_t kAttrSampleIdAll = uint64_t{1} << 18;
constexpr size_t kHeaderSize = 104;
// The most records indexed: 64 Mi, 1.5 GiB of index (a perf script text of 8 GB or more).
constexpr size_t kMaxRecords = size_t{1} << 26;

struct Section {
  uint64_t offset = 0, size = 0;
};

struct Attr {
  uint32_t type = 0;
  uint64_t sample_type = 0, read_format = 0;
  bool sample_id_all = false;
};

// One field of an event format. loc: 0 a plain value, 1 __data_loc (u32: length << 16 | offset
// from the record start), 2 __rel_loc (the offset counts from the end of the field).
struct Field {
  uint32_t off = 0, size = 0;
  bool is_signed = false, present = false;
  uint8_t loc = 0;
};

// What an event's fields become (TraceEvent's members, trace_event.hpp).
struct Format {
  std::string name;
  EventType type = EventType::kOther;
  enum Extra : uint8_t { kNone, kSysEnter, kSysExit, kCpuIdle, kIpiSendCpu } extra = kNone;
  Field comm, pid, prio, state, other_comm, other_pid, other_prio, success, target_cpu, orig_cpu, value, value2, file;
};

// A record to deliver, sorted by time. buf: 0 the file, 1 the decompressed records.
struct Rec {
  int64_t ts;
  uint64_t off;
  uint32_t kind;   // record type
  uint16_t buf;
  uint16_t attr;   // index into attrs
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// "key:N;" inside a field line; false when absent or not a number.
bool field_number(std::string_view line, std::string_view key, uint32_t& out) {
  size_t p = line.find(key);
  if (p == std::string_view::npos) return false;
  p += key.size();
  uint64_t v = 0;
  size_t q = p;
  while (q < line.size() && line[q] >= '0' && line[q] <= '9' && q - p < 10) v = v * 10 + static_cast<uint64_t>(line[q++] - '0');
  if (q == p || v > std::numeric_limits<uint32_t>::max()) return false;
  out = static_cast<uint32_t>(v);
  return true;
}

}  // namespace

struct PerfData::Impl {
  std::string path;
  PerfDataBytes source;
  std::string_view file;
  std::string inflated;  // PERF_RECORD_COMPRESSED payloads, decompressed
  PerfDataInfo info;
  StateLayout layout = StateLayout::kV4_14;
  std::string layout_source;  // for messages: "--kernel-version" or "its os release 6.1.0"
  std::vector<Attr> attrs;
  std::unordered_map<uint64_t, uint16_t> attr_of_id;
  // The same for the small ids perf hands out (a few per CPU and event): a flat table.
  static constexpr uint16_t kNoAttr = 0xffff;
  std::vector<uint16_t> id_attr;
  bool identifier = false;    // PERF_SAMPLE_IDENTIFIER: records name their attribute
  bool has_tracing = false;   // the tracing data (event formats) was read
  std::unordered_map<uint32_t, Format> formats;  // by tracepoint id (common_type)
  std::vector<Rec> recs;
  size_t next_rec = 0;
  long ordinal = 0;
  std::unordered_map<int64_t, std::string> comms;  // perf's thread comm, as perf script prints it
  std::unordered_map<int64_t, int64_t> tgids;      // thread group by tid, from COMM and FORK records

  [[noreturn]] void fail(uint64_t at, const std::string& msg) const {
    throw InputError(SourceLoc{path}, fmt::format("perf.data byte {}: {}", at, msg));
  }
  std::string_view bytes(uint32_t buf) const { return buf == 0 ? std::string_view(file) : std::string_view(inflated); }
  // `n` bytes at `at` of buffer `buf`, or an error naming `what`.
  void need(std::string_view b, uint64_t at, uint64_t n, const char* what) const {
    if (at > b.size() || n > b.size() - at)
      fail(at, fmt::format("{} ({} bytes) runs past the end of the {} ({} bytes): file cut or damaged", what, n,
                           b.data() == file.data() ? "file" : "decompressed records", b.size()));
  }
  static uint64_t rd(std::string_view b, uint64_t at, uint32_t n) {
    uint64_t v = 0;
    std::memcpy(&v, b.data() + at, n);  // little-endian host and file (checked at the magic)
    return v;
  }
  uint64_t u64(std::string_view b, uint64_t at, const char* what) const {
    need(b, at, 8, what);
    return rd(b, at, 8);
  }
  // A u64 size at `at` and that many bytes after it: the bytes and the offset past them.
  std::pair<std::string_view, uint64_t> sized_text(std::string_view b, uint64_t at, const char* what) const {
    const uint64_t n = u64(b, at, what);
    need(b, at + 8, n, what);
    return {b.substr(at + 8, n), at + 8 + n};
  }
  uint32_t u32(std::string_view b, uint64_t at, const char* what) const {
    need(b, at, 4, what);
    return static_cast<uint32_t>(rd(b, at, 4));
  }

  void read_header();
  void read_pipe();
  static uint64_t after_pipe_tracing_data(std::string_view b, uint64_t at, uint64_t rend);
  void require_tracing(uint64_t at) const;
  void read_attrs(const Section& s, uint64_t attr_size);
  void add_attr(std::string_view b, uint64_t at, const Section& ids);
  void check_attrs(uint64_t at);
  void read_features(const Section& data, const std::array<uint64_t, 4>& bits);
  void read_feature(int f, const Section& s);
  std::string feature_string(const Section& s, const char* what) const;
  void read_tracing_data(const Section& s);
  void read_format(std::string_view text, std::string_view system, uint64_t at);
  void index_records(uint32_t buf, uint64_t begin, uint64_t end);
  void inflate(std::string_view payload, uint64_t at, ZSTD_DCtx* dctx);
  uint16_t attr_for(std::string_view b, uint64_t at, uint64_t body, uint64_t end, bool sample) const;
  int64_t trailer_time(std::string_view b, uint64_t at, uint64_t end, const Attr& a, int32_t* cpu) const;
  void decode_sample(std::string_view b, uint64_t at, uint16_t attr, TraceEvent& ev);
  void decode_fields(const Format& f, std::string_view raw, uint64_t at, TraceEvent& ev);
};

void PerfData::Impl::read_header() {
  const std::string_view b(file);
  need(b, 0, 16, "the file header");
  const std::string_view magic = b.substr(0, 8);
  if (magic == "2ELIFREP")
    fail(0, "a big-endian perf.data (recorded on another architecture): convert it there with "
            "'perf script --ns -i FILE > trace.txt' and give schedsim the text");
  if (magic == "PERFFILE")
    fail(0, "a perf.data of the pre-2.6.39 format (magic PERFFILE): convert it with "
            "'perf script --ns -i FILE > trace.txt'");
  if (magic != kPerfDataMagic) fail(0, "not a perf.data file: expected the magic PERFILE2");
  const uint64_t hsize = rd(b, 8, 8);
  if (hsize == 16) {
    read_pipe();
    return;
  }
  if (hsize < kHeaderSize)
    fail(8, fmt::format("file header size {}: expected at least {} (a perf.data of another format)", hsize, kHeaderSize));
  need(b, 0, kHeaderSize, "the file header");
  const uint64_t attr_size = rd(b, 16, 8);
  const Section attr_table{rd(b, 24, 8), rd(b, 32, 8)};
  const Section data{rd(b, 40, 8), rd(b, 48, 8)};
  std::array<uint64_t, 4> bits{};
  for (size_t i = 0; i < 4; ++i) bits[i] = rd(b, 72 + 8 * i, 8);
  if (bits[kFeatDirFormat / 64] >> (kFeatDirFormat % 64) & 1)
    fail(72, "a perf.data directory recording (perf record --threads): its data is in other files; "
             "convert it with 'perf script --ns -i DIR > trace.txt'");
  read_attrs(attr_table, attr_size);
  read_features(data, bits);
  need(b, data.offset, data.size, "the data section");
  index_records(0, data.offset, data.offset + data.size);
  // perf's order (ordered_events): by time; records with equal times keep the file's order.
  std::stable_sort(recs.begin(), recs.end(), [](const Rec& x, const Rec& y) { return x.ts < y.ts; });
}

void PerfData::Impl::read_attrs(const Section& s, uint64_t attr_size) {
  const std::string_view b(file);
  // An entry is a perf_event_attr (at least PERF_ATTR_SIZE_VER0, 64 bytes) and the (offset,
  // size) of its ids.
  if (attr_size < 64 + 16 || attr_size > 4096)
    fail(16, fmt::format("attribute entry size {}: expected 80..4096", attr_size));
  need(b, s.offset, s.size, "the attribute table");
  if (s.size == 0 || s.size % attr_size != 0)
    fail(24, fmt::format("attribute table of {} bytes: expected a positive multiple of the entry size {}", s.size,
                         attr_size));
  for (uint64_t at = s.offset; at < s.offset + s.size; at += attr_size) {
    const uint64_t ids_at = at + attr_size - 16;
    const Section ids{rd(b, ids_at, 8), rd(b, ids_at + 8, 8)};
    need(b, ids.offset, ids.size, "an attribute's sample ids");
    add_attr(b, at, ids);
  }
  check_attrs(s.offset);
}

// One perf_event_attr at `at` (at least PERF_ATTR_SIZE_VER0 bytes, checked by the caller) and
// the sample ids at `ids` that name it.
void PerfData::Impl::add_attr(std::string_view b, uint64_t at, const Section& ids) {
  Attr a;
  a.type = static_cast<uint32_t>(rd(b, at, 4));
  a.sample_type = rd(b, at + 24, 8);
  a.read_format = rd(b, at + 32, 8);
  a.sample_id_all = (rd(b, at + 40, 8) & kAttrSampleIdAll) != 0;
  if (attrs.size() >= kNoAttr) fail(at, fmt::format("more than {} attributes", kNoAttr - 1));
  const auto index = static_cast<uint16_t>(attrs.size());
  for (uint64_t i = 0; i + 8 <= ids.size; i += 8) {
    const uint64_t id = rd(b, ids.offset + i, 8);
    attr_of_id[id] = index;
    if (id < 65536) {
      if (id >= id_attr.size()) id_attr.resize(id + 1, kNoAttr);
      id_attr[id] = index;
    }
  }
  attrs.push_back(a);
}

// Every attribute read: can samples be told apart, and do the tracepoints carry what is decoded?
void PerfData::Impl::check_attrs(uint64_t at) {
  const bool uniform =
      std::all_of(attrs.begin(), attrs.end(), [&](const Attr& a) { return a.sample_type == attrs[0].sample_type; });
  identifier = std::all_of(attrs.begin(), attrs.end(), [](const Attr& a) { return (a.sample_type & kSampleIdentifier) != 0; });
  if (!uniform && !identifier)
    fail(at, "attributes of different sample types without PERF_SAMPLE_IDENTIFIER: records cannot be "
                   "told apart (perf sets it itself; was the file written by another tool?)");
  for (const Attr& a : attrs)
    if (a.type == kAttrTypeTracepoint && !((a.sample_type & kSampleTime) && (a.sample_type & kSampleCpu) &&
                                           (a.sample_type & kSampleTid) && (a.sample_type & kSampleRaw)))
      fail(at, "tracepoint samples recorded without time, CPU, tid or raw data: record with "
                     "'perf sched record' or 'perf record -e sched:* -R -T' (not -a without --raw-samples)");
}

std::string PerfData::Impl::feature_string(const Section& s, const char* what) const {
  const std::string_view b(file);
  const uint32_t len = u32(b, s.offset, what);
  need(b, s.offset + 4, len, what);
  std::string_view v = b.substr(s.offset + 4, len);
  return std::string(v.substr(0, v.find('\0')));
}

void PerfData::Impl::read_features(const Section& data, const std::array<uint64_t, 4>& bits) {
  const std::string_view b(file);
  // The section table follows the data, one entry per feature bit set (bit 0 is reserved).
  uint64_t at = data.offset + data.size;
  if (at < data.offset) fail(40, "the data section's offset and size overflow");
  for (int f = 1; f < 256; ++f) {
    if (!((bits[static_cast<size_t>(f / 64)] >> (f % 64)) & 1)) continue;
    const Section s{u64(b, at, "the feature table"), u64(b, at + 8, "the feature table")};
    at += 16;
    need(b, s.offset, s.size, "a feature section");
    read_feature(f, s);
  }
  require_tracing(72);
}

// Both layouts end their header with this check: `at` is where the tracing data was looked for.
void PerfData::Impl::require_tracing(uint64_t at) const {
  if (!has_tracing)
    fail(at, "no tracing data (the event formats): not a recording of tracepoints; record with "
             "'perf sched record' or 'perf record -e sched:*'");
}

// A pipe's HEADER_TRACING_DATA record (at `at`, ending at `rend`) is followed by its data, of the
// size the record holds, padded to 8 bytes: where the next record starts.
uint64_t PerfData::Impl::after_pipe_tracing_data(std::string_view b, uint64_t at, uint64_t rend) {
  return rend + ((rd(b, at + 8, 4) + 7) & ~uint64_t{7});
}

// One header feature's section (a file's feature table, or a pipe's HEADER_FEATURE record).
void PerfData::Impl::read_feature(int f, const Section& s) {
  const std::string_view b(file);
  switch (f) {
    case kFeatTracingData:
      read_tracing_data(s);
      has_tracing = true;
      break;
    case kFeatOsRelease: info.osrelease = feature_string(s, "the os release"); break;
    case kFeatVersion: info.perf_version = feature_string(s, "the perf version"); break;
    case kFeatNrCpus: {
      // The same bound as a text trace's "#P:" header (a CpuMask's size).
      const uint32_t n = u32(b, s.offset, "the CPU count");
      if (n > uint32_t{kMaxCpu} + 1)
        fail(s.offset, fmt::format("the header's CPU count {} is out of range: schedsim models CPUs 0..{}", n, kMaxCpu));
      info.nr_cpus = n;
      break;
    }
    default: break;
  }
}

// Pipe mode (perf record -o -, a 16-byte header): the attributes, features and tracing data come
// as records ahead of the samples that need them. They are read first; the data is then indexed
// as a file's data section is (index_records() steps over them).
void PerfData::Impl::read_pipe() {
  const std::string_view b(file);
  info.pipe = true;
  for (uint64_t at = 16; at < b.size();) {
    need(b, at, 8, "a record header");
    const auto type = static_cast<uint32_t>(rd(b, at, 4));
    const auto size = static_cast<uint16_t>(rd(b, at + 6, 2));
    if (size < 8) fail(at, fmt::format("a record of {} bytes: shorter than its own header", size));
    need(b, at, size, "a record");
    const uint64_t rend = at + size;
    if (type == kRecHeaderAttr) {
      // The attribute, its own size at offset 4, then its ids up to the record's end.
      if (size < 8 + 64)
        fail(at, fmt::format("an attribute record of {} bytes: too short for an attribute (at least 72)", size));
      const uint32_t asize = u32(b, at + 12, "an attribute's size");
      if (asize < 64 || asize > size - 8u)
        fail(at + 12, fmt::format("attribute size {}: expected 64..{} (the record's)", asize, size - 8u));
      add_attr(b, at + 8, Section{at + 8 + asize, rend - (at + 8 + asize)});
    } else if (type == kRecHeaderFeature) {
      if (size < 16) fail(at, "a header feature record too short for its feature id");
      const uint64_t f = rd(b, at + 8, 8);
      if (f >= 1 && f < 256) read_feature(static_cast<int>(f), Section{at + 16, size - 16u});
    } else if (type == kRecHeaderTracingData) {
      if (size < 12) fail(at, "a tracing data record too short for its size");
      const Section s{rend, u32(b, at + 8, "the tracing data's size")};
      need(b, s.offset, s.size, "the tracing data");
      read_feature(kFeatTracingData, s);
      at = after_pipe_tracing_data(b, at, rend);
      continue;
    }
    at = rend;
  }
  if (attrs.empty()) fail(16, "a pipe-mode perf.data without attribute records (was it cut at its start?)");
  check_attrs(16);
  require_tracing(16);
  index_records(0, 16, b.size());
  std::stable_sort(recs.begin(), recs.end(), [](const Rec& x, const Rec& y) { return x.ts < y.ts; });
}

void PerfData::Impl::read_tracing_data(const Section& s) {
  const std::string_view all(file);
  const std::string_view b = all.substr(0, s.offset + s.size);  // nothing past the section
  uint64_t at = s.offset;
  // The tracing data starts as trace-cmd's trace.dat does.
  need(b, at, kTraceDatMagic.size(), "the tracing data");
  if (b.substr(at, kTraceDatMagic.size()) != kTraceDatMagic)
    fail(at, "the tracing data does not start with its magic (\\x17\\x08\\x44tracing)");
  at += kTraceDatMagic.size();
  const size_t vend = b.find('\0', at);
  if (vend == std::string_view::npos) fail(at, "the tracing data's version string is not terminated");
  at = vend + 1;
  need(b, at, 6, "the tracing data header");
  if (b[at] != 0) fail(at, "big-endian tracing data: only little-endian recordings are read");
  at += 6;  // endianness, long size, page size
  // Each header file is named by a NUL-terminated string, then its u64 size and its text.
  using namespace std::string_view_literals;
  for (const std::string_view name : {"header_page\0"sv, "header_event\0"sv}) {
    need(b, at, name.size(), "the tracing data's header files");
    if (b.substr(at, name.size()) != name)
      fail(at, fmt::format("expected the tracing data's '{}' file", name.substr(0, name.size() - 1)));
    at = sized_text(b, at + name.size(), "a header file").second;
  }
  const uint32_t ftrace = u32(b, at, "the ftrace format count");
  at += 4;
  for (uint32_t i = 0; i < ftrace; ++i) at = sized_text(b, at, "an ftrace format").second;
  const uint32_t systems = u32(b, at, "the event system count");
  at += 4;
  for (uint32_t i = 0; i < systems; ++i) {
    const size_t send = b.find('\0', at);
    if (send == std::string_view::npos) fail(at, "an event system name is not terminated");
    const std::string_view system = b.substr(at, send - at);
    at = send + 1;
    const uint32_t count = u32(b, at, "an event system's format count");
    at += 4;
    for (uint32_t j = 0; j < count; ++j) {
      const auto [text, next] = sized_text(b, at, "an event format");
      read_format(text, system, at + 8);
      at = next;
    }
  }
}

void PerfData::Impl::read_format(std::string_view text, std::string_view system, uint64_t at) {
  Format f;
  uint32_t id = 0;
  bool have_id = false;
  std::unordered_map<std::string, Field> fields;
  std::string first_after_nr;  // a syscall's first argument: the field after __syscall_nr
  bool after_nr = false;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = trim(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.starts_with("name:")) {
      f.name = std::string(trim(line.substr(5)));
    } else if (line.starts_with("ID:")) {
      have_id = field_number(trim(line.substr(3)), "", id);
    } else if (line.starts_with("field:")) {
      const size_t semi = line.find(';');
      if (semi == std::string_view::npos) continue;
      std::string_view decl = trim(line.substr(6, semi - 6));
      Field fl;
      if (decl.starts_with("__data_loc ")) fl.loc = 1;
      if (decl.starts_with("__rel_loc ")) fl.loc = 2;
      if (const size_t br = decl.find('['); br != std::string_view::npos && fl.loc == 0) decl = decl.substr(0, br);
      else if (fl.loc != 0 && decl.ends_with("[]")) decl.remove_suffix(2);
      decl = trim(decl);
      const size_t sp = decl.find_last_of(" *");
      const std::string name(sp == std::string_view::npos ? decl : decl.substr(sp + 1));
      uint32_t sgn = 0;
      if (!field_number(line, "offset:", fl.off) || !field_number(line, "size:", fl.size)) continue;
      field_number(line, "signed:", sgn);
      fl.is_signed = sgn != 0;
      fl.present = true;
      if (after_nr && first_after_nr.empty()) first_after_nr = name;
      if (name == "__syscall_nr") after_nr = true;
      fields[name] = fl;
    }
  }
  if (!have_id || f.name.empty()) fail(at, fmt::format("an event format of system '{}' without its name or ID", system));
  auto get = [&](const char* n) {
    auto it = fields.find(n);
    return it == fields.end() ? Field{} : it->second;
  };
  const std::string& n = f.name;
  f.type = classify_event(n);
  switch (f.type) {
    case EventType::kSwitch:
      f.comm = get("prev_comm"), f.pid = get("prev_pid"), f.prio = get("prev_prio"), f.state = get("prev_state");
      f.other_comm = get("next_comm"), f.other_pid = get("next_pid"), f.other_prio = get("next_prio");
      break;
    case EventType::kWaking:
    case EventType::kWakeup:
    case EventType::kWakeupNew:
      f.other_comm = get("comm"), f.other_pid = get("pid"), f.prio = get("prio");
      f.success = get("success"), f.target_cpu = get("target_cpu");
      break;
    case EventType::kFork:
      f.comm = get("parent_comm"), f.pid = get("parent_pid"), f.other_comm = get("child_comm");
      f.other_pid = get("child_pid");
      break;
    case EventType::kExit: f.comm = get("comm"), f.pid = get("pid"), f.prio = get("prio"); break;
    case EventType::kMigrate:
      f.other_comm = get("comm"), f.other_pid = get("pid"), f.prio = get("prio");
      f.orig_cpu = get("orig_cpu"), f.target_cpu = get("dest_cpu");
      break;
    case EventType::kExec: f.pid = get("pid"), f.other_pid = get("old_pid"), f.file = get("filename"); break;
    case EventType::kOther:
      if (system == "syscalls" && n.starts_with("sys_enter_")) {
        f.extra = Format::kSysEnter;
        if (!first_after_nr.empty()) f.value = get(first_after_nr.c_str());
      } else if (system == "syscalls" && n.starts_with("sys_exit_")) {
        f.extra = Format::kSysExit;
        f.value = get("ret");
      } else if (n == "cpu_idle") {
        f.extra = Format::kCpuIdle;
        f.value = get("state"), f.value2 = get("cpu_id");
      } else if (n == "ipi_send_cpu") {
        f.extra = Format::kIpiSendCpu;
        f.value = get("cpu");
      }
      break;
  }
  // The fields extraction cannot do without (the text parser's "missing ..." errors).
  const char* missing = nullptr;
  if (f.type == EventType::kSwitch && !(f.pid.present && f.other_pid.present && f.state.present))
    missing = "prev_pid, next_pid and prev_state";
  else if ((f.type == EventType::kWaking || f.type == EventType::kWakeup || f.type == EventType::kWakeupNew ||
            f.type == EventType::kMigrate) && !f.other_pid.present)
    missing = "pid";
  else if (f.type == EventType::kFork && !(f.pid.present && f.other_pid.present))
    missing = "parent_pid and child_pid";
  else if ((f.type == EventType::kExit && !f.pid.present) ||
           (f.type == EventType::kExec && !(f.pid.present && f.other_pid.present)))
    missing = f.type == EventType::kExit ? "pid" : "pid and old_pid";
  if (missing) fail(at, fmt::format("the {}:{} format has no field {}", system, n, missing));
  formats[id] = std::move(f);
}

void PerfData::Impl::inflate(std::string_view payload, uint64_t at, ZSTD_DCtx* dctx) {
  // A bound on what compressed records may expand to, so that a crafted file cannot exhaust
  // memory: 64 times the file (perf's -z reaches 5-10x on scheduler traces) plus 64 MiB.
  const uint64_t cap = 64 * uint64_t{file.size()} + (uint64_t{64} << 20);
  ZSTD_inBuffer in{payload.data(), payload.size(), 0};
  std::array<char, 1 << 16> out{};
  // Until the input is used up and a call leaves room in the output (zstd may hold back
  // output when the buffer fills).
  for (bool full = true; in.pos < in.size || full;) {
    ZSTD_outBuffer o{out.data(), out.size(), 0};
    const size_t r = ZSTD_decompressStream(dctx, &o, &in);
    if (ZSTD_isError(r)) fail(at, fmt::format("a compressed record does not decompress: {}", ZSTD_getErrorName(r)));
    inflated.append(out.data(), o.pos);
    if (inflated.size() > cap)
      fail(at, fmt::format("the compressed records expand to more than {} bytes (64 times the file): damaged", cap));
    full = o.pos == o.size;
  }
}

// The attribute a record belongs to: its identifier (the first u64 of a sample, the last of a
// record's sample_id), or the only sample type there is.
uint16_t PerfData::Impl::attr_for(std::string_view b, uint64_t at, uint64_t body, uint64_t end, bool sample) const {
  if (!identifier || attrs.size() == 1) return 0;
  const uint64_t id = sample ? u64(b, body, "a sample's identifier") : u64(b, end - 8, "a record's identifier");
  // Records perf synthesizes (COMM, FORK of the threads alive at the start) carry id 0: perf
  // reads them with the first attribute, as here.
  if (id == 0 && !sample) return 0;
  if (id < id_attr.size() && id_attr[id] != kNoAttr) return id_attr[id];
  auto it = attr_of_id.find(id);
  if (it == attr_of_id.end()) fail(at, fmt::format("a record names sample id {}, which no attribute holds", id));
  return it->second;
}

// The time (and CPU) of a non-sample record's sample_id trailer; INT64_MIN when it has none or
// it is perf's "no time" (synthesized records): delivered before every sample, as perf does.
int64_t PerfData::Impl::trailer_time(std::string_view b, uint64_t at, uint64_t end, const Attr& a, int32_t* cpu) const {
  if (cpu) *cpu = -1;
  if (!a.sample_id_all) return std::numeric_limits<int64_t>::min();
  const uint64_t st = a.sample_type;
  uint64_t n = 0;
  for (uint64_t bit : {kSampleTid, kSampleTime, kSampleId, kSampleStreamId, kSampleCpu, kSampleIdentifier})
    if (st & bit) ++n;
  if (end - at < 8 + 8 * n) fail(at, "a record too short for its sample_id fields");
  uint64_t p = end - 8 * n;
  int64_t ts = std::numeric_limits<int64_t>::min();
  if (st & kSampleTid) p += 8;
  if (st & kSampleTime) {
    const uint64_t t = rd(b, p, 8);
    if (t != 0 && t <= uint64_t{kMaxTraceSeconds} * 1000000000ull) ts = static_cast<int64_t>(t);
    p += 8;
  }
  if (st & kSampleId) p += 8;
  if (st & kSampleStreamId) p += 8;
  if ((st & kSampleCpu) && cpu) *cpu = static_cast<int32_t>(std::min<uint64_t>(rd(b, p, 4), kMaxCpu + 1));
  return ts;
}

void PerfData::Impl::index_records(uint32_t buf, uint64_t begin, uint64_t end) {
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx_owner(nullptr, ZSTD_freeDCtx);
  ZSTD_DCtx* dctx = nullptr;
  for (uint64_t at = begin; at < end;) {
    const std::string_view b = bytes(buf);
    need(b, at, 8, "a record header");
    const auto type = static_cast<uint32_t>(rd(b, at, 4));
    const auto size = static_cast<uint16_t>(rd(b, at + 6, 2));
    if (size < 8) fail(at, fmt::format("a record of {} bytes: shorter than its own header", size));
    if (size > end - at) fail(at, fmt::format("a record of {} bytes runs past the end of the data section", size));
    const uint64_t rend = at + size;
    if (type == kRecSample) {
      const uint16_t ai = attr_for(b, at, at + 8, rend, true);
      const Attr& a = attrs[ai];
      // The time sits after IDENTIFIER, IP and TID.
      uint64_t p = at + 8;
      for (uint64_t bit : {kSampleIdentifier, kSampleIp, kSampleTid})
        if (a.sample_type & bit) p += 8;
      int64_t ts = 0;
      if (a.sample_type & kSampleTime) {
        if (p + 8 > rend) fail(at, "a sample too short for its time");
        const uint64_t t = rd(b, p, 8);
        if (t > uint64_t{kMaxTraceSeconds} * 1000000000ull)
          fail(p, fmt::format("sample time {} ns out of range: expected at most {} s", t, kMaxTraceSeconds));
        ts = static_cast<int64_t>(t);
      }
      // Only tracepoint samples are kept: with at least 46 bytes each (header, time, CPU, tid,
      // raw size, event type), the index stays under 24/46 of the data, whatever the file holds.
      if (a.type == kAttrTypeTracepoint) {
        if (recs.size() >= kMaxRecords)
          fail(at, fmt::format("more than {} samples, more than this reader indexes (24 bytes each); convert it "
                               "with 'perf script --ns -i FILE > trace.txt', which is read as a stream",
                               kMaxRecords));
        recs.push_back(Rec{ts, at, type, static_cast<uint16_t>(buf), ai});
      }
    } else if (type == kRecComm || type == kRecFork || type == kRecLost || type == kRecLostSamples) {
      const uint16_t ai = attr_for(b, at, at + 8, rend, false);
      recs.push_back(Rec{trailer_time(b, at, rend, attrs[ai], nullptr), at, type, static_cast<uint16_t>(buf), ai});
    } else if (type == kRecHeaderTracingData && buf == 0 && info.pipe) {
      // Its bytes follow the record (read_pipe() read them): step over them too.
      at = after_pipe_tracing_data(b, at, rend);
      continue;
    } else if (type == kRecCompressed || type == kRecCompressed2) {
      if (buf != 0) fail(at, "a compressed record inside compressed records");
      uint64_t p = at + 8, n = size - 8;
      if (type == kRecCompressed2) {
        if (size < 16) fail(at, "a compressed record too short for its data size");
        n = rd(b, at + 8, 8);
        p = at + 16;
        if (n > size - 16u) fail(at, "a compressed record's data size runs past the record");
      }
      if (!dctx) {
        dctx_owner.reset(dctx = ZSTD_createDCtx());
        if (!dctx) fail(at, "out of memory for the zstd decompressor");
      }
      inflate(b.substr(p, n), at, dctx);
      info.compressed = true;
    }
    at = rend;
  }
  // The decompressed records, indexed once they are all there: perf carries a record cut at the
  // end of one compressed chunk over to the next.
  if (buf == 0 && !inflated.empty()) index_records(1, 0, inflated.size());
}

// Fills `ev` from a tracepoint's sample (the only ones indexed; read_attrs() checked that their
// attribute asks for time, CPU, tid and raw data).
void PerfData::Impl::decode_sample(std::string_view b, uint64_t at, uint16_t attr, TraceEvent& ev) {
  const uint64_t size = rd(b, at + 6, 2), end = at + size;
  const Attr& a = attrs[attr];
  const uint64_t st = a.sample_type;
  uint64_t p = at + 8;
  auto take = [&](uint64_t n, const char* what) {
    if (n > end - p) fail(at, fmt::format("a sample too short for its {}", what));
    const uint64_t q = p;
    p += n;
    return q;
  };
  if (st & kSampleIdentifier) take(8, "identifier");
  if (st & kSampleIp) take(8, "ip");
  if (st & kSampleTid) {
    const uint64_t q = take(8, "pid and tid");
    ev.line_pid = static_cast<int64_t>(rd(b, q + 4, 4));
    // The thread group (what ftrace's record-tgid column shows; perf script prints it with -F +pid).
    const auto tgid = static_cast<int64_t>(rd(b, q, 4));
    if (tgid > 0 && tgid <= kMaxPid) ev.line_tgid = tgid;
  }
  if (st & kSampleTime) ev.ts = static_cast<int64_t>(rd(b, take(8, "time"), 8));
  if (st & kSampleAddr) take(8, "addr");
  if (st & kSampleId) take(8, "id");
  if (st & kSampleStreamId) take(8, "stream id");
  if (st & kSampleCpu) ev.cpu = static_cast<int32_t>(std::min<uint64_t>(rd(b, take(8, "cpu"), 4), kMaxCpu + 1));
  if (st & kSamplePeriod) take(8, "period");
  if (st & kSampleRead) {
    const uint64_t rf = a.read_format;
    const uint64_t per = 8u * (1u + ((rf & kFormatId) ? 1u : 0u) + ((rf & kFormatLost) ? 1u : 0u));
    const uint64_t times = 8u * (((rf & kFormatEnabled) ? 1u : 0u) + ((rf & kFormatRunning) ? 1u : 0u));
    if (rf & kFormatGroup) {
      const uint64_t nr = rd(b, take(8, "read values"), 8);
      take(times, "read values");
      if (nr > (end - p) / per) fail(at, "a sample too short for its read values");
      take(nr * per, "read values");
    } else {
      take(per + times, "read values");
    }
  }
  if (st & kSampleCallchain) {
    const uint64_t nr = rd(b, take(8, "callchain"), 8);
    if (nr > (end - p) / 8) fail(at, "a sample too short for its callchain");
    take(nr * 8, "callchain");
  }
  // A task past exit_notify() has no pid left: perf_event_tid() gives -1 (perf script prints
  // ":-1 -1"). Such a sample has no current task to credit (line_pid -1, as for an unknown one).
  if (ev.line_pid == 0xffffffff) ev.line_pid = -1;
  if (ev.line_pid > kMaxPid)
    fail(at, fmt::format("sample tid {} out of range: expected 0..{}", ev.line_pid, kMaxPid));
  if (ev.cpu > kMaxCpu) fail(at, fmt::format("sample CPU out of range: schedsim models CPUs 0..{}", kMaxCpu));
  auto c = comms.find(ev.line_pid);
  if (ev.line_pid < 0) ev.line_comm.clear();
  else if (c != comms.end()) ev.line_comm = c->second;
  else if (ev.line_pid == 0) ev.line_comm = "swapper";
  else ev.line_comm = fmt::format(":{}", ev.line_pid);  // perf's name for a thread it saw no comm of
  const uint32_t n = static_cast<uint32_t>(rd(b, take(4, "raw data size"), 4));
  const std::string_view raw = b.substr(take(n, "raw data"), n);
  if (raw.size() < 2) fail(at, "a tracepoint sample's raw data too short for its event type");
  uint16_t id = 0;
  std::memcpy(&id, raw.data(), 2);
  auto f = formats.find(id);
  if (f == formats.end()) {
    ev.event_name = fmt::format("tracepoint {}", id);
    return;
  }
  // common_flags (TRACE_FLAG_HARDIRQ 0x08, SOFTIRQ 0x10, NMI 0x40; kernel/trace/trace.h): what
  // ftrace's flag column prints as h, s, H, z or Z, and perf script does not print at all.
  if (raw.size() > 2) ev.irq_context = (static_cast<uint8_t>(raw[2]) & 0x58) != 0;
  decode_fields(f->second, raw, at, ev);
}

void PerfData::Impl::decode_fields(const Format& f, std::string_view raw, uint64_t at, TraceEvent& ev) {
  ev.type = f.type;
  const char* what = event_type_name(f.type);
  auto number = [&](const Field& fl, const char* name, int64_t lo, int64_t hi) -> int64_t {
    if (fl.off > raw.size() || fl.size > raw.size() - fl.off || (fl.size != 1 && fl.size != 2 && fl.size != 4 && fl.size != 8))
      fail(at, fmt::format("{}: field {} (offset {}, size {}) does not fit the sample's {} bytes of raw data", what,
                           name, fl.off, fl.size, raw.size()));
    uint64_t u = 0;
    std::memcpy(&u, raw.data() + fl.off, fl.size);
    int64_t v = static_cast<int64_t>(u);
    if (fl.is_signed && fl.size < 8) {
      const unsigned shift = 64 - 8 * fl.size;
      v = static_cast<int64_t>(u << shift) >> shift;
    }
    if (v < lo || v > hi) fail(at, fmt::format("{}: {} {} out of range: expected {}..{}", what, name, v, lo, hi));
    return v;
  };
  // A field's bits as the text prints them (an unsigned number), for set_power_ipi().
  auto raw_value = [&](const Field& fl, const char* name) {
    return static_cast<uint64_t>(number(fl, name, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
  };
  auto text = [&](const Field& fl, std::string& out) {
    if (!fl.present) return;
    uint64_t off = fl.off, len = fl.size;
    if (fl.loc != 0) {
      const auto loc = static_cast<uint64_t>(number(fl, "string location", 0, std::numeric_limits<uint32_t>::max()));
      off = (loc & 0xffff) + (fl.loc == 2 ? fl.off + fl.size : 0);
      len = loc >> 16;
    }
    if (off > raw.size() || len > raw.size() - off)
      fail(at, fmt::format("{}: a string field runs past the sample's {} bytes of raw data", what, raw.size()));
    const std::string_view s = raw.substr(off, len);
    out.assign(s.substr(0, s.find('\0')));
  };
  auto pid = [&](const Field& fl, const char* name, int64_t& out) {
    if (fl.present) out = number(fl, name, 0, kMaxPid);
  };
  auto prio = [&](const Field& fl, const char* name, int32_t& out) {
    if (fl.present) out = static_cast<int32_t>(number(fl, name, kMinPrio, kMaxPrio));
  };
  auto cpu = [&](const Field& fl, const char* name, int32_t& out) {
    if (fl.present) out = static_cast<int32_t>(number(fl, name, 0, kMaxCpu));
  };
  switch (f.type) {
    case EventType::kSwitch: {
      text(f.comm, ev.comm);
      pid(f.pid, "prev_pid", ev.pid);
      prio(f.prio, "prev_prio", ev.prio);
      const auto raw_state = static_cast<uint64_t>(number(f.state, "prev_state", std::numeric_limits<int64_t>::min(),
                                                          std::numeric_limits<int64_t>::max()));
      if (!decode_numeric_state(raw_state, layout, ev.state))
        fail(at, fmt::format("sched_switch: bad prev_state {}: not a state number of {} kernels ({}); "
                             "--kernel-version MAJOR.MINOR names the traced kernel",
                             raw_state, state_layout_kernels(layout), layout_source));
      text(f.other_comm, ev.other_comm);
      pid(f.other_pid, "next_pid", ev.other_pid);
      prio(f.other_prio, "next_prio", ev.other_prio);
      break;
    }
    case EventType::kWaking:
    case EventType::kWakeup:
    case EventType::kWakeupNew:
    case EventType::kMigrate:
      text(f.other_comm, ev.other_comm);
      pid(f.other_pid, "pid", ev.other_pid);
      prio(f.prio, "prio", ev.prio);
      if (f.success.present) ev.success = static_cast<int32_t>(number(f.success, "success", 0, 1));
      cpu(f.target_cpu, f.type == EventType::kMigrate ? "dest_cpu" : "target_cpu", ev.target_cpu);
      cpu(f.orig_cpu, "orig_cpu", ev.orig_cpu);
      break;
    case EventType::kFork:
      text(f.comm, ev.comm);
      pid(f.pid, "parent_pid", ev.pid);
      text(f.other_comm, ev.other_comm);
      pid(f.other_pid, "child_pid", ev.other_pid);
      break;
    case EventType::kExit:
      text(f.comm, ev.comm);
      pid(f.pid, "pid", ev.pid);
      prio(f.prio, "prio", ev.prio);
      break;
    case EventType::kExec: {
      pid(f.pid, "pid", ev.pid);
      pid(f.other_pid, "old_pid", ev.other_pid);
      std::string name;
      text(f.file, name);
      // The kernel's comm is the basename truncated to TASK_COMM_LEN - 1.
      ev.other_comm = name.substr(name.rfind('/') == std::string::npos ? 0 : name.rfind('/') + 1, 15);
      break;
    }
    case EventType::kOther:
      ev.event_name = f.name;
      switch (f.extra) {
        case Format::kSysEnter: {
          // As syscall_event_value() reads the text: the first argument, -1 when not an fd.
          const int64_t v = f.value.present ? number(f.value, "first argument", std::numeric_limits<int64_t>::min(),
                                                     std::numeric_limits<int64_t>::max())
                                            : -1;
          ev.other_value = v < 0 || v > std::numeric_limits<int32_t>::max() ? -1 : v;
          break;
        }
        case Format::kSysExit:
          if (f.value.present) {
            Field r = f.value;
            r.is_signed = true;  // a syscall's return: errors are negative
            ev.other_value = number(r, "ret", std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
          }
          break;
        case Format::kCpuIdle:
          if (f.value.present && f.value2.present)
            set_power_ipi(f.name, raw_value(f.value, "state"), raw_value(f.value2, "cpu_id"), ev);
          break;
        case Format::kIpiSendCpu:
          if (f.value.present) set_power_ipi(f.name, raw_value(f.value, "cpu"), 0, ev);
          break;
        case Format::kNone: break;
      }
      break;
  }
}

PerfData::PerfData(PerfDataBytes file, const std::string& path, const StateLayout* layout) : impl_(new Impl) {
  Impl& m = *impl_;
  m.path = path;
  m.source = std::move(file);
  m.file = m.source.view();
  m.info.bytes = m.file.size();
  m.read_header();
  if (layout) {
    m.layout = *layout;
    m.layout_source = "--kernel-version";
  } else if (!state_layout_for_kernel(m.info.osrelease, m.layout)) {
    throw InputError(SourceLoc{path}, fmt::format("this perf.data names no kernel release ('{}'), which decides how "
                                                  "sched_switch's prev_state reads: give --kernel-version MAJOR.MINOR",
                                                  m.info.osrelease));
  } else {
    m.layout_source = "the recording's os release " + m.info.osrelease;
  }
}

PerfData::~PerfData() = default;

void PerfData::rewind() {
  impl_->next_rec = 0;
  impl_->ordinal = 0;
  impl_->comms.clear();
}

PerfData::Item PerfData::next(TraceEvent& ev) {
  Impl& m = *impl_;
  while (m.next_rec < m.recs.size()) {
    const Rec& r = m.recs[m.next_rec++];
    const std::string_view b = m.bytes(r.buf);
    const uint64_t size = Impl::rd(b, r.off + 6, 2);
    if (r.kind == kRecSample) {
      ev.reset();
      m.decode_sample(b, r.off, r.attr, ev);
      ev.line = ++m.ordinal;
      // The thread group perf's own thread table gives the other task (COMM and FORK records:
      // perf synthesizes both for every task alive when recording starts, and the kernel emits
      // FORK for each one created later). The sample's own task has it in its pid field.
      if (ev.other_pid > 0)
        if (auto g = m.tgids.find(ev.other_pid); g != m.tgids.end()) ev.other_tgid = g->second;
      return Item::kEvent;
    }
    if (r.kind == kRecComm || r.kind == kRecFork) {
      // COMM: pid, tid, comm; FORK: pid, ppid, tid, ptid (the child inherits its parent's comm).
      if (size < 8 + 16) m.fail(r.off, "a COMM or FORK record too short for its pids");
      const auto tid = static_cast<int64_t>(Impl::rd(b, r.off + 12, 4));
      // COMM's pid, FORK's child pid: the thread group.
      const auto pid = static_cast<int64_t>(Impl::rd(b, r.off + 8, 4));
      const int64_t child = r.kind == kRecComm ? tid : static_cast<int64_t>(Impl::rd(b, r.off + 16, 4));
      if (pid > 0 && pid <= kMaxPid && child > 0) m.tgids[child] = pid;
      if (r.kind == kRecComm) {
        const std::string_view s = b.substr(r.off + 16, size - 16);
        m.comms[tid] = std::string(s.substr(0, std::min<size_t>(s.find('\0'), 16)));
      } else {
        const auto ptid = static_cast<int64_t>(Impl::rd(b, r.off + 20, 4));
        auto p = m.comms.find(ptid);
        if (p != m.comms.end()) m.comms[child] = p->second;
        const auto ppid = static_cast<int64_t>(Impl::rd(b, r.off + 12, 4));
        if (child > 0 && child <= kMaxPid && ppid >= 0 && ppid <= kMaxPid) {
          fork_tid_ = child;
          fork_ppid_ = ppid;
          return Item::kFork;
        }
      }
      continue;
    }
    // LOST {id, lost} and LOST_SAMPLES {lost}.
    const uint64_t off = r.kind == kRecLost ? 16 : 8;
    if (size < off + 8) m.fail(r.off, "a LOST record too short for its count");
    const uint64_t n = Impl::rd(b, r.off + off, 8);
    m.trailer_time(b, r.off, r.off + size, m.attrs[r.attr], &lost_cpu_);
    // Which CPU's buffer overflowed decides which tasks' states are resynchronised; perf's own
    // records always say (sample_id_all with the CPU), so a LOST record without one is damage.
    if (lost_cpu_ < 0 || lost_cpu_ > kMaxCpu)
      m.fail(r.off, "a LOST record that names no CPU (no sample_id CPU field, or one past 4095)");
    lost_count_ = static_cast<int64_t>(std::min<uint64_t>(n, std::numeric_limits<int64_t>::max()));
    return Item::kLost;
  }
  return Item::kEnd;
}

StateLayout PerfData::layout() const { return impl_->layout; }
const PerfDataInfo& PerfData::info() const { return impl_->info; }

bool looks_like_perf_data(std::string_view head) {
  return head.starts_with(kPerfDataMagic) || head.starts_with("PERFFILE") || head.starts_with("2ELIFREP");
}

// perf record only appends to a file and rewrites its header at the end, so a mapped file does
// not shrink under the reader (the one way a mapping could fault).
PerfDataBytes PerfDataBytes::mapped(const std::string& path, size_t size) {
  PerfDataBytes b;
  if (size == 0) return b;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(SourceLoc{path}, fmt::format("cannot open: {}", std::strerror(errno)));
  void* m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);
  if (m == MAP_FAILED) throw InputError(SourceLoc{path}, fmt::format("cannot map the perf.data: {}", std::strerror(err)));
  b.map_ = std::unique_ptr<void, PerfDataUnmap>(m, PerfDataUnmap{size});
  return b;
}

void PerfDataUnmap::operator()(void* p) const { ::munmap(p, len); }

std::optional<PerfDataBytes> perf_data_bytes_if_any(const std::string& path, const std::string_view* data,
                                                    Compression* compression) {
  if (!data && path == "-") return std::nullopt;
  if (!data) {
    // A plain file: its first bytes decide; read whole with one read() (no line splitting).
    std::ifstream in(path, std::ios::binary);
    std::array<char, 8> head{};
    in.read(head.data(), head.size());
    const std::string_view h(head.data(), static_cast<size_t>(in.gcount()));
    const bool compressed = h.starts_with("\x1f\x8b") || h.starts_with("\x28\xb5\x2f\xfd");
    if (!in.good() || (!compressed && !looks_like_perf_data(h))) return std::nullopt;
    if (!compressed) {
      *compression = Compression::kNone;
      std::error_code ec;
      const uintmax_t n = std::filesystem::file_size(path, ec);
      if (ec) throw InputError(SourceLoc{path}, fmt::format("cannot read the perf.data: {}", ec.message()));
      return PerfDataBytes::mapped(path, static_cast<size_t>(n));
    }
  }
  // gzip or zstd around it: the line reader decompresses. Binary "lines" run to the next 0x0a
  // byte, which perf's records hold every few dozen bytes; 64 MiB keeps a bomb of zeros from
  // growing the reader's buffer towards the 1 GiB read_whole() allows in all.
  constexpr size_t kMaxRun = size_t{64} << 20;
  std::optional<LineReader> rd;
  if (data) rd.emplace(*data, path, kMaxRun);
  else rd.emplace(path, kMaxRun);
  std::string_view line;
  if (!rd->next(line) || !looks_like_perf_data(line)) return std::nullopt;
  *compression = rd->compression();
  if (data && rd->compression() == Compression::kNone) return PerfDataBytes::borrowed(*data);
  return PerfDataBytes(read_whole(*rd, line, path, "perf.data"));
}

}  // namespace schedsim::traces
