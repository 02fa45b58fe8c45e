#!/usr/bin/env bash
# ctest exports.check: holds libsluice.so to its public API, as the headers declare it.
#   - its soname is libsluice.so.MAJOR.MINOR (a 0.x minor release may break the API);
#   - every exported symbol is the C API (sluice_*) or a member of a class or a
#     function that include/sluice marks SLUICE_API, and none of what it marks
#     SLUICE_INTERNAL (Client::Impl); an internal class (StagingBuffer, Transfer,
#     H2Session ...), a third-party symbol (llhttp_, nghttp2_ ...) or a template
#     instantiation exported by accident fails, named;
#   - SLUICE_API is written in include/sluice only: marking an internal class would
#     export it;
#   - the C API and the C++ entry points a program needs first are there.
# Usage: check_exports.sh LIBRARY MAJOR.MINOR SOURCE_DIR
#        check_exports.sh --self-test SOURCE_DIR   (proves each rule catches a violation)
set -euo pipefail

# public_names HEADER...: the public C++ API the headers mark, one demangled-name
# prefix per line: "Class::" for a class or struct marked SLUICE_API, "Class::name("
# for a marked member of an unmarked one, "name(" for a marked free function; and
# "!Class::Nested::" for a nested type marked SLUICE_INTERNAL.
public_names() {
  awk '
    /^(class|struct) / {
      name = $2; if (name == "SLUICE_API") { name = $3; print name "::" }
      sub(/[^A-Za-z0-9_].*/, "", name); owner = name; next
    }
    /^};/ { owner = ""; next }
    /SLUICE_INTERNAL/ {
      for (i = 1; i <= NF; i++) if ($i == "SLUICE_INTERNAL") { n = $(i + 1); sub(/[^A-Za-z0-9_].*/, "", n); print "!" owner "::" n "::" }
      next
    }
    /SLUICE_API/ && /\(/ {
      line = $0; sub(/\(.*/, "", line); n = split(line, words, /[^A-Za-z0-9_]+/)
      fn = words[n]; if (fn == "") next
      if ($0 ~ /^[ ]/ && owner != "") print owner "::" fn "("; else print fn "("
    }' "$@" | sort -u
}

# check_symbols NAMES: reads "NAME" lines (demangled, version suffix removed) on stdin,
# holds them to NAMES (public_names' output); prints each violation; returns 1 if any.
check_symbols() {
  local names=$1 bad=0 name prefix ok
  local -a allowed=() refused=()
  while IFS= read -r prefix; do
    [ -z "$prefix" ] && continue
    if [ "${prefix:0:1}" = '!' ]; then refused+=("sluice::${prefix:1}"); else allowed+=("sluice::$prefix"); fi
  done <<<"$names"
  while IFS= read -r name; do
    [ -z "$name" ] && continue
    [ "$name" = SLUICE_0.1 ] && continue            # the version node itself
    if [[ $name =~ ^sluice_[a-z0-9_]+$ ]]; then continue; fi
    ok=0
    # "f[abi:cxx11](" is f( to the headers.
    local plain=${name//\[abi:cxx11\]/}
    for prefix in "${allowed[@]}"; do [[ $plain == "$prefix"* ]] && { ok=1; break; }; done
    for prefix in "${refused[@]}"; do [[ $plain == "$prefix"* ]] && { ok=0; break; }; done
    [ "$ok" -eq 1 ] && continue
    echo "check_exports: not public API, yet exported: $name"
    bad=1
  done
  return $bad
}

# The entry points that must be there.
required=(sluice_client_new sluice_client_fetch sluice_response_read sluice_last_error
  sluice_client_dispatch "sluice::Client::create(sluice::ClientOptions)")

# unmarked_functions HEADER...: functions declared at namespace scope, not inline,
# without SLUICE_API (hidden, so a program that calls one fails to link).
unmarked_functions() {
  awk 'FNR == 1 { inside = 0; prev = "" }
    /^(class|struct) [^;]*$/ { inside = 1 } /^};/ { inside = 0 }
    !inside && /^[A-Za-z]/ && /[A-Za-z0-9_>]\(/ && !/\{/ &&
    !/^(SLUICE_API|using|struct|class|enum|template|namespace|inline|constexpr|static|typedef|extern)/ &&
    !(prev ~ /^SLUICE_API/ && prev !~ /[(;]/) {
      print FILENAME ": " $0
    }
    { prev = $0 }' "$@"
}

# check_marks SOURCE_DIR: SLUICE_API is written in include/sluice only, and on every
# function declared there (the C API of sluice.h too).
check_marks() {
  local marked status=0
  if marked=$(grep -rln 'SLUICE_API' "$1/src"); then
    echo "check_exports: SLUICE_API outside include/sluice (it would export an internal name):"
    echo "$marked"
    status=1
  fi
  marked=$(unmarked_functions "$1"/include/sluice/*.hpp "$1"/include/sluice/*.h)
  if [ -n "$marked" ]; then
    echo "check_exports: declared in include/sluice without SLUICE_API (hidden: a call fails to link):"
    echo "$marked"
    status=1
  fi
  return $status
}

check_library() {
  local library=$1 version=$2 source_dir=$3 symbols soname status=0 names marked
  [ -f "$library" ] || { echo "check_exports: no library at $library" >&2; return 2; }
  soname=$(readelf -d "$library" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
  if [ "$soname" != "libsluice.so.$version" ]; then
    echo "check_exports: soname is '${soname:-none}', expected libsluice.so.$version"
    status=1
  fi
  symbols=$(nm -D --defined-only -C "$library" | sed -E 's/^[0-9a-f]* [A-Za-z] //; s/@@?SLUICE_0\.1$//')
  names=$(public_names "$source_dir"/include/sluice/*.hpp)
  check_symbols "$names" <<<"$symbols" || status=1
  check_marks "$source_dir" || status=1
  local want
  for want in "${required[@]}"; do
    grep -qxF "$want" <<<"$symbols" || { echo "check_exports: missing $want"; status=1; }
  done
  if [ "$status" -eq 0 ]; then
    echo "check_exports: $library exports $(wc -l <<<"$symbols") public symbols, soname $soname"
  fi
  return $status
}

self_test() {
  local source_dir=$1 out names want
  names=$(public_names "$source_dir"/include/sluice/*.hpp)
  # The headers are read: marked classes, free functions, the internal nested type;
  # an unmarked struct is not public.
  for want in 'Client::' 'Headers::' 'download(' 'to_string(' '!Client::Impl::'; do
    grep -qxF -- "$want" <<<"$names" || { echo "self-test: $want not read from the headers" >&2; return 1; }
  done
  if grep -qxF 'ClientOptions::' <<<"$names"; then
    echo "self-test: the unmarked ClientOptions was read as exported" >&2
    return 1
  fi
  local planted
  planted=$(mktemp -d)
  trap 'rm -rf "$planted"' RETURN
  # A marked member of an unmarked struct is exported alone.
  printf '%s\n' 'struct Summary {' '  int status = 0;' \
    '  SLUICE_API static Summary of(const Response& response);' '};' >"$planted/summary.hpp"
  if [ "$(public_names "$planted/summary.hpp")" != 'Summary::of(' ]; then
    echo "self-test: a marked member was not read as Summary::of(" >&2
    return 1
  fi
  # Each planted line breaks the rule once; the good ones pass.
  if out=$(printf '%s\n' \
      'sluice_client_new' \
      'sluice::Client::create(sluice::ClientOptions)' \
      'sluice::to_string(sluice::ErrorCode)' \
      'sluice::Url::to_string[abi:cxx11]() const' \
      'sluice::file_name_for[abi:cxx11](sluice::Url const&, sluice::Headers const&, bool)' \
      'sluice::StagingBuffer::append(std::span<std::byte const, 18446744073709551615ul>)' \
      'sluice::Client::Impl::~Impl()' \
      'sluice::ResponseHead::ResponseHead()' \
      'llhttp_execute' \
      'nghttp2_session_mem_recv' \
      'std::vector<sluice::Header, std::allocator<sluice::Header> >::~vector()' \
      'sluice_Bad-Name' | check_symbols "$names"); then
    echo "self-test: violations were not detected" >&2
    return 1
  fi
  for want in StagingBuffer Client::Impl ResponseHead::ResponseHead llhttp_execute \
      nghttp2_session std::vector sluice_Bad-Name; do
    grep -qF "$want" <<<"$out" || { echo "self-test: missed $want in:" >&2; echo "$out" >&2; return 1; }
  done
  if [ "$(wc -l <<<"$out")" -ne 7 ]; then
    echo "self-test: expected 7 violations, got:" >&2
    echo "$out" >&2
    return 1
  fi
  # A mark outside include/sluice is refused, and so is a public function without one.
  mkdir -p "$planted/src/core" "$planted/include/sluice"
  echo 'class SLUICE_API StagingBuffer {};' >"$planted/src/core/planted.hpp"
  echo 'SLUICE_API bool should_retry(int attempt);' >"$planted/include/sluice/retry.hpp"
  echo 'SLUICE_API int sluice_version_num(void);' >"$planted/include/sluice/sluice.h"
  if check_marks "$planted" >/dev/null; then
    echo "self-test: SLUICE_API in src/ was not refused" >&2
    return 1
  fi
  rm "$planted/src/core/planted.hpp"
  printf '%s\n' 'SLUICE_API bool should_retry(int attempt);' 'bool is_transient_status(int status) noexcept;' \
    'inline bool fine(int x) { return x > 0; }' >"$planted/include/sluice/retry.hpp"
  printf '%s\n' 'SLUICE_API sluice_code' 'sluice_marked_on_the_line_before(int a, int b);' \
    'sluice_code sluice_client_unmarked(int a);' >"$planted/include/sluice/sluice.h"
  if ! out=$(check_marks "$planted") && grep -q 'is_transient_status' <<<"$out" &&
      grep -q 'sluice_client_unmarked' <<<"$out" &&
      ! grep -q 'should_retry\|fine\|sluice_marked_on_the_line_before' <<<"$out"; then
    :
  else
    echo "self-test: an unmarked public function was not refused alone:" >&2
    echo "$out" >&2
    return 1
  fi
  check_marks "$source_dir" || { echo "self-test: the tree itself has a mark in src/" >&2; return 1; }
  echo "check_exports: self-test passed (the headers read, 10 planted violations caught, public names accepted)"
}

if [ "${1:-}" = --self-test ]; then
  [ $# -eq 2 ] || { echo "usage: $0 --self-test SOURCE_DIR" >&2; exit 2; }
  self_test "$2"
else
  [ $# -eq 3 ] || { echo "usage: $0 LIBRARY MAJOR.MINOR SOURCE_DIR | --self-test SOURCE_DIR" >&2; exit 2; }
  check_library "$1" "$2" "$3"
fi
