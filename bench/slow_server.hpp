#pragma once
// SlowServer: an HTTP/1.1 server on loopback that reads request bodies slowly, so
// that uploads stay in flight long enough for their memory to show. Each pass (one
// per `pass` period) reads at most `bytes_per_pass` from every connection; a request
// is answered `200 OK` with an empty body once its whole Content-Length was read.
// Plain HTTP, Content-Length bodies only (what the upload benchmark sends).
//
// Ownership: owned by the benchmark that starts it; one thread of its own runs
// every socket. start() and the destructor from the owner's thread; the counters
// from any thread.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "sluice/error.hpp"

namespace sluice::bench {

class SlowServer {
 public:
  /// Listens on 127.0.0.1 (a free port) and starts serving.
  static Result<std::unique_ptr<SlowServer>> start(std::size_t bytes_per_pass,
                                                   std::chrono::milliseconds pass);
  /// Stops serving, closes every connection and joins.
  ~SlowServer();
  SlowServer(const SlowServer&) = delete;
  SlowServer& operator=(const SlowServer&) = delete;

  /// "http://127.0.0.1:PORT/upload"
  std::string url() const;
  std::uint64_t body_bytes_read() const noexcept { return body_bytes_read_.load(); }
  std::uint64_t requests_answered() const noexcept { return requests_answered_.load(); }

 private:
  SlowServer(int listen_fd, int port, std::size_t bytes_per_pass, std::chrono::milliseconds pass);
  void serve();

  int listen_fd_;
  int port_;
  std::size_t bytes_per_pass_;
  std::chrono::milliseconds pass_;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> body_bytes_read_{0};
  std::atomic<std::uint64_t> requests_answered_{0};
  std::thread thread_;  // last: started once everything above is set
};

}  // namespace sluice::bench
