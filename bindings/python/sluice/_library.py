"""Where libsluice is: the one place the package decides which shared library it loads.

In order, the first that loads wins:
  1. $SLUICE_LIBRARY, a path (a source tree's tests, a build under development);
  2. a libsluice.so* beside this package's modules, put there before `pip install`
     (see docs/guide.md: a package that carries its own library);
  3. the installed library by its soname, as the dynamic loader finds it
     (LD_LIBRARY_PATH, the ldconfig cache: `cmake --install` to /usr/local, then
     ldconfig);
  4. the lib directories of `cmake --install`'s default prefix (/usr/local) and of this
     Python's prefix (a virtualenv `cmake --install --prefix $VIRTUAL_ENV`), which work
     before anyone runs ldconfig;
  5. ctypes.util.find_library("sluice"), whatever version the system has.
A library whose version is not this package's major.minor is refused: before 1.0 a
minor release may change the C API, and ctypes would call it with the old signatures.
"""

import ctypes
import ctypes.util
import glob
import os
import sys
import sysconfig

# The package's own version, and the soname of the library it was written against
# (cmake/shared_library.cmake: SOVERSION major.minor).
PACKAGE_VERSION = "0.1.0"
SONAME = "libsluice.so.0.1"

_HERE = os.path.dirname(os.path.abspath(__file__))


def _installed_candidates():
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    prefixes = ["/usr/local", sys.prefix]
    dirs = []
    for prefix in dict.fromkeys(prefixes):
        for lib in ("lib", os.path.join("lib", multiarch) if multiarch else None, "lib64"):
            if lib:
                dirs.append(os.path.join(prefix, lib, SONAME))
    return dirs


def _candidates():
    """(where the candidate came from, what to hand dlopen), in the order tried; lazily,
    since find_library runs programs (ldconfig, gcc) that an earlier hit spares."""
    explicit = os.environ.get("SLUICE_LIBRARY")
    if explicit:
        # Set means meant: nothing else is tried, so a wrong path is not papered over.
        yield "$SLUICE_LIBRARY", explicit
        return
    for path in sorted(glob.glob(os.path.join(_HERE, "libsluice.so*"))):
        yield "beside the package", path
    yield "the dynamic loader", SONAME
    for path in _installed_candidates():
        yield "an install prefix", path
    yield "ctypes.util.find_library", ctypes.util.find_library("sluice")


def _same_minor(version):
    return version.split(".")[:2] == PACKAGE_VERSION.split(".")[:2]


def load():
    """The loaded library (a ctypes.CDLL); ImportError listing every place tried."""
    tried = []
    for origin, path in _candidates():
        if path is None:
            tried.append(f"{origin}: found nothing")
            continue
        try:
            library = ctypes.CDLL(path)
        except OSError as failure:
            tried.append(f"{origin}: {failure}")
            continue
        function = library.sluice_version
        function.restype = ctypes.c_char_p
        version = function().decode()
        if _same_minor(version):
            return library
        tried.append(f"{origin}: {path} is libsluice {version}, this package needs "
                     f"{'.'.join(PACKAGE_VERSION.split('.')[:2])}.x")
    raise ImportError(
        "sluice: cannot load libsluice. Tried:\n  " + "\n  ".join(tried) +
        "\nInstall the library (cmake --install BUILD, then ldconfig), copy "
        f"libsluice.so* into {_HERE}, or set SLUICE_LIBRARY to its path.")
