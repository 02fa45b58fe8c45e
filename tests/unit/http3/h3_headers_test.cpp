#include "http3/h3_headers.hpp"

#include <gtest/gtest.h>

#include <string>

#include "support/h2_test_peer.hpp"

namespace sluice {
namespace {

ExchangeRequest request_for(std::string target) {
  ExchangeRequest request;
  request.method = "GET";
  request.scheme = "https";
  request.authority = "example.test:8443";
  request.target = std::move(target);
  return request;
}

std::string nv_name(const nghttp3_nv& nv) {
  return {reinterpret_cast<const char*>(nv.name), nv.namelen};
}

std::string nv_value(const nghttp3_nv& nv) {
  return {reinterpret_cast<const char*>(nv.value), nv.valuelen};
}

TEST(H3RequestHeaders, PseudoHeadersComeFirstAndNamesAreLowercased) {
  ExchangeRequest request = request_for("/a?b=c");
  request.headers = {{"Accept-Encoding", "gzip"}, {"X-Trace", "1"}};
  H3RequestHeaders headers(request);
  const auto nv = headers.nv();
  ASSERT_EQ(nv.size(), 6u);
  EXPECT_EQ(nv_name(nv[0]), ":method");
  EXPECT_EQ(nv_value(nv[0]), "GET");
  EXPECT_EQ(nv_name(nv[1]), ":scheme");
  EXPECT_EQ(nv_name(nv[2]), ":authority");
  EXPECT_EQ(nv_value(nv[2]), "example.test:8443");
  EXPECT_EQ(nv_name(nv[3]), ":path");
  EXPECT_EQ(nv_value(nv[3]), "/a?b=c");
  EXPECT_EQ(nv_name(nv[4]), "accept-encoding");
  EXPECT_EQ(nv_name(nv[5]), "x-trace");
}

TEST(H3RequestHeaders, ConnectionSpecificFieldsAreDropped) {
  ExchangeRequest request = request_for("/");
  request.headers = {{"Connection", "close"},          {"Keep-Alive", "5"}, {"Upgrade", "h2c"},
                     {"Transfer-Encoding", "chunked"}, {"Host", "other"},   {"TE", "gzip"},
                     {"Proxy-Connection", "x"},        {"Accept", "*/*"}};
  H3RequestHeaders headers(request);
  ASSERT_EQ(headers.fields().size(), 5u);
  EXPECT_EQ(headers.fields().back().name, "accept");
}

TEST(H3RequestHeaders, TeTrailersIsKept) {
  ExchangeRequest request = request_for("/");
  request.headers = {{"TE", "Trailers"}};
  H3RequestHeaders headers(request);
  ASSERT_EQ(headers.fields().size(), 5u);
  EXPECT_EQ(headers.fields().back().name, "te");
}

TEST(H3RequestHeaders, EmptyTargetBecomesSlash) {
  H3RequestHeaders headers(request_for(""));
  EXPECT_EQ(headers.fields()[3].value, "/");
}

TEST(H3RequestHeaders, ContentLengthComesFromTheBodyNotTheCaller) {
  test::ScriptedBody body(42);
  ExchangeRequest request = request_for("/upload");
  request.method = "PUT";
  request.headers = {{"Content-Length", "7"}};
  request.body = &body;
  H3RequestHeaders headers(request);
  ASSERT_EQ(headers.fields().size(), 5u);
  EXPECT_EQ(headers.fields().back().name, "content-length");
  EXPECT_EQ(headers.fields().back().value, "42");

  test::ScriptedBody streamed;  // no length: none is sent
  request.body = &streamed;
  H3RequestHeaders without(request);
  EXPECT_EQ(without.fields().size(), 4u);
}

TEST(H3HeaderBlock, CollectsFieldsAndStatus) {
  H3HeaderBlock block;
  ASSERT_TRUE(block.add(":status", "204").ok());
  ASSERT_TRUE(block.add("server", "test").ok());
  EXPECT_EQ(block.status(), 204);
  EXPECT_EQ(block.fields().get("server"), "test");
  EXPECT_EQ(block.size(), 7u + 3 + 32 + 6 + 4 + 32);
  block.reset();
  EXPECT_FALSE(block.status().has_value());
  EXPECT_EQ(block.size(), 0u);
}

TEST(H3HeaderBlock, RefusesABlockOverItsLimit) {
  H3HeaderBlock block(100);
  ASSERT_TRUE(block.add("a", std::string(40, 'x')).ok());
  auto over = block.add("b", std::string(40, 'y'));
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().category(), ErrorCategory::too_large);
  EXPECT_EQ(over.error().message(),
            "HTTP/3: response header block from server exceeds the limit of 100 bytes "
            "(max_header_bytes)");
}

TEST(H3HeaderBlock, RefusesInvalidStatusAndRequestPseudoHeaders) {
  H3HeaderBlock block;
  EXPECT_EQ(block.add(":status", "2000").error().message(),
            "HTTP/3: invalid :status '2000' from server");
  EXPECT_FALSE(block.add(":status", "0x1").ok());
  EXPECT_FALSE(block.add(":status", "099").ok());
  EXPECT_EQ(block.add(":path", "/").error().message(),
            "HTTP/3: server sent the pseudo-header ':path' in a response");
}

TEST(H3HeaderBlock, ContentLengthParsesOnlyDigits) {
  EXPECT_EQ(content_length_of(Headers{{"content-length", "1234"}}), 1234u);
  EXPECT_FALSE(content_length_of(Headers{{"content-length", "12a"}}).has_value());
  EXPECT_FALSE(content_length_of(Headers{}).has_value());
}

}  // namespace
}  // namespace sluice
