#pragma once
/// gzip (RFC 1952) for the files schedsim writes and reads back: an output named "*.gz" is
/// compressed (AtomicFile with Compress::kByName), and the readers of workloads, results, records,
/// topology and cost files take such a file as they take the plain one.
#include <cstddef>
#include <string>
#include <string_view>

namespace schedsim {

/// The most a reader holds in memory when it must read an input whole: a gzip-compressed
/// workload, results or record file decompressed, or standard input ('-'). Plain files are
/// streamed and have no such limit; this one keeps a gzip bomb or an endless pipe from exhausting
/// memory (1 GiB: a workload or trace text of that size is far beyond any recorded here).
inline constexpr size_t kMaxInMemoryInput = size_t{1} << 30;

/// Throws the InputError for an input past kMaxInMemoryInput, naming `path`.
[[noreturn]] void throw_input_too_large(const std::string& path);
/// Throws that error (naming `path`, a file about to be read whole) when the file is larger than
/// kMaxInMemoryInput; a size that cannot be read is left to the reading itself.
void check_whole_read_size(const std::string& path);
/// True if `data` starts with the gzip magic bytes 1f 8b.
bool is_gzip(std::string_view data);
/// True if `path` ends in ".gz".
bool gzip_name(const std::string& path);
/// The decompressed content of `data` (all concatenated members). Throws InputError naming
/// `path` on a corrupt or cut stream, or when the result would pass `max_bytes`.
std::string gunzip(std::string_view data, const std::string& path, size_t max_bytes);
/// `data` itself, or its decompressed content when it is gzip (is_gzip).
std::string gunzip_if_gzip(std::string data, const std::string& path, size_t max_bytes = kMaxInMemoryInput);

}  // namespace schedsim
