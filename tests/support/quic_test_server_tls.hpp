#pragma once
// QuicServerTls: the GnuTLS side of QuicTestServer's one connection: certificate
// and key from PEM files, TLS 1.3 only, ALPN "h3" required of the client, and the
// ngtcp2_crypto hooks (ngtcp2_crypto_gnutls_configure_server_session) that carry
// handshake bytes and transport parameters between GnuTLS and the ngtcp2_conn.
// Ownership: owned by one QuicTestServer, which deletes its ngtcp2_conn first (the
// connection holds the session as its TLS handle). That server's thread only.

#include <gnutls/gnutls.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>

#include <memory>
#include <string>

#include "sluice/error.hpp"

namespace sluice::test {

class QuicServerTls {
 public:
  /// Error (category tls): "QuicTestServer: cannot load cert.pem / key.pem: ...".
  /// With `session_tickets`, the session can issue tickets (send_ticket) under one
  /// key for the whole process, so a client's next connection to any of the test
  /// servers may resume. With `accept_early_data` too, the tickets allow 0-RTT and
  /// the server takes it (each ClientHello once: a replay is refused); without it a
  /// client that tries 0-RTT is refused and must send again after the handshake.
  static Result<std::unique_ptr<QuicServerTls>> create(const std::string& cert_file,
                                                       const std::string& key_file,
                                                       bool session_tickets = false,
                                                       bool accept_early_data = false);
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
  Result<void> configure(const std::string& cert_file, const std::string& key_file,
                         bool session_tickets, bool accept_early_data);
  static ngtcp2_conn* conn_of(ngtcp2_crypto_conn_ref* ref) noexcept;

  gnutls_certificate_credentials_t credentials_ = nullptr;  // outlives session_
  gnutls_session_t session_ = nullptr;
  ngtcp2_crypto_conn_ref conn_ref_{};
  ngtcp2_conn* conn_ = nullptr;  // not owned
  bool session_tickets_ = false;
};

}  // namespace sluice::test
