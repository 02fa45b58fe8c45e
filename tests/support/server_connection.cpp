// The test server's connections: request reading, timed writes and the ways a
// connection can end, over plain TCP and over TLS.
//
// Sockets are non-blocking throughout and every wait is a poll() with a deadline, so
// a timeout is exact, TLS cannot block inside a half-received record, and abort()
// (a shutdown from the server thread) wakes every wait at once.

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <mutex>
#include <thread>

#include "support/server_connection.hpp"

namespace sluice::test::detail {
namespace {

using Clock = std::chrono::steady_clock;

// write() gives up on a peer that has taken nothing for this long.
constexpr auto kWriteStall = std::chrono::seconds(30);
constexpr std::size_t kMaxHeadBytes = 1 << 20;
constexpr std::uint64_t kMaxChunkBytes = std::uint64_t{1} << 40;
constexpr std::size_t kReadPiece = 64 * 1024;
// Lingering close: keep reading (and dropping) what the peer still sends, so that
// unread request bytes do not turn our FIN into a RST that destroys the response.
constexpr auto kLingerIdle = std::chrono::milliseconds(200);
constexpr auto kLingerTotal = std::chrono::seconds(2);
// TLS records carry at most 16 KiB; one record per SSL_write keeps a retry small.
constexpr std::size_t kTlsPiece = 16 * 1024;

enum class Io { done, want_read, want_write, eof, failed };

struct IoOutcome {
  Io status;
  std::size_t n = 0;
};

enum class Ready { ready, timeout, failed };

Ready wait_fd(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    auto now = Clock::now();
    if (now >= deadline) return Ready::timeout;
    auto ms = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
    pollfd p{fd, events, 0};
    int rv = ::poll(&p, 1, static_cast<int>(std::min<long long>(ms, INT_MAX)));
    if (rv > 0) return Ready::ready;  // errors and hangups show in the next I/O call
    if (rv < 0 && errno != EINTR) return Ready::failed;
  }
}

// Owned by TestServer; used on its handler thread, except abort() (any thread).
// Guards only the descriptor's lifetime: the handler thread is the only one that
// closes it, and abort() only shuts it down, under fd_mu_.
class SocketConnection : public ManagedConnection {
 public:
  explicit SocketConnection(int fd) : fd_(fd) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    int one = 1;  // pieces of write_slowly must leave when written, not when acked
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~SocketConnection() override { close_fd(false); }

  std::optional<ReceivedRequest> read_request(std::chrono::milliseconds timeout) override;
  std::optional<ReceivedRequest> read_request_head(std::chrono::milliseconds timeout) override {
    return read_head(Clock::now() + timeout);
  }
  std::string read_some(std::size_t n, std::chrono::milliseconds timeout) override;
  bool write(std::string_view bytes) override {
    return send_with_stall(bytes, kWriteStall) == bytes.size();
  }
  bool write_slowly(std::string_view bytes, std::size_t piece,
                    std::chrono::milliseconds gap) override;
  std::size_t write_until_blocked(std::string_view bytes,
                                  std::chrono::milliseconds stall) override {
    return send_with_stall(bytes, stall);
  }
  bool wait_peer_closed(std::chrono::milliseconds timeout) override;
  void shutdown_write() override;
  void close() override;
  void reset() override { close_fd(true); }
  std::uint64_t bytes_written() const override { return bytes_written_.load(); }
  std::uint64_t write_waits() const override { return write_waits_.load(); }

  bool handshake(std::chrono::milliseconds) override { return true; }
  void abort() noexcept override;
  void finish() override { close(); }

 protected:
  // One non-blocking transfer; n == 0 only when flushing pending output.
  virtual IoOutcome recv_raw(char* out, std::size_t n) = 0;
  virtual IoOutcome send_raw(const char* bytes, std::size_t n) = 0;
  virtual bool has_pending_output() const { return false; }
  virtual void send_close_notify() {}

  int fd() const { return fd_; }
  // Handler thread only. Waits out want_read/want_write; false on timeout.
  bool wait_for(Io want, Clock::time_point deadline) {
    short events = want == Io::want_write ? POLLOUT : POLLIN;
    return wait_fd(fd_, events, deadline) == Ready::ready;
  }

 private:
  bool fill(Clock::time_point deadline);
  bool ensure_buffered(std::size_t n, Clock::time_point deadline);
  std::string take(std::size_t n);
  std::optional<std::string> read_line(Clock::time_point deadline);
  std::optional<ReceivedRequest> read_head(Clock::time_point deadline);
  bool read_chunked_body(ReceivedRequest& request, Clock::time_point deadline);
  std::size_t send_with_stall(std::string_view bytes, std::chrono::milliseconds stall);
  void drain_before_close();
  void close_fd(bool send_reset);

