// Transfer, its timers: the total, connect, first-byte and idle timeouts and the
// low-speed check, and the errors each gives, which name what did not come and from
// where.
// Thread-safety: HTTP thread only, like all of Transfer.

#include <string>
#include <utility>

#include "client/fetch/transfer.hpp"

namespace sluice {

namespace {

std::string millis(std::chrono::milliseconds ms) { return std::to_string(ms.count()) + " ms"; }

}  // namespace

Error Transfer::total_timeout_error() const {
  return Error(ErrorCode::total_timeout, "transfer did not complete within " +
                                             millis(request_.timeouts.total) + " (total timeout)");
}

Error Transfer::connect_timeout_error() const {
  const char* what = request_.version == VersionPolicy::http3_only
                         ? "connect: no HTTP/3 (QUIC) connection to "
                         : "connect: no connection (or free stream) to ";
  return Error(ErrorCode::connect_timeout,
               what + hops_.url().authority() + " within " + millis(request_.timeouts.connect));
}

Error Transfer::first_byte_timeout_error() const {
  return Error(ErrorCode::first_byte_timeout, "no response headers from " +
                                                  hops_.url().authority() + " within " +
                                                  millis(request_.timeouts.first_byte));
}

void Transfer::arm_timer_at(EventLoop::TimerId& id, TimePoint at,
                            std::function<void(Transfer&)> then) {
  cancel_timer(id);
  std::weak_ptr<Transfer> weak = weak_from_this();
  id = services_.loop.add_timer(at, [weak, &id, then = std::move(then)] {
    if (auto self = weak.lock()) {
      id = 0;
      then(*self);
    }
  });
}

void Transfer::arm_timer(EventLoop::TimerId& id, std::chrono::milliseconds after,
                         TimeoutError make_error) {
  arm_timer_at(id, services_.loop.now() + after,
               [make_error](Transfer& self) { self.fail((self.*make_error)()); });
}

// The idle timeout counts only time the server is expected to send: while the reader
// holds the stream paused, silence is ours, not the server's.
void Transfer::arm_idle_timer() {
  const auto idle = request_.timeouts.idle;
  if (idle.count() <= 0) return;
  arm_timer_at(idle_timer_, last_activity_ + idle, [idle](Transfer& self) {
    if (self.phase_ != Phase::body && self.phase_ != Phase::waiting_head &&
        self.phase_ != Phase::redirect_body) {
      return;
    }
    const TimePoint now = self.services_.loop.now();
    if (self.wait_is_ours(self.hold_ended_unheard())) self.last_activity_ = now;
    if (now - self.last_activity_ >= idle) {
      self.fail(self.idle_error(idle));
      return;
    }
    self.arm_idle_timer();
  });
}

// Waits that are ours: a reader holding the body (or one whose take ended a hold since
// the caller's last look, its resume still on the way here), a decoder behind, a
// request body producer with nothing yet.
bool Transfer::wait_is_ours(bool hold_ended) const {
  return paused() || hold_ended || waits_for_budget() || decoding_.pending() > 0 ||
         (phase_ == Phase::waiting_head && body_ && body_->waiting_for_producer());
}

void Transfer::start_low_speed_check() {
  const LowSpeedLimit& limit = services_.options.low_speed;
  if (limit.bytes_per_second == 0 || limit.time.count() <= 0 || low_speed_) return;
  low_speed_.emplace(limit, services_.loop.now());
  if (staging_) low_speed_pauses_seen_ = staging_->pauses_ended();
  arm_low_speed_timer();
}

// Once a second, as curl checks: a sample of the bytes moved so far.
void Transfer::arm_low_speed_timer() {
  arm_timer_at(low_speed_timer_, services_.loop.now() + std::chrono::seconds(1),
               [](Transfer& self) { self.sample_low_speed(); });
}

// The check keeps its own count of ended holds, so that it takes nothing from the
// idle timer's.
void Transfer::sample_low_speed() {
  if (phase_ == Phase::finished) return;
  const std::uint64_t ended = staging_ ? staging_->pauses_ended() : 0;
  const bool hold_ended = std::exchange(low_speed_pauses_seen_, ended) != ended;
  if (!low_speed_->too_slow(services_.loop.now(), moved_, wait_is_ours(hold_ended))) {
    arm_low_speed_timer();
    return;
  }
  const LowSpeedLimit& limit = services_.options.low_speed;
  fail(Error(ErrorCode::low_speed,
             "operation too slow: less than " + std::to_string(limit.bytes_per_second) +
                 " bytes/sec transferred the last " + std::to_string(limit.time.count()) +
                 " seconds (from " + hops_.url().authority() + ")"));
}

Error Transfer::idle_error(std::chrono::milliseconds idle) const {
  const std::string host = hops_.url().authority();
  if (phase_ == Phase::waiting_head && body_) {
    return Error(ErrorCode::idle_timeout, "idle timeout: " + host +
                                              " neither read the request body nor answered for " +
                                              millis(idle));
  }
  if (phase_ == Phase::waiting_head) {
    return Error(ErrorCode::idle_timeout,
                 "idle timeout: no response from " + host + " for " + millis(idle));
  }
  return Error(ErrorCode::idle_timeout,
               "idle timeout: no data from " + host + " for " + millis(idle));
}

void Transfer::cancel_timer(EventLoop::TimerId& id) {
  if (id != 0) services_.loop.cancel_timer(id);
  id = 0;
}

}  // namespace sluice
