# perfgateDiscoverTestsImpl.cmake — run by perfgate_discover_tests() after a
# build (cmake -P): asks the binary for its tests and writes one add_test()
# per test into OUT. A binary that cannot list its tests stops the build
# with its exit code and output (and OUT is removed: no stale list).
cmake_policy(SET CMP0007 NEW)
execute_process(COMMAND "${BINARY}" --list WORKING_DIRECTORY "${WORKDIR}"
                TIMEOUT ${TIMEOUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUT}")
  message(FATAL_ERROR "perfgate_discover_tests: ${BINARY} --list exited ${rc}:\n${out}${err}")
endif()
if(JSON_DIR)
  get_filename_component(JSON_DIR "${JSON_DIR}" ABSOLUTE BASE_DIR "${WORKDIR}")
  file(MAKE_DIRECTORY "${JSON_DIR}")
endif()
string(REPLACE "\n" ";" names "${out}")
set(text "# written by perfgate_discover_tests from `${BINARY} --list`\n")
set(n 0)
foreach(name IN LISTS names)
  if(name STREQUAL "")
    continue()
  endif()
  math(EXPR n "${n} + 1")
  string(REGEX REPLACE "\\..*" "" suite "${name}")
  set(labels ${suite} gpu ${LABELS})
  string(REGEX REPLACE "([][.*+?^$()|\\\\])" "\\\\\\1" pattern "${name}")
  set(args "[==[--filter=${name}]==]")
  foreach(f IN LISTS FLAGS)
    string(APPEND args " [==[${f}]==]")
  endforeach()
  if(JSON_DIR)
    string(APPEND args " [==[--json=${JSON_DIR}/${name}.json]==]")
  endif()
  string(APPEND text
         "add_test([==[${PREFIX}${name}]==] [==[${BINARY}]==] ${args})\n"
         "set_tests_properties([==[${PREFIX}${name}]==] PROPERTIES\n"
         "  WORKING_DIRECTORY [==[${WORKDIR}]==]\n"
         "  LABELS [==[${labels}]==]\n"
         "  SKIP_REGULAR_EXPRESSION [==[(^|\n)SKIP  ${pattern} \\(]==])\n")
endforeach()
if(n EQUAL 0)
  string(APPEND text "message(WARNING [==[${BINARY} lists no perf test]==])\n")
endif()
file(WRITE "${OUT}" "${text}")
