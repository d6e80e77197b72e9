# Every dependency comes from Debian 12 packages (scripts/install-deps.sh); nothing is downloaded.
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
# Boost.Math (header-only; Debian libboost-math-dev): Student's t, normal and beta distributions for
# schedsim::stats. Checked here so a missing package fails at configure time, not mid-build.
find_path(SCHEDSIM_BOOST_MATH_INCLUDE boost/math/distributions/students_t.hpp HINTS ${Boost_INCLUDE_DIRS})
if(NOT SCHEDSIM_BOOST_MATH_INCLUDE)
  message(FATAL_ERROR "Boost.Math headers not found (Debian: apt-get install libboost-math-dev)")
endif()
find_package(nlohmann_json 3.11 REQUIRED)
find_package(spdlog 1.10 REQUIRED)
find_package(ZLIB REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
# libtracecmd (Debian libtracecmd-dev, with libtracefs-dev and libtraceevent-dev) reads trace-cmd's
# binary trace.dat. Optional: without it a trace.dat is refused with the 'trace-cmd report' fallback.
option(SCHEDSIM_WITH_TRACECMD "read trace.dat through libtracecmd when pkg-config finds it" ON)
if(SCHEDSIM_WITH_TRACECMD)
  pkg_check_modules(TRACECMD IMPORTED_TARGET libtracecmd)
endif()
if(SCHEDSIM_BUILD_TESTS)
  find_package(Catch2 2.13 REQUIRED)
  include(Catch)
endif()

# Helper: a schedsim library target with public include/ and the common settings.
function(schedsim_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} ${ARG_SOURCES})
  add_library(schedsim::${name} ALIAS ${name})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_compile_features(${name} PUBLIC cxx_std_20)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE schedsim_warnings)
endfunction()

# The Python module (SCHEDSIM_PYTHON): pybind11 and the interpreter from Debian (pybind11-dev,
# python3-dev; its DataFrames need python3-pandas). Debian's /usr/bin/python3 is preferred over
# another python3 earlier in PATH (pyenv): the Debian packages the module uses are installed for it.
if(SCHEDSIM_PYTHON)
  if(NOT Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "the Python the module is built for")
  endif()
  find_package(Python3 3.9 REQUIRED COMPONENTS Interpreter Development.Module)
  set(PYBIND11_FINDPYTHON ON)
  find_package(pybind11 2.10 CONFIG)
  if(NOT pybind11_FOUND)
    message(FATAL_ERROR "pybind11 not found (Debian: scripts/install-deps.sh, or apt-get install pybind11-dev "
                        "python3-dev); -DSCHEDSIM_PYTHON=OFF builds without the Python module")
  endif()
  # The libraries end up in a shared object: position-independent code, without the cost of
  # semantic interposition (calls between a library's own functions stay direct and inlinable).
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-fno-semantic-interposition)
  endif()
endif()
