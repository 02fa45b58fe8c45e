#pragma once
// The result of GnuTLS's certificate check as the number OpenSSL's
// SSL_get_verify_result gives for the same fault (X509_V_ERR_*), so curl's
// %{ssl_verify_result} means the same over HTTP/3 (GnuTLS) as over HTTP/1.1 and
// HTTP/2 (OpenSSL). Pure; any thread.

namespace sluice {

/// `status`: the gnutls_certificate_status_t bits from gnutls_certificate_verify_peers3
/// (0: trusted). `chain_length`: certificates the server sent; `top_self_issued`:
/// whether the last of them names itself as its issuer. When several bits are set,
/// the one OpenSSL meets first while building the chain wins (the issuer, then the
/// signature, the dates, revocation, the name).
long openssl_verify_code(unsigned status, unsigned chain_length, bool top_self_issued) noexcept;

}  // namespace sluice
