# Included by the top-level CMakeLists.txt before the tests: the Node.js binding's addon,
# sluice_node.node, a Node-API module over the C API of libsluice.so (sluice.h only).
# Built when Node's headers are installed (/usr/include/node, from Debian's nodejs
# package: no download) and the shared library is built (not in sanitizer or fuzzer
# builds). The addon stays in the build tree, CMAKE_BINARY_DIR/bindings/node, with an
# RPATH to libsluice.so beside it there; the package finds it through
# SLUICE_NODE_ADDON, else in ../../build*/bindings/node (bindings/node/lib/addon.mjs).
set(SLUICE_NODE_INCLUDE_DIR /usr/include/node CACHE PATH "Node.js headers (node_api.h, uv.h)")
if(NOT TARGET sluice_shared OR NOT EXISTS ${SLUICE_NODE_INCLUDE_DIR}/node_api.h)
  return()
endif()

file(GLOB SLUICE_NODE_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/src/*.cpp)
list(REMOVE_ITEM SLUICE_NODE_SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/node_abi.cpp)
add_library(sluice_node_objects OBJECT ${SLUICE_NODE_SOURCES})
set_target_properties(sluice_node_objects PROPERTIES CXX_VISIBILITY_PRESET hidden)
target_compile_definitions(sluice_node_objects PUBLIC NODE_GYP_MODULE_NAME=sluice_node NAPI_VERSION=8)
# Node's headers are not ours to warn about.
target_include_directories(sluice_node_objects SYSTEM PUBLIC ${SLUICE_NODE_INCLUDE_DIR})
target_include_directories(sluice_node_objects PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>)
target_compile_options(sluice_node_objects PUBLIC $<$<COMPILE_LANGUAGE:CXX>:${SLUICE_WARNINGS}>)
# Under UBSan (GCC's ASan build, cmake/shared_library.cmake): node is built without
# RTTI, so the vptr check cannot recognise a shared_ptr control block node made (a
# V8 BackingStore's, lent_body.cpp) and reports every release of one.
if(SLUICE_SANITIZE MATCHES "undefined")
  target_compile_options(sluice_node_objects PUBLIC -fno-sanitize=vptr)
endif()

# sluice_node_addon(NAME [DEFINITIONS...]): the objects and the check of the Node.js
# major (node_abi.cpp, compiled for each with its definitions) as a `.node` module.
# Node loads `.node` files; symbols from node itself (napi_*, uv_*, V8) resolve at load.
function(sluice_node_addon name)
  add_library(${name} MODULE ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/src/node_abi.cpp)
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    SUFFIX ".node"
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bindings/node
    CXX_VISIBILITY_PRESET hidden
    BUILD_RPATH "$<TARGET_FILE_DIR:sluice_shared>")
  target_compile_definitions(${name} PRIVATE ${ARGN})
  target_link_libraries(${name} PRIVATE sluice_node_objects)  # its objects and flags
  # Only the C API: include/sluice/sluice.h, no C++ header, no src/.
  target_link_libraries(${name} PRIVATE sluice_shared)
endfunction()
sluice_node_addon(sluice_node)
# A copy that claims to be built for Node.js 1, which the tests load to see it
# refused (test/addon_abi.test.mjs).
if(SLUICE_BUILD_TESTS)
  sluice_node_addon(sluice_node_other_major SLUICE_NODE_BUILT_FOR_MAJOR=1)
endif()
