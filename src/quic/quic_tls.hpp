#pragma once
// The TLS side of a QUIC client connection, over GnuTLS (Debian's ngtcp2 0.12 has
// no OpenSSL backend). QuicTlsContext holds the trust (system store, a CA file, or
// none with insecure) and may be shared by many connections; QuicTls is one
// connection's session: ALPN "h3", SNI, and certificate plus host name checks whose
// failures read like the TCP ones of src/tls ("TLS: certificate for wrong.example
// does not match host localhost").
// Ownership: a QuicTlsContext is shared (std::shared_ptr) by the connections that
// use it; a QuicTls is owned by one QuicCodec. HTTP thread only.

#include <gnutls/gnutls.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "quic/quic_ticket_store.hpp"
#include "sluice/client_options.hpp"
#include "sluice/error.hpp"
#include "sluice/response.hpp"
#include "tls/tls_pins.hpp"

namespace sluice {

class QuicTlsContext {
 public:
  /// Trust for server certificates: `ca_file` (PEM) and `ca_path` when set, else the
  /// system store. With `insecure` nothing is verified (the store is not even loaded),
  /// but pins are still checked. What GnuTLS can honour of `options`: TLS 1.2's
  /// ciphers and the version bounds do not apply to QUIC, which is TLS 1.3 only;
  /// early_data sends safe requests as 0-RTT on a resumed connection.
  /// Error (category tls or usage): "TLS: cannot load CA file 'x.pem': ...",
  /// "TLS: cannot use client certificate c.pem with key k.pem: ...".
  static Result<std::shared_ptr<const QuicTlsContext>> create(const TlsOptions& options);
  /// Trust only: a CA file (or the system store), or none with `insecure`.
  static Result<std::shared_ptr<const QuicTlsContext>> create(const std::string& ca_file,
                                                              bool insecure) {
    TlsOptions options;
    options.ca_file = ca_file;
    options.insecure = insecure;
    return create(options);
  }
  ~QuicTlsContext();
  QuicTlsContext(const QuicTlsContext&) = delete;
  QuicTlsContext& operator=(const QuicTlsContext&) = delete;

  gnutls_certificate_credentials_t credentials() const noexcept { return credentials_; }
  bool insecure() const noexcept { return insecure_; }
  const std::string& ca_file() const noexcept { return ca_file_; }
  /// The GnuTLS priority string: TLS 1.3 and the ciphers QUIC can use (or those asked for).
  const std::string& priority() const noexcept { return priority_; }
  const PublicKeyPins& pins() const noexcept { return pins_; }
  bool early_data() const noexcept { return early_data_; }
  /// The sessions to resume and the handshake counts: mutable state behind a const
  /// context, used on the HTTP thread only.
  QuicTicketStore& tickets() const noexcept { return *tickets_; }

 private:
  QuicTlsContext() = default;
  Result<void> load_trust(const TlsOptions& options);
  Result<void> load_client_certificate(const TlsOptions& options);

  gnutls_certificate_credentials_t credentials_ = nullptr;
  bool insecure_ = false;
  bool early_data_ = false;
  std::string ca_file_;
  std::string priority_;
  PublicKeyPins pins_;
  std::shared_ptr<QuicTicketStore> tickets_;
};

/// What certificate verification rejected, captured inside GnuTLS's verify callback
/// (the only moment the details are at hand).
struct QuicTlsVerifyFailure {
  unsigned status = 0;     ///< gnutls_certificate_status_t bits
  std::string leaf_names;  ///< "localhost, 127.0.0.1": the server certificate's names
  std::string not_before;  ///< the server certificate's validity, "2024-05-01 12:00:00 UTC"
  std::string not_after;
  bool leaf_expired = false;
  bool leaf_not_yet_valid = false;
  std::string problem;  ///< set when verification could not even run
};

/// "TLS: certificate for wrong.example does not match host localhost", "TLS:
/// certificate for localhost is not signed by a trusted CA (...); use --cacert FILE
/// to trust its CA", ... Pure; any thread.
Error describe_quic_verify_failure(const QuicTlsVerifyFailure& failure, const std::string& host);

class QuicTls {
 public:
  /// A client session for `host` (a name or an IP literal; brackets allowed): SNI
  /// for a name, verification against `host` unless the context is insecure, ALPN
  /// "h3" required.
  /// `port` keys the context's ticket store (with the host): a session offered to
  /// the same origin only.
  static Result<std::unique_ptr<QuicTls>> create(std::shared_ptr<const QuicTlsContext> context,
                                                 const std::string& host, std::uint16_t port = 0);
  ~QuicTls();
  QuicTls(const QuicTls&) = delete;
  QuicTls& operator=(const QuicTls&) = delete;

