#include "connect/http_connect_handshake.hpp"

namespace sluice {

HttpConnectHandshake::HttpConnectHandshake(const ProxyHop& proxy, std::string authority)
    : proxy_display_(proxy.display),
      with_credentials_(!proxy.authorization.empty()),
      authority_(std::move(authority)),
      request_(connect_request(authority_, proxy.authorization)) {}

TunnelHandshake::Progress HttpConnectHandshake::feed(std::string_view bytes) {
  switch (reply_.feed(bytes)) {
    case ConnectReply::State::incomplete: return Progress::waiting;
    case ConnectReply::State::open: return Progress::open;
    case ConnectReply::State::refused:
    case ConnectReply::State::malformed: break;
  }
  return Progress::failed;
}

Error HttpConnectHandshake::error() const {
  const std::string to = " the tunnel to " + authority_;
  if (reply_.state() == ConnectReply::State::malformed) {
    return Error(ErrorCode::protocol_error, "proxy " + proxy_display_ + ": sent " +
                                                reply_.summary() + " (asked for" + to + ")");
  }
  std::string message = "proxy " + proxy_display_ + " refused" + to + " (" + reply_.summary() + ")";
  if (reply_.status() == 407) {
    message += with_credentials_ ? ": it did not accept the credentials"
                                 : ": it wants credentials (a proxy URL with user:password)";
  }
  return Error(ErrorCode::proxy_refused, std::move(message));
}

}  // namespace sluice
