#pragma once
// SHA-256 of downloaded bytes (OpenSSL EVP), for DownloadOptions::sha256.
// Sha256: owned by one thread at a time (whoever feeds the bytes).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/error.hpp"

struct evp_md_ctx_st;

namespace sluice {

class OutputFile;

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::string_view bytes);
  /// Lowercase hex of everything fed; call once.
  std::string hex_digest();

 private:
  evp_md_ctx_st* context_;
};

/// Reads the first `size` bytes of `file` back and hashes them.
Result<std::string> sha256_of_file(const OutputFile& file, std::uint64_t size);

/// Whether `text` is 64 hex digits (either case).
bool is_sha256_hex(std::string_view text);

}  // namespace sluice
