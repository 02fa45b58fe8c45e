// HTTP/1.1 (and 1.0) request framing: the request head and chunked-body framing, written
// straight into the connection's send queue.
//
// Ownership: free functions over caller-owned values; they run on whichever thread
// owns `out` (the HTTP thread, for a connection's send queue).

#include <charconv>
#include <cstdint>
#include <span>
#include <string_view>

#include "http1/h1_codec.hpp"

namespace sluice {
namespace {

constexpr std::string_view kCrlf = "\r\n";

void append_field(std::string_view name, std::string_view value, ByteQueue& out) {
  out.append(name);
  out.append(value.empty() ? std::string_view(":") : std::string_view(": "));
  out.append(value);
  out.append(kCrlf);
}

// Framing is the encoder's job alone: a caller's Content-Length or Transfer-Encoding
// could contradict the body actually sent, and a server that believes the wrong one
// reads the next request as body (or waits forever for bytes that never come).
bool is_framing_field(std::string_view name) noexcept {
  return iequals(name, "content-length") || iequals(name, "transfer-encoding");
}

void append_framing(const H1BodyFraming& framing, ByteQueue& out) {
  switch (framing.kind) {
    case H1BodyFraming::Kind::none: return;
    case H1BodyFraming::Kind::content_length: {
      char digits[24];
      const auto end = std::to_chars(digits, digits + sizeof digits, framing.length).ptr;
      append_field("Content-Length", std::string_view(digits, end - digits), out);
      return;
    }
    case H1BodyFraming::Kind::chunked: append_field("Transfer-Encoding", "chunked", out); return;
  }
}

}  // namespace

void encode_request_head(const H1RequestHead& head, ByteQueue& out) {
  out.append(head.method);
  out.append(" ");
  out.append(head.target);
  out.append(head.dialect == H1Dialect::http1_0 ? std::string_view(" HTTP/1.0\r\n")
                                                : std::string_view(" HTTP/1.1\r\n"));

  const bool caller_host = head.headers != nullptr && head.headers->contains("host");
  // Host goes first when we add it (RFC 9112 section 3.2 asks for it early, and
  // some servers route before reading the rest of the head).
  if (!caller_host) append_field("Host", head.authority, out);
  if (head.headers != nullptr) {
    for (const Header& field : *head.headers) {
      if (is_framing_field(field.name)) continue;
      append_field(field.name, field.value, out);
    }
  }
  append_framing(head.framing, out);
  out.append(kCrlf);
}

void encode_chunk(std::span<const std::byte> bytes, ByteQueue& out) {
  // An empty chunk would read as the last chunk and end the body early.
  if (bytes.empty()) return;
  char size[2 * sizeof(std::size_t) + 2];
  auto end = std::to_chars(size, size + sizeof size - 2, bytes.size(), 16).ptr;
  *end++ = '\r';
  *end++ = '\n';
  out.append(std::string_view(size, end - size));
  out.append(bytes);
  out.append(kCrlf);
}

void encode_last_chunk(ByteQueue& out) { out.append("0\r\n\r\n"); }

}  // namespace sluice
