#pragma once
// QuicTestUdpServer: QuicTestServer behind a real UDP socket on 127.0.0.1 (an
// ephemeral port), driven by the real steady clock on a thread of its own: poll
// until a datagram arrives or the connection's next expiry, then receive, expire
// and send what is due. One connection at a time: the first client Initial makes
// a QuicTestServer; an Initial that arrives once that connection closed makes a
// fresh one (a client that reconnects). Datagrams from another address while a
// connection is open are dropped.
//
// Thread contract: construct and destroy on one thread (the test's); the
// destructor stops and joins the serving thread. The serving thread alone owns
// the socket and the QuicTestServer, and runs the handler. port(), url(),
// requests(), stats(), wait_for(), close() and goaway() may be called from any
// thread, the handler's included: they read state the serving thread publishes
// under mu_ after each event, or post a command to it.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "support/quic_test_server.hpp"

namespace sluice::test {

/// What the serving thread published last, about its latest connection.
struct QuicTestUdpStats {
  std::size_t connections = 0;  ///< QuicTestServers made so far
  bool handshake_done = false;
  bool resumed = false;  ///< its handshake resumed an earlier connection's session
  bool closed = false;
  std::optional<QuicTestCloseError> client_close;
  std::uint64_t bytes_sent = 0;            ///< by all connections
  std::uint64_t cut_head_bytes_acked = 0;  ///< the current connection's (reset_mid_headers)
  std::string error;                       ///< the first error of any connection
};

class QuicTestUdpServer {
 public:
  /// `options` as for QuicTestServer, without the addresses (the socket's and each
  /// client's are filled in). Throws std::runtime_error when the socket cannot be set up.
  explicit QuicTestUdpServer(QuicTestServerOptions options);
  ~QuicTestUdpServer();
  QuicTestUdpServer(const QuicTestUdpServer&) = delete;
  QuicTestUdpServer& operator=(const QuicTestUdpServer&) = delete;

  std::uint16_t port() const { return port_; }
  /// "https://127.0.0.1:PORT/path" (the test certificate names 127.0.0.1).
  std::string url(std::string_view path = "/") const;

  /// The requests handed to the handler so far (each ended with FIN), in order,
  /// across connections.
  std::vector<QuicTestRequest> requests() const;
  QuicTestUdpStats stats() const;
  using WaitCondition =
      std::function<bool(const QuicTestUdpStats&, const std::vector<QuicTestRequest>&)>;
  /// Waits until `done(stats(), requests())` holds (true) or `patience` passes
  /// (false). `done` runs under the lock: it must not call this server.
  bool wait_for(const WaitCondition& done, std::chrono::milliseconds patience) const;

  /// QuicTestServer::close and goaway on the current connection, run on the
  /// serving thread soon after the call (not before it returns).
  void close(std::uint64_t app_error);
  void goaway();

 private:
  using Command = std::function<void(QuicTestServer&, TimePoint)>;

  void open_socket();
  void run();
  bool take_commands(TimePoint now);
  void read_datagrams(TimePoint now);
  void route(std::span<const std::uint8_t> datagram, const SocketAddress& from, TimePoint now);
  void send_due(QuicTestServer& server, const SocketAddress& client, TimePoint now);
  void note_error();
  void publish();
  void post(Command command);
  void wake();
  QuicTestResponse handle_request(const QuicTestHandler& user, const QuicTestRequest& request);

  QuicTestServerOptions options_;  // the template each connection's server is made from
  int fd_ = -1;
  int wake_fd_ = -1;  // eventfd: a command or stop
  std::uint16_t port_ = 0;

  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  std::vector<QuicTestRequest> requests_;  // guarded by mu_
  QuicTestUdpStats stats_;                 // guarded by mu_
  std::vector<Command> commands_;          // guarded by mu_
  bool stopping_ = false;                  // guarded by mu_

  // Serving thread only.
  std::unique_ptr<QuicTestServer> server_;
  SocketAddress client_;  // server_'s client
  // The connection before server_, still serving its kept requests after its GOAWAY.
  std::unique_ptr<QuicTestServer> retired_;
  SocketAddress retired_client_;
  std::size_t connections_ = 0;
  std::uint64_t bytes_before_ = 0;  // sent by the connections before server_
  std::string first_error_;
  std::vector<std::uint8_t> buffer_;

  std::thread thread_;  // last: starts once everything above exists
};

}  // namespace sluice::test
