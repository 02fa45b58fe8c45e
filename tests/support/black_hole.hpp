#pragma once
// BlackHole: a TCP address that drops SYNs, as a firewalled or unroutable address
// does: a listener with a backlog of 0 whose queue is filled by connections nobody
// accepts. A connect to it neither succeeds nor fails; it waits.
// Ownership: test thread; its sockets close with it.

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::test {

class BlackHole {
 public:
  /// Listens on `ip` ("127.0.0.2", "::1") at `port` (0: a free one).
  BlackHole(const std::string& ip, std::uint16_t port = 0);
  ~BlackHole();
  BlackHole(const BlackHole&) = delete;
  BlackHole& operator=(const BlackHole&) = delete;
  std::uint16_t port() const noexcept { return port_; }

 private:
  int listener_ = -1;
  std::vector<int> fillers_;  // connected, never accepted
  std::uint16_t port_ = 0;
};

}  // namespace sluice::test
