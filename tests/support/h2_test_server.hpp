#pragma once
// H2TestServer: an in-process h2c server (HTTP/2 with prior knowledge over plain TCP
// on 127.0.0.1) for exact Client-level cases. Each accepted connection runs on its
// own thread with its own H2TestPeer; the test's handler runs on that thread for each
// request and says what the server does with it: respond, send body and trailers,
// reset the stream, send GOAWAY, stop reading the socket, close the connection.
// Every action is written to the socket before the call returns, so actions reach
// the client in the order the handler takes them (a body before a reset).
// Thread-safety: H2TestServer methods from any thread. An H2ServerConnection and the
// H2ServerStreams it hands out belong to the connection's thread and are valid only
// inside a handler call.

#include <nghttp2/nghttp2.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/headers.hpp"
#include "support/h2_test_peer.hpp"

namespace sluice::test {

class H2ServerStream;

/// One accepted connection, as a handler sees it.
class H2ServerConnection {
 public:
  virtual ~H2ServerConnection() = default;
  /// 1 for the server's first accepted connection, 2 for the second, ...
  virtual std::size_t index() const = 0;
  /// Requests handed to the handler on this connection so far, this one included.
  virtual std::size_t requests_seen() const = 0;
  /// Another stream of this connection (say, to answer an earlier request now).
  virtual H2ServerStream stream(std::int32_t stream_id) = 0;
  /// The connection's nghttp2 server session, for what the methods here do not cover.
  /// Call flush() after using it directly.
  virtual H2TestPeer& peer() = 0;

  /// GOAWAY(last_stream_id, error_code) with optional debug data. The connection
  /// stays open (streams up to last_stream_id may still be answered) until close().
  virtual void goaway(std::int32_t last_stream_id, std::uint32_t error_code = NGHTTP2_NO_ERROR,
                      std::string_view debug = {}) = 0;
  /// From now on the socket is never read again (the client's request bodies and
  /// WINDOW_UPDATEs pile up in the kernel); output still goes out.
  virtual void stop_reading() = 0;
  /// Closes once the handler returns: FIN, then what the client still sends is read
  /// and dropped until it closes too (so unread bytes do not turn the FIN into a RST).
  virtual void close() = 0;
  /// Writes what the session has to send now. Every action above already does.
  virtual void flush() = 0;
  /// Frames built by hand (see h2_frame), written at once ahead of the session's own.
  virtual void send_raw(std::string bytes) = 0;
  /// From now on what the client sends is read and dropped, never given to the
  /// server session: after crafted frames (a SETTINGS the session did not send) the
  /// client's answers (its ACK) would break the session's own view.
  virtual void discard_input() = 0;
  /// Ends the connection with a TCP RST (SO_LINGER 0) right now: the client's next
  /// read fails with ECONNRESET. Nothing more is sent or read.
  virtual void reset_connection() = 0;
};

/// One request (stream) of a connection, as a handler sees it.
class H2ServerStream {
 public:
  H2ServerStream(H2ServerConnection& conn, std::int32_t stream_id)
      : conn_(&conn), stream_id_(stream_id) {}

  std::int32_t stream_id() const { return stream_id_; }
  H2ServerConnection& conn() const { return *conn_; }
  /// What arrived so far: headers (pseudo-headers included), body, END_STREAM.
  const H2TestPeer::Request& request() const;
  std::string method() const;  ///< ":method"
  std::string path() const;    ///< ":path"

  /// Response head; with `end_stream` there is no body, otherwise send_body follows.
  void respond(int status, Headers headers = {}, bool end_stream = false);
  /// Body bytes; `end` ends the stream after them.
  void send_body(std::string_view bytes, bool end = true);
  /// `size` generated body bytes for `seed`, made as the window lets them go (see
  /// H2TestPeer::send_body_generated; generated_sha256(size, seed) is the digest).
  void send_body_generated(std::uint64_t size, std::uint64_t seed, bool end = true);
  /// Ends the stream with trailers after the body sent so far.
  void send_trailers(Headers trailers);
  /// RST_STREAM with `error_code`.
  void reset(std::uint32_t error_code);

 private:
  H2ServerConnection* conn_;
  std::int32_t stream_id_;
};

struct H2TestServerOptions {
  /// The peer's SETTINGS (e.g. SETTINGS_MAX_CONCURRENT_STREAMS), padding, limits,
  /// and send policies (data_unit, min_send_window): a body they hold back leaves as
  /// soon as a WINDOW_UPDATE or SETTINGS read from the socket lets it.
  H2PeerOptions peer;
  /// Call the handler once a request's head arrived rather than once it ended, for
  /// upload cases where the body may never arrive in full.
  bool call_on_head = false;
  /// Send nothing (not even SETTINGS) until the first request has been handed to the
  /// handler: then everything queued so far leaves in one write, as from a server
  /// slow to start. Makes "SETTINGS arrive together with the first answers" exact.
  bool hold_output_until_request = false;
};

class H2TestServer {
 public:
  using Handler = std::function<void(H2ServerStream& stream)>;
  explicit H2TestServer(Handler handler, H2TestServerOptions options = {});
  /// Stops accepting, wakes every connection thread (also one that stopped reading)
  /// and joins them all.
  ~H2TestServer();
  H2TestServer(const H2TestServer&) = delete;
  H2TestServer& operator=(const H2TestServer&) = delete;

  std::uint16_t port() const;
  /// "http://127.0.0.1:PORT/path".
  std::string url(std::string_view path = "/") const;
  std::size_t connections_accepted() const;
  /// Requests handed to the handler, per connection in accept order.
  std::vector<std::size_t> requests_per_connection() const;
  /// All requests handed to the handler.
  std::size_t requests_seen() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::test
