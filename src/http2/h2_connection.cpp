// H2Connection: the codec and timer side of an HTTP/2 connection (see h2_connection.hpp).
//
// Ownership: HTTP thread only.

#include "http2/h2_connection.hpp"

#include <cstdio>
#include <utility>

namespace sluice {
namespace {

std::string seconds_text(std::chrono::milliseconds duration) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", static_cast<double>(duration.count()) / 1000.0);
  return text;
}

}  // namespace

H2Connection::H2Connection(EventLoop& loop, std::unique_ptr<Transport> transport,
                           ConnectionOwner& owner, std::uint64_t id, const Trace& trace,
                           H2Timing timing, H2SessionOptions session_options)
    : loop_(loop),
      reports_(owner),
      id_(id),
      trace_(trace),
      timing_(timing),
      session_([this] { event([] {}); }, trace, id, loop, std::move(session_options)),
      driver_(loop, std::move(transport), *this),
      last_input_(loop.now()) {
  if (!session_.status()) {
    driver_.close();
    return;
  }
  // The connection preface and SETTINGS go out now; the owner hears nothing from a
  // constructor (it checks is_closed()).
  driver_.prime();
}

H2Connection::~H2Connection() = default;

// While a liveness PING is unanswered the server may be gone: no new stream starts
// here (a retry goes to another connection) until its ACK, which tells the owner the
// streams are free again, or its timeout, which fails the connection.
std::size_t H2Connection::available_streams() const noexcept {
  if (driver_.closed() || session_.ping_outstanding()) return 0;
  return session_.available_streams();
}

ExchangeId H2Connection::start(ExchangeRequest request, ExchangeSink& sink) {
  if (available_streams() == 0) {
    sink.on_unprocessed(Error(ErrorCategory::protocol,
                              driver_.closed() ? "HTTP/2: connection is closed"
                                               : "HTTP/2: connection takes no more streams now"));
    return kNoExchange;
  }
  if (exchanges_ == 0) peer_ = request.authority;
  if (session_.open_streams() == 0) last_input_ = loop_.now();  // the PING clock starts now
  auto submitted = session_.submit(request, sink);              // no I/O, no callbacks
  reports_.started(owner_view());
  if (!submitted) {
    // Nothing was sent: after a GOAWAY or while closing, another connection may take it.
    sink.on_unprocessed(std::move(submitted).error());
    return kNoExchange;
  }
  ++exchanges_;
  // The pool starts many exchanges in one turn: their HEADERS leave in one write.
  driver_.flush_at_turn_end();
  return static_cast<ExchangeId>(*submitted);
}

void H2Connection::resume(ExchangeId exchange) {
  if (exchange == kNoExchange) return;
  event([&] { session_.resume_stream(static_cast<std::int32_t>(exchange)); });
}

// A stream cancelled on a connection silent for a while (the caller timed out on a
// stalled server) would hand its retry the same silent connection, stalling again
// until every retry is spent: a PING asks at once whether the server is there.
void H2Connection::cancel(ExchangeId exchange) {
  if (exchange == kNoExchange) return;
  event([&] {
    session_.cancel_stream(static_cast<std::int32_t>(exchange));
    const TimePoint now = loop_.now();
    if (!driver_.closed() && !session_.ping_outstanding() &&
        now - last_input_ >= timing_.quiet_before_probe) {
      send_liveness_ping(now);
    }
  });
}

std::size_t H2Connection::release_scratch(TimePoint paused_before) {
  if (session_.receiving_since(paused_before)) return 0;
  return driver_.release_scratch();
}

std::size_t H2Connection::scratch_bytes() const noexcept { return driver_.scratch_bytes(); }

void H2Connection::close(Error error) {
  reports_.owner_closed();  // the owner asked; it needs no callback
  if (driver_.closed()) return;
  if (trace_.on()) trace("closed: " + error.message());
  session_.fail_all(error);
  // A polite GOAWAY if the socket takes it right away; nothing waits for it.
  session_.terminate(NGHTTP2_NO_ERROR);
  if (session_.drain_output(driver_.output())) driver_.write_best_effort();
  driver_.close();
}

