# libsluice.so: the same objects as libsluice.a (SLUICE_LIBRARY_OBJECTS), for
# programs that load sluice at run time: C programs, language runtimes through FFI
# (bindings/python), anyone who wants one copy of sluice shared by several programs.
# Included from the top-level CMakeLists.txt after the static `sluice` target.
#
# Only the public API is exported: every object is compiled with hidden visibility and
# include/sluice marks what is public SLUICE_API (the C API, the C++ classes and
# functions); cmake/sluice.map gives those the version node. Nothing is undefined at
# link time.
#
# The soname carries major.minor: before 1.0 a minor release may break the API (as
# the CMake package's SameMinorVersion says), so 0.1 and 0.2 must not be taken for
# each other by the dynamic loader; from 1.0 on the major alone will do.
#
# Fuzzer builds skip it, and so do sanitizer builds but one: their runtimes are not
# linked into shared libraries (the same reason they skip the layer link check). The
# one is GCC's AddressSanitizer (with UBSan or alone): GCC links libasan.so and
# libubsan.so into a shared library as dependencies, so libsluice.so links, and a
# host program that is not instrumented (node, python) runs it with libasan.so
# preloaded. That is how the bindings' suites run under ASan: SLUICE_HOST_SANITIZER_ENV
# is what their ctest environments add.
set(SLUICE_HOST_SANITIZER_ENV "")
if(SLUICE_FUZZ)
  return()
endif()
if(SLUICE_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU" OR NOT SLUICE_SANITIZE MATCHES "address"
     OR SLUICE_SANITIZE MATCHES "thread")
    return()
  endif()
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so
    OUTPUT_VARIABLE sluice_libasan OUTPUT_STRIP_TRAILING_WHITESPACE)
  # Leaks are not looked for: the host's own (node's, python's) at exit would drown
  # the library's, and every stack of ours starts in the host. The library's leaks
  # are the C++ suites' to find.
  set(SLUICE_HOST_SANITIZER_ENV "LD_PRELOAD=${sluice_libasan}"
    "ASAN_OPTIONS=detect_leaks=0:strict_string_checks=1"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
endif()

add_library(sluice_shared SHARED ${SLUICE_LIBRARY_OBJECTS})
add_library(sluice::shared ALIAS sluice_shared)
set_target_properties(sluice_shared PROPERTIES
  OUTPUT_NAME sluice
  EXPORT_NAME shared
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/sluice.map)
target_include_directories(sluice_shared PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
# The static library's link libraries, read from it so that the two never differ.
get_target_property(sluice_private_libraries sluice LINK_LIBRARIES)
target_link_libraries(sluice_shared PUBLIC Threads::Threads PRIVATE ${sluice_private_libraries})
target_link_options(sluice_shared PRIVATE LINKER:--no-undefined
  LINKER:--version-script=${PROJECT_SOURCE_DIR}/cmake/sluice.map)
