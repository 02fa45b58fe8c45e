#pragma once
// HTTP/1.1 framing, sans-IO: request heads and chunks are encoded into a ByteQueue;
// response bytes are fed to H1ResponseParser (llhttp inside), which reports events.
// Ownership: one parser per connection, HTTP thread only.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "connection/exchange.hpp"
#include "core/byte_queue.hpp"
#include "sluice/error.hpp"
#include "sluice/headers.hpp"

namespace sluice {

/// How a request body is framed on the wire.
struct H1BodyFraming {
  enum class Kind { none, content_length, chunked } kind = Kind::none;
  std::uint64_t length = 0;  ///< for content_length
};

/// Which version the request line names. HTTP/1.0 (curl's --http1.0) has no chunked
/// coding and keeps a connection only when the server says "Connection: keep-alive".
enum class H1Dialect { http1_1, http1_0 };

/// Everything of a request head that goes on the wire. Header names and values were
/// validated before (validate_header); the encoder adds Host (from `authority`) unless
/// present, and Content-Length or Transfer-Encoding from `framing`.
struct H1RequestHead {
  std::string_view method;
  std::string_view target;     ///< origin-form: "/path?query"
  std::string_view authority;  ///< Host value
  const Headers* headers = nullptr;
  H1BodyFraming framing;
  H1Dialect dialect = H1Dialect::http1_1;
};

void encode_request_head(const H1RequestHead& head, ByteQueue& out);
/// One chunk of a chunked body ("<hex>\r\n<bytes>\r\n"); empty bytes write nothing.
void encode_chunk(std::span<const std::byte> bytes, ByteQueue& out);
/// The last chunk and the end of the (empty) trailer section.
void encode_last_chunk(ByteQueue& out);

/// Receives the parser's events, in order: head, body*, trailers?, complete.
class H1ParserEvents {
 public:
  virtual ~H1ParserEvents() = default;
  virtual void on_response_head(ReceivedHead head) = 0;
  virtual void on_body(std::span<const std::byte> bytes) = 0;
  virtual void on_trailers(Headers trailers) = 0;
  virtual void on_message_complete() = 0;
};

class H1ResponseParser {
 public:
  explicit H1ResponseParser(std::size_t max_header_bytes = 256 * 1024);
  ~H1ResponseParser();
  H1ResponseParser(const H1ResponseParser&) = delete;
  H1ResponseParser& operator=(const H1ResponseParser&) = delete;

  /// Prepares for the response to the request just sent. A HEAD request's response
  /// has no body whatever its headers say.
  void expect_response(bool head_request, std::size_t max_header_bytes);

  /// Parses `bytes`, firing events. 1xx responses are skipped (101 is an error: we
  /// never ask to upgrade). Returns the bytes consumed: all of them, or fewer when
  /// the response completed inside `bytes` (what follows belongs to no request; the
  /// connection must not be reused if any remains). Errors: protocol ("HTTP/1.1:
  /// invalid chunk size from server"), too_large (header block over the limit).
  Result<std::size_t> feed(std::span<const std::byte> bytes, H1ParserEvents& events);

  /// How the server closed: `authenticated` unless TLS saw a TCP close without
  /// close_notify, which an attacker on the path can forge.
  enum class Close { authenticated, unauthenticated };

  /// The server closed the connection. Ends a close-delimited body (on_message_complete)
  /// when the close is authenticated; an unauthenticated one cannot vouch that the
  /// body is whole, so it is a protocol error. Anything else unfinished is a protocol
  /// error that says what was cut short:
  /// "HTTP/1.1: connection closed after 1000 of 5000 body bytes".
  Result<void> finish(H1ParserEvents& events, Close close = Close::authenticated);

  /// After on_message_complete: may the connection carry another request?
  bool keep_alive() const noexcept;
  /// Whether the current response's head has been parsed.
  bool head_done() const noexcept;
  /// Bytes that can only be body bytes, reported to on_body as fed: what is left of
  /// a Content-Length body (UINT64_MAX for one that ends at the close) once its head
  /// is parsed; 0 otherwise (a head, a chunked body, trailers, no response).
  std::uint64_t plain_body_left() const noexcept;
  /// Where the current response stands, for error messages: "before the response
  /// headers", "after 1000 of 5000 body bytes", "inside a chunked body after 7 bytes",
  /// "after 12 body bytes" (a body that ends at the close).
  std::string progress() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace sluice
