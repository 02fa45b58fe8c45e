// sluice_request_set_aws_sigv4 against an in-process server: the request arrives
// signed for its scope with the body's hash, and a scope that cannot sign fails the
// request with SLUICE_E_USAGE before anything is sent. (The signature's bytes are
// checked against AWS's published examples in tests/unit/auth, and against an
// independent verifier in the CLI tests.)
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "sluice/sluice.h"
#include "support/capi_calls.hpp"
#include "support/capi_handles.hpp"
#include "support/test_server.hpp"

namespace {

using sluice::test::ClientHandle;
using sluice::test::RequestHandle;
using sluice::test::ResponseHandle;
using sluice::test::ServerConnection;
using sluice::test::TestServer;

ClientHandle new_client() {
  ClientHandle client;
  sluice_client_options* options = nullptr;
  EXPECT_EQ(sluice_client_options_new(&options), SLUICE_OK);
  EXPECT_EQ(sluice_client_new(options, &client.get), SLUICE_OK);
  sluice_client_options_free(options);
  return client;
}

RequestHandle signed_put(const std::string& url, const std::string& scope) {
  RequestHandle request;
  EXPECT_EQ(sluice_request_new("PUT", 3, url.data(), url.size(), &request.get), SLUICE_OK);
  EXPECT_EQ(sluice_request_set_body_bytes(request.get, "hello", 5), SLUICE_OK);
  EXPECT_EQ(
      sluice_request_set_aws_sigv4(request.get, "AKID", 4, "SECRET", 6, scope.data(), scope.size()),
      SLUICE_OK);
  return request;
}

TEST(CapiAwsSigV4, TheRequestArrivesSignedWithItsBodysHash) {
  TestServer server([](ServerConnection& conn) {
    auto request = conn.read_request();
    if (!request) return;
    const auto field = [&](const char* name) {
      return std::string(request->headers.get(name).value_or("-"));
    };
    conn.write(sluice::test::http_response(200, field("authorization") + "\n" +
                                                    field("x-amz-date") + "\n" +
                                                    field("x-amz-content-sha256")));
  });
  ClientHandle client = new_client();
  RequestHandle request = signed_put(server.url("/bucket/key"), "aws:amz:us-east-1:s3");
  ResponseHandle response;
  const sluice_code code = sluice_client_fetch(client.get, request.get, &response.get);
  ASSERT_EQ(code, SLUICE_OK) << sluice::test::describe(code);
  const std::string echoed = sluice::test::read_body(response.get);
  const std::string authorization = echoed.substr(0, echoed.find('\n'));
  const std::string date = echoed.substr(echoed.find('\n') + 1, 16);
  ASSERT_EQ(date.size(), 16u);
  EXPECT_EQ(authorization.substr(0, authorization.find("Signature=")),
            "AWS4-HMAC-SHA256 Credential=AKID/" + date.substr(0, 8) +
                "/us-east-1/s3/aws4_request, "
                "SignedHeaders=host;x-amz-content-sha256;x-amz-date, ");
  EXPECT_EQ(authorization.size() - authorization.find("Signature=") - 10, 64u);
  // sha256("hello")
  EXPECT_TRUE(
      echoed.ends_with("\n2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"))
      << echoed;
}

TEST(CapiAwsSigV4, AScopeThatCannotSignFailsTheRequestUnsent) {
  std::atomic<int> requests{0};
  TestServer server([&](ServerConnection& conn) {
    if (conn.read_request()) ++requests;
  });
  ClientHandle client = new_client();
  RequestHandle request = signed_put(server.url("/x"), "aws:amz::s3");
  ResponseHandle response;
  EXPECT_EQ(sluice_client_fetch(client.get, request.get, &response.get), SLUICE_E_USAGE);
  EXPECT_NE(std::string(sluice_last_error()).find("--aws-sigv4: the region"), std::string::npos)
      << sluice_last_error();
  EXPECT_EQ(requests.load(), 0);
}

TEST(CapiAwsSigV4, ANullScopeIsRefused) {
  RequestHandle request;
  ASSERT_EQ(sluice_request_new("GET", 3, "http://127.0.0.1/", 17, &request.get), SLUICE_OK);
  EXPECT_EQ(sluice_request_set_aws_sigv4(request.get, "AKID", 4, "SECRET", 6, nullptr, 3),
            SLUICE_E_INVALID_ARGUMENT);
  EXPECT_NE(std::string(sluice_last_error()).find("sluice_request_set_aws_sigv4"),
            std::string::npos);
}

}  // namespace
