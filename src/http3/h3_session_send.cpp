// H3Session, sending: submitting requests, the output QUIC asks for (next_output),
// and request bodies pulled through nghttp3's data reader into blocks kept until the
// server acknowledges them (see h3_session.hpp).
//
// Ownership: HTTP thread only.

#include <algorithm>
#include <cstring>
#include <string>

#include "http3/h3_headers.hpp"
#include "http3/h3_session.hpp"

namespace sluice {
namespace {

// Bytes copied per read_data call. nghttp3 asks again while fewer than 4 KiB of a
// stream wait to be sent, so one piece usually covers a write round; what is copied
// and unacknowledged stays within the server's stream window plus one piece.
constexpr std::size_t kBodyPiece = 32 * 1024;
// Emptied blocks kept for the next pieces (freed by release_scratch).
constexpr std::size_t kSpareBlocks = 8;

}  // namespace

Result<std::int64_t> H3Session::submit(ExchangeRequest& request, ExchangeSink& sink) {
  Entry entry(*this);
  if (closed_) return Error(ErrorCategory::protocol, "HTTP/3: the connection is closed");
  if (broken_) return *terminal_error_;
  if (conn_ == nullptr) {
    return Error(ErrorCategory::protocol,
                 "HTTP/3: the connection is not ready (the QUIC handshake has not completed)");
  }
  if (goaway_received_) {
    return Error(ErrorCategory::protocol,
                 "HTTP/3: GOAWAY: server sent GOAWAY; the connection takes no new requests (not "
                 "sent: safe to send again)");
  }
  if (closing_) return Error(ErrorCategory::protocol, "HTTP/3: the connection is closing");
  auto opened = streams_->open_bidi_stream();
  if (!opened) return std::move(opened).error();
  const std::int64_t stream_id = *opened;
  streams_->set_stream_window(stream_id, request.allowance.initial_bytes);
  H3Stream& stream = stream_table_.add(stream_id, sink, request, options_.window);
  stream.pending_request = std::make_unique<H3RequestHeaders>(request);
  if (in_library_) {
    queue_op(PendingOp::Kind::submit, stream_id);
  } else if (auto sent = submit_to_library(stream); !sent) {
    stream_table_.erase(stream_id);  // no event: the caller reports the error
    streams_->shutdown_stream(stream_id, NGHTTP3_H3_REQUEST_CANCELLED);
    return std::move(sent).error();
  }
  ++active_;
  if (stream.body != nullptr) {
    stream.body->set_waker([this, alive = std::weak_ptr<bool>(alive_), stream_id] {
      auto still = alive.lock();
      if (still && *still) wake_body(stream_id);
    });
  }
  if (trace_.on()) trace_stream(stream_id, request.method + " " + request.target);
  streams_->request_write();
  return stream_id;
}

Result<void> H3Session::submit_to_library(H3Stream& stream) {
  const auto nv = stream.pending_request->nv();
  const int rv =
      nghttp3_conn_submit_request(conn_, stream.stream_id, nv.data(), nv.size(),
                                  stream.body != nullptr ? &body_reader() : nullptr, nullptr);
  stream.pending_request.reset();
  if (rv != 0) {
    return Error(ErrorCategory::protocol, "HTTP/3: could not send the request on stream " +
                                              std::to_string(stream.stream_id) + ": " +
                                              nghttp3_strerror(rv));
  }
  stream.submitted = true;
  return {};
}

// A submit made from inside an nghttp3 callback, now that nghttp3 returned.
void H3Session::submit_deferred(std::int64_t stream_id) {
  H3Stream* stream = find(stream_id);
  if (stream == nullptr || stream->pending_request == nullptr) return;
  if (stream->sink == nullptr || stream->shut) {
    stream->pending_request.reset();
    return;
  }
  auto sent = submit_to_library(*stream);
  if (!sent) {
    stream->unprocessed = true;  // nothing left: the server never saw it
    fail_stream(stream_id, std::move(sent).error());
    return;
  }
  if (streams_ != nullptr) streams_->request_write();
}

// nghttp3's data reader: hands out the next piece of the request body, copied.
nghttp3_ssize H3Session::read_body(std::int64_t stream_id, nghttp3_vec* vec, std::uint32_t& flags) {
  H3Stream* stream = find(stream_id);
  // The exchange or its body ended; the stream is being reset, nothing more goes.
  if (stream == nullptr || stream->body == nullptr) return NGHTTP3_ERR_WOULDBLOCK;
  const std::optional<std::uint64_t> length = stream->body->length();
  if (length && stream->body_sent >= *length) {
    flags |= NGHTTP3_DATA_FLAG_EOF;
    end_body(*stream);
    return 0;
  }
  stream->body_woken = false;
  SourceChunk chunk = stream->body->peek(kBodyPiece);
  switch (chunk.state) {
    case SourceChunk::State::waiting: return block_body(*stream);
    case SourceChunk::State::failed:
      fail_body(*stream, chunk.error ? *chunk.error
                                     : Error(ErrorCategory::io, "HTTP/3: the request body failed"));
      return NGHTTP3_ERR_WOULDBLOCK;
    case SourceChunk::State::end:
      if (length && stream->body_sent < *length) {
        fail_body(*stream,
                  Error(ErrorCategory::io, "HTTP/3: the request body ended after " +
                                               std::to_string(stream->body_sent) + " of its " +
                                               std::to_string(*length) + " bytes"));
        return NGHTTP3_ERR_WOULDBLOCK;
      }
      flags |= NGHTTP3_DATA_FLAG_EOF;
      end_body(*stream);
      return 0;
    case SourceChunk::State::data: break;
  }
  if (chunk.bytes.empty()) return block_body(*stream);  // wait for the waker, do not spin
  return copy_body_piece(*stream, chunk.bytes, vec, flags);
}

// The source has nothing now: nghttp3 marks the stream blocked on WOULDBLOCK and the
// waker resumes it. A waker that fired inside peek() found it not blocked yet, so
// the resume is queued here, to run once nghttp3 has returned.
nghttp3_ssize H3Session::block_body(H3Stream& stream) {
  stream.body_blocked = true;
  if (stream.body_woken) queue_op(PendingOp::Kind::resume_body, stream.stream_id);
  return NGHTTP3_ERR_WOULDBLOCK;
}

nghttp3_ssize H3Session::copy_body_piece(H3Stream& stream, std::span<const std::byte> bytes,
                                         nghttp3_vec* vec, std::uint32_t& flags) {
  const std::size_t n = std::min(bytes.size(), kBodyPiece);
  ByteQueue block = take_block();
  std::memcpy(block.prepare(n).data(), bytes.data(), n);
  block.commit(n);
  // The deque never moves its elements' blocks: nghttp3 may keep pointing here.
  stream.in_flight.push_back(std::move(block));
  stream.in_flight_bytes += n;
  const std::byte* kept = stream.in_flight.back().readable().data();
  stream.body->consume(n);  // a large owned body is freed here after its last byte
  stream.body_sent += n;
  vec[0].base = const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>(kept));
  vec[0].len = n;
  const std::optional<std::uint64_t> length = stream.body->length();
  if (length && stream.body_sent >= *length) {
    flags |= NGHTTP3_DATA_FLAG_EOF;
    end_body(stream);
  }
  return 1;
}

