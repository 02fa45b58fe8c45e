// UdpProxy's relay: two sockets and an eventfd under ppoll on one thread, a queue of
// datagrams due at a time (delay, jitter), and one held datagram per direction
// (reordering).
#include "support/udp_proxy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <queue>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

namespace sluice::test {
namespace {

using Clock = std::chrono::steady_clock;

enum Direction : int { kToTarget = 0, kToClient = 1 };

constexpr int kSocketBufferBytes = 4 << 20;
constexpr int kMaxReadsPerWake = 64;  // then the other socket gets its turn

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("UdpProxy: " + what + ": " + std::strerror(errno));
}

void enlarge_buffers(int fd) {
  // Best effort: a larger queue only keeps the kernel from adding losses of its own.
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &kSocketBufferBytes, sizeof(kSocketBufferBytes));
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kSocketBufferBytes, sizeof(kSocketBufferBytes));
}

sockaddr_storage numeric_address(const std::string& address, std::uint16_t port,
                                 socklen_t& length) {
  sockaddr_storage storage{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    length = sizeof(sockaddr_in);
  } else if (inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    length = sizeof(sockaddr_in6);
  } else {
    throw std::runtime_error("UdpProxy: target '" + address + "' is not a numeric address");
  }
  return storage;
}

}  // namespace

class UdpProxy::Relay {
 public:
  Relay(const std::string& target_address, std::uint16_t target_port, UdpProxyOptions options);
  ~Relay();

  std::uint16_t port() const noexcept { return port_; }
  void set_black_hole(bool on) noexcept { black_hole_.store(on); }
  void set_options(const UdpProxyOptions& options) {
    std::lock_guard lock(options_mu_);
    options_ = options;
  }
  UdpProxyCounters counters() const noexcept {
    return {received_.load(), forwarded_.load(), dropped_.load(), duplicated_.load(),
            reordered_.load()};
  }
  bool wait_for_counters(const std::function<bool(const UdpProxyCounters&)>& done,
                         std::chrono::milliseconds deadline) {
    std::unique_lock lock(counters_mu_);
    return counters_moved_.wait_for(lock, deadline, [&] { return done(counters()); });
  }

 private:
  struct Datagram {
    Clock::time_point due;
    std::uint64_t seq = 0;  ///< equal due times keep arrival order
    Direction direction = kToTarget;
    std::string bytes;
  };
  struct Later {
    bool operator()(const Datagram& a, const Datagram& b) const {
      return a.due != b.due ? a.due > b.due : a.seq > b.seq;
    }
  };
  struct Held {
    std::string bytes;
    int copies = 1;
    Clock::time_point since;
  };

  void open_sockets(const std::string& target_address, std::uint16_t target_port);
  void run();
  std::optional<Clock::time_point> next_wake() const;
  void read_all(int fd, Direction direction);
  void handle(Direction direction, std::string bytes, Clock::time_point now);
  void apply_faults(Direction direction, std::string bytes, Clock::time_point now);
  void schedule(Direction direction, std::string bytes, int copies, Clock::time_point due);
  void send_due(Clock::time_point now);
  void send_one(const Datagram& datagram);
  void publish_counters();
  bool chance(double probability);
  UdpProxyOptions snapshot_options();

  int client_fd_ = -1;    // bound to 127.0.0.1:port_, faces the client
  int upstream_fd_ = -1;  // connected to the target
  int wake_fd_ = -1;      // eventfd: stop
  std::uint16_t port_ = 0;
  std::thread thread_;

  std::atomic<bool> black_hole_{false};
  std::mutex options_mu_;
  UdpProxyOptions options_;  // guarded by options_mu_

  std::atomic<std::uint64_t> received_{0};
  std::atomic<std::uint64_t> forwarded_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<std::uint64_t> duplicated_{0};
  std::atomic<std::uint64_t> reordered_{0};
  // Waiters on the counters: the relay takes counters_mu_ after moving them and
  // before it notifies, so a waiter between its check and its wait is not missed.
  std::mutex counters_mu_;
  std::condition_variable counters_moved_;

  // Relay thread only from here on.
  sockaddr_storage client_address_{};
  socklen_t client_length_ = 0;  // 0: no client has sent yet
  std::mt19937_64 rng_;
  std::uint64_t rng_seed_ = 0;
  std::priority_queue<Datagram, std::vector<Datagram>, Later> queue_;
  std::uint64_t next_seq_ = 0;
  std::optional<Held> held_[2];
  std::chrono::microseconds hold_limit_{0};
  std::vector<char> buffer_ = std::vector<char>(65536);
};

