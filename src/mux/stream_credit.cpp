// StreamCredit: when a stream's window goes back to the peer and how it grows (see
// stream_credit.hpp).
//
// Ownership: HTTP thread only.

#include "mux/stream_credit.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <utility>

namespace sluice {
namespace {

// Below this round-trip time (loopback, a LAN) a round trip measured by PING is
// mostly the peers' own scheduling (0.2 to 1 ms on a busy loopback): the reader's
// hand-off is the latency the window must cover instead.
constexpr std::chrono::nanoseconds kSmallestPathRtt = std::chrono::milliseconds(2);
// The hand-off latency: how long a reader woken on a busy machine may take to come
// back for more. A window the reader takes half of within 1.5 of these (a rate of a
// window per 3 ms) is the reader's limit on a short path.
constexpr std::chrono::nanoseconds kHandOffLatency = std::chrono::milliseconds(2);
// The observed rate is trusted for at most this factor of growth per step on a long
// path: half a window that arrived within one turn of the loop says only that the
// path is fast.
constexpr double kMaxGrowthPerStep = 128.0;
// On a short path the window doubles per step: the reader earns each step again.
constexpr double kHandOffGrowthPerStep = 2.0;
// Grown windows are rounded up to this, so trace lines and frames carry round sizes.
constexpr std::uint64_t kWindowGranule = 64 * 1024;
// HTTP/2 windows are 31-bit; QUIC's are larger, but no stream needs more.
constexpr std::uint64_t kLargestWindow = (std::uint64_t{1} << 31) - 1;

// Credit goes back in steps of half the window up to this window, and of an eighth
// above it. A server that used the first half of a large window still has the other
// half when the credit for it leaves, but through a long path the credit arrives a
// round trip later: with a window of 2.5 path BDPs (32 MiB at 50 ms) half-window
// steps left nginx waiting for each (64 MiB at 50 ms: 0.6-0.7x curl). Smaller steps
// keep the window's rest in flight; a WINDOW_UPDATE per 512 KiB or more costs nothing.
constexpr std::uint64_t kHalfStepsUpTo = 4u << 20;

std::uint64_t round_up(std::uint64_t bytes) {
  return (bytes + kWindowGranule - 1) / kWindowGranule * kWindowGranule;
}

}  // namespace

std::uint64_t WindowLedger::room() const noexcept {
  if (limit_ == 0) return std::numeric_limits<std::uint64_t>::max();
  return granted_ >= limit_ ? 0 : limit_ - granted_;
}

StreamCredit::StreamCredit(std::uint64_t initial, std::uint64_t max, const WindowPolicy& policy)
    : initial_(std::max<std::uint64_t>(initial, 1)),
      max_(max),
      policy_(&policy),
      window_(initial_) {
  if (policy_->ledger != nullptr) {
    policy_->ledger->add(window_);
    ledgered_ = window_;
  }
}

StreamCredit::~StreamCredit() {
  if (policy_ != nullptr && policy_->ledger != nullptr) policy_->ledger->remove(ledgered_);
}

StreamCredit::StreamCredit(StreamCredit&& other) noexcept
    : initial_(other.initial_),
      max_(other.max_),
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
      last_rtt_(other.last_rtt_),
      ledgered_(other.ledgered_),
      withheld_(other.withheld_),
      shrunk_to_(other.shrunk_to_) {
  other.ledgered_ = 0;  // the share moved with the stream
}

void StreamCredit::on_received(std::uint64_t n, TimePoint now) {
  if (n == 0) return;
  if (!epoch_started_) {
    epoch_started_ = true;
    epoch_start_ = now;
  }
  received_ += n;
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
  if (now - paused_at_ >= kForgetAfter) shrink_to_initial();
  return true;
}

// The peer's limit cannot move back: the cut is withheld from the credit the reader's
// next takes would return, so the peer's room falls to the initial window as the
// reader drains what it holds. The ledger keeps the cut until it is paid: until then
// the server may still send it (a stream paused by the Client's budget can be far
// below its window).
void StreamCredit::shrink_to_initial() {
  if (window_ <= initial_) return;
  withheld_ += window_ - initial_;
  window_ = initial_;
  shrunk_to_ = window_;
  epoch_started_ = false;  // the rate seen before the pause says nothing now
  paused_in_epoch_ = std::chrono::nanoseconds::zero();
}

CreditGrant StreamCredit::evaluate(std::uint64_t held, bool may_extend, CreditTrigger why,
                                   TimePoint now, std::chrono::nanoseconds rtt) {
  last_rtt_ = rtt;
  if (why == CreditTrigger::quiet) quiet_armed_ = false;
  // A drain report stays until the reader took everything held (or bytes arrive): a
  // report with bytes still held must not turn it back into a half-window one, or a
  // server waiting for more window than that would wait forever.
  if (why == CreditTrigger::reader && held == 0) drain_report_ = false;
  CreditGrant grant;
  grant.shrunk_to = std::exchange(shrunk_to_, 0);
  if (!may_extend) return grant;
  // A quiet stream with bytes held: the reader reports once it drained them.
  if (why == CreditTrigger::quiet && held > 0) drain_report_ = true;
  const std::uint64_t outstanding = received_ - credited_;
  std::uint64_t takeable = outstanding > held ? outstanding - held : 0;
  if (withheld_ > 0) {  // a cut window: what the reader takes first pays for the cut
    const std::uint64_t kept = std::min(takeable, withheld_);
    withheld_ -= kept;
    credited_ += kept;
    takeable -= kept;
    if (policy_->ledger != nullptr) {  // paid: the server can no longer send it
      const std::uint64_t share = std::min(kept, ledgered_);
      policy_->ledger->remove(share);
      ledgered_ -= share;
    }
  }
  const std::uint64_t before = window_;
  const std::uint64_t taken = received_ - std::min(held, received_);
  // After a cut the next epoch counts only bytes that arrive from now on: what the
  // reader drains of what waited through its pause is no sign of keeping up.
  if (grant.shrunk_to != 0) {
    epoch_started_ = false;
    epoch_taken_ = received_;
  }
  const std::uint64_t growth = grow(taken, held, now, rtt);
  const bool any_amount = why != CreditTrigger::arrival;
  if (growth == 0 && takeable < credit_step(before) && !(any_amount && takeable > 0)) return grant;
  credited_ += takeable;
  grant.bytes = takeable + growth;
  if (growth > 0) {
    grant.grown_from = before;
    grant.grown_to = window_;
  }
  if (credited_ == received_) quiet_armed_ = false;  // nothing owed
  return grant;
}

// Epochs: half a window at a time (credit goes back in steps of at most half a window, and a
// window-limited server sends each step as a burst). When the reader took half the
// window within one and a half latencies of its first byte (and, on a long path,
// left no bytes waiting), the window held the rate back, or soon would: grow it to
// what the rate seen needs. A sender whose congestion window is still growing (slow
// start) sends half a window per round trip just before it fills the window, and
// RFC 9002 senders stop growing their congestion window while flow control holds
// them back (quic-go stalls for good): the window must stay a step ahead of them, so
// "soon" counts.
std::uint64_t StreamCredit::grow(std::uint64_t taken, std::uint64_t held, TimePoint now,
                                 std::chrono::nanoseconds rtt) {
  if (!epoch_started_ || taken < epoch_taken_ + window_ / 2) return 0;
  const auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(now - epoch_start_);
  const bool long_path = rtt >= kSmallestPathRtt;
  const auto latency = long_path ? rtt : kHandOffLatency;
  // On a long path the reader left bytes waiting if it held the stream Paused for a
  // quarter of a round trip or more in all. A window that lands in one burst reaches
  // the allowance before a prompt reader wakes (the initial window is the first
  // one): that pause is over in microseconds.
  auto paused_for = paused_in_epoch_;
  if (paused_) paused_for += now - std::max(paused_at_, epoch_start_);
  const bool waited = long_path && 4 * paused_for > rtt;
  const bool window_limited = !waited && 2 * elapsed <= 3 * latency;
  // (2 elapsed <= 3 latency: half a window within 1.5 latencies.)
  start_epoch(taken, held, now);
  if (!window_limited) return 0;
  const double most = long_path ? kMaxGrowthPerStep : kHandOffGrowthPerStep;
  const std::uint64_t target =
      std::min({grown_window(elapsed, latency, most), max_, policy_->max_window});
  if (target <= window_) return 0;
  std::uint64_t growth = target - window_;
  if (policy_->ledger != nullptr) growth = std::min(growth, policy_->ledger->room());
  if (growth == 0) return 0;
  window_ += growth;
  if (policy_->ledger != nullptr) {
    policy_->ledger->add(growth);
    ledgered_ += growth;
  }
  return growth;
}

// The window the observed rate needs for two latencies, at least double and at most
// `most` times the window: half a window came in `elapsed`, so two latencies need
// window * latency / elapsed.
std::uint64_t StreamCredit::grown_window(std::chrono::nanoseconds elapsed,
                                         std::chrono::nanoseconds latency, double most) const {
  const double span = static_cast<double>(std::max(elapsed.count(), std::int64_t{1}));
  const double factor = std::clamp(static_cast<double>(latency.count()) / span, 2.0, most);
  const double wanted = static_cast<double>(window_) * factor;
  const double largest = static_cast<double>(kLargestWindow);
  return std::min(round_up(static_cast<std::uint64_t>(std::min(wanted, largest))), kLargestWindow);
}

// The next half window counts from its first byte: a window-limited server sends it
// as a burst when credit reaches it, and the time from that burst's first byte to
// the reader taking its last is what the path carries it in. Bytes still held now
// arrived earlier, so with some held it counts from now instead.
void StreamCredit::start_epoch(std::uint64_t taken, std::uint64_t held, TimePoint now) {
  epoch_started_ = held > 0;
  epoch_start_ = now;
  epoch_taken_ = taken;
  paused_in_epoch_ = std::chrono::nanoseconds::zero();
}

std::uint64_t StreamCredit::credit_step(std::uint64_t window) noexcept {
  return window <= kHalfStepsUpTo ? window / 2 : window / 8;
}

std::uint64_t StreamCredit::report_after(std::uint64_t held) const noexcept {
  if (paused_) return 0;
  const std::uint64_t outstanding = received_ - credited_;
  const std::uint64_t pending = outstanding > held ? outstanding - held : 0;
  const std::uint64_t step = credit_step(window_);
  std::uint64_t after = step > pending ? step - pending : 1;
  if (drain_report_) after = std::min(after, std::max<std::uint64_t>(held, 1));
  return after;
}

std::optional<TimePoint> StreamCredit::quiet_deadline() const noexcept {
  if (!quiet_armed_ || paused_ || policy_->quiet_after <= std::chrono::nanoseconds::zero()) {
    return std::nullopt;
  }
  // At least a round trip: on a slow path packets come further apart than a
  // millisecond, and a gap between them is not a server waiting for window.
  const auto quiet = std::max(policy_->quiet_after, last_rtt_);
  return last_arrival_ + std::chrono::duration_cast<TimePoint::duration>(quiet);
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
