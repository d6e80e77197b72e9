# libFuzzer build (the `fuzz` preset: clang++-14, build type "Fuzz" = -O1 -g without NDEBUG, so
# every assertion runs). The libraries get the fuzzer's coverage hooks without its main();
# fuzz/CMakeLists.txt links the targets with -fsanitize=fuzzer.
if(SCHEDSIM_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SCHEDSIM_FUZZ needs clang (cmake --preset fuzz uses clang++-14)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
