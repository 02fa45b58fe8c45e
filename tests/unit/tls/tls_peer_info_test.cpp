// PeerCertificate from a real certificate (the generated test ones), and the name a
// host matches in it, as -v shows them over TCP TLS and QUIC alike.

#include "tls/tls_peer_info.hpp"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "support/test_certs.hpp"

namespace sluice {
namespace {

std::vector<unsigned char> der_of(const std::string& pem_file) {
  std::unique_ptr<std::FILE, decltype(&std::fclose)> file(std::fopen(pem_file.c_str(), "r"),
                                                          std::fclose);
  EXPECT_TRUE(file) << pem_file;
  if (!file) return {};
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      PEM_read_X509(file.get(), nullptr, nullptr, nullptr), X509_free);
  unsigned char* der = nullptr;
  const int length = i2d_X509(cert.get(), &der);
  std::vector<unsigned char> bytes(der, der + (length > 0 ? length : 0));
  OPENSSL_free(der);
  return bytes;
}

PeerCertificate with_names(std::vector<std::string> names) {
  PeerCertificate cert;
  cert.subject_alt_names = std::move(names);
  return cert;
}

TEST(TlsPeerInfo, DescribesSubjectIssuerValidityAndNames) {
  const auto der = der_of(test::test_certs().server_cert);
  auto cert = describe_certificate_der(der);
  ASSERT_TRUE(cert.has_value());
  EXPECT_EQ(cert->subject, "O=sluice tests; CN=localhost");
  EXPECT_NE(cert->issuer.find("CN="), std::string::npos) << cert->issuer;
  EXPECT_NE(cert->issuer, cert->subject);
  const auto now = std::chrono::system_clock::now();
  EXPECT_LT(cert->not_before, now);
  EXPECT_GT(cert->not_after, now);
  EXPECT_EQ(cert->subject_alt_names,
            (std::vector<std::string>{"DNS:localhost", "IP Address:127.0.0.1", "IP Address:::1"}));
}

TEST(TlsPeerInfo, GarbageIsNoCertificate) {
  const std::vector<unsigned char> junk{0x30, 0x03, 0x01, 0x02};
  EXPECT_FALSE(describe_certificate_der(junk).has_value());
  EXPECT_FALSE(describe_certificate(nullptr).has_value());
}

TEST(TlsPeerInfo, HostMatchesExactNamesIgnoringCase) {
  const auto cert = with_names({"DNS:other.example", "DNS:LocalHost"});
  EXPECT_EQ(matched_certificate_name(cert, "localhost"), "LocalHost");
  EXPECT_EQ(matched_certificate_name(cert, "nowhere"), "");
}

TEST(TlsPeerInfo, WildcardCoversOneWholeLeftmostLabel) {
  const auto cert = with_names({"DNS:*.example.org"});
  EXPECT_EQ(matched_certificate_name(cert, "www.example.org"), "*.example.org");
  EXPECT_EQ(matched_certificate_name(cert, "a.b.example.org"), "");
  EXPECT_EQ(matched_certificate_name(cert, "example.org"), "");
  EXPECT_EQ(matched_certificate_name(with_names({"DNS:*.org"}), "example.org"), "")
      << "a wildcard over a top-level domain names no one host";
}

TEST(TlsPeerInfo, AddressesMatchOnlyAddressEntries) {
  const auto cert = with_names({"DNS:127.0.0.1", "IP Address:127.0.0.1", "IP Address:::1"});
  EXPECT_EQ(matched_certificate_name(cert, "127.0.0.1"), "127.0.0.1");
  EXPECT_EQ(matched_certificate_name(cert, "::1"), "::1");
  EXPECT_EQ(matched_certificate_name(with_names({"DNS:127.0.0.1"}), "127.0.0.1"), "");
}

}  // namespace
}  // namespace sluice
