#pragma once
// ChaosProxy: a TCP relay in front of one real server that misbehaves on purpose,
// seeded, so a failure found by the chaos run can be replayed with the same seed.
// Each accepted connection draws its fate from the proxy's mt19937_64 (the first
// connection always gets the proxy's fault, later ones with `repeat_probability`, so
// a client that retries usually gets through, but not always):
//   pass      relay both ways untouched;
//   cut       relay until `offset` bytes went to the client, then close (FIN);
//   reset     the same, then close with SO_LINGER 0 (RST);
//   stall     the same, then forward nothing more until the client gives up;
//   trickle   the first `offset` bytes to the client in 1..64 byte writes with 1 ms
//             pauses, the rest at full speed;
//   answer_503  (plain HTTP/1 only) read the request head, answer 503 itself, close;
//   cut_head  (plain HTTP/1 only) close within the first 150 bytes of the response.
// Offsets count bytes towards the client, so they land in a TLS handshake, a response
// head or a body alike. Every decision is passed to `log` with the seed.
// Thread-safety: construct and destroy on one thread (the destructor stops and joins
// every relay thread); set_faults and connections may be called from any thread.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace sluice::chaos {

enum class TcpFault { pass, cut, reset, stall, trickle, answer_503, cut_head };

const char* to_string(TcpFault fault) noexcept;

struct ChaosProxyOptions {
  std::uint16_t target_port = 0;  ///< on 127.0.0.1
  TcpFault fault = TcpFault::pass;
  std::uint64_t seed = 1;
  /// Offsets (bytes to the client before the fault acts) are drawn from [1, max_offset].
  std::uint64_t max_offset = 1u << 20;
  /// How likely each connection after the first gets the fault too.
  double repeat_probability = 0.3;
};

class ChaosProxy {
 public:
  /// Listens on 127.0.0.1:<free port>. Throws std::runtime_error when it cannot.
  ChaosProxy(ChaosProxyOptions options, std::function<void(const std::string&)> log);
  ~ChaosProxy();
  ChaosProxy(const ChaosProxy&) = delete;
  ChaosProxy& operator=(const ChaosProxy&) = delete;

  std::uint16_t port() const noexcept;
  /// Off: every later connection passes (what a resume without faults runs through).
  void set_faults(bool on) noexcept;
  /// Connections accepted so far.
  std::uint64_t connections() const noexcept;

 private:
  class Relay;
  std::unique_ptr<Relay> relay_;
};

}  // namespace sluice::chaos
