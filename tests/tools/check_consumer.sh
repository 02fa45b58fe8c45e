#!/usr/bin/env bash
# ctest examples.consumer: installs BUILD_DIR into a scratch prefix, then builds
# EXAMPLE_DIR (examples/fetch) against the installed package twice: through
# find_package(sluice) and through pkg-config. Passing proves the installed headers,
# CMake package and sluice.pc are complete enough to compile and link a program.
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

# Both programs must at least run and reject a bad command line.
for program in "$work/find-package/fetch" "$work/pkg-config/fetch"; do
  status=0
  "$program" >/dev/null 2>&1 || status=$?
  [ "$status" -eq 2 ] || { echo "$program without a URL exited $status, expected 2" >&2; exit 1; }
done
echo "==> both consumers built and ran"
