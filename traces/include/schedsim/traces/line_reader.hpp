#pragma once
/// Streaming line reader over plain, gzip or zstd files, the compression detected from the
/// first bytes (magic 1f 8b / 28 b5 2f fd), never from the file name. Memory is one buffer of
/// ~1 MiB plus the longest line, whatever the file size; a line longer than kMaxLineBytes is an
/// error (a binary or corrupt file would otherwise grow the buffer to the file's size).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace schedsim::traces {

enum class Compression : uint8_t { kNone, kGzip, kZstd };
const char* compression_name(Compression c);

/// Detects the compression of a file from its magic bytes; throws InputError if unreadable.
Compression detect_compression(const std::string& path);

/// The longest line any reader accepts (16 MiB; a sched_switch line is ~200 bytes, the longest
/// lines seen in practice are systrace HTML's inlined scripts).
inline constexpr size_t kMaxLineBytes = size_t{16} << 20;

class LineReader {
 public:
  /// Opens `path` ("-" is stdin); throws InputError when it cannot be read.
  explicit LineReader(const std::string& path, size_t max_line = kMaxLineBytes);
  /// Reads `data` (plain, gzip or zstd) from memory; `name` stands for the file in errors.
  LineReader(std::string_view data, const std::string& name, size_t max_line = kMaxLineBytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line without its '\n'; false at end of input. The view stays valid until the
  /// next call. Throws InputError on a corrupt compressed stream or a line past the bound.
  bool next(std::string_view& line);
  /// 1-based number of the line last returned.
  long line_no() const { return line_no_; }
  /// True if the line last returned was the final one and had no '\n' (truncated file).
  bool unterminated() const { return unterminated_; }
  Compression compression() const { return compression_; }
  /// True once the end of a gzip member / zstd frame was missing at end of file.
  bool truncated_stream() const;
  /// Compressed bytes consumed so far (the file's size at the end).
  uint64_t bytes_in() const;
  /// Decompressed bytes produced so far.
  uint64_t bytes_out() const { return bytes_out_; }

  struct Source;  // decompressor (private implementation)

 private:
  bool fill();
  void init_decoder();

  std::string path_;
  size_t max_line_;
  std::unique_ptr<Source> src_;
  Compression compression_ = Compression::kNone;
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  long line_no_ = 0;
  bool unterminated_ = false;
  uint64_t bytes_out_ = 0;
};

/// The rest of a binary file read through `rd` (which decompresses it): `first`, the line `rd`
/// last returned, and every line after it, newlines restored. Throws InputError naming `path`
/// when the compressed stream ends early (`what` names the file's kind: "trace.dat") or holds
/// more than kMaxInMemoryInput (1 GiB).
std::string read_whole(LineReader& rd, std::string_view first, const std::string& path, std::string_view what);

}  // namespace schedsim::traces
