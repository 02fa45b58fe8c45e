#include "connect/connector.hpp"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sluice {

Connector::Connector(EventLoop& loop, Resolver& resolver, TlsContext* tls, const Target& target,
                     Options options, Callback done)
    : loop_(loop),
      tls_(tls),
      host_(target.host),
      port_(target.port),
      connect_host_(target.connect_host.empty() ? target.host : target.connect_host),
      connect_port_(target.connect_port == 0 ? target.port : target.connect_port),
      https_(target.tls),
      proxy_(target.proxy),
      options_(std::move(options)),
      done_(std::move(done)) {
  if (options_.trace != nullptr && options_.trace->on()) {
    trace("resolving for " + target.origin + (proxy_ ? " (proxy " + proxy_->display + ")" : ""));
  }
  timing_.dns_start = loop_.now();
  if (!target.unix_socket.empty()) {
    // No name to resolve: the "lookup" is done as it starts.
    timing_.dns_end = timing_.dns_start;
    // A path too long for sun_path is refused by Client::create; here it would leave
    // no address ("no addresses to connect to").
    auto address = SocketAddress::from_unix_path(target.unix_socket);
    connect_to(address ? std::vector<SocketAddress>{*address} : std::vector<SocketAddress>{});
    return;
  }
  // socks5:// sends the proxy the target's address: resolve that first (a literal
  // needs no lookup).
  if (proxy_ && proxy_->kind == ProxyKind::socks5) {
    target_address_ = SocketAddress::from_ip(connect_host_, connect_port_);
    if (!target_address_) {
      lookup_ = resolver.resolve(connect_host_, connect_port_,
                                 [this, &resolver](Result<std::vector<SocketAddress>> addresses) {
                                   on_target_resolved(resolver, std::move(addresses));
                                 });
      return;
    }
  }
  resolve_next_hop(resolver);
}

void Connector::resolve_next_hop(Resolver& resolver) {
  // Through a proxy the name to resolve is the proxy's; the proxy reaches the target.
  const std::string& name = proxy_ ? proxy_->host : connect_host_;
  const std::uint16_t port = proxy_ ? proxy_->port : connect_port_;
  lookup_ = resolver.resolve(name, port, [this](Result<std::vector<SocketAddress>> addresses) {
    on_resolved(std::move(addresses));
  });
}

void Connector::on_target_resolved(Resolver& resolver,
                                   Result<std::vector<SocketAddress>> addresses) {
  if (!addresses) {
    finish(std::move(addresses).error());
    return;
  }
  target_address_ = addresses->front();
  resolve_next_hop(resolver);  // replaces the lookup that is calling: allowed
}

Connector::~Connector() {
  if (watched_fd_ >= 0) loop_.unwatch(watched_fd_);
  if (tls_timer_ != 0) loop_.cancel_timer(tls_timer_);
}

Error Connector::via_proxy(Error error) const {
  if (!proxy_) return error;
  return Error(error.code(), "proxy " + proxy_->display + ": " + error.message());
}

std::string Connector::target_authority() const {
  const bool ipv6 = connect_host_.find(':') != std::string::npos;
  return (ipv6 ? "[" + connect_host_ + "]" : connect_host_) + ":" + std::to_string(connect_port_);
}

void Connector::on_resolved(Result<std::vector<SocketAddress>> addresses) {
  timing_.dns_end = loop_.now();
  if (!addresses) {
    finish(via_proxy(std::move(addresses).error()));
    return;
  }
  if (options_.trace != nullptr && options_.trace->on()) {
    std::string list;
    for (const auto& address : *addresses) list += (list.empty() ? "" : ", ") + address.to_string();
    trace("trying " + list);
  }
  connect_to(std::move(*addresses));
}

void Connector::connect_to(std::vector<SocketAddress> addresses) {
  timing_.connect_start = loop_.now();
  ConnectAttempts attempts = options_.attempts;
  if (options_.trace != nullptr && options_.trace->on()) {
    attempts.note = [this](const std::string& what) { trace(what); };
  }
  connect_ = std::make_unique<TcpConnect>(
      loop_, std::move(addresses), [this](Result<int> fd) { on_connected(std::move(fd)); },
      std::move(attempts));
}