UdpProxy::Relay::Relay(const std::string& target_address, std::uint16_t target_port,
                       UdpProxyOptions options)
    : options_(options), rng_(options.seed), rng_seed_(options.seed) {
  try {
    open_sockets(target_address, target_port);
  } catch (...) {
    for (int fd : {client_fd_, upstream_fd_, wake_fd_}) {
      if (fd >= 0) close(fd);
    }
    throw;
  }
  thread_ = std::thread([this] { run(); });
}

void UdpProxy::Relay::open_sockets(const std::string& target_address, std::uint16_t target_port) {
  socklen_t target_length = 0;
  const sockaddr_storage target = numeric_address(target_address, target_port, target_length);
  wake_fd_ = eventfd(0, EFD_CLOEXEC);
  if (wake_fd_ < 0) fail("eventfd");
  client_fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (client_fd_ < 0) fail("socket");
  sockaddr_in local{};
  local.sin_family = AF_INET;
  local.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(client_fd_, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0) fail("bind");
  socklen_t local_length = sizeof(local);
  getsockname(client_fd_, reinterpret_cast<sockaddr*>(&local), &local_length);
  port_ = ntohs(local.sin_port);
  upstream_fd_ = socket(target.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (upstream_fd_ < 0) fail("socket");
  if (connect(upstream_fd_, reinterpret_cast<const sockaddr*>(&target), target_length) != 0) {
    fail("connect to " + target_address + ":" + std::to_string(target_port));
  }
  enlarge_buffers(client_fd_);
  enlarge_buffers(upstream_fd_);
}

UdpProxy::Relay::~Relay() {
  const std::uint64_t one = 1;
  if (write(wake_fd_, &one, sizeof(one)) != sizeof(one)) {
    // An eventfd write fails only when its counter would overflow: it is readable.
  }
  thread_.join();
  close(client_fd_);
  close(upstream_fd_);
  close(wake_fd_);
}

void UdpProxy::Relay::run() {
  for (;;) {
    send_due(Clock::now());
    publish_counters();
    timespec timeout{};
    timespec* timeout_ptr = nullptr;
    if (const auto wake = next_wake()) {
      const auto wait = std::max(Clock::duration::zero(), *wake - Clock::now());
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(wait).count();
      timeout.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
      timeout.tv_nsec = static_cast<long>(ns % 1'000'000'000);
      timeout_ptr = &timeout;
    }
    pollfd fds[3] = {{wake_fd_, POLLIN, 0}, {client_fd_, POLLIN, 0}, {upstream_fd_, POLLIN, 0}};
    if (ppoll(fds, 3, timeout_ptr, nullptr) < 0) {
      if (errno == EINTR) continue;
      return;  // nothing sensible left to do; the destructor still joins
    }
    if (fds[0].revents != 0) return;
    if (fds[1].revents != 0) read_all(client_fd_, kToTarget);
    if (fds[2].revents != 0) read_all(upstream_fd_, kToClient);
    publish_counters();
  }
}

void UdpProxy::Relay::publish_counters() {
  { std::lock_guard lock(counters_mu_); }
  counters_moved_.notify_all();
}

std::optional<Clock::time_point> UdpProxy::Relay::next_wake() const {
  std::optional<Clock::time_point> wake;
  if (!queue_.empty()) wake = queue_.top().due;
  for (const auto& held : held_) {
    if (!held) continue;
    const auto release = held->since + hold_limit_;
    if (!wake || release < *wake) wake = release;
  }
  return wake;
}

void UdpProxy::Relay::read_all(int fd, Direction direction) {
  for (int i = 0; i < kMaxReadsPerWake; ++i) {
    sockaddr_storage from{};
    socklen_t from_length = sizeof(from);
    const ssize_t n = recvfrom(fd, buffer_.data(), buffer_.size(), MSG_DONTWAIT,
                               reinterpret_cast<sockaddr*>(&from), &from_length);
    if (n < 0) return;  // EAGAIN, or ECONNREFUSED after an ICMP error from the target
    if (direction == kToTarget) {
      client_address_ = from;
      client_length_ = from_length;
    }
    handle(direction, std::string(buffer_.data(), static_cast<std::size_t>(n)), Clock::now());
  }
}

UdpProxyOptions UdpProxy::Relay::snapshot_options() {
  std::lock_guard lock(options_mu_);
  return options_;
}

bool UdpProxy::Relay::chance(double probability) {
  // No draw for 0 and 1, so one fault's sequence does not depend on the others.
  if (probability <= 0.0) return false;
  if (probability >= 1.0) return true;
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < probability;
}

// `received` counts a datagram once its fate is decided, so a test that sees the count
// also sees it in dropped, duplicated or reordered.
void UdpProxy::Relay::handle(Direction direction, std::string bytes, Clock::time_point now) {
  apply_faults(direction, std::move(bytes), now);
  ++received_;
}

void UdpProxy::Relay::apply_faults(Direction direction, std::string bytes, Clock::time_point now) {
  const UdpProxyOptions options = snapshot_options();
  if (options.seed != rng_seed_) {
    rng_.seed(options.seed);
    rng_seed_ = options.seed;
  }
  hold_limit_ = options.reorder_hold_limit;
  const bool unroutable = direction == kToClient && client_length_ == 0;
  if (black_hole_.load() || unroutable || chance(options.drop_probability)) {
    ++dropped_;
    return;
  }
  const int copies = chance(options.duplicate_probability) ? 2 : 1;
  if (copies == 2) ++duplicated_;
  if (!held_[direction] && chance(options.reorder_probability)) {
    held_[direction] = Held{std::move(bytes), copies, now};
    ++reordered_;
    return;
  }
  auto due = now + options.delay;
  if (options.jitter.count() > 0) {
    due += std::chrono::microseconds(
        std::uniform_int_distribution<std::int64_t>(0, options.jitter.count())(rng_));
  }
  schedule(direction, std::move(bytes), copies, due);
  if (held_[direction]) {  // the held one goes right after the one that overtook it
    schedule(direction, std::move(held_[direction]->bytes), held_[direction]->copies, due);
    held_[direction].reset();
  }
}

void UdpProxy::Relay::schedule(Direction direction, std::string bytes, int copies,
                               Clock::time_point due) {
  for (int i = 1; i < copies; ++i) queue_.push(Datagram{due, next_seq_++, direction, bytes});
  queue_.push(Datagram{due, next_seq_++, direction, std::move(bytes)});
}

void UdpProxy::Relay::send_due(Clock::time_point now) {
  for (Direction direction : {kToTarget, kToClient}) {
    auto& held = held_[direction];
    if (held && now >= held->since + hold_limit_) {  // nothing came to overtake it
      schedule(direction, std::move(held->bytes), held->copies, now);
      held.reset();
    }
  }
  while (!queue_.empty() && queue_.top().due <= now) {
    send_one(queue_.top());
    queue_.pop();
  }
}

void UdpProxy::Relay::send_one(const Datagram& datagram) {
  ssize_t sent = -1;
  if (datagram.direction == kToTarget) {
    sent = send(upstream_fd_, datagram.bytes.data(), datagram.bytes.size(), 0);
  } else {
    sent = sendto(client_fd_, datagram.bytes.data(), datagram.bytes.size(), 0,
                  reinterpret_cast<const sockaddr*>(&client_address_), client_length_);
  }
  if (sent >= 0) {
    ++forwarded_;
  } else {
    ++dropped_;  // the target is gone (ECONNREFUSED) or the kernel refused it
  }
}

UdpProxy::UdpProxy(const std::string& target_address, std::uint16_t target_port,
                   UdpProxyOptions options)
    : relay_(std::make_unique<Relay>(target_address, target_port, options)) {}

UdpProxy::~UdpProxy() = default;

std::uint16_t UdpProxy::port() const noexcept { return relay_->port(); }

void UdpProxy::set_black_hole(bool on) noexcept { relay_->set_black_hole(on); }

void UdpProxy::set_options(const UdpProxyOptions& options) { relay_->set_options(options); }

UdpProxyCounters UdpProxy::counters() const noexcept { return relay_->counters(); }

bool UdpProxy::wait_for_counters(const std::function<bool(const UdpProxyCounters&)>& done,
                                 std::chrono::milliseconds deadline) {
  return relay_->wait_for_counters(done, deadline);
}

}  // namespace sluice::test
