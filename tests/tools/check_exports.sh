#!/usr/bin/env bash
# ctest exports.check: holds libsluice.so to its public API (cmake/sluice.map).
#   - its soname is libsluice.so.MAJOR.MINOR (a 0.x minor release may break the API);
#   - every exported symbol is the C API (sluice_*) or a member of the public C++ API
#     of include/sluice/ (the classes and free functions listed below); an internal
#     class (StagingBuffer, Transfer, H2Session ...), a third-party symbol (llhttp_,
#     nghttp2_ ...) or a template instantiation exported by accident fails, named;
#   - the C API and the C++ entry points a program needs first are there.
# Usage: check_exports.sh LIBRARY MAJOR.MINOR
#        check_exports.sh --self-test   (proves each rule catches a violation)
set -euo pipefail

# The public C++ API, as demangled-name prefixes (kept beside cmake/sluice.map).
public_cxx='^sluice::(Client::(Client|~Client|operator=|create|send|fetch|stats|dispatch)|MultipartForm::|PendingResponse::|ResponseSummary::of\(|RequestHandle::|BodyReader::|BodyChunk::|CallbackBody::|BodyWriter::|CookieJar::|Headers::|Error::|Url::|(to_string|category_of|general_code|retryable_by_default|iequals|validate_header|validate_header_name|validate_header_value|library_versions|download|file_name_for|media_type_for_file_name|is_transient_status|failure_from_error|failure_from_status|parse_retry_after|parse_http_date|format_http_date|should_retry|retry_wait)(\[abi:cxx11\])?\()'

# check_symbols: reads "NAME" lines (demangled, version suffix removed) on stdin;
# prints each violation; returns 1 if any.
check_symbols() {
  local bad=0 name
  while IFS= read -r name; do
    [ -z "$name" ] && continue
    [ "$name" = SLUICE_0.1 ] && continue            # the version node itself
    if [[ $name =~ ^sluice_[a-z0-9_]+$ ]]; then continue; fi
    if [[ $name =~ $public_cxx ]]; then continue; fi
    echo "check_exports: not public API, yet exported: $name"
    bad=1
  done
  return $bad
}

# The entry points that must be there.
required=(sluice_client_new sluice_client_fetch sluice_response_read sluice_last_error
  sluice_client_dispatch "sluice::Client::create(sluice::ClientOptions)")

check_library() {
  local library=$1 version=$2 symbols soname status=0
  [ -f "$library" ] || { echo "check_exports: no library at $library" >&2; return 2; }
  soname=$(readelf -d "$library" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
  if [ "$soname" != "libsluice.so.$version" ]; then
    echo "check_exports: soname is '${soname:-none}', expected libsluice.so.$version"
    status=1
  fi
  symbols=$(nm -D --defined-only -C "$library" | sed -E 's/^[0-9a-f]* [A-Za-z] //; s/@@?SLUICE_0\.1$//')
  check_symbols <<<"$symbols" || status=1
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
  local out
  # Each planted line breaks the rule once; the good ones pass.
  if out=$(printf '%s\n' \
      'sluice_client_new' \
      'sluice::Client::create(sluice::ClientOptions)' \
      'sluice::to_string(sluice::ErrorCode)' \
      'sluice::file_name_for[abi:cxx11](sluice::Url const&, sluice::Headers const&, bool)' \
      'sluice::StagingBuffer::append(std::span<std::byte const, 18446744073709551615ul>)' \
      'sluice::Client::Impl::~Impl()' \
      'llhttp_execute' \
      'nghttp2_session_mem_recv' \
      'std::vector<sluice::Header, std::allocator<sluice::Header> >::~vector()' \
      'sluice_Bad-Name' | check_symbols); then
    echo "self-test: violations were not detected" >&2
    return 1
  fi
  local want
  for want in StagingBuffer Client::Impl llhttp_execute nghttp2_session std::vector sluice_Bad-Name; do
    grep -qF "$want" <<<"$out" || { echo "self-test: missed $want in:" >&2; echo "$out" >&2; return 1; }
  done
  if [ "$(wc -l <<<"$out")" -ne 6 ]; then
    echo "self-test: expected 6 violations, got:" >&2
    echo "$out" >&2
    return 1
  fi
  echo "check_exports: self-test passed (6 planted violations caught, public names accepted)"
}

if [ "${1:-}" = --self-test ]; then
  self_test
else
  [ $# -eq 2 ] || { echo "usage: $0 LIBRARY MAJOR.MINOR | --self-test" >&2; exit 2; }
  check_library "$1" "$2"
fi
