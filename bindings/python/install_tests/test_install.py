"""`pip install ./bindings/python` gives a package that finds libsluice with no
environment variable of sluice's: the library `cmake --install` put in a prefix, or a
copy shipped beside the package. Each case installs offline (Debian's setuptools) into
a temporary directory and imports sluice in a fresh interpreter, outside the source
tree, which then makes one real request.

Run by the ctest `python.install` with SLUICE_BUILD_DIR (the build to install) and
SLUICE_TEST_ENV (the fixture's servers)."""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "tests"))
from conftest import ENV, sha256_of  # noqa: E402  (the suite's helpers, written once)

PACKAGE_SOURCE = pathlib.Path(__file__).parents[1]
SONAME = "libsluice.so.0.1"

# Run in the fresh interpreter: prints the path of the libsluice it mapped, then the
# SHA-256 of a file fetched from the fixture's nginx.
CHILD = """
import asyncio, hashlib, sys
import sluice

async def main():
    async with sluice.Client() as client:
        response = await client.fetch(sys.argv[1])
        return hashlib.sha256(await response.read()).hexdigest()

digest = asyncio.run(main())
mapped = {line.split()[-1] for line in open("/proc/self/maps") if "libsluice.so" in line}
print(*mapped)
print(digest)
"""


def _clean_env(**extra):
    """The environment of a user who set nothing for sluice."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("SLUICE_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH")}
    env.update(extra)
    return env


def _pip_install(source, target):
    """Installs the package at `source` into `target` with no network, as a user would."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-index", "--no-build-isolation",
         "--no-cache-dir", "--disable-pip-version-check", "--quiet", "--target", str(target),
         str(source)], capture_output=True, text=True, timeout=240, env=_clean_env())
    assert done.returncode == 0, done.stdout + done.stderr


def _copy_source(tmp_path):
    """The package's source in a scratch directory: pip builds in the tree it is given,
    and the test must leave bindings/python as it found it."""
    copy = tmp_path / "source"
    shutil.copytree(PACKAGE_SOURCE, copy, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__", "libsluice.so*", "tests", "install_tests"))
    return copy


def _run_child(site, cwd, **env):
    done = subprocess.run([sys.executable, "-c", CHILD, ENV["SLUICE_NGINX_HTTP_URL"] + "/small.txt"],
                          cwd=cwd, capture_output=True, text=True, timeout=120,
                          env=_clean_env(PYTHONPATH=str(site), **env))
    assert done.returncode == 0, done.stderr
    mapped, digest = done.stdout.splitlines()
    assert digest == sha256_of("small.txt")
    return pathlib.Path(mapped)


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    """This build installed as a user installs it: `cmake --install BUILD --prefix P`."""
    prefix = tmp_path_factory.mktemp("prefix")
    done = subprocess.run(["cmake", "--install", os.environ["SLUICE_BUILD_DIR"], "--prefix",
                           str(prefix)], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    return prefix


def _installed_library(prefix):
    found = sorted(prefix.glob(f"lib*/**/{SONAME}"))
    assert found, f"cmake --install put no {SONAME} under {prefix}"
    return found[0]


def test_the_package_finds_the_installed_library_through_the_loader(prefix, tmp_path):
    library = _installed_library(prefix)
    site = tmp_path / "site"
    _pip_install(_copy_source(tmp_path), site)
    assert not list((site / "sluice").glob("libsluice.so*"))  # nothing shipped: found outside
    mapped = _run_child(site, tmp_path, LD_LIBRARY_PATH=str(library.parent))
    assert mapped.resolve() == library.resolve()


def test_a_library_copied_beside_the_package_ships_inside_it(prefix, tmp_path):
    source = _copy_source(tmp_path)
    shutil.copy(_installed_library(prefix), source / "sluice" / SONAME)
    site = tmp_path / "site"
    _pip_install(source, site)
    mapped = _run_child(site, tmp_path)
    assert mapped == site / "sluice" / SONAME


def test_a_library_that_cannot_load_is_an_import_error_saying_what_was_tried(tmp_path):
    site = tmp_path / "site"
    _pip_install(_copy_source(tmp_path), site)
    missing = tmp_path / "nowhere" / "libsluice.so"
    done = subprocess.run([sys.executable, "-c", "import sluice"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60,
                          env=_clean_env(PYTHONPATH=str(site), SLUICE_LIBRARY=str(missing)))
    assert done.returncode != 0
    assert "ImportError: sluice: cannot load libsluice. Tried:" in done.stderr
    assert f"$SLUICE_LIBRARY: {missing}" in done.stderr
