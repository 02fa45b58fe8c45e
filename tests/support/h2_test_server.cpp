// H2TestServer: the listening socket, the accept thread, and one thread per
// connection that moves bytes between its socket and its H2TestPeer and calls the
// handler for each request (see h2_test_server.hpp).
//
// Sockets are non-blocking and every wait is a poll() that also watches the stop
// pipe, so the destructor wakes every thread at once: one that stopped reading, one
// blocked writing to a client that stopped reading, one lingering before a close.

#include "support/h2_test_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <mutex>
#include <set>
#include <span>
#include <stdexcept>
#include <thread>

namespace sluice::test {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// A write gives up on a client that has taken nothing for this long.
constexpr auto kWriteStall = 30s;
constexpr std::size_t kReadPiece = 64 * 1024;
// Lingering close, as TestServer does it: read and drop what the client still sends.
constexpr auto kLingerIdle = 200ms;
constexpr auto kLingerTotal = 2s;

[[noreturn]] void fail_setup(const std::string& what) {
  throw std::runtime_error("H2TestServer: " + what);
}

enum class Ready { fd, stop, timeout };

// Waits for `events` on `fd` (none: only for the stop pipe) until `deadline`.
Ready wait_ready(int fd, short events, int stop_fd, Clock::time_point deadline) {
  for (;;) {
    const auto now = Clock::now();
    if (now >= deadline) return Ready::timeout;
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
    pollfd fds[2] = {{stop_fd, POLLIN, 0}, {fd, events, 0}};
    const int rv =
        ::poll(fds, events != 0 ? 2 : 1, static_cast<int>(std::min<long long>(ms, INT_MAX)));
    if (rv < 0 && errno != EINTR) return Ready::stop;
    if (rv <= 0) continue;
    if (fds[0].revents != 0) return Ready::stop;
    return Ready::fd;  // errors and hang-ups show in the next recv or send
  }
}

// Requests handed to the handler, per connection. Any thread; guarded by mu.
struct Counters {
  mutable std::mutex mu;
  std::vector<std::size_t> per_connection;
};

// One accepted connection. Owned by H2TestServer::Impl; used only on its own thread
// (the server thread joins that thread before destroying it).
class PeerConnection final : public H2ServerConnection {
 public:
  PeerConnection(int fd, std::size_t index, int stop_fd, const H2TestServerOptions& options,
                 const H2TestServer::Handler& handler, Counters& counters)
      : fd_(fd),
        index_(index),
        stop_fd_(stop_fd),
        options_(options),
        handler_(handler),
        counters_(counters),
        peer_(options.peer) {
    int one = 1;  // frames leave when written, not when the last one was acked
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~PeerConnection() override {
    if (fd_ >= 0) ::close(fd_);
  }
  PeerConnection(const PeerConnection&) = delete;
  PeerConnection& operator=(const PeerConnection&) = delete;

  void run();

  std::size_t index() const override { return index_; }
  std::size_t requests_seen() const override { return seen_; }
  H2ServerStream stream(std::int32_t stream_id) override { return {*this, stream_id}; }
  H2TestPeer& peer() override { return peer_; }
  void goaway(std::int32_t last_stream_id, std::uint32_t error_code,
              std::string_view debug) override {
    peer_.goaway(last_stream_id, error_code, debug);
    flush();
  }
  void stop_reading() override { reading_ = false; }
  void close() override { closing_ = true; }
  void flush() override;
  void send_raw(std::string bytes) override {
    peer_.send_raw(std::move(bytes));
    flush();
  }
  void discard_input() override { discarding_ = true; }
  void reset_connection() override;

 private:
  bool receive();
  bool peer_failed();
  void dispatch();
  void call_handler(std::int32_t stream_id);
  void write_all(std::string_view bytes);
  void linger();

  int fd_;
  std::size_t index_;
  int stop_fd_;
  const H2TestServerOptions& options_;
  const H2TestServer::Handler& handler_;
  Counters& counters_;
  H2TestPeer peer_;
  std::set<std::int32_t> handled_;
  std::size_t seen_ = 0;
  bool reading_ = true;
  bool discarding_ = false;
  bool closing_ = false;
  bool gone_ = false;  // the client went away, the server is stopping, or writes stalled
  bool failure_reported_ = false;
};

void PeerConnection::run() {
  const auto may_send = [this] { return !options_.hold_output_until_request || seen_ > 0; };
  if (may_send()) flush();  // the server's SETTINGS go first, unasked
  // Every read is followed by a flush, handler or not: a WINDOW_UPDATE or SETTINGS
  // fed to the peer may have resumed a body its send policy held back, and only a
  // flush writes it.
  while (!closing_ && !gone_ && receive()) {
    dispatch();
    if (may_send()) flush();
  }
  if (closing_ && !gone_) linger();
}

// One wait and one recv; false once the connection is over.
bool PeerConnection::receive() {
  const short events = reading_ ? POLLIN : 0;
  if (wait_ready(fd_, events, stop_fd_, Clock::time_point::max()) != Ready::fd) return false;
  char buffer[kReadPiece];
  const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
  if (n == 0) return false;
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
  if (discarding_) return true;
  peer_.receive(std::as_bytes(std::span<const char>(buffer, static_cast<std::size_t>(n))));
  return !peer_failed();
}

// The peer keeps its first failure; the test hears of it once.
bool PeerConnection::peer_failed() {
  if (peer_.error().empty()) return false;
  if (!failure_reported_) {
    failure_reported_ = true;
    ADD_FAILURE() << "H2TestServer connection " << index_ << ": " << peer_.error();
  }
  return true;
}

// Hands each request that became ready to the handler once, in arrival order.
void PeerConnection::dispatch() {
  const std::vector<std::int32_t> ids = peer_.request_ids();
  for (std::int32_t stream_id : ids) {
    if (closing_ || gone_) return;
    if (handled_.count(stream_id) != 0) continue;
    const H2TestPeer::Request* request = peer_.request(stream_id);
    if (request == nullptr) continue;
    if (!(options_.call_on_head ? request->head_received : request->ended)) continue;
    handled_.insert(stream_id);
    call_handler(stream_id);
  }
}

void PeerConnection::call_handler(std::int32_t stream_id) {
  ++seen_;
  {
    std::lock_guard<std::mutex> lock(counters_.mu);
    ++counters_.per_connection[index_ - 1];
  }
  H2ServerStream stream(*this, stream_id);
  try {
    handler_(stream);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "H2TestServer handler threw: " << e.what();
  } catch (...) {
    ADD_FAILURE() << "H2TestServer handler threw a non-standard exception";
  }
}

void PeerConnection::flush() {
  const std::string out = peer_.take_output();
  if (peer_failed()) gone_ = true;
  write_all(out);
}

void PeerConnection::write_all(std::string_view bytes) {
  while (!bytes.empty() && !gone_) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      if (wait_ready(fd_, POLLOUT, stop_fd_, Clock::now() + kWriteStall) != Ready::fd) gone_ = true;
    } else {
      gone_ = true;  // the client closed: what it missed is its test's business
    }
  }
}

