#pragma once
// StreamCredit: the allowance of one response, the one implementation every HTTP
// version uses (docs/architecture.md, "The allowance"): how many bytes the peer may
// send beyond what the response's reader took. Over HTTP/2 and HTTP/3 it is the
// stream's flow-control window and decides when credit goes back; over HTTP/1.1 it
// is how much the staging buffer takes before the socket stops being read (the
// grants are not sent anywhere: the kernel's TCP window does the rest).
//
//  - Credit follows what the reader takes. On arrival, what the consumer took and
//    was not yet credited goes back once it reaches half the window (an eighth of a
//    window over 4 MiB, whose credit crosses a long path while half remains). A reader's
//    report (it took what was asked, or left Paused) and a stream gone quiet
//    (nothing arrived for `quiet_after` while credit was owed) give back any amount:
//    a server may stop with part of its window unused (it sends only whole units,
//    or waits for a minimum window) and nothing obliges it to use the rest.
//  - The allowance starts small (the request's initial allowance) and grows while
//    the reader keeps up. When the reader took half the window within one and a
//    half "latencies" of its first byte, the window, not the reader, limits the rate
//    or soon will. The latency is the path's round trip where that is 2 ms or more
//    (a sender in slow start fills the window next): the window grows to what the
//    observed rate needs for two round trips (at least double, at most 128 times
//    per step), as Linux's receive autotuning, gRPC's BDP estimator, ngtcp2 and
//    Chromium's QUIC do, each its own way. On a shorter or unknown path the latency
//    is the reader's hand-off (2 ms: a thread woken on a busy machine), and the
//    window doubles per step: a reader that keeps up gets fewer, larger hand-offs,
//    up to what its own rate needs for them, and a reader that took one chunk
//    quickly gains one step, not the maximum. Growth stops at the stream's maximum
//    and the ledger's room. A reader that left bytes waiting on a long path (it held
//    the stream Paused for a quarter of a round trip or more within the window)
//    never grows its window; on a short path the rate alone decides, since there
//    the network outruns any reader and pauses are how it keeps up.
//  - A reader that stays Paused for kForgetAfter (1 s) or more comes back to the
//    initial allowance: what it had granted is withheld from its next credit (the
//    peer's limit never moves back), and the ledger gets the difference at once.
//
// The session applies each CreditGrant through its library (nghttp2's
// WINDOW_UPDATE, ngtcp2's MAX_STREAM_DATA) and arms the consumer's report with
// report_after().
// Ownership: owned by a session's stream record (h2, h3) or by the connection's
// current exchange (h1); HTTP thread only. Time is passed in.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "core/time_source.hpp"

namespace sluice {

/// The windows granted to the streams of one Client, summed, and an optional cap
/// on that sum (ClientOptions::memory.staged_bytes_budget): growth stops at the cap.
/// Ownership: owned by the Client's core; HTTP thread only.
class WindowLedger {
 public:
  /// `limit` 0: no cap.
  explicit WindowLedger(std::uint64_t limit = 0) : limit_(limit) {}
  std::uint64_t granted() const noexcept { return granted_; }
  /// How much more window may be granted in all (UINT64_MAX without a cap).
  std::uint64_t room() const noexcept;
  void add(std::uint64_t n) noexcept { granted_ += n; }
  void remove(std::uint64_t n) noexcept { granted_ -= n < granted_ ? n : granted_; }

 private:
  std::uint64_t limit_;
  std::uint64_t granted_ = 0;
};

/// The window policy's settings, shared by the streams of a connection.
struct WindowPolicy {
  /// A cap on every stream's maximum (tests; the Client leaves it unlimited and each
  /// request brings its own); at or below the initial window nothing grows.
  std::uint64_t max_window = UINT64_MAX;
  /// With credit owed and nothing arriving for this long (or a round trip, if
  /// longer), whatever the reader took goes back, and the reader reports once it
  /// has taken all it holds.
  std::chrono::nanoseconds quiet_after = std::chrono::milliseconds(1);
  /// The Client's sum of windows; null for none (tests).
  WindowLedger* ledger = nullptr;
};

/// Why a stream's credit is looked at.
enum class CreditTrigger {
  arrival,  ///< body bytes arrived: credit at half the window
  reader,   ///< the consumer took bytes (its report, or it left Paused): any amount
  quiet,    ///< quiet_deadline() passed: any amount
};

/// What to hand back to the peer now.
struct CreditGrant {
  /// Window to give back: bytes the consumer took plus the window's growth.
  std::uint64_t bytes = 0;
  /// The window before and after, when it grew (both 0 otherwise).
  std::uint64_t grown_from = 0;
  std::uint64_t grown_to = 0;
  /// The window it was cut back to after a long pause (0 otherwise): its credit is
  /// withheld, so `bytes` already counts the cut.
  std::uint64_t shrunk_to = 0;
  bool resized() const noexcept { return grown_to != 0 || shrunk_to != 0; }
};

class StreamCredit {
 public:
  /// The window starts at `initial` and may grow to min(`max`, policy.max_window).
  StreamCredit(std::uint64_t initial, std::uint64_t max, const WindowPolicy& policy);
  StreamCredit(std::uint64_t initial, const WindowPolicy& policy)
      : StreamCredit(initial, UINT64_MAX, policy) {}
  ~StreamCredit();
  StreamCredit(StreamCredit&& other) noexcept;
  StreamCredit& operator=(StreamCredit&&) = delete;
  StreamCredit(const StreamCredit&) = delete;
  StreamCredit& operator=(const StreamCredit&) = delete;

