# Included by tests/CMakeLists.txt: the Node binding's `node --test` suites as the
# ctest `node.binding`, against this build's addon (bindings/node/node_addon.cmake)
# and the fixture's real servers; in GCC's ASan build, under ASan (node runs with
# libasan preloaded: SLUICE_HOST_SANITIZER_ENV, cmake/shared_library.cmake).
# --expose-gc lets the suite show that a collected response ends its exchange.
if(NOT TARGET sluice_node)
  return()
endif()
find_program(SLUICE_NODE_PROGRAM node)
if(NOT SLUICE_NODE_PROGRAM)
  return()
endif()
file(GLOB SLUICE_NODE_SUITES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test/*.test.mjs)
add_test(NAME node.binding
  COMMAND ${SLUICE_NODE_PROGRAM} --expose-gc --test ${SLUICE_NODE_SUITES}
  WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR})
set_tests_properties(node.binding PROPERTIES
  ENVIRONMENT "SLUICE_NODE_ADDON=${CMAKE_BINARY_DIR}/bindings/node/sluice_node.node;SLUICE_TEST_ENV=${CMAKE_BINARY_DIR}/test-env;${SLUICE_HOST_SANITIZER_ENV}"
  FIXTURES_REQUIRED real_servers
  LABELS threaded
  TIMEOUT 300)
