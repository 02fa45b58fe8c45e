#include "quic/quic_error_names.hpp"

#include <array>
#include <cstdio>
#include <string_view>

namespace sluice {
namespace {

// RFC 9000 section 20.1.
constexpr std::array<std::string_view, 17> kQuicNames{{
    "NO_ERROR",
    "INTERNAL_ERROR",
    "CONNECTION_REFUSED",
    "FLOW_CONTROL_ERROR",
    "STREAM_LIMIT_ERROR",
    "STREAM_STATE_ERROR",
    "FINAL_SIZE_ERROR",
    "FRAME_ENCODING_ERROR",
    "TRANSPORT_PARAMETER_ERROR",
    "CONNECTION_ID_LIMIT_ERROR",
    "PROTOCOL_VIOLATION",
    "INVALID_TOKEN",
    "APPLICATION_ERROR",
    "CRYPTO_BUFFER_EXCEEDED",
    "KEY_UPDATE_ERROR",
    "AEAD_LIMIT_REACHED",
    "NO_VIABLE_PATH",
}};

// CRYPTO_ERROR codes carry a TLS alert in their low byte.
constexpr std::uint64_t kCryptoErrorBase = 0x100;

}  // namespace

std::string unnamed_error_code(std::uint64_t code) {
  char text[32];
  std::snprintf(text, sizeof text, "error 0x%llx", static_cast<unsigned long long>(code));
  return text;
}

std::string quic_error_name(std::uint64_t code) {
  if (code < kQuicNames.size()) return std::string(kQuicNames[code]);
  if (code >= kCryptoErrorBase && code <= kCryptoErrorBase + 0xff) {
    return "CRYPTO_ERROR (TLS alert " + std::to_string(code - kCryptoErrorBase) + ")";
  }
  return unnamed_error_code(code);
}

}  // namespace sluice
