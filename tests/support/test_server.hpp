#pragma once
// TestServer: an in-process HTTP/1.1 server for exact cases: each accepted connection
// runs a scripted handler on its own thread, so a test says byte for byte what the
// server sends, how fast, and how it fails (close, reset, stall).
// Thread-safety: TestServer methods from the test thread; a ServerConnection belongs
// to its handler's thread.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/headers.hpp"

namespace sluice::test {

using namespace std::chrono_literals;

struct ReceivedRequest {
  std::string method;
  std::string target;
  std::string version;  ///< "HTTP/1.1"
  Headers headers;
  std::string body;  ///< decoded from Content-Length or chunked framing
  bool chunked = false;
};

class ServerConnection {
 public:
  virtual ~ServerConnection() = default;
  /// Reads one request head and its body. std::nullopt on EOF, error or timeout.
  virtual std::optional<ReceivedRequest> read_request(std::chrono::milliseconds timeout = 10s) = 0;
  /// Reads only a request head (the body stays unread in the socket).
  virtual std::optional<ReceivedRequest> read_request_head(
      std::chrono::milliseconds timeout = 10s) = 0;
  /// Reads up to `n` raw bytes (blocking until at least one or timeout).
  virtual std::string read_some(std::size_t n, std::chrono::milliseconds timeout = 10s) = 0;
  /// Writes every byte (blocking). False if the peer went away.
  virtual bool write(std::string_view bytes) = 0;
  /// Writes in pieces of `piece` bytes with `gap` between them.
  virtual bool write_slowly(std::string_view bytes, std::size_t piece,
                            std::chrono::milliseconds gap) = 0;
  /// Writes as much of `bytes` as the peer takes; returns the count written once a
  /// write has been blocked for `stall` (the client stopped reading) or all went.
  virtual std::size_t write_until_blocked(std::string_view bytes,
                                          std::chrono::milliseconds stall) = 0;
  /// Blocks until the peer closes the connection (true) or the timeout passes.
  virtual bool wait_peer_closed(std::chrono::milliseconds timeout) = 0;
  virtual void shutdown_write() = 0;  ///< FIN (TLS: close_notify, then FIN)
  virtual void close() = 0;           ///< orderly close
  virtual void reset() = 0;           ///< RST (SO_LINGER 0), no close_notify
  virtual std::uint64_t bytes_written() const = 0;
  /// Any thread: how many times a write so far found the peer's buffers full and
  /// waited for it to take bytes. A test that needs the handler blocked in a write
  /// waits for this to move (see eventually()) instead of sleeping.
  virtual std::uint64_t write_waits() const = 0;
};

struct TestServerOptions {
  bool tls = false;
  std::string cert_file;  ///< PEM; defaults to test_certs().server_cert when tls
  std::string key_file;
  std::vector<std::string> alpn = {"http/1.1"};
  bool ipv6 = false;  ///< listen on ::1 instead of 127.0.0.1
};

class TestServer {
 public:
  using Handler = std::function<void(ServerConnection&)>;
  explicit TestServer(Handler handler, TestServerOptions options = {});
  ~TestServer();  ///< stops accepting, closes every connection, joins handler threads
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  std::uint16_t port() const;
  /// "http://127.0.0.1:PORT/path" (https with tls, [::1] with ipv6).
  std::string url(std::string_view path = "/") const;
  std::size_t connections_accepted() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A complete response with Content-Length: "HTTP/1.1 <status> <reason>\r\n...".
std::string http_response(int status, std::string_view body,
                          const std::vector<std::pair<std::string, std::string>>& headers = {});
/// Deterministic pseudo-random bytes (same seed, same bytes) for large bodies.
std::string pseudo_random_bytes(std::size_t size, std::uint32_t seed = 1);
/// Lowercase hex SHA-256 (OpenSSL EVP).
std::string sha256_hex(std::string_view bytes);
/// `input` as one gzip member (zlib, level 9), for Content-Encoding: gzip bodies.
std::string gzip(std::string_view input);

/// Polls `condition` every few milliseconds until it holds (true) or `deadline`
/// passes (false). For a state the code under test reports without a callback to
/// wait on (Client::stats(), BodyReader::buffered(), a server's counters): the wait
/// ends at the event itself, and the deadline only turns a hang into a failure, so
/// it is generous. The caller fails with its own message on false.
bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds deadline = 30s);

}  // namespace sluice::test
