// StreamDriver: one byte-stream connection's socket, buffers and events (see
// stream_driver.hpp).
// Ownership: HTTP thread only.

#include "net/stream_driver.hpp"

#include <sys/epoll.h>

#include <algorithm>
#include <utility>

namespace sluice {
namespace {

// One receive into the driver's scratch (heads, frames): the scratch a connection
// keeps is this size.
constexpr std::size_t kReceiveSize = 64 * 1024;
// One receive into the codec's own memory (an HTTP/1.1 body into the reader's
// staging room, cut to its allowance's room): no scratch of ours, and fewer, larger
// reads for a reader whose allowance grew (a 1 GiB download: about 1.15x the speed of
// 64 KiB reads here).
constexpr std::size_t kInPlaceReceiveSize = 256 * 1024;
// Receives per readiness event before yielding to other connections.
constexpr int kReceivesPerEvent = 16;
// Rounds of flushing per event (each nested event may add output) before yielding.
constexpr int kFlushRounds = 16;

}  // namespace

StreamDriver::StreamDriver(EventLoop& loop, std::unique_ptr<Transport> transport,
                           StreamCodec& codec)
    : loop_(loop), transport_(std::move(transport)), codec_(codec) {
  if (loop_.watch(transport_->fd(), EPOLLIN, this)) {
    watched_events_ = EPOLLIN;
  } else {
    transport_.reset();
  }
}

StreamDriver::~StreamDriver() {
  *alive_ = false;
  if (timer_ != 0) loop_.cancel_timer(timer_);
  if (!closed() && !unwatched_) loop_.unwatch(transport_->fd());
}

void StreamDriver::prime() {
  nesting_.run([] {}, [this] { finish_event(); });
}

void StreamDriver::on_fd_ready(std::uint32_t events) {
  if (events & EPOLLOUT) write_blocked_ = false;
  if ((events & (EPOLLERR | EPOLLHUP)) && !wants_input() && !write_blocked_) {
    // epoll reports these even with no interest, level-triggered: while the codec
    // wants nothing (a reader holding its stream), stop watching instead of
    // spinning. The next read meets the error directly.
    loop_.unwatch(transport_->fd());
    unwatched_ = true;
    return;
  }
  event([&] {
    if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) read();
  });
}

// One receive, handed to the codec: into the codec's own memory where it offers some
// (the reader's staging buffer: no copy of ours), else into the scratch.
Result<IoStatus> StreamDriver::receive_once() {
  const std::size_t limit = codec_.input_limit();
  if (limit == 0) return IoStatus::want_read;
  const std::span<std::byte> space = codec_.input_space(std::min(kInPlaceReceiveSize, limit));
  if (!space.empty()) {
    auto received = receive_into(*transport_, space);
    if (!received) return std::move(received).error();
    if (received->bytes > 0) codec_.on_input(space.first(received->bytes));
    return received->status;
  }
  auto received = receive_into(*transport_, recv_, std::min(kReceiveSize, limit));
  if (received && !recv_.empty()) {
    codec_.on_input(recv_.readable());
    recv_.clear();
  }
  return received;
}

void StreamDriver::read() {
  if (in_read_) return;  // the loop below re-checks wants_input() itself
  in_read_ = true;
  for (int round = 0; round < kReceivesPerEvent && !closed() && wants_input(); ++round) {
    auto received = receive_once();
    if (!received) {
      fail(std::move(received).error());
      break;
    }
    if (closed()) break;
    if (*received == IoStatus::eof) {
      // Told once: the socket stays readable at its end, and a codec that stays
      // open (to finish writing) would otherwise hear it every turn.
      input_ended_ = true;
      codec_.on_input_end();
      break;
    }
    if (*received != IoStatus::done) break;
  }
  in_read_ = false;
  if (closed()) {  // close() left the receive to us (see there)
    recv_.clear();
    recv_.release_if_empty();
    return;
  }
  // Stopped with bytes maybe still waiting. The socket's are re-reported by epoll;
  // TLS's already decrypted ones are not, so come back for them.
  if (!closed() && wants_input() && transport_->has_buffered_input()) {
    loop_.post([this, alive = std::weak_ptr<bool>(alive_)] {
      auto still = alive.lock();
      if (still && *still && !closed()) event([this] { read(); });
    });
  }
}

