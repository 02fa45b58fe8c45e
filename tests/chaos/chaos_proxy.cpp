#include "chaos/chaos_proxy.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/link_socket.hpp"

namespace sluice::chaos {
namespace {

struct Decision {
  TcpFault fault = TcpFault::pass;
  std::uint64_t offset = 0;  ///< bytes to the client before the fault acts
};

// A stall ends when the client gives up; this only bounds a client that never does.
constexpr int kStallLimitMs = 60'000;
constexpr std::string_view k503 =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nRetry-After: 0\r\n"
    "Connection: close\r\n\r\n";

int connect_loopback(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const sockaddr_in address = bench::loopback_address(port);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Waits for `events` on fd; false when the proxy stops (stop_fd readable) or after
// timeout_ms (-1: none).
bool wait_for(int fd, short events, int stop_fd, int timeout_ms = -1) {
  pollfd fds[2] = {{fd, events, 0}, {stop_fd, POLLIN, 0}};
  const int ready = ::poll(fds, 2, timeout_ms);
  return ready > 0 && fds[1].revents == 0;
}

// Blocking writes would keep a relay thread past the destructor when the client
// holds its body unread, so every write waits on the stop pipe too.
bool send_all(int fd, const char* data, std::size_t size, int stop_fd) {
  while (size > 0) {
    if (!wait_for(fd, POLLOUT, stop_fd)) return false;
    const ssize_t sent = ::send(fd, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (sent <= 0) return false;
    data += sent;
    size -= static_cast<std::size_t>(sent);
  }
  return true;
}

void close_with_reset(int fd) {
  const linger hard{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
  ::close(fd);
}

}  // namespace

const char* to_string(TcpFault fault) noexcept {
  switch (fault) {
    case TcpFault::pass: return "pass";
    case TcpFault::cut: return "cut";
    case TcpFault::reset: return "reset";
    case TcpFault::stall: return "stall";
    case TcpFault::trickle: return "trickle";
    case TcpFault::answer_503: return "503";
    case TcpFault::cut_head: return "cut_head";
  }
  return "?";
}

class ChaosProxy::Relay {
 public:
  Relay(ChaosProxyOptions options, std::function<void(const std::string&)> log)
      : options_(options), log_(std::move(log)), rng_(options.seed) {
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("chaos proxy: pipe failed");
    stop_read_ = pipe_fds[0];
    stop_write_ = pipe_fds[1];
    auto listener = bench::bound_loopback_socket(SOCK_STREAM, 0);
    if (listener) listen_fd_ = *listener;
    if (!listener || ::listen(listen_fd_, 64) != 0) {
      close_fds();
      throw std::runtime_error("chaos proxy: cannot listen on 127.0.0.1");
    }
    port_ = bench::local_port(listen_fd_);
    accept_thread_ = std::thread([this] { accept_loop(); });
  }

  ~Relay() {
    (void)!::write(stop_write_, "x", 1);
    accept_thread_.join();
    std::vector<std::thread> threads;
    {
      std::lock_guard lock(mu_);
      threads.swap(threads_);
    }
    for (std::thread& thread : threads) thread.join();
    close_fds();
  }

  std::uint16_t port() const noexcept { return port_; }
  std::atomic<bool> faults_on{true};
  std::atomic<std::uint64_t> accepted{0};

 private:
  void close_fds() {
    for (int fd : {listen_fd_, stop_read_, stop_write_}) {
      if (fd >= 0) ::close(fd);
    }
  }

  void accept_loop() {
    while (wait_for(listen_fd_, POLLIN, stop_read_)) {
      const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      const Decision decision = decide();
      std::lock_guard lock(mu_);
      threads_.emplace_back([this, client, decision] { serve(client, decision); });
    }
  }

  // Drawn in accept order: a client that opens its connections one after another
  // (a single download, its retries, a resume) meets the same faults on a replay.
  Decision decide() {
    const std::uint64_t index = accepted++;
    std::lock_guard lock(mu_);
    Decision decision;
    const bool faulted =
        faults_on && (index == 0 || std::bernoulli_distribution(options_.repeat_probability)(rng_));
    if (faulted) decision.fault = options_.fault;
    const std::uint64_t max_offset = decision.fault == TcpFault::cut_head ? 150
                                     : decision.fault == TcpFault::trickle
                                         ? std::min<std::uint64_t>(options_.max_offset, 65536)
                                         : options_.max_offset;
    decision.offset = std::uniform_int_distribution<std::uint64_t>(1, max_offset)(rng_);
    log_("chaos seed=" + std::to_string(options_.seed) + " conn=" + std::to_string(index) +
         " fault=" + to_string(decision.fault) + " offset=" + std::to_string(decision.offset));
    return decision;
  }

  void serve(int client, Decision decision) {
    if (decision.fault == TcpFault::answer_503) {
      answer_503(client);
    } else if (const int upstream = connect_loopback(options_.target_port); upstream >= 0) {
      relay(client, upstream, decision);
      ::close(upstream);
    }
    if (client >= 0) ::close(client);
  }

  void answer_503(int client) {
    std::string head;
    char buffer[4096];
    while (head.find("\r\n\r\n") == std::string::npos && wait_for(client, POLLIN, stop_read_)) {
      const ssize_t got = ::recv(client, buffer, sizeof buffer, 0);
      if (got <= 0) return;
      head.append(buffer, static_cast<std::size_t>(got));
    }
    (void)send_all(client, k503.data(), k503.size(), stop_read_);
  }

  // Relays until either side closes, or the fault acts; `client` is set to -1 when
  // the fault already closed it.
  void relay(int& client, int upstream, const Decision& decision) {
    std::uint64_t to_client = 0;
    char buffer[16384];
    for (;;) {
      pollfd fds[3] = {{client, POLLIN, 0}, {upstream, POLLIN, 0}, {stop_read_, POLLIN, 0}};
      if (::poll(fds, 3, -1) <= 0 || fds[2].revents != 0) return;
      if (fds[0].revents != 0) {
        const ssize_t got = ::recv(client, buffer, sizeof buffer, 0);
        if (got <= 0 || !send_all(upstream, buffer, static_cast<std::size_t>(got), stop_read_))
          return;
      }
      if (fds[1].revents != 0) {
        const ssize_t got = ::recv(upstream, buffer, sizeof buffer, 0);
        if (got <= 0) return;
        if (!deliver(client, std::string_view(buffer, static_cast<std::size_t>(got)), decision,
                     to_client))
          return;
      }
    }
  }

  // Sends bytes from the server to the client as the decision says; false when the
  // connection is over (the fault acted or a send failed).
  bool deliver(int& client, std::string_view bytes, const Decision& decision,
               std::uint64_t& to_client) {
    const bool cuts = decision.fault == TcpFault::cut || decision.fault == TcpFault::reset ||
                      decision.fault == TcpFault::stall || decision.fault == TcpFault::cut_head;
    if (decision.fault == TcpFault::trickle) {
      while (!bytes.empty() && to_client < decision.offset) {
        const std::size_t piece = std::min<std::size_t>(bytes.size(), 1 + to_client % 64);
        if (!send_all(client, bytes.data(), piece, stop_read_)) return false;
        bytes.remove_prefix(piece);
        to_client += piece;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the fault itself
      }
    } else if (cuts && to_client + bytes.size() >= decision.offset) {
      const std::size_t before = static_cast<std::size_t>(decision.offset - to_client);
      if (!send_all(client, bytes.data(), before, stop_read_)) return false;
      act(client, decision.fault);
      return false;
    }
    to_client += bytes.size();
    return send_all(client, bytes.data(), bytes.size(), stop_read_);
  }

  void act(int& client, TcpFault fault) {
    if (fault == TcpFault::reset) {
      close_with_reset(client);
      client = -1;
    } else if (fault == TcpFault::stall) {
      // Nothing more goes either way; what the client sends is read and dropped so
      // that it sees silence, not a full window, until it closes.
      char sink[4096];
      while (wait_for(client, POLLIN, stop_read_, kStallLimitMs) &&
             ::recv(client, sink, sizeof sink, 0) > 0) {}
    }
  }

  const ChaosProxyOptions options_;
  const std::function<void(const std::string&)> log_;
  std::mutex mu_;
  std::mt19937_64 rng_;               // guarded by mu_
  std::vector<std::thread> threads_;  // guarded by mu_
  int listen_fd_ = -1;
  int stop_read_ = -1;
  int stop_write_ = -1;
  std::uint16_t port_ = 0;
  std::thread accept_thread_;
};

ChaosProxy::ChaosProxy(ChaosProxyOptions options, std::function<void(const std::string&)> log)
    : relay_(std::make_unique<Relay>(options, std::move(log))) {}

ChaosProxy::~ChaosProxy() = default;

std::uint16_t ChaosProxy::port() const noexcept { return relay_->port(); }

void ChaosProxy::set_faults(bool on) noexcept { relay_->faults_on = on; }

std::uint64_t ChaosProxy::connections() const noexcept { return relay_->accepted; }

}  // namespace sluice::chaos
