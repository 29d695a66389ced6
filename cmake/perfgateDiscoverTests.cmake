# perfgateDiscoverTests.cmake — perfgate_discover_tests(): one CTest test per
# PERF_TEST of a perf-test binary, asked after each build (`--list`), in the
# manner of GoogleTest's gtest_discover_tests().
#
#   perfgate_discover_tests(target | TARGET target   # first, as gtest_discover_tests(target)
#                           [EXTRA_ARGS arg...]     # runner flags for every test
#                           [BASELINE_DIR dir]      # --baseline-dir
#                           [HISTORY location]      # --history (SQLite file or postgresql://)
#                           [JSON_DIR dir]          # --json=dir/<suite.name>.json per test
#                           [TEST_PREFIX prefix]    # before each CTest name
#                           [LABELS label...]       # besides the suite's name and "gpu"
#                           [DISCOVERY_TIMEOUT s])  # for --list (default 60)
#
# Each test runs `target --filter=suite.name <flags>` in the binary's
# directory. Its exit code is CTest's verdict: 0 passed (a skip too, unless
# the output says SKIP: then CTest shows it skipped, with perfgate's
# reason in the output), 1 a claim failed, 2 perfgate refused to run (a bad
# flag, a malformed baseline file, nothing matched): a failure whose output
# says why. Labels: the suite, "gpu" (perfgate cannot tell from the binary
# which tests touch the GPU) and LABELS. JSON_DIR (relative: to the
# binary's directory) is created at discovery. The target's CUDA runtime is
# set to the shared one (CUDA_RUNTIME_LIBRARY Shared): the one perfgate
# calls; CMake's default, the static one, would put a second runtime in the
# binary.
set(_perfgate_discover_script "${CMAKE_CURRENT_LIST_DIR}/perfgateDiscoverTestsImpl.cmake")

function(perfgate_discover_tests)
  set(one TARGET BASELINE_DIR HISTORY JSON_DIR TEST_PREFIX DISCOVERY_TIMEOUT)
  set(many EXTRA_ARGS LABELS)
  set(usage "perfgate_discover_tests(mytarget ...) or perfgate_discover_tests(TARGET mytarget ...)")
  set(args ${ARGN})
  set(positional "")
  # The target may come first without its keyword, as gtest_discover_tests(mytarget) takes it.
  if(ARGC GREATER 0 AND NOT "${ARGV0}" STREQUAL "" AND NOT "${ARGV0}" IN_LIST one AND
     NOT "${ARGV0}" IN_LIST many)
    set(positional "${ARGV0}")
    list(REMOVE_AT args 0)
  endif()
  cmake_parse_arguments(arg "" "${one}" "${many}" ${args})
  if(arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "perfgate_discover_tests: ${arg_KEYWORDS_MISSING_VALUES} given without a value "
                        "(arguments: '${ARGN}')")
  endif()
  if(NOT positional STREQUAL "" AND NOT "${arg_TARGET}" STREQUAL "")
    message(FATAL_ERROR "perfgate_discover_tests: two targets, '${positional}' and TARGET '${arg_TARGET}': "
                        "name one, as ${usage}")
  endif()
  if(NOT positional STREQUAL "")
    set(arg_TARGET "${positional}")
  endif()
  if("${arg_TARGET}" STREQUAL "")
    message(FATAL_ERROR "perfgate_discover_tests: no target named (arguments: '${ARGN}'): ${usage}")
  endif()
  if(NOT TARGET "${arg_TARGET}")
    message(FATAL_ERROR "perfgate_discover_tests: '${arg_TARGET}' is not a target in this project: "
                        "add_executable(${arg_TARGET} ...) comes before perfgate_discover_tests")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "perfgate_discover_tests(${arg_TARGET}): unknown arguments '${arg_UNPARSED_ARGUMENTS}' "
                        "(it takes EXTRA_ARGS, BASELINE_DIR, HISTORY, JSON_DIR, TEST_PREFIX, LABELS and "
                        "DISCOVERY_TIMEOUT after the target)")
  endif()
  if(NOT arg_DISCOVERY_TIMEOUT)
    set(arg_DISCOVERY_TIMEOUT 60)
  endif()
  set(flags ${arg_EXTRA_ARGS})
  if(arg_BASELINE_DIR)
    list(APPEND flags "--baseline-dir=${arg_BASELINE_DIR}")
  endif()
  if(arg_HISTORY)
    list(APPEND flags "--history=${arg_HISTORY}")
  endif()
  set_property(TARGET ${arg_TARGET} PROPERTY CUDA_RUNTIME_LIBRARY Shared)
  set(dir "${CMAKE_CURRENT_BINARY_DIR}")
  set(ctest_file "${dir}/${arg_TARGET}_perfgate_tests.cmake")
  set(include_file "${dir}/${arg_TARGET}_perfgate_include.cmake")
  add_custom_command(
    TARGET ${arg_TARGET} POST_BUILD BYPRODUCTS "${ctest_file}"
    COMMAND "${CMAKE_COMMAND}"
            -D "BINARY=$<TARGET_FILE:${arg_TARGET}>"
            -D "WORKDIR=$<TARGET_FILE_DIR:${arg_TARGET}>"
            -D "OUT=${ctest_file}"
            -D "FLAGS=${flags}"
            -D "JSON_DIR=${arg_JSON_DIR}"
            -D "PREFIX=${arg_TEST_PREFIX}"
            -D "LABELS=${arg_LABELS}"
            -D "TIMEOUT=${arg_DISCOVERY_TIMEOUT}"
            -P "${_perfgate_discover_script}"
    VERBATIM)
  file(WRITE "${include_file}"
       "if(EXISTS \"${ctest_file}\")\n"
       "  include(\"${ctest_file}\")\n"
       "else()\n"
       "  add_test(${arg_TARGET}_NOT_BUILT ${arg_TARGET}_NOT_BUILT)\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
