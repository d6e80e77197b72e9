# ASan + UBSan for the whole build (used by .ci/run's second build of the test suite).
if(SCHEDSIM_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  # GCC 12 reports false -Wmaybe-uninitialized inside libstdc++'s <regex> (std::function members
  # of _NFA states) once the sanitizers change inlining; the warning is unreliable in this mode
  # and stays on in the plain Release build.
  add_compile_options(-Wno-maybe-uninitialized)
endif()
