#pragma once
// What the native workload format's writer (workload_write.cpp) and reader (workload_read.cpp)
// share: the format version, the CBOR magic and integrity trailer, the nesting bound and the
// names of action kinds and start states (docs/workload-format.md).
#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schedsim/workload/workload.hpp"

namespace schedsim::workload_format {

inline constexpr int kFormatVersion = 1;
inline constexpr unsigned char kCborMagic[3] = {0xd9, 0xd9, 0xf7};  // tag 55799, "self-described CBOR"
// The CBOR file's integrity trailer (docs/workload-format.md "CBOR specifics"): one more CBOR
// item, a 16-byte byte string "SWC" + trailer version 1 + CRC32 (zlib) of every byte before the
// trailer + that byte count, both big-endian. 17 bytes in all.
inline constexpr unsigned char kTrailerHead[5] = {0x50, 'S', 'W', 'C', 1};
inline constexpr size_t kTrailerSize = 17;
// JSON/CBOR containers nested deeper than this are refused before the parser recurses (the CBOR
// parser recurses per level): the schema needs 5 levels plus 2 per nested "repeat".
inline constexpr size_t kMaxNesting = 2 * kMaxLoopDepth + 8;

inline constexpr const char* kKindNames[] = {"run", "wake", "fork", "block", "sleep", "exit", "exec", "loop", "write", "read"};
inline constexpr const char* kStartNames[] = {"forked", "runnable", "blocked", "sleeping"};

inline const char* kind_name(ActionKind k) { return kKindNames[static_cast<size_t>(k)]; }

inline std::optional<ActionKind> kind_from_name(std::string_view s) {
  for (size_t i = 0; i < std::size(kKindNames); ++i)
    if (s == kKindNames[i]) return static_cast<ActionKind>(i);
  return std::nullopt;
}

inline std::vector<std::string> kind_names() {
  std::vector<std::string> v(std::begin(kKindNames), std::end(kKindNames));
  v.emplace_back("repeat");
  return v;
}

}  // namespace schedsim::workload_format
