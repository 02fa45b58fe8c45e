#include "http1/h1_connection.hpp"

#include <sys/epoll.h>

#include <utility>

namespace sluice {

namespace {

// One receive: the most a paused exchange can hold beyond its mark.
constexpr std::size_t kReceiveSize = 64 * 1024;
// The most of a request body taken from its source per write.
constexpr std::size_t kBodyPiece = 64 * 1024;

H1BodyFraming framing_for(const RequestBodySource* body) {
  if (body == nullptr) return {};
  if (auto length = body->length()) return {H1BodyFraming::Kind::content_length, *length};
  return {H1BodyFraming::Kind::chunked, 0};
}

}  // namespace

H1Connection::H1Connection(EventLoop& loop, std::unique_ptr<Transport> transport,
                           ConnectionOwner& owner, std::uint64_t id, const Trace& trace)
    : loop_(loop), transport_(std::move(transport)), owner_(owner), id_(id), trace_(trace) {
  // Read while idle too: a server that closes a pooled connection is noticed at once.
  if (loop_.watch(transport_->fd(), EPOLLIN, this)) {
    watched_events_ = EPOLLIN;
  } else {
    state_ = State::closed;
  }
}

H1Connection::~H1Connection() {
  *alive_ = false;
  if (state_ != State::closed && !unwatched_) loop_.unwatch(transport_->fd());
}

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
  waiting_for_body_ = false;
  const H1BodyFraming framing = framing_for(body_);
  chunked_body_ = framing.kind == H1BodyFraming::Kind::chunked;
  encode_request_head({request.method, request.target, request.authority, &request.headers, framing},
                      send_queue_);
  parser_.expect_response(request.method == "HEAD", request.max_header_bytes);
  if (trace_.on()) {
    trace(request.method + " " + request.target + (exchanges_ > 1 ? " (reused connection)" : ""));
  }
  if (body_ != nullptr) {
    body_->set_waker([this, alive = std::weak_ptr<bool>(alive_)] {
      auto still = alive.lock();
      if (!still || !*still || state_ != State::busy) return;
      waiting_for_body_ = false;
      after_event();
    });
  }
  const ExchangeId id = exchanges_;
  after_event();  // may end the exchange already (the sink hears it): the id is then stale
  return id;
}

void H1Connection::resume(ExchangeId exchange) {
  // Not the current exchange (it ended), or inside read_ready, whose loop re-checks.
  if (sink_ == nullptr || exchange != exchanges_ || in_read_) return;
  read_ready();
  after_event();
}

void H1Connection::cancel(ExchangeId exchange) {
  if (sink_ == nullptr || exchange != exchanges_) return;
  sink_ = nullptr;
  body_ = nullptr;
  // HTTP/1.1 cannot abandon a response midway and keep the connection.
  close_transport();
  if (!in_read_) after_event();
}

// One exchange at a time: the sweep asks only for a paused one's (or an idle
// connection's) scratch.
std::size_t H1Connection::release_scratch(std::chrono::steady_clock::time_point /*paused_before*/) {
  return recv_.release_if_empty() + send_queue_.release_if_empty();
}

std::size_t H1Connection::scratch_bytes() const noexcept {
  return (recv_.empty() ? recv_.capacity() : 0) + (send_queue_.empty() ? send_queue_.capacity() : 0);
}

void H1Connection::close(Error error) {
  owner_told_closed_ = true;  // the owner asked; it needs no callback
  fail(std::move(error));
}

void H1Connection::on_fd_ready(std::uint32_t events) {
  if (events & EPOLLOUT) write_blocked_ = false;
  if ((events & (EPOLLERR | EPOLLHUP)) && !wants_read() && !write_blocked_) {
    // epoll reports these even with no interest, level-triggered: while the reader
    // holds the stream paused, stop watching instead of spinning. resume() reads
    // (and so meets the error) directly.
    loop_.unwatch(transport_->fd());
    unwatched_ = true;
    return;
  }
  if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) read_ready();
  after_event();
}

bool H1Connection::wants_read() const {
  if (state_ == State::idle) return true;
  if (state_ != State::busy) return false;
  return sink_ == nullptr || sink_->wants_body();
}

void H1Connection::read_ready() {
  in_read_ = true;
  while (state_ != State::closed && wants_read()) {
    auto received = receive_into(*transport_, recv_, kReceiveSize);
    if (!received) {
      fail(with_progress(std::move(received).error()));
      break;
    }
    if (recv_.empty()) {
      if (*received == IoStatus::eof) receive_eof();
      break;
    }
    if (state_ == State::idle) {
      fail(Error(ErrorCategory::protocol, "HTTP/1.1: server sent data while no request was open"));
      break;
    }
    auto fed = parser_.feed(recv_.readable(), *this);
    const bool leftover = fed && *fed < recv_.size();
    recv_.clear();
    if (!fed) {
      fail(std::move(fed).error());
      break;
    }
    if (state_ == State::closed) break;  // the sink cancelled from inside an event
    if (response_done_) finish_exchange(leftover);
    if (*received != IoStatus::done) {
      if (*received == IoStatus::eof && state_ != State::closed) receive_eof();
      break;
    }
  }
  in_read_ = false;
}


