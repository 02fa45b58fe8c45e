// TcpDelayLink's relay: a listener and, per accepted connection, a socket to the
// target, on one thread under a LinkLoop. Each direction of a connection is a delay
// line: bytes are read as soon as they arrive (stamped with their due time) and
// written once due; a FIN follows the last byte, a reset or an error resets both
// sides.

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <optional>
#include <thread>
#include <vector>

#include "bench/delay_link.hpp"
#include "bench/link_loop.hpp"
#include "bench/link_socket.hpp"

namespace sluice::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Beyond this backlog in one direction of one connection the link stops reading
// from that side (a guard against a runaway sender, far above any window the
// benchmarks meet: 256 MiB is 5 s at 50 MiB/s).
constexpr std::size_t kMaxQueuedBytes = 256 * 1024 * 1024;
// Per readable event, then the other sockets get their turn (epoll is level-triggered,
// so what is left is reported again).
constexpr std::size_t kReadBudget = 2 * 1024 * 1024;
constexpr std::size_t kMinRead = 64 * 1024;
// With a rate, a large read is due piece by piece, as a link serialises it, not all
// at once when its last byte would arrive.
constexpr std::size_t kRateSlice = 16 * 1024;
constexpr std::size_t kMaxIov = 64;
constexpr std::size_t kWriteLimit = 4 * 1024 * 1024;

// A connection's two sockets; also the index of the direction read from that side:
// dirs[kClient] carries client -> server bytes.
enum Side : int { kClient = 0, kServer = 1 };

Side other(Side side) { return side == kClient ? kServer : kClient; }

// Bytes up to stream offset `end` are due at `due`.
struct Mark {
  std::uint64_t end = 0;
  LinkTime due{};
};

// One direction of one connection: bytes read from one side, not yet written to
// the other.
struct Direction {
  ByteFifo bytes;
  std::deque<Mark> marks;     // not yet due; due times never decrease
  std::uint64_t read = 0;     // stream offsets: bytes read so far,
  std::uint64_t due_end = 0;  // ... of those, due,
  std::uint64_t written = 0;  // ... of those, written
  bool eof = false;           // the source sent its FIN
  LinkTime eof_due{};         // when the FIN is due on the other side
  bool fin_sent = false;
  bool blocked = false;  // the destination's send buffer is full: wait for EPOLLOUT
};

struct Conn;

// What a socket's epoll tag points at.
struct Endpoint {
  Conn* conn = nullptr;
  Side side = kClient;
};

struct Conn {
  int fd[2] = {-1, -1};
  Endpoint ends[2];
  Direction dirs[2];
  std::uint32_t watched[2] = {0, 0};  // the events each socket is watched for
  bool closed = false;                // sockets closed; freed after the current batch
};

}  // namespace

// Owned by TcpDelayLink. The constructor and destructor on the owner's thread; every
// other member on the relay's thread, except counters() (any thread).
class TcpDelayLink::Relay {
 public:
  Relay(int listen_fd, std::uint16_t target_port, LinkShape shape, std::unique_ptr<LinkLoop> loop)
      : listen_fd_(listen_fd),
        port_(local_port(listen_fd)),
        target_port_(target_port),
        loop_(std::move(loop)),
        clocks_{LinkClock(shape), LinkClock(shape)} {}
  ~Relay();
  Result<void> start_thread();

  std::uint16_t port() const noexcept { return port_; }
  LinkCounters counters() const { return counters_.snapshot(); }

 private:
  void run();
  void dispatch(const LinkLoop::Ready& ready);
  void accept_all();
  void open_conn(int client_fd);
  void read_side(Conn& conn, Side side);
  void add_marks(Direction& dir, Side side, std::size_t n, LinkTime now);
  void flush(Conn& conn, Side from, LinkTime now);
  void write_due(Conn& conn, Side from);
  void rewatch(Conn& conn);
  void close_conn(Conn& conn, bool reset);
  std::optional<LinkTime> after_events(LinkTime now);
  static std::optional<LinkTime> next_due(const Conn& conn);

