// Public key pins (see tls_pins.hpp). Ownership: pure functions; any thread.

#include "tls/tls_pins.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace sluice {
namespace {

constexpr std::string_view kPrefix = "sha256//";

Error pin_error(std::string message) {
  ERR_clear_error();
  return Error(ErrorCategory::usage, "TLS: " + std::move(message));
}

bool is_base64_sha256(std::string_view text) {
  // 32 bytes are 44 base64 characters, the last one '='.
  if (text.size() != 44 || text.back() != '=') return false;
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    const char c = text[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/')) return false;
  }
  return true;
}

Result<PublicKeyPins> parse_pin_list(const std::string& spec) {
  PublicKeyPins pins;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t end = std::min(spec.find(';', start), spec.size());
    const std::string_view entry = std::string_view(spec).substr(start, end - start);
    if (entry.substr(0, kPrefix.size()) != kPrefix ||
        !is_base64_sha256(entry.substr(kPrefix.size())))
      return pin_error("bad public key pin '" + std::string(entry) +
                       "' (expected sha256// and 44 base64 characters)");
    pins.sha256.emplace_back(entry.substr(kPrefix.size()));
    start = end + 1;
  }
  return pins;
}

// The DER SubjectPublicKeyInfo of a PEM ("PUBLIC KEY") or DER public key file.
Result<std::string> public_key_der(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return pin_error("cannot read public key file " + path + ": " + std::strerror(errno));
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EVP_PKEY* key = nullptr;
  if (BIO* bio = BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())); bio != nullptr) {
    key = PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
  }
  if (key == nullptr) {
    const auto* der = reinterpret_cast<const unsigned char*>(bytes.data());
    key = d2i_PUBKEY(nullptr, &der, static_cast<long>(bytes.size()));
  }
  if (key == nullptr)
    return pin_error("public key file " + path + " holds no PEM or DER public key");
  unsigned char* out = nullptr;
  const int length = i2d_PUBKEY(key, &out);
  EVP_PKEY_free(key);
  if (length <= 0) return pin_error("cannot encode the public key of " + path);
  std::string der(reinterpret_cast<const char*>(out), static_cast<std::size_t>(length));
  OPENSSL_free(out);
  ERR_clear_error();
  return der;
}

}  // namespace

Result<PublicKeyPins> parse_public_key_pins(const std::string& spec) {
  if (spec.empty()) return PublicKeyPins{};
  if (spec.rfind(kPrefix, 0) == 0) return parse_pin_list(spec);
  auto der = public_key_der(spec);
  if (!der) return std::move(der).error();
  PublicKeyPins pins;
  pins.sha256.push_back(
      public_key_pin(std::span(reinterpret_cast<const unsigned char*>(der->data()), der->size())));
  return pins;
}

std::string public_key_pin(std::span<const unsigned char> spki_der) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(spki_der.data(), spki_der.size(), digest, &size, EVP_sha256(), nullptr) != 1)
    return {};
  unsigned char text[64];  // 4 * ceil(32 / 3) + NUL
  const int length = EVP_EncodeBlock(text, digest, static_cast<int>(size));
  return std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(length));
}

Result<void> check_public_key_pin(const PublicKeyPins& pins, const std::string& actual,
                                  const std::string& host) {
  for (const std::string& pin : pins.sha256) {
    if (pin == actual) return {};
  }
  std::string expected;
  for (const std::string& pin : pins.sha256) {
    expected += expected.empty() ? "" : " or ";
    expected += std::string(kPrefix) + pin;
  }
  return Error(ErrorCode::tls_pinned_key, "TLS: public key of " + host + " is " +
                                              std::string(kPrefix) + actual +
                                              ", which does not match the pinned " + expected);
}

}  // namespace sluice
