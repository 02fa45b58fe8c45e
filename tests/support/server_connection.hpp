#pragma once
// Internal to the test support library: what TestServer needs from a connection
// beyond the handler-facing ServerConnection, and the parsing helpers the
// connections share. Not for tests to include.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "support/test_server.hpp"

typedef struct ssl_ctx_st SSL_CTX;

namespace sluice::test::detail {

// A ServerConnection as the server manages it. Owned by TestServer; used by its
// handler thread, except abort(), which the server calls from its own thread.
class ManagedConnection : public ServerConnection {
 public:
  /// TLS handshake (a no-op for plain TCP). False closes the connection unhandled.
  virtual bool handshake(std::chrono::milliseconds timeout) = 0;
  /// Any thread: shuts the socket down so every blocked call on it returns soon.
  /// Never closes the descriptor, so it cannot hit a reused number.
  virtual void abort() noexcept = 0;
  /// Handler thread, after the handler returned: orderly close if still open.
  virtual void finish() = 0;
};

/// Takes ownership of `fd`, an accepted TCP socket.
std::unique_ptr<ManagedConnection> make_plain_connection(int fd);
/// Takes ownership of `fd`; `ctx` must outlive the connection.
std::unique_ptr<ManagedConnection> make_tls_connection(int fd, SSL_CTX* ctx);

/// Parses a request head (request line and fields, without the final empty line).
/// Sets `chunked` from Transfer-Encoding. std::nullopt when malformed.
std::optional<ReceivedRequest> parse_request_head(std::string_view head);
/// Parses "1a3;ext=1" (the line without CRLF). std::nullopt when malformed.
std::optional<std::uint64_t> parse_chunk_size(std::string_view line);
/// The Content-Length of a request; 0 when absent; std::nullopt when malformed.
std::optional<std::uint64_t> content_length_of(const ReceivedRequest& request);

}  // namespace sluice::test::detail
