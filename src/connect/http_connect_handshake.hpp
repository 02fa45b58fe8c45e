#pragma once
// HttpConnectHandshake: HTTP's CONNECT (proxy_connect.hpp) as a TunnelHandshake: the
// request, then the proxy's answer; a refusal is ErrorCode::proxy_refused with the
// proxy's status and reason, and what to do about a 407.
// Ownership: owned by Connector; HTTP thread only.

#include <string>

#include "connect/proxy_connect.hpp"
#include "connect/tunnel_handshake.hpp"

namespace sluice {

class HttpConnectHandshake final : public TunnelHandshake {
 public:
  /// `authority`: the target as CONNECT names it ("host:port", IPv6 bracketed).
  HttpConnectHandshake(const ProxyHop& proxy, std::string authority);

  std::string_view output() const override { return std::string_view(request_).substr(sent_); }
  void sent(std::size_t n) override { sent_ += n; }
  Progress feed(std::string_view bytes) override;
  Error error() const override;
  std::string answer() const override { return reply_.summary(); }

 private:
  std::string proxy_display_;
  bool with_credentials_;
  std::string authority_;
  std::string request_;
  std::size_t sent_ = 0;
  ConnectReply reply_;
};

}  // namespace sluice
