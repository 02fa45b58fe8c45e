#pragma once
// -v's account of a TLS handshake, in the lines curl 7.88 prints over OpenSSL
// ("* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384", "* ALPN: server
// accepted h2", "* Server certificate:" and its subject, dates, subjectAltName match,
// issuer and verify result), built from Response::tls.
// Ownership: pure functions returning text; the caller prints it (main thread).

#include <chrono>
#include <string>
#include <string_view>

#include "sluice/response.hpp"

namespace sluice::cli {

/// The lines for the response's connection when it was made for this response (a
/// reused one was described when it was made, as in curl); "" without TLS. `host` is
/// the name the certificate was checked against (the URL's, in ASCII form).
std::string describe_tls(const ResponseHead& response, std::string_view host);

/// "Dec  7 13:16:38 2026 GMT": OpenSSL's ASN1_TIME_print form that curl shows.
std::string certificate_date(std::chrono::system_clock::time_point at);

}  // namespace sluice::cli
