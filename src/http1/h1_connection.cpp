#include "http1/h1_connection.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

namespace sluice {

namespace {

// The most of a request body taken from its source per write.
constexpr std::size_t kBodyPiece = 64 * 1024;

H1BodyFraming framing_for(const RequestBodySource* body) {
  if (body == nullptr) return {};
  if (auto length = body->length()) return {H1BodyFraming::Kind::content_length, *length};
  return {H1BodyFraming::Kind::chunked, 0};
}

// "Connection: keep-alive" among the response's connection options (a list, any case).
bool says_keep_alive(const Headers& headers) {
  for (std::string_view value : headers.get_all("connection")) {
    while (!value.empty()) {
      const auto comma = value.find(',');
      std::string_view item = value.substr(0, comma);
      while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
      while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
      if (iequals(item, "keep-alive")) return true;
      value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    }
  }
  return false;
}

}  // namespace

H1Connection::H1Connection(EventLoop& loop, std::unique_ptr<Transport> transport,
                           ConnectionOwner& owner, std::uint64_t id, const Trace& trace,
                           const WindowPolicy& window, H1Dialect dialect)
    : loop_(loop),
      owner_(owner),
      id_(id),
      trace_(trace),
      window_(window),
      dialect_(dialect),
      driver_(loop, std::move(transport), *this) {
  // The driver reads while idle too: a server that closes a pooled connection is
  // noticed at once.
  if (driver_.closed()) state_ = State::closed;
}

H1Connection::~H1Connection() { *alive_ = false; }

std::size_t H1Connection::available_streams() const noexcept {
  return state_ == State::idle ? 1 : 0;
}

ExchangeId H1Connection::start(ExchangeRequest request, ExchangeSink& sink) {
  if (state_ != State::idle) {
    sink.on_error(Error(ErrorCategory::protocol, "HTTP/1.1: connection is not idle"));
    return kNoExchange;
  }
  ++exchanges_;
  state_ = State::busy;
  owner_told_idle_ = false;
  sink_ = &sink;
  body_ = request.body;
  body_sent_ = body_ == nullptr;
  response_done_ = false;
  response_says_keep_alive_ = false;
  waiting_for_body_ = false;
  allowance_.emplace(request.allowance.initial_bytes, request.allowance.max_bytes, window_);
  const H1BodyFraming framing = framing_for(body_);
  chunked_body_ = framing.kind == H1BodyFraming::Kind::chunked;
  encode_request_head(
      {request.method, request.target, request.authority, &request.headers, framing, dialect_},
      driver_.output());
  parser_.expect_response(request.method == "HEAD", request.max_header_bytes);
  if (trace_.on()) {
    trace(request.method + " " + request.target + (exchanges_ > 1 ? " (reused connection)" : ""));
  }
  if (body_ != nullptr) {
    body_->set_waker([this, alive = std::weak_ptr<bool>(alive_)] {
      auto still = alive.lock();
      if (!still || !*still || state_ != State::busy) return;
      driver_.event([this] { waiting_for_body_ = false; });
    });
  }
  const ExchangeId id = exchanges_;
  driver_.event([] {});  // may end the exchange already (the sink hears it): the id is then stale
  return id;
}

void H1Connection::resume(ExchangeId exchange) {
  if (sink_ == nullptr || exchange != exchanges_) return;  // it ended
  // Read at once: a TLS transport may hold decrypted bytes epoll will not report.
  driver_.event([this] {
    if (sink_ != nullptr && allowance_ &&
        allowance_->resume_if_wanted(sink_->wants_body(), loop_.now())) {
      follow_allowance(CreditTrigger::reader);
    }
    if (sink_ != nullptr) driver_.read();
  });
}

void H1Connection::cancel(ExchangeId exchange) {
  if (sink_ == nullptr || exchange != exchanges_) return;
  sink_ = nullptr;
  body_ = nullptr;
  allowance_.reset();
  // HTTP/1.1 cannot abandon a response midway and keep the connection.
  driver_.event([this] { close_transport(); });
}

// One exchange at a time: the sweep asks only for a paused one's (or an idle
// connection's) scratch.
std::size_t H1Connection::release_scratch(std::chrono::steady_clock::time_point /*paused_before*/) {
  return driver_.release_scratch();
}

std::size_t H1Connection::scratch_bytes() const noexcept { return driver_.scratch_bytes(); }

void H1Connection::close(Error error) {
  owner_told_closed_ = true;  // the owner asked; it needs no callback
  fail(std::move(error));
}

bool H1Connection::wants_input() const {
  if (state_ == State::idle) return true;
  if (state_ != State::busy) return false;
  return sink_ == nullptr || sink_->wants_body() ||
         (!driver_.closed() && driver_.transport().decrypted_input() > 0);
}

// The room below the allowance, or the rest of a TLS record already decrypted, if
// more: those bytes are in this process either way, and left in OpenSSL's buffer a
// half-read record would keep the sweep from freeing it (so a paused body may hold
// up to one record, 16 KiB, past its allowance).
std::size_t H1Connection::input_limit() const {
  if (state_ != State::busy || sink_ == nullptr || driver_.closed()) return SIZE_MAX;
  return std::max(sink_->body_room(), driver_.transport().decrypted_input());
}

// Where nothing but body can arrive (the rest of a Content-Length body, or one that
// ends at the close), the receive goes straight into the exchange's memory; capped
// at the body's end, so no byte of anything after it lands there.
std::span<std::byte> H1Connection::input_space(std::size_t max) {
  if (state_ != State::busy || sink_ == nullptr) return {};
  const std::uint64_t left = parser_.plain_body_left();
  if (left == 0) return {};
  return sink_->body_space(static_cast<std::size_t>(std::min<std::uint64_t>(left, max)));
}

void H1Connection::on_input(std::span<const std::byte> bytes) {
  if (state_ == State::idle) {
    fail(Error(ErrorCategory::protocol, "HTTP/1.1: server sent data while no request was open"));
    return;
  }
  auto fed = parser_.feed(bytes, *this);
  if (!fed) {
    fail(std::move(fed).error());
    return;
  }
  if (state_ == State::closed) return;  // the sink cancelled from inside an event
  if (response_done_) finish_exchange(*fed < bytes.size());
}

void H1Connection::on_transport_error(Error error) { fail(with_progress(std::move(error))); }

// A socket failure says what broke ("connection reset by peer"); the person reading
// it also needs to know how much of the response had arrived.
Error H1Connection::with_progress(Error error) const {
  if (state_ != State::busy || sink_ == nullptr) return error;
  return Error(error.code(), "HTTP/1.1: " + error.message() + " " + parser_.progress())
      .set_retryable(error.retryable());
}

void H1Connection::on_input_end() {
  if (state_ != State::busy) {
    close_transport();  // a pooled connection the server closed: not an error
    return;
  }
  if (sink_ == nullptr) {
    close_transport();
    return;
  }
  // Over TLS, only close_notify proves a close-delimited body whole.
  const auto close = driver_.transport().ended_without_close_notify()
                         ? H1ResponseParser::Close::unauthenticated
                         : H1ResponseParser::Close::authenticated;
  auto finished = parser_.finish(*this, close);
  if (!finished) {
    fail(std::move(finished).error());
    return;
  }
  if (response_done_) finish_exchange(false);
  close_transport();
}

void H1Connection::finish_exchange(bool leftover) {
  if (state_ == State::closed) return;
  ExchangeSink* sink = sink_;
  // A server may answer a 1.0 request in HTTP/1.1 and close all the same: only its
  // explicit keep-alive keeps the connection (curl's rule).
  const bool server_keeps =
      parser_.keep_alive() && (dialect_ == H1Dialect::http1_1 || response_says_keep_alive_);
  const bool reusable = server_keeps && body_sent_ && !leftover;
  sink_ = nullptr;
  body_ = nullptr;
  allowance_.reset();
  response_done_ = false;
  if (reusable) {
    state_ = State::idle;
    if (trace_.on()) trace("exchange complete; connection kept for reuse");
  } else {
    if (trace_.on()) trace("exchange complete; connection closes (not reusable)");
    close_transport();
  }
  if (sink != nullptr) sink->on_complete();
}

void H1Connection::trace(const std::string& what) const { trace_.emit(id_, "h1", what); }

void H1Connection::fail(Error error) {
  if (trace_.on()) trace("closed: " + error.message());
  ExchangeSink* sink = sink_;
  sink_ = nullptr;
  body_ = nullptr;
  allowance_.reset();
  close_transport();
  if (sink != nullptr) sink->on_error(std::move(error));
}

void H1Connection::close_transport() {
  if (state_ == State::closed) return;
  state_ = State::closed;
  driver_.close();
}

bool H1Connection::produce_output(StreamDriver& driver) {
  if (state_ != State::busy || body_sent_ || body_ == nullptr || waiting_for_body_) return false;
  return write_body(driver);
}

// Moves one piece of the request body toward the socket; false when it must wait
// (or failed: the exchange has heard).
bool H1Connection::write_body(StreamDriver& driver) {
  SourceChunk chunk = body_->peek(kBodyPiece);
  switch (chunk.state) {
    case SourceChunk::State::waiting: waiting_for_body_ = true; return false;
    case SourceChunk::State::failed: fail(*chunk.error); return false;
    case SourceChunk::State::end:
      if (chunked_body_) encode_last_chunk(driver.output());
      body_sent_ = true;
      return true;
    case SourceChunk::State::data: break;
  }
  if (chunked_body_) {
    encode_chunk(chunk.bytes, driver.output());
    body_->consume(chunk.bytes.size());
    return true;
  }
  // Content-Length framing: straight from the source's bytes, no copy.
  const std::size_t written = driver.write_direct(chunk.bytes);
  if (written == 0) return false;  // the socket is full, or failed (the exchange heard)
  body_->consume(written);
  return true;
}

void H1Connection::after_event() {
  if (state_ == State::closed) {
    if (!owner_told_closed_) {
      owner_told_closed_ = true;
      owner_.on_connection_closed(*this);
    }
    return;
  }
  const bool reading = wants_input();
  if (trace_.on() && state_ == State::busy && reading == reading_paused_) {
    trace(reading ? "resumed reading" : "paused reading: the reader is its allowance behind");
  }
  if (!reading && allowance_) (void)allowance_->pause_if_unwanted(false, loop_.now());
  reading_paused_ = !reading;
  if (state_ == State::idle && !owner_told_idle_) {
    owner_told_idle_ = true;
    owner_.on_connection_available(*this);
  }
}

void H1Connection::on_response_head(ReceivedHead head) {
  if (trace_.on()) trace("response " + std::to_string(head.status));
  response_says_keep_alive_ = says_keep_alive(head.headers);
  if (sink_ != nullptr) sink_->on_response_head(std::move(head));
}

void H1Connection::on_body(std::span<const std::byte> bytes) {
  if (sink_ == nullptr) return;
  if (allowance_) allowance_->on_received(bytes.size(), loop_.now());
  sink_->on_body(bytes);
  follow_allowance(CreditTrigger::arrival);
}

// Nothing is sent: the grant's bytes are what the socket may bring, and the sink
// bounds each receive by its room below the allowance.
void H1Connection::follow_allowance(CreditTrigger why) {
  if (!allowance_ || sink_ == nullptr) return;
  const std::uint64_t before = allowance_->window();
  const CreditGrant grant = allowance_->evaluate(sink_->held_bytes(), sink_->may_extend_window(),
                                                 why, loop_.now(), std::chrono::nanoseconds{});
  if (!grant.resized()) return;
  if (trace_.on()) {
    trace("allowance " + window_text(before) + " -> " + window_text(allowance_->window()));
  }
  sink_->on_allowance(static_cast<std::size_t>(allowance_->window()));
}

void H1Connection::on_trailers(Headers trailers) {
  if (sink_ != nullptr) sink_->on_trailers(std::move(trailers));
}

void H1Connection::on_message_complete() { response_done_ = true; }

}  // namespace sluice
