#!/usr/bin/env bash
# ctest examples.consumer: installs BUILD_DIR into a scratch prefix and builds the
# examples against it every way docs/guide.md offers, then runs each program:
#   examples/fetch (C++)   find_package -> sluice::sluice     libsluice.a
#                          pkg-config --static               libsluice.a
#                          find_package -> sluice::shared     libsluice.so
#   examples/c_fetch (C)   find_package -> sluice::shared     libsluice.so
#                          pkg-config (plain --libs)         libsluice.so
# The libsluice.so builds are skipped where it is not built (the TSan and fuzz builds).
# Passing proves the installed headers, libraries, CMake package and sluice.pc are
# complete enough to compile, link and run a program.
# Usage: check_consumer.sh BUILD_DIR EXAMPLE_DIR CMAKE CXX [EXTRA_FLAGS]
# EXAMPLE_DIR is examples/fetch; examples/c_fetch is found beside it. EXTRA_FLAGS
# (e.g. -fsanitize=address) go to every consumer's compile and link, since a
# sanitized libsluice.a or libsluice.so needs its runtime in the program (ASan's
# first in the list of libraries it loads).
set -euo pipefail

[ $# -ge 4 ] || { echo "usage: $0 BUILD_DIR EXAMPLE_DIR CMAKE CXX [EXTRA_FLAGS]" >&2; exit 2; }
build=$1 example=$2 cmake=$3 cxx=$4 flags=${5:-}
c_example=$(dirname "$example")/c_fetch
work=$build/consumer-test
rm -rf "$work"
mkdir -p "$work"

echo "==> cmake --install $build --prefix $work/prefix"
"$cmake" --install "$build" --prefix "$work/prefix"
shared=$(find "$work/prefix" -name 'libsluice.so.*' -type f | head -n 1)

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cxx_args=(-DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$flags"
  -DCMAKE_EXE_LINKER_FLAGS="$flags")
c_args=(-DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags")

# build_consumer NAME SOURCE_DIR CMAKE_ARGS...: configures and builds $work/NAME.
build_consumer() {
  local name=$1 source=$2
  shift 2
  echo "==> $name"
  "$cmake" "${generator[@]}" -S "$source" -B "$work/$name" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "$@"
  "$cmake" --build "$work/$name"
}

# pc_dir PREFIX: where PREFIX keeps sluice.pc.
pc_dir() { dirname "$(find "$1" -name sluice.pc | head -n 1)"; }

# With libsluice.so installed, -lsluice takes it, and `pkg-config --static` would go
# untested for libsluice.a. So the pkg-config build of the static library sees a copy
# of the prefix (hard links) without the .so, as on a system where only libsluice.a
# is installed; sluice.pc finds its prefix from its own place, so the copy works.
static_prefix=$work/prefix
if [ -n "$shared" ]; then
  static_prefix=$work/static-prefix
  cp -al "$work/prefix" "$static_prefix"
  find "$static_prefix" -name 'libsluice.so*' -delete
fi

build_consumer fetch-static-find-package "$example" "${cxx_args[@]}" \
  -DCMAKE_PREFIX_PATH="$work/prefix"
PKG_CONFIG_PATH=$(pc_dir "$static_prefix") build_consumer fetch-static-pkg-config \
  "$example" "${cxx_args[@]}" -DFETCH_USE_PKG_CONFIG=ON

# Each must run on its own (nothing of sluice loaded at run time) and reject a bad
# command line. ldd's output is read whole before grep: `ldd | grep -q` under pipefail
# fails whenever grep exits before ldd has written everything (SIGPIPE).
for program in "$work"/fetch-static-*/fetch; do
  if grep -q libsluice <<<"$(ldd "$program")"; then
    echo "$program was to link libsluice.a, yet loads libsluice.so" >&2
    exit 1
  fi
  status=0
  "$program" >/dev/null 2>&1 || status=$?
  [ "$status" -eq 2 ] || { echo "$program without a URL exited $status, expected 2" >&2; exit 1; }
done
echo "==> both consumers of libsluice.a built and ran"

if [ -z "$shared" ]; then
  echo "==> no libsluice.so installed (a sanitizer build): its consumers are skipped"
  exit 0
fi
build_consumer fetch-shared-find-package "$example" "${cxx_args[@]}" \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DFETCH_USE_SHARED=ON
build_consumer c_fetch-find-package "$c_example" "${c_args[@]}" \
  -DCMAKE_PREFIX_PATH="$work/prefix"
PKG_CONFIG_PATH=$(pc_dir "$work/prefix") build_consumer c_fetch-pkg-config "$c_example" \
  "${c_args[@]}" -DC_FETCH_USE_PKG_CONFIG=ON

# Nothing records the prefix in the programs, so the loader is told where to look.
# Port 1 on loopback refuses: each program must load the installed library, run a
# request through it and report the failure, with exit status 1.
lib_dir=$(dirname "$shared")
for program in "$work/fetch-shared-find-package/fetch" "$work"/c_fetch-*/c_fetch; do
  loads=$(LD_LIBRARY_PATH=$lib_dir ldd "$program")
  grep -q "libsluice.so.* => $lib_dir/" <<<"$loads" ||
    { echo "$program does not load libsluice.so from $lib_dir:" >&2; echo "$loads" >&2; exit 1; }
  status=0
  message=$(LD_LIBRARY_PATH=$lib_dir "$program" http://127.0.0.1:1/ 2>&1 >/dev/null) || status=$?
  [ "$status" -eq 1 ] || { echo "$program exited $status on a refused connection, expected 1" >&2; exit 1; }
  want='^fetch: connect: '   # the C++ example prints Error::describe()
  if [[ $program == */c_fetch ]]; then want='^c_fetch: fetch: .*\(connect_failed\)$'; fi
  grep -qE "$want" <<<"$message" ||
    { echo "$program did not report the refused connection: $message" >&2; exit 1; }
done
echo "==> the three consumers of libsluice.so built, loaded it and ran"
