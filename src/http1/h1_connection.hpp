#pragma once
// H1Connection: one HTTP/1.1 connection, one exchange at a time: the StreamCodec
// between a StreamDriver (socket, buffers, events) and the sans-IO H1 codec.
// Backpressure lives at the socket: when the exchange's sink stops wanting body
// bytes, wants_input() turns false, the driver stops reading (EPOLLIN off) and the
// kernel's TCP window holds the server back (llhttp 8.1 cannot pause inside on_body).
// Each exchange has an allowance (mux/stream_credit.hpp, as h2/h3 streams do): the
// driver receives no more than the sink has room for below it, and it grows while the
// reader keeps up.
// Ownership: HTTP thread only; owned by a pool in src/client (via ConnectionOwner).

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "connection/connection.hpp"
#include "core/event_loop.hpp"
#include "core/trace.hpp"
#include "http1/h1_codec.hpp"
#include "mux/stream_credit.hpp"
#include "net/stream_driver.hpp"
#include "net/transport.hpp"

namespace sluice {

class H1Connection final : public Connection, private StreamCodec, private H1ParserEvents {
 public:
  /// `transport` has completed its handshake.
  /// `window`: the allowance policy (the Client's ledger), which outlives this.
  /// `dialect`: every request says HTTP/1.0 or HTTP/1.1 (the pool keeps the two apart).
  H1Connection(EventLoop& loop, std::unique_ptr<Transport> transport, ConnectionOwner& owner,
               std::uint64_t id, const Trace& trace, const WindowPolicy& window,
               H1Dialect dialect = H1Dialect::http1_1);
  ~H1Connection() override;

  HttpVersion version() const noexcept override { return HttpVersion::http1_1; }
  std::size_t available_streams() const noexcept override;
  bool idle() const noexcept override { return state_ == State::idle; }
  bool was_reused() const noexcept override { return exchanges_ > 0; }
  bool is_closed() const noexcept override { return state_ == State::closed; }
  /// The exchange's id is its sequence number on this connection (1, 2, ...).
  ExchangeId start(ExchangeRequest request, ExchangeSink& sink) override;
  void resume(ExchangeId exchange) override;
  void cancel(ExchangeId exchange) override;
  std::size_t release_scratch(std::chrono::steady_clock::time_point paused_before) override;
  std::size_t scratch_bytes() const noexcept override;
  void close(Error error) override;
  std::uint64_t id() const noexcept override { return id_; }

 private:
  enum class State { idle, busy, closed };

  // StreamCodec
  void on_input(std::span<const std::byte> bytes) override;
  std::span<std::byte> input_space(std::size_t max) override;
  std::size_t input_limit() const override;
  void on_input_end() override;
  void on_transport_error(Error error) override;
  bool wants_input() const override;
  bool produce_output(StreamDriver& driver) override;
  /// Every event ends here (the driver has flushed and re-armed): tell the owner.
  void after_event() override;
  /// None: the Transfer above keeps HTTP/1.1's timeouts.
  std::optional<TimePoint> next_deadline() const override { return std::nullopt; }
  void on_deadline(TimePoint /*now*/) override {}
  // H1ParserEvents
  void on_response_head(ReceivedHead head) override;
  void on_body(std::span<const std::byte> bytes) override;
  void on_trailers(Headers trailers) override;
  void on_message_complete() override;

  bool write_body(StreamDriver& driver);
  /// Looks at the exchange's allowance (after a receive, or the reader's resume) and
  /// tells the sink when it changed.
  void follow_allowance(CreditTrigger why);
  Error with_progress(Error error) const;
  void finish_exchange(bool leftover);
  void fail(Error error);
  void close_transport();
  void trace(const std::string& what) const;

  EventLoop& loop_;
  ConnectionOwner& owner_;
  std::uint64_t id_;
  const Trace& trace_;
  const WindowPolicy& window_;
  const H1Dialect dialect_;
  bool reading_paused_ = false;  // for tracing pause/resume transitions
  State state_ = State::idle;
  std::uint64_t exchanges_ = 0;
  bool owner_told_closed_ = false;
  bool owner_told_idle_ = true;

  H1ResponseParser parser_;
  StreamDriver driver_;  // its send queue takes the request head and chunk framing
  // The current exchange (State::busy).
  ExchangeSink* sink_ = nullptr;
  RequestBodySource* body_ = nullptr;
  bool chunked_body_ = false;
  bool body_sent_ = false;
  bool response_done_ = false;
  bool waiting_for_body_ = false;
  bool response_says_keep_alive_ = false;  // "Connection: keep-alive" (HTTP/1.0's reuse rule)
  std::optional<StreamCredit> allowance_;  // the current exchange's (State::busy)
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice
