#include "decode/library_version.hpp"

#include <brotli/decode.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <string>

namespace sluice {

namespace {
// Brotli packs its version as 0xMMMmmmppp (major, minor, patch).
std::string brotli_version() {
  const std::uint32_t packed = BrotliDecoderVersion();
  return std::to_string(packed >> 24) + "." + std::to_string((packed >> 12) & 0xFFF) + "." +
         std::to_string(packed & 0xFFF);
}
}  // namespace

std::vector<LibraryVersion> decode_library_versions() {
  return {{"zlib", zlibVersion()}, {"brotli", brotli_version()}, {"zstd", ZSTD_versionString()}};
}

}  // namespace sluice
