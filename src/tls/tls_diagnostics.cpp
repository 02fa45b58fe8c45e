#include "tls/tls_diagnostics.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <vector>

#include "core/message_text.hpp"

namespace sluice {
namespace {

std::string asn1_text(const ASN1_STRING* text) {
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(text)),
                     static_cast<std::size_t>(ASN1_STRING_length(text)));
}

std::string ip_text(const ASN1_OCTET_STRING* bytes) {
  char text[INET6_ADDRSTRLEN] = {};
  const int length = ASN1_STRING_length(bytes);
  const int family = length == 4 ? AF_INET : length == 16 ? AF_INET6 : AF_UNSPEC;
  if (family == AF_UNSPEC) return {};
  if (inet_ntop(family, ASN1_STRING_get0_data(bytes), text, sizeof text) == nullptr) return {};
  return text;
}

std::vector<std::string> subject_alt_names(X509* cert) {
  std::vector<std::string> names;
  auto* general =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (general == nullptr) return names;
  for (int i = 0; i < sk_GENERAL_NAME_num(general); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(general, i);
    std::string text;
    if (name->type == GEN_DNS) text = asn1_text(name->d.dNSName);
    if (name->type == GEN_IPADD) text = ip_text(name->d.iPAddress);
    if (!text.empty()) names.push_back(std::move(text));
  }
  GENERAL_NAMES_free(general);
  return names;
}

std::string common_name(X509* cert) {
  const X509_NAME* subject = X509_get_subject_name(cert);
  const int index = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
  if (index < 0) return {};
  return asn1_text(X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, index)));
}

std::string time_text(const ASN1_TIME* time) {
  std::tm parts{};
  if (time == nullptr || ASN1_TIME_to_tm(time, &parts) != 1) return {};
  char text[32];
  if (std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &parts) == 0) return {};
  return text;
}

std::string subject_text(X509* cert) {
  char text[256] = {};
  X509_NAME_oneline(X509_get_subject_name(cert), text, sizeof text);
  return text;
}

bool is_untrusted_issuer(long code) {
  switch (code) {
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_CERT_UNTRUSTED: return true;
    default: return false;
  }
}

// "certificate for localhost" for the server's own, the issuer's subject otherwise.
std::string whose(const TlsVerifyFailure& failure, const std::string& host) {
  if (failure.depth == 0 || failure.subject.empty()) return "certificate for " + host;
  return "issuer certificate " + failure.subject + " in the chain for " + host;
}

Error certificate_error(std::string message) {
  return Error(ErrorCode::tls_certificate, "TLS: " + message);
}

}  // namespace

std::string certificate_names(X509* cert) {
  if (cert == nullptr) return {};
  std::vector<std::string> names = subject_alt_names(cert);
  if (names.empty()) {
    std::string cn = common_name(cert);
    if (!cn.empty()) names.push_back(std::move(cn));
  }
  return joined_names(names);
}

TlsVerifyFailure capture_verify_failure(X509_STORE_CTX* store) {
  TlsVerifyFailure failure;
  failure.code = X509_STORE_CTX_get_error(store);
  failure.depth = X509_STORE_CTX_get_error_depth(store);
  X509* leaf = X509_STORE_CTX_get0_cert(store);
  X509* rejected = X509_STORE_CTX_get_current_cert(store);
  if (rejected == nullptr) rejected = leaf;
  failure.leaf_names = certificate_names(leaf);
  if (rejected != nullptr) {
    failure.subject = subject_text(rejected);
    failure.not_before = time_text(X509_get0_notBefore(rejected));
    failure.not_after = time_text(X509_get0_notAfter(rejected));
  }
  return failure;
}

Error describe_verify_failure(const TlsVerifyFailure& failure, const std::string& host) {
  const long code = failure.code;
  if (code == X509_V_ERR_HOSTNAME_MISMATCH || code == X509_V_ERR_IP_ADDRESS_MISMATCH) {
    if (failure.leaf_names.empty())
      return certificate_error("certificate does not match host " + host);
    return certificate_error("certificate for " + failure.leaf_names + " does not match host " +
                             host);
  }
  if (code == X509_V_ERR_CERT_HAS_EXPIRED) {
    if (failure.not_after.empty()) return certificate_error(whose(failure, host) + " has expired");
    return certificate_error(whose(failure, host) + " expired on " + failure.not_after);
  }
  if (code == X509_V_ERR_CERT_NOT_YET_VALID) {
    return certificate_error(whose(failure, host) + " is not valid until " + failure.not_before +
                             " (is this computer's clock right?)");
  }
  if (is_untrusted_issuer(code)) {
    return certificate_error("certificate for " + host +
                             " is not signed by a trusted CA (self-signed or unknown issuer); "
                             "use --cacert FILE to trust its CA");
  }
  return certificate_error(whose(failure, host) +
                           " was rejected: " + X509_verify_cert_error_string(code));
}

std::string openssl_error_text(const char* fallback) {
  const unsigned long code = ERR_peek_last_error();
  const char* reason = code != 0 ? ERR_reason_error_string(code) : nullptr;
  return reason != nullptr ? reason : fallback;
}

std::string client_certificate_hint(unsigned long code, bool has_cert) {
  if (code == 0 || ERR_GET_LIB(code) != ERR_LIB_SSL) return {};
  const int reason = ERR_GET_REASON(code);
  if (reason != SSL_R_SSLV3_ALERT_BAD_CERTIFICATE &&
      reason != SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED)
    return {};
  return has_cert ? " (the server rejected the client certificate)"
                  : " (the server requires a client certificate: --cert FILE)";
}

std::string handshake_failure_reason(int ssl_error, int saved_errno, bool has_cert) {
  const unsigned long code = ERR_peek_last_error();
  const bool ssl_lib = code != 0 && ERR_GET_LIB(code) == ERR_LIB_SSL;
  if (ssl_error == SSL_ERROR_ZERO_RETURN ||
      (ssl_error == SSL_ERROR_SYSCALL && code == 0 && saved_errno == 0) ||
      (ssl_lib && ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING))
    return "connection closed by peer";
  if (ssl_error == SSL_ERROR_SYSCALL && code == 0) {
    if (saved_errno == ECONNRESET) return "connection reset by peer";
    return std::strerror(saved_errno);
  }
  if (ssl_lib && ERR_GET_REASON(code) == SSL_R_WRONG_VERSION_NUMBER)
    return "the server did not answer in TLS (wrong version number); is the port plain HTTP?";
  return openssl_error_text("unknown OpenSSL error") + client_certificate_hint(code, has_cert);
}

}  // namespace sluice
