#include "http3/h3_error_names.hpp"

#include <array>
#include <string_view>
#include <utility>

#include "quic/quic_error_names.hpp"

namespace sluice {

namespace {

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

}  // namespace

std::string h3_error_name(std::uint64_t code) {
  for (const auto& [value, name] : kH3Names) {
    if (value == code) return std::string(name);
  }
  return unnamed_error_code(code);
}

}  // namespace sluice
