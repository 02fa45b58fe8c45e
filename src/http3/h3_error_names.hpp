#pragma once
// Names for HTTP/3 application error codes (RFC 9114 section 8.1, RFC 9204), for
// messages people read: "HTTP/3: stream 4 reset by server (H3_REQUEST_REJECTED)".
// QUIC's own codes: quic/quic_error_names.hpp.
// Pure functions; any thread.

#include <cstdint>
#include <string>

namespace sluice {

/// "H3_NO_ERROR", ..., "QPACK_DECOMPRESSION_FAILED", or "error 0x1f" when unknown.
std::string h3_error_name(std::uint64_t code);

}  // namespace sluice
