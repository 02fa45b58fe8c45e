// The slow-reading upload server of `sluice-bench upload-burst`. Its own thread:
// one poll() per pass over the listener and every connection.

#include "bench/slow_server.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string_view>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sluice::bench {
namespace {

constexpr std::size_t kMaxHeadBytes = 64 * 1024;
constexpr std::string_view kAnswer = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";

// One client connection; serve() thread only.
struct Conn {
  int fd = -1;
  std::string head;  // request head bytes until the blank line
  bool in_body = false;
  std::uint64_t remaining = 0;  // body bytes still to read
};

// The Content-Length of a request head; 0 when there is none.
std::uint64_t content_length(std::string_view head) {
  std::string lower(head);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::size_t at = lower.find("\r\ncontent-length:");
  if (at == std::string::npos) return 0;
  at += std::strlen("\r\ncontent-length:");
  while (at < lower.size() && lower[at] == ' ') ++at;
  std::uint64_t length = 0;
  std::from_chars(lower.data() + at, lower.data() + lower.size(), length);
  return length;
}

// Consumes `data` for `conn`: request heads, bodies, and an answer after each whole
// body. Returns false when the connection is to be closed (a head too long).
// `body_bytes` counts the body bytes consumed, `answered` the requests answered.
bool consume(Conn& conn, std::string_view data, std::uint64_t& body_bytes,
             std::uint64_t& answered) {
  for (;;) {
    if (!conn.in_body) {
      if (data.empty()) return true;
      std::size_t before = conn.head.size();
      conn.head.append(data);
      std::size_t end = conn.head.find("\r\n\r\n");
      if (end == std::string::npos) return conn.head.size() <= kMaxHeadBytes;
      std::size_t head_size = end + 4;
      data.remove_prefix(head_size - before);
      conn.remaining = content_length(std::string_view(conn.head).substr(0, head_size));
      conn.head.clear();
      conn.in_body = true;
    }
    std::size_t take =
        static_cast<std::size_t>(std::min<std::uint64_t>(conn.remaining, data.size()));
    conn.remaining -= take;
    body_bytes += take;
    data.remove_prefix(take);
    if (conn.remaining > 0) return true;  // `data` is used up
    ::send(conn.fd, kAnswer.data(), kAnswer.size(), MSG_NOSIGNAL);
    ++answered;
    conn.in_body = false;
  }
}

// Reads at most `budget` bytes from a readable connection. False: closed or failed.
bool read_pass(Conn& conn, std::vector<char>& buffer, std::size_t budget, std::uint64_t& body_bytes,
               std::uint64_t& answered) {
  while (budget > 0) {
    ssize_t n = ::recv(conn.fd, buffer.data(), std::min(budget, buffer.size()), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n <= 0) return false;
    budget -= static_cast<std::size_t>(n);
    if (!consume(conn, std::string_view(buffer.data(), static_cast<std::size_t>(n)), body_bytes,
                 answered)) {
      return false;
    }
  }
  return true;
}

void accept_all(int listen_fd, std::vector<Conn>& conns) {
  for (;;) {
    int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0 && errno == EINTR) continue;
    if (fd < 0) return;  // EAGAIN: none left (or a transient failure: next pass)
    Conn conn;
    conn.fd = fd;
    conns.push_back(std::move(conn));
  }
}

}  // namespace

Result<std::unique_ptr<SlowServer>> SlowServer::start(std::size_t bytes_per_pass,
                                                      std::chrono::milliseconds pass) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return Error(ErrorCategory::io, std::string("slow server: socket: ") + std::strerror(errno));
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(fd, SOMAXCONN) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    return Error(ErrorCategory::io, "slow server: cannot listen on 127.0.0.1: " + why);
  }
  return std::unique_ptr<SlowServer>(
      new SlowServer(fd, ntohs(address.sin_port), bytes_per_pass, pass));
}

SlowServer::SlowServer(int listen_fd, int port, std::size_t bytes_per_pass,
                       std::chrono::milliseconds pass)
    : listen_fd_(listen_fd),
      port_(port),
      bytes_per_pass_(bytes_per_pass),
      pass_(pass),
      thread_([this] { serve(); }) {}

SlowServer::~SlowServer() {
  stopping_.store(true);
  thread_.join();
  ::close(listen_fd_);
}

std::string SlowServer::url() const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/upload";
}

// One pass: wait (at most a pass) for anything, accept, read each ready connection
// up to its budget, then sleep out the rest of the pass so the rate stays limited.
void SlowServer::serve() {
  std::vector<Conn> conns;
  std::vector<pollfd> polled;
  std::vector<char> buffer(std::min<std::size_t>(bytes_per_pass_, 64 * 1024));
  while (!stopping_.load()) {
    auto pass_start = std::chrono::steady_clock::now();
    polled.assign(1, pollfd{listen_fd_, POLLIN, 0});
    for (const Conn& conn : conns) polled.push_back(pollfd{conn.fd, POLLIN, 0});
    if (::poll(polled.data(), polled.size(), static_cast<int>(pass_.count())) < 0 &&
        errno != EINTR) {
      break;
    }
    std::uint64_t body_bytes = 0;
    std::uint64_t answered = 0;
    for (std::size_t i = 0; i < conns.size(); ++i) {
      if ((polled[i + 1].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      if (!read_pass(conns[i], buffer, bytes_per_pass_, body_bytes, answered)) {
        ::close(conns[i].fd);
        conns[i].fd = -1;
      }
    }
    std::erase_if(conns, [](const Conn& conn) { return conn.fd < 0; });
    if ((polled[0].revents & POLLIN) != 0) accept_all(listen_fd_, conns);
    body_bytes_read_.fetch_add(body_bytes);
    requests_answered_.fetch_add(answered);
    std::this_thread::sleep_until(pass_start + pass_);
  }
  for (const Conn& conn : conns) ::close(conn.fd);
}

}  // namespace sluice::bench
