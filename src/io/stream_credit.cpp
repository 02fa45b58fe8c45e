// StreamCredit: when a stream's window goes back to the peer and how it grows (see
// stream_credit.hpp).
//
// Ownership: HTTP thread only.

#include "io/stream_credit.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace sluice {
namespace {

// A window took this many round trips or less: the window, not the reader, set the
// rate (a window-limited sender delivers one window per round trip; two leaves room
// for the reader's own hand-offs). ngtcp2 and Chromium's QUIC use the same factor.
constexpr int kWindowLimitedRtts = 2;
// The observed rate is trusted for at most this factor of growth per step: a window
// that arrived in one burst says little about how much faster the path could go.
constexpr double kMaxGrowthPerStep = 32.0;
// Grown windows are rounded up to this, so trace lines and frames carry round sizes.
constexpr std::uint64_t kWindowGranule = 64 * 1024;
// HTTP/2 windows are 31-bit; QUIC's are larger, but no stream needs more.
constexpr std::uint64_t kLargestWindow = (std::uint64_t{1} << 31) - 1;

std::uint64_t round_up(std::uint64_t bytes) {
  return (bytes + kWindowGranule - 1) / kWindowGranule * kWindowGranule;
}

}  // namespace

std::uint64_t WindowLedger::room() const noexcept {
  if (limit_ == 0) return std::numeric_limits<std::uint64_t>::max();
  return granted_ >= limit_ ? 0 : limit_ - granted_;
}

StreamCredit::StreamCredit(std::uint64_t mark, const WindowPolicy& policy)
    : mark_(std::max<std::uint64_t>(mark, 1)), policy_(&policy), window_(mark_) {
  if (policy_->ledger != nullptr) {
    policy_->ledger->add(window_);
    ledgered_ = window_;
  }
}

StreamCredit::~StreamCredit() {
  if (policy_ != nullptr && policy_->ledger != nullptr) policy_->ledger->remove(ledgered_);
}

StreamCredit::StreamCredit(StreamCredit&& other) noexcept
    : mark_(other.mark_),
      policy_(other.policy_),
      window_(other.window_),
      received_(other.received_),
      credited_(other.credited_),
      paused_(other.paused_),
      paused_at_(other.paused_at_),
      last_arrival_(other.last_arrival_),
      quiet_armed_(other.quiet_armed_),
      drain_report_(other.drain_report_),
      epoch_started_(other.epoch_started_),
      epoch_start_(other.epoch_start_),
      epoch_taken_(other.epoch_taken_),
      paused_in_epoch_(other.paused_in_epoch_),
      ran_out_in_epoch_(other.ran_out_in_epoch_),
      ledgered_(other.ledgered_) {
  other.ledgered_ = 0;  // the share moved with the stream
}

void StreamCredit::on_received(std::uint64_t n, TimePoint now) {
  if (n == 0) return;
  if (!epoch_started_) {
    epoch_started_ = true;
    epoch_start_ = now;
  }
  received_ += n;
  // What the server may still send: a server that keeps sending while it has more
  // than a quarter of the window is not held back by it.
  const std::uint64_t outstanding = received_ - credited_;
  if (outstanding + window_ / 4 >= window_) ran_out_in_epoch_ = true;
  last_arrival_ = now;
  quiet_armed_ = true;
  drain_report_ = false;  // bytes flow again: the ordinary threshold applies
}

bool StreamCredit::pause_if_unwanted(bool wants_body, TimePoint now) {
  if (paused_ || wants_body) return false;
  paused_ = true;
  paused_at_ = now;
  return true;
}

bool StreamCredit::resume_if_wanted(bool wants_body, TimePoint now) {
  if (!paused_ || !wants_body) return false;
  paused_ = false;
  const TimePoint since = std::max(paused_at_, epoch_start_);
  if (now > since) paused_in_epoch_ += now - since;
  return true;
}

CreditGrant StreamCredit::evaluate(std::uint64_t held, bool may_extend, CreditTrigger why,
                                   TimePoint now, std::chrono::nanoseconds rtt) {
  if (why == CreditTrigger::quiet) quiet_armed_ = false;
  if (why == CreditTrigger::reader) drain_report_ = false;
  CreditGrant grant;
  if (!may_extend) return grant;
  const std::uint64_t outstanding = received_ - credited_;
  const std::uint64_t takeable = outstanding > held ? outstanding - held : 0;
  const std::uint64_t before = window_;
  const std::uint64_t growth = grow(received_ - std::min(held, received_), now, rtt);
  const bool any_amount = why != CreditTrigger::arrival;
  if (growth == 0 && takeable < before / 2 && !(any_amount && takeable > 0)) {
    if (why == CreditTrigger::quiet && held > 0) drain_report_ = true;
    return grant;
  }
  credited_ += takeable;
  grant.bytes = takeable + growth;
  if (growth > 0) {
    grant.grown_from = before;
    grant.grown_to = window_;
  }
  if (why == CreditTrigger::quiet && held > 0) drain_report_ = true;
  if (credited_ == received_) quiet_armed_ = false;  // nothing owed
  return grant;
}

