#pragma once
// Name resolution that never blocks the HTTP thread, and non-blocking TCP connect
// that tries every resolved address in turn.
// Ownership: both objects are created, driven and destroyed on the HTTP thread.
// Destroying one cancels it: its callback never fires afterwards.

#include <sys/socket.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "io/event_loop.hpp"
#include "sluice/error.hpp"

namespace sluice {

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
  std::string to_string() const;  ///< "127.0.0.1:80", "[::1]:443"
};

/// Resolves host names with getaddrinfo on a helper thread and delivers the result
/// on the HTTP thread through EventLoop::post. IP literals resolve at once (still
/// delivered through post, never re-entrantly).
class Resolver {
 public:
  using Callback = std::function<void(Result<std::vector<SocketAddress>>)>;
  explicit Resolver(EventLoop& loop);
  ~Resolver();  // joins the helper threads
  class Lookup;  // cancel by destroying
  /// Error (category dns): "DNS: cannot resolve 'nosuch.invalid': Name or service not known".
  std::unique_ptr<Lookup> resolve(const std::string& host, std::uint16_t port, Callback done);

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
};

/// Connects to the first address that accepts, trying them in order (IPv6 and IPv4
/// as resolved). `done` receives a connected non-blocking socket (TCP_NODELAY set),
/// or an Error (category connect) naming every address tried:
/// "connect: 127.0.0.1:9 refused the connection".
class TcpConnect : private FdWatcher {
 public:
  using Callback = std::function<void(Result<int>)>;
  TcpConnect(EventLoop& loop, std::vector<SocketAddress> addresses, Callback done);
  ~TcpConnect() override;  // closes a socket still connecting

 private:
  void on_fd_ready(std::uint32_t events) override;
  void try_next();
  EventLoop& loop_;
  std::vector<SocketAddress> addresses_;
  std::size_t next_ = 0;
  int fd_ = -1;
  std::string failures_;
  Callback done_;
};

}  // namespace sluice
