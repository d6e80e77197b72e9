#pragma once
/// A 128-bit integer usable under -Wpedantic: write Int128, never a bare __int128 (GCC and Clang
/// both have it on every 64-bit target the project builds for).

namespace schedsim {

__extension__ typedef __int128 Int128;

}  // namespace schedsim
