// -v's TLS lines from a Response's TlsInfo, in curl 7.88's words.
#include "cli/output/verbose_tls.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace sluice::cli {
namespace {

using std::chrono::system_clock;

// 2026-12-07 13:16:38 UTC and 2027-01-06 13:16:38 UTC.
constexpr std::int64_t kStart = 1796649398;
constexpr std::int64_t kEnd = 1799241398;

ResponseHead with_tls() {
  ResponseHead head;
  TlsInfo tls;
  tls.version = "TLSv1.3";
  tls.cipher = "TLS_AES_256_GCM_SHA384";
  tls.alpn = "h2";
  PeerCertificate cert;
  cert.subject = "CN=localhost";
  cert.issuer = "CN=sluice test CA";
  cert.not_before = system_clock::time_point(std::chrono::seconds(kStart));
  cert.not_after = system_clock::time_point(std::chrono::seconds(kEnd));
  cert.subject_alt_names = {"DNS:localhost"};
  tls.certificate = cert;
  tls.matched_name = "localhost";
  head.tls = tls;
  return head;
}

TEST(VerboseTls, CertificateDatesReadAsOpenSslPrintsThem) {
  EXPECT_EQ(certificate_date(system_clock::time_point(std::chrono::seconds(kStart))),
            "Dec  7 13:16:38 2026 GMT");
  EXPECT_EQ(certificate_date(system_clock::time_point(std::chrono::seconds(kEnd))),
            "Jan  6 13:16:38 2027 GMT");
}

TEST(VerboseTls, LinesAreCurls) {
  EXPECT_EQ(describe_tls(with_tls(), "localhost"),
            "* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384\n"
            "* ALPN: server accepted h2\n"
            "* Server certificate:\n"
            "*  subject: CN=localhost\n"
            "*  start date: Dec  7 13:16:38 2026 GMT\n"
            "*  expire date: Jan  6 13:16:38 2027 GMT\n"
            "*  subjectAltName: host \"localhost\" matched cert's \"localhost\"\n"
            "*  issuer: CN=sluice test CA\n"
            "*  SSL certificate verify ok.\n");
}

// A certificate is the server's text (any certificate, under -k): its control
// characters are shown as '?', never sent to the terminal.
TEST(VerboseTls, ControlCharactersOfTheCertificateAreNotPrinted) {
  ResponseHead head = with_tls();
  head.tls->certificate->subject = "CN=a\x1b[2Jb";
  head.tls->certificate->issuer = "CN=\r\nfake";
  const std::string lines = describe_tls(head, "localhost");
  EXPECT_NE(lines.find("*  subject: CN=a?[2Jb\n"), std::string::npos) << lines;
  EXPECT_NE(lines.find("*  issuer: CN=??fake\n"), std::string::npos) << lines;
}

TEST(VerboseTls, InsecureRunSaysWhyTheCheckFailed) {
  ResponseHead head = with_tls();
  head.tls_verify_result = 19;
  head.tls->matched_name.clear();
  const std::string lines = describe_tls(head, "127.0.0.2");
  EXPECT_NE(lines.find("*  subjectAltName does not match 127.0.0.2\n"), std::string::npos) << lines;
  EXPECT_NE(lines.find("*  SSL certificate verify result: self-signed certificate in certificate "
                       "chain (19), continuing anyway.\n"),
            std::string::npos)
      << lines;
}

TEST(VerboseTls, ResumedSessionWithoutCertificateSaysSo) {
  ResponseHead head = with_tls();
  head.tls->resumed = true;
  head.tls->certificate.reset();
  head.tls->alpn = "h3";
  EXPECT_EQ(describe_tls(head, "localhost"),
            "* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384 (session resumed)\n"
            "* ALPN: server accepted h3\n"
            "* Server certificate: not sent (the session was resumed)\n");
}

TEST(VerboseTls, NothingWithoutTlsOrOnAReusedConnection) {
  EXPECT_EQ(describe_tls(ResponseHead{}, "localhost"), "");
  ResponseHead reused = with_tls();
  reused.timing.connection_reused = true;
  EXPECT_EQ(describe_tls(reused, "localhost"), "");
}

}  // namespace
}  // namespace sluice::cli
