#pragma once
// What the h2_session and h3 targets share: an ExchangeSink that checks the seam's
// contract while it plays a consumer that holds and takes bytes (like the staging
// buffer), a fixed request body, and the consumer actions the input chooses.
//
// Ownership: built per fuzz run on the fuzzer's thread (playing the HTTP thread);
// the session under test borrows the sinks and bodies for the run.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "connection/connection.hpp"
#include "connection/exchange.hpp"
#include "core/time_source.hpp"
#include "fuzz_input.hpp"
#include "sluice/error.hpp"

namespace sluice::fuzz {

/// The sessions' time: it moves only when an input's action says, so a run is
/// deterministic and quiet periods (the window policy's timer) still happen.
class FuzzClock final : public TimeSource {
 public:
  TimePoint now() const noexcept override { return now_; }
  void advance(std::chrono::milliseconds by) { now_ += by; }

 private:
  TimePoint now_{std::chrono::hours(1)};
};

/// Checks every event against the seam's contract (ReceivedHead once, then body,
/// then trailers at most once, then exactly one end, and nothing at all once the
/// exchange was cancelled or ended). Holds received bytes when told to, pausing at
/// the mark, and reports when a take() should post a resume, as the staging buffer
/// does at half the mark.
class CheckingSink final : public ExchangeSink {
 public:
  explicit CheckingSink(std::size_t mark) : mark_(mark) {}

  void on_response_head(ReceivedHead head) override {
    check_open();
    check(!head_, "one response head per exchange");
    check(head.status >= 200 && head.status <= 999, "a final head's status is 200..999");
    if (debug_on())
      std::fprintf(stderr, "fuzz: %p head %d\n", static_cast<void*>(this), head.status);
    head_ = true;
  }
  void on_body(std::span<const std::byte> bytes) override {
    check_open();
    check(head_ && !trailers_, "body bytes come after the head and before trailers");
    if (debug_on())
      std::fprintf(stderr, "fuzz: %p body %zu\n", static_cast<void*>(this), bytes.size());
    if (holding_) held_ += bytes.size();
    if (held_ >= mark_) paused_ = true;
  }
  void on_trailers(Headers) override {
    check_open();
    check(head_ && !trailers_, "trailers come once, after the head");
    if (debug_on()) std::fprintf(stderr, "fuzz: %p trailers\n", static_cast<void*>(this));
    trailers_ = true;
  }
  void on_complete() override {
    check_open();
    check(head_, "an exchange completes only after its head");
    if (debug_on()) std::fprintf(stderr, "fuzz: %p complete\n", static_cast<void*>(this));
    ended_ = true;
  }
  void on_error(Error error) override {
    check_open();
    check(!error.message().empty(), "an exchange error says why");
    if (debug_on()) {
      std::fprintf(stderr, "fuzz: %p error: %s\n", static_cast<void*>(this),
                   error.message().c_str());
    }
    ended_ = true;
  }
  bool wants_body() const override { return !paused_; }
  std::size_t held_bytes() const override { return held_; }

  /// From now on bytes stay held until take().
  void hold() { holding_ = true; }
  /// The consumer takes up to `n` held bytes; true when it should post a resume.
  bool take(std::size_t n) {
    held_ -= std::min(n, held_);
    if (!paused_ || held_ >= mark_ / 2) return false;
    paused_ = false;
    return true;
  }
  /// The exchange was cancelled: no event may follow.
  void cancelled() { cancelled_ = true; }
  bool ended() const noexcept { return ended_ || cancelled_; }

 private:
  void check_open() {
    check(!cancelled_, "no event reaches a cancelled exchange");
    check(!ended_, "no event follows an exchange's end");
  }

  std::size_t mark_;
  std::size_t held_ = 0;
  bool holding_ = false;
  bool paused_ = false;
  bool head_ = false;
  bool trailers_ = false;
  bool ended_ = false;
  bool cancelled_ = false;
};

/// A request body of `size` bytes of 'b', all available at once.
class FixedBody final : public RequestBodySource {
 public:
  explicit FixedBody(std::size_t size) : data_(size, 'b') {}
  std::optional<std::uint64_t> length() const override { return data_.size(); }
  SourceChunk peek(std::size_t max) override {
    if (offset_ == data_.size()) return SourceChunk{SourceChunk::State::end, {}, {}};
    const std::size_t n = std::min(max, data_.size() - offset_);
    return SourceChunk{
        SourceChunk::State::data, bytes_of(std::string_view(data_).substr(offset_, n)), {}};
  }
  void consume(std::size_t n) override {
    check(n <= data_.size() - offset_, "the transport consumes only what it peeked");
    offset_ += n;
  }
  void set_waker(std::function<void()>) override {}
  bool rewind() override {
    offset_ = 0;
    return true;
  }
  std::size_t held_bytes() const override { return data_.size(); }

 private:
  std::string data_;
  std::size_t offset_ = 0;
};

/// What the consumer does after a piece of server bytes, chosen by one input byte:
/// bits 0-1 pick the exchange, bits 2-4 the action. `extra` is a PING over h2 and
/// the sweep's release_scratch over h3; `close` is terminate() over h2 and fail_all()
/// over h3.
struct ConsumerAction {
  enum class Kind { none, hold, take_all, take_half, cancel, extra, submit, close };
  Kind kind = Kind::none;
  std::size_t exchange = 0;

  static ConsumerAction from(std::uint8_t byte) {
    return {static_cast<Kind>((byte >> 2) & 7), std::size_t{byte} & 3};
  }
};

/// Reads "count (% 8), then count action bytes" from `input`.
inline std::vector<ConsumerAction> read_actions(FuzzInput& input) {
  std::vector<ConsumerAction> actions(input.byte() % 8);
  for (auto& action : actions) action = ConsumerAction::from(input.byte());
  return actions;
}

}  // namespace sluice::fuzz
