// QuicTestUdpServer: one UDP socket and an eventfd under ppoll on a thread of its
// own, feeding a QuicTestServer by the real clock (see quic_test_udp_server.hpp).

#include "support/quic_test_udp_server.hpp"

#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace sluice::test {
namespace {

constexpr int kSocketBufferBytes = 4 << 20;
constexpr std::size_t kMaxDatagram = 65536;
// Datagrams read per wake before timers and sending get their turn.
constexpr int kMaxReadsPerWake = 64;

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("QuicTestUdpServer: " + what + ": " + std::strerror(errno));
}

bool same_address(const SocketAddress& a, const SocketAddress& b) {
  return a.length == b.length && std::memcmp(&a.storage, &b.storage, a.length) == 0;
}

timespec timespec_of(Clock::duration wait) {
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::max(wait, Clock::duration::zero()))
          .count();
  return {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

}  // namespace

QuicTestUdpServer::QuicTestUdpServer(QuicTestServerOptions options)
    : options_(std::move(options)), buffer_(kMaxDatagram) {
  // Every connection's server records what it hands to the test's handler here.
  options_.handler = [this, user = std::move(options_.handler)](const QuicTestRequest& request) {
    return handle_request(user, request);
  };
  try {
    open_socket();
  } catch (...) {
    for (int fd : {fd_, wake_fd_}) {
      if (fd >= 0) ::close(fd);
    }
    throw;
  }
  thread_ = std::thread([this] { run(); });
}

QuicTestUdpServer::~QuicTestUdpServer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake();
  thread_.join();
  retired_.reset();  // before the socket they answered on goes
  server_.reset();
  ::close(fd_);
  ::close(wake_fd_);
}

void QuicTestUdpServer::open_socket() {
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) fail("eventfd");
  // Blocking for sendto (a full send buffer waits rather than drops); reads use
  // MSG_DONTWAIT.
  fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) fail("socket");
  sockaddr_in local{};
  local.sin_family = AF_INET;
  local.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) fail("bind");
  socklen_t length = sizeof local;
  if (getsockname(fd_, reinterpret_cast<sockaddr*>(&local), &length) != 0) fail("getsockname");
  port_ = ntohs(local.sin_port);
  options_.server_address = *SocketAddress::from_ip("127.0.0.1", port_);
  // Best effort: a larger queue keeps the kernel from adding losses of its own.
  setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &kSocketBufferBytes, sizeof kSocketBufferBytes);
  setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &kSocketBufferBytes, sizeof kSocketBufferBytes);
}

std::string QuicTestUdpServer::url(std::string_view path) const {
  return "https://127.0.0.1:" + std::to_string(port_) + std::string(path);
}

std::vector<QuicTestRequest> QuicTestUdpServer::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

QuicTestUdpStats QuicTestUdpServer::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

bool QuicTestUdpServer::wait_for(const WaitCondition& done,
                                 std::chrono::milliseconds patience) const {
  std::unique_lock lock(mu_);
  return changed_.wait_for(lock, patience, [&] { return done(stats_, requests_); });
}

void QuicTestUdpServer::close(std::uint64_t app_error) {
  post([app_error](QuicTestServer& server, TimePoint now) { server.close(app_error, now); });
}

void QuicTestUdpServer::goaway() {
  post([](QuicTestServer& server, TimePoint) { server.goaway(); });
}

void QuicTestUdpServer::post(Command command) {
  {
    std::lock_guard lock(mu_);
    commands_.push_back(std::move(command));
  }
  wake();
}

void QuicTestUdpServer::wake() {
  const std::uint64_t one = 1;
  // Fails only when the counter would overflow: then it is readable already.
  (void)!write(wake_fd_, &one, sizeof one);
}

// On the serving thread, inside QuicTestServer::receive.
QuicTestResponse QuicTestUdpServer::handle_request(const QuicTestHandler& user,
                                                   const QuicTestRequest& request) {
  {
    std::lock_guard lock(mu_);
    requests_.push_back(request);
  }
  changed_.notify_all();
  return user ? user(request) : QuicTestResponse{};
}

