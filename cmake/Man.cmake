# Writes the man pages from the binary's own help (build target schedsim_man): schedsim.1 from
# `schedsim --help`, and schedsim-CMD.1 for every command `schedsim help` lists, from
# `schedsim CMD --help`, through help2man (Debian's help2man; why: ARCHITECTURE.md "Dependencies").
# So the pages say what --help says, which the goldens check. help2man names a page after the
# program it runs: each command is run through a two-line wrapper called schedsim-CMD.
#   cmake -DSCHEDSIM=<binary> -DHELP2MAN=<help2man> -DOUT=<dir> -P cmake/Man.cmake
execute_process(COMMAND ${SCHEDSIM} help OUTPUT_VARIABLE top RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "Man.cmake: '${SCHEDSIM} help' failed (${rc})")
endif()
file(MAKE_DIRECTORY ${OUT} ${OUT}-wrappers)
set(h2m ${HELP2MAN} --no-info --no-discard-stderr --section 1)
execute_process(COMMAND ${h2m} --name "a trace-driven simulator of the Linux scheduler's wakeup path"
                        --output ${OUT}/schedsim.1 ${SCHEDSIM} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "Man.cmake: help2man failed on schedsim (${rc})")
endif()
# A summary's ';' would split a CMake list item: the NAME line gets ',' instead.
string(REPLACE ";" "," top "${top}")
string(REPLACE "\n" ";" lines "${top}")
set(in_commands FALSE)
foreach(line IN LISTS lines)
  if(line STREQUAL "commands:")
    set(in_commands TRUE)
    continue()
  endif()
  if(NOT in_commands)
    continue()
  endif()
  if(NOT line MATCHES "^  ([a-z]+) +(.+)$")
    break()  # the blank line after the table
  endif()
  set(cmd ${CMAKE_MATCH_1})
  set(summary ${CMAKE_MATCH_2})
  if(cmd STREQUAL "help")
    continue()
  endif()
  set(wrapper ${OUT}-wrappers/schedsim-${cmd})
  file(WRITE ${wrapper}
       "#!/bin/sh\n"
       "[ \"$1\" = --version ] && { \"${SCHEDSIM}\" --version | sed 's/^schedsim /schedsim-${cmd} /'; exit; }\n"
       "exec \"${SCHEDSIM}\" ${cmd} \"$@\"\n")
  file(CHMOD ${wrapper} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE)
  execute_process(COMMAND ${h2m} --name "${summary}" --output ${OUT}/schedsim-${cmd}.1 ${wrapper} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "Man.cmake: help2man failed on schedsim ${cmd} (${rc})")
  endif()
endforeach()
