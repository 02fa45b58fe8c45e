#pragma once
// LinkProcess: the delay links run in a fork()ed process of their own, so that what
// they buffer and the CPU they use are nobody's figure. In sluice-bench's own
// process, the bytes in flight (a window per stream, for 50 ms) would be counted in
// `held`'s resident memory, raise the floor of every peer's peak in `download` (a
// spawner's size is folded into its child's), and their CPU would be charged to us
// in `throughput` and `many`. A process also leaves the benchmark with no thread
// when it forks its own children.
//
// Two close-on-exec pipes join the processes: the child writes its port (or why
// the links did not start) on one, waits for the other to reach end-of-file, then
// stops the links and writes back their counters and its CPU time. So the links also
// stop when the benchmark dies.
//
// Ownership: owned by main's thread; start() must run while the process has no
// other thread (it forks).

#include <sys/types.h>

#include <cstdint>

#include "bench/delay_link.hpp"
#include "sluice/error.hpp"

namespace sluice::bench {

/// What the links carried, reported when they stop.
struct LinkReport {
  LinkCounters tcp;
  LinkCounters udp;
  bool with_udp = false;
  double cpu_s = 0;  ///< the link process's user + system time
};

class LinkProcess {
 public:
  /// Forks the process and starts its links to 127.0.0.1:target_port (see
  /// start_delay_links). Fails (category io) when the fork fails or the links did not
  /// start, with the child's message.
  static Result<LinkProcess> start(std::uint16_t target_port, LinkShape shape, bool with_udp);

  LinkProcess(LinkProcess&& other) noexcept;
  LinkProcess& operator=(LinkProcess&&) = delete;
  /// Stops the process if stop() was not called.
  ~LinkProcess();

  /// The port the links listen on (TCP, and UDP when asked).
  std::uint16_t port() const noexcept { return port_; }
  /// Stops the links, reaps the process and returns their counters. Call once.
  Result<LinkReport> stop();

 private:
  LinkProcess(pid_t pid, int control_fd, int report_fd, std::uint16_t port)
      : pid_(pid), control_fd_(control_fd), report_fd_(report_fd), port_(port) {}

  pid_t pid_ = -1;
  int control_fd_ = -1;  // write end: closing it tells the child to stop
  int report_fd_ = -1;   // read end: the child's report
  std::uint16_t port_ = 0;
};

}  // namespace sluice::bench
