#include "cli/output/verbose_tls.hpp"

#include <cstdio>
#include <ctime>

#include "cli/output/progress_format.hpp"

namespace sluice::cli {
namespace {

// OpenSSL's words for the verify results a user meets (X509_verify_cert_error_string);
// the rest are shown by number.
std::string verify_reason(long code) {
  switch (code) {
    case 10: return "certificate has expired";
    case 9: return "certificate is not yet valid";
    case 18: return "self-signed certificate";
    case 19: return "self-signed certificate in certificate chain";
    case 20: return "unable to get local issuer certificate";
    case 21: return "unable to verify the first certificate";
    case 62: return "hostname mismatch";
    default: return "error " + std::to_string(code);
  }
}

void add(std::string& out, std::string_view line) { out.append("* ").append(line).append("\n"); }

void describe_certificate(std::string& out, const TlsInfo& tls, const ResponseHead& response,
                          std::string_view host) {
  if (!tls.certificate) {
    add(out, "Server certificate: not sent (the session was resumed)");
    return;
  }
  const PeerCertificate& cert = *tls.certificate;
  add(out, "Server certificate:");
  // The certificate's text is the server's: an ESC in it must not reach the terminal.
  add(out, " subject: " + sanitize_name(cert.subject));
  add(out, " start date: " + certificate_date(cert.not_before));
  add(out, " expire date: " + certificate_date(cert.not_after));
  if (!tls.matched_name.empty()) {
    add(out, " subjectAltName: host \"" + std::string(host) + "\" matched cert's \"" +
                 sanitize_name(tls.matched_name) + "\"");
  } else {
    add(out, " subjectAltName does not match " + std::string(host));
  }
  add(out, " issuer: " + sanitize_name(cert.issuer));
  if (response.tls_verify_result == 0) {
    add(out, " SSL certificate verify ok.");
  } else {
    add(out, " SSL certificate verify result: " + verify_reason(response.tls_verify_result) + " (" +
                 std::to_string(response.tls_verify_result) + "), continuing anyway.");
  }
}

}  // namespace

std::string certificate_date(std::chrono::system_clock::time_point at) {
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::time_t seconds = std::chrono::system_clock::to_time_t(at);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::snprintf(text, sizeof text, "%s %2d %02d:%02d:%02d %d GMT", kMonths[utc.tm_mon % 12],
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, utc.tm_year + 1900);
  return text;
}

std::string describe_tls(const ResponseHead& response, std::string_view host) {
  if (!response.tls || response.timing.connection_reused) return {};
  const TlsInfo& tls = *response.tls;
  std::string out;
  add(out, "SSL connection using " + tls.version + " / " + tls.cipher +
               (tls.resumed ? " (session resumed)" : ""));
  if (tls.alpn.empty()) {
    add(out, "ALPN: server did not agree on a protocol. Uses default.");
  } else {
    add(out, "ALPN: server accepted " + tls.alpn);
  }
  describe_certificate(out, tls, response, host);
  return out;
}

}  // namespace sluice::cli
