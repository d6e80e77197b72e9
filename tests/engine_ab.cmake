# Engine A/B check: runs every workload generator and trace replays twice, with an engine
# speed switch off and on (an environment variable that must not change any output), and
# compares the results JSON, the ftrace output (--trace-out) and stdout/stderr byte for byte.
#   -DSCHEDSIM=path -DSOURCE_DIR=dir -DWORK_DIR=scratch -DSWITCH=ENV_VAR_NAME [-DON=value]
# ON is the switch's value for the second run (default 1; SCHEDSIM_ENGINE_SEGMENT=channels folds
# channel reads and writes too).
# The switches: SCHEDSIM_ENGINE_TICK_FIFO (engine/src/event_queue.hpp) and SCHEDSIM_ENGINE_SEGMENT
# (engine/src/segment.cpp; bench/README.md, "Engine optimizations"). A new exact shortcut in the
# engine adds its own switch and a test line. The cases without jitter, background tasks or an
# EEVDF kernel are the ones the segment advance folds (it is off for those).
if(NOT DEFINED ON)
  set(ON 1)
endif()
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(traces ${SOURCE_DIR}/tests/data/traces)

# name | gen arguments (empty: the run's first argument is a trace) | run arguments
set(cases
  "messaging-pipe|messaging --pipe --thread --group 2 --nr_loops 300|-t xeon-e5-2690v2 --kernel 4.17 --jitter 0.05"
  "messaging-socket|messaging --group 2 --nr_loops 200|-t xeon-e5-2690v2 --kernel 6.12"
  "pipe|pipe --loops 20000|-t xeon-e5-2690v2 --kernel 5.15"
  "pipe-stop|pipe --loops 20000 --threaded|-t big-little --stop-at 20ms"
  "schbench|schbench -m 2 -t 8 --requests 40|-t xeon-e5-2690v2 --kernel 6.12"
  "schbench-old|schbench --old -m 2 -t 4 --requests 20|-t big-little"
  "fork-exec|fork --mode exec -n 200 -P 4|-t xeon-e5-2690v2 --kernel 4.17"
  "periodic|periodic -n 20 --duration 200ms --jitter 10%|-t big-little --kernel 6.12"
  "mix|mix ${SOURCE_DIR}/examples/mix.json|-t xeon-e5-2690v2"
  "trace-hackbench|${traces}/hackbench-pipe-g2.ftrace.gz|-t xeon-e5-2690v2"
  "trace-perf-messaging|${traces}/perf-bench-messaging.ftrace.gz|-t xeon-e5-2690v2 --kernel 6.12"
  "trace-periodic|${traces}/sim-periodic-6ms.ftrace.gz|-t big-little"
  "token-6.18|messaging --pipe --thread --group 1 --nr_loops 300|-t xeon-e5-2690v2"
  "token-seed|messaging --pipe --thread --group 4 --nr_loops 300|-t xeon-e5-2690v2 --kernel 4.17 --placement sis-fold-opt"
  "token-socket-events|messaging --group 3 --nr_loops 200|-t xeon-e5-2690v2 --kernel 5.15 --update-curr events"
  "token-stop|messaging --pipe --group 2 --nr_loops 400|-t epyc-milan-2s --kernel 4.17 --stop-at 3ms"
  "token-fifo-none|messaging --pipe --thread --group 2 --nr_loops 200|-t big-little --kernel 5.15 --preempt none"
  "token-channels|messaging --pipe --group 2 --nr_loops 200 --channel-model pipe|-t xeon-e5-2690v2 --kernel 4.17"
  "channels-seed|messaging --pipe --thread --group 4 --nr_loops 100 --channel-model pipe|-t xeon-e5-2690v2 --kernel 4.17 --placement sis-fold-opt"
  "channels-socket|messaging --thread --group 2 --nr_loops 200 --channel-model pipe|-t epyc-milan-2s --kernel 5.15 --update-curr events"
  "channels-stop|messaging --pipe --group 3 --nr_loops 300 --channel-model pipe|-t xeon-e5-2690v2 --kernel 6.12 --stop-at 2ms"
  "trace-hackbench-recorded|${traces}/hackbench-pipe-g2.ftrace.gz|-t xeon-e5-2690v2 --kernel 5.15 --wake-match recorded"
  "trace-perf-data|${traces}/perf618-hb-g1-l10-pipe-thread.data.gz|-t host --kernel 4.17"
  "trace-smt|${traces}/smt2x2-msg-sim.ftrace.gz|-t xeon-e5-2690v2 --kernel 5.15 --update-curr events"
  "trace-channels|${traces}/syscalls/hb-pipe-procs-g1-l25.ftrace.gz|-t xeon-e5-2690v2 --kernel 4.17 --channels pipe")

set(failed "")
foreach(c IN LISTS cases)
  string(REPLACE "|" ";" parts "${c}")
  list(GET parts 0 name)
  list(GET parts 1 what)
  list(GET parts 2 runargs)
  separate_arguments(runargs UNIX_COMMAND "${runargs}")
  if(what MATCHES "^/")
    set(input ${what})
  else()
    separate_arguments(genargs UNIX_COMMAND "${what}")
    set(input ${WORK_DIR}/${name}.json)
    execute_process(COMMAND ${SCHEDSIM} gen ${genargs} -o ${input} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${name}: gen ${what} failed (${rc}): ${err}")
    endif()
  endif()
  # Both runs write to the same paths (the command line is part of the results), moved aside after.
  foreach(mode 0 ${ON})
    execute_process(
      COMMAND ${CMAKE_COMMAND} -E env ${SWITCH}=${mode}
              ${SCHEDSIM} run ${input} ${runargs} --format json -o ${WORK_DIR}/out.json --trace-out ${WORK_DIR}/out.ftrace
      WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${name}: run with ${SWITCH}=${mode} failed (${rc}): ${err}")
    endif()
    file(RENAME ${WORK_DIR}/out.json ${WORK_DIR}/${name}.${mode}.json)
    file(RENAME ${WORK_DIR}/out.ftrace ${WORK_DIR}/${name}.${mode}.ftrace)
    file(WRITE ${WORK_DIR}/${name}.${mode}.stdout "${out}")
    file(WRITE ${WORK_DIR}/${name}.${mode}.stderr "${err}")
  endforeach()
  set(differ "")
  foreach(ext json ftrace stdout stderr)
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK_DIR}/${name}.0.${ext} ${WORK_DIR}/${name}.${ON}.${ext}
                    RESULT_VARIABLE same)
    if(NOT same EQUAL 0)
      list(APPEND differ "${ext}")
      list(APPEND failed "${name}.${ext}")
    endif()
  endforeach()
  file(SIZE ${WORK_DIR}/${name}.${ON}.ftrace ftrace_size)
  if(ftrace_size EQUAL 0)
    message(FATAL_ERROR "${name}: empty --trace-out, nothing was compared")
  endif()
  if(differ)
    message(STATUS "${name}: DIFFERENT with ${SWITCH}=0 and =${ON}: ${differ}")
  else()
    message(STATUS "${name}: identical with ${SWITCH}=0 and =${ON}")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "outputs differ between ${SWITCH}=0 and ${SWITCH}=${ON} (files in ${WORK_DIR}): ${failed}")
endif()
