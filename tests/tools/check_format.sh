#!/usr/bin/env bash
# Every C and C++ file of ours is as .clang-format (clang-format 14) formats it.
#   check_format.sh ROOT          checks the files git tracks under ROOT (or, outside a
#                                 git checkout, those under its source folders); names
#                                 each that is not formatted, and the command to fix it
#   check_format.sh --self-test   an unformatted file is caught, a formatted one passes
set -euo pipefail

formatter=$(command -v clang-format-14 || command -v clang-format || true)
[ -n "$formatter" ] || { echo "check_format: clang-format-14 is not installed (./dev deps)" >&2; exit 2; }

# The files to check, NUL-separated, relative to $1.
sources() {
  local root=$1
  if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$root" ls-files -z -- '*.cpp' '*.hpp' '*.h' '*.c' '*.cc'
  else
    (cd "$root" && find src include tests fuzz bench examples -type f \
      \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.c' -o -name '*.cc' \) \
      -print0 2>/dev/null)
  fi
}

check_tree() {
  local root=$1 bad
  # A dry run touches no file and says "FILE:LINE:COL: warning: code should be
  # clang-formatted" for each place it would change (one per file is enough); many
  # files per process, since starting one per file takes a minute over the tree.
  bad=$(cd "$root" && sources . | xargs -0 -r -n 64 \
    "$formatter" --dry-run --ferror-limit=1 --style=file 2>&1 \
    | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: .*clang-formatted.*/\1/p' | sort -u)
  if [ -n "$bad" ]; then
    echo "$bad"
    echo "check_format: $(wc -l <<<"$bad") file(s) not formatted; ./dev format fixes them" >&2
    return 1
  fi
  echo "check_format: every C and C++ file under $root is formatted"
}

self_test() {
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  cp "$(dirname "${BASH_SOURCE[0]}")/../../.clang-format" "$tmp/"
  mkdir -p "$tmp/src"
  printf 'int  main( ) {return 0;}\n' > "$tmp/src/bad.cpp"
  if check_tree "$tmp" >/dev/null 2>&1; then
    echo "self-test: an unformatted file was not caught" >&2
    return 1
  fi
  "$formatter" -i --style=file "$tmp/src/bad.cpp"
  check_tree "$tmp" >/dev/null || { echo "self-test: a formatted file was rejected" >&2; return 1; }
  echo "check_format: self-test passed (an unformatted file caught, a formatted one accepted)"
}

if [ "${1:-}" = --self-test ]; then
  self_test
else
  check_tree "${1:?usage: check_format.sh ROOT | --self-test}"
fi
