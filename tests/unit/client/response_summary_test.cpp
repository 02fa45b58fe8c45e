// ResponseSummary::of keeps a Response's head and connection facts (not the request_*
// fields, not the body).
#include <gtest/gtest.h>

#include <chrono>

#include "sluice/response.hpp"

namespace sluice {
namespace {

TEST(ResponseSummary, CopiesTheHeadAndConnectionFacts) {
  Response response;
  response.status = 206;
  response.headers.add("Content-Type", "text/plain");
  response.version = HttpVersion::http2;
  response.effective_url = "https://example.test/final";
  response.redirects = 2;
  response.connects = 3;
  response.remote_ip = "192.0.2.1";
  response.remote_port = 8443;
  response.local_ip = "192.0.2.9";
  response.local_port = 50123;
  response.tls_verify_result = 20;
  response.timing.start = ResponseTiming::TimePoint(std::chrono::seconds(1));
  response.timing.response_start = ResponseTiming::TimePoint(std::chrono::seconds(2));
  response.timing.connection_reused = true;

  const ResponseSummary summary = ResponseSummary::of(response);
  EXPECT_EQ(summary.status, 206);
  EXPECT_EQ(summary.headers.get("content-type").value_or(""), "text/plain");
  EXPECT_EQ(summary.version, HttpVersion::http2);
  EXPECT_EQ(summary.effective_url, "https://example.test/final");
  EXPECT_EQ(summary.redirects, 2);
  EXPECT_EQ(summary.connects, 3);
  EXPECT_EQ(summary.remote_ip, "192.0.2.1");
  EXPECT_EQ(summary.remote_port, 8443);
  EXPECT_EQ(summary.local_ip, "192.0.2.9");
  EXPECT_EQ(summary.local_port, 50123);
  EXPECT_EQ(summary.tls_verify_result, 20);
  EXPECT_EQ(summary.timing.start, response.timing.start);
  EXPECT_EQ(summary.timing.response_start, response.timing.response_start);
  EXPECT_TRUE(summary.timing.connection_reused);
}

}  // namespace
}  // namespace sluice
