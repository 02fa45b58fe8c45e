// The TLS options of ClientOptions against the real servers of the ctest fixture:
// client certificates (nginx with ssl_verify_client on), --capath, public key pins,
// versions and ciphers, the key log, and session resumption per origin (nginx with
// one request per connection), over HTTP/1.1, HTTP/2 and, where it applies, HTTP/3.
#include <gtest/gtest.h>

#include <unistd.h>
#include <fstream>
#include <sstream>

#include "sluice/sluice.hpp"
#include "support/fetch_all.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using test::fetch_all;

Request get(const std::string& url, VersionPolicy version) {
  Request request = Request::get(url);
  request.version = version;
  return request;
}

bool mentions(const Error& error, const std::string& text) {
  return error.message().find(text) != std::string::npos;
}

// ---- over TCP: h1 and h2 ----------------------------------------------------

class ClientTlsOptions : public ::testing::TestWithParam<VersionPolicy> {
 protected:
  ClientOptions trusting() const {
    ClientOptions options;
    options.tls.ca_file = env_.get("SLUICE_TEST_CA");
    return options;
  }
  ClientOptions with_client_cert() const {
    ClientOptions options = trusting();
    options.tls.client_cert = env_.get("SLUICE_CLIENT_CERT");
    options.tls.client_key = env_.get("SLUICE_CLIENT_KEY");
    return options;
  }
  Request mtls(const std::string& path) const {
    return get(env_.get("SLUICE_NGINX_MTLS_URL") + path, GetParam());
  }
  Request oneshot(const std::string& path) const {
    return get(env_.get("SLUICE_NGINX_ONESHOT_URL") + path, GetParam());
  }
  HttpVersion expected_version() const {
    return GetParam() == VersionPolicy::http1_only ? HttpVersion::http1_1 : HttpVersion::http2;
  }
  test::TestEnv env_;
};

TEST_P(ClientTlsOptions, ClientCertificateIsAcceptedByMutualTls) {
  auto client = Client::create(with_client_cert());
  ASSERT_TRUE(client.ok()) << client.error().message();
  auto fetched = fetch_all(*client, mtls("/whoami"));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->status, 200);
  EXPECT_EQ(fetched->body, "CN=sluice test client\n");
  EXPECT_EQ(fetched->version, expected_version());
}

TEST_P(ClientTlsOptions, WithoutAClientCertificateMutualTlsRefuses) {
  auto client = Client::create(trusting());
  ASSERT_TRUE(client.ok()) << client.error().message();
  auto fetched = fetch_all(*client, mtls("/small.txt"));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  // nginx completes the handshake and refuses the request, as it does for curl.
  EXPECT_EQ(fetched->status, 400);
  EXPECT_NE(fetched->body.find("No required SSL certificate was sent"), std::string::npos)
      << fetched->body;
}

TEST_P(ClientTlsOptions, CertificateAndKeyInOneFileWork) {
  ClientOptions options = trusting();
  options.tls.client_cert = env_.get("SLUICE_CLIENT_COMBINED");
  auto client = Client::create(options);
  ASSERT_TRUE(client.ok()) << client.error().message();
  auto fetched = fetch_all(*client, mtls("/whoami"));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->body, "CN=sluice test client\n");
}

TEST_P(ClientTlsOptions, EncryptedKeyWorksWithItsPassphrase) {
  ClientOptions options = with_client_cert();
  options.tls.client_key = env_.get("SLUICE_CLIENT_KEY_ENCRYPTED");
  options.tls.key_password = env_.get("SLUICE_CLIENT_KEY_PASSPHRASE");
  auto client = Client::create(options);
  ASSERT_TRUE(client.ok()) << client.error().message();
  auto fetched = fetch_all(*client, mtls("/whoami"));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->body, "CN=sluice test client\n");
}

TEST_P(ClientTlsOptions, SecondConnectionToAnOriginResumesTheSession) {
  auto client = Client::create(trusting());
  ASSERT_TRUE(client.ok()) << client.error().message();
  for (int i = 0; i < 3; ++i) {
    auto fetched = fetch_all(*client, oneshot("/small.txt"));
    ASSERT_TRUE(fetched.ok()) << fetched.error().message();
    EXPECT_EQ(fetched->status, 200);
    EXPECT_EQ(fetched->version, expected_version());
  }
  // The server allows one request per connection: three connections, the first
  // with a full handshake, the others resuming its session (or a later ticket).
  const ClientStats stats = client->stats();
  EXPECT_EQ(stats.tls_full_handshakes, 1u);
  EXPECT_EQ(stats.tls_resumed_handshakes, 2u);
  EXPECT_GT(stats.tls_handshake_cpu_ns, 0u);  // three handshakes cannot cost nothing
}