// The producer failed (or broke its length): the request cannot be completed, so the
// stream is reset and the exchange fails with the producer's reason.
void H3Session::fail_body(H3Stream& stream, Error error) {
  if (trace_.on()) trace_stream(stream.stream_id, "request body failed: " + error.message());
  abandon_stream(stream, NGHTTP3_H3_REQUEST_CANCELLED);
  fail_stream(stream.stream_id, std::move(error), false);
}

void H3Session::end_body(H3Stream& stream) {
  if (stream.body == nullptr) return;
  stream.body->set_waker([] {});
  stream.body = nullptr;
  stream.body_blocked = false;
  if (trace_.on()) {
    trace_stream(stream.stream_id,
                 "request body: " + std::to_string(stream.body_sent) + " bytes taken");
  }
}

void H3Session::wake_body(std::int64_t stream_id) {
  Entry entry(*this);
  H3Stream* stream = find(stream_id);
  if (stream == nullptr || stream->body == nullptr || stream->shut) return;
  stream->body_woken = true;
  if (stream->body_blocked) queue_op(PendingOp::Kind::resume_body, stream_id);
}

void H3Session::resume_body(std::int64_t stream_id) {
  H3Stream* stream = find(stream_id);
  if (stream == nullptr || stream->shut || !stream->body_blocked) return;
  stream->body_blocked = false;
  const int rv = nghttp3_conn_resume_stream(conn_, stream_id);
  if (rv != 0) {
    fail_connection(fatal_error(rv, "resuming a request body"), rv);
    return;
  }
  if (streams_ != nullptr) streams_->request_write();
}

