#include "io/connector.hpp"

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
  if (tunnel_fd_ >= 0) ::close(tunnel_fd_);
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
  connect_ = std::make_unique<TcpConnect>(loop_, std::move(addresses),
                                          [this](Result<int> fd) { on_connected(std::move(fd)); },
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
  if (proxy_ && proxy_->tunnel) {
    tunnel_fd_ = *fd;
    tunnel_ = make_tunnel_handshake(*proxy_, connect_host_, connect_port_, target_address_);
    if (options_.trace != nullptr && options_.trace->on()) {
      trace("tunnel to " + target_authority() + " through proxy " + proxy_->display);
    }
    // A proxy that accepts and never answers must not hold the attempt (and the
    // origin's connection slot) forever: the tunnel has the TLS handshake's limit, or
    // 30 s without one.
    const auto limit = options_.tls_timeout.count() > 0 ? options_.tls_timeout
                                                        : std::chrono::milliseconds(30'000);
    tls_timer_ = loop_.add_timer(loop_.now() + limit, [this, limit] {
      tls_timer_ = 0;
      finish(Error(ErrorCode::connect_timeout,
                   "proxy " + proxy_->display + " did not answer the request for the tunnel to " +
                       target_authority() + " within " + std::to_string(limit.count()) + " ms"));
    });
    drive_tunnel();
    return;
  }
  secure(*fd);
}

void Connector::secure(int fd) {
  if (tls_timer_ != 0) {  // the tunnel's, if any: TLS arms its own
    loop_.cancel_timer(tls_timer_);
    tls_timer_ = 0;
  }
  if (!https_) {
    finish(make_plain_transport(fd));
    return;
  }
  timing_.tls_start = loop_.now();
  auto transport = tls_->connect(fd, host_, options_.alpn);
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
  if (tunnel_fd_ >= 0) {
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
  char buffer[4096];
  for (;;) {
    if (!send_tunnel_output()) return;
    const ssize_t got = ::recv(tunnel_fd_, buffer, sizeof buffer, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (auto armed = watch_for(tunnel_fd_, EPOLLIN); !armed) finish(std::move(armed).error());
      return;
    }
    if (got <= 0) {
      const std::string why = got == 0 ? "closed the connection" : std::strerror(errno);
      finish(via_proxy(Error(ErrorCode::connect_failed,
                             why + " before the tunnel to " + target_authority() + " opened")));
      return;
    }
    switch (tunnel_->feed(std::string_view(buffer, static_cast<std::size_t>(got)))) {
      case TunnelHandshake::Progress::waiting: continue;  // maybe with more to send
      case TunnelHandshake::Progress::failed: finish(tunnel_->error()); return;
      case TunnelHandshake::Progress::open: break;
    }
    if (options_.trace != nullptr && options_.trace->on()) {
      trace("tunnel to " + target_authority() + " open (" + tunnel_->answer() + ")");
    }
    tunnel_.reset();
    secure(std::exchange(tunnel_fd_, -1));  // TLS or the transport owns the socket now
    return;
  }
}

bool Connector::send_tunnel_output() {
  for (std::string_view out = tunnel_->output(); !out.empty(); out = tunnel_->output()) {
    const ssize_t sent = ::send(tunnel_fd_, out.data(), out.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (auto armed = watch_for(tunnel_fd_, EPOLLOUT); !armed) finish(std::move(armed).error());
      return false;
    }
    if (sent < 0) {
      finish(via_proxy(Error(ErrorCode::connect_failed, "cannot ask for the tunnel to " +
                                                            target_authority() + ": " +
                                                            std::strerror(errno))));
      return false;
    }
    tunnel_->sent(static_cast<std::size_t>(sent));
  }
  return true;
}

void Connector::drive_handshake() {
  auto state = handshaking_->handshake();
  if (!state) {
    finish(std::move(state).error());
    return;
  }
  if (*state == IoStatus::done) {
    timing_.tls_end = loop_.now();
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
  options_.trace->emit("c" + std::to_string(options_.conn_id) + " connect: " + what);
}

void Connector::finish(Result<std::unique_ptr<Transport>> result) {
  if (watched_fd_ >= 0) {
    // The transport keeps its fd and its next owner registers it again; an fd that
    // failed is closed or about to be. Either way this Connector's entry goes.
    loop_.unwatch(std::exchange(watched_fd_, -1));
  }
  if (tunnel_fd_ >= 0) {
    ::close(tunnel_fd_);  // a tunnel that failed: nobody else holds its socket
    tunnel_fd_ = -1;
  }
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
