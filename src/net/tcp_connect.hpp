#pragma once
// TcpConnect: a non-blocking connect over a list of addresses by Happy Eyeballs v2
// (RFC 8305): the families interleaved, the next attempt started when the previous
// one has not connected within the attempt delay (or at once when it fails), the
// first socket connected wins and the others are closed. Each attempt has its own
// deadline, so one black-holed address cannot hold the connection back.
// Ownership: created, driven and destroyed on the HTTP thread. Destroying it cancels
// it (sockets still connecting are closed): its callback never fires afterwards.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/event_loop.hpp"
#include "net/local_binding.hpp"
#include "net/socket_address.hpp"
#include "sluice/error.hpp"

namespace sluice {

struct ConnectAttempts {
  /// RFC 8305's Connection Attempt Delay: how long an attempt has before the next
  /// address is tried beside it (the RFC recommends 250 ms; curl waits 200).
  std::chrono::milliseconds delay{250};
  /// An attempt not connected within this is given up (0: none; then only the
  /// request's connect timeout ends it).
  std::chrono::milliseconds timeout{0};
  /// Told of each attempt started, failed and won (for trace lines); may be empty.
  std::function<void(const std::string&)> note;
  /// Where each socket leaves from (--interface, --local-port); not for Unix sockets.
  LocalBinding local;
};

/// RFC 8305 section 4: the first address's family first, then the families in turn
/// (each family's addresses keep their order).
std::vector<SocketAddress> interleave_families(std::vector<SocketAddress> addresses);

/// `done` receives a connected non-blocking socket (TCP_NODELAY set on TCP; the
/// receiver owns it), or an Error (category connect) naming every address tried:
/// "connect: cannot connect to 127.0.0.1:9: Connection refused" (joined by "; ");
/// ErrorCode::local_bind_failed when no attempt got past binding its local end.
class TcpConnect {
 public:
  using Callback = std::function<void(Result<int>)>;
  /// Starts on the next turn of the loop; `done` fires once, never from inside the
  /// constructor, and may destroy this object.
  TcpConnect(EventLoop& loop, std::vector<SocketAddress> addresses, Callback done,
             ConnectAttempts attempts = {});
  ~TcpConnect();
  TcpConnect(const TcpConnect&) = delete;
  TcpConnect& operator=(const TcpConnect&) = delete;

 private:
  class Attempt;
  /// Starts addresses until one is connecting (or connected); fails when none is
  /// left and none is in flight.
  void start_next();
  /// false: failed at once (recorded).
  bool start_one(const SocketAddress& address);
  void on_attempt_ready(Attempt* attempt, std::uint32_t events);
  void on_attempt_timeout(Attempt* attempt);
  /// Forgets an attempt that failed and moves on.
  void drop(Attempt* attempt, const std::string& reason);
  /// `at_bind`: the local end could not be bound (--interface, --local-port).
  void record_failure(const SocketAddress& address, const std::string& reason,
                      bool at_bind = false);
  void succeed(int fd);
  void fail();
  void note(const std::string& what) const;

  EventLoop& loop_;
  std::vector<SocketAddress> addresses_;
  std::size_t next_ = 0;
  ConnectAttempts settings_;
  std::vector<std::unique_ptr<Attempt>> attempts_;  // sockets connecting now
  EventLoop::TimerId stagger_timer_ = 0;            // starts the next address
  std::string failures_;                            // "127.0.0.1:9: Connection refused; ..."
  bool only_bind_failures_ = true;                  // every address failed at the local bind
  Callback done_;
  std::shared_ptr<bool> alive_;  // the posted start runs only while this lives
};

}  // namespace sluice