TEST_P(ClientTlsOptions, WithoutTheSessionCacheEveryHandshakeIsFull) {
  ClientOptions options = trusting();
  options.tls.session_cache = false;
  auto client = Client::create(options);
  ASSERT_TRUE(client.ok()) << client.error().message();
  for (int i = 0; i < 2; ++i) {
    auto fetched = fetch_all(*client, oneshot("/small.txt"));
    ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  }
  const ClientStats stats = client->stats();
  EXPECT_EQ(stats.tls_full_handshakes, 2u);
  EXPECT_EQ(stats.tls_resumed_handshakes, 0u);
}

TEST_P(ClientTlsOptions, CaPathIsTrusted) {
  ClientOptions options;
  options.tls.ca_path = env_.get("SLUICE_TEST_CAPATH");
  auto client = Client::create(options);
  ASSERT_TRUE(client.ok()) << client.error().message();
  auto fetched = fetch_all(*client, oneshot("/small.txt"));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->status, 200);
}

TEST_P(ClientTlsOptions, MatchingPinIsAccepted) {
  for (const std::string& pin : {env_.get("SLUICE_SERVER_PUBKEY_PIN"),
                                 "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=;" +
                                     env_.get("SLUICE_SERVER_PUBKEY_PIN"),
                                 env_.get("SLUICE_SERVER_PUBKEY")}) {
    ClientOptions options = trusting();
    options.tls.pinned_public_key = pin;
    auto client = Client::create(options);
    ASSERT_TRUE(client.ok()) << client.error().message();
    auto fetched = fetch_all(*client, oneshot("/small.txt"));
    ASSERT_TRUE(fetched.ok()) << pin << ": " << fetched.error().message();
  }
}

TEST_P(ClientTlsOptions, PinMismatchNamesBothPinsEvenWhenInsecure) {
  ClientOptions options;
  options.tls.insecure = true;
  const std::string wrong = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
  options.tls.pinned_public_key = wrong;
  auto client = Client::create(options);
  ASSERT_TRUE(client.ok()) << client.error().message();
  auto fetched = fetch_all(*client, oneshot("/small.txt"));
  ASSERT_FALSE(fetched.ok());
  EXPECT_EQ(fetched.error().code(), ErrorCode::tls_pinned_key);
  EXPECT_TRUE(mentions(fetched.error(), wrong)) << fetched.error().message();
  EXPECT_TRUE(mentions(fetched.error(), env_.get("SLUICE_SERVER_PUBKEY_PIN")))
      << fetched.error().message();
}

