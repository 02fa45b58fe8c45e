// Messages for the ways a QUIC connection ends (see quic_errors.hpp).
//
// Ownership: pure functions; any thread.

#include "quic/quic_errors.hpp"

#include "quic/quic_error_names.hpp"
#include "quic/quic_tls.hpp"

namespace sluice {
namespace {

// A peer's reason phrase is shown, but never lets it write control characters
// into a terminal or a log, nor a page of text.
constexpr std::size_t kMaxReasonShown = 200;

std::string printable_reason(const std::uint8_t* reason, std::size_t length) {
  std::string text;
  for (std::size_t i = 0; i < length && text.size() < kMaxReasonShown; ++i) {
    const char c = static_cast<char>(reason[i]);
    text += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return text;
}

bool is_crypto_error(std::uint64_t code) {
  return code >= NGTCP2_CRYPTO_ERROR && code <= NGTCP2_CRYPTO_ERROR + 0xff;
}

std::string ms_text(std::chrono::milliseconds duration) {
  return std::to_string(duration.count()) + " ms";
}

bool is_peer_protocol_violation(int liberr) {
  switch (liberr) {
    case NGTCP2_ERR_PROTO:
    case NGTCP2_ERR_ACK_FRAME:
    case NGTCP2_ERR_FLOW_CONTROL:
    case NGTCP2_ERR_CONNECTION_ID_LIMIT:
    case NGTCP2_ERR_STREAM_LIMIT:
    case NGTCP2_ERR_FINAL_SIZE:
    case NGTCP2_ERR_REQUIRED_TRANSPORT_PARAM:
    case NGTCP2_ERR_MALFORMED_TRANSPORT_PARAM:
    case NGTCP2_ERR_FRAME_ENCODING:
    case NGTCP2_ERR_STREAM_STATE:
    case NGTCP2_ERR_TRANSPORT_PARAM:
    case NGTCP2_ERR_CRYPTO_BUFFER_EXCEEDED: return true;
    default: return false;
  }
}

}  // namespace

Error quic_peer_close_error(const ngtcp2_connection_close_error& close, const std::string& host,
                            bool handshake_completed, AppErrorNamer app_error_name) {
  const std::string reason =
      close.reasonlen > 0 ? ": \"" + printable_reason(close.reason, close.reasonlen) + "\"" : "";
  if (close.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION) {
    const std::string name = app_error_name != nullptr ? app_error_name(close.error_code)
                                                       : unnamed_error_code(close.error_code);
    return Error(ErrorCategory::protocol,
                 "QUIC: " + host + " closed the connection (" + name + reason + ")");
  }
  if (is_crypto_error(close.error_code) && !handshake_completed) {
    const auto alert = static_cast<std::uint8_t>(close.error_code - NGTCP2_CRYPTO_ERROR);
    return Error(ErrorCategory::tls,
                 "TLS: " + host + " refused the QUIC handshake: " + tls_alert_text(alert) + reason);
  }
  return Error(ErrorCategory::protocol, "QUIC: " + host + " closed the connection (" +
                                            quic_error_name(close.error_code) + reason + ")");
}

Error quic_handshake_timeout_error(const std::string& peer, std::chrono::milliseconds limit) {
  return Error(ErrorCode::handshake_timeout,
               "QUIC: handshake with " + peer + " did not complete within " + ms_text(limit));
}

Error quic_idle_timeout_error(const std::string& peer, std::chrono::milliseconds idle,
                              bool handshake_completed) {
  if (!handshake_completed) {
    return Error(ErrorCode::handshake_timeout, "QUIC: handshake with " + peer +
                                                   " got no answer within " + ms_text(idle) +
                                                   " (idle timeout)");
  }
  return Error(ErrorCode::idle_timeout, "QUIC: nothing from " + peer + " for " + ms_text(idle) +
                                            " (idle timeout); connection closed");
}

Error quic_stateless_reset_error(const std::string& host) {
  return Error(
      ErrorCategory::protocol,
      "QUIC: " + host + " sent a stateless reset (it lost the connection's state, e.g. a restart)");
}

Error quic_library_error(int liberr, const std::string& host) {
  const std::string what = ngtcp2_strerror(liberr);
  if (liberr == NGTCP2_ERR_RECV_VERSION_NEGOTIATION ||
      liberr == NGTCP2_ERR_VERSION_NEGOTIATION_FAILURE) {
    return Error(ErrorCategory::connect, "QUIC: " + host + " does not support QUIC version 1");
  }
  if (liberr == NGTCP2_ERR_NO_VIABLE_PATH) {
    return Error(ErrorCategory::connect, "QUIC: no usable network path to " + host);
  }
  if (is_peer_protocol_violation(liberr)) {
    const std::uint64_t code = ngtcp2_err_infer_quic_transport_error_code(liberr);
    return Error(ErrorCategory::protocol, "QUIC: " + host + " broke the QUIC protocol (" +
                                              quic_error_name(code) + ", " + what + ")");
  }
  return Error(ErrorCategory::protocol, "QUIC: connection to " + host + " failed: " + what);
}

ngtcp2_connection_close_error quic_application_close(std::uint64_t app_error) {
  ngtcp2_connection_close_error close;
  ngtcp2_connection_close_error_default(&close);
  ngtcp2_connection_close_error_set_application_error(&close, app_error, nullptr, 0);
  return close;
}

ngtcp2_connection_close_error quic_library_close(int liberr) {
  ngtcp2_connection_close_error close;
  ngtcp2_connection_close_error_default(&close);
  ngtcp2_connection_close_error_set_transport_error_liberr(&close, liberr, nullptr, 0);
  return close;
}

ngtcp2_connection_close_error quic_tls_alert_close(std::uint8_t alert) {
  ngtcp2_connection_close_error close;
  ngtcp2_connection_close_error_default(&close);
  ngtcp2_connection_close_error_set_transport_error_tls_alert(&close, alert, nullptr, 0);
  return close;
}

}  // namespace sluice
