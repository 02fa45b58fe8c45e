// library_versions(): what `sluice --version` and bug reports name. The versions are
// asked of the libraries at run time, so they are the ones actually loaded.

#include <brotli/decode.h>
#include <gnutls/gnutls.h>
#include <nghttp2/nghttp2.h>
#include <nghttp3/nghttp3.h>
#include <ngtcp2/ngtcp2.h>
#include <openssl/crypto.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <string>

#include "sluice/version.hpp"

namespace sluice {

namespace {
// Brotli packs its version as 0xMMMmmmppp (major, minor, patch).
std::string brotli_version() {
  const std::uint32_t packed = BrotliDecoderVersion();
  return std::to_string(packed >> 24) + "." + std::to_string((packed >> 12) & 0xFFF) + "." +
         std::to_string(packed & 0xFFF);
}

// "OpenSSL 3.0.11 19 Sep 2023" -> "3.0.11".
std::string openssl_version() {
  std::string text = OpenSSL_version(OPENSSL_VERSION);
  const std::size_t start = text.find(' ');
  if (start == std::string::npos) return text;
  const std::size_t end = text.find(' ', start + 1);
  return text.substr(start + 1, end == std::string::npos ? std::string::npos : end - start - 1);
}
}  // namespace

std::string library_versions() {
  return std::string("nghttp2/") + nghttp2_version(0)->version_str + " ngtcp2/" +
         ngtcp2_version(0)->version_str + " nghttp3/" + nghttp3_version(0)->version_str +
         " GnuTLS/" + gnutls_check_version(nullptr) + " OpenSSL/" +
         openssl_version() + " zlib/" + zlibVersion() + " brotli/" + brotli_version() +
         " zstd/" + ZSTD_versionString();
}

}  // namespace sluice
