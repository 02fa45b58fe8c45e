# Included at the end of the top-level CMakeLists.txt: the Node.js binding's addon,
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
add_library(sluice_node MODULE ${SLUICE_NODE_SOURCES})
# Node loads `.node` files; symbols from node itself (napi_*, uv_*) resolve at load.
set_target_properties(sluice_node PROPERTIES
  PREFIX ""
  SUFFIX ".node"
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bindings/node
  CXX_VISIBILITY_PRESET hidden
  BUILD_RPATH "$<TARGET_FILE_DIR:sluice_shared>")
target_compile_definitions(sluice_node PRIVATE NODE_GYP_MODULE_NAME=sluice_node NAPI_VERSION=8)
# Node's headers are not ours to warn about.
target_include_directories(sluice_node SYSTEM PRIVATE ${SLUICE_NODE_INCLUDE_DIR})
target_compile_options(sluice_node PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${SLUICE_WARNINGS}>)
# Only the C API: include/sluice/sluice.h, no C++ header, no src/.
target_link_libraries(sluice_node PRIVATE sluice_shared)