  std::string in_;  // received, not yet consumed: in_[in_pos_..]
  std::size_t in_pos_ = 0;
  std::mutex fd_mu_;
  int fd_;  // written only by the handler thread, under fd_mu_
  std::atomic<bool> aborted_{false};
  std::atomic<std::uint64_t> bytes_written_{0};
  std::atomic<std::uint64_t> write_waits_{0};
};

bool SocketConnection::fill(Clock::time_point deadline) {
  for (;;) {
    std::size_t old_size = in_.size();
    in_.resize(old_size + kReadPiece);
    IoOutcome r = recv_raw(in_.data() + old_size, kReadPiece);
    in_.resize(old_size + (r.status == Io::done ? r.n : 0));
    if (r.status == Io::done) return true;
    if (r.status != Io::want_read && r.status != Io::want_write) return false;
    if (!wait_for(r.status, deadline)) return false;
  }
}

bool SocketConnection::ensure_buffered(std::size_t n, Clock::time_point deadline) {
  while (in_.size() - in_pos_ < n) {
    if (!fill(deadline)) return false;
  }
  return true;
}

std::string SocketConnection::take(std::size_t n) {
  std::string out = in_.substr(in_pos_, n);
  in_pos_ += out.size();
  if (in_pos_ == in_.size()) {
    in_.clear();
    in_pos_ = 0;
  } else if (in_pos_ >= kReadPiece) {  // keep the buffer from growing with pipelining
    in_.erase(0, in_pos_);
    in_pos_ = 0;
  }
  return out;
}

std::optional<std::string> SocketConnection::read_line(Clock::time_point deadline) {
  std::size_t searched = in_pos_;
  for (;;) {
    std::size_t end = in_.find("\r\n", searched);
    if (end != std::string::npos) {
      std::string line = take(end - in_pos_ + 2);
      line.resize(line.size() - 2);
      return line;
    }
    if (in_.size() - in_pos_ > kMaxHeadBytes) return std::nullopt;
    searched = std::max(in_pos_ + 1, in_.size()) - 1;
    if (!fill(deadline)) return std::nullopt;
  }
}

std::optional<ReceivedRequest> SocketConnection::read_head(Clock::time_point deadline) {
  // RFC 9112 section 2.2: empty lines before a request line are ignored.
  for (;;) {
    if (!ensure_buffered(2, deadline)) return std::nullopt;
    if (in_.compare(in_pos_, 2, "\r\n") != 0) break;
    take(2);
  }
  std::size_t searched = in_pos_;
  for (;;) {
    std::size_t end = in_.find("\r\n\r\n", searched);
    if (end != std::string::npos) {
      std::string head = take(end - in_pos_ + 4);
      head.resize(head.size() - 4);
      return parse_request_head(head);
    }
    if (in_.size() - in_pos_ > kMaxHeadBytes) return std::nullopt;
    searched = std::max(in_pos_ + 3, in_.size()) - 3;
    if (!fill(deadline)) return std::nullopt;
  }
}

bool SocketConnection::read_chunked_body(ReceivedRequest& request, Clock::time_point deadline) {
  for (;;) {
    std::optional<std::string> line = read_line(deadline);
    if (!line) return false;
    std::optional<std::uint64_t> size = parse_chunk_size(*line);
    if (!size) return false;
    if (*size == 0) break;
    if (*size > kMaxChunkBytes) return false;
    if (!ensure_buffered(*size + 2, deadline)) return false;
    request.body += take(*size);
    if (take(2) != "\r\n") return false;
  }
  // Trailer fields are read and dropped; the empty line ends the message.
  for (;;) {
    std::optional<std::string> trailer = read_line(deadline);
    if (!trailer) return false;
    if (trailer->empty()) return true;
  }
}

std::optional<ReceivedRequest> SocketConnection::read_request(std::chrono::milliseconds timeout) {
  Clock::time_point deadline = Clock::now() + timeout;
  std::optional<ReceivedRequest> request = read_head(deadline);
  if (!request) return std::nullopt;
  if (request->chunked) {
    if (!read_chunked_body(*request, deadline)) return std::nullopt;
    return request;
  }
  std::optional<std::uint64_t> length = content_length_of(*request);
  if (!length || !ensure_buffered(*length, deadline)) return std::nullopt;
  request->body = take(*length);
  return request;
}

std::string SocketConnection::read_some(std::size_t n, std::chrono::milliseconds timeout) {
  if (n == 0) return {};
  if (in_pos_ == in_.size() && !fill(Clock::now() + timeout)) return {};
  return take(n);
}

bool SocketConnection::write_slowly(std::string_view bytes, std::size_t piece,
                                    std::chrono::milliseconds gap) {
  piece = std::max<std::size_t>(piece, 1);
  for (std::size_t at = 0; at < bytes.size(); at += piece) {
    if (at > 0) {
      // Sleep in slices so that a stopping server is not kept waiting by a long gap.
      Clock::time_point wake = Clock::now() + gap;
      while (!aborted_.load() && Clock::now() < wake) {
        std::this_thread::sleep_for(
            std::min<Clock::duration>(wake - Clock::now(), std::chrono::milliseconds(20)));
      }
    }
    if (!write(bytes.substr(at, piece))) return false;
  }
  return true;
}

std::size_t SocketConnection::send_with_stall(std::string_view bytes,
                                              std::chrono::milliseconds stall) {
  std::size_t written = 0;
  while (written < bytes.size() || has_pending_output()) {
    IoOutcome r = send_raw(bytes.data() + written, bytes.size() - written);
    if (r.status == Io::done) {
      written += r.n;
      bytes_written_.fetch_add(r.n);
    } else if (r.status == Io::want_read || r.status == Io::want_write) {
      write_waits_.fetch_add(1);
      if (!wait_for(r.status, Clock::now() + stall)) break;
    } else {
      break;
    }
  }
  return written;
}

bool SocketConnection::wait_peer_closed(std::chrono::milliseconds timeout) {
  if (fd_ < 0) return false;
  Clock::time_point deadline = Clock::now() + timeout;
  in_.clear();
  in_pos_ = 0;
  char scratch[4096];
  for (;;) {
    IoOutcome r = recv_raw(scratch, sizeof scratch);
    if (r.status == Io::eof || r.status == Io::failed) return true;  // RST closes too
    if (r.status != Io::done && !wait_for(r.status, deadline)) return false;
  }
}

void SocketConnection::shutdown_write() {
  if (fd_ < 0) return;
  send_close_notify();
  ::shutdown(fd_, SHUT_WR);
}

void SocketConnection::close() {
  if (fd_ < 0) return;
  shutdown_write();
  drain_before_close();
  close_fd(false);
}

void SocketConnection::drain_before_close() {
  Clock::time_point give_up = Clock::now() + kLingerTotal;
  char scratch[16 * 1024];
  for (;;) {
    ssize_t rv = ::recv(fd_, scratch, sizeof scratch, 0);
    if (rv == 0 || (rv < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      return;
    }
    Clock::time_point idle_limit = std::min(give_up, Clock::now() + kLingerIdle);
    if (rv < 0 && wait_fd(fd_, POLLIN, idle_limit) != Ready::ready) return;
  }
}

void SocketConnection::close_fd(bool send_reset) {
  std::lock_guard<std::mutex> lock(fd_mu_);
  if (fd_ < 0) return;
  if (send_reset) {
    struct linger l {
      1, 0
    };  // closing with a zero linger time sends RST instead of FIN
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  }
  ::close(fd_);
  fd_ = -1;
}

void SocketConnection::abort() noexcept {
  aborted_.store(true);
  std::lock_guard<std::mutex> lock(fd_mu_);
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

// Plain TCP. Same ownership as SocketConnection.
class PlainConnection final : public SocketConnection {
 public:
  using SocketConnection::SocketConnection;

 protected:
  IoOutcome recv_raw(char* out, std::size_t n) override {
    if (fd() < 0) return {Io::failed};
    for (;;) {
      ssize_t rv = ::recv(fd(), out, n, 0);
      if (rv > 0) return {Io::done, static_cast<std::size_t>(rv)};
      if (rv == 0) return {Io::eof};
      if (errno == EAGAIN || errno == EWOULDBLOCK) return {Io::want_read};
      if (errno != EINTR) return {Io::failed};
    }
  }
  IoOutcome send_raw(const char* bytes, std::size_t n) override {
    if (fd() < 0) return {Io::failed};
    for (;;) {
      ssize_t rv = ::send(fd(), bytes, n, MSG_NOSIGNAL);
      if (rv >= 0) return {Io::done, static_cast<std::size_t>(rv)};
      if (errno == EAGAIN || errno == EWOULDBLOCK) return {Io::want_write};
      if (errno != EINTR) return {Io::failed};
    }
  }
};

// TLS over OpenSSL. Same ownership as SocketConnection; the SSL object belongs to
// the handler thread.
class TlsConnection final : public SocketConnection {
 public:
  TlsConnection(int fd, SSL_CTX* ctx) : SocketConnection(fd), ssl_(SSL_new(ctx)) {
    if (ssl_ == nullptr) return;
    SSL_set_fd(ssl_, fd);
    // A write blocked mid-record is retried later from our own copy (pending_).
    SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_set_accept_state(ssl_);
  }
  ~TlsConnection() override {
    if (ssl_ != nullptr) SSL_free(ssl_);
  }

  bool handshake(std::chrono::milliseconds timeout) override;

 protected:
  IoOutcome recv_raw(char* out, std::size_t n) override;
  IoOutcome send_raw(const char* bytes, std::size_t n) override;
  bool has_pending_output() const override { return !pending_.empty(); }
  void send_close_notify() override;

 private:
  IoOutcome outcome_of(int rv, std::size_t n);

  SSL* ssl_;
  // A record OpenSSL accepted but could not flush: it must be retried with these
  // bytes before anything else is written. Already counted as written.
  std::string pending_;
  bool close_notify_sent_ = false;
};

IoOutcome TlsConnection::outcome_of(int rv, std::size_t n) {
  if (rv == 1) return {Io::done, n};
  switch (SSL_get_error(ssl_, rv)) {
    case SSL_ERROR_WANT_READ: return {Io::want_read};
    case SSL_ERROR_WANT_WRITE: return {Io::want_write};
    case SSL_ERROR_ZERO_RETURN: return {Io::eof};
    default: return {Io::failed};
  }
}

bool TlsConnection::handshake(std::chrono::milliseconds timeout) {
  if (ssl_ == nullptr) return false;
  Clock::time_point deadline = Clock::now() + timeout;
  for (;;) {
    ERR_clear_error();
    IoOutcome r = outcome_of(SSL_do_handshake(ssl_), 0);
    if (r.status == Io::done) return true;
    if (r.status != Io::want_read && r.status != Io::want_write) return false;
    if (!wait_for(r.status, deadline)) return false;
  }
}

IoOutcome TlsConnection::recv_raw(char* out, std::size_t n) {
  if (fd() < 0 || ssl_ == nullptr) return {Io::failed};
  // SSL_read goes first, before any poll: bytes OpenSSL already decrypted
  // (SSL_pending) would never make the socket readable again.
  ERR_clear_error();
  std::size_t got = 0;
  int rv = SSL_read_ex(ssl_, out, n, &got);  // before outcome_of reads `got`
  return outcome_of(rv, got);
}

IoOutcome TlsConnection::send_raw(const char* bytes, std::size_t n) {
  if (fd() < 0 || ssl_ == nullptr) return {Io::failed};
  std::size_t sent = 0;
  if (!pending_.empty()) {
    ERR_clear_error();
    IoOutcome r = outcome_of(SSL_write_ex(ssl_, pending_.data(), pending_.size(), &sent), 0);
    if (r.status != Io::done) return r;
    pending_.clear();
    if (n == 0) return {Io::done, 0};
  }
  std::size_t piece = std::min(n, kTlsPiece);
  ERR_clear_error();
  int rv = SSL_write_ex(ssl_, bytes, piece, &sent);
  IoOutcome r = outcome_of(rv, sent);
  if (r.status == Io::want_read || r.status == Io::want_write) {
    pending_.assign(bytes, piece);
    return {Io::done, piece};
  }
  return r;
}

void TlsConnection::send_close_notify() {
  if (ssl_ == nullptr || close_notify_sent_ || !SSL_is_init_finished(ssl_)) return;
  close_notify_sent_ = true;
  Clock::time_point deadline = Clock::now() + kLingerTotal;
  while (!pending_.empty()) {
    IoOutcome r = send_raw(nullptr, 0);
    if (r.status == Io::done) continue;
    if ((r.status != Io::want_read && r.status != Io::want_write) ||
        !wait_for(r.status, deadline)) {
      return;
    }
  }
  ERR_clear_error();
  // Non-blocking: one attempt queues close_notify; the peer's reply is not awaited.
  SSL_shutdown(ssl_);
}

}  // namespace

std::unique_ptr<ManagedConnection> make_plain_connection(int fd) {
  return std::make_unique<PlainConnection>(fd);
}

std::unique_ptr<ManagedConnection> make_tls_connection(int fd, SSL_CTX* ctx) {
  return std::make_unique<TlsConnection>(fd, ctx);
}

}  // namespace sluice::test::detail