TEST_P(ClientTlsOptions, Tls12CipherListAppliesWhenTls12IsTheMaximum) {
  // The server's key is ECDSA: an RSA-only TLS 1.2 list leaves nothing in common,
  // which proves both the list and the version bound reached the handshake.
  ClientOptions options = trusting();
  options.tls.max_version = TlsVersion::v1_2;
  options.tls.tls12_ciphers = "ECDHE-RSA-AES128-GCM-SHA256";
  auto client = Client::create(options);
  ASSERT_TRUE(client.ok()) << client.error().message();
  auto refused = fetch_all(*client, oneshot("/small.txt"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().category(), ErrorCategory::tls) << refused.error().message();

  options.tls.tls12_ciphers = "ECDHE-ECDSA-AES128-GCM-SHA256";
  auto matching = Client::create(options);
  ASSERT_TRUE(matching.ok()) << matching.error().message();
  auto fetched = fetch_all(*matching, oneshot("/small.txt"));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();

  // Without the maximum, TLS 1.3 is chosen and the 1.2 list does not matter.
  options.tls.max_version = TlsVersion::v1_3;
  options.tls.tls12_ciphers = "ECDHE-RSA-AES128-GCM-SHA256";
  auto tls13 = Client::create(options);
  ASSERT_TRUE(tls13.ok()) << tls13.error().message();
  auto over13 = fetch_all(*tls13, oneshot("/small.txt"));
  ASSERT_TRUE(over13.ok()) << over13.error().message();
}

TEST_P(ClientTlsOptions, KeyLogFileGetsTheSecrets) {
  const std::string path = "/tmp/sluice-keylog-" + std::to_string(::getpid()) + ".txt";
  ::unlink(path.c_str());
  {
    ClientOptions options = trusting();
    options.tls.key_log_file = path;
    auto client = Client::create(options);
    ASSERT_TRUE(client.ok()) << client.error().message();
    auto fetched = fetch_all(*client, oneshot("/small.txt"));
    ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  }
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  ::unlink(path.c_str());
  EXPECT_NE(text.str().find("CLIENT_TRAFFIC_SECRET_0 "), std::string::npos) << text.str();
}

INSTANTIATE_TEST_SUITE_P(Versions, ClientTlsOptions,
                         ::testing::Values(VersionPolicy::http1_only, VersionPolicy::automatic),
                         [](const auto& param_info) {
                           return param_info.param == VersionPolicy::http1_only ? "h1" : "h2";
                         });

// ---- Client::create refuses unusable settings, naming the file --------------

class ClientTlsOptionErrors : public ::testing::Test {
 protected:
  Error create_error(const ClientOptions& options) {
    auto client = Client::create(options);
    EXPECT_FALSE(client.ok());
    return client.ok() ? Error(ErrorCategory::usage, "") : client.error();
  }
  test::TestEnv env_;
};

TEST_F(ClientTlsOptionErrors, MissingCertificateFileIsNamed) {
  ClientOptions options;
  options.tls.client_cert = "/nonexistent/client.pem";
  const Error error = create_error(options);
  EXPECT_TRUE(mentions(error, "/nonexistent/client.pem")) << error.message();
  EXPECT_TRUE(mentions(error, "No such file")) << error.message();
}

TEST_F(ClientTlsOptionErrors, WrongPassphraseNamesTheKey) {
  ClientOptions options;
  options.tls.client_cert = env_.get("SLUICE_CLIENT_CERT");
  options.tls.client_key = env_.get("SLUICE_CLIENT_KEY_ENCRYPTED");
  options.tls.key_password = "not the passphrase";
  const Error error = create_error(options);
  EXPECT_TRUE(mentions(error, "wrong passphrase")) << error.message();
  EXPECT_TRUE(mentions(error, options.tls.client_key)) << error.message();
}

TEST_F(ClientTlsOptionErrors, EncryptedKeyWithoutPassphraseSaysSo) {
  ClientOptions options;
  options.tls.client_cert = env_.get("SLUICE_CLIENT_CERT");
  options.tls.client_key = env_.get("SLUICE_CLIENT_KEY_ENCRYPTED");
  const Error error = create_error(options);
  EXPECT_TRUE(mentions(error, "is encrypted")) << error.message();
  EXPECT_TRUE(mentions(error, "--pass")) << error.message();
}

TEST_F(ClientTlsOptionErrors, CertificateWithoutKeyAsksForOne) {
  ClientOptions options;
  options.tls.client_cert = env_.get("SLUICE_CLIENT_CERT");
  const Error error = create_error(options);
  EXPECT_TRUE(mentions(error, options.tls.client_cert)) << error.message();
  EXPECT_TRUE(mentions(error, "--key")) << error.message();
}

TEST_F(ClientTlsOptionErrors, KeyOfAnotherCertificateIsRefused) {
  ClientOptions options;
  options.tls.client_cert = env_.get("SLUICE_CLIENT_CERT");
  options.tls.client_key = env_.get("SLUICE_TEST_CA");  // a certificate, no key at all
  const Error error = create_error(options);
  EXPECT_TRUE(mentions(error, options.tls.client_key)) << error.message();
}

TEST_F(ClientTlsOptionErrors, BadSettingsAreRefused) {
  ClientOptions pin;
  pin.tls.pinned_public_key = "sha256//short";
  EXPECT_TRUE(mentions(create_error(pin), "sha256//short"));
  ClientOptions pin_file;
  pin_file.tls.pinned_public_key = "/nonexistent/key.pem";
  EXPECT_TRUE(mentions(create_error(pin_file), "/nonexistent/key.pem"));
  ClientOptions capath;
  capath.tls.ca_path = "/nonexistent/certs";
  EXPECT_TRUE(mentions(create_error(capath), "/nonexistent/certs"));
  ClientOptions ciphers;
  ciphers.tls.tls12_ciphers = "NO-SUCH-CIPHER";
  EXPECT_TRUE(mentions(create_error(ciphers), "NO-SUCH-CIPHER"));
  ClientOptions suites;
  suites.tls.tls13_ciphers = "TLS_NO_SUCH_SUITE";
  EXPECT_TRUE(mentions(create_error(suites), "TLS_NO_SUCH_SUITE"));
  ClientOptions versions;
  versions.tls.min_version = TlsVersion::v1_3;
  versions.tls.max_version = TlsVersion::v1_2;
  EXPECT_TRUE(mentions(create_error(versions), "minimum"));
}

// ---- HTTP/3: GnuTLS honours what it can, the rest is refused or falls back ----

class ClientTlsOptionsH3 : public ::testing::Test {
 protected:
  Request h3_only(const std::string& path) const {
    return get(env_.get("SLUICE_GTLSSERVER_URL") + path, VersionPolicy::http3_only);
  }
  test::TestEnv env_;
};

TEST_F(ClientTlsOptionsH3, PinsAreCheckedOverQuic) {
  ClientOptions options;
  options.tls.ca_file = env_.get("SLUICE_TEST_CA");
  options.tls.pinned_public_key = env_.get("SLUICE_SERVER_PUBKEY_PIN");
  auto client = Client::create(options);
  ASSERT_TRUE(client.ok()) << client.error().message();
  auto fetched = fetch_all(*client, h3_only("/small.txt"));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->version, HttpVersion::http3);

  const std::string wrong = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
  options.tls.pinned_public_key = wrong;
  auto pinned = Client::create(options);
  ASSERT_TRUE(pinned.ok()) << pinned.error().message();
  auto refused = fetch_all(*pinned, h3_only("/small.txt"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), ErrorCode::tls_pinned_key) << refused.error().message();
  EXPECT_TRUE(mentions(refused.error(), wrong)) << refused.error().message();
  EXPECT_TRUE(mentions(refused.error(), env_.get("SLUICE_SERVER_PUBKEY_PIN")))
      << refused.error().message();
}