void QuicTestUdpServer::run() {
  for (;;) {
    std::optional<TimePoint> expiry = server_ ? server_->next_expiry() : std::nullopt;
    if (const auto retired = retired_ ? retired_->next_expiry() : std::nullopt)
      expiry = expiry ? std::min(*expiry, *retired) : *retired;
    timespec timeout{};
    if (expiry) timeout = timespec_of(*expiry - Clock::now());
    pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {fd_, POLLIN, 0}};
    if (ppoll(fds, 2, expiry ? &timeout : nullptr, nullptr) < 0) {
      if (errno == EINTR) continue;
      return;  // nothing sensible left to do; the destructor still joins
    }
    const TimePoint now = Clock::now();
    if (fds[0].revents != 0 && !take_commands(now)) return;
    if (fds[1].revents != 0) read_datagrams(now);
    const std::pair<QuicTestServer*, const SocketAddress*> peers[] = {
        {retired_.get(), &retired_client_}, {server_.get(), &client_}};
    for (const auto& [server, client] : peers) {
      if (server == nullptr) continue;
      const std::optional<TimePoint> due = server->next_expiry();
      if (due && *due <= now) server->on_expiry(now);
      send_due(*server, *client, now);
    }
    publish();
  }
}

// Runs what was posted; false once the destructor asked the thread to stop.
bool QuicTestUdpServer::take_commands(TimePoint now) {
  std::uint64_t count = 0;
  (void)!read(wake_fd_, &count, sizeof count);
  std::vector<Command> commands;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return false;
    commands.swap(commands_);
  }
  for (const Command& command : commands) {
    if (server_) command(*server_, now);
  }
  return true;
}

void QuicTestUdpServer::read_datagrams(TimePoint now) {
  for (int i = 0; i < kMaxReadsPerWake; ++i) {
    SocketAddress from;
    from.length = sizeof from.storage;
    const ssize_t n = recvfrom(fd_, buffer_.data(), buffer_.size(), MSG_DONTWAIT,
                               reinterpret_cast<sockaddr*>(&from.storage), &from.length);
    if (n < 0) return;  // EAGAIN: all read
    route({buffer_.data(), static_cast<std::size_t>(n)}, from, now);
  }
}

// The current connection's client gets its server, and a retired connection's its
// own; an Initial once that connection closed or sent GOAWAY (or before any) starts
// a new one; anything else is dropped.
void QuicTestUdpServer::route(std::span<const std::uint8_t> datagram, const SocketAddress& from,
                              TimePoint now) {
  if (retired_ && same_address(from, retired_client_)) {
    retired_->receive(datagram, now);
    return;
  }
  const bool current = server_ && same_address(from, client_);
  const bool starts = QuicTestServer::is_connection_start(datagram);
  // A connection that sent GOAWAY keeps its client (its kept requests finish) while
  // a new one starts beside it for the requests it refused.
  const bool retiring = server_ && !server_->closed() && server_->goaway_sent();
  if (starts && (!server_ || server_->closed() || (retiring && !current))) {
    note_error();
    if (retired_) bytes_before_ += retired_->bytes_sent();
    retired_.reset();
    if (retiring) {
      retired_ = std::move(server_);
      retired_client_ = client_;
    } else if (server_) {
      bytes_before_ += server_->bytes_sent();
    }
    client_ = from;
    QuicTestServerOptions options = options_;
    options.client_address = from;
    server_ = std::make_unique<QuicTestServer>(std::move(options));
    ++connections_;
  } else if (!current) {
    return;
  }
  server_->receive(datagram, now);
}

void QuicTestUdpServer::send_due(QuicTestServer& server, const SocketAddress& client,
                                 TimePoint now) {
  for (const std::vector<std::uint8_t>& datagram : server.send(now)) {
    // A datagram the kernel refuses is lost like any other: QUIC sends it again.
    (void)sendto(fd_, datagram.data(), datagram.size(), 0,
                 reinterpret_cast<const sockaddr*>(&client.storage), client.length);
  }
}

void QuicTestUdpServer::note_error() {
  if (retired_ && first_error_.empty()) first_error_ = retired_->error();
  if (server_ && first_error_.empty()) first_error_ = server_->error();
}

void QuicTestUdpServer::publish() {
  note_error();
  QuicTestUdpStats stats;
  stats.connections = connections_;
  stats.error = first_error_;
  stats.bytes_sent = bytes_before_ + (retired_ ? retired_->bytes_sent() : 0);
  if (server_) {
    stats.handshake_done = server_->handshake_done();
    stats.resumed = server_->resumed();
    stats.closed = server_->closed();
    stats.client_close = server_->client_close();
    stats.bytes_sent += server_->bytes_sent();
    stats.cut_head_bytes_acked = server_->cut_head_bytes_acked();
  }
  {
    std::lock_guard lock(mu_);
    stats_ = std::move(stats);
  }
  changed_.notify_all();
}

}  // namespace sluice::test
