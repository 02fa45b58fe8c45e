# Included by tests/CMakeLists.txt: the Python binding's pytest suite as the ctest
# `python.binding`, against libsluice.so of this build and the real servers of the
# fixture. Needs the shared library (of the sanitizer builds only GCC's ASan one has
# it, and there python runs with libasan preloaded: SLUICE_HOST_SANITIZER_ENV) and
# Debian's python3-pytest (./dev deps); /usr/bin/python3 is Debian's, where the
# python3 on PATH may be another build without it.
if(NOT TARGET sluice_shared)
  return()
endif()
add_test(NAME python.binding
  COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR}/tests)
set_tests_properties(python.binding PROPERTIES
  ENVIRONMENT "SLUICE_LIBRARY=$<TARGET_FILE:sluice_shared>;SLUICE_TEST_ENV=${CMAKE_BINARY_DIR}/test-env;PYTHONPATH=${CMAKE_CURRENT_LIST_DIR};PYTHONDONTWRITEBYTECODE=1;${SLUICE_HOST_SANITIZER_ENV}"
  FIXTURES_REQUIRED real_servers
  LABELS threaded
  TIMEOUT 300)

# `pip install` of the package (offline: Debian's python3-pip, python3-setuptools,
# python3-wheel) into a temporary directory, imported by a fresh interpreter that finds
# libsluice the way a user's does: `cmake --install` of this build into a temporary
# prefix, or a copy shipped beside the package. No SLUICE_LIBRARY.
add_test(NAME python.install
  COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR}/install_tests)
set_tests_properties(python.install PROPERTIES
  ENVIRONMENT "SLUICE_BUILD_DIR=${CMAKE_BINARY_DIR};SLUICE_TEST_ENV=${CMAKE_BINARY_DIR}/test-env;PYTHONDONTWRITEBYTECODE=1;${SLUICE_HOST_SANITIZER_ENV}"
  FIXTURES_REQUIRED real_servers
  LABELS threaded
  TIMEOUT 600)
