// Fuzz target: Socks5Handshake (src/connect/socks5_handshake), which reads a SOCKS5
// proxy's answers before a tunnel carries TLS.
// Input: one byte choosing the case (bit 0: credentials offered; bit 1: the target
// goes as an IPv4 address, not a name), then fuzz_input.hpp's split header, then the
// proxy's bytes, fed in those pieces; after each piece the handshake's output is
// taken, as Connector sends it.
// Invariants checked: a decided handshake (open or failed) stays decided; a failure
// has an error naming the proxy; nothing is asked to be sent once open; each message
// it sends fits SOCKS5's limits (at most 3 + 255 + 255 bytes).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "connect/socks5_handshake.hpp"
#include "fuzz_input.hpp"

using sluice::TunnelHandshake;
using sluice::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sluice::fuzz::FuzzInput input(data, size);
  const std::uint8_t choice = input.byte();
  sluice::ProxyHop proxy;
  proxy.kind = sluice::ProxyKind::socks5h;
  proxy.display = "127.0.0.1:1080";
  proxy.tunnel = true;
  if (choice & 1) {
    proxy.user = "user";
    proxy.password = "password";
  }
  auto address = (choice & 2) ? sluice::SocketAddress::from_ip("10.0.0.1", 443) : std::nullopt;
  sluice::Socks5Handshake handshake(proxy, "example.org", 443, address);
  const std::vector<std::string_view> pieces = sluice::fuzz::split_pieces(input);
  TunnelHandshake::Progress progress = TunnelHandshake::Progress::waiting;
  for (std::string_view piece : pieces) {
    const std::string_view out = handshake.output();
    check(out.size() <= 3 + 255 + 255, "a message longer than SOCKS5 allows");
    handshake.sent(out.size());
    const TunnelHandshake::Progress before = progress;
    progress = handshake.feed(piece);
    if (before == TunnelHandshake::Progress::failed) {
      check(progress == TunnelHandshake::Progress::failed, "a failed handshake recovered");
    }
    if (progress == TunnelHandshake::Progress::failed) {
      check(handshake.error().message().find("proxy 127.0.0.1:1080") == 0,
            "a failure that does not name the proxy");
      break;
    }
    if (progress == TunnelHandshake::Progress::open) {
      check(handshake.output().empty(), "an open tunnel still has bytes to send");
      break;
    }
  }
  return 0;
}
