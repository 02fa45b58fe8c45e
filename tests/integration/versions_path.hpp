#pragma once
// HeldPath: the network between the client and a real server, which a Versions*
// test can hold (nothing passes either way: the server falls silent, as a stalled
// server or a dead path looks to the client) and slow down (the server takes a
// request body slowly). The real servers cannot be told to stall; the path can.
// For TCP (h1, h1 over TLS, h2, h2c) it is TcpRelay below; for h3, the UDP fault
// proxy (support/udp_proxy.hpp).
// TcpRelay: accepts on 127.0.0.1 and relays each connection to 127.0.0.1:PORT with
// one thread per direction, blocking I/O. Thread-safety: methods from the test
// thread; the relay's own threads are joined by the destructor.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "integration/versions.hpp"
#include "support/udp_proxy.hpp"

namespace sluice::test {

class TcpRelay {
 public:
  explicit TcpRelay(std::uint16_t target_port) : target_port_(target_port) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    // A small receive buffer towards the client (set before listen so that the
    // window scale agrees): a slowed upload backs up into the client quickly.
    const int receive_buffer = 64 * 1024;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    sockaddr_in address = loopback(0);
    socklen_t length = sizeof address;
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        ::listen(listen_fd_, 16) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      throw std::runtime_error("TcpRelay: cannot listen on 127.0.0.1");
    }
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }

  ~TcpRelay() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
      for (auto& link : links_) {
        ::shutdown(link->client_fd, SHUT_RDWR);
        ::shutdown(link->server_fd, SHUT_RDWR);
      }
    }
    passable_.notify_all();
    ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
    acceptor_.join();
    for (auto& link : links_) {
      link->up.join();
      link->down.join();
      ::close(link->client_fd);
      ::close(link->server_fd);
    }
    ::close(listen_fd_);
  }
  TcpRelay(const TcpRelay&) = delete;
  TcpRelay& operator=(const TcpRelay&) = delete;

  std::uint16_t port() const { return port_; }

  /// From now on nothing more is relayed, either way, until release().
  void hold() {
    std::lock_guard lock(mu_);
    held_ = true;
  }
  void release() {
    {
      std::lock_guard lock(mu_);
      held_ = false;
    }
    passable_.notify_all();
  }
  /// Client-to-server bytes go in pieces of at most `piece` bytes, each read from
  /// the client only once the one before has left for the server: the client's
  /// upload moves at the pace of the relay and the server, never ahead of them.
  void slow_uploads(std::size_t piece) {
    std::lock_guard lock(mu_);
    upload_piece_ = piece;
  }

 private:
  struct Link {
    int client_fd = -1;
    int server_fd = -1;
    std::thread up;    // client -> server
    std::thread down;  // server -> client
  };

  static sockaddr_in loopback(std::uint16_t port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
  }

  void accept_loop() {
    for (;;) {
      const int client_fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client_fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        return;  // shut down by the destructor
      }
      const int server_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      const sockaddr_in target = loopback(target_port_);
      if (server_fd < 0 ||
          ::connect(server_fd, reinterpret_cast<const sockaddr*>(&target), sizeof target) != 0) {
        ::close(client_fd);
        if (server_fd >= 0) ::close(server_fd);
        continue;
      }
      std::lock_guard lock(mu_);
      if (stopping_) {
        ::close(client_fd);
        ::close(server_fd);
        return;
      }
      // Each piece goes on at once: Nagle's wait for an ACK the peer delays would
      // add 40 ms to every window's last piece.
      const int on = 1;
      ::setsockopt(client_fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
      ::setsockopt(server_fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
      auto link = std::make_unique<Link>();
      link->client_fd = client_fd;
      link->server_fd = server_fd;
      link->up = std::thread([this, client_fd, server_fd] { pump(client_fd, server_fd, true); });
      link->down = std::thread([this, client_fd, server_fd] { pump(server_fd, client_fd, false); });
      links_.push_back(std::move(link));
    }
  }

  // One direction: read what arrives, wait while held, pass it on. A closed or
  // failed source ends it with a FIN onward, as the peer would have sent.
  void pump(int from, int to, bool upload) {
    std::vector<char> buffer(64 * 1024);
    bool lowat_set = false;
    for (;;) {
      std::size_t piece = buffer.size();
      bool paced = false;
      {
        std::lock_guard lock(mu_);
        if (upload && upload_piece_ > 0) {
          piece = std::min(piece, upload_piece_);
          paced = true;
        }
      }
      const ssize_t n = ::recv(from, buffer.data(), piece, 0);
      if (n <= 0) break;
      {
        std::unique_lock lock(mu_);
        passable_.wait(lock, [this] { return !held_ || stopping_; });
        if (stopping_) break;
      }
      if (!send_all(to, buffer.data(), static_cast<std::size_t>(n))) break;
      if (paced && !lowat_set) {
        const int lowat = 1;
        ::setsockopt(to, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof lowat);
        lowat_set = true;
      }
      if (paced && !wait_until_sent(to)) break;
    }
    ::shutdown(to, SHUT_WR);
  }

  // Waits until every byte written to `fd` has left for its peer: with
  // TCP_NOTSENT_LOWAT at 1 (set once, on the first paced piece), POLLOUT means
  // nothing is left unsent (an event of the kernel's, not a time). False when the
  // socket failed or was shut down.
  static bool wait_until_sent(int fd) {
    pollfd watched{fd, POLLOUT, 0};
    for (;;) {
      const int ready = ::poll(&watched, 1, -1);
      if (ready < 0 && errno == EINTR) continue;
      return ready == 1 && (watched.revents & (POLLERR | POLLHUP | POLLNVAL)) == 0;
    }
  }

  static bool send_all(int fd, const char* bytes, std::size_t size) {
    while (size > 0) {
      const ssize_t n = ::send(fd, bytes, size, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes += n;
      size -= static_cast<std::size_t>(n);
    }
    return true;
  }

  const std::uint16_t target_port_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::thread acceptor_;
  std::mutex mu_;
  std::condition_variable passable_;
  bool held_ = false;                         // guarded by mu_
  bool stopping_ = false;                     // guarded by mu_
  std::size_t upload_piece_ = 0;              // guarded by mu_; 0: full speed
  std::vector<std::unique_ptr<Link>> links_;  // guarded by mu_ (joined after acceptor_)
};

/// A path to the real server at `server_url` ("http(s)://HOST:PORT") for one version.
class HeldPath {
 public:
  HeldPath(Wire wire, const std::string& server_url) : wire_(wire) {
    const auto port =
        static_cast<std::uint16_t>(std::stoi(server_url.substr(server_url.rfind(':') + 1)));
    if (wire == Wire::h3) {
      udp_ = std::make_unique<UdpProxy>("127.0.0.1", port);
    } else {
      tcp_ = std::make_unique<TcpRelay>(port);
    }
  }

  /// `path` on the server, through this path. TCP goes to 127.0.0.1 (the relay's
  /// address; the test certificate names it); h3 to localhost, which caddy routes.
  std::string url(std::string_view path) const {
    if (udp_) return "https://localhost:" + std::to_string(udp_->port()) + std::string(path);
    const bool tls = wire_ == Wire::h1_tls || wire_ == Wire::h2;
    return std::string(tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(tcp_->port()) +
           std::string(path);
  }

  /// Nothing passes either way until release(): to the client, the server fell silent.
  void hold() {
    if (udp_) udp_->set_black_hole(true);
    if (tcp_) tcp_->hold();
  }
  void release() {
    if (udp_) udp_->set_black_hole(false);
    if (tcp_) tcp_->release();
  }

  /// Request bodies go slowly: over TCP 32 KiB at a time, each only once the one
  /// before reached the server; over h3 every datagram takes 20 ms each way, so
  /// QUIC's windows open one slow round trip at a time.
  void slow_uploads() {
    if (tcp_) tcp_->slow_uploads(32 * 1024);
    if (udp_) {
      UdpProxyOptions slow;
      slow.delay = 20ms;
      udp_->set_options(slow);
    }
  }

 private:
  Wire wire_;
  std::unique_ptr<TcpRelay> tcp_;
  std::unique_ptr<UdpProxy> udp_;
};

}  // namespace sluice::test
