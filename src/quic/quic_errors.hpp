#pragma once
// The errors of a QUIC connection as messages a person can act on: the peer's
// CONNECTION_CLOSE ("QUIC: localhost closed the connection (H3_NO_ERROR)"), the
// timeouts, a stateless reset, ngtcp2's own failures.
// Pure functions; any thread.

#include <ngtcp2/ngtcp2.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "sluice/error.hpp"

namespace sluice {

/// Names an application error code ("H3_NO_ERROR"): the protocol above QUIC knows them.
using AppErrorNamer = std::string (*)(std::uint64_t code);

/// The CONNECTION_CLOSE the peer sent. A CRYPTO_ERROR before the handshake completed
/// is category tls ("TLS: localhost refused the QUIC handshake: ..."), anything else
/// protocol. An application code is named by `app_error_name` (hex when null). The
/// peer's reason phrase, if any, is quoted (printable ASCII only).
Error quic_peer_close_error(const ngtcp2_connection_close_error& close, const std::string& host,
                            bool handshake_completed, AppErrorNamer app_error_name);

/// "QUIC: handshake with localhost:4433 did not complete within 2000 ms" (timeout).
Error quic_handshake_timeout_error(const std::string& peer, std::chrono::milliseconds limit);

/// The idle timeout expired: "QUIC: nothing from localhost:4433 for 30000 ms (idle
/// timeout); connection closed", or during the handshake "QUIC: handshake with
/// localhost:4433 got no answer within 300 ms (idle timeout)". Category timeout.
Error quic_idle_timeout_error(const std::string& peer, std::chrono::milliseconds idle,
                              bool handshake_completed);

/// "QUIC: localhost sent a stateless reset (it lost the connection's state, e.g. a
/// restart)". Category protocol.
Error quic_stateless_reset_error(const std::string& host);

/// ngtcp2 failed the connection by itself (`liberr` is an NGTCP2_ERR_* code):
/// "QUIC: connection to localhost failed: ERR_PROTO (the server broke QUIC)".
Error quic_library_error(int liberr, const std::string& host);

/// The CONNECTION_CLOSE frames we send: an application error (e.g. an H3 code), a transport
/// error inferred from an ngtcp2 error, a TLS alert.
ngtcp2_connection_close_error quic_application_close(std::uint64_t app_error);
ngtcp2_connection_close_error quic_library_close(int liberr);
ngtcp2_connection_close_error quic_tls_alert_close(std::uint8_t alert);

}  // namespace sluice
