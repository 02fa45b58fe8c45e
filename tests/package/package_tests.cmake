# Included by tests/CMakeLists.txt: the Debian package (cmake/package.cmake) made,
# unpacked and used (check_deb.sh). Only where libsluice.so and the command are built
# (not the sanitizer builds, whose library would need its runtime in every program).
# `threaded`: it runs the command, which starts threads.
if(SLUICE_SANITIZE OR NOT TARGET sluice_shared OR NOT TARGET sluice_cli)
  return()
endif()
add_test(NAME package.deb
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/check_deb.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR}
    ${CMAKE_CPACK_COMMAND} ${CMAKE_C_COMPILER})
set_tests_properties(package.deb PROPERTIES FIXTURES_REQUIRED real_servers
  ENVIRONMENT "SLUICE_TEST_ENV_FILE=${CMAKE_BINARY_DIR}/test-env/env"
  TIMEOUT 300 LABELS threaded)
