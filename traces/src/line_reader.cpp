// Streaming decompression with zlib (inflate, gzip wrapper, concatenated members) and libzstd
// (ZSTD_decompressStream, concatenated frames), or plain read(2).
#include "schedsim/traces/line_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
#include "schedsim/base/gzip.hpp"
#include "schedsim/base/run_control.hpp"

namespace schedsim::traces {

namespace {
constexpr size_t kChunk = 1 << 20;

int open_input(const std::string& path) {
  if (path == "-") return 0;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(SourceLoc{path}, std::string("cannot open trace: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw InputError(SourceLoc{path}, "is a directory, expected a trace file");
  }
  return fd;
}

ssize_t read_some(int fd, char* p, size_t n, const std::string& path) {
  while (true) {
    ssize_t r = ::read(fd, p, n);
    if (r >= 0) return r;
    if (errno == EINTR) continue;
    throw InputError(SourceLoc{path}, std::string("cannot read trace: ") + std::strerror(errno));
  }
}
}  // namespace

const char* compression_name(Compression c) {
  switch (c) {
    case Compression::kNone: return "none";
    case Compression::kGzip: return "gzip";
    case Compression::kZstd: return "zstd";
  }
  return "?";
}

struct LineReader::Source {
  std::string path;
  int fd = -1;
  Compression kind = Compression::kNone;
  std::vector<char> in;
  size_t in_pos = 0, in_len = 0;
  bool in_eof = false;
  uint64_t consumed = 0;
  z_stream zs{};
  bool zs_init = false;
  ZSTD_DStream* zd = nullptr;

  ~Source() {
    if (zs_init) inflateEnd(&zs);
    if (zd) ZSTD_freeDStream(zd);
    if (fd > 0) ::close(fd);
  }

  bool refill() {
    if (in_eof) return false;
    ssize_t r = read_some(fd, in.data(), in.size(), path);
    if (r == 0) {
      in_eof = true;
      return false;
    }
    in_pos = 0;
    in_len = static_cast<size_t>(r);
    consumed += static_cast<uint64_t>(r);
    return true;
  }

  [[noreturn]] void corrupt(const std::string& what) const {
    throw InputError(SourceLoc{path}, fmt::format("corrupt {} stream: {}", compression_name(kind), what));
  }

