// SOCKS5's client handshake, sans I/O (RFC 1928, RFC 1929): the bytes it sends at
// each step, the answers that open the tunnel in however many pieces they come, and
// each refusal as an error that names the proxy and says what it answered.
#include "connect/socks5_handshake.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice {
namespace {

using Progress = TunnelHandshake::Progress;
using namespace std::string_literals;

ProxyHop socks(std::string user = {}, std::string password = {}) {
  ProxyHop hop;
  hop.kind = ProxyKind::socks5h;
  hop.host = "127.0.0.1";
  hop.port = 1080;
  hop.tunnel = true;
  hop.display = "127.0.0.1:1080";
  hop.user = std::move(user);
  hop.password = std::move(password);
  return hop;
}

// Takes everything the handshake wants sent.
std::string take_output(TunnelHandshake& handshake) {
  std::string out(handshake.output());
  handshake.sent(out.size());
  return out;
}

const std::string kGranted = "\x05\x00\x00\x01\x7f\x00\x00\x01\x04\x38"s;

TEST(Socks5Handshake, WithoutCredentialsItConnectsByName) {
  Socks5Handshake handshake(socks(), "example.org", 443, std::nullopt);
  EXPECT_EQ(take_output(handshake), "\x05\x01\x00"s);
  EXPECT_EQ(handshake.feed("\x05\x00"s), Progress::waiting);
  EXPECT_EQ(take_output(handshake),
            "\x05\x01\x00\x03\x0b"
            "example.org\x01\xbb"s);
  // The answer in pieces, the bound address a name this time.
  const std::string answer = "\x05\x00\x00\x03\x04host\x00\x50"s;
  for (std::size_t i = 0; i + 1 < answer.size(); ++i) {
    ASSERT_EQ(handshake.feed(answer.substr(i, 1)), Progress::waiting) << "at byte " << i;
  }
  EXPECT_EQ(handshake.feed(answer.substr(answer.size() - 1)), Progress::open);
  EXPECT_TRUE(handshake.output().empty());
}

TEST(Socks5Handshake, AnAddressResolvedHereGoesAsAnAddress) {
  auto v4 = SocketAddress::from_ip("10.1.2.3", 8080);
  Socks5Handshake four(socks(), "ignored", 8080, v4);
  take_output(four);
  four.feed("\x05\x00"s);
  EXPECT_EQ(take_output(four), "\x05\x01\x00\x01\x0a\x01\x02\x03\x1f\x90"s);
  auto v6 = SocketAddress::from_ip("::1", 443);
  Socks5Handshake six(socks(), "ignored", 443, v6);
  take_output(six);
  six.feed("\x05\x00"s);
  EXPECT_EQ(take_output(six), "\x05\x01\x00\x04"s + std::string(15, '\0') + "\x01\x01\xbb"s);
}

TEST(Socks5Handshake, CredentialsAreOfferedAndSentWhenChosen) {
  Socks5Handshake handshake(socks("me", "secret"), "h", 80, std::nullopt);
  EXPECT_EQ(take_output(handshake), "\x05\x02\x00\x02"s);
  EXPECT_EQ(handshake.feed("\x05\x02"s), Progress::waiting);
  EXPECT_EQ(take_output(handshake), "\x01\x02me\x06secret"s);
  EXPECT_EQ(handshake.feed("\x01\x00"s), Progress::waiting);
  EXPECT_EQ(take_output(handshake), "\x05\x01\x00\x03\x01h\x00\x50"s);
  EXPECT_EQ(handshake.feed(kGranted), Progress::open);
}

TEST(Socks5Handshake, RefusalsNameTheProxyAndWhatItSaid) {
  Socks5Handshake wants(socks(), "h", 80, std::nullopt);
  take_output(wants);
  ASSERT_EQ(wants.feed("\x05\xff"s), Progress::failed);
  EXPECT_EQ(wants.error().code(), ErrorCode::proxy_refused);
  EXPECT_EQ(
      wants.error().message(),
      "proxy 127.0.0.1:1080: SOCKS5: the proxy wants credentials (socks5://user:password@host)");

  Socks5Handshake bad_password(socks("me", "wrong"), "h", 80, std::nullopt);
  take_output(bad_password);
  bad_password.feed("\x05\x02"s);
  take_output(bad_password);
  ASSERT_EQ(bad_password.feed("\x01\x01"s), Progress::failed);
  EXPECT_NE(bad_password.error().message().find("refused the credentials"), std::string::npos);

  Socks5Handshake unreachable(socks(), "example.org", 443, std::nullopt);
  take_output(unreachable);
  unreachable.feed("\x05\x00"s);
  take_output(unreachable);
  ASSERT_EQ(unreachable.feed("\x05\x05\x00\x01\x00\x00\x00\x00\x00\x00"s), Progress::failed);
  EXPECT_EQ(unreachable.error().message(),
            "proxy 127.0.0.1:1080: SOCKS5: the proxy could not reach example.org:443 "
            "(connection refused)");
}

// curl's CVE-2023-38545: a name over 255 bytes went by name anyway. One length byte
// cannot say 300, so the name is refused before CONNECT, which never goes; 255 bytes
// is the longest that fits, and goes whole.
TEST(Socks5Handshake, ANameLongerThanItsLengthByteIsRefusedBeforeConnect) {
  const std::string longest(255, 'a');
  Socks5Handshake fits(socks(), longest, 80, std::nullopt);
  take_output(fits);
  ASSERT_EQ(fits.feed("\x05\x00"s), Progress::waiting);
  EXPECT_EQ(take_output(fits), "\x05\x01\x00\x03\xff"s + longest + "\x00\x50"s);

  Socks5Handshake too_long(socks(), std::string(300, 'a'), 80, std::nullopt);
  take_output(too_long);
  ASSERT_EQ(too_long.feed("\x05\x00"s), Progress::failed);
  EXPECT_TRUE(too_long.output().empty()) << "a CONNECT went for a name its length byte cuts";
  EXPECT_EQ(too_long.error().code(), ErrorCode::usage);
  EXPECT_EQ(too_long.error().message(),
            "proxy 127.0.0.1:1080: SOCKS5: the host name is 300 bytes, longer than the 255 "
            "SOCKS5 carries (socks5:// resolves it here)");

  // After authentication the same.
  Socks5Handshake after_login(socks("me", "pw"), std::string(256, 'b'), 80, std::nullopt);
  take_output(after_login);
  after_login.feed("\x05\x02"s);
  take_output(after_login);
  ASSERT_EQ(after_login.feed("\x01\x00"s), Progress::failed);
  EXPECT_TRUE(after_login.output().empty());

  // Resolved here, the name does not go at all: any length is fine.
  Socks5Handshake resolved(socks(), std::string(300, 'a'), 80,
                           SocketAddress::from_ip("10.1.2.3", 80));
  take_output(resolved);
  EXPECT_EQ(resolved.feed("\x05\x00"s), Progress::waiting);
  EXPECT_EQ(take_output(resolved), "\x05\x01\x00\x01\x0a\x01\x02\x03\x00\x50"s);
}

// curl's 97 (CURLE_PROXY): the proxy broke SOCKS5 itself.
TEST(Socks5Handshake, NotSocksOrBytesAfterTheAnswerAreProxyHandshakeErrors) {
  Socks5Handshake http(socks(), "h", 80, std::nullopt);
  take_output(http);
  ASSERT_EQ(http.feed("HTTP/1.1 400 Bad Request\r\n"), Progress::failed);
  EXPECT_EQ(http.error().code(), ErrorCode::proxy_handshake);
  Socks5Handshake eager(socks(), "h", 80, std::nullopt);
  take_output(eager);
  eager.feed("\x05\x00"s);
  take_output(eager);
  EXPECT_EQ(eager.feed(kGranted + "\x16\x03"), Progress::failed);
  // The grant arriving with the method choice, before CONNECT was even sent (the
  // fuzz target's find): an answer to a question not yet asked.
  Socks5Handshake pipelined(socks(), "h", 80, std::nullopt);
  take_output(pipelined);
  EXPECT_EQ(pipelined.feed("\x05\x00"s + kGranted), Progress::failed);
  EXPECT_EQ(pipelined.error().code(), ErrorCode::proxy_handshake);
}

}  // namespace
}  // namespace sluice
