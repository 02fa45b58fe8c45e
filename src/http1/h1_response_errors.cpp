// H1ResponseParser's errors (see h1_response_core.hpp): each names what was wrong and
// where in the message the parser was, in words a person can act on.
// Ownership: HTTP thread only, like the parser.

#include <string>
#include <string_view>
#include <utility>

#include "http1/h1_response_core.hpp"

namespace sluice::h1_parse {

Error State::fail(Error failure) {
  phase = Phase::failed;
  error = failure;
  return failure;
}

Error State::head_too_large() const {
  return Error(ErrorCode::headers_too_large,
               "HTTP/1.1: response header block exceeds the limit of " +
                   format_u64(max_header_bytes) + " bytes");
}

// Codes that name the fault themselves; the rest are worded by where they happened.
const char* describe_code(llhttp_errno_t rv) noexcept {
  switch (rv) {
    case HPE_INVALID_CONSTANT:
    case HPE_INVALID_VERSION:
    case HPE_INVALID_STATUS: return "invalid status line";
    case HPE_INVALID_CONTENT_LENGTH: return "invalid Content-Length";
    case HPE_UNEXPECTED_CONTENT_LENGTH: return "conflicting Content-Length";
    case HPE_INVALID_TRANSFER_ENCODING: return "invalid Transfer-Encoding";
    case HPE_INVALID_CHUNK_SIZE: return "invalid chunk size";
    case HPE_CLOSED_CONNECTION: return "data after a response that closes the connection";
    default: return nullptr;
  }
}

const char* describe_phase(Phase phase, BodyKind body_kind) noexcept {
  switch (phase) {
    case Phase::status_line: return "invalid status line";
    case Phase::headers: return "invalid header";
    case Phase::body:
      return body_kind == BodyKind::chunked ? "invalid chunked body" : "malformed response";
    case Phase::trailers: return "invalid trailer";
    case Phase::complete:
    case Phase::failed: break;
  }
  return "malformed response";
}

Error State::translate(llhttp_errno_t rv) const {
  if (error) return *error;  // a callback's own failure
  const char* words = describe_code(rv);
  if (words == nullptr && rv == HPE_INVALID_HEADER_TOKEN) {
    words = phase == Phase::trailers ? "invalid trailer" : "invalid header";
  }
  if (words == nullptr) words = describe_phase(phase, body_kind);
  std::string message = std::string(words) + " from server";
  const char* reason = llhttp_get_error_reason(&parser);
  if (reason != nullptr && *reason != '\0') message += std::string(" (") + reason + ")";
  // A bad byte in a field's value (a redirect's Location, say): llhttp's reason does
  // not say which field, and the name, already parsed, is a token safe to show.
  constexpr std::size_t kShownName = 64;
  if (rv == HPE_INVALID_HEADER_TOKEN && !name.empty() && reason != nullptr &&
      std::string_view(reason).find("value") != std::string_view::npos) {
    message += " in the value of '" + name.substr(0, kShownName) + "'";
  }
  return protocol_error(std::move(message));
}

std::string State::progress() const {
  if (!head_done) return "before the response headers";
  if (body_kind == BodyKind::chunked) {
    return "inside a chunked body after " + format_u64(body_bytes) + " bytes";
  }
  if (body_kind == BodyKind::length) {
    return "after " + format_u64(body_bytes) + " of " + format_u64(expected_length) + " body bytes";
  }
  return "after " + format_u64(body_bytes) + " body bytes";
}

std::string State::truncation_message() const { return "connection closed " + progress(); }

}  // namespace sluice::h1_parse
