# Included by tests/CMakeLists.txt: the real servers as a ctest fixture, the layer
# check and the installed-package check. Plain `ctest` runs all of it; `ctest -R X`
# starts and stops the servers around X when X needs them.

set(SLUICE_SERVERS_DIR ${PROJECT_SOURCE_DIR}/tests/support/servers)

add_test(NAME servers.start COMMAND ${SLUICE_SERVERS_DIR}/start.sh ${CMAKE_BINARY_DIR})
set_tests_properties(servers.start PROPERTIES FIXTURES_SETUP real_servers TIMEOUT 120)
add_test(NAME servers.stop COMMAND ${SLUICE_SERVERS_DIR}/stop.sh ${CMAKE_BINARY_DIR})
set_tests_properties(servers.stop PROPERTIES FIXTURES_CLEANUP real_servers TIMEOUT 60)

# Every test of integration_tests needs the servers. Its tests are discovered after
# the build (gtest_discover_tests), so the fixture is attached when ctest reads them:
# gtest_discover_tests leaves their names in integration_tests_TESTS, and this file
# is included after its include file.
set(SLUICE_FIXTURE_HOOK ${CMAKE_CURRENT_BINARY_DIR}/real_servers_fixture.cmake)
file(WRITE ${SLUICE_FIXTURE_HOOK} [=[
if(integration_tests_TESTS)
  set_tests_properties(${integration_tests_TESTS} PROPERTIES FIXTURES_REQUIRED real_servers)
endif()
]=])
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${SLUICE_FIXTURE_HOOK})

# Every C and C++ file is as .clang-format formats it (./dev format fixes one that is not).
add_test(NAME lint.format COMMAND ${PROJECT_SOURCE_DIR}/tests/tools/check_format.sh ${PROJECT_SOURCE_DIR})
add_test(NAME lint.format_catches_violations
  COMMAND ${PROJECT_SOURCE_DIR}/tests/tools/check_format.sh --self-test)
set_tests_properties(lint.format lint.format_catches_violations PROPERTIES LABELS one_thread)
add_test(NAME layers.check
  COMMAND ${PROJECT_SOURCE_DIR}/tests/tools/check_layers.sh ${PROJECT_SOURCE_DIR})
add_test(NAME layers.check_catches_violations
  COMMAND ${PROJECT_SOURCE_DIR}/tests/tools/check_layers.sh --self-test)
set_tests_properties(layers.check layers.check_catches_violations PROPERTIES
  LABELS one_thread)

# libsluice.so exports the public API and nothing else (what include/sluice marks
# SLUICE_API), and the `sluice` command, a user of the public API only, links against
# it alone.
if(TARGET sluice_shared)
  add_test(NAME exports.check COMMAND ${PROJECT_SOURCE_DIR}/tests/tools/check_exports.sh
    $<TARGET_FILE:sluice_shared> ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
    ${PROJECT_SOURCE_DIR})
  add_test(NAME exports.check_catches_violations
    COMMAND ${PROJECT_SOURCE_DIR}/tests/tools/check_exports.sh --self-test ${PROJECT_SOURCE_DIR})
  add_executable(sluice_over_shared_library $<TARGET_OBJECTS:sluice_cli_objects>
    $<TARGET_OBJECTS:sluice_tools>)
  target_link_libraries(sluice_over_shared_library PRIVATE sluice_shared)
  add_test(NAME exports.cli_over_shared_library COMMAND sluice_over_shared_library --version)
  set_tests_properties(exports.check exports.check_catches_violations
    exports.cli_over_shared_library PROPERTIES LABELS one_thread)
endif()

# Installs this build into a scratch prefix and builds examples/fetch against it,
# once through find_package(sluice) and once through pkg-config.
set(SLUICE_CONSUMER_FLAGS "")
if(SLUICE_SANITIZE)
  set(SLUICE_CONSUMER_FLAGS "-fsanitize=${SLUICE_SANITIZE}")
endif()
add_test(NAME examples.consumer
  COMMAND ${PROJECT_SOURCE_DIR}/tests/tools/check_consumer.sh ${CMAKE_BINARY_DIR}
    ${PROJECT_SOURCE_DIR}/examples/fetch ${CMAKE_COMMAND} ${CMAKE_CXX_COMPILER}
    "${SLUICE_CONSUMER_FLAGS}")
# one_thread: it builds, then runs the example only to see it reject a bad command line.
set_tests_properties(examples.consumer PROPERTIES TIMEOUT 600 LABELS one_thread)
