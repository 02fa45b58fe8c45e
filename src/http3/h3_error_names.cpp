#include "http3/h3_error_names.hpp"

#include <array>
#include <cstdio>
#include <string_view>
#include <utility>

namespace sluice {

namespace {

std::string hex(std::uint64_t code) {
  char text[32];
  std::snprintf(text, sizeof text, "error 0x%llx", static_cast<unsigned long long>(code));
  return text;
}

// RFC 9114 section 8.1, then RFC 9204 section 6.
constexpr std::array<std::pair<std::uint64_t, std::string_view>, 20> kH3Names{{
    {0x100, "H3_NO_ERROR"},
    {0x101, "H3_GENERAL_PROTOCOL_ERROR"},
    {0x102, "H3_INTERNAL_ERROR"},
    {0x103, "H3_STREAM_CREATION_ERROR"},
    {0x104, "H3_CLOSED_CRITICAL_STREAM"},
    {0x105, "H3_FRAME_UNEXPECTED"},
    {0x106, "H3_FRAME_ERROR"},
    {0x107, "H3_EXCESSIVE_LOAD"},
    {0x108, "H3_ID_ERROR"},
    {0x109, "H3_SETTINGS_ERROR"},
    {0x10a, "H3_MISSING_SETTINGS"},
    {0x10b, "H3_REQUEST_REJECTED"},
    {0x10c, "H3_REQUEST_CANCELLED"},
    {0x10d, "H3_REQUEST_INCOMPLETE"},
    {0x10e, "H3_MESSAGE_ERROR"},
    {0x10f, "H3_CONNECT_ERROR"},
    {0x110, "H3_VERSION_FALLBACK"},
    {0x200, "QPACK_DECOMPRESSION_FAILED"},
    {0x201, "QPACK_ENCODER_STREAM_ERROR"},
    {0x202, "QPACK_DECODER_STREAM_ERROR"},
}};

// RFC 9000 section 20.1.
constexpr std::array<std::string_view, 17> kQuicNames{{
    "NO_ERROR", "INTERNAL_ERROR", "CONNECTION_REFUSED", "FLOW_CONTROL_ERROR",
    "STREAM_LIMIT_ERROR", "STREAM_STATE_ERROR", "FINAL_SIZE_ERROR", "FRAME_ENCODING_ERROR",
    "TRANSPORT_PARAMETER_ERROR", "CONNECTION_ID_LIMIT_ERROR", "PROTOCOL_VIOLATION",
    "INVALID_TOKEN", "APPLICATION_ERROR", "CRYPTO_BUFFER_EXCEEDED", "KEY_UPDATE_ERROR",
    "AEAD_LIMIT_REACHED", "NO_VIABLE_PATH",
}};

// CRYPTO_ERROR codes carry a TLS alert in their low byte.
constexpr std::uint64_t kCryptoErrorBase = 0x100;

}  // namespace

std::string h3_error_name(std::uint64_t code) {
  for (const auto& [value, name] : kH3Names) {
    if (value == code) return std::string(name);
  }
  return hex(code);
}

std::string quic_error_name(std::uint64_t code) {
  if (code < kQuicNames.size()) return std::string(kQuicNames[code]);
  if (code >= kCryptoErrorBase && code <= kCryptoErrorBase + 0xff) {
    return "CRYPTO_ERROR (TLS alert " + std::to_string(code - kCryptoErrorBase) + ")";
  }
  return hex(code);
}

}  // namespace sluice