  int listen_fd_;
  std::uint16_t port_;
  std::uint16_t target_port_;
  std::unique_ptr<LinkLoop> loop_;
  LinkClock clocks_[2];  // per direction, shared by every connection: one link
  std::vector<std::unique_ptr<Conn>> conns_;
  char listen_tag_ = 0;  // its address tags the listener in the epoll set
  LinkCounterCells counters_;
  std::thread thread_;
};

Result<void> TcpDelayLink::Relay::start_thread() {
  if (Result<void> ok = loop_->watch(listen_fd_, EPOLLIN, &listen_tag_); !ok) return ok;
  thread_ = std::thread([this] { run(); });
  return {};
}

TcpDelayLink::Relay::~Relay() {
  if (thread_.joinable()) {
    loop_->stop();
    thread_.join();
  }
  for (const std::unique_ptr<Conn>& conn : conns_) {
    if (!conn->closed) close_conn(*conn, true);
  }
  loop_->unwatch(listen_fd_);
  ::close(listen_fd_);
}

// Every pass ends the same way: what is due is written, the sockets' watched events
// are brought up to date, and the next due time bounds the next wait. What is due is
// written before anything is read, so it does not wait behind long reads.
void TcpDelayLink::Relay::run() {
  prefer_link_thread();
  std::optional<LinkTime> deadline;
  while (!loop_->stopping()) {
    const std::span<const LinkLoop::Ready> ready_set = loop_->wait(deadline);
    const LinkTime now = Clock::now();
    for (const std::unique_ptr<Conn>& conn : conns_) {
      for (Side from : {kClient, kServer}) {
        if (!conn->closed) flush(*conn, from, now);
      }
    }
    for (const LinkLoop::Ready& ready : ready_set) dispatch(ready);
    deadline = after_events(Clock::now());
  }
}

void TcpDelayLink::Relay::dispatch(const LinkLoop::Ready& ready) {
  if (ready.tag == &listen_tag_) {
    accept_all();
    return;
  }
  const Endpoint& end = *static_cast<const Endpoint*>(ready.tag);
  Conn& conn = *end.conn;
  if (conn.closed) return;  // reset earlier in this batch
  // An error or hang-up is reported with whatever was asked for; the next send or
  // recv on the socket then says which it was.
  const std::uint32_t trouble = EPOLLERR | EPOLLHUP;
  if ((ready.events & (EPOLLOUT | trouble)) != 0) conn.dirs[other(end.side)].blocked = false;
  if ((ready.events & (EPOLLIN | trouble)) != 0 && (conn.watched[end.side] & EPOLLIN) != 0) {
    read_side(conn, end.side);
  }
}

void TcpDelayLink::Relay::accept_all() {
  for (;;) {
    const int client_fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (client_fd >= 0) {
      open_conn(client_fd);
    } else if (errno != EINTR && errno != ECONNABORTED) {
      // EAGAIN: none left. EMFILE and the like: the connection waits in the backlog
      // and the next pass tries again (passes are kMinPass apart: no busy loop).
      return;
    }
  }
}

// The connect to the target is non-blocking: until it completes, a send says EAGAIN
// (the direction waits for EPOLLOUT) and a refusal shows as an error on the socket.
void TcpDelayLink::Relay::open_conn(int client_fd) {
  const int server_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  const sockaddr_in target = loopback_address(target_port_);
  auto conn = std::make_unique<Conn>();
  conn->fd[kClient] = client_fd;
  conn->fd[kServer] = server_fd;
  conn->ends[kClient] = Endpoint{conn.get(), kClient};
  conn->ends[kServer] = Endpoint{conn.get(), kServer};
  counters_.connections.fetch_add(1, std::memory_order_relaxed);
  if (server_fd < 0 ||
      (::connect(server_fd, reinterpret_cast<const sockaddr*>(&target), sizeof target) != 0 &&
       errno != EINPROGRESS)) {
    close_conn(*conn, true);
    return;
  }
  // Whatever is due goes out at once: Nagle's wait for an ACK would add delay the
  // link does not model.
  const int on = 1;
  for (int fd : conn->fd) ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  rewatch(*conn);
  if (!conn->closed) conns_.push_back(std::move(conn));
}