void Connector::on_connected(Result<int> fd) {
  if (!fd) {
    finish(via_proxy(std::move(fd).error()));
    return;
  }
  timing_.connect_end = loop_.now();
  if (auto peer = SocketAddress::peer_of(*fd)) {
    timing_.remote_ip = peer->ip();
    timing_.remote_port = peer->port();
  }
  if (auto local = SocketAddress::local_of(*fd); local && local->family() != AF_UNIX) {
    timing_.local_ip = local->ip();
    timing_.local_port = local->port();
  }
  if (proxy_ && proxy_->kind == ProxyKind::https) {
    secure_proxy(*fd);
    return;
  }
  hop_ = make_plain_transport(*fd);
  through_proxy();
}

void Connector::arm_proxy_timer() {
  // A proxy that accepts and never answers must not hold the attempt (and the
  // origin's connection slot) forever: its part has the TLS handshake's limit, or 30 s
  // without one.
  const auto limit =
      options_.tls_timeout.count() > 0 ? options_.tls_timeout : std::chrono::milliseconds(30'000);
  tls_timer_ = loop_.add_timer(loop_.now() + limit, [this, limit] {
    tls_timer_ = 0;
    finish(Error(ErrorCode::connect_timeout,
                 "proxy " + proxy_->display + " did not answer the request for the tunnel to " +
                     target_authority() + " within " + std::to_string(limit.count()) + " ms"));
  });
}

void Connector::secure_proxy(int fd) {
  if (options_.proxy_tls == nullptr) {
    ::close(fd);
    finish(via_proxy(Error(ErrorCode::usage, "no TLS settings for an https:// proxy")));
    return;
  }
  // HTTP/1.1 to the proxy: CONNECT and forwarded requests are HTTP/1.1 messages.
  auto transport = options_.proxy_tls->connect(fd, proxy_->host, {"http/1.1"}, proxy_->port);
  if (!transport) {
    finish(via_proxy(std::move(transport).error()));
    return;
  }
  handshaking_ = std::move(*transport);
  proxy_handshake_ = true;
  arm_proxy_timer();
  drive_handshake();
}

void Connector::through_proxy() {
  if (!proxy_ || !proxy_->tunnel) {
    secure(std::move(hop_));  // direct, or a forwarding proxy: the hop is the connection
    return;
  }
  tunnel_ = make_tunnel_handshake(*proxy_, connect_host_, connect_port_, target_address_);
  if (options_.trace != nullptr && options_.trace->on()) {
    trace("tunnel to " + target_authority() + " through proxy " + proxy_->display);
  }
  if (tls_timer_ == 0) arm_proxy_timer();
  drive_tunnel();
}

void Connector::secure(std::unique_ptr<Transport> under) {
  if (tls_timer_ != 0) {  // the proxy's, if any: TLS arms its own
    loop_.cancel_timer(tls_timer_);
    tls_timer_ = 0;
  }
  if (!https_ || (proxy_ && !proxy_->tunnel)) {
    // Plain http, or a forwarding proxy, which gets the request as it is.
    finish(std::move(under));
    return;
  }
  timing_.tls_start = loop_.now();
  // Over an https:// proxy the target's TLS runs inside the proxy's; otherwise it
  // takes the socket itself.
  auto transport = under->is_tls()
                       ? tls_->connect_over(std::move(under), host_, port_, options_.alpn)
                       : tls_->connect(under->release_socket(), host_, options_.alpn, port_);
  if (!transport) {
    finish(std::move(transport).error());
    return;
  }
  handshaking_ = std::move(*transport);
  if (options_.tls_timeout.count() > 0) {
    tls_timer_ = loop_.add_timer(loop_.now() + options_.tls_timeout, [this] {
      tls_timer_ = 0;
      finish(Error(ErrorCode::handshake_timeout,
                   "TLS: handshake with " + host_ + " did not complete within " +
                       std::to_string(options_.tls_timeout.count()) + " ms"));
    });
  }
  drive_handshake();
}

void Connector::on_fd_ready(std::uint32_t) {
  if (tunnel_) {
    drive_tunnel();
  } else {
    drive_handshake();
  }
}

Result<void> Connector::watch_for(int fd, std::uint32_t events) {
  // The tunnel's socket becomes TLS's: the same fd, so its registration carries over.
  auto armed = watched_fd_ == fd ? loop_.modify(fd, events) : loop_.watch(fd, events, this);
  if (armed) watched_fd_ = fd;
  return armed;
}

void Connector::drive_tunnel() {
  std::byte buffer[4096];
  for (;;) {
    if (!send_tunnel_output()) return;
    auto got = hop_->read(buffer);
    if (!got) {
      finish(via_proxy(Error(
          ErrorCode::connect_failed,
          got.error().message() + " before the tunnel to " + target_authority() + " opened")));
      return;
    }
    if (got->status == IoStatus::want_read || got->status == IoStatus::want_write) {
      const std::uint32_t events = got->status == IoStatus::want_write ? EPOLLOUT : EPOLLIN;
      if (auto armed = watch_for(hop_->fd(), events); !armed) finish(std::move(armed).error());
      return;
    }
    if (got->status == IoStatus::eof) {
      finish(
          via_proxy(Error(ErrorCode::connect_failed, "closed the connection before the tunnel to " +
                                                         target_authority() + " opened")));
      return;
    }
    const auto* bytes = reinterpret_cast<const char*>(buffer);
    switch (tunnel_->feed(std::string_view(bytes, got->bytes))) {
      case TunnelHandshake::Progress::waiting: continue;  // maybe with more to send
      case TunnelHandshake::Progress::failed: finish(tunnel_->error()); return;
      case TunnelHandshake::Progress::open: break;
    }
    if (options_.trace != nullptr && options_.trace->on()) {
      trace("tunnel to " + target_authority() + " open (" + tunnel_->answer() + ")");
    }
    tunnel_.reset();
    secure(std::move(hop_));  // TLS or the transport owns the way to the proxy now
    return;
  }
}

bool Connector::send_tunnel_output() {
  for (std::string_view out = tunnel_->output(); !out.empty(); out = tunnel_->output()) {
    auto sent = hop_->write(std::as_bytes(std::span(out.data(), out.size())));
    if (!sent) {
      finish(via_proxy(Error(
          ErrorCode::connect_failed,
          "cannot ask for the tunnel to " + target_authority() + ": " + sent.error().message())));
      return false;
    }
    if (sent->status == IoStatus::want_read || sent->status == IoStatus::want_write) {
      const std::uint32_t events = sent->status == IoStatus::want_read ? EPOLLIN : EPOLLOUT;
      if (auto armed = watch_for(hop_->fd(), events); !armed) finish(std::move(armed).error());
      return false;
    }
    tunnel_->sent(sent->bytes);
  }
  return true;
}

void Connector::drive_handshake() {
  auto state = handshaking_->handshake();
  if (!state) {
    finish(proxy_handshake_ ? via_proxy(std::move(state).error()) : std::move(state).error());
    return;
  }
  if (*state == IoStatus::done) {
    if (proxy_handshake_) {
      proxy_handshake_ = false;
      if (options_.trace != nullptr && options_.trace->on()) {
        trace("TLS handshake done with proxy " + proxy_->display);
      }
      hop_ = std::move(handshaking_);
      through_proxy();
      return;
    }
    timing_.tls_end = loop_.now();
    timing_.tls_verify_result = handshaking_->verify_result();
    timing_.tls = handshaking_->tls_info();
    if (options_.trace != nullptr && options_.trace->on()) {
      const std::string alpn = handshaking_->alpn();
      trace("TLS handshake done with " + host_ + ", ALPN " + (alpn.empty() ? "none" : alpn));
    }
    finish(std::move(handshaking_));
    return;
  }
  const std::uint32_t events = *state == IoStatus::want_write ? EPOLLOUT : EPOLLIN;
  if (auto armed = watch_for(handshaking_->fd(), events); !armed) finish(std::move(armed).error());
}

void Connector::trace(const std::string& what) const {
  options_.trace->emit(options_.conn_id, "connect", what);
}

void Connector::finish(Result<std::unique_ptr<Transport>> result) {
  if (watched_fd_ >= 0) {
    // The transport keeps its fd and its next owner registers it again; an fd that
    // failed is closed or about to be. Either way this Connector's entry goes.
    loop_.unwatch(std::exchange(watched_fd_, -1));
  }
  hop_.reset();  // a tunnel that failed: nobody else holds its socket
  tunnel_.reset();
  if (tls_timer_ != 0) {
    loop_.cancel_timer(tls_timer_);
    tls_timer_ = 0;
  }
  handshaking_.reset();
  auto done = std::move(done_);
  done_ = nullptr;
  if (done) done(std::move(result));  // may destroy this Connector
}

}  // namespace sluice
