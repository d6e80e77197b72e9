# One INTERFACE target carrying the project's warning set; every schedsim target links it.
add_library(schedsim_warnings INTERFACE)
target_compile_options(schedsim_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wimplicit-fallthrough -Wconversion -Wsign-conversion)
# GCC 12's middle-end warnings fire at -O3 inside libstdc++ and nlohmann/json for correct code:
# -Wrestrict on `"literal" + std::string` (GCC PR 105329, 105651) and -Warray-bounds /
# -Wstringop-overflow in std::map / std::string internals after inlining (PR 106199 and kin),
# all fixed or quieted in GCC 13. They cannot be acted on in our code, so they are off for
# those compilers only; the ASan+UBSan build checks the real thing at run time.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(schedsim_warnings INTERFACE -Wno-restrict -Wno-array-bounds -Wno-stringop-overflow)
endif()
