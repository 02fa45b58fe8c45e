#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "http1/h1_codec.hpp"

namespace sluice {
namespace {

std::string text_of(const ByteQueue& queue) { return std::string(as_text(queue.readable())); }

std::string encode_head(const H1RequestHead& head) {
  ByteQueue out;
  encode_request_head(head, out);
  return text_of(out);
}

H1RequestHead make_head(std::string_view method, std::string_view target, const Headers* headers,
                        H1BodyFraming framing = {}) {
  H1RequestHead head;
  head.method = method;
  head.target = target;
  head.authority = "example.org";
  head.headers = headers;
  head.framing = framing;
  return head;
}

TEST(H1RequestEncoder, GetWithoutBodyHasRequestLineHostAndHeadersInOrder) {
  const Headers headers{{"Accept", "*/*"}, {"User-Agent", "sluice/0.1"}, {"X-Trace", "a"}};
  EXPECT_EQ(encode_head(make_head("GET", "/a/b?c=1&d=2", &headers)),
            "GET /a/b?c=1&d=2 HTTP/1.1\r\n"
            "Host: example.org\r\n"
            "Accept: */*\r\n"
            "User-Agent: sluice/0.1\r\n"
            "X-Trace: a\r\n"
            "\r\n");
}

TEST(H1RequestEncoder, Http10DialectSaysSoOnTheRequestLine) {
  const Headers headers{{"Accept", "*/*"}};
  H1RequestHead head = make_head("POST", "/up", &headers, {H1BodyFraming::Kind::content_length, 2});
  head.dialect = H1Dialect::http1_0;
  EXPECT_EQ(encode_head(head),
            "POST /up HTTP/1.0\r\n"
            "Host: example.org\r\n"
            "Accept: */*\r\n"
            "Content-Length: 2\r\n"
            "\r\n");
}

TEST(H1RequestEncoder, WorksWithoutAHeaderList) {
  EXPECT_EQ(encode_head(make_head("GET", "/", nullptr)),
            "GET / HTTP/1.1\r\nHost: example.org\r\n\r\n");
}

TEST(H1RequestEncoder, HostComesFromAuthorityWithPort) {
  H1RequestHead head = make_head("GET", "/", nullptr);
  head.authority = "127.0.0.1:8443";
  EXPECT_EQ(encode_head(head), "GET / HTTP/1.1\r\nHost: 127.0.0.1:8443\r\n\r\n");
}

TEST(H1RequestEncoder, ExplicitHostHeaderReplacesAuthorityAndKeepsItsPlace) {
  const Headers headers{{"Accept", "*/*"}, {"host", "other.example:8080"}, {"X-Last", "1"}};
  EXPECT_EQ(encode_head(make_head("GET", "/", &headers)),
            "GET / HTTP/1.1\r\n"
            "Accept: */*\r\n"
            "host: other.example:8080\r\n"
            "X-Last: 1\r\n"
            "\r\n");
}

TEST(H1RequestEncoder, PostWithContentLengthFraming) {
  const Headers headers{{"Content-Type", "application/json"}};
  const H1BodyFraming framing{H1BodyFraming::Kind::content_length, 11};
  EXPECT_EQ(encode_head(make_head("POST", "/submit", &headers, framing)),
            "POST /submit HTTP/1.1\r\n"
            "Host: example.org\r\n"
            "Content-Type: application/json\r\n"
            "Content-Length: 11\r\n"
            "\r\n");
}

TEST(H1RequestEncoder, ZeroContentLengthIsWritten) {
  const H1BodyFraming framing{H1BodyFraming::Kind::content_length, 0};
  EXPECT_EQ(encode_head(make_head("POST", "/", nullptr, framing)),
            "POST / HTTP/1.1\r\nHost: example.org\r\nContent-Length: 0\r\n\r\n");
}

TEST(H1RequestEncoder, LargestContentLengthIsWrittenInFull) {
  const H1BodyFraming framing{H1BodyFraming::Kind::content_length, 18446744073709551615ull};
  EXPECT_EQ(encode_head(make_head("PUT", "/big", nullptr, framing)),
            "PUT /big HTTP/1.1\r\nHost: example.org\r\n"
            "Content-Length: 18446744073709551615\r\n\r\n");
}

TEST(H1RequestEncoder, CallerFramingHeadersGiveWayToContentLength) {
  const Headers headers{
      {"content-length", "999"}, {"X-Keep", "yes"}, {"Transfer-Encoding", "chunked"}};
  const H1BodyFraming framing{H1BodyFraming::Kind::content_length, 5};
  EXPECT_EQ(encode_head(make_head("PUT", "/x", &headers, framing)),
            "PUT /x HTTP/1.1\r\n"
            "Host: example.org\r\n"
            "X-Keep: yes\r\n"
            "Content-Length: 5\r\n"
            "\r\n");
}

TEST(H1RequestEncoder, ChunkedFramingReplacesCallerFramingHeaders) {
  const Headers headers{
      {"Content-Length", "10"}, {"TRANSFER-ENCODING", "gzip, chunked"}, {"Accept", "*/*"}};
  const H1BodyFraming framing{H1BodyFraming::Kind::chunked, 0};
  EXPECT_EQ(encode_head(make_head("POST", "/upload", &headers, framing)),
            "POST /upload HTTP/1.1\r\n"
            "Host: example.org\r\n"
            "Accept: */*\r\n"
            "Transfer-Encoding: chunked\r\n"
            "\r\n");
}

TEST(H1RequestEncoder, NoBodyFramingSendsNoFramingHeaders) {
  const Headers headers{{"Content-Length", "10"}, {"Transfer-Encoding", "chunked"}};
  EXPECT_EQ(encode_head(make_head("GET", "/", &headers)),
            "GET / HTTP/1.1\r\nHost: example.org\r\n\r\n");
}

TEST(H1RequestEncoder, EmptyHeaderValueHasNoTrailingSpace) {
  const Headers headers{{"X-Empty", ""}};
  EXPECT_EQ(encode_head(make_head("GET", "/", &headers)),
            "GET / HTTP/1.1\r\nHost: example.org\r\nX-Empty:\r\n\r\n");
}

TEST(H1RequestEncoder, AppendsBehindBytesAlreadyQueued) {
  ByteQueue out;
  out.append("previous");
  encode_request_head(make_head("GET", "/", nullptr), out);
  EXPECT_EQ(text_of(out), "previousGET / HTTP/1.1\r\nHost: example.org\r\n\r\n");
}

TEST(H1ChunkEncoder, SmallChunkHasHexSizeAndCrlfs) {
  ByteQueue out;
  encode_chunk(as_bytes("hello"), out);
  EXPECT_EQ(text_of(out), "5\r\nhello\r\n");
}

TEST(H1ChunkEncoder, SizeIsLowercaseHex) {
  const std::string payload(0x1a2b, 'z');
  ByteQueue out;
  encode_chunk(as_bytes(payload), out);
  EXPECT_EQ(text_of(out), "1a2b\r\n" + payload + "\r\n");
}

TEST(H1ChunkEncoder, SixteenBytesIsTen) {
  const std::string payload(16, '.');
  ByteQueue out;
  encode_chunk(as_bytes(payload), out);
  EXPECT_EQ(text_of(out), "10\r\n" + payload + "\r\n");
}

TEST(H1ChunkEncoder, BinaryBytesPassUnchanged) {
  const std::vector<std::byte> payload{std::byte{0}, std::byte{'\r'}, std::byte{'\n'},
                                       std::byte{0xff}};
  ByteQueue out;
  encode_chunk(payload, out);
  EXPECT_EQ(text_of(out), std::string("4\r\n\0\r\n\xff\r\n", 9));
}

TEST(H1ChunkEncoder, EmptyChunkWritesNothing) {
  ByteQueue out;
  encode_chunk({}, out);
  EXPECT_TRUE(out.empty());
}

TEST(H1ChunkEncoder, LastChunkEndsBodyWithEmptyTrailers) {
  ByteQueue out;
  encode_last_chunk(out);
  EXPECT_EQ(text_of(out), "0\r\n\r\n");
}

TEST(H1ChunkEncoder, ChunksThenLastChunkFormACompleteBody) {
  ByteQueue out;
  encode_chunk(as_bytes("Wiki"), out);
  encode_chunk(as_bytes("pedia in\r\n\r\nchunks."), out);
  encode_last_chunk(out);
  EXPECT_EQ(text_of(out), "4\r\nWiki\r\n13\r\npedia in\r\n\r\nchunks.\r\n0\r\n\r\n");
}

}  // namespace
}  // namespace sluice