// Epochs: the reader took a whole window since the epoch began. If that took at most
// two round trips, the reader left no bytes waiting and the server ran out of window
// meanwhile, the window held the rate back: grow it.
std::uint64_t StreamCredit::grow(std::uint64_t taken, TimePoint now, std::chrono::nanoseconds rtt) {
  if (!epoch_started_ || taken < epoch_taken_ + window_) return 0;
  const auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(now - epoch_start_);
  const bool waited = paused_ || paused_in_epoch_ > rtt;  // the reader left bytes waiting
  const bool window_limited = ran_out_in_epoch_ && !waited &&
                              rtt > std::chrono::nanoseconds::zero() &&
                              elapsed <= kWindowLimitedRtts * rtt;
  start_epoch(taken, now);
  if (!window_limited) return 0;
  std::uint64_t target = std::min(grown_window(elapsed, rtt), policy_->max_window);
  if (policy_->ledger != nullptr) {
    target = std::min(target, window_ + policy_->ledger->room());
  }
  if (target <= window_) return 0;
  const std::uint64_t growth = target - window_;
  window_ = target;
  if (policy_->ledger != nullptr) {
    policy_->ledger->add(growth);
    ledgered_ += growth;
  }
  return growth;
}

// The window the observed rate needs for two round trips, at least double: the rate
// is window / elapsed, so the window it needs is window * 2 rtt / elapsed.
std::uint64_t StreamCredit::grown_window(std::chrono::nanoseconds elapsed,
                                         std::chrono::nanoseconds rtt) const {
  const double span = static_cast<double>(std::max(elapsed.count(), std::int64_t{1}));
  double factor = kWindowLimitedRtts * static_cast<double>(rtt.count()) / span;
  factor = std::clamp(factor, 2.0, kMaxGrowthPerStep);
  const double wanted = static_cast<double>(window_) * factor;
  const double largest = static_cast<double>(kLargestWindow);
  return std::min(round_up(static_cast<std::uint64_t>(std::min(wanted, largest))), kLargestWindow);
}

void StreamCredit::start_epoch(std::uint64_t taken, TimePoint now) {
  epoch_start_ = now;
  epoch_taken_ = taken;
  paused_in_epoch_ = std::chrono::nanoseconds::zero();
  ran_out_in_epoch_ = false;
}

std::uint64_t StreamCredit::report_after(std::uint64_t held) const noexcept {
  if (paused_) return 0;
  const std::uint64_t outstanding = received_ - credited_;
  const std::uint64_t pending = outstanding > held ? outstanding - held : 0;
  std::uint64_t after = window_ / 2 > pending ? window_ / 2 - pending : 1;
  if (drain_report_) after = std::min(after, std::max<std::uint64_t>(held, 1));
  return after;
}

std::optional<TimePoint> StreamCredit::quiet_deadline() const noexcept {
  if (!quiet_armed_ || paused_ || policy_->quiet_after <= std::chrono::nanoseconds::zero()) {
    return std::nullopt;
  }
  return last_arrival_ + std::chrono::duration_cast<TimePoint::duration>(policy_->quiet_after);
}

void StreamCredit::retire() noexcept {
  if (policy_->ledger != nullptr) policy_->ledger->remove(ledgered_);
  ledgered_ = 0;
  quiet_armed_ = false;
}

std::string window_text(std::uint64_t bytes) {
  char text[32];
  if (bytes >= 1024 * 1024) {
    const double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
    std::snprintf(text, sizeof text, bytes % (1024 * 1024) == 0 ? "%.0f MiB" : "%.1f MiB", mib);
  } else if (bytes >= 1024 && bytes % 1024 == 0) {
    std::snprintf(text, sizeof text, "%llu KiB", static_cast<unsigned long long>(bytes / 1024));
  } else {
    std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
  }
  return text;
}

std::string rtt_text(std::chrono::nanoseconds rtt) {
  char text[32];
  const double ms = static_cast<double>(rtt.count()) / 1e6;
  if (ms >= 1.0) {
    std::snprintf(text, sizeof text, "%.1f ms", ms);
  } else {
    std::snprintf(text, sizeof text, "%.0f us", ms * 1000.0);
  }
  return text;
}

}  // namespace sluice