void StreamDriver::flush_at_turn_end() {
  if (flush_scheduled_) return;
  flush_scheduled_ = true;
  loop_.at_turn_end([this, alive = std::weak_ptr<bool>(alive_)] {
    auto still = alive.lock();
    if (!still || !*still) return;
    flush_scheduled_ = false;
    if (!closed()) event([] {});
  });
}

void StreamDriver::finish_event() {
  for (int round = 0; round < kFlushRounds; ++round) {
    (void)nesting_.take_again();
    flush();
    if (!nesting_.take_again() || closed()) break;
  }
  if (closed()) return;
  rearm();
  arm_deadline();
}

// One timer follows the codec's next deadline: one that moved later leaves the timer
// as it is (it fires early, the codec finds nothing due, and it is re-armed), one
// that moved earlier replaces it.
void StreamDriver::arm_deadline() {
  const std::optional<TimePoint> due = codec_.next_deadline();
  if (!due || (timer_ != 0 && timer_at_ <= *due)) return;
  if (timer_ != 0) loop_.cancel_timer(timer_);
  timer_at_ = *due;
  timer_ = loop_.add_timer(*due, [this] {
    timer_ = 0;
    event([this] { codec_.on_deadline(loop_.now()); });
  });
}

void StreamDriver::flush() {
  while (!closed()) {
    if (!send_queue_.empty()) {
      if (write_blocked_) return;
      // After want_write the same bytes go first: they are still at the queue's front.
      auto written = transport_->write(send_queue_.readable());
      if (!written) {
        fail(std::move(written).error());
        return;
      }
      if (written->status != IoStatus::done) {
        write_blocked_ = true;
        return;
      }
      send_queue_.consume(written->bytes);
      continue;
    }
    if (write_blocked_ || !codec_.produce_output(*this)) return;
  }
}

std::size_t StreamDriver::write_direct(std::span<const std::byte> bytes) {
  if (closed() || write_blocked_) return 0;
  auto written = transport_->write(bytes);
  if (!written) {
    fail(std::move(written).error());
    return 0;
  }
  if (written->status != IoStatus::done) {
    write_blocked_ = true;
    return 0;
  }
  return written->bytes;
}

void StreamDriver::write_best_effort() {
  if (!closed() && !write_blocked_ && !send_queue_.empty()) {
    (void)transport_->write(send_queue_.readable());
  }
}

void StreamDriver::rearm() {
  std::uint32_t events = wants_input() ? std::uint32_t{EPOLLIN} : 0u;
  if (write_blocked_) events |= EPOLLOUT;
  if (unwatched_) {
    if (events != 0 && loop_.watch(transport_->fd(), events, this)) {
      unwatched_ = false;
      watched_events_ = events;
    }
  } else if (events != watched_events_ && loop_.modify(transport_->fd(), events)) {
    watched_events_ = events;
  }
}

void StreamDriver::fail(Error error) {
  close();
  codec_.on_transport_error(std::move(error));
}

void StreamDriver::close() {
  if (closed()) return;
  if (timer_ != 0) loop_.cancel_timer(timer_);
  timer_ = 0;
  if (!unwatched_) loop_.unwatch(transport_->fd());
  transport_.reset();
  // Closed from inside the codec's on_input (a sink cancelling from on_body), the
  // receive is still being parsed: read() frees it once the codec returned.
  if (!in_read_) {
    recv_.clear();
    recv_.release_if_empty();
  }
  send_queue_.clear();
  send_queue_.release_if_empty();
}

std::size_t StreamDriver::release_scratch() {
  const std::size_t transport = transport_ ? transport_->release_buffers() : 0;
  return recv_.release_if_empty() + send_queue_.release_if_empty() + transport;
}

std::size_t StreamDriver::scratch_bytes() const noexcept {
  return (recv_.empty() ? recv_.capacity() : 0) +
         (send_queue_.empty() ? send_queue_.capacity() : 0);
}

}  // namespace sluice
