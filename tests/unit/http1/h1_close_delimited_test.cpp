// H1ResponseParser::finish with an unauthenticated close (TLS without close_notify),
// and progress(), the words the connection adds to a socket error.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "http1/h1_codec.hpp"

namespace sluice {
namespace {

using Close = H1ResponseParser::Close;

class Events : public H1ParserEvents {
 public:
  void on_response_head(ReceivedHead) override {}
  void on_body(std::span<const std::byte> bytes) override { body += as_text(bytes); }
  void on_trailers(Headers) override {}
  void on_message_complete() override { ++completes; }
  std::string body;
  int completes = 0;
};

struct Finished {
  Result<void> result;
  Events events;
};

// Feeds `wire` and then reports the server's close as `close`.
Finished feed_then_close(std::string_view wire, Close close) {
  Finished finished{Result<void>(), {}};
  H1ResponseParser parser;
  parser.expect_response(false, 64 * 1024);
  auto fed = parser.feed(as_bytes(wire), finished.events);
  EXPECT_TRUE(fed.ok()) << fed.error().message();
  finished.result = parser.finish(finished.events, close);
  return finished;
}

const std::string kCloseDelimited = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nabc";

TEST(H1CloseDelimited, UnauthenticatedCloseDoesNotEndTheBody) {
  Finished finished = feed_then_close(kCloseDelimited, Close::unauthenticated);
  ASSERT_FALSE(finished.result.ok());
  EXPECT_EQ(finished.result.error().category(), ErrorCategory::protocol);
  EXPECT_EQ(finished.result.error().message(),
            "HTTP/1.1: the TLS connection ended without close_notify after 3 body bytes; the "
            "body has no length and ends only at the close, so it may be truncated");
  // The server does this every time: trying again would fail the same way.
  EXPECT_FALSE(finished.result.error().retryable());
  EXPECT_EQ(finished.events.completes, 0);
}

TEST(H1CloseDelimited, AuthenticatedCloseEndsTheBody) {
  Finished finished = feed_then_close(kCloseDelimited, Close::authenticated);
  ASSERT_TRUE(finished.result.ok()) << finished.result.error().message();
  EXPECT_EQ(finished.events.body, "abc");
  EXPECT_EQ(finished.events.completes, 1);
}

TEST(H1CloseDelimited, UnauthenticatedCloseAfterACompleteLengthBodyIsFine) {
  Finished finished =
      feed_then_close("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", Close::unauthenticated);
  ASSERT_TRUE(finished.result.ok()) << finished.result.error().message();
  EXPECT_EQ(finished.events.completes, 1);
}

TEST(H1CloseDelimited, UnauthenticatedCloseInsideAChunkedBodyNamesTheBytes) {
  Finished finished = feed_then_close(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n", Close::unauthenticated);
  ASSERT_FALSE(finished.result.ok());
  EXPECT_EQ(finished.result.error().message(),
            "HTTP/1.1: connection closed inside a chunked body after 3 bytes");
}

TEST(H1Progress, SaysWhereTheResponseStands) {
  H1ResponseParser parser;
  Events events;
  parser.expect_response(false, 64 * 1024);
  EXPECT_EQ(parser.progress(), "before the response headers");
  ASSERT_TRUE(
      parser
          .feed(as_bytes(std::string_view("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nab")),
                events)
          .ok());
  EXPECT_EQ(parser.progress(), "after 2 of 9 body bytes");
  parser.expect_response(false, 64 * 1024);
  ASSERT_TRUE(parser.feed(as_bytes(std::string_view("HTTP/1.1 200 OK\r\n\r\nabcd")), events).ok());
  EXPECT_EQ(parser.progress(), "after 4 body bytes");
}

}  // namespace
}  // namespace sluice
