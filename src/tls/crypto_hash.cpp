#include "tls/crypto_hash.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

namespace sluice {
namespace {

const EVP_MD* message_digest(HashAlgorithm algorithm) {
  switch (algorithm) {
    case HashAlgorithm::md5: return EVP_md5();
    case HashAlgorithm::sha256: return EVP_sha256();
    case HashAlgorithm::sha512_256: return EVP_sha512_256();
  }
  return nullptr;
}

}  // namespace

std::string hex_digest(HashAlgorithm algorithm, std::string_view bytes) {
  const EVP_MD* md = message_digest(algorithm);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (md == nullptr || EVP_Digest(bytes.data(), bytes.size(), digest, &length, md, nullptr) != 1) {
    return {};
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0x0f]);
  }
  return hex;
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac,
           &length) == nullptr) {
    return {};
  }
  return std::string(reinterpret_cast<const char*>(mac), length);
}

std::optional<std::string> random_bytes(std::size_t count) {
  std::string bytes(count, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(bytes.data()), static_cast<int>(count)) != 1) {
    return std::nullopt;
  }
  return bytes;
}

}  // namespace sluice