void PeerConnection::reset_connection() {
  if (fd_ < 0) return;
  struct linger hard_close {
    1, 0
  };  // close() sends RST instead of FIN
  ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &hard_close, sizeof hard_close);
  ::close(fd_);
  fd_ = -1;
  gone_ = true;
}

void PeerConnection::linger() {
  ::shutdown(fd_, SHUT_WR);
  const Clock::time_point give_up = Clock::now() + kLingerTotal;
  char scratch[16 * 1024];
  for (;;) {
    const ssize_t n = ::recv(fd_, scratch, sizeof scratch, 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return;
    if (n > 0) continue;
    const Clock::time_point idle_limit = std::min(give_up, Clock::now() + kLingerIdle);
    if (wait_ready(fd_, POLLIN, stop_fd_, idle_limit) != Ready::fd) return;
  }
}

}  // namespace

const H2TestPeer::Request& H2ServerStream::request() const {
  static const H2TestPeer::Request unknown;
  const H2TestPeer::Request* found = conn_->peer().request(stream_id_);
  if (found == nullptr) {
    ADD_FAILURE() << "H2TestServer: no request on stream " << stream_id_;
    return unknown;
  }
  return *found;
}

std::string H2ServerStream::method() const {
  return std::string(request().headers.get(":method").value_or(""));
}

std::string H2ServerStream::path() const {
  return std::string(request().headers.get(":path").value_or(""));
}

void H2ServerStream::respond(int status, Headers headers, bool end_stream) {
  conn_->peer().respond(stream_id_, status, std::move(headers), end_stream);
  conn_->flush();
}

void H2ServerStream::send_body(std::string_view bytes, bool end) {
  conn_->peer().send_body(stream_id_, bytes, end);
  conn_->flush();
}