void TcpDelayLink::Relay::read_side(Conn& conn, Side side) {
  Direction& dir = conn.dirs[side];
  std::size_t budget = kReadBudget;
  while (budget > 0 && !dir.eof && dir.bytes.size() < kMaxQueuedBytes) {
    const std::span<char> space = dir.bytes.tail_space(kMinRead);
    const ssize_t n = ::recv(conn.fd[side], space.data(), space.size(), 0);
    if (n > 0) {
      const auto got = static_cast<std::size_t>(n);
      dir.bytes.commit(got);
      add_marks(dir, side, got, Clock::now());
      budget -= std::min(budget, got);
      if (got < space.size()) return;  // drained; epoll says when there is more
    } else if (n == 0) {
      dir.eof = true;
      dir.eof_due = clocks_[side].arrival(Clock::now(), 0);  // after the last byte
      return;
    } else if (errno != EINTR) {
      if (errno != EAGAIN && errno != EWOULDBLOCK) close_conn(conn, true);
      return;
    }
  }
}

void TcpDelayLink::Relay::add_marks(Direction& dir, Side side, std::size_t n, LinkTime now) {
  LinkClock& clock = clocks_[side];
  const std::size_t slice = clock.rate_limited() ? kRateSlice : n;
  while (n > 0) {
    const std::size_t piece = std::min(n, slice);
    dir.read += piece;
    dir.marks.push_back(Mark{dir.read, clock.arrival(now, piece)});
    n -= piece;
  }
}

void TcpDelayLink::Relay::flush(Conn& conn, Side from, LinkTime now) {
  Direction& dir = conn.dirs[from];
  while (!dir.marks.empty() && dir.marks.front().due <= now) {
    dir.due_end = dir.marks.front().end;
    dir.marks.pop_front();
  }
  if (!dir.blocked && dir.written < dir.due_end) write_due(conn, from);
  if (conn.closed) return;
  if (dir.eof && !dir.fin_sent && dir.written == dir.read && now >= dir.eof_due) {
    ::shutdown(conn.fd[other(from)], SHUT_WR);
    dir.fin_sent = true;
  }
  if (conn.dirs[kClient].fin_sent && conn.dirs[kServer].fin_sent) close_conn(conn, false);
}

void TcpDelayLink::Relay::write_due(Conn& conn, Side from) {
  Direction& dir = conn.dirs[from];
  auto& forwarded = from == kClient ? counters_.bytes_to_server : counters_.bytes_to_client;
  while (dir.written < dir.due_end) {
    iovec iov[kMaxIov];
    const std::size_t limit = std::min<std::uint64_t>(dir.due_end - dir.written, kWriteLimit);
    msghdr message{};
    message.msg_iov = iov;
    message.msg_iovlen = dir.bytes.front(limit, iov);
    const ssize_t n = ::sendmsg(conn.fd[other(from)], &message, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      dir.blocked = true;
      return;
    }
    if (n < 0) {
      close_conn(conn, true);
      return;
    }
    const auto sent = static_cast<std::size_t>(n);
    dir.bytes.consume(sent);
    dir.written += sent;
    forwarded.fetch_add(sent, std::memory_order_relaxed);
    std::size_t offered = 0;
    for (std::size_t i = 0; i < message.msg_iovlen; ++i) offered += iov[i].iov_len;
    if (sent < offered) dir.blocked = true;  // the send buffer is full
    if (dir.blocked) return;
  }
}

