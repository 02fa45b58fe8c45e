// TcpConnect: Happy Eyeballs v2 (RFC 8305) over the addresses a name resolved to.
// Ownership: HTTP thread only.

#include "net/tcp_connect.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace sluice {

std::vector<SocketAddress> interleave_families(std::vector<SocketAddress> addresses) {
  if (addresses.empty()) return addresses;
  const int first_family = addresses.front().family();
  std::vector<SocketAddress> first;
  std::vector<SocketAddress> other;
  for (auto& address : addresses) {
    (address.family() == first_family ? first : other).push_back(address);
  }
  std::vector<SocketAddress> ordered;
  ordered.reserve(addresses.size());
  for (std::size_t i = 0; i < std::max(first.size(), other.size()); ++i) {
    if (i < first.size()) ordered.push_back(first[i]);
    if (i < other.size()) ordered.push_back(other[i]);
  }
  return ordered;
}

// One socket connecting to one address, with its own deadline.
class TcpConnect::Attempt final : public FdWatcher {
 public:
  Attempt(TcpConnect& owner, SocketAddress address, int fd)
      : owner_(owner), address_(address), fd_(fd) {}
  ~Attempt() override {
    if (timer_ != 0) owner_.loop_.cancel_timer(timer_);
    if (fd_ >= 0) {
      owner_.loop_.unwatch(fd_);
      ::close(fd_);
    }
  }
  Attempt(const Attempt&) = delete;
  Attempt& operator=(const Attempt&) = delete;
  // Nothing after the call: the owner may destroy this attempt.
  void on_fd_ready(std::uint32_t events) override { owner_.on_attempt_ready(this, events); }

  const SocketAddress& address() const noexcept { return address_; }
  int fd() const noexcept { return fd_; }
  /// Hands the socket over: this attempt no longer closes it.
  int release() {
    owner_.loop_.unwatch(fd_);
    return std::exchange(fd_, -1);
  }
  void set_timer(EventLoop::TimerId timer) { timer_ = timer; }

 private:
  TcpConnect& owner_;
  SocketAddress address_;
  int fd_;
  EventLoop::TimerId timer_ = 0;
};

TcpConnect::TcpConnect(EventLoop& loop, std::vector<SocketAddress> addresses, Callback done,
                       ConnectAttempts attempts)
    : loop_(loop),
      addresses_(interleave_families(std::move(addresses))),
      settings_(std::move(attempts)),
      done_(std::move(done)),
      alive_(std::make_shared<bool>(true)) {
  // Started from the loop, so that even an immediate result (a refused loopback
  // connect) reaches `done` after the owner has stored this object.
  loop_.post([this, alive = std::weak_ptr<bool>(alive_)] {
    if (alive.lock()) start_next();
  });
}

TcpConnect::~TcpConnect() {
  attempts_.clear();  // closes the sockets still connecting
  if (stagger_timer_ != 0) loop_.cancel_timer(stagger_timer_);
}

void TcpConnect::start_next() {
  if (stagger_timer_ != 0) {
    loop_.cancel_timer(stagger_timer_);
    stagger_timer_ = 0;
  }
  while (next_ < addresses_.size()) {
    const SocketAddress& address = addresses_[next_++];
    if (!start_one(address)) continue;
    if (next_ < addresses_.size()) {
      stagger_timer_ = loop_.add_timer(loop_.now() + settings_.delay, [this] {
        stagger_timer_ = 0;
        if (!attempts_.empty()) {
          note(attempts_.back()->address().to_string() + " has not answered within " +
               std::to_string(settings_.delay.count()) + " ms; trying the next address too");
        }
        start_next();
      });
    }
    return;
  }
  if (attempts_.empty()) fail();
}

