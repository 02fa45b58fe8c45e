// The C API's TLS options against the real servers: a client certificate opens
// nginx's mutual TLS, the stats count full and resumed handshakes, and bad files or
// arguments come back as codes with messages, never a crash.
#include <gtest/gtest.h>

#include <string>

#include "sluice/sluice.h"
#include "support/capi_handles.hpp"
#include "support/test_env.hpp"

namespace sluice {
namespace {

struct OptionsHandle {
  sluice_client_options* get = nullptr;
  OptionsHandle() { EXPECT_EQ(sluice_client_options_new(&get), SLUICE_OK); }
  ~OptionsHandle() { sluice_client_options_free(get); }
};
using test::ClientHandle;
using test::RequestHandle;
using test::ResponseHandle;

sluice_code set(sluice_code (*setter)(sluice_client_options*, const char*, size_t),
                OptionsHandle& options, const std::string& text) {
  return setter(options.get, text.data(), text.size());
}

// GET `url` and read the whole body; "" and a failed expectation on error.
std::string fetch_body(sluice_client* client, const std::string& url) {
  RequestHandle request;
  EXPECT_EQ(sluice_request_new("GET", 3, url.data(), url.size(), &request.get), SLUICE_OK);
  ResponseHandle response;
  const sluice_code code = sluice_client_fetch(client, request.get, &response.get);
  EXPECT_EQ(code, SLUICE_OK) << sluice_last_error();
  if (code != SLUICE_OK) return {};
  std::string all;
  char buffer[4096];
  for (;;) {
    size_t n = 0;
    if (sluice_response_read(response.get, buffer, sizeof buffer, &n) != SLUICE_OK || n == 0) break;
    all.append(buffer, n);
  }
  return all;
}

class CapiTls : public ::testing::Test {
 protected:
  test::TestEnv env_;
};

TEST_F(CapiTls, ClientCertificateOpensMutualTls) {
  OptionsHandle options;
  ASSERT_EQ(set(sluice_client_options_set_ca_file, options, env_.get("SLUICE_TEST_CA")), SLUICE_OK);
  ASSERT_EQ(set(sluice_client_options_set_client_cert, options, env_.get("SLUICE_CLIENT_CERT")),
            SLUICE_OK);
  ASSERT_EQ(
      set(sluice_client_options_set_client_key, options, env_.get("SLUICE_CLIENT_KEY_ENCRYPTED")),
      SLUICE_OK);
  ASSERT_EQ(set(sluice_client_options_set_key_password, options,
                env_.get("SLUICE_CLIENT_KEY_PASSPHRASE")),
            SLUICE_OK);
  ASSERT_EQ(set(sluice_client_options_set_pinned_public_key, options,
                env_.get("SLUICE_SERVER_PUBKEY_PIN")),
            SLUICE_OK);
  ClientHandle client;
  ASSERT_EQ(sluice_client_new(options.get, &client.get), SLUICE_OK) << sluice_last_error();
  EXPECT_EQ(fetch_body(client.get, env_.get("SLUICE_NGINX_MTLS_URL") + "/whoami"),
            "CN=sluice test client\n");
}

TEST_F(CapiTls, StatsCountFullAndResumedHandshakes) {
  for (const int cache : {1, 0}) {
    OptionsHandle options;
    ASSERT_EQ(set(sluice_client_options_set_ca_path, options, env_.get("SLUICE_TEST_CAPATH")),
              SLUICE_OK);
    ASSERT_EQ(sluice_client_options_set_tls_session_cache(options.get, cache), SLUICE_OK);
    ASSERT_EQ(sluice_client_options_set_tls_versions(options.get, SLUICE_TLS_1_2, SLUICE_TLS_1_3),
              SLUICE_OK);
    ClientHandle client;
    ASSERT_EQ(sluice_client_new(options.get, &client.get), SLUICE_OK) << sluice_last_error();
    const std::string url = env_.get("SLUICE_NGINX_ONESHOT_URL") + "/small.txt";
    for (int i = 0; i < 2; ++i) EXPECT_FALSE(fetch_body(client.get, url).empty());
    sluice_client_stats stats{};
    ASSERT_EQ(sluice_client_get_stats(client.get, &stats, sizeof stats), SLUICE_OK);
    EXPECT_EQ(stats.tls_full_handshakes, cache ? 1u : 2u) << "cache " << cache;
    EXPECT_EQ(stats.tls_resumed_handshakes, cache ? 1u : 0u) << "cache " << cache;
  }
}

TEST_F(CapiTls, WrongPassphraseFailsTheClientNamingTheKey) {
  OptionsHandle options;
  ASSERT_EQ(set(sluice_client_options_set_client_cert, options, env_.get("SLUICE_CLIENT_CERT")),
            SLUICE_OK);
  const std::string key = env_.get("SLUICE_CLIENT_KEY_ENCRYPTED");
  ASSERT_EQ(set(sluice_client_options_set_client_key, options, key), SLUICE_OK);
  ASSERT_EQ(set(sluice_client_options_set_key_password, options, "wrong"), SLUICE_OK);
  ClientHandle client;
  EXPECT_EQ(sluice_client_new(options.get, &client.get), SLUICE_E_USAGE);
  EXPECT_EQ(client.get, nullptr);
  const std::string message = sluice_last_error();
  EXPECT_NE(message.find("wrong passphrase"), std::string::npos) << message;
  EXPECT_NE(message.find(key), std::string::npos) << message;
}

TEST_F(CapiTls, BadArgumentsAreRefused) {
  OptionsHandle options;
  EXPECT_EQ(sluice_client_options_set_client_cert(nullptr, "x", 1), SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_client_options_set_client_cert(options.get, nullptr, 3),
            SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_client_options_set_pinned_public_key(options.get, "a\0b", 3),
            SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_client_options_set_tls_versions(options.get, 11, SLUICE_TLS_1_3),
            SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_client_options_set_tls_versions(options.get, SLUICE_TLS_1_3, SLUICE_TLS_1_2),
            SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_client_options_set_tls_session_cache(nullptr, 1), SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_client_options_set_tls_early_data(nullptr, 1), SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_client_options_set_tls12_ciphers(options.get, "NO-SUCH", 7), SLUICE_OK);
  ClientHandle client;
  EXPECT_EQ(sluice_client_new(options.get, &client.get), SLUICE_E_USAGE);
  EXPECT_NE(std::string(sluice_last_error()).find("NO-SUCH"), std::string::npos)
      << sluice_last_error();
}

}  // namespace
}  // namespace sluice