TEST_F(ClientTlsOptionsH3, CaPathIsTrustedOverQuic) {
  ClientOptions options;
  options.tls.ca_path = env_.get("SLUICE_TEST_CAPATH");
  auto client = Client::create(options);
  ASSERT_TRUE(client.ok()) << client.error().message();
  auto fetched = fetch_all(*client, h3_only("/small.txt"));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->version, HttpVersion::http3);
}

TEST_F(ClientTlsOptionsH3, Tls13CipherSuitesApplyToQuic) {
  ClientOptions options;
  options.tls.ca_file = env_.get("SLUICE_TEST_CA");
  options.tls.tls13_ciphers = "TLS_CHACHA20_POLY1305_SHA256";
  auto client = Client::create(options);
  ASSERT_TRUE(client.ok()) << client.error().message();
  auto fetched = fetch_all(*client, h3_only("/small.txt"));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->version, HttpVersion::http3);
}

TEST_F(ClientTlsOptionsH3, SecondQuicConnectionResumesTheSession) {
  for (const bool cache : {true, false}) {
    ClientOptions options;
    options.tls.ca_file = env_.get("SLUICE_TEST_CA");
    options.tls.session_cache = cache;
    // The idle connection closes soon after each request, so the next opens another.
    options.pool.idle_timeout = std::chrono::milliseconds(20);
    auto client = Client::create(options);
    ASSERT_TRUE(client.ok()) << client.error().message();
    for (int i = 0; i < 2; ++i) {
      // One server instance: a ticket resumes only where it was issued.
      auto fetched = fetch_all(*client, get(env_.get("SLUICE_GTLSSERVER_V4_URL") + "/small.txt",
                                            VersionPolicy::http3_only));
      ASSERT_TRUE(fetched.ok()) << fetched.error().message();
      EXPECT_EQ(fetched->version, HttpVersion::http3);
      // Waits for the event (the pool closed the idle connection), not for a time.
      ASSERT_TRUE(test::eventually([&] { return client->stats().connections == 0; }))
          << "the pool kept its idle connection";
    }
    const ClientStats stats = client->stats();
    EXPECT_EQ(stats.quic_full_handshakes, cache ? 1u : 2u) << "cache " << cache;
    EXPECT_EQ(stats.quic_resumed_handshakes, cache ? 1u : 0u) << "cache " << cache;
  }
}

