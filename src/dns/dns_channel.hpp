#pragma once
// DnsChannel: c-ares on the HTTP thread's loop. Its UDP/TCP sockets are watched by
// the loop and its retransmission deadline is one loop timer, so a lookup costs no
// thread and is dropped at once when nobody wants it any more. A query asks for A and
// AAAA in parallel (or one family), after /etc/hosts (c-ares reads it on each query).
// Ownership: HTTP thread only.

#include <sys/socket.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/event_loop.hpp"
#include "net/socket_address.hpp"
#include "sluice/error.hpp"

typedef struct ares_channeldata* ares_channel;
struct ares_addrinfo;

namespace sluice {

class DnsChannel {
 public:
  struct Options {
    /// Name servers to ask instead of /etc/resolv.conf's: "1.1.1.1,[::1]:5353" (curl's
    /// --dns-servers). Empty: the system's.
    std::string servers;
    int family = AF_UNSPEC;  ///< AF_INET or AF_INET6 to ask for one family only
  };
  struct Answer {
    std::vector<SocketAddress> addresses;  ///< port 0, in c-ares' RFC 6724 order
    std::chrono::seconds ttl{0};           ///< the smallest of the records' (0: /etc/hosts)
  };
  using Callback = std::function<void(Result<Answer>)>;

  /// Errors name the setting: "DNS: cannot use the name servers '...': ...".
  static Result<std::unique_ptr<DnsChannel>> create(EventLoop& loop, const Options& options);
  /// Abandons the queries in flight: their callbacks never fire.
  ~DnsChannel();
  DnsChannel(const DnsChannel&) = delete;
  DnsChannel& operator=(const DnsChannel&) = delete;

  /// Looks `host` up. `done` fires once on the HTTP thread, possibly from inside this
  /// call (a name in /etc/hosts); errors are category dns: "DNS: cannot resolve 'x':
  /// no such name".
  void query(const std::string& host, Callback done);
  /// Queries handed to c-ares so far (each one A and AAAA lookup, or one family's).
  std::uint64_t queries() const noexcept { return queries_; }

 private:
  class SocketWatch;
  struct Pending;
  explicit DnsChannel(EventLoop& loop);
  static void on_socket_state(void* data, int fd, int readable, int writable) noexcept;
  static void on_answer(void* arg, int status, int timeouts, ares_addrinfo* result) noexcept;
  void socket_state(int fd, bool readable, bool writable);
  /// A watched socket is ready: c-ares reads or writes it.
  void on_socket_ready(int fd, std::uint32_t events);
  /// c-ares' retransmission deadline passed.
  void on_timer();
  /// Re-arms the loop timer at c-ares' next deadline (none when nothing is pending).
  void rearm();

  EventLoop& loop_;
  ares_channel channel_ = nullptr;
  bool closing_ = false;  // set by the destructor: answers go nowhere
  std::map<int, std::unique_ptr<SocketWatch>> watches_;
  // Watches c-ares let go of while one of them was running; freed at the next event.
  std::vector<std::unique_ptr<SocketWatch>> retired_;
  EventLoop::TimerId timer_ = 0;
  std::uint64_t queries_ = 0;
  int family_ = AF_UNSPEC;
};

}  // namespace sluice