// A side is read while its direction is open and under the backlog cap, and watched
// for EPOLLOUT while the direction towards it is blocked. A socket with nothing to
// wait for leaves the epoll set, so a hang-up it keeps reporting cannot spin the loop.
void TcpDelayLink::Relay::rewatch(Conn& conn) {
  for (Side side : {kClient, kServer}) {
    const Direction& in = conn.dirs[side];
    std::uint32_t want = 0;
    if (!in.eof && in.bytes.size() < kMaxQueuedBytes) want |= EPOLLIN;
    if (conn.dirs[other(side)].blocked) want |= EPOLLOUT;
    if (want == conn.watched[side]) continue;
    if (Result<void> ok = loop_->watch(conn.fd[side], want, &conn.ends[side]); !ok) {
      close_conn(conn, true);
      return;
    }
    conn.watched[side] = want;
  }
}

// A reset (SO_LINGER 0) tells each end that the other is gone, as a real reset
// would; a graceful close follows both FINs.
void TcpDelayLink::Relay::close_conn(Conn& conn, bool reset) {
  if (reset) counters_.resets.fetch_add(1, std::memory_order_relaxed);
  for (int& fd : conn.fd) {
    if (fd < 0) continue;
    loop_->unwatch(fd);
    if (reset) {
      const linger abort_on_close{1, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
    }
    ::close(fd);
    fd = -1;
  }
  conn.closed = true;
}

std::optional<LinkTime> TcpDelayLink::Relay::after_events(LinkTime now) {
  std::optional<LinkTime> deadline;
  for (const std::unique_ptr<Conn>& conn : conns_) {
    for (Side from : {kClient, kServer}) {
      if (!conn->closed) flush(*conn, from, now);
    }
    if (!conn->closed) rewatch(*conn);
    if (conn->closed) continue;
    if (std::optional<LinkTime> due = next_due(*conn); due && (!deadline || *due < *deadline)) {
      deadline = due;
    }
  }
  std::erase_if(conns_, [](const std::unique_ptr<Conn>& conn) { return conn->closed; });
  return deadline;
}

// A blocked direction waits for EPOLLOUT, not for a time.
std::optional<LinkTime> TcpDelayLink::Relay::next_due(const Conn& conn) {
  std::optional<LinkTime> next;
  for (const Direction& dir : conn.dirs) {
    std::optional<LinkTime> due;
    if (dir.blocked) continue;
    if (!dir.marks.empty()) {
      due = dir.marks.front().due;
    } else if (dir.eof && !dir.fin_sent) {
      due = dir.eof_due;
    }
    if (due && (!next || *due < *next)) next = due;
  }
  return next;
}

Result<std::unique_ptr<TcpDelayLink>> TcpDelayLink::start(std::uint16_t target_port,
                                                          LinkShape shape,
                                                          std::uint16_t listen_port) {
  Result<int> listen_fd = bound_loopback_socket(SOCK_STREAM, listen_port);
  if (!listen_fd) return std::move(listen_fd).error();
  if (::listen(*listen_fd, SOMAXCONN) != 0) {
    Error error = link_error("cannot listen");
    ::close(*listen_fd);
    return error;
  }
  Result<std::unique_ptr<LinkLoop>> loop = LinkLoop::create();
  if (!loop) {
    ::close(*listen_fd);
    return std::move(loop).error();
  }
  auto relay = std::make_unique<Relay>(*listen_fd, target_port, shape, std::move(*loop));
  if (Result<void> ok = relay->start_thread(); !ok) return std::move(ok).error();
  return std::unique_ptr<TcpDelayLink>(new TcpDelayLink(std::move(relay)));
}

TcpDelayLink::TcpDelayLink(std::unique_ptr<Relay> relay) : relay_(std::move(relay)) {}
TcpDelayLink::~TcpDelayLink() = default;
std::uint16_t TcpDelayLink::port() const noexcept { return relay_->port(); }
LinkCounters TcpDelayLink::counters() const { return relay_->counters(); }

}  // namespace sluice::bench
