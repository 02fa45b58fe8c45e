#pragma once
// FaultServers: the in-process servers that misbehave on request. What a server does
// is named by the request path, "/<behaviour>/<size>", so any worker and any Client
// can ask for any fault:
//   HTTP/1.1 (plain and TLS, tests/support/test_server.hpp; keep-alive between good
//   answers): ok, chunked, slow (4 KiB pieces 2 ms apart), echo (POST: answers
//   "<size> <sha256>" of the body it received), reset (RST after half the body),
//   truncated (FIN after half of a Content-Length body), truncated-chunked (FIN after
//   one chunk, no last chunk), stall (half the body, then silence).
//   HTTP/2 h2c (tests/support/h2_test_server.hpp): ok, rst (RST_STREAM after half the
//   body), goaway-mid (GOAWAY naming this stream, then close after half its body),
//   goaway-graceful (GOAWAY naming this stream, the whole body, then close).
// Bodies are the first <size> bytes of payload(), so a client can check every byte.
// H2TestServer keeps a thread per connection until it is destroyed, so the h2 server
// is replaced every 10 s (rotate_h2()); a worker holds the one it uses by
// shared_ptr, and the old one goes when the last user lets go.
// Thread-safety: construct and destroy on the main thread; everything else from any
// thread (the h2 pointer is guarded by mu_).

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "soak/soak_env.hpp"
#include "support/h2_test_server.hpp"
#include "support/test_server.hpp"

namespace sluice::soak {

class FaultServers {
 public:
  /// The TLS server uses the real servers' localhost certificate, so one CA file
  /// (SLUICE_TEST_CA) serves every Client of the soak.
  explicit FaultServers(const SoakEnv& env);
  ~FaultServers();
  FaultServers(const FaultServers&) = delete;
  FaultServers& operator=(const FaultServers&) = delete;

  /// "http(s)://127.0.0.1:PORT/<behaviour>/<size>".
  std::string h1_url(bool tls, std::string_view behaviour, std::uint64_t size) const;
  /// The current h2 server; keep the pointer for as long as its requests run.
  std::shared_ptr<test::H2TestServer> h2_server() const;
  /// Replaces the h2 server with a fresh one.
  void rotate_h2();

  static std::string h2_path(std::string_view behaviour, std::uint64_t size);
  /// The bytes every body is cut from (4 MiB, fixed).
  std::string_view payload() const { return payload_; }
  static constexpr std::uint64_t kPayloadSize = 4u << 20;

 private:
  void serve_h1(test::ServerConnection& conn) const;
  bool answer_h1(test::ServerConnection& conn, const test::ReceivedRequest& request) const;
  void serve_h2(test::H2ServerStream& stream) const;

  std::string payload_;
  std::unique_ptr<test::TestServer> h1_plain_;
  std::unique_ptr<test::TestServer> h1_tls_;
  mutable std::mutex mu_;
  std::shared_ptr<test::H2TestServer> h2_;  // guarded by mu_
};

}  // namespace sluice::soak
