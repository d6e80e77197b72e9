# Run at every build (cli/CMakeLists.txt, target schedsim_commit): writes OUT with the source
# tree's git commit for `schedsim --version`, "+dirty" when tracked files differ from it, or
# "unknown" outside a git checkout (a release tarball). The file is rewritten only when its text
# changes, so main.cpp recompiles only when the commit does. Results files keep the plain
# version: their goldens must not change with every commit.
#   cmake -DSRC=<source dir> -DOUT=<header> -P cmake/Commit.cmake
find_program(GIT git)
set(commit "unknown")
if(GIT AND EXISTS "${SRC}/.git")
  execute_process(COMMAND ${GIT} -C "${SRC}" rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0 AND head)
    set(commit "${head}")
    execute_process(COMMAND ${GIT} -C "${SRC}" diff-index --quiet HEAD -- RESULT_VARIABLE dirty ERROR_QUIET)
    if(NOT dirty EQUAL 0)
      string(APPEND commit "+dirty")
    endif()
  endif()
endif()
set(text "#define SCHEDSIM_COMMIT \"${commit}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
