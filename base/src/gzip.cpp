#include "schedsim/base/gzip.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <filesystem>

#include "schedsim/base/error.hpp"

namespace schedsim {

void throw_input_too_large(const std::string& path) {
  throw InputError(SourceLoc{path}, fmt::format("decompresses to more than {} MiB, the most an input read whole into "
                                                "memory may hold; decompress it to a plain file, which is read as a stream",
                                                kMaxInMemoryInput >> 20));
}

void check_whole_read_size(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxInMemoryInput)
    throw InputError(SourceLoc{path}, fmt::format("larger than {} MiB, the most a file read whole into memory may be",
                                                  kMaxInMemoryInput >> 20));
}

bool is_gzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b;
}

bool gzip_name(const std::string& path) { return path.size() > 3 && path.ends_with(".gz"); }

std::string gunzip(std::string_view data, const std::string& path, size_t max_bytes) {
  std::string out;
  z_stream zs{};
  // windowBits 15 + 32: zlib or gzip header, detected.
  if (inflateInit2(&zs, 15 + 32) != Z_OK) throw InputError(SourceLoc{path}, "cannot start the gzip decompressor");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  char buf[1 << 16];
  int r = Z_OK;
  while (true) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    r = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
    if (out.size() > max_bytes) {
      inflateEnd(&zs);
      if (max_bytes == kMaxInMemoryInput) throw_input_too_large(path);
      throw InputError(SourceLoc{path}, fmt::format("decompresses to more than {} MiB", max_bytes >> 20));
    }
    if (r == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      inflateReset(&zs);  // another member follows
      continue;
    }
    if (r != Z_OK) {
      if (r == Z_BUF_ERROR && zs.avail_in == 0) r = Z_DATA_ERROR;
      break;
    }
  }
  inflateEnd(&zs);
  if (r != Z_STREAM_END)
    throw InputError(SourceLoc{path}, "the gzip stream is corrupt or ends early (file cut or damaged)");
  return out;
}

std::string gunzip_if_gzip(std::string data, const std::string& path, size_t max_bytes) {
  return is_gzip(data) ? gunzip(data, path, max_bytes) : data;
}

}  // namespace schedsim
