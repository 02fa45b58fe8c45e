// Resolver (getaddrinfo on helper threads, results posted to the HTTP thread) and
// TcpConnect (non-blocking connect over a list of addresses).
// Ownership: both are created, driven and destroyed on the HTTP thread; only
// Resolver's helper threads run getaddrinfo.

#include "io/tcp_connect.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "io/worker_pool.hpp"

namespace sluice {
namespace {

// getaddrinfo blocks for as long as DNS takes; a few threads keep one slow name
// from holding up the others.
constexpr int kResolverThreads = 4;

std::string bare_host(const std::string& host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    return host.substr(1, host.size() - 2);
  return host;
}

Error dns_error(const std::string& host, const std::string& reason) {
  return Error(ErrorCategory::dns, "DNS: cannot resolve '" + host + "': " + reason);
}

// Runs on a helper thread.
Result<std::vector<SocketAddress>> resolve_blocking(const std::string& host, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_protocol = IPPROTO_TCP;
  // No AI_ADDRCONFIG: on a machine with only loopback it hides every address,
  // "localhost" included.
  hints.ai_flags = AI_NUMERICSERV;
  const std::string service = std::to_string(port);
  addrinfo* list = nullptr;
  const int rv = getaddrinfo(host.c_str(), service.c_str(), &hints, &list);
  if (rv != 0) return dns_error(host, rv == EAI_SYSTEM ? std::strerror(errno) : gai_strerror(rv));
  std::vector<SocketAddress> addresses;
  for (const addrinfo* entry = list; entry != nullptr; entry = entry->ai_next) {
    if (entry->ai_addrlen > sizeof(sockaddr_storage)) continue;
    SocketAddress address;
    std::memcpy(&address.storage, entry->ai_addr, entry->ai_addrlen);
    address.length = entry->ai_addrlen;
    addresses.push_back(address);
  }
  freeaddrinfo(list);
  if (addresses.empty()) return dns_error(host, "no IPv4 or IPv6 address");
  return addresses;
}

}  // namespace

std::string SocketAddress::ip() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (storage.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(storage);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    return text;
  }
  if (storage.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(storage);
    inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
    return v6.sin6_scope_id != 0 ? text + ("%" + std::to_string(v6.sin6_scope_id)) : text;
  }
  return {};
}

std::uint16_t SocketAddress::port() const {
  if (storage.ss_family == AF_INET) {
    return ntohs(reinterpret_cast<const sockaddr_in&>(storage).sin_port);
  }
  if (storage.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6&>(storage).sin6_port);
  }
  return 0;
}

std::string SocketAddress::to_string() const {
  if (storage.ss_family == AF_INET) return ip() + ":" + std::to_string(port());
  if (storage.ss_family == AF_INET6) return "[" + ip() + "]:" + std::to_string(port());
  return "(address family " + std::to_string(storage.ss_family) + ")";
}

std::optional<SocketAddress> SocketAddress::peer_of(int fd) {
  SocketAddress peer;
  peer.length = sizeof peer.storage;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer.storage), &peer.length) != 0) {
    return std::nullopt;
  }
  return peer;
}

