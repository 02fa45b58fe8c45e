#pragma once
// StreamCredit: the receive side of one HTTP/2 or HTTP/3 stream's flow control, the
// one implementation both sessions use (docs/architecture.md, "The window policy").
// Flow control is the backpressure: the peer may send at most `window` bytes beyond
// what the stream's consumer took, so a held stream costs its window.
//
//  - Credit follows what the reader takes. On arrival, what the consumer took and
//    was not yet credited goes back once it reaches half the window. A reader's
//    report (it took what was asked, or left Paused) and a stream gone quiet
//    (nothing arrived for `quiet_after` while credit was owed) give back any amount:
//    a server may stop with part of its window unused (it sends only whole units,
//    or waits for a minimum window) and nothing obliges it to use the rest.
//  - The window adapts to the path. It starts at the stream's mark. When the reader
//    took half the window within one and a half round trips of its first byte, the
//    window, not the reader, limits the rate or soon will (a sender in slow start
//    fills it next): it grows to what the observed rate needs for two round trips
//    (at least double, at most 128 times per step), up to the policy's max_window
//    and the ledger's room. A window-limited
//    server sends each half-window of credit as a burst when it reaches it, so on a
//    fast path the first grown window is already near what the path needs, and the
//    window settles near three times what the slower of the path and the reader
//    carries in a round trip (as Linux's receive autotuning, gRPC's BDP estimator, ngtcp2
//    and Chromium's QUIC do, each its own way). A reader
//    that leaves bytes waiting never grows its window: one that held the stream
//    Paused for a quarter of a round trip or more within the window. (A window that
//    lands in one burst touches the mark for an instant before a prompt reader
//    wakes; that is not waiting.) Below 2 ms of round trip (loopback, a LAN) windows
//    stay at the mark: 256 KiB per 2 ms is already over 100 MiB/s, and a PING's
//    round trip there is mostly the peers' own scheduling.
//
// The session applies each CreditGrant through its library (nghttp2's
// WINDOW_UPDATE, ngtcp2's MAX_STREAM_DATA) and arms the consumer's report with
// report_after().
// Ownership: owned by a session's stream record; HTTP thread only. Time is passed in.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "io/time_source.hpp"

namespace sluice {

/// The windows granted to the streams of one Client, summed, and an optional cap
/// on that sum (ClientOptions::staged_bytes_budget): growth stops at the cap.
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
  /// The largest window a stream may grow to; at or below its mark it never grows.
  std::uint64_t max_window = 0;
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
};

class StreamCredit {
 public:
  StreamCredit(std::uint64_t mark, const WindowPolicy& policy);
  ~StreamCredit();
  StreamCredit(StreamCredit&& other) noexcept;
  StreamCredit& operator=(StreamCredit&&) = delete;
  StreamCredit(const StreamCredit&) = delete;
  StreamCredit& operator=(const StreamCredit&) = delete;

  std::uint64_t mark() const noexcept { return mark_; }
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
  /// The consumer wants body again: true when this ended a pause.
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
  std::uint64_t grow(std::uint64_t taken, std::uint64_t held, TimePoint now,
                     std::chrono::nanoseconds rtt);
  std::uint64_t grown_window(std::chrono::nanoseconds elapsed, std::chrono::nanoseconds rtt) const;
  void start_epoch(std::uint64_t taken, std::uint64_t held, TimePoint now);

  std::uint64_t mark_;
  const WindowPolicy* policy_;
  std::uint64_t window_;
  std::uint64_t received_ = 0;
  std::uint64_t credited_ = 0;
  bool paused_ = false;
  TimePoint paused_at_{};
  TimePoint last_arrival_{};
  bool quiet_armed_ = false;    // bytes arrived since the last quiet evaluation
  bool drain_report_ = false;   // quiet: the consumer reports once it took all it held
  // The growth epoch (half a window): since when, from which count of taken bytes,
  // and how long the reader held the stream Paused meanwhile.
  bool epoch_started_ = false;
  TimePoint epoch_start_{};
  std::uint64_t epoch_taken_ = 0;
  std::chrono::nanoseconds paused_in_epoch_{};  // time spent Paused since epoch_start_
  std::chrono::nanoseconds last_rtt_{};  // the connection's rtt at the last evaluate
  std::uint64_t ledgered_ = 0;  // this stream's share of the ledger
};

/// "256 KiB", "1.5 MiB": a window size for trace lines.
std::string window_text(std::uint64_t bytes);
/// "50.2 ms", "80 us": a round-trip time for trace lines.
std::string rtt_text(std::chrono::nanoseconds rtt);

}  // namespace sluice