// nghttp3 reports acknowledged body bytes in stream order, so they are the oldest.
void H3Session::on_body_acked(std::int64_t stream_id, std::uint64_t n) {
  H3Stream* stream = find(stream_id);
  if (stream == nullptr) return;
  while (n > 0 && !stream->in_flight.empty()) {
    ByteQueue& front = stream->in_flight.front();
    const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(n, front.size()));
    front.consume(k);
    stream->in_flight_bytes -= k;
    n -= k;
    if (!front.empty()) break;
    if (spare_blocks_.size() < kSpareBlocks && front.capacity() <= 2 * kBodyPiece) {
      spare_blocks_.push_back(std::move(front));
    }
    stream->in_flight.pop_front();
  }
}

ByteQueue H3Session::take_block() {
  if (spare_blocks_.empty()) return ByteQueue();
  ByteQueue block = std::move(spare_blocks_.back());
  spare_blocks_.pop_back();
  block.clear();
  return block;
}

std::size_t H3Session::unacked_body_bytes() const noexcept {
  std::size_t total = 0;
  for (const auto& entry : stream_table_) total += entry.second.in_flight_bytes;
  return total;
}

std::size_t H3Session::scratch_bytes() const noexcept {
  std::size_t kept = 0;
  for (const ByteQueue& block : spare_blocks_) kept += block.capacity();
  return kept;
}

bool H3Session::receiving_since(TimePoint paused_before) const {
  return stream_table_.receiving_since(paused_before);
}

std::size_t H3Session::release_scratch() {
  std::size_t freed = 0;
  for (const ByteQueue& block : spare_blocks_) freed += block.capacity();
  spare_blocks_.clear();
  return freed;
}

Result<QuicOutput> H3Session::next_output(std::span<QuicVec> vecs) {
  Entry entry(*this);
  if (broken_) return *terminal_error_;
  if (conn_ == nullptr || vecs.empty()) return QuicOutput{};
  return write_next(vecs);
}

// nghttp3 returns "nothing" both when no stream is scheduled and when the stream it
// picked had nothing after all (a body waiting for its producer, now unscheduled),
// so it is asked again, at most once per stream, before the answer is believed.
Result<QuicOutput> H3Session::write_next(std::span<QuicVec> vecs) {
  std::array<nghttp3_vec, 16> nvecs{};
  const std::size_t capacity = std::min(vecs.size(), nvecs.size());
  const std::size_t attempts = stream_table_.size() + 4;
  for (std::size_t attempt = 0; attempt < attempts; ++attempt) {
    std::int64_t stream_id = -1;
    int fin = 0;
    const nghttp3_ssize n = in_library([&] {
      return nghttp3_conn_writev_stream(conn_, &stream_id, &fin, nvecs.data(), capacity);
    });
    if (n < 0) return fail_connection(fatal_error(n, "writing streams"), n);
    if (broken_) return *terminal_error_;
    if (stream_id < 0) continue;
    // A body that failed inside read_data reset its stream: its bytes must not go out.
    if (const H3Stream* stream = find(stream_id); stream != nullptr && stream->shut) continue;
    QuicOutput out;
    out.stream_id = stream_id;
    out.fin = fin != 0;
    out.count = static_cast<std::size_t>(n);
    for (std::size_t i = 0; i < out.count; ++i) vecs[i] = QuicVec{nvecs[i].base, nvecs[i].len};
    return out;
  }
  return QuicOutput{};
}

Result<void> H3Session::on_output_written(std::int64_t stream_id, std::size_t n) {
  Entry entry(*this);
  if (broken_) return *terminal_error_;
  if (conn_ == nullptr) return {};
  const int rv = in_library([&] { return nghttp3_conn_add_write_offset(conn_, stream_id, n); });
  if (rv != 0) return fail_connection(fatal_error(rv, "writing streams"), rv);
  return {};
}

void H3Session::on_stream_blocked(std::int64_t stream_id) {
  Entry entry(*this);
  if (conn_ == nullptr || broken_) return;
  nghttp3_conn_block_stream(conn_, stream_id);
}

}  // namespace sluice