bool TcpConnect::start_one(const SocketAddress& address) {
  const int tcp = address.family() == AF_UNIX ? 0 : IPPROTO_TCP;
  const int fd = ::socket(address.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, tcp);
  if (fd < 0) {
    record_failure(address, std::strerror(errno));
    return false;
  }
  if (address.family() != AF_UNIX) {
    if (auto bound = bind_local(fd, address.family(), settings_.local); !bound) {
      record_failure(address, bound.error().message(), /*at_bind=*/true);
      ::close(fd);
      return false;
    }
  }
  // Connected at once (loopback, a Unix socket) or not, the socket is watched: it is
  // writable when connected, and the win is taken from the loop, never from here.
  // EINTR: a non-blocking connect carries on in the background, like EINPROGRESS.
  const int rv = ::connect(fd, reinterpret_cast<const sockaddr*>(&address.storage), address.length);
  if (rv != 0 && errno != EINPROGRESS && errno != EINTR) {
    record_failure(address, std::strerror(errno));
    ::close(fd);
    return false;
  }
  auto attempt = std::make_unique<Attempt>(*this, address, fd);
  if (auto watched = loop_.watch(fd, EPOLLOUT, attempt.get()); !watched) {
    record_failure(address, watched.error().message());
    ::close(attempt->release());
    return false;
  }
  note("connecting to " + address.to_string());
  if (settings_.timeout.count() > 0) {
    Attempt* raw = attempt.get();
    attempt->set_timer(
        loop_.add_timer(loop_.now() + settings_.timeout, [this, raw] { on_attempt_timeout(raw); }));
  }
  attempts_.push_back(std::move(attempt));
  return true;
}

void TcpConnect::on_attempt_ready(Attempt* attempt, std::uint32_t) {
  int err = 0;
  socklen_t length = sizeof err;
  if (getsockopt(attempt->fd(), SOL_SOCKET, SO_ERROR, &err, &length) != 0) err = errno;
  if (err == 0) {
    note("connected to " + attempt->address().to_string());
    succeed(attempt->release());
    return;
  }
  drop(attempt, std::strerror(err));
}

void TcpConnect::on_attempt_timeout(Attempt* attempt) {
  attempt->set_timer(0);  // fired
  drop(attempt, "no answer within " + std::to_string(settings_.timeout.count()) + " ms");
}

void TcpConnect::drop(Attempt* attempt, const std::string& reason) {
  record_failure(attempt->address(), reason);
  note(attempt->address().to_string() + ": " + reason);
  std::erase_if(attempts_, [attempt](const auto& a) { return a.get() == attempt; });
  // RFC 8305 5: a failed attempt starts the next one at once, without the delay.
  if (next_ < addresses_.size()) {
    start_next();
  } else if (attempts_.empty()) {
    fail();
  }
}

void TcpConnect::record_failure(const SocketAddress& address, const std::string& reason,
                                bool at_bind) {
  if (!at_bind) only_bind_failures_ = false;
  if (!failures_.empty()) failures_ += "; ";
  failures_ += address.to_string() + ": " + reason;
}

void TcpConnect::succeed(int fd) {
  attempts_.clear();  // the losers are closed
  if (stagger_timer_ != 0) {
    loop_.cancel_timer(stagger_timer_);
    stagger_timer_ = 0;
  }
  const int one = 1;
  // Requests and h2 frames are written whole; Nagle would only delay them. (A Unix
  // socket refuses the option, harmlessly.)
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  Callback done = std::move(done_);
  done_ = nullptr;
  done(fd);  // may destroy this object: nothing after
}

void TcpConnect::fail() {
  std::string message = failures_.empty() ? "connect: no addresses to connect to"
                                          : "connect: cannot connect to " + failures_;
  Callback done = std::move(done_);
  done_ = nullptr;
  const bool local = !failures_.empty() && only_bind_failures_;
  done(Error(local ? ErrorCode::local_bind_failed : ErrorCode::connect_failed, std::move(message)));
}

void TcpConnect::note(const std::string& what) const {
  if (settings_.note) settings_.note(what);
}

}  // namespace sluice
