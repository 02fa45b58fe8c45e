#pragma once
// QuicServerTls: the GnuTLS side of QuicTestServer's one connection: certificate
// and key from PEM files, TLS 1.3 only, ALPN "h3" required of the client, and the
// hooks that carry handshake bytes, secrets and transport parameters between
// GnuTLS and the ngtcp2_conn. They are ours rather than ngtcp2_crypto's
// (ngtcp2_crypto_gnutls_configure_server_session) so that the server can misread
// the client's transport parameters on purpose (assumed_stream_window below).
// Ownership: owned by one QuicTestServer, which deletes its ngtcp2_conn first (the
// connection holds the session as its TLS handle). That server's thread only.

#include <gnutls/gnutls.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "sluice/error.hpp"

namespace sluice::test {

struct QuicServerTlsSettings {
  std::string cert_file;  ///< PEM
  std::string key_file;   ///< PEM
  /// The session can issue tickets (send_ticket) under one key for the whole
  /// process, so a client's next connection to any of the test servers may resume.
  bool session_tickets = false;
  /// With session_tickets: the tickets allow 0-RTT and the server takes it (each
  /// ClientHello once: a replay is refused). Without it a client that tries 0-RTT
  /// is refused and must send again after the handshake.
  bool accept_early_data = false;
  /// Nonzero: the connection is told the client's initial window for each request
  /// stream (initial_max_stream_data_bidi_local) is at least this, whatever the
  /// client said, so the server sends past the client's real window.
  std::uint64_t assumed_stream_window = 0;
};

class QuicServerTls {
 public:
  /// Error (category tls): "QuicTestServer: cannot load cert.pem / key.pem: ...".
  static Result<std::unique_ptr<QuicServerTls>> create(const QuicServerTlsSettings& settings);
  ~QuicServerTls();
  QuicServerTls(const QuicServerTls&) = delete;
  QuicServerTls& operator=(const QuicServerTls&) = delete;

  /// Joins the session and the connection both ways: ngtcp2_crypto finds the
  /// connection through the session's pointer, ngtcp2 the session through its
  /// TLS handle.
  void attach(ngtcp2_conn* conn) noexcept;
  /// The protocol agreed with the client ("h3"), "" before the handshake.
  std::string alpn() const;
  /// After the handshake: a NewSessionTicket for the client (with session tickets).
  void send_ticket();
  /// The client resumed a session.
  bool resumed() const;
  /// The client's 0-RTT early data was accepted.
  bool early_data_accepted() const;

 private:
  QuicServerTls();
  Result<void> configure(const QuicServerTlsSettings& settings);
  Result<void> install_quic_hooks();
  static ngtcp2_conn* conn_of(ngtcp2_crypto_conn_ref* ref) noexcept;
  static QuicServerTls& of(gnutls_session_t session) noexcept;
  // GnuTLS callbacks (see quic_test_server_tls.cpp).
  static int on_secrets(gnutls_session_t session, gnutls_record_encryption_level_t level,
                        const void* rx_secret, const void* tx_secret, std::size_t length) noexcept;
  static int on_handshake_bytes(gnutls_session_t session, gnutls_record_encryption_level_t level,
                                gnutls_handshake_description_t type, const void* data,
                                std::size_t length) noexcept;
  static int on_alert(gnutls_session_t session, gnutls_record_encryption_level_t level,
                      gnutls_alert_level_t alert_level, gnutls_alert_description_t alert) noexcept;
  static int on_client_transport_params(gnutls_session_t session, const unsigned char* data,
                                        std::size_t length) noexcept;
  static int on_our_transport_params(gnutls_session_t session, gnutls_buffer_t out) noexcept;
  int take_client_transport_params(const std::uint8_t* data, std::size_t length);
  // The client's parameters with the assumed windows, encoded into `out`: its
  // length, or ngtcp2's error.
  ngtcp2_ssize raise_windows(const std::uint8_t* data, std::size_t length,
                             std::span<std::uint8_t> out) const;

  gnutls_certificate_credentials_t credentials_ = nullptr;  // outlives session_
  gnutls_session_t session_ = nullptr;
  ngtcp2_crypto_conn_ref conn_ref_{};
  ngtcp2_conn* conn_ = nullptr;  // not owned
  bool session_tickets_ = false;
  std::uint64_t assumed_stream_window_ = 0;
};

}  // namespace sluice::test
