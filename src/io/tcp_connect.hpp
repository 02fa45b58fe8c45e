#pragma once
// Name resolution that never blocks the HTTP thread, and non-blocking TCP connect
// that tries every resolved address in turn.
// Ownership: both objects are created, driven and destroyed on the HTTP thread.
// Destroying one cancels it: its callback never fires afterwards.

#include <sys/socket.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/event_loop.hpp"
#include "sluice/error.hpp"

namespace sluice {

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
  std::string to_string() const;  ///< "127.0.0.1:80", "[::1]:443"
  std::string ip() const;         ///< "127.0.0.1", "::1" (no brackets, no port)
  std::uint16_t port() const;
  /// The address a connected socket talks to; nullopt if the kernel cannot say.
  static std::optional<SocketAddress> peer_of(int fd);
  /// Parses an IPv4 or IPv6 literal ("127.0.0.1", "::1", "[::1]"); nullopt otherwise.
  static std::optional<SocketAddress> from_ip(const std::string& host, std::uint16_t port);
};

/// Resolves host names with getaddrinfo on a helper thread and delivers the result
/// on the HTTP thread through EventLoop::post. IP literals resolve at once (still
/// delivered through post, never re-entrantly).
class Resolver {
 public:
  using Callback = std::function<void(Result<std::vector<SocketAddress>>)>;
  explicit Resolver(EventLoop& loop);
  /// Joins the helper threads after abandoning the lookups still queued (their
  /// callbacks never fire); waits only for a getaddrinfo already running.
  ~Resolver();
  Resolver(const Resolver&) = delete;
  Resolver& operator=(const Resolver&) = delete;
  class Lookup;  // cancel by destroying
  /// Error (category dns): "DNS: cannot resolve 'nosuch.invalid': Name or service not known".
  /// `done` fires once, on the HTTP thread, never from inside resolve(); it may
  /// destroy the Lookup.
  std::unique_ptr<Lookup> resolve(const std::string& host, std::uint16_t port, Callback done);

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
};

/// One lookup in flight. HTTP thread only. Destroying it cancels it: its callback
/// never fires afterwards (the helper thread may still finish getaddrinfo).
class Resolver::Lookup {
 public:
  struct State;  // shared with the helper thread and the posted result
  explicit Lookup(std::shared_ptr<State> state) : state_(std::move(state)) {}
  ~Lookup();
  Lookup(const Lookup&) = delete;
  Lookup& operator=(const Lookup&) = delete;

 private:
  std::shared_ptr<State> state_;
};

/// Connects to the first address that accepts, trying them in order (IPv6 and IPv4
/// as resolved). `done` receives a connected non-blocking socket (TCP_NODELAY set;
/// the receiver owns it),
/// or an Error (category connect) naming every address tried:
/// "connect: cannot connect to 127.0.0.1:9: Connection refused" (addresses joined by "; ").
class TcpConnect : private FdWatcher {
 public:
  using Callback = std::function<void(Result<int>)>;
  /// Starts on the next turn of the loop; `done` fires once, never from inside the
  /// constructor, and may destroy this object.
  TcpConnect(EventLoop& loop, std::vector<SocketAddress> addresses, Callback done);
  ~TcpConnect() override;  // closes a socket still connecting
  TcpConnect(const TcpConnect&) = delete;
  TcpConnect& operator=(const TcpConnect&) = delete;

 private:
  void on_fd_ready(std::uint32_t events) override;
  void try_next();
  bool start_one(const SocketAddress& address);  // false: failed at once
  void record_failure(const SocketAddress& address, const std::string& reason);
  void succeed();
  void fail();

  EventLoop& loop_;
  std::vector<SocketAddress> addresses_;
  std::size_t next_ = 0;
  int fd_ = -1;  // the socket connecting to addresses_[next_ - 1]
  std::string failures_;  // "127.0.0.1:9: Connection refused; ..."
  Callback done_;
  std::shared_ptr<bool> alive_;  // the posted start runs only while this lives
};

}  // namespace sluice
