// The C API's view of Response::tls (sluice_response_tls and its siblings) against
// nginx: over TLS every field is there, over plain http:// none, and a bad handle or
// field is refused with a code.
#include <gtest/gtest.h>

#include <ctime>
#include <string>

#include "sluice/sluice.h"
#include "support/capi_handles.hpp"
#include "support/test_env.hpp"

namespace sluice {
namespace {

using test::ClientHandle;
using test::RequestHandle;
using test::ResponseHandle;

class CapiResponseTls : public ::testing::Test {
 protected:
  // GET `url` through a client that trusts the test CA; the response is in response_.
  void fetch(const std::string& url) {
    sluice_client_options* options = nullptr;
    ASSERT_EQ(sluice_client_options_new(&options), SLUICE_OK);
    const std::string ca = env_.get("SLUICE_TEST_CA");
    ASSERT_EQ(sluice_client_options_set_ca_file(options, ca.data(), ca.size()), SLUICE_OK);
    ASSERT_EQ(sluice_client_new(options, &client_.get), SLUICE_OK) << sluice_last_error();
    sluice_client_options_free(options);
    RequestHandle request;
    ASSERT_EQ(sluice_request_new("GET", 3, url.data(), url.size(), &request.get), SLUICE_OK);
    ASSERT_EQ(sluice_client_fetch(client_.get, request.get, &response_.get), SLUICE_OK)
        << sluice_last_error();
  }
  // The field's text; "<null>" when the call gave none.
  std::string field(sluice_tls_field which) {
    const char* value = nullptr;
    size_t len = 0;
    EXPECT_EQ(sluice_response_tls(response_.get, which, &value, &len), SLUICE_OK);
    return value == nullptr ? "<null>" : std::string(value, len);
  }

  test::TestEnv env_;
  ClientHandle client_;
  ResponseHandle response_;
};

TEST_F(CapiResponseTls, EveryFieldOverTls) {
  ASSERT_NO_FATAL_FAILURE(fetch(env_.get("SLUICE_NGINX_H2_URL") + "/small.txt"));
  EXPECT_EQ(field(SLUICE_TLS_VERSION), "TLSv1.3");
  EXPECT_EQ(field(SLUICE_TLS_CIPHER).rfind("TLS_", 0), 0u);
  EXPECT_EQ(field(SLUICE_TLS_ALPN), "h2");
  EXPECT_EQ(field(SLUICE_TLS_CERT_SUBJECT), "CN=localhost");
  EXPECT_EQ(field(SLUICE_TLS_CERT_ISSUER), "CN=sluice test CA");
  EXPECT_EQ(field(SLUICE_TLS_MATCHED_NAME), "localhost");
  bool has_localhost = false;
  for (size_t i = 0;; ++i) {
    const char* value = nullptr;
    size_t len = 0;
    ASSERT_EQ(sluice_response_tls_cert_san(response_.get, i, &value, &len), SLUICE_OK);
    if (value == nullptr) break;
    has_localhost = has_localhost || std::string(value, len) == "DNS:localhost";
  }
  EXPECT_TRUE(has_localhost);
  int64_t not_before = 0, not_after = 0;
  int has_certificate = 0;
  ASSERT_EQ(
      sluice_response_tls_cert_validity(response_.get, &not_before, &not_after, &has_certificate),
      SLUICE_OK);
  EXPECT_EQ(has_certificate, 1);
  EXPECT_LT(not_before, static_cast<int64_t>(std::time(nullptr)));
  EXPECT_GT(not_after, static_cast<int64_t>(std::time(nullptr)));
  EXPECT_EQ(sluice_response_tls_resumed(response_.get), 0);
}

TEST_F(CapiResponseTls, NothingOverPlainHttp) {
  ASSERT_NO_FATAL_FAILURE(fetch(env_.get("SLUICE_NGINX_HTTP_URL") + "/small.txt"));
  EXPECT_EQ(field(SLUICE_TLS_VERSION), "<null>");
  EXPECT_EQ(field(SLUICE_TLS_CERT_SUBJECT), "<null>");
  int64_t not_before = 1, not_after = 1;
  int has_certificate = 1;
  ASSERT_EQ(
      sluice_response_tls_cert_validity(response_.get, &not_before, &not_after, &has_certificate),
      SLUICE_OK);
  EXPECT_EQ(has_certificate, 0);
  EXPECT_EQ(not_before, 0);
}

TEST_F(CapiResponseTls, BadArgumentsAreRefused) {
  ASSERT_NO_FATAL_FAILURE(fetch(env_.get("SLUICE_NGINX_HTTP_URL") + "/small.txt"));
  const char* value = nullptr;
  size_t len = 0;
  EXPECT_EQ(sluice_response_tls(nullptr, SLUICE_TLS_VERSION, &value, &len),
            SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_response_tls(response_.get, static_cast<sluice_tls_field>(99), &value, &len),
            SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_response_tls(response_.get, SLUICE_TLS_VERSION, nullptr, &len),
            SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_response_tls_resumed(nullptr), 0);
}

}  // namespace
}  // namespace sluice