  std::uint64_t initial() const noexcept { return initial_; }
  std::uint64_t max() const noexcept { return std::min(max_, policy_->max_window); }
  std::uint64_t window() const noexcept { return window_; }
  /// Body bytes delivered to the consumer so far.
  std::uint64_t received() const noexcept { return received_; }
  /// Of those, the bytes whose window went back to the peer.
  std::uint64_t credited() const noexcept { return credited_; }
  bool paused() const noexcept { return paused_; }
  /// When `paused` last turned true.
  TimePoint paused_at() const noexcept { return paused_at_; }

  void on_received(std::uint64_t n, TimePoint now);
  /// The consumer stopped wanting body: true when this turned the stream Paused.
  bool pause_if_unwanted(bool wants_body, TimePoint now);
  /// The consumer wants body again: true when this ended a pause. A pause of
  /// kForgetAfter or more cuts the window back to the initial one (the next
  /// evaluate reports it as CreditGrant::shrunk_to).
  bool resume_if_wanted(bool wants_body, TimePoint now);

  /// What to give back now. `held`: bytes the consumer has not taken (staged or
  /// waiting for a decoder); `may_extend` false: a limit outside the stream holds
  /// all credit back. `rtt`: the connection's path delay (zero: unknown, no growth).
  CreditGrant evaluate(std::uint64_t held, bool may_extend, CreditTrigger why, TimePoint now,
                       std::chrono::nanoseconds rtt);
  /// After an evaluate: how many more bytes the consumer should take before its
  /// report can give anything back (0: no report wanted; a Paused stream resumes
  /// instead).
  std::uint64_t report_after(std::uint64_t held) const noexcept;
  /// When the stream should be evaluated as quiet if nothing arrives; none when no
  /// credit is owed or it is Paused.
  std::optional<TimePoint> quiet_deadline() const noexcept;
  /// The exchange ended: its window leaves the ledger now, although the record may
  /// stay (an HTTP/3 stream lives until its last acknowledgement). No more credit.
  void retire() noexcept;

 private:
  /// How much taken credit is worth an announcement on arrival (and a report).
  static std::uint64_t credit_step(std::uint64_t window) noexcept;
  std::uint64_t grow(std::uint64_t taken, std::uint64_t held, TimePoint now,
                     std::chrono::nanoseconds rtt);
  std::uint64_t grown_window(std::chrono::nanoseconds elapsed, std::chrono::nanoseconds latency,
                             double most) const;
  void start_epoch(std::uint64_t taken, std::uint64_t held, TimePoint now);

  void shrink_to_initial();

  std::uint64_t initial_;
  std::uint64_t max_;
  const WindowPolicy* policy_;
  std::uint64_t window_;
  std::uint64_t received_ = 0;
  std::uint64_t credited_ = 0;
  bool paused_ = false;
  TimePoint paused_at_{};
  TimePoint last_arrival_{};
  bool quiet_armed_ = false;   // bytes arrived since the last quiet evaluation
  bool drain_report_ = false;  // quiet: the consumer reports once it took all it held
  // The growth epoch (half a window): since when, from which count of taken bytes,
  // and how long the reader held the stream Paused meanwhile.
  bool epoch_started_ = false;
  TimePoint epoch_start_{};
  std::uint64_t epoch_taken_ = 0;
  std::chrono::nanoseconds paused_in_epoch_{};  // time spent Paused since epoch_start_
  std::chrono::nanoseconds last_rtt_{};         // the connection's rtt at the last evaluate
  std::uint64_t ledgered_ = 0;                  // this stream's share of the ledger
  std::uint64_t withheld_ = 0;   // credit still to withhold after a cut (see shrink_to_initial)
  std::uint64_t shrunk_to_ = 0;  // a cut not yet reported by evaluate
};

/// A pause this long (the sweep's own threshold) means the reader stopped, not
/// that it was slow for a moment: its allowance goes back to the initial one.
inline constexpr std::chrono::seconds kForgetAfter{1};

/// "256 KiB", "1.5 MiB": a window size for trace lines.
std::string window_text(std::uint64_t bytes);
/// "50.2 ms", "80 us": a round-trip time for trace lines.
std::string rtt_text(std::chrono::nanoseconds rtt);

}  // namespace sluice
