// Transfer, its timers: the total, connect, first-byte and idle timeouts, and the
// errors each gives, which name what did not come and from where.
// Thread-safety: HTTP thread only, like all of Transfer.

#include <string>

#include "client/transfer.hpp"

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
    // Waits that are ours: a reader holding the body (or one whose take ended a hold
    // since the last look, its resume still on the way here), a decoder behind, a
    // request body producer with nothing yet.
    const bool hold_ended = self.hold_ended_unheard();
    const bool our_wait =
        self.paused() || hold_ended || self.waits_for_budget() || !self.compressed_body_.empty() ||
        (self.phase_ == Phase::waiting_head && self.body_ && self.body_->waiting_for_producer());
    if (our_wait) self.last_activity_ = now;
    if (now - self.last_activity_ >= idle) {
      self.fail(self.idle_error(idle));
      return;
    }
    self.arm_idle_timer();
  });
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
