"""The package and the library agree on their version, and the package refuses one
that is not its own major.minor (the soname's promise)."""

import pathlib
import re

import sluice
from sluice import _library

HEADER = pathlib.Path(__file__).parents[3] / "include" / "sluice" / "sluice.h"


def test_the_package_s_version_is_the_library_s():
    declared = re.search(r'#define SLUICE_VERSION_STRING "([^"]+)"', HEADER.read_text()).group(1)
    assert _library.PACKAGE_VERSION == declared == sluice.__version__
    major, minor = declared.split(".")[:2]
    assert _library.SONAME == f"libsluice.so.{major}.{minor}"


def test_only_the_same_major_and_minor_version_is_accepted():
    major, minor, patch = (int(part) for part in _library.PACKAGE_VERSION.split("."))
    assert _library._same_minor(f"{major}.{minor}.{patch + 1}")
    assert not _library._same_minor(f"{major}.{minor + 1}.0")
    assert not _library._same_minor(f"{major + 1}.{minor}.{patch}")
