// QuicTlsContext and QuicTls: GnuTLS client sessions for QUIC (see quic_tls.hpp).
//
// Ownership: HTTP thread only.

#include "quic/quic_tls.hpp"

#include <arpa/inet.h>
#include <gnutls/abstract.h>
#include <gnutls/x509.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>

#include <cstring>
#include <ctime>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "core/message_text.hpp"
#include "quic/quic_verify_code.hpp"
#include "tls/tls_peer_info.hpp"

namespace sluice {
namespace {

constexpr unsigned char kAlpnH3[] = {'h', '3'};

Error tls_error(std::string message) { return Error(ErrorCategory::tls, "TLS: " + message); }

std::string gnutls_text(int rv) { return gnutls_strerror(rv); }

std::string bare_host(const std::string& host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    return host.substr(1, host.size() - 2);
  return host;
}

bool is_ip_literal(const std::string& host) {
  unsigned char buffer[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

std::string time_text(time_t when) {
  if (when == static_cast<time_t>(-1)) return {};
  std::tm parts{};
  if (gmtime_r(&when, &parts) == nullptr) return {};
  char text[32];
  if (std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &parts) == 0) return {};
  return text;
}

std::string ip_text(const char* bytes, std::size_t size) {
  char text[INET6_ADDRSTRLEN] = {};
  const int family = size == 4 ? AF_INET : size == 16 ? AF_INET6 : AF_UNSPEC;
  if (family == AF_UNSPEC || inet_ntop(family, bytes, text, sizeof text) == nullptr) return {};
  return text;
}

std::vector<std::string> certificate_names(gnutls_x509_crt_t cert) {
  std::vector<std::string> names;
  for (unsigned index = 0;; ++index) {
    char buffer[512];
    std::size_t size = sizeof buffer;
    const int type = gnutls_x509_crt_get_subject_alt_name(cert, index, buffer, &size, nullptr);
    if (type == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE) break;
    if (type == GNUTLS_SAN_DNSNAME) names.emplace_back(buffer, size);
    if (type == GNUTLS_SAN_IPADDRESS) {
      std::string ip = ip_text(buffer, size);
      if (!ip.empty()) names.push_back(std::move(ip));
    }
    // Other types, and names too long for the buffer, are skipped.
  }
  if (names.empty()) {
    char buffer[512];
    std::size_t size = sizeof buffer;
    if (gnutls_x509_crt_get_dn_by_oid(cert, GNUTLS_OID_X520_COMMON_NAME, 0, 0, buffer, &size) == 0)
      names.emplace_back(buffer, size);
  }
  return names;
}

// The server's own certificate, for the message: its names and validity.
void describe_leaf(gnutls_session_t session, QuicTlsVerifyFailure& failure) {
  unsigned count = 0;
  const gnutls_datum_t* chain = gnutls_certificate_get_peers(session, &count);
  if (chain == nullptr || count == 0) return;
  gnutls_x509_crt_t cert = nullptr;
  if (gnutls_x509_crt_init(&cert) != 0) return;
  if (gnutls_x509_crt_import(cert, &chain[0], GNUTLS_X509_FMT_DER) == 0) {
    failure.leaf_names = joined_names(certificate_names(cert));
    const time_t activation = gnutls_x509_crt_get_activation_time(cert);
    const time_t expiration = gnutls_x509_crt_get_expiration_time(cert);
    const time_t now = std::time(nullptr);
    failure.not_before = time_text(activation);
    failure.not_after = time_text(expiration);
    failure.leaf_expired = expiration != static_cast<time_t>(-1) && expiration < now;
    failure.leaf_not_yet_valid = activation != static_cast<time_t>(-1) && activation > now;
  }
  gnutls_x509_crt_deinit(cert);
}

unsigned peer_chain_length(gnutls_session_t session) {
  unsigned count = 0;
  return gnutls_certificate_get_peers(session, &count) != nullptr ? count : 0;
}

// Whether the last certificate the server sent names itself as its issuer (a
// self-signed leaf, or a root sent along): OpenSSL's 18 or 19 instead of 20.
bool peer_chain_top_self_issued(gnutls_session_t session) {
  unsigned count = 0;
  const gnutls_datum_t* chain = gnutls_certificate_get_peers(session, &count);
  if (chain == nullptr || count == 0) return false;
  gnutls_x509_crt_t cert = nullptr;
  if (gnutls_x509_crt_init(&cert) != 0) return false;
  const bool self_issued =
      gnutls_x509_crt_import(cert, &chain[count - 1], GNUTLS_X509_FMT_DER) == 0 &&
      gnutls_x509_crt_check_issuer(cert, cert) == 1;
  gnutls_x509_crt_deinit(cert);
  return self_issued;
}

std::string status_text(unsigned status) {
  gnutls_datum_t text{};
  if (gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &text, 0) != 0)
    return "verification status " + std::to_string(status);
  std::string result(reinterpret_cast<const char*>(text.data), text.size);
  gnutls_free(text.data);
  return result;
}

}  // namespace

std::string tls_alert_text(std::uint8_t alert) {
  const char* name = gnutls_alert_get_name(static_cast<gnutls_alert_description_t>(alert));
  std::string text = name != nullptr ? name : "unknown alert";
  return text + " (TLS alert " + std::to_string(alert) + ")";
}

// ---- verification messages --------------------------------------------------

Error describe_quic_verify_failure(const QuicTlsVerifyFailure& failure, const std::string& host) {
  if (!failure.problem.empty())
    return tls_error("cannot verify the certificate of " + host + ": " + failure.problem);
  const unsigned status = failure.status;
  if ((status & (GNUTLS_CERT_SIGNER_NOT_FOUND | GNUTLS_CERT_SIGNER_NOT_CA)) != 0) {
    return tls_error("certificate for " + host +
                     " is not signed by a trusted CA (self-signed or unknown issuer); "
                     "use --cacert FILE to trust its CA");
  }
  if ((status & GNUTLS_CERT_UNEXPECTED_OWNER) != 0) {
    if (failure.leaf_names.empty()) return tls_error("certificate does not match host " + host);
    return tls_error("certificate for " + failure.leaf_names + " does not match host " + host);
  }
  if ((status & GNUTLS_CERT_EXPIRED) != 0) {
    if (failure.leaf_expired && !failure.not_after.empty())
      return tls_error("certificate for " + host + " expired on " + failure.not_after);
    return tls_error("a certificate in the chain for " + host + " has expired");
  }
  if ((status & GNUTLS_CERT_NOT_ACTIVATED) != 0) {
    if (failure.leaf_not_yet_valid && !failure.not_before.empty())
      return tls_error("certificate for " + host + " is not valid until " + failure.not_before +
                       " (is this computer's clock right?)");
    return tls_error("a certificate in the chain for " + host +
                     " is not valid yet (is this computer's clock right?)");
  }
  if ((status & GNUTLS_CERT_REVOKED) != 0)
    return tls_error("certificate for " + host + " was revoked");
  return tls_error("certificate for " + host + " was rejected: " + status_text(status));
}

// ---- QuicTls ----------------------------------------------------------------

QuicTls::QuicTls(std::shared_ptr<const QuicTlsContext> context, std::string host, std::string key)
    : context_(std::move(context)), host_(std::move(host)), key_(std::move(key)) {
  conn_ref_.get_conn = &QuicTls::get_conn;
  conn_ref_.user_data = this;
}

QuicTls::~QuicTls() {
  if (session_ != nullptr) gnutls_deinit(session_);
}

Result<std::unique_ptr<QuicTls>> QuicTls::create(std::shared_ptr<const QuicTlsContext> context,
                                                 const std::string& host, std::uint16_t port) {
  const std::string bare = bare_host(host);
  std::unique_ptr<QuicTls> tls(
      new QuicTls(std::move(context), bare, bare + ":" + std::to_string(port)));
  auto configured = tls->configure();
  if (!configured) return std::move(configured).error();
  return tls;
}

Result<void> QuicTls::configure() {
  // Resumption: the origin's stored session, if any (GnuTLS falls back to a full
  // handshake when the server does not take it). Early data only with the server's
  // transport parameters from then, which bound what may be sent before it answers.
  const QuicSavedSession* saved = context_->tickets().find(key_);
  if (saved != nullptr && saved->session_data.empty()) saved = nullptr;
  if (saved != nullptr && context_->early_data()) early_params_ = saved->transport_params;
  // No EndOfEarlyData message: QUIC ends 0-RTT by itself (RFC 9001 section 8.3).
  unsigned flags = GNUTLS_CLIENT | GNUTLS_NO_END_OF_EARLY_DATA;
  if (!early_params_.empty()) flags |= GNUTLS_ENABLE_EARLY_DATA;
  int rv = gnutls_init(&session_, flags);
  if (rv != 0) return tls_error("cannot create a GnuTLS session: " + gnutls_text(rv));
  rv = gnutls_priority_set_direct(session_, context_->priority().c_str(), nullptr);
  if (rv != 0) return tls_error("GnuTLS rejected the QUIC cipher settings: " + gnutls_text(rv));
  if (ngtcp2_crypto_gnutls_configure_client_session(session_) != 0)
    return tls_error("cannot prepare a GnuTLS session for QUIC");
  gnutls_session_set_ptr(session_, &conn_ref_);
  rv = gnutls_credentials_set(session_, GNUTLS_CRD_CERTIFICATE, context_->credentials());
  if (rv != 0) return tls_error("cannot attach certificates to the session: " + gnutls_text(rv));
  gnutls_datum_t alpn{const_cast<unsigned char*>(kAlpnH3), sizeof kAlpnH3};
  rv = gnutls_alpn_set_protocols(session_, &alpn, 1, GNUTLS_ALPN_MANDATORY);
  if (rv != 0) return tls_error("cannot offer ALPN h3: " + gnutls_text(rv));
  // RFC 6066: no SNI for an address.
  if (!is_ip_literal(host_)) {
    rv = gnutls_server_name_set(session_, GNUTLS_NAME_DNS, host_.data(), host_.size());
    if (rv != 0) return tls_error("cannot set the server name " + host_ + ": " + gnutls_text(rv));
  }
  if (saved != nullptr && gnutls_session_set_data(session_, saved->session_data.data(),
                                                  saved->session_data.size()) != 0) {
    early_params_.clear();  // a stored session GnuTLS will not take is simply not offered
  }
  // Each new ticket is kept for the next connection.
  gnutls_handshake_set_hook_function(session_, GNUTLS_HANDSHAKE_NEW_SESSION_TICKET,
                                     GNUTLS_HOOK_POST, &QuicTls::ticket_hook);
  // Insecure too: the check runs so verify_result() can report it (curl's
  // ssl_verify_result with -k), and only its verdict is ignored.
  gnutls_session_set_verify_function(session_, &QuicTls::verify_trampoline);
  return {};
}

void QuicTls::attach(ngtcp2_conn* conn) noexcept {
  conn_ = conn;
  ngtcp2_conn_set_tls_native_handle(conn, session_);
}

ngtcp2_conn* QuicTls::get_conn(ngtcp2_crypto_conn_ref* ref) noexcept {
  return static_cast<QuicTls*>(ref->user_data)->conn_;
}

int QuicTls::verify_trampoline(gnutls_session_t session) noexcept {
  auto* ref = static_cast<ngtcp2_crypto_conn_ref*>(gnutls_session_get_ptr(session));
  auto* self = static_cast<QuicTls*>(ref->user_data);
  try {
    return self->verify_peer() ? 0 : -1;
  } catch (...) {
    return -1;  // out of memory while describing: reject, never let it unwind GnuTLS
  }
}

bool QuicTls::verify_peer() {
  unsigned status = 0;
  const int rv = gnutls_certificate_verify_peers3(session_, host_.c_str(), &status);
  // The chain's top is parsed only for an unknown issuer, the one code it picks
  // among: a handshake that passed does not pay for it.
  const bool issuer_unknown = (status & GNUTLS_CERT_SIGNER_NOT_FOUND) != 0;
  verify_result_ =
      rv < 0 ? openssl_verify_code(GNUTLS_CERT_INVALID, 0, false)
             : openssl_verify_code(status, peer_chain_length(session_),
                                   issuer_unknown && peer_chain_top_self_issued(session_));
  if (context_->insecure() || (rv == 0 && status == 0)) return check_pin();
  QuicTlsVerifyFailure failure;
  if (rv < 0) {
    failure.problem = gnutls_text(rv);
  } else {
    failure.status = status;
    describe_leaf(session_, failure);
  }
  verify_failure_ = std::move(failure);
  return false;
}

// Called by GnuTLS on the HTTP thread after it processed a NewSessionTicket (TLS
// 1.3 sends them after the handshake): the session data now carries the ticket.
int QuicTls::ticket_hook(gnutls_session_t session, unsigned, unsigned, unsigned,
                         const gnutls_datum_t*) noexcept {
  auto* ref = static_cast<ngtcp2_crypto_conn_ref*>(gnutls_session_get_ptr(session));
  auto* self = static_cast<QuicTls*>(ref->user_data);
  gnutls_datum_t data{};
  if (gnutls_session_get_data2(session, &data) != 0) return 0;
  try {
    self->last_ticket_.assign(reinterpret_cast<const char*>(data.data), data.size);
    self->context_->tickets().store(self->key_,
                                    QuicSavedSession{self->last_ticket_, self->transport_params_});
  } catch (...) {
    // Out of memory: the ticket is not kept; the next connection does a full handshake.
  }
  gnutls_free(data.data);
  return 0;
}

bool QuicTls::note_handshake_done() {
  const bool resumed = gnutls_session_is_resumed(session_) != 0;
  ++(resumed ? context_->tickets().resumed : context_->tickets().full);
  return resumed;
}

void QuicTls::keep_transport_params(std::string params) {
  try {
    transport_params_ = std::move(params);
    // A ticket that came first is stored again, now with its parameters.
    if (!last_ticket_.empty()) {
      context_->tickets().store(key_, QuicSavedSession{last_ticket_, transport_params_});
    }
  } catch (...) {
    // Out of memory: the next connection simply sends nothing early.
  }
}

bool QuicTls::early_data_accepted() const {
  return (gnutls_session_get_flags(session_) & GNUTLS_SFLAGS_EARLY_DATA) != 0;
}

// The leaf's SubjectPublicKeyInfo, hashed as curl's --pinnedpubkey does.
bool QuicTls::check_pin() {
  if (context_->pins().empty()) return true;
  unsigned count = 0;
  const gnutls_datum_t* chain = gnutls_certificate_get_peers(session_, &count);
  std::string spki;
  gnutls_x509_crt_t cert = nullptr;
  gnutls_pubkey_t key = nullptr;
  if (chain != nullptr && count > 0 && gnutls_x509_crt_init(&cert) == 0) {
    if (gnutls_x509_crt_import(cert, &chain[0], GNUTLS_X509_FMT_DER) == 0 &&
        gnutls_pubkey_init(&key) == 0 && gnutls_pubkey_import_x509(key, cert, 0) == 0) {
      gnutls_datum_t der{};
      if (gnutls_pubkey_export2(key, GNUTLS_X509_FMT_DER, &der) == 0) {
        spki.assign(reinterpret_cast<const char*>(der.data), der.size);
        gnutls_free(der.data);
      }
    }
    if (key != nullptr) gnutls_pubkey_deinit(key);
    gnutls_x509_crt_deinit(cert);
  }
  if (spki.empty()) {
    pin_failure_ = Error(ErrorCode::tls_certificate,
                         "TLS: " + host_ + " sent no public key to check against the pinned one");
    return false;
  }
  const std::string pin =
      public_key_pin(std::span(reinterpret_cast<const unsigned char*>(spki.data()), spki.size()));
  auto checked = check_public_key_pin(context_->pins(), pin, host_);
  if (checked) return true;
  pin_failure_ = std::move(checked).error();
  return false;
}

TlsInfo QuicTls::tls_info() const {
  TlsInfo info;
  // GnuTLS says "TLS1.3" where OpenSSL (and curl's -v) says "TLSv1.3".
  const char* version = gnutls_protocol_get_name(gnutls_protocol_get_version(session_));
  const std::string_view name = version != nullptr ? version : "";
  info.version = name.starts_with("TLS") ? "TLSv" + std::string(name.substr(3)) : std::string(name);
  // IANA names, which OpenSSL uses for TLS 1.3 (the only version QUIC carries).
  if (const char* suite = gnutls_ciphersuite_get(session_)) info.cipher = suite;
  info.alpn = selected_alpn();
  info.resumed = gnutls_session_is_resumed(session_) != 0;
  unsigned count = 0;
  const gnutls_datum_t* chain = gnutls_certificate_get_peers(session_, &count);
  if (chain != nullptr && count > 0) {
    info.certificate = describe_certificate_der(std::span(chain[0].data, chain[0].size));
  }
  if (info.certificate) info.matched_name = matched_certificate_name(*info.certificate, host_);
  return info;
}

std::string QuicTls::selected_alpn() const {
  gnutls_datum_t selected{};
  if (gnutls_alpn_get_selected_protocol(session_, &selected) != 0) return {};
  return std::string(reinterpret_cast<const char*>(selected.data), selected.size);
}

Error QuicTls::handshake_error(std::uint8_t alert) const {
  if (verify_failure_) return describe_quic_verify_failure(*verify_failure_, host_);
  if (pin_failure_) return *pin_failure_;
  if (alert != 0)
    return tls_error("QUIC handshake with " + host_ + " failed: " + tls_alert_text(alert));
  return tls_error("QUIC handshake with " + host_ + " failed");
}

}  // namespace sluice
