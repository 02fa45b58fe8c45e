#pragma once
// Transfer: one user request from send() to the end of its body, across redirects
// and retries. It runs each hop that its FetchHops plans as one exchange (a
// HopExchange on the connection the pool hands over, this Transfer its ExchangeSink),
// waits in the pool for that connection (as a ConnectionWaiter), owns the request
// body, the response's decoding (ResponseDecoding) and the fetch's timers, and feeds
// the staging buffer.
// Ownership: created on the caller's thread, then HTTP thread only; owned by its
// TransferOwner, the ClientCore (shared_ptr so posted tasks can hold weak references).
// It knows the Client only through TransferServices.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>

#include "body/progress_source.hpp"
#include "body/staging_buffer.hpp"
#include "client/fetch/fetch_hops.hpp"
#include "client/fetch/hop_exchange.hpp"
#include "client/fetch/low_speed_check.hpp"
#include "client/fetch/response_decoding.hpp"
#include "client/fetch/transfer_services.hpp"
#include "client/pending_state.hpp"
#include "connect/proxy_hop.hpp"
#include "connection/connection.hpp"
#include "core/event_loop.hpp"
#include "pool/connection_waiter.hpp"
#include "sluice/request.hpp"
#include "sluice/url.hpp"

namespace sluice {

struct TransferStats {
  bool paused = false;
  std::size_t staged_bytes = 0;
  std::size_t scratch_bytes = 0;  ///< capacity of empty buffers kept for reuse
  std::size_t request_body_bytes = 0;
};

class Transfer final : public ExchangeSink,
                       public ConnectionWaiter,
                       public std::enable_shared_from_this<Transfer> {
 public:
  Transfer(TransferServices services, Request request, Url url,
           std::shared_ptr<PendingState> pending, std::unique_ptr<RequestBodySource> body);
  ~Transfer() override;

  /// Starts timers and asks the pool for a connection.
  void begin();

  // ConnectionWaiter: the current hop, as the pool sees it.
  const Url& url() const noexcept override { return hops_.url(); }
  VersionPolicy version_policy() const noexcept override { return request_.version; }
  std::chrono::milliseconds tls_timeout() const noexcept override { return request_.timeouts.tls; }
  std::chrono::milliseconds connect_timeout() const noexcept override {
    return request_.timeouts.connect;
  }
  /// The proxy the current hop goes through (ClientOptions::proxy.url, no_proxy).
  const std::optional<ProxyHop>& proxy_route() const noexcept override { return hops_.proxy(); }
  /// A safe method, no body (connection/connection.hpp).
  bool safe_for_early_data() const noexcept override {
    return sluice::safe_for_early_data(hops_.method(), body_ != nullptr);
  }
  /// The pool hands over a connection that can start an exchange now.
  void attach(Connection& conn) override;
  /// Ends the transfer with `error` (connect failure, timeout, cancel, shutdown).
  void fail(Error error) override;

  /// A consumer took bytes, dropped the reader, or chose callback mode.
  void on_consumer_activity();
  /// The sweep: when its reader has held it paused since before `paused_before`,
  /// frees empty scratch (its own and the staging buffer's) and returns the bytes
  /// freed; its connection then goes into `connections`, whose scratch the sweep
  /// frees once per connection when nothing else on it receives (with 10,000 streams
  /// on one, a call per stream made each sweep quadratic).
  std::size_t sweep(std::chrono::steady_clock::time_point paused_before,
                    std::unordered_set<Connection*>& connections);
  bool paused() const;
  void expect_known_length(const Headers& headers);
  /// Whether a reader's take ended a pause since the idle timer or the resume last
  /// looked (the HTTP thread has not handled it yet); marks it seen.
  bool hold_ended_unheard();
  TransferStats stats() const;

  // ExchangeSink
  void on_response_head(ReceivedHead head) override;
  void on_body(std::span<const std::byte> bytes) override;
  void on_trailers(Headers trailers) override;
  void on_complete() override;
  void on_error(Error error) override;
  void on_unprocessed(Error error) override;
  void on_early_data_refused(Error error) override;
  bool wants_body() const override;
  std::size_t held_bytes() const override;
  void report_taken_after(std::size_t bytes) override;
  bool may_extend_window() const override;
  std::span<std::byte> body_space(std::size_t max) override;
  void on_allowance(std::size_t bytes) override;
  std::size_t body_room() const override;

 private:
  enum class Phase { waiting_connection, waiting_head, body, redirect_body, finished };

  ExchangeRequest build_exchange();
  /// Asks the pool for a connection for the current hop, once its proxy is chosen;
  /// fails the transfer when the hop cannot go that way.
  void queue_hop();
  void queue_for_connection();
  /// The head's meaning for the fetch (FetchHops::on_head); false when the transfer
  /// goes on with the head as its response.
  bool drains_for_next_hop(const ReceivedHead& head);
  /// The drained redirect's or 401's exchange ended: its next hop goes.
  void after_drained_hop();
  void follow_redirect();
  void resend_authenticated();
  void remember_alt_svc(const Headers& headers);
  void remember_hsts(const Headers& headers);
  /// A dead pooled connection, before the head: the request never reached it.
  bool may_retry_dead_connection() const;
  bool retry(const Error& cause);
  void deliver_body(std::span<const std::byte> bytes);
  void wake_reader_at_turn_end();
  /// The Client's staged-bytes budget is spent and this reader still has bytes.
  bool held_by_budget() const;
  /// The same question for the idle timer: no side effects.
  bool waits_for_budget() const;
  /// Starts the body's decoding when the answer is encoded and the request decodes.
  bool start_decoding(const Headers& headers);
  void pump_decoder();
  void finish_body();
  void reader_dropped();
  void finished();
  /// Arms `id` (cancelling what it held) to run `then` at `at`, if the transfer lives.
  void arm_timer_at(EventLoop::TimerId& id, TimePoint at, std::function<void(Transfer&)> then);
  /// Builds a timeout's error when it fires (most timers are cancelled, and their
  /// messages would be built for nothing).
  using TimeoutError = Error (Transfer::*)() const;
  /// Arms `id` to fail the transfer `after` from now with `make_error`'s error.
  void arm_timer(EventLoop::TimerId& id, std::chrono::milliseconds after, TimeoutError make_error);
  Error total_timeout_error() const;
  Error connect_timeout_error() const;
  Error first_byte_timeout_error() const;
  void arm_idle_timer();
  Error idle_error(std::chrono::milliseconds idle) const;
  /// ClientOptions::low_speed: from the first attach, a sample each second.
  void start_low_speed_check();
  void arm_low_speed_timer();
  void sample_low_speed();
  /// Whether the wait is ours (a reader holding the body, the budget, a decoder
  /// behind, an upload producer with nothing yet), not the server's. `hold_ended`:
  /// a reader's take ended a hold since the caller last looked.
  bool wait_is_ours(bool hold_ended) const;
  void cancel_timer(EventLoop::TimerId& id);
  void arm_drain_timer();
  /// On attach: the connection's steps, if this request waited for them.
  void note_connection(const Connection& conn);

  TransferServices services_;
  Request request_;
  FetchHops hops_;
  std::shared_ptr<PendingState> pending_;
  std::unique_ptr<ProgressSource> body_;
  std::shared_ptr<StagingBuffer> staging_;

  Phase phase_ = Phase::waiting_connection;
  HopExchange exchange_;  // the current hop's, on its connection
  int connects_ = 0;      // connections made for this request (note_connection)
  std::uint64_t redirect_body_bytes_ = 0;

  ResponseDecoding decoding_;      // with a Content-Encoding, between exchange and staging
  bool complete_pending_ = false;  // the exchange ended; decoding still drains
  Headers trailers_;
  std::uint64_t received_ = 0;
  bool reader_dropped_ = false;
  bool reader_wake_scheduled_ = false;  // an at_turn_end wake is pending
  // What readers had taken when held_bytes() last looked: report_taken_after counts
  // from there, so bytes taken in between are not counted twice.
  mutable std::uint64_t held_taken_ = 0;
  std::uint64_t discarded_ = 0;

  EventLoop::TimerId total_timer_ = 0;
  EventLoop::TimerId connect_timer_ = 0;
  EventLoop::TimerId first_byte_timer_ = 0;
  EventLoop::TimerId idle_timer_ = 0;
  EventLoop::TimerId drain_timer_ = 0;  // a dropped body's rest must arrive by then
  EventLoop::TimerId low_speed_timer_ = 0;
  std::optional<LowSpeedCheck> low_speed_;  // with ClientOptions::low_speed, from the first attach
  std::uint64_t moved_ = 0;  // body bytes received (before decoding) and sent, every hop
  std::uint64_t low_speed_pauses_seen_ = 0;  // the staging buffer's count at its last sample
  TimePoint last_activity_{};
  std::uint64_t pauses_ended_seen_ = 0;  // the staging buffer's count at the idle timer's last look
  ResponseTiming timing_;                // filled as the steps happen; the Response gets a copy
  Headers sent_headers_;          // the last exchange's fields, for Response::request_headers
  bool resend_for_auth_ = false;  // the drained 401 is followed by resend_authenticated()
};

}  // namespace sluice