  // Produces up to n bytes into out; 0 at end of stream.
  size_t read(char* out, size_t n) {
    if (kind == Compression::kNone) {
      if (in_pos < in_len) {  // bytes kept from sniffing
        size_t k = std::min(n, in_len - in_pos);
        std::memcpy(out, in.data() + in_pos, k);
        in_pos += k;
        return k;
      }
      if (in_eof) return 0;
      ssize_t r = read_some(fd, out, n, path);
      if (r == 0) in_eof = true;
      consumed += static_cast<uint64_t>(r);
      return static_cast<size_t>(r);
    }
    size_t produced = 0;
    while (produced == 0) {
      if (in_pos == in_len && !refill()) {
        // A stream cut short (recording interrupted) keeps what it had; the caller reports it.
        if ((kind == Compression::kGzip && zs_init && zs.total_in > 0 && !gz_stream_end) ||
            (kind == Compression::kZstd && zstd_mid_frame))
          truncated = true;
        return 0;
      }
      if (kind == Compression::kGzip) {
        if (gz_stream_end) {  // concatenated members (gzip -c a b > c)
          inflateReset(&zs);
          gz_stream_end = false;
        }
        zs.next_in = reinterpret_cast<Bytef*>(in.data() + in_pos);
        zs.avail_in = static_cast<uInt>(in_len - in_pos);
        zs.next_out = reinterpret_cast<Bytef*>(out);
        zs.avail_out = static_cast<uInt>(n);
        int rc = inflate(&zs, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
          corrupt(zs.msg ? zs.msg : "inflate failed");
        in_pos = in_len - zs.avail_in;
        produced = n - zs.avail_out;
        if (rc == Z_STREAM_END) gz_stream_end = true;
      } else {
        ZSTD_inBuffer ib{in.data(), in_len, in_pos};
        ZSTD_outBuffer ob{out, n, 0};
        size_t rc = ZSTD_decompressStream(zd, &ob, &ib);
        if (ZSTD_isError(rc)) corrupt(ZSTD_getErrorName(rc));
        zstd_mid_frame = rc != 0;
        in_pos = ib.pos;
        produced = ob.pos;
      }
    }
    return produced;
  }
  bool gz_stream_end = false;
  bool zstd_mid_frame = false;
  bool truncated = false;
};

Compression detect_compression(const std::string& path) {
  int fd = open_input(path);
  unsigned char m[4] = {0, 0, 0, 0};
  ssize_t r = read_some(fd, reinterpret_cast<char*>(m), 4, path);
  if (fd > 0) ::close(fd);
  if (r >= 2 && m[0] == 0x1f && m[1] == 0x8b) return Compression::kGzip;
  if (r >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) return Compression::kZstd;
  return Compression::kNone;
}

LineReader::LineReader(const std::string& path, size_t max_line)
    : path_(path), max_line_(max_line), src_(std::make_unique<Source>()) {
  src_->path = path;
  src_->fd = open_input(path);
  src_->in.resize(kChunk);
  src_->refill();
  init_decoder();
}

LineReader::LineReader(std::string_view data, const std::string& name, size_t max_line)
    : path_(name), max_line_(max_line), src_(std::make_unique<Source>()) {
  src_->path = name;
  src_->in.assign(data.begin(), data.end());
  src_->in_len = data.size();
  src_->in_eof = true;  // everything is in `in` already; refill() never reads
  src_->consumed = data.size();
  init_decoder();
  // Plain text fits in one read; compressed input grows the buffer as a file's would (fill()).
  buf_.resize(std::min(buf_.size(), data.size() + kChunk / 2 + 1));
}

void LineReader::init_decoder() {
  const std::string& path = path_;
  const auto* m = reinterpret_cast<const unsigned char*>(src_->in.data());
  const size_t n = src_->in_len;
  if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b) {
    compression_ = Compression::kGzip;
    // 15 + 32: gzip or zlib header, auto-detected.
    if (inflateInit2(&src_->zs, 15 + 32) != Z_OK) throw InputError(SourceLoc{path}, "zlib init failed");
    src_->zs_init = true;
  } else if (n >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) {
    compression_ = Compression::kZstd;
    src_->zd = ZSTD_createDStream();
    ZSTD_initDStream(src_->zd);
  }
  src_->kind = compression_;
  buf_.resize(2 * kChunk);
}

LineReader::~LineReader() = default;

uint64_t LineReader::bytes_in() const { return src_->consumed; }
bool LineReader::truncated_stream() const { return src_->truncated; }

bool LineReader::fill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (buf_.size() - end_ < kChunk / 2) buf_.resize(buf_.size() * 2);
  size_t got = src_->read(buf_.data() + end_, buf_.size() - end_);
  if (got == 0) {
    eof_ = true;
    return false;
  }
  end_ += got;
  bytes_out_ += got;
  return true;
}

bool LineReader::next(std::string_view& line) {
  size_t scan = begin_;
  while (true) {
    const char* nl = static_cast<const char*>(std::memchr(buf_.data() + scan, '\n', end_ - scan));
    if (nl) {
      size_t e = static_cast<size_t>(nl - buf_.data());
      line = std::string_view(buf_.data() + begin_, e - begin_);
      begin_ = e + 1;
      // Every reader of traces (import, trace info, the sched views) loops over these lines:
      // a pending SIGINT/SIGTERM inside a cooperative scope (`run`) and the memory budget are
      // checked here.
      if ((++line_no_ & 0xFFF) == 0) poll_resources();
      return true;
    }
    size_t scanned = end_ - begin_;
    if (scanned > max_line_)
      throw InputError(SourceLoc{path_, line_no_ + 1},
                       fmt::format("line longer than {} with no newline (the limit for one line): "
                                   "not a text trace, or a damaged one",
                                   max_line_ % (1 << 20) == 0 ? fmt::format("{} MiB", max_line_ >> 20)
                                                              : fmt::format("{} bytes", max_line_)));
    if (!fill()) {
      if (begin_ == end_) return false;
      line = std::string_view(buf_.data() + begin_, end_ - begin_);
      begin_ = end_;
      ++line_no_;
      unterminated_ = true;
      return true;
    }
    scan = begin_ + scanned;
  }
}

std::string read_whole(LineReader& rd, std::string_view first, const std::string& path, std::string_view what) {
  std::string bytes;
  std::string_view line = first;
  do {
    bytes.append(line);
    if (!rd.unterminated()) bytes.push_back('\n');
    if (bytes.size() > kMaxInMemoryInput) throw_input_too_large(path);  // a gzip bomb stops here
  } while (rd.next(line));
  if (rd.truncated_stream())
    throw InputError(SourceLoc{path}, fmt::format("the {} stream around this {} ends early (file cut or damaged)",
                                                  compression_name(rd.compression()), what));
  return bytes;
}

}  // namespace schedsim::traces
