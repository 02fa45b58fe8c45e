// BlackHole: a listener whose full accept queue makes the kernel drop new SYNs.

#include "support/black_hole.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

#include "net/socket_address.hpp"

namespace sluice::test {

BlackHole::BlackHole(const std::string& ip, std::uint16_t port) {
  auto address = SocketAddress::from_ip(ip, port);
  if (!address) throw std::runtime_error("BlackHole: not an IP address: " + ip);
  listener_ = ::socket(address->family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(listener_, reinterpret_cast<const sockaddr*>(&address->storage), address->length) !=
          0 ||
      ::listen(listener_, 0) != 0) {
    throw std::runtime_error("BlackHole: cannot listen on " + address->to_string() + ": " +
                             std::strerror(errno));
  }
  SocketAddress bound;
  bound.length = sizeof bound.storage;
  getsockname(listener_, reinterpret_cast<sockaddr*>(&bound.storage), &bound.length);
  port_ = bound.port();
  // Fill the accept queue until a connect no longer completes: from then on the
  // kernel drops SYNs to this address (Linux keeps backlog + 1 connections queued).
  const SocketAddress target = address->with_port(port_);
  for (int i = 0; i < 8; ++i) {
    const int fd = ::socket(target.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    fillers_.push_back(fd);
    const int rv = ::connect(fd, reinterpret_cast<const sockaddr*>(&target.storage), target.length);
    if (rv == 0) continue;
    pollfd waiting{fd, POLLOUT, 0};
    if (::poll(&waiting, 1, 200) == 0) return;  // this one hangs: the hole is ready
  }
  throw std::runtime_error("BlackHole: the kernel kept accepting connections to " +
                           target.to_string());
}

BlackHole::~BlackHole() {
  for (const int fd : fillers_) ::close(fd);
  ::close(listener_);
}

}  // namespace sluice::test
