# The shell completions (written by the built command from its option table) and the
# Debian package CPack makes of the whole installation: the `sluice` command, its man
# page and completions, libsluice.so and libsluice.a, the headers, sluice.pc and the
# CMake package. `./dev package` builds it; tests/package/check_deb.sh installs and
# runs it in the test suite. Included at the end of the top-level CMakeLists.txt,
# after install.cmake.

if(TARGET sluice_cli)
  # `sluice --completion SHELL` prints the script (src/cli/options/help/completion_script.cpp),
  # so an option added to the help rows completes in the next build.
  set(SLUICE_COMPLETIONS_DIR ${PROJECT_BINARY_DIR}/completions)
  add_custom_command(
    OUTPUT ${SLUICE_COMPLETIONS_DIR}/sluice ${SLUICE_COMPLETIONS_DIR}/_sluice
    COMMAND ${CMAKE_COMMAND} -E make_directory ${SLUICE_COMPLETIONS_DIR}
    COMMAND sh -c "\"$0\" --completion bash > \"$1\" && \"$0\" --completion zsh > \"$2\""
      $<TARGET_FILE:sluice_cli> ${SLUICE_COMPLETIONS_DIR}/sluice ${SLUICE_COMPLETIONS_DIR}/_sluice
    DEPENDS sluice_cli
    COMMENT "Writing the bash and zsh completions of sluice"
    VERBATIM)
  add_custom_target(sluice_completions ALL
    DEPENDS ${SLUICE_COMPLETIONS_DIR}/sluice ${SLUICE_COMPLETIONS_DIR}/_sluice)
  install(FILES ${SLUICE_COMPLETIONS_DIR}/sluice
    DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions)
  install(FILES ${SLUICE_COMPLETIONS_DIR}/_sluice
    DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/zsh/vendor-completions)
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME sluice)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "sluice developers <sluice@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "HTTP/1.1, HTTP/2 and HTTP/3 client: the sluice command and library")
set(CPACK_PACKAGE_DESCRIPTION
  "sluice downloads over HTTP/1.1, HTTP/2 and HTTP/3 with backpressure: segmented,
resumable, several at once. The sluice command takes curl's common options; the
library (libsluice.so, C++ and C headers, pkg-config and CMake files) is the same
client for programs.")
# A Debian package installs under /usr (libraries in /usr/lib, which ld.so searches).
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION web)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://example.invalid/sluice")
# Depends: from the libraries the binaries load (dpkg-shlibdeps), so it names each
# runtime package (libnghttp2-14, libngtcp2-9, ...) at the version the build saw.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The package is what is installed, not the debugging build it came from.
set(CPACK_STRIP_FILES ON)
include(CPack)
