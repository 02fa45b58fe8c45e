// Response::head() keeps a Response's head and connection facts, as a copy that
// outlives it (not the request_* fields, not the body).
#include <gtest/gtest.h>

#include <chrono>

#include "sluice/response.hpp"

namespace sluice {
namespace {

TEST(ResponseHead, HeadCopiesTheHeadAndConnectionFactsAndLeavesTheResponseWhole) {
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

  const ResponseHead head = response.head();
  EXPECT_EQ(head.status, 206);
  EXPECT_EQ(head.headers.get("content-type").value_or(""), "text/plain");
  EXPECT_EQ(head.version, HttpVersion::http2);
  EXPECT_EQ(head.effective_url, "https://example.test/final");
  EXPECT_EQ(head.redirects, 2);
  EXPECT_EQ(head.connects, 3);
  EXPECT_EQ(head.remote_ip, "192.0.2.1");
  EXPECT_EQ(head.remote_port, 8443);
  EXPECT_EQ(head.local_ip, "192.0.2.9");
  EXPECT_EQ(head.local_port, 50123);
  EXPECT_EQ(head.tls_verify_result, 20);
  EXPECT_EQ(head.timing.start, response.timing.start);
  EXPECT_EQ(head.timing.response_start, response.timing.response_start);
  EXPECT_TRUE(head.timing.connection_reused);
  // A copy, not a move: the Response still has its head.
  EXPECT_EQ(response.status, 206);
  EXPECT_EQ(response.headers.get("content-type").value_or(""), "text/plain");
  EXPECT_EQ(response.effective_url, "https://example.test/final");
}

}  // namespace
}  // namespace sluice
