# Installs the sluice libraries (libsluice.a, and libsluice.so where it is built),
# their headers, the `sluice` command, a CMake package (find_package(sluice) ->
# sluice::sluice, the static library, and sluice::shared) and a pkg-config file
# (sluice.pc: `-lsluice` links the shared library where both are installed, as the
# linker prefers it; `pkg-config --static` adds what the static one needs).
# Included at the end of the top-level CMakeLists.txt, after every target exists.
#
# libsluice.a is static, so its consumers link its private dependencies too. They
# are derived from the `sluice` target's link libraries below, so a dependency
# added there reaches the package and the .pc file without an edit here:
#   - OpenSSL::*, ZLIB::ZLIB, Threads::Threads -> find_dependency in the package;
#   - PkgConfig::<PREFIX> (pkg_check_modules(<PREFIX> IMPORTED_TARGET <module>))
#     -> the package recreates PkgConfig::<PREFIX> from the same module.
# Anything else stops the configure step with a message saying what to teach here.

include(CMakePackageConfigHelpers)

set(SLUICE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/sluice)

# sluice_link_dependencies(<out>): the `sluice` target's link libraries, with
# $<LINK_ONLY:x> unwrapped and build-tree-only entries dropped.
function(sluice_link_dependencies out)
  get_target_property(direct sluice LINK_LIBRARIES)
  get_target_property(interface sluice INTERFACE_LINK_LIBRARIES)
  set(deps "")
  foreach(item IN LISTS direct interface)
    if(item MATCHES "^\\$<LINK_ONLY:(.+)>$")
      set(item ${CMAKE_MATCH_1})
    endif()
    if(NOT item OR item MATCHES "NOTFOUND$" OR item MATCHES "^\\$<BUILD_INTERFACE:")
      continue()
    endif()
    list(APPEND deps ${item})
  endforeach()
  list(REMOVE_DUPLICATES deps)
  set(${out} ${deps} PARENT_SCOPE)
endfunction()

# Fills SLUICE_CONFIG_DEPENDENCIES (CMake code for sluiceConfig.cmake),
# SLUICE_PC_REQUIRES_PRIVATE and SLUICE_PC_LIBS_PRIVATE (for sluice.pc).
function(sluice_describe_dependencies)
  sluice_link_dependencies(deps)
  set(config "")
  set(requires "")
  set(libs "")
  foreach(dep IN LISTS deps)
    if(dep STREQUAL "Threads::Threads")
      list(APPEND config "find_dependency(Threads)")
      list(APPEND libs -pthread)
    elseif(dep MATCHES "^OpenSSL::(SSL|Crypto)$")
      list(APPEND config "find_dependency(OpenSSL)")
      string(TOLOWER "lib${CMAKE_MATCH_1}" module)
      list(APPEND requires ${module})
    elseif(dep STREQUAL "ZLIB::ZLIB")
      list(APPEND config "find_dependency(ZLIB)")
      list(APPEND requires zlib)
    elseif(dep MATCHES "^PkgConfig::(.+)$")
      set(prefix ${CMAKE_MATCH_1})
      set(module "${${prefix}_MODULE_NAME}")
      if(NOT module)
        message(FATAL_ERROR "cmake/install.cmake: cannot tell which pkg-config module "
          "made ${dep} (use pkg_check_modules(${prefix} IMPORTED_TARGET <one module>))")
      endif()
      list(APPEND config "find_dependency(PkgConfig)"
        "_sluice_pkg_dependency(${prefix} ${module})")
      # The shared library itself, not Requires.private: `pkg-config --static` would
      # also pull that library's own private dependencies (gnutls's need
      # libunistring-dev, which Debian's libgnutls28-dev does not install).
      foreach(dir IN LISTS ${prefix}_LIBRARY_DIRS)
        list(APPEND libs "-L${dir}")
      endforeach()
      foreach(lib IN LISTS ${prefix}_LIBRARIES)
        list(APPEND libs "-l${lib}")
      endforeach()
    else()
      message(FATAL_ERROR "cmake/install.cmake: the sluice library links ${dep}; "
        "say in sluice_describe_dependencies how its consumers find it")
    endif()
  endforeach()
  foreach(list_name IN ITEMS config requires libs)
    list(REMOVE_DUPLICATES ${list_name})
  endforeach()
  list(JOIN config "\n" config)
  list(JOIN requires " " requires)
  list(JOIN libs " " libs)
  set(SLUICE_CONFIG_DEPENDENCIES "${config}" PARENT_SCOPE)
  set(SLUICE_PC_REQUIRES_PRIVATE "${requires}" PARENT_SCOPE)
  set(SLUICE_PC_LIBS_PRIVATE "${libs}" PARENT_SCOPE)
endfunction()

sluice_describe_dependencies()

# The public headers need C++20 (std::span, ...): say so to every consumer.
target_compile_features(sluice INTERFACE cxx_std_20)

install(TARGETS sluice EXPORT sluiceTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# libsluice.so (cmake/shared_library.cmake; not in sanitizer builds) as sluice::shared,
# with its soname symlinks. Its dependencies are its own business (DT_NEEDED), so the
# package needs nothing more for it.
if(TARGET sluice_shared)
  install(TARGETS sluice_shared EXPORT sluiceTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development)
endif()
# The C++ headers and the C API's sluice.h.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/sluice
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
if(TARGET sluice_cli)
  install(TARGETS sluice_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # The command's man page (`man sluice`), held to its options by man_page_test.cpp.
  install(FILES ${PROJECT_SOURCE_DIR}/man/sluice.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()

install(EXPORT sluiceTargets NAMESPACE sluice:: DESTINATION ${SLUICE_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/sluiceConfig.cmake.in
  ${PROJECT_BINARY_DIR}/sluiceConfig.cmake INSTALL_DESTINATION ${SLUICE_CMAKE_DIR})
# 0.x: a minor release may break the API, so only the same minor version matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/sluiceConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/sluiceConfig.cmake
  ${PROJECT_BINARY_DIR}/sluiceConfigVersion.cmake DESTINATION ${SLUICE_CMAKE_DIR})

# sluice.pc locates the prefix from its own place (${pcfiledir}), so the package
# works wherever it is installed (cmake --install --prefix chooses at install time).
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(SLUICE_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH SLUICE_PC_UP "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  string(REGEX REPLACE "/$" "" SLUICE_PC_UP "${SLUICE_PC_UP}")
  set(SLUICE_PC_PREFIX "\${pcfiledir}/${SLUICE_PC_UP}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/sluice.pc.in ${PROJECT_BINARY_DIR}/sluice.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/sluice.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
