#!/usr/bin/env bash
# Guards the architecture that the folders under src/ describe (DESIGN.md, STYLE.md):
#   - src/io includes no protocol, client or cli header;
#   - a protocol folder (src/http1, src/http2, src/http3) includes src/io only: never
#     client/, cli/ or another protocol;
#   - only src/cli includes cli/;
#   - nothing under src/ includes a test header (tests/, support/, gtest/, gmock/);
#   - nothing under src/ outside src/cli prints (printf, fprintf, puts, std::cout,
#     std::cerr, std::clog): the library reports through values and its trace hook.
# Usage: check_layers.sh [REPO_ROOT]   (default: this script's repository)
#        check_layers.sh --self-test   (proves each rule catches a violation)
# Prints one line per violation ("file:line: rule") and exits 1 if there is any.
set -euo pipefail

# One awk pass over every file (a process per line is slow where spawning is dear).
# Prints "file:line: rule" for each violation.
scan() {
  awk -v src="$1/src/" '
    function report(rule) { print FILENAME ":" FNR ": " rule }
    FNR == 1 {
      layer = substr(FILENAME, length(src) + 1)
      sub(/\/.*/, "", layer)
    }
    /^[ \t]*#[ \t]*include[ \t]*[<"]/ {
      path = $0
      sub(/^[ \t]*#[ \t]*include[ \t]*[<"]/, "", path)
      sub(/[">].*$/, "", path)
      top = path
      sub(/\/.*$/, "", top)
      if (path ~ /^(\.\.\/)*(tests|support|gtest|gmock)\//)
        report("src/ includes a test header <" path ">")
      else if (layer != "cli" && top == "cli")
        report("src/" layer " may not include " path " (only src/cli does)")
      else if (layer == "io" && (top == "client" || top ~ /^http[0-9]$/))
        report("src/io may not include " path " (io is below every protocol)")
      else if (layer ~ /^http[0-9]$/ && (top == "client" || (top ~ /^http[0-9]$/ && top != layer)))
        report("src/" layer " may not include " path " (a protocol uses src/io only)")
      next
    }
    layer != "cli" {
      # Comments may mention printf; code may not call it.
      line = $0
      sub(/\/\/.*$/, "", line)
      if (line ~ /^[ \t]*\/?\*/) next
      if (line ~ /(^|[^A-Za-z0-9_:])(std::)?(printf|fprintf|vprintf|vfprintf|puts)[ \t]*\(/ ||
          line ~ /std::(cout|cerr|clog)([^A-Za-z0-9_]|$)/) {
        text = $0
        sub(/^[ \t]+/, "", text)
        report("prints outside src/cli: " text)
      }
    }' "${@:2}"
}

check_tree() {
  local root=$1 out
  [ -d "$root/src" ] || { echo "check_layers: no src/ under $root" >&2; exit 2; }
  local files=()
  mapfile -d '' files < <(find "$root/src" -type f \( -name '*.cpp' -o -name '*.hpp' \
    -o -name '*.h' -o -name '*.cc' -o -name '*.c' \) -print0 | sort -z)
  [ ${#files[@]} -gt 0 ] || { echo "check_layers: $root/src has no sources"; return 0; }
  out=$(scan "$root" "${files[@]}")
  if [ -n "$out" ]; then
    echo "$out"
    echo "check_layers: $(wc -l <<<"$out") violation(s) under $root/src" >&2
    return 1
  fi
  echo "check_layers: $root/src respects its layers (${#files[@]} files)"
}

self_test() {
  local tmp out expected want
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  mkdir -p "$tmp/src/io" "$tmp/src/http1" "$tmp/src/http2" "$tmp/src/client" "$tmp/src/cli"
  printf '#include "io/byte_queue.hpp"\n#include "http1/h1_codec.hpp"\n' > "$tmp/src/io/bad_io.cpp"
  printf '#include "io/tls.hpp"\n# include "client/client_impl.hpp"\n' > "$tmp/src/http1/bad_h1.cpp"
  printf '#include "http1/h1_codec.hpp"\n' > "$tmp/src/http2/bad_h2.cpp"
  printf '#include <gtest/gtest.h>\n#include "support/test_server.hpp"\n' > "$tmp/src/client/bad_test.cpp"
  printf 'void f() {\n  std::cout << 1;\n  fprintf(stderr, "x");\n  std::printf("y");\n}\n' \
    > "$tmp/src/client/bad_print.cpp"
  printf '#include "cli/options.hpp"\n' > "$tmp/src/client/bad_cli.cpp"
  # Allowed: the CLI prints; snprintf formats; comments mention printf.
  printf '#include "cli/options.hpp"\nvoid g() { printf("ok"); std::cout << 1; }\n' > "$tmp/src/cli/main.cpp"
  printf '#include "http1/h1_codec.hpp"\n#include "io/x.hpp"\n// no printf here\nvoid h(char* b) { std::snprintf(b, 4, "x"); }\n' \
    > "$tmp/src/client/good.cpp"
  if out=$(check_tree "$tmp" 2>&1); then
    echo "self-test: violations were not detected" >&2
    return 1
  fi
  expected="bad_io.cpp:2: bad_h1.cpp:2: bad_h2.cpp:1: bad_test.cpp:1: bad_test.cpp:2:
            bad_print.cpp:2: bad_print.cpp:3: bad_print.cpp:4: bad_cli.cpp:1:"
  for want in $expected; do
    grep -qF "/$want" <<<"$out" || { echo "self-test: missed $want in:"; echo "$out"; return 1; } >&2
  done
  if [ "$(grep -cE ':[0-9]+: ' <<<"$out")" -ne 9 ]; then
    echo "self-test: expected 9 violations, got:" >&2
    echo "$out" >&2
    return 1
  fi
  rm -f "$tmp"/src/*/bad_*.cpp
  check_tree "$tmp" >/dev/null || { echo "self-test: a clean tree was rejected" >&2; return 1; }
  echo "check_layers: self-test passed (9 planted violations caught, clean tree accepted)"
}

if [ "${1:-}" = --self-test ]; then
  self_test
else
  check_tree "$(cd "${1:-$(dirname "$0")/../..}" && pwd)"
fi
