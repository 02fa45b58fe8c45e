#include "download/file/download_sha256.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <memory>

#include "download/file/download_file.hpp"

namespace sluice {

// EVP with SHA-256 cannot fail short of memory exhaustion; a null context then makes
// update() a no-op and the digest empty, which never matches a 64-digit checksum.
Sha256::Sha256() : context_(EVP_MD_CTX_new()) {
  if (context_ && EVP_DigestInit_ex(context_, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(context_);
    context_ = nullptr;
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(context_); }

void Sha256::update(std::string_view bytes) {
  if (context_) EVP_DigestUpdate(context_, bytes.data(), bytes.size());
}

std::string Sha256::hex_digest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!context_ || EVP_DigestFinal_ex(context_, digest, &length) != 1) return {};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0x0f]);
  }
  return hex;
}

Result<std::string> sha256_of_file(const OutputFile& file, std::uint64_t size) {
  Sha256 hash;
  constexpr std::size_t kBlock = 1 << 20;
  auto block = std::make_unique<char[]>(kBlock);
  std::uint64_t offset = 0;
  while (offset < size) {
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, size - offset));
    auto got = file.read_at(block.get(), want, offset);
    if (!got) return std::move(got).error();
    if (*got == 0) {
      return Error(ErrorCategory::io, "download: '" + file.path() + "' ends at byte " +
                                          std::to_string(offset) + ", before its size " +
                                          std::to_string(size));
    }
    hash.update(std::string_view(block.get(), *got));
    offset += *got;
  }
  return hash.hex_digest();
}

bool is_sha256_hex(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!hex) return false;
  }
  return true;
}

}  // namespace sluice
