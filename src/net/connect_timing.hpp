#pragma once
// ConnectTiming: when each step of making a connection happened, and the address it
// reached. Whoever makes the connection records it (Connector for TCP and TLS, the
// pool's HTTP/3 attempt for QUIC) and the Connection keeps it, so that a response
// that waited for that connection can say how it was reached (ResponseTiming).
// Ownership: a value; HTTP thread.

#include <cstdint>
#include <optional>
#include <string>

#include "core/time_source.hpp"
#include "sluice/response.hpp"

namespace sluice {

struct ConnectTiming {
  std::optional<TimePoint> dns_start, dns_end;
  std::optional<TimePoint> connect_start, connect_end;  // TCP; QUIC: its handshake
  std::optional<TimePoint> tls_start, tls_end;          // https over TCP; QUIC: its handshake
  std::string remote_ip;
  std::uint16_t remote_port = 0;
  std::string local_ip;  // where the connection left from ("" over a Unix socket)
  std::uint16_t local_port = 0;
  /// The TLS peer certificate check: 0 (X509_V_OK) or X509_V_ERR_*; 0 without TLS
  /// and over QUIC, whose GnuTLS handshake fails rather than keep a failed check.
  long tls_verify_result = 0;
  /// What the TLS handshake settled; nullopt without TLS.
  std::optional<TlsInfo> tls;

  /// When the connection could first carry a request.
  std::optional<TimePoint> ready() const { return tls_end ? tls_end : connect_end; }
};

}  // namespace sluice
