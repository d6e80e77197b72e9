# ASan + UBSan for the whole build (used by .ci/run's second build of the test suite).
if(SCHEDSIM_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  # GCC 12 reports false -Wmaybe-uninitialized inside libstdc++'s <regex> (std::function members
  # of _NFA states) once the sanitizers change inlining; the warning is unreliable in this mode
  # and stays on in the plain Release build.
  add_compile_options(-Wno-maybe-uninitialized)
endif()

# Assertions in any build type: SCHEDSIM_DASSERT and assert() (NDEBUG undefined) and libstdc++'s
# own checks (_GLIBCXX_ASSERTIONS: bounds of operator[] on vector/string/array, and more). The
# sanitizer preset turns it on, so every debug assertion runs in CI. Bounds checks that guard
# memory in our own types (CpuMask::set, word) are SCHEDSIM_ASSERT and on in every build.
option(SCHEDSIM_ASSERTIONS "Debug assertions and libstdc++ bounds checks in any build type" OFF)
if(SCHEDSIM_ASSERTIONS)
  add_compile_options(-UNDEBUG)
  add_compile_definitions(_GLIBCXX_ASSERTIONS)
endif()