TEST_F(ClientTlsOptionsH3, ClientCertificateOpensMutualTlsOverEveryVersion) {
  // caddy's mTLS site refuses the handshake itself without a certificate, over
  // QUIC too (TLS alert 42); with one, every version gets the file.
  const std::string url = env_.get("SLUICE_CADDY_MTLS_URL") + "/small.txt";
  ClientOptions options;
  options.tls.ca_file = env_.get("SLUICE_TEST_CA");
  auto anonymous = Client::create(options);
  ASSERT_TRUE(anonymous.ok()) << anonymous.error().message();
  options.tls.client_cert = env_.get("SLUICE_CLIENT_COMBINED");
  auto client = Client::create(options);
  ASSERT_TRUE(client.ok()) << client.error().message();
  for (const VersionPolicy version :
       {VersionPolicy::http1_only, VersionPolicy::http2, VersionPolicy::http3_only}) {
    auto fetched = fetch_all(*client, get(url, version));
    ASSERT_TRUE(fetched.ok()) << fetched.error().message();
    // caddy 2.6 accepts the certificate in the QUIC handshake, then answers 421
    // Misdirected Request to HTTP/3 requests on its client-auth site (with or
    // without resumption); the handshake is what this test is about.
    EXPECT_EQ(fetched->status, version == VersionPolicy::http3_only ? 421 : 200);
    EXPECT_EQ(fetched->version, version == VersionPolicy::http1_only ? HttpVersion::http1_1
                                : version == VersionPolicy::http2    ? HttpVersion::http2
                                                                     : HttpVersion::http3);
    auto refused = fetch_all(*anonymous, get(url, version));
    ASSERT_FALSE(refused.ok()) << "no certificate, yet an answer";
  }
  auto over_h1 = fetch_all(*anonymous, get(url, VersionPolicy::http1_only));
  ASSERT_FALSE(over_h1.ok());
  EXPECT_EQ(over_h1.error().category(), ErrorCategory::tls) << over_h1.error().message();
  EXPECT_TRUE(mentions(over_h1.error(), "requires a client certificate"))
      << over_h1.error().message();
  // Over HTTP/2 the client writes its preface before it reads the alert; the error
  // still carries it.
  auto over_h2 = fetch_all(*anonymous, get(url, VersionPolicy::http2));
  ASSERT_FALSE(over_h2.ok());
  EXPECT_EQ(over_h2.error().category(), ErrorCategory::tls) << over_h2.error().message();
  EXPECT_TRUE(mentions(over_h2.error(), "requires a client certificate"))
      << over_h2.error().message();
  auto over_h3 = fetch_all(*anonymous, get(url, VersionPolicy::http3_only));
  ASSERT_FALSE(over_h3.ok());
  EXPECT_TRUE(mentions(over_h3.error(), "TLS alert 42")) << over_h3.error().message();
}

TEST_F(ClientTlsOptionsH3, TlsMaximumOf12RefusesHttp3Only) {
  ClientOptions options;
  options.tls.ca_file = env_.get("SLUICE_TEST_CA");
  options.tls.max_version = TlsVersion::v1_2;
  auto client = Client::create(options);
  ASSERT_TRUE(client.ok()) << client.error().message();
  auto fetched = fetch_all(*client, h3_only("/small.txt"));
  ASSERT_FALSE(fetched.ok());
  EXPECT_TRUE(mentions(fetched.error(), "HTTP/3 needs TLS 1.3")) << fetched.error().message();
}

TEST_F(ClientTlsOptionsH3, TlsMaximumOf12UsesTcpWhereFallbackIsAllowed) {
  ClientOptions options;
  options.tls.ca_file = env_.get("SLUICE_TEST_CA");
  options.tls.max_version = TlsVersion::v1_2;
  auto client = Client::create(options);
  ASSERT_TRUE(client.ok()) << client.error().message();
  auto fetched =
      fetch_all(*client, get(env_.get("SLUICE_CADDY_URL") + "/small.txt", VersionPolicy::http3));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->version, HttpVersion::http2);
}

}  // namespace
}  // namespace sluice
