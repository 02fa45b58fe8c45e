#include "http2/h2_headers.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/h2_test_peer.hpp"

namespace sluice {
namespace {

std::vector<std::string> names_of(const H2RequestHeaders& headers) {
  std::vector<std::string> names;
  for (const Header& field : headers.fields()) names.push_back(field.name);
  return names;
}

ExchangeRequest request_with(Headers headers) {
  ExchangeRequest request;
  request.method = "POST";
  request.scheme = "https";
  request.authority = "example.test:8443";
  request.target = "/upload?x=1";
  request.headers = std::move(headers);
  return request;
}

TEST(H2RequestHeaders, PseudoHeadersComeFirstFromTheRequest) {
  H2RequestHeaders headers(request_with({{"Accept", "*/*"}}));
  const auto& fields = headers.fields();
  ASSERT_EQ(fields.size(), 5u);
  EXPECT_EQ(fields[0].name, ":method");
  EXPECT_EQ(fields[0].value, "POST");
  EXPECT_EQ(fields[1].name, ":scheme");
  EXPECT_EQ(fields[1].value, "https");
  EXPECT_EQ(fields[2].name, ":authority");
  EXPECT_EQ(fields[2].value, "example.test:8443");
  EXPECT_EQ(fields[3].name, ":path");
  EXPECT_EQ(fields[3].value, "/upload?x=1");
  EXPECT_EQ(fields[4].name, "accept");
  ASSERT_EQ(headers.nv().size(), 5u);
  EXPECT_EQ(
      std::string(reinterpret_cast<const char*>(headers.nv()[4].name), headers.nv()[4].namelen),
      "accept");
}

TEST(H2RequestHeaders, NamesAreLowercased) {
  H2RequestHeaders headers(request_with({{"X-Custom-Thing", "Value Stays"}}));
  EXPECT_EQ(headers.fields().back().name, "x-custom-thing");
  EXPECT_EQ(headers.fields().back().value, "Value Stays");
}

TEST(H2RequestHeaders, ConnectionSpecificFieldsAreDropped) {
  H2RequestHeaders headers(request_with({{"Connection", "keep-alive"},
                                         {"Keep-Alive", "timeout=5"},
                                         {"Proxy-Connection", "keep-alive"},
                                         {"Transfer-Encoding", "chunked"},
                                         {"Upgrade", "websocket"},
                                         {"Host", "other.test"},
                                         {"TE", "gzip"},
                                         {"Content-Length", "99"},
                                         {"accept", "text/plain"}}));
  EXPECT_EQ(names_of(headers),
            (std::vector<std::string>{":method", ":scheme", ":authority", ":path", "accept"}));
}

TEST(H2RequestHeaders, TeTrailersIsKept) {
  H2RequestHeaders headers(request_with({{"TE", "trailers"}}));
  EXPECT_EQ(headers.fields().back().name, "te");
  EXPECT_EQ(headers.fields().back().value, "trailers");
}

TEST(H2RequestHeaders, ContentLengthComesFromAKnownBodyLength) {
  test::ScriptedBody body(1234);
  ExchangeRequest request = request_with({});
  request.body = &body;
  H2RequestHeaders headers(request);
  EXPECT_EQ(headers.fields().back().name, "content-length");
  EXPECT_EQ(headers.fields().back().value, "1234");
}

TEST(H2RequestHeaders, StreamedBodyHasNoContentLength) {
  test::ScriptedBody body;
  ExchangeRequest request = request_with({});
  request.body = &body;
  H2RequestHeaders headers(request);
  EXPECT_EQ(names_of(headers),
            (std::vector<std::string>{":method", ":scheme", ":authority", ":path"}));
}

TEST(H2HeaderBlock, CollectsStatusAndFields) {
  H2HeaderBlock block;
  ASSERT_TRUE(block.add(":status", "204").ok());
  ASSERT_TRUE(block.add("server", "peer").ok());
  EXPECT_EQ(block.status(), 204);
  Headers fields = block.take_fields();
  EXPECT_EQ(fields.get("server"), "peer");
  EXPECT_FALSE(fields.contains(":status"));
}

TEST(H2HeaderBlock, RejectsMalformedStatus) {
  for (const char* bad : {"20", "2000", "abc", "099", "20x"}) {
    H2HeaderBlock block;
    auto added = block.add(":status", bad);
    ASSERT_FALSE(added.ok()) << bad;
    EXPECT_NE(added.error().message().find("invalid :status"), std::string::npos);
  }
}

TEST(H2HeaderBlock, RejectsRequestPseudoHeadersInAResponse) {
  H2HeaderBlock block;
  auto added = block.add(":path", "/");
  ASSERT_FALSE(added.ok());
  EXPECT_NE(added.error().message().find("':path'"), std::string::npos);
}

TEST(H2HeaderBlock, EnforcesTheLimitAsHttp2CountsIt) {
  H2HeaderBlock block(100);
  ASSERT_TRUE(block.add("a", std::string(30, 'x')).ok());  // 1 + 30 + 32 = 63
  auto added = block.add("b", std::string(10, 'y'));       // 63 + 43 = 106 > 100
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.error().category(), ErrorCategory::too_large);
  EXPECT_NE(added.error().message().find("100 bytes"), std::string::npos);
}

TEST(H2HeaderBlock, ResetStartsANewBlock) {
  H2HeaderBlock block(150);  // 42 + 76 fit; another 76 only after the reset
  ASSERT_TRUE(block.add(":status", "103").ok());
  ASSERT_TRUE(block.add("link", std::string(40, 'l')).ok());
  block.reset();
  EXPECT_FALSE(block.status().has_value());
  EXPECT_EQ(block.size(), 0u);
  EXPECT_TRUE(block.add("link", std::string(40, 'l')).ok());
}

TEST(H2ErrorName, NamesKnownAndUnknownCodes) {
  EXPECT_EQ(h2_error_name(NGHTTP2_REFUSED_STREAM), "REFUSED_STREAM");
  EXPECT_EQ(h2_error_name(NGHTTP2_NO_ERROR), "NO_ERROR");
  EXPECT_EQ(h2_error_name(0x99), "error code 153");
}

}  // namespace
}  // namespace sluice