  /// Joins the session to its ngtcp2 connection (ngtcp2_crypto finds the connection
  /// through the session) and the connection to the session.
  void attach(ngtcp2_conn* conn) noexcept;
  gnutls_session_t session() const noexcept { return session_; }
  /// The protocol the server selected, "" if none.
  std::string selected_alpn() const;
  /// At handshake completion: whether a stored session was resumed; counts it.
  bool note_handshake_done();
  /// The server's transport parameters (at handshake completion), stored with
  /// each ticket this connection receives: RFC 9000 section 7.4.1 bounds 0-RTT by
  /// the parameters of the connection that issued the ticket, not another's.
  void keep_transport_params(std::string params);
  /// The stored server transport parameters when this session offers 0-RTT early
  /// data (the context allows it and a session with them was stored), else "".
  const std::string& early_transport_params() const noexcept { return early_params_; }
  /// After the handshake: whether the server accepted the early data.
  bool early_data_accepted() const;
  /// The server certificate check's result in OpenSSL's numbers (X509_V_ERR_*,
  /// quic_verify_code.hpp): 0 when it passed or was not made (a resumed session
  /// sends no certificate), else why; an insecure context goes ahead regardless.
  long verify_result() const noexcept { return verify_result_; }
  /// After the handshake: version and cipher in OpenSSL's words ("TLSv1.3",
  /// "TLS_AES_128_GCM_SHA256"), ALPN, whether the session was resumed, and the
  /// server's certificate (on a resumed session, the one GnuTLS kept with it).
  TlsInfo tls_info() const;
  /// The store this session's counts go to.
  QuicTicketStore& tickets() const noexcept { return context_->tickets(); }
  /// Why the handshake failed on our side, given the TLS alert ngtcp2 recorded (0 if
  /// none): the verification failure when one was captured, else the alert.
  Error handshake_error(std::uint8_t alert) const;

 private:
  QuicTls(std::shared_ptr<const QuicTlsContext> context, std::string host, std::string key);
  Result<void> configure();
  static int verify_trampoline(gnutls_session_t session) noexcept;
  static int ticket_hook(gnutls_session_t session, unsigned type, unsigned when, unsigned incoming,
                         const gnutls_datum_t* message) noexcept;
  static ngtcp2_conn* get_conn(ngtcp2_crypto_conn_ref* ref) noexcept;
  bool verify_peer();
  bool check_pin();

  std::shared_ptr<const QuicTlsContext> context_;
  std::string host_;              // without brackets
  std::string key_;               // the ticket store's key: host:port
  std::string early_params_;      // set when 0-RTT is offered (see early_transport_params)
  std::string transport_params_;  // this connection's server parameters, once known
  std::string last_ticket_;       // the session data of this connection's latest ticket
  gnutls_session_t session_ = nullptr;
  ngtcp2_crypto_conn_ref conn_ref_{};
  ngtcp2_conn* conn_ = nullptr;
  std::optional<QuicTlsVerifyFailure> verify_failure_;
  long verify_result_ = 0;
  std::optional<Error> pin_failure_;  // the pinned key did not match
};

/// "Certificate is bad (TLS alert 42)": GnuTLS's description of a TLS alert.
std::string tls_alert_text(std::uint8_t alert);

}  // namespace sluice
