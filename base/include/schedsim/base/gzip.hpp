#pragma once
/// gzip (RFC 1952) for the files schedsim writes and reads back: an output named "*.gz" is
/// compressed (AtomicFile with Compress::kByName), and the readers of workloads, results, records,
/// topology and cost files take such a file as they take the plain one.
#include <cstddef>
#include <string>
#include <string_view>

namespace schedsim {

/// True if `data` starts with the gzip magic bytes 1f 8b.
bool is_gzip(std::string_view data);
/// True if `path` ends in ".gz".
bool gzip_name(const std::string& path);
/// The decompressed content of `data` (all concatenated members). Throws InputError naming
/// `path` on a corrupt or cut stream, or when the result would pass `max_bytes`.
std::string gunzip(std::string_view data, const std::string& path, size_t max_bytes);
/// `data` itself, or its decompressed content when it is gzip (is_gzip).
std::string gunzip_if_gzip(std::string data, const std::string& path, size_t max_bytes = size_t{1} << 34);

}  // namespace schedsim
