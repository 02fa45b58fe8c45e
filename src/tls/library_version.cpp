#include "tls/library_version.hpp"

#include <openssl/crypto.h>

#include <string>

namespace sluice {

// "OpenSSL 3.0.11 19 Sep 2023" -> "3.0.11".
std::vector<LibraryVersion> tls_library_versions() {
  const std::string text = OpenSSL_version(OPENSSL_VERSION);
  const std::size_t start = text.find(' ');
  if (start == std::string::npos) return {{"OpenSSL", text}};
  const std::size_t end = text.find(' ', start + 1);
  return {{"OpenSSL",
           text.substr(start + 1, end == std::string::npos ? std::string::npos : end - start - 1)}};
}

}  // namespace sluice
