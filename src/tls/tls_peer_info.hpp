#pragma once
// What a TLS handshake showed of the server (sluice::PeerCertificate, TlsInfo::
// matched_name), read the same way for TCP TLS (OpenSSL's X509) and for QUIC (GnuTLS
// hands over the DER bytes), so -v prints the same lines over every protocol.
// Ownership: free functions over caller-owned values; pure, any thread.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sluice/response.hpp"

struct x509_st;  // OpenSSL's X509

namespace sluice {

/// The certificate's subject, issuer, validity and subjectAltNames; nullopt for a
/// null certificate.
std::optional<PeerCertificate> describe_certificate(const x509_st* certificate);
/// The same from a DER-encoded certificate; nullopt when it does not parse.
std::optional<PeerCertificate> describe_certificate_der(std::span<const unsigned char> der);

/// The subjectAltName `host` matches, without its "DNS:" or "IP Address:" prefix
/// ("localhost", "*.example.org", "127.0.0.1"); "" when none does. RFC 6125's rules as
/// OpenSSL applies them with X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS: ASCII case ignored,
/// a wildcard only as the whole leftmost label of a name with at least two more.
std::string matched_certificate_name(const PeerCertificate& certificate, std::string_view host);

}  // namespace sluice