std::optional<SocketAddress> SocketAddress::from_ip(const std::string& host, std::uint16_t port) {
  const std::string bare = bare_host(host);
  SocketAddress address;
  auto& v4 = reinterpret_cast<sockaddr_in&>(address.storage);
  if (inet_pton(AF_INET, bare.c_str(), &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    v4.sin_port = htons(port);
    address.length = sizeof(sockaddr_in);
    return address;
  }
  address = SocketAddress{};
  auto& v6 = reinterpret_cast<sockaddr_in6&>(address.storage);
  if (inet_pton(AF_INET6, bare.c_str(), &v6.sin6_addr) == 1) {
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(port);
    address.length = sizeof(sockaddr_in6);
    return address;
  }
  return std::nullopt;
}

// ---- Resolver ---------------------------------------------------------------

struct Resolver::Shared {
  explicit Shared(EventLoop& event_loop) : loop(event_loop) {}
  EventLoop& loop;
  std::atomic<bool> closing{false};  // set by ~Resolver: queued jobs give up
  WorkerPool pool{kResolverThreads};  // last: joined before the members above go
};

struct Resolver::Lookup::State {
  std::atomic<bool> cancelled{false};  // written on the HTTP thread, read by helpers
  Callback done;                       // HTTP thread only
};

Resolver::Lookup::~Lookup() {
  state_->cancelled = true;
  state_->done = nullptr;  // release what the callback captured, now
}

Resolver::Resolver(EventLoop& loop) : shared_(std::make_shared<Shared>(loop)) {}

Resolver::~Resolver() {
  shared_->closing = true;
  shared_.reset();  // joins the pool
}

namespace {

// Posts `result` to the loop; it reaches `done` only if the Lookup still lives then.
void deliver(EventLoop& loop, std::shared_ptr<Resolver::Lookup::State> state,
             Result<std::vector<SocketAddress>> result) {
  loop.post([state = std::move(state), result = std::move(result)]() mutable {
    if (state->cancelled || !state->done) return;
    // Moved out first: the callback may destroy the Lookup, which clears `done`.
    Resolver::Callback done = std::move(state->done);
    state->done = nullptr;
    done(std::move(result));
  });
}

}  // namespace

std::unique_ptr<Resolver::Lookup> Resolver::resolve(const std::string& host, std::uint16_t port,
                                                    Callback done) {
  auto state = std::make_shared<Lookup::State>();
  state->done = std::move(done);
  auto lookup = std::make_unique<Lookup>(state);
  if (auto literal = SocketAddress::from_ip(host, port)) {
    deliver(shared_->loop, std::move(state), std::vector<SocketAddress>{*literal});
    return lookup;
  }
  if (host.empty()) {
    deliver(shared_->loop, std::move(state), dns_error(host, "the host name is empty"));
    return lookup;
  }
  Shared* shared = shared_.get();  // outlives every job: ~Shared joins the pool
  shared->pool.submit([shared, state = std::move(state), host, port]() mutable {
    if (state->cancelled || shared->closing) return;
    auto result = resolve_blocking(host, port);
    if (state->cancelled || shared->closing) return;
    deliver(shared->loop, std::move(state), std::move(result));
  });
  return lookup;
}

// ---- TcpConnect -------------------------------------------------------------

TcpConnect::TcpConnect(EventLoop& loop, std::vector<SocketAddress> addresses, Callback done)
    : loop_(loop), addresses_(std::move(addresses)), done_(std::move(done)),
      alive_(std::make_shared<bool>(true)) {
  // Started from the loop, so that even an immediate result (a refused loopback
  // connect) reaches `done` after the owner has stored this object.
  loop_.post([this, alive = std::weak_ptr<bool>(alive_)] {
    if (alive.lock()) try_next();
  });
}

TcpConnect::~TcpConnect() {
  if (fd_ >= 0) {
    loop_.unwatch(fd_);
    close(fd_);
  }
}

void TcpConnect::try_next() {
  while (next_ < addresses_.size()) {
    if (start_one(addresses_[next_++])) return;
  }
  fail();
}

bool TcpConnect::start_one(const SocketAddress& address) {
  const int fd = socket(address.storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                        IPPROTO_TCP);
  if (fd < 0) {
    record_failure(address, std::strerror(errno));
    return false;
  }
  fd_ = fd;
  const int rv = connect(fd, reinterpret_cast<const sockaddr*>(&address.storage), address.length);
  if (rv == 0) {
    succeed();
    return true;
  }
  // EINTR: a non-blocking connect carries on in the background, like EINPROGRESS.
  if (errno == EINPROGRESS || errno == EINTR) {
    auto watched = loop_.watch(fd, EPOLLOUT, this);
    if (watched) return true;
    record_failure(address, watched.error().message());
  } else {
    record_failure(address, std::strerror(errno));
  }
  close(fd);
  fd_ = -1;
  return false;
}

void TcpConnect::on_fd_ready(std::uint32_t) {
  int err = 0;
  socklen_t length = sizeof err;
  if (getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &length) != 0) err = errno;
  if (err == 0) {
    succeed();
    return;
  }
  loop_.unwatch(fd_);
  close(fd_);
  fd_ = -1;
  record_failure(addresses_[next_ - 1], std::strerror(err));
  try_next();
}

void TcpConnect::record_failure(const SocketAddress& address, const std::string& reason) {
  if (!failures_.empty()) failures_ += "; ";
  failures_ += address.to_string() + ": " + reason;
}

void TcpConnect::succeed() {
  loop_.unwatch(fd_);
  const int one = 1;
  // Requests and h2 frames are written whole; Nagle would only delay them.
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  const int fd = fd_;
  fd_ = -1;
  Callback done = std::move(done_);
  done(fd);  // may destroy this object: nothing after
}

void TcpConnect::fail() {
  std::string message = failures_.empty() ? "connect: no addresses to connect to"
                                          : "connect: cannot connect to " + failures_;
  Callback done = std::move(done_);
  done(Error(ErrorCategory::connect, std::move(message)));
}

}  // namespace sluice