void H2ServerStream::send_body_generated(std::uint64_t size, std::uint64_t seed, bool end) {
  conn_->peer().send_body_generated(stream_id_, size, seed, end);
  conn_->flush();
}

void H2ServerStream::send_trailers(Headers trailers) {
  conn_->peer().send_trailers(stream_id_, std::move(trailers));
  conn_->flush();
}

void H2ServerStream::reset(std::uint32_t error_code) {
  conn_->peer().reset(stream_id_, error_code);
  conn_->flush();
}

// Owned by H2TestServer. Built and destroyed on the test's thread; the accept thread
// adds connections under mu; each connection thread uses only its own entry.
struct H2TestServer::Impl {
  struct Live {
    std::unique_ptr<PeerConnection> conn;
    std::thread thread;
  };

  Impl(Handler handler_in, H2TestServerOptions options_in)
      : handler(std::move(handler_in)), options(std::move(options_in)) {}
  ~Impl();

  void listen();
  void accept_loop();
  void start_connection(int fd);

  Handler handler;
  H2TestServerOptions options;
  int listen_fd = -1;
  int stop[2] = {-1, -1};  // the destructor writes stop[1]; every poll watches stop[0]
  std::uint16_t port = 0;
  Counters counters;
  std::mutex mu;
  std::vector<std::unique_ptr<Live>> live;  // guarded by mu
  std::thread acceptor;
};

void H2TestServer::Impl::listen() {
  if (::pipe2(stop, O_CLOEXEC) != 0) fail_setup(std::string("pipe2: ") + std::strerror(errno));
  listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listen_fd < 0) fail_setup(std::string("socket() failed: ") + std::strerror(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(listen_fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::listen(listen_fd, 128) != 0 ||
      ::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    fail_setup(std::string("cannot listen on loopback: ") + std::strerror(errno));
  }
  port = ntohs(address.sin_port);
}

void H2TestServer::Impl::accept_loop() {
  for (;;) {
    if (wait_ready(listen_fd, POLLIN, stop[0], Clock::time_point::max()) != Ready::fd) return;
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      // Out of descriptors: wait for connections to end instead of spinning.
      if (errno == EMFILE || errno == ENFILE) std::this_thread::sleep_for(10ms);
      continue;
    }
    start_connection(fd);
  }
}

void H2TestServer::Impl::start_connection(int fd) {
  std::size_t index = 0;
  {
    std::lock_guard<std::mutex> lock(counters.mu);
    counters.per_connection.push_back(0);
    index = counters.per_connection.size();
  }
  auto entry = std::make_unique<Live>();
  entry->conn = std::make_unique<PeerConnection>(fd, index, stop[0], options, handler, counters);
  PeerConnection& conn = *entry->conn;
  std::lock_guard<std::mutex> lock(mu);
  entry->thread = std::thread([&conn] { conn.run(); });
  live.push_back(std::move(entry));
}

H2TestServer::Impl::~Impl() {
  if (stop[1] >= 0) {
    const char byte = 1;
    while (::write(stop[1], &byte, 1) < 0 && errno == EINTR) {}
  }
  if (acceptor.joinable()) acceptor.join();
  // The acceptor is gone: nothing adds to `live` any more.
  for (auto& entry : live) entry->thread.join();
  live.clear();
  if (listen_fd >= 0) ::close(listen_fd);
  for (int fd : stop) {
    if (fd >= 0) ::close(fd);
  }
}

H2TestServer::H2TestServer(Handler handler, H2TestServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(handler), std::move(options))) {
  impl_->listen();
  impl_->acceptor = std::thread([impl = impl_.get()] { impl->accept_loop(); });
}

H2TestServer::~H2TestServer() = default;

std::uint16_t H2TestServer::port() const { return impl_->port; }

std::string H2TestServer::url(std::string_view path) const {
  std::string out = "http://127.0.0.1:" + std::to_string(impl_->port);
  if (path.empty() || path.front() != '/') out += '/';
  out += path;
  return out;
}

std::size_t H2TestServer::connections_accepted() const {
  std::lock_guard<std::mutex> lock(impl_->counters.mu);
  return impl_->counters.per_connection.size();
}

std::vector<std::size_t> H2TestServer::requests_per_connection() const {
  std::lock_guard<std::mutex> lock(impl_->counters.mu);
  return impl_->counters.per_connection;
}

std::size_t H2TestServer::requests_seen() const {
  std::size_t total = 0;
  for (std::size_t n : requests_per_connection()) total += n;
  return total;
}

}  // namespace sluice::test
