#pragma once
/// Tier-1 errors: broken invariants (bugs). Always on; prints file:line, the expression and a
/// formatted message, then aborts. SCHEDSIM_DASSERT is compiled only in debug builds (hot loops).
#include <fmt/format.h>

namespace schedsim::detail {
[[noreturn]] void assert_fail(const char* file, int line, const char* expr, const std::string& msg);
}

#define SCHEDSIM_ASSERT(cond, ...)                                                         \
  do {                                                                                     \
    if (!(cond)) [[unlikely]]                                                              \
      ::schedsim::detail::assert_fail(__FILE__, __LINE__, #cond, fmt::format(__VA_ARGS__)); \
  } while (0)

#ifdef NDEBUG
#define SCHEDSIM_DASSERT(cond, ...) \
  do {                              \
  } while (0)
#else
#define SCHEDSIM_DASSERT(cond, ...) SCHEDSIM_ASSERT(cond, __VA_ARGS__)
#endif

#define SCHEDSIM_UNREACHABLE(msg) \
  ::schedsim::detail::assert_fail(__FILE__, __LINE__, "unreachable", msg)
