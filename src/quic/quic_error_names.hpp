#pragma once
// Names for QUIC transport error codes (RFC 9000 section 20.1), for messages people
// read: "QUIC: localhost closed the connection (FLOW_CONTROL_ERROR)". Application
// error codes belong to the protocol above QUIC (http3/h3_error_names.hpp), which
// hands its namer to the connection (QuicOptions::app_error_name).
// Pure functions; any thread.

#include <cstdint>
#include <string>

namespace sluice {

/// "NO_ERROR", "FLOW_CONTROL_ERROR", ..., "CRYPTO_ERROR (TLS alert 42)", or
/// "error 0x..." when unknown.
std::string quic_error_name(std::uint64_t code);
/// "error 0x1f": how a code without a name is shown.
std::string unnamed_error_code(std::uint64_t code);

}  // namespace sluice
