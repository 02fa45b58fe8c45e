#pragma once
// H3ServerSession: the HTTP/3 side of QuicTestServer. An nghttp3 server connection
// over the QUIC connection's streams: it opens and binds the server's control and
// QPACK streams, collects requests, gives stream credit back for every request
// byte it consumed (as a server that keeps up does), calls the handler for each
// request that ended and acts on its answer, and feeds response bytes to the QUIC
// writer as flow control lets them go.
//
// Ownership: owned by one QuicTestServer, deleted before its ngtcp2_conn (which it
// uses, not owns, for stream credit, resets and opening streams). That server's
// thread only. The on_* calls run inside ngtcp2's callbacks; answer_requests,
// apply_due_resets and goaway run outside them (they may shut streams down, which
// is where ngtcp2 wants that done).

#include <nghttp3/nghttp3.h>
#include <ngtcp2/ngtcp2.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "sluice/error.hpp"
#include "support/quic_test_server.hpp"
#include "support/quic_test_server_reply.hpp"

namespace sluice::test {

class H3ServerSession {
 public:
  /// `stop_sending` and `goaway_plan` as in QuicTestServerOptions.
  H3ServerSession(ngtcp2_conn* quic, QuicTestHandler handler,
                  std::optional<QuicTestStopSending> stop_sending,
                  std::optional<QuicTestGoawayPlan> goaway_plan);
  ~H3ServerSession();
  H3ServerSession(const H3ServerSession&) = delete;
  H3ServerSession& operator=(const H3ServerSession&) = delete;

  /// Creates the nghttp3 server and binds its three unidirectional streams.
  Result<void> start(std::uint64_t max_client_bidi_streams);

  // --- what the QUIC connection reports (inside ngtcp2's callbacks) ---
  Result<void> on_stream_data(std::int64_t stream_id, std::span<const std::uint8_t> data, bool fin);
  Result<void> on_acked(std::int64_t stream_id, std::uint64_t n);
  Result<void> on_stream_closed(std::int64_t stream_id, std::uint64_t app_error);
  Result<void> on_stream_reset(std::int64_t stream_id, std::uint64_t app_error);
  Result<void> on_writable(std::int64_t stream_id);
  void on_max_client_streams(std::uint64_t max_streams);

  // --- writing (QuicTestServer's packet loop) ---
  struct Output {
    std::int64_t stream_id = -1;  ///< -1: nothing to write
    bool fin = false;
    std::size_t count = 0;  ///< vecs filled
  };
  Result<Output> next_output(std::span<nghttp3_vec> vecs);
  /// ngtcp2 took `n` bytes of the stream's output (0 for a lone FIN).
  Result<void> written(std::int64_t stream_id, std::size_t n);
  /// Flow control holds the stream (NGTCP2_ERR_STREAM_DATA_BLOCKED).
  void blocked(std::int64_t stream_id);
  /// The stream may not be written any more (the client's STOP_SENDING).
  void shut_write(std::int64_t stream_id);

  // --- outside ngtcp2's callbacks ---
  /// Stops reading the uploads the stop_sending script picked (then hands them to
  /// the handler), sends the planned GOAWAY when due, hands each request that
  /// ended since the last call to the handler and acts on its answer. Returns the
  /// CONNECTION_CLOSE to end the connection with when an answer asked for one.
  Result<std::optional<QuicTestCloseError>> answer_requests();
  /// Resets the streams whose reset_mid_body or reset_mid_headers point the client
  /// has acknowledged.
  void apply_due_resets();
  /// GOAWAY: no request streams after those already received.
  Result<void> goaway();

  const std::vector<QuicTestRequest>& requests() const { return requests_; }
  /// A go_silent_mid_body answer reached its point: the connection says nothing more.
  bool silent() const { return silent_; }
  bool goaway_sent() const { return goaway_sent_; }
  /// Of the reset_mid_headers answers: head bytes written, and those the client
  /// acknowledged (the reset follows once they are all acknowledged).
  std::uint64_t cut_head_bytes_written() const;
  std::uint64_t cut_head_bytes_acked() const;
  /// A stateless_reset answer: the server forgot the connection.
  bool forgotten() const { return forgotten_; }
  /// The HTTP/3 code for a connection this session failed (valid after an error).
  std::uint64_t failure_code() const { return failure_code_; }

 private:
  struct Callbacks;
  // The answer in progress on one stream.
  struct Reply {
    ReplyBody body;
    std::uint64_t app_error = kH3InternalError;  // of a reset_mid_body
    bool silence = false;  // go_silent_mid_body: the cut point silences, not resets
    bool reset_scheduled = false;
  };

  // A reset_mid_headers answer: only `limit` bytes of the stream are ever written.
  struct HeadCut {
    std::uint64_t limit = 1;
    std::uint64_t written = 0;
    std::uint64_t acked = 0;
    std::uint64_t app_error = kH3InternalError;
    bool reset_scheduled = false;
  };

  QuicTestRequest& request(std::int64_t stream_id);
  // Trims nghttp3's output for a cut head to what its limit leaves; false when
  // nothing is left (the stream is then blocked for good). An error when the limit
  // reaches past the HEADERS frame: the head would leave whole.
  Result<bool> trim_to_head_cut(Output& output, std::span<nghttp3_vec> vecs);
  bool held_back(std::int64_t stream_id, std::size_t length);
  void apply_stops();
  Result<void> library_failure(int rv, const char* what);
  void credit(std::int64_t stream_id, std::uint64_t n);
  Result<void> act(std::int64_t stream_id, const QuicTestResponse& response);
  Result<void> respond(std::int64_t stream_id, const QuicTestResponse& response, bool cut);
  void reset(std::int64_t stream_id, std::uint64_t app_error);

  ngtcp2_conn* quic_;
  QuicTestHandler handler_;
  nghttp3_conn* conn_ = nullptr;
  std::vector<QuicTestRequest> requests_;
  std::map<std::int64_t, std::size_t> index_;  // stream id -> position in requests_
  std::deque<std::int64_t> ended_;             // requests to hand to the handler
  std::map<std::int64_t, Reply> replies_;
  std::vector<std::int64_t> due_resets_;
  std::map<std::int64_t, HeadCut> head_cuts_;
  std::optional<QuicTestCloseError> close_;  // an answer asked to close
  std::uint64_t failure_code_ = kH3InternalError;
  std::optional<QuicTestStopSending> stop_sending_;
  std::set<std::int64_t> stopped_;       // uploads the script stopped (or will)
  std::vector<std::int64_t> due_stops_;  // to stop outside ngtcp2's callbacks
  std::optional<QuicTestGoawayPlan> goaway_plan_;
  std::set<std::int64_t> admitted_;  // request streams given to nghttp3
  std::set<std::int64_t> held_;      // request streams left unread (after GOAWAY's id)
  bool goaway_due_ = false;
  bool goaway_sent_ = false;
  bool silent_ = false;
  bool forgotten_ = false;
};

}  // namespace sluice::test