// A socket failure says what broke ("connection reset by peer"); the person reading
// it also needs to know how much of the response had arrived.
Error H1Connection::with_progress(Error error) const {
  if (state_ != State::busy || sink_ == nullptr) return error;
  return Error(error.category(), "HTTP/1.1: " + error.message() + " " + parser_.progress());
}

void H1Connection::receive_eof() {
  if (state_ != State::busy) {
    close_transport();  // a pooled connection the server closed: not an error
    return;
  }
  if (sink_ == nullptr) {
    close_transport();
    return;
  }
  // Over TLS, only close_notify proves a close-delimited body whole.
  const auto close = transport_->ended_without_close_notify()
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
  const bool reusable = parser_.keep_alive() && body_sent_ && !leftover;
  sink_ = nullptr;
  body_ = nullptr;
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

void H1Connection::trace(const std::string& what) const {
  trace_.emit("c" + std::to_string(id_) + " h1: " + what);
}

void H1Connection::fail(Error error) {
  if (trace_.on()) trace("closed: " + error.message());
  ExchangeSink* sink = sink_;
  sink_ = nullptr;
  body_ = nullptr;
  close_transport();
  if (sink != nullptr) sink->on_error(std::move(error));
}

void H1Connection::close_transport() {
  if (state_ == State::closed) return;
  state_ = State::closed;
  if (!unwatched_) loop_.unwatch(transport_->fd());
  transport_.reset();
  recv_.release_if_empty();
  send_queue_.clear();
  send_queue_.release_if_empty();
}

Result<void> H1Connection::flush_output() {
  while (state_ == State::busy) {
    if (!send_queue_.empty()) {
      auto written = transport_->write(send_queue_.readable());
      if (!written) return std::move(written).error();
      if (written->status != IoStatus::done) {
        write_blocked_ = true;
        return {};
      }
      send_queue_.consume(written->bytes);
      continue;
    }
    if (body_sent_ || body_ == nullptr || waiting_for_body_) return {};
    auto more = write_body();
    if (!more) return std::move(more).error();
    if (!*more) return {};
  }
  return {};
}

// Moves one piece of the request body toward the socket; false when it must wait.
Result<bool> H1Connection::write_body() {
  BodyChunk chunk = body_->peek(kBodyPiece);
  switch (chunk.state) {
    case BodyChunk::State::waiting:
      waiting_for_body_ = true;
      return false;
    case BodyChunk::State::failed:
      return *chunk.error;
    case BodyChunk::State::end:
      if (chunked_body_) encode_last_chunk(send_queue_);
      body_sent_ = true;
      return true;
    case BodyChunk::State::data:
      break;
  }
  if (chunked_body_) {
    encode_chunk(chunk.bytes, send_queue_);
    body_->consume(chunk.bytes.size());
    return true;
  }
  // Content-Length framing: straight from the source's bytes, no copy.
  auto written = transport_->write(chunk.bytes);
  if (!written) return std::move(written).error();
  if (written->status != IoStatus::done) {
    write_blocked_ = true;
    return false;
  }
  body_->consume(written->bytes);
  return true;
}

void H1Connection::after_event() {
  if (state_ == State::busy) {
    auto flushed = flush_output();
    if (!flushed) fail(std::move(flushed).error());
  }
  if (state_ == State::closed) {
    if (!owner_told_closed_) {
      owner_told_closed_ = true;
      owner_.on_connection_closed(*this);
    }
    return;
  }
  const bool reading = wants_read();
  if (trace_.on() && state_ == State::busy && reading == reading_paused_) {
    trace(reading ? "resumed reading" : "paused reading: the reader is a mark behind");
  }
  reading_paused_ = !reading;
  std::uint32_t events = reading ? std::uint32_t{EPOLLIN} : 0u;
  if (write_blocked_) events |= EPOLLOUT;
  if (unwatched_) {
    if (events != 0 && loop_.watch(transport_->fd(), events, this)) {
      unwatched_ = false;
      watched_events_ = events;
    }
  } else if (events != watched_events_) {
    if (loop_.modify(transport_->fd(), events)) watched_events_ = events;
  }
  if (state_ == State::idle && !owner_told_idle_) {
    owner_told_idle_ = true;
    owner_.on_connection_available(*this);
  }
}

void H1Connection::on_response_head(ResponseHead head) {
  if (trace_.on()) trace("response " + std::to_string(head.status));
  if (sink_ != nullptr) sink_->on_response_head(std::move(head));
}

void H1Connection::on_body(std::span<const std::byte> bytes) {
  if (sink_ != nullptr) sink_->on_body(bytes);
}

void H1Connection::on_trailers(Headers trailers) {
  if (sink_ != nullptr) sink_->on_trailers(std::move(trailers));
}

void H1Connection::on_message_complete() { response_done_ = true; }

}  // namespace sluice
