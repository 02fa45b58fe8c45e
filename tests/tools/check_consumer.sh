#!/usr/bin/env bash
# ctest examples.consumer: installs BUILD_DIR into a scratch prefix, then builds
# EXAMPLE_DIR (examples/fetch) against the installed package twice: through
# find_package(sluice) and through pkg-config. Where the shared library was built
# and installed, the C example beside it (examples/c_fetch) is built the same two ways
# against libsluice.so, and must load it from the prefix and report a refused
# connection. Passing proves the installed headers, libraries, CMake package and
# sluice.pc are complete enough to compile, link and run a program.
# Usage: check_consumer.sh BUILD_DIR EXAMPLE_DIR CMAKE CXX [EXTRA_FLAGS]
# EXTRA_FLAGS (e.g. -fsanitize=address) go to the consumer's compile and link, since
# a sanitized libsluice.a needs its runtime.
set -euo pipefail

[ $# -ge 4 ] || { echo "usage: $0 BUILD_DIR EXAMPLE_DIR CMAKE CXX [EXTRA_FLAGS]" >&2; exit 2; }
build=$1 example=$2 cmake=$3 cxx=$4 flags=${5:-}
work=$build/consumer-test
rm -rf "$work"
mkdir -p "$work"

echo "==> cmake --install $build --prefix $work/prefix"
"$cmake" --install "$build" --prefix "$work/prefix"

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

echo "==> examples/fetch with find_package(sluice)"
"$cmake" "${generator[@]}" -S "$example" -B "$work/find-package" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
"$cmake" --build "$work/find-package"

echo "==> examples/fetch with pkg-config"
pc_dir=$(dirname "$(find "$work/prefix" -name sluice.pc | head -n 1)")
PKG_CONFIG_PATH=$pc_dir "$cmake" "${generator[@]}" -S "$example" -B "$work/pkg-config" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
  -DFETCH_USE_PKG_CONFIG=ON
"$cmake" --build "$work/pkg-config"

# Both programs must at least run and reject a bad command line. The pkg-config one
# links libsluice.so where it is installed (the linker prefers it to libsluice.a),
# and nothing records the prefix in it: the loader is told where to look.
lib_dirs=$(find "$work/prefix" -name 'libsluice.*' -printf '%h\n' | sort -u | paste -sd:)
for program in "$work/find-package/fetch" "$work/pkg-config/fetch"; do
  status=0
  LD_LIBRARY_PATH=$lib_dirs "$program" >/dev/null 2>&1 || status=$?
  [ "$status" -eq 2 ] || { echo "$program without a URL exited $status, expected 2" >&2; exit 1; }
done
echo "==> both C++ consumers built and ran"

shared=$(find "$work/prefix" -name 'libsluice.so.*' -type f | head -n 1)
if [ -z "$shared" ]; then
  echo "==> no libsluice.so installed (a sanitizer build): the C consumers are skipped"
  exit 0
fi
c_example=$(dirname "$example")/c_fetch
echo "==> examples/c_fetch with find_package(sluice) -> sluice::shared"
"$cmake" "${generator[@]}" -S "$c_example" -B "$work/c-find-package" \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
"$cmake" --build "$work/c-find-package"
echo "==> examples/c_fetch with pkg-config"
PKG_CONFIG_PATH=$pc_dir "$cmake" "${generator[@]}" -S "$c_example" -B "$work/c-pkg-config" \
  -DC_FETCH_USE_PKG_CONFIG=ON
"$cmake" --build "$work/c-pkg-config"

# Port 1 on loopback refuses: each program must load the installed library, run a
# request through it and fail the way the C API says, with exit status 1.
lib_dir=$(dirname "$shared")
for program in "$work/c-find-package/c_fetch" "$work/c-pkg-config/c_fetch"; do
  LD_LIBRARY_PATH=$lib_dir ldd "$program" | grep -q "libsluice.so.* => $lib_dir/" ||
    { echo "$program does not load libsluice.so from $lib_dir:" >&2; ldd "$program" >&2; exit 1; }
  status=0
  message=$(LD_LIBRARY_PATH=$lib_dir "$program" http://127.0.0.1:1/ 2>&1 >/dev/null) || status=$?
  [ "$status" -eq 1 ] || { echo "$program exited $status on a refused connection, expected 1" >&2; exit 1; }
  grep -q "c_fetch: fetch: .*(connect_failed)" <<<"$message" ||
    { echo "$program did not report the refused connection: $message" >&2; exit 1; }
done
echo "==> both C consumers built, loaded libsluice.so and ran"
