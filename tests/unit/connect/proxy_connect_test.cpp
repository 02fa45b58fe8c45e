// The CONNECT exchange, sans I/O: the request names the target twice (request line
// and Host) and carries credentials only when given; the answer opens the tunnel on
// a 2xx only, in however many pieces it arrives, and anything odd is an error.
#include "connect/proxy_connect.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice {
namespace {

using State = ConnectReply::State;

TEST(ProxyConnect, TheRequestNamesTheTargetAndCredentialsWhenGiven) {
  EXPECT_EQ(connect_request("example.org:443", ""),
            "CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n");
  EXPECT_EQ(
      connect_request("[::1]:8443", "Basic eDp5"),
      "CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\nProxy-Authorization: Basic eDp5\r\n\r\n");
}

TEST(ProxyConnect, A2xxInPiecesOpensTheTunnel) {
  ConnectReply reply;
  const std::string answer = "HTTP/1.1 200 Connection established\r\nVia: squid\r\n\r\n";
  for (std::size_t i = 0; i + 1 < answer.size(); ++i) {
    ASSERT_EQ(reply.feed(answer.substr(i, 1)), State::incomplete) << "at byte " << i;
  }
  EXPECT_EQ(reply.feed(answer.substr(answer.size() - 1)), State::open);
  EXPECT_EQ(reply.status(), 200);
}

TEST(ProxyConnect, OtherStatusesRefuseWithStatusAndReason) {
  ConnectReply reply;
  EXPECT_EQ(reply.feed("HTTP/1.1 407 Proxy Authentication Required\r\n"
                       "Proxy-Authenticate: Basic realm=\"x\"\r\n\r\n"),
            State::refused);
  EXPECT_EQ(reply.status(), 407);
  EXPECT_EQ(reply.summary(), "407 Proxy Authentication Required");
  ConnectReply with_page;  // squid's refusals come with an HTML page
  EXPECT_EQ(with_page.feed("HTTP/1.1 403 Forbidden\r\nContent-Length: 6\r\n\r\n<html>"),
            State::refused);
  EXPECT_EQ(with_page.summary(), "403 Forbidden");
}

TEST(ProxyConnect, BareLineFeedsEndLinesToo) {
  ConnectReply reply;
  EXPECT_EQ(reply.feed("HTTP/1.0 200 OK\nVia: old\n\n"), State::open);
  EXPECT_EQ(reply.status(), 200);
}

TEST(ProxyConnect, TheStatusIsExactlyThreeDigitsAndTheReasonIsSafeToPrint) {
  ConnectReply four_digits;
  EXPECT_EQ(four_digits.feed("HTTP/1.1 2000 OK\r\n\r\n"), State::malformed);
  ConnectReply bad_version;
  EXPECT_EQ(bad_version.feed("HTTP/1.x 200 OK\r\n\r\n"), State::malformed);
  ConnectReply no_reason;
  EXPECT_EQ(no_reason.feed("HTTP/1.1 204\r\n\r\n"), State::open);
  ConnectReply escapes;
  EXPECT_EQ(escapes.feed("HTTP/1.1 403 \x1b[31mred" + std::string(200, 'x') + "\r\n\r\n"),
            State::refused);
  EXPECT_EQ(escapes.summary().find('\x1b'), std::string::npos);
  EXPECT_LE(escapes.summary().size(), 80u);
}

TEST(ProxyConnect, NonsenseOrBytesAfterTheAnswerAreMalformed) {
  ConnectReply garbage;
  EXPECT_EQ(garbage.feed("SSH-2.0-OpenSSH\r\n\r\n"), State::malformed);
  ConnectReply eager;
  EXPECT_EQ(eager.feed("HTTP/1.1 200 OK\r\n\r\n\x16\x03"), State::malformed);
  ConnectReply endless;
  const std::string field = "X-Filler: " + std::string(1000, 'x') + "\r\n";
  State state = endless.feed("HTTP/1.1 200 OK\r\n");
  for (int i = 0; i < 20 && state == State::incomplete; ++i) state = endless.feed(field);
  EXPECT_EQ(state, State::malformed) << "a head without end was read without bound";
}

}  // namespace
}  // namespace sluice
