#include "sluice/error.hpp"

namespace sluice {

const char* to_string(ErrorCategory category) noexcept {
  switch (category) {
    case ErrorCategory::dns: return "dns";
    case ErrorCategory::connect: return "connect";
    case ErrorCategory::tls: return "tls";
    case ErrorCategory::protocol: return "protocol";
    case ErrorCategory::timeout: return "timeout";
    case ErrorCategory::cancelled: return "cancelled";
    case ErrorCategory::too_large: return "too_large";
    case ErrorCategory::decode: return "decode";
    case ErrorCategory::io: return "io";
    case ErrorCategory::usage: return "usage";
    case ErrorCategory::http: return "http";
  }
  return "unknown";
}

ErrorCategory category_of(ErrorCode code) noexcept {
  switch (static_cast<int>(code) / 100) {
    case 1: return ErrorCategory::dns;
    case 2: return ErrorCategory::connect;
    case 3: return ErrorCategory::tls;
    case 4: return ErrorCategory::protocol;
    case 5: return ErrorCategory::timeout;
    case 6: return ErrorCategory::cancelled;
    case 7: return ErrorCategory::too_large;
    case 8: return ErrorCategory::decode;
    case 9: return ErrorCategory::io;
    case 10: return ErrorCategory::usage;
    default: return ErrorCategory::http;
  }
}

bool retryable_by_default(ErrorCode code) noexcept {
  if (code == ErrorCode::proxy_refused) return false;  // it said no; asking again changes nothing
  if (code == ErrorCode::local_bind_failed) return false;  // our configuration, not the network
  switch (category_of(code)) {
    case ErrorCategory::dns:
    case ErrorCategory::connect:
    case ErrorCategory::timeout:
    case ErrorCategory::protocol: return true;
    default: return false;
  }
}

ErrorCode general_code(ErrorCategory category) noexcept {
  switch (category) {
    case ErrorCategory::dns: return ErrorCode::dns_failed;
    case ErrorCategory::connect: return ErrorCode::connect_failed;
    case ErrorCategory::tls: return ErrorCode::tls_failed;
    case ErrorCategory::protocol: return ErrorCode::protocol_error;
    case ErrorCategory::timeout: return ErrorCode::timeout;
    case ErrorCategory::cancelled: return ErrorCode::cancelled;
    case ErrorCategory::too_large: return ErrorCode::too_large;
    case ErrorCategory::decode: return ErrorCode::decode_failed;
    case ErrorCategory::io: return ErrorCode::io_failed;
    case ErrorCategory::usage: return ErrorCode::usage;
    case ErrorCategory::http: return ErrorCode::http_status;
  }
  return ErrorCode::usage;
}

const char* to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::dns_failed: return "dns_failed";
    case ErrorCode::connect_failed: return "connect_failed";
    case ErrorCode::proxy_refused: return "proxy_refused";
    case ErrorCode::local_bind_failed: return "local_bind_failed";
    case ErrorCode::proxy_handshake: return "proxy_handshake";
    case ErrorCode::tls_failed: return "tls_failed";
    case ErrorCode::tls_certificate: return "tls_certificate";
    case ErrorCode::tls_ca_file: return "tls_ca_file";
    case ErrorCode::tls_pinned_key: return "tls_pinned_key";
    case ErrorCode::protocol_error: return "protocol_error";
    case ErrorCode::body_truncated: return "body_truncated";
    case ErrorCode::empty_reply: return "empty_reply";
    case ErrorCode::http2_framing: return "http2_framing";
    case ErrorCode::http3_failed: return "http3_failed";
    case ErrorCode::timeout: return "timeout";
    case ErrorCode::connect_timeout: return "connect_timeout";
    case ErrorCode::first_byte_timeout: return "first_byte_timeout";
    case ErrorCode::idle_timeout: return "idle_timeout";
    case ErrorCode::total_timeout: return "total_timeout";
    case ErrorCode::ping_timeout: return "ping_timeout";
    case ErrorCode::handshake_timeout: return "handshake_timeout";
    case ErrorCode::dns_timeout: return "dns_timeout";
    case ErrorCode::low_speed: return "low_speed";
    case ErrorCode::cancelled: return "cancelled";
    case ErrorCode::too_large: return "too_large";
    case ErrorCode::too_many_redirects: return "too_many_redirects";
    case ErrorCode::headers_too_large: return "headers_too_large";
    case ErrorCode::decoded_too_large: return "decoded_too_large";
    case ErrorCode::body_too_large: return "body_too_large";
    case ErrorCode::decode_failed: return "decode_failed";
    case ErrorCode::io_failed: return "io_failed";
    case ErrorCode::out_of_memory: return "out_of_memory";
    case ErrorCode::send_failed: return "send_failed";
    case ErrorCode::receive_failed: return "receive_failed";
    case ErrorCode::usage: return "usage";
    case ErrorCode::bad_url: return "bad_url";
    case ErrorCode::invalid_argument: return "invalid_argument";
    case ErrorCode::http_status: return "http_status";
    case ErrorCode::redirect_refused: return "redirect_refused";
    case ErrorCode::insecure_redirect: return "insecure_redirect";
  }
  return "unknown";
}

std::string Error::describe() const { return std::string(to_string(category_)) + ": " + message_; }

}  // namespace sluice
