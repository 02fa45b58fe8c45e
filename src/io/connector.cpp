#include "io/connector.hpp"

#include <sys/epoll.h>

namespace sluice {

Connector::Connector(EventLoop& loop, Resolver& resolver, TlsContext* tls, const Target& target,
                     Options options, Callback done)
    : loop_(loop),
      tls_(tls),
      host_(target.host),
      port_(target.port),
      https_(target.tls),
      options_(std::move(options)),
      done_(std::move(done)) {
  if (options_.trace != nullptr && options_.trace->on()) {
    trace("resolving " + host_ + " for " + target.origin);
  }
  timing_.dns_start = loop_.now();
  lookup_ = resolver.resolve(host_, port_, [this](Result<std::vector<SocketAddress>> addresses) {
    on_resolved(std::move(addresses));
  });
}

Connector::~Connector() {
  if (watching_ && handshaking_) loop_.unwatch(handshaking_->fd());
  if (tls_timer_ != 0) loop_.cancel_timer(tls_timer_);
}

void Connector::on_resolved(Result<std::vector<SocketAddress>> addresses) {
  timing_.dns_end = loop_.now();
  if (!addresses) {
    finish(std::move(addresses).error());
    return;
  }
  if (options_.trace != nullptr && options_.trace->on()) {
    std::string list;
    for (const auto& address : *addresses) list += (list.empty() ? "" : ", ") + address.to_string();
    trace("trying " + list);
  }
  timing_.connect_start = loop_.now();
  connect_ = std::make_unique<TcpConnect>(loop_, std::move(*addresses),
                                          [this](Result<int> fd) { on_connected(std::move(fd)); });
}

void Connector::on_connected(Result<int> fd) {
  if (!fd) {
    finish(std::move(fd).error());
    return;
  }
  timing_.connect_end = loop_.now();
  if (auto peer = SocketAddress::peer_of(*fd)) {
    timing_.remote_ip = peer->ip();
    timing_.remote_port = peer->port();
  }
  if (!https_) {
    finish(make_plain_transport(*fd));
    return;
  }
  timing_.tls_start = loop_.now();
  auto transport = tls_->connect(*fd, host_, options_.alpn);
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

void Connector::on_fd_ready(std::uint32_t) { drive_handshake(); }

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
  auto armed = watching_ ? loop_.modify(handshaking_->fd(), events)
                         : loop_.watch(handshaking_->fd(), events, this);
  if (!armed) {
    finish(std::move(armed).error());
    return;
  }
  watching_ = true;
}

void Connector::trace(const std::string& what) const {
  options_.trace->emit("c" + std::to_string(options_.conn_id) + " connect: " + what);
}

void Connector::finish(Result<std::unique_ptr<Transport>> result) {
  if (watching_) {
    // The transport keeps its fd; the next owner registers it again.
    const int fd = result ? (*result)->fd() : (handshaking_ ? handshaking_->fd() : -1);
    if (fd >= 0) loop_.unwatch(fd);
    watching_ = false;
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
