#!/usr/bin/env bash
# Guards the architecture that the folders under src/ describe (docs/architecture.md):
#   the base (core < net < dns, tls < connect; net < connection < mux) < quic < http3;
#   base < http1, http2, decode; base < web < auth, body (what a fetch knows without a
#   connection); all of them < client < download < cli and capi, each using only what
#   is below it:
#   - a base folder includes only itself and the base folders below it:
#       core        nothing else (the loop, time, bytes, Error and Headers)
#       net         core (sockets, transports, the stream and datagram drivers)
#       dns         core, net (c-ares, the cache, --resolve)
#       tls         core, net (OpenSSL)
#       connect     core, net, dns, tls (the connector, proxies and tunnels)
#       connection  core, net (the seam every protocol's connection implements)
#       mux         core, net, connection (what h2 and h3 share: credit, fields)
#     and never a protocol, quic, decode, web, auth, body, client, download or cli header;
#   - src/quic (QUIC over ngtcp2) includes the base only; src/http3 includes the base
#     and src/quic;
#   - src/http1, src/http2 and src/decode (the content codings) include the base only:
#     never a protocol, quic, decode, web, auth, body, client, download or cli;
#   - src/web (URLs, cookies, dates, Alt-Svc, redirects) includes the base only;
#     src/auth (credentials, challenges, Digest, netrc) and src/body (the body buffers)
#     include the base and src/web, never each other, a protocol, quic, decode or client;
#   - src/client never includes download/ (the downloader is built on the Client, not
#     the other way round); src/download never includes a protocol or decode/ header
#     (it sees HTTP through the Client only);
#   - src/capi (the C API) wraps the public C++ API and the client's own parts: it never
#     includes a protocol, quic or decode header, and nothing else under src/ includes
#     capi/ (it is the top of the library, as src/cli is of the command);
#   - only src/cli includes cli/, and src/cli includes only its own cli/ headers and the
#     public sluice/ ones (it is a user of the library like any other);
#   - a third-party library's headers appear only in the layer that wraps it:
#       nghttp2                 src/http2
#       nghttp3                 src/http3
#       ngtcp2, gnutls          src/quic (gnutls is ngtcp2's crypto backend)
#       llhttp                  src/http1
#       openssl                 src/tls and src/download/file/download_sha256.cpp (hashing)
#       zlib, brotli, zstd      src/decode/{gzip,brotli,zstd}_decoder.{hpp,cpp}, each its own
#                               (and src/decode/library_version.cpp, which asks their versions)
#       c-ares                  src/dns
#       libidn2                 src/web/url_idn.cpp (and src/web/library_version.cpp)
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
    # The library a header belongs to, or "" for the system, the standard library and
    # our own headers.
    function third_party(path) {
      if (path ~ /^nghttp2\//) return "nghttp2"
      if (path ~ /^nghttp3\//) return "nghttp3"
      if (path ~ /^ngtcp2\//) return "ngtcp2"
      if (path ~ /^gnutls\//) return "gnutls"
      if (path ~ /^llhttp\.h$/) return "llhttp"
      if (path ~ /^openssl\//) return "openssl"
      if (path ~ /^(zlib|zconf)\.h$/) return "zlib"
      if (path ~ /^brotli\//) return "brotli"
      if (path ~ /^(zstd|zstd_errors|zdict)\.h$/) return "zstd"
      if (path ~ /^ares(_[a-z_]+)?\.h$/) return "c-ares"
      if (path ~ /^idn2\.h$/) return "libidn2"
      return ""
    }
    # file is the path under src/ ("decode/gzip_decoder.hpp").
    function third_party_allowed(lib, layer, file) {
      if (lib == "nghttp2") return layer == "http2"
      if (lib == "nghttp3") return layer == "http3"
      if (lib == "ngtcp2" || lib == "gnutls") return layer == "quic"
      if (lib == "llhttp") return layer == "http1"
      if (lib == "openssl") return layer == "tls" || file == "download/file/download_sha256.cpp"
      # The layer asks each of its libraries for its version there.
      if (file == "decode/library_version.cpp") return lib == "zlib" || lib == "brotli" || lib == "zstd"
      if (lib == "zlib") return file ~ /^decode\/gzip_decoder\.(hpp|cpp)$/
      if (lib == "brotli") return file ~ /^decode\/brotli_decoder\.(hpp|cpp)$/
      if (lib == "zstd") return file ~ /^decode\/zstd_decoder\.(hpp|cpp)$/
      if (lib == "c-ares") return layer == "dns"
      if (lib == "libidn2") return file == "web/url_idn.cpp" || file == "web/library_version.cpp"
      return 0
    }
    BEGIN {
      owner["nghttp2"] = "src/http2"
      owner["nghttp3"] = "src/http3"
      owner["ngtcp2"] = owner["gnutls"] = "src/quic"
      owner["llhttp"] = "src/http1"
      owner["openssl"] = "src/tls and src/download/file/download_sha256.cpp"
      owner["zlib"] = "src/decode/gzip_decoder"
      owner["brotli"] = "src/decode/brotli_decoder"
      owner["zstd"] = "src/decode/zstd_decoder"
      owner["c-ares"] = "src/dns"
      owner["libidn2"] = "src/web/url_idn.cpp"
      # The base folders each may include, besides their own.
      below["core"] = ""
      below["net"] = "core"
      below["dns"] = "core net"
      below["tls"] = "core net"
      below["connect"] = "core net dns tls"
      below["connection"] = "core net"
      below["mux"] = "core net connection"
      for (name in below) base[name] = 1
    }
    function base_allows(layer, top,    parts, n, i) {
      if (top == layer) return 1
      n = split(below[layer], parts, " ")
      for (i = 1; i <= n; ++i) if (parts[i] == top) return 1
      return 0
    }
    FNR == 1 {
      file = substr(FILENAME, length(src) + 1)
      layer = file
      sub(/\/.*/, "", layer)
    }
    /^[ \t]*#[ \t]*include[ \t]*[<"]/ {
      quoted = $0 ~ /^[ \t]*#[ \t]*include[ \t]*"/
      path = $0
      sub(/^[ \t]*#[ \t]*include[ \t]*[<"]/, "", path)
      sub(/[">].*$/, "", path)
      top = path
      sub(/\/.*$/, "", top)
      lib = third_party(path)
      # One of ours: quoted, or a .hpp in <> (<net/if.h> is a system header, not src/net).
      ours = quoted || path ~ /\.hpp$/
      if (path ~ /^(\.\.\/)*(tests|support|gtest|gmock)\//)
        report("src/ includes a test header <" path ">")
      else if (lib != "" && !third_party_allowed(lib, layer, file))
        report("src/" file " may not include " path " (" lib " belongs to " owner[lib] ")")
      else if (layer == "cli" && (((top in base) && ours) || top ~ /^(quic|web|auth|body|pool|client|download|decode|http[0-9])$/))
        report("src/cli may not include " path " (only sluice/, cli/ and tools/ headers)")
      else if (layer == "cli" && quoted && top != "sluice" && top != "cli" && top != "tools")
        report("src/cli may not include " path " (only sluice/, cli/ and tools/ headers)")
      else if (layer == "tools" && ours && top != "tools" && top != "sluice")
        report("src/tools may not include " path " (the standard library and sluice/ only: the command links it beside libsluice.so)")
      else if (layer != "capi" && top == "capi")
        report("src/" layer " may not include " path " (the C API is the top layer)")
      else if (layer == "capi" && top ~ /^(quic|decode|http[0-9])$/)
        report("src/capi may not include " path " (the C API wraps the C++ API, not protocols)")
      else if (layer != "cli" && top == "cli")
        report("src/" layer " may not include " path " (only src/cli does)")
      else if ((layer in base) && top ~ /^(quic|web|auth|body|pool|client|download|decode|http[0-9])$/)
        report("src/" layer " may not include " path " (the base is below every other layer)")
      else if ((layer in base) && (top in base) && ours && !base_allows(layer, top))
        report("src/" layer " may not include " path " (" layer " uses only " layer " " below[layer] ")")
      else if (layer == "quic" && top ~ /^(web|auth|body|pool|client|download|decode|http[0-9])$/)
        report("src/quic may not include " path " (QUIC uses the base only)")
      else if (layer == "http3" && top ~ /^(web|auth|body|pool|client|download|decode|http[12])$/)
        report("src/http3 may not include " path " (HTTP/3 uses the base and src/quic only)")
      else if (layer ~ /^(http[12]|decode)$/ && top != layer && top ~ /^(quic|web|auth|body|pool|client|download|decode|http[0-9])$/)
        report("src/" layer " may not include " path " (a codec uses the base only)")
      else if (layer ~ /^(web|auth|body)$/ && top ~ /^(quic|pool|client|download|decode|http[0-9])$/)
        report("src/" layer " may not include " path " (it is below the protocols and the client)")
      else if (layer == "web" && top ~ /^(auth|body)$/)
        report("src/web may not include " path " (web uses the base only)")
      else if ((layer == "auth" && top == "body") || (layer == "body" && top == "auth"))
        report("src/" layer " may not include " path " (auth and body use the base and web only)")
      else if (layer == "pool" && top ~ /^(auth|body|client|download|decode)$/)
        report("src/pool may not include " path " (the pool opens connections; it knows a request only as a ConnectionWaiter)")
      else if (layer == "client" && top == "download")
        report("src/client may not include " path " (the downloader is built on the Client)")
      else if (layer == "download" && top ~ /^(quic|pool|decode|http[0-9])$/)
        report("src/download may not include " path " (it reaches HTTP through the Client)")
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

# plant FILE LINE...: writes the lines to $tmp/src/FILE.
plant() {
  local file=$tmp/src/$1
  shift
  mkdir -p "${file%/*}"
  printf '%s\n' "$@" > "$file"
}

self_test() {
  local tmp out expected want count
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  # Violations: every file named bad_* breaks one rule per line listed in `expected`.
  plant core/bad_core.cpp '#include "core/byte_queue.hpp"' '#include "http1/h1_codec.hpp"' \
    '#include "net/transport.hpp"'
  plant tls/bad_tls.cpp '#include "net/transport.hpp"' '#include "connect/connector.hpp"'
  plant connection/bad_seam.cpp '#include "mux/stream_credit.hpp"'
  plant http1/bad_h1.cpp '#include "tls/tls.hpp"' '# include "client/client_impl.hpp"'
  plant http2/bad_h2.cpp '#include "http1/h1_codec.hpp"'
  plant client/bad_test.cpp '#include <gtest/gtest.h>' '#include "support/test_server.hpp"'
  plant client/bad_print.cpp 'void f() {' '  std::cout << 1;' '  fprintf(stderr, "x");' \
    '  std::printf("y");' '}'
  plant client/bad_cli.cpp '#include "cli/options.hpp"'
  # src/cli: only sluice/ and cli/ (quoted or not), no third-party header.
  plant cli/bad_internal.cpp '#include "sluice/client.hpp"' '#include "client/client_core.hpp"' \
    '#include <core/byte_queue.hpp>' '#include "h2_session.hpp"' '#include <openssl/ssl.h>'
  # Third-party headers outside the layer (or file) that owns them.
  plant net/bad_nghttp2.cpp '#include <nghttp2/nghttp2.h>'
  plant http3/bad_nghttp2.cpp '#include <nghttp3/nghttp3.h>' '#include <nghttp2/nghttp2.h>'
  plant http2/bad_nghttp3.cpp '#include <nghttp3/nghttp3.h>'
  plant core/bad_ngtcp2.cpp '#include <ngtcp2/ngtcp2_crypto.h>'
  plant http3/bad_ngtcp2.cpp '#include <ngtcp2/ngtcp2.h>'
  plant quic/bad_layer.cpp '#include "http3/h3_session.hpp"' '#include <nghttp3/nghttp3.h>'
  plant http2/bad_quic.cpp '#include "quic/quic_connection.hpp"'
  plant client/bad_gnutls.cpp '#include <gnutls/gnutls.h>'
  plant http2/bad_llhttp.cpp '#include <llhttp.h>'
  plant http1/bad_openssl.cpp '#include <openssl/evp.h>'
  plant client/bad_openssl.cpp '#include "openssl/ssl.h"'
  plant decode/bad_content_decoder.cpp '#include <zlib.h>' '#include <brotli/decode.h>'
  plant decode/bad_gzip_decoder.hpp '#include <zstd_errors.h>'
  plant client/bad_zstd.cpp '#include <zstd.h>'
  # The layers added with src/decode and src/download.
  plant decode/bad_layer.cpp '#include "client/fetch/transfer.hpp"' '#include "http2/h2_session.hpp"'
  plant client/bad_download.cpp '#include "download/download_fetch.hpp"'
  plant download/bad_layer.cpp '#include "decode/content_decoder.hpp"' '#include "http1/h1_connection.hpp"'
  plant mux/bad_decode.cpp '#include "decode/content_decoder.hpp"' '#include "download/file/download_file.hpp"'
  plant cli/bad_download.cpp '#include "download/file/file_names.hpp"'
  plant dns/bad_zlib.cpp '#include <zlib.h>'
  plant client/bad_capi.cpp '#include "capi/capi_call.hpp"'
  plant capi/bad_layer.cpp '#include "http2/h2_session.hpp"' '#include "client/fetch/transfer.hpp"'
  plant client/bad_ares.cpp '#include <ares.h>'
  # The layers below the client: web, then auth and body beside each other.
  plant web/bad_layer.cpp '#include "body/staging_buffer.hpp"' '#include "client/client_core.hpp"' \
    '#include "core/ascii_case.hpp"'
  plant auth/bad_layer.cpp '#include "body/source_queue.hpp"' '#include "web/url_parse.hpp"' \
    '#include "http1/h1_codec.hpp"'
  plant body/bad_layer.cpp '#include "auth/credentials.hpp"' '#include "web/url_parse.hpp"'
  plant http2/bad_web.cpp '#include "web/cookie_parse.hpp"'
  plant cli/bad_body.cpp '#include "body/staging_buffer.hpp"'
  # The pool: below the client, above the protocols; nothing under it includes it.
  plant pool/bad_layer.cpp '#include "client/fetch/transfer.hpp"' '#include "body/staging_buffer.hpp"' \
    '#include "http2/h2_connection.hpp"' '#include "web/alt_svc.hpp"'
  plant http1/bad_pool.cpp '#include "pool/connection_pool.hpp"'
  plant web/bad_pool.cpp '#include "pool/connection_waiter.hpp"'
  plant download/bad_pool.cpp '#include "pool/connection_pool.hpp"'
  # src/tools: the standard library and the public API; the CLI may include it.
  plant tools/bad_layer.cpp '#include "core/time_source.hpp"' '#include "sluice/headers.hpp"' \
    '#include <chrono>' '#include "download/download_ranges.hpp"'
  plant cli/uses_tools.cpp '#include "tools/rate_limiter.hpp"'
  # Allowed: the CLI prints and uses the public API; snprintf formats; comments mention
  # printf; each third-party library in its own place (each layer's library_version.cpp
  # asks its own for the version).
  plant cli/main.cpp '#include "cli/options.hpp"' '#include "sluice/client.hpp"' \
    '#include <sluice/error.hpp>' '#include <unistd.h>' '#include <string>' \
    'void g() { printf("ok"); std::cout << 1; }'
  plant client/good.cpp '#include "http1/h1_codec.hpp"' '#include "core/x.hpp"' '// no printf here' \
    'void h(char* b) { std::snprintf(b, 4, "x"); }'
  plant http1/h1_response_parser.cpp '#include <llhttp.h>'
  plant http2/h2_session.hpp '#include <nghttp2/nghttp2.h>'
  plant quic/quic_tls.cpp '#include <ngtcp2/ngtcp2_crypto_gnutls.h>' '#include <gnutls/x509.h>' \
    '#include "net/udp_socket.hpp"'
  plant http3/h3_session.hpp '#include <nghttp3/nghttp3.h>' '#include "quic/quic_streams.hpp"'
  plant pool/connection_factory.cpp '#include "quic/quic_connection.hpp"'
  plant tls/tls_transport.cpp '#include <openssl/ssl.h>' '#include "net/transport.hpp"'
  plant net/local_binding.cpp '#include <net/if.h>'
  plant cli/interface_name.cpp '#include <net/if.h>'
  plant tls/bad_angle.cpp '#include <dns/resolver.hpp>'
  plant dns/dns_channel.cpp '#include <ares.h>' '#include "net/socket_address.hpp"'
  plant connect/connector.cpp '#include "dns/resolver.hpp"' '#include "tls/tls.hpp"'
  plant mux/stream_credit.cpp '#include "connection/connection.hpp"' '#include "core/trace.hpp"'
  plant download/file/download_sha256.cpp '#include <openssl/evp.h>'
  plant decode/gzip_decoder.hpp '#include <zlib.h>' '#include "core/byte_queue.hpp"'
  plant decode/brotli_decoder.cpp '#include <brotli/decode.h>' '#include "decode/content_decoder.hpp"'
  plant decode/zstd_decoder.cpp '#include <zstd.h>' '#include <zstd_errors.h>'
  plant client/fetch/transfer.cpp '#include "decode/content_decoder.hpp"' '#include "http2/h2_connection.hpp"'
  plant download/download_run.cpp '#include "client/client_access.hpp"' '#include "core/memory_rules.hpp"' \
    '#include "sluice/download.hpp"'
  plant client/library_versions.cpp '#include "http2/library_version.hpp"' \
    '#include "quic/library_version.hpp"' '#include "decode/library_version.hpp"'
  plant client/bad_versions.cpp '#include <nghttp2/nghttp2.h>'
  plant quic/library_version.cpp '#include <gnutls/gnutls.h>' '#include <ngtcp2/ngtcp2.h>'
  plant decode/library_version.cpp '#include <brotli/decode.h>' '#include <zlib.h>' '#include <zstd.h>'
  if out=$(check_tree "$tmp" 2>&1); then
    echo "self-test: violations were not detected" >&2
    return 1
  fi
  expected="core/bad_core.cpp:2: core/bad_core.cpp:3: tls/bad_tls.cpp:2: tls/bad_angle.cpp:1:
            connection/bad_seam.cpp:1: http1/bad_h1.cpp:2: http2/bad_h2.cpp:1: client/bad_test.cpp:1:
            client/bad_test.cpp:2: client/bad_print.cpp:2: client/bad_print.cpp:3:
            client/bad_print.cpp:4: client/bad_cli.cpp:1:
            cli/bad_internal.cpp:2: cli/bad_internal.cpp:3: cli/bad_internal.cpp:4:
            cli/bad_internal.cpp:5:
            net/bad_nghttp2.cpp:1: http3/bad_nghttp2.cpp:2: http2/bad_nghttp3.cpp:1:
            core/bad_ngtcp2.cpp:1: client/bad_gnutls.cpp:1: http2/bad_llhttp.cpp:1:
            http1/bad_openssl.cpp:1: client/bad_openssl.cpp:1:
            decode/bad_content_decoder.cpp:1: decode/bad_content_decoder.cpp:2:
            decode/bad_gzip_decoder.hpp:1: dns/bad_zlib.cpp:1: client/bad_ares.cpp:1:
            client/bad_zstd.cpp:1: decode/bad_layer.cpp:1: decode/bad_layer.cpp:2:
            client/bad_download.cpp:1: download/bad_layer.cpp:1: download/bad_layer.cpp:2:
            mux/bad_decode.cpp:1: mux/bad_decode.cpp:2: cli/bad_download.cpp:1:
            http3/bad_ngtcp2.cpp:1: quic/bad_layer.cpp:1: quic/bad_layer.cpp:2:
            http2/bad_quic.cpp:1: client/bad_versions.cpp:1: client/bad_capi.cpp:1:
            capi/bad_layer.cpp:1: web/bad_layer.cpp:1: web/bad_layer.cpp:2:
            auth/bad_layer.cpp:1: auth/bad_layer.cpp:3: body/bad_layer.cpp:1:
            http2/bad_web.cpp:1: cli/bad_body.cpp:1: pool/bad_layer.cpp:1:
            pool/bad_layer.cpp:2: http1/bad_pool.cpp:1: web/bad_pool.cpp:1: download/bad_pool.cpp:1:
            tools/bad_layer.cpp:1: tools/bad_layer.cpp:4:"
  count=0
  for want in $expected; do
    count=$((count + 1))
    grep -qF "/src/$want" <<<"$out" || { echo "self-test: missed $want in:"; echo "$out"; return 1; } >&2
  done
  if [ "$(grep -cE ':[0-9]+: ' <<<"$out")" -ne "$count" ]; then
    echo "self-test: expected $count violations, got:" >&2
    echo "$out" >&2
    return 1
  fi
  find "$tmp/src" -name 'bad_*' -delete
  check_tree "$tmp" >/dev/null || { echo "self-test: a clean tree was rejected:" >&2;
    check_tree "$tmp" >&2; return 1; }
  echo "check_layers: self-test passed ($count planted violations caught, clean tree accepted)"
}

if [ "${1:-}" = --self-test ]; then
  self_test
else
  check_tree "$(cd "${1:-$(dirname "$0")/../..}" && pwd)"
fi