void H2Connection::on_input(std::span<const std::byte> bytes) {
  last_input_ = loop_.now();
  auto fed = session_.feed(bytes);
  if (!fed) {  // the session has failed its streams with the reason
    if (trace_.on()) trace("closed: " + fed.error().message());
    driver_.close();
  }
}

void H2Connection::on_transport_error(Error error) { fail(lost_error(std::move(error))); }

void H2Connection::on_input_end() {
  if (session_.open_streams() > 0) {
    fail(session_.peer_closed_error(peer_));
    return;
  }
  if (trace_.on()) trace("closed by the server");
  driver_.close();  // an idle connection the server closed: not an error
}

// The transport's own words ("connection reset by peer") say what broke, not where
// nor what it cost: the streams' responses were cut off.
// The transport's code stays (a failed receive is curl's 56, a failed send 55).
Error H2Connection::lost_error(Error transport_error) const {
  return Error(transport_error.code(),
               "HTTP/2: connection to " + peer_ + " lost" +
                   (session_.open_streams() > 0 ? " before the response ended" : "") + ": " +
                   transport_error.message())
      .set_retryable(transport_error.retryable());
}

void H2Connection::fail(Error error) {
  if (trace_.on()) trace("closed: " + error.message());
  // Closed first: a sink that hears the error sees a dead connection (and may retry
  // on a new one), not a live one that reset its stream.
  driver_.close();
  session_.fail_all(error);
}

bool H2Connection::produce_output(StreamDriver& driver) {
  if (driver_.closed() || !session_.wants_write()) return false;
  auto drained = session_.drain_output(driver.output());
  if (!drained) {
    if (trace_.on()) trace("closed: " + drained.error().message());
    driver_.close();
    return false;
  }
  return !driver.output().empty();  // empty: e.g. only deferred request bodies
}

void H2Connection::after_event() {
  if (!driver_.closed() && session_.finished() && driver_.output().empty()) {
    if (trace_.on()) trace("closed: the session is over");
    driver_.close();
  }
  tell_owner();
}

void H2Connection::tell_owner() { reports_.tell(*this, owner_view()); }

OwnerView H2Connection::owner_view() const {
  return OwnerView{driver_.closed(), draining(), available_streams(), session_.streams_ended(),
                   false};
}

std::optional<TimePoint> H2Connection::next_deadline() const {
  if (driver_.closed()) return std::nullopt;
  std::optional<TimePoint> due = session_.next_deadline();
  const auto earliest = [&due](TimePoint at) {
    if (!due || at < *due) due = at;
  };
  if (session_.ping_outstanding()) {
    earliest(ping_sent_at_ + timing_.ping_timeout);
  } else if (session_.open_streams() > 0) {
    earliest(last_input_ + timing_.ping_after);
  }
  return due;
}

// Quiet with streams open: a server that stopped answering would otherwise hold them
// forever (a held stream legitimately receives nothing, so silence alone is no
// error). A PING it does not answer in time fails the connection.
void H2Connection::on_deadline(TimePoint now) {
  if (driver_.closed()) return;
  if (session_.ping_outstanding()) {
    if (now - ping_sent_at_ >= timing_.ping_timeout) {
      fail(Error(ErrorCode::ping_timeout, "HTTP/2: connection to " + peer_ +
                                              " did not answer a PING within " +
                                              seconds_text(timing_.ping_timeout)));
      return;
    }
  } else if (session_.open_streams() > 0 && now - last_input_ >= timing_.ping_after) {
    send_liveness_ping(now);
    if (driver_.closed()) return;
  }
  if (const auto due = session_.next_deadline(); due && *due <= now) session_.on_timer();
}

void H2Connection::send_liveness_ping(TimePoint now) {
  auto sent = session_.send_ping();
  if (!sent) {
    fail(std::move(sent).error());
    return;
  }
  ping_sent_at_ = now;
}

void H2Connection::trace(const std::string& what) const { trace_.emit(id_, "h2", what); }

}  // namespace sluice
