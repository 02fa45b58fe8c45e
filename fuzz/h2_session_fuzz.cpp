// Fuzz target: H2Session (src/http2, nghttp2 inside), sans-IO, fed arbitrary server
// bytes after a valid server preface (SETTINGS, then the ACK of ours), while its
// consumers hold, take and cancel like real readers do.
// Input: a config byte (bits 0-1: 1-4 requests on streams 1, 3, 5, 7; bit 2: the
// first is a POST with a 70000-byte body, more than the initial window; bits 3-4:
// the staging mark, 1 KiB, 16 KiB, 64 KiB or 256 KiB; bit 5: a 4 KiB initial stream
// window instead of 64 KiB), the consumer actions (fuzz_exchange.hpp: a count, then
// one byte each, applied in turn after each piece), the split header of
// fuzz_input.hpp, and the server's bytes (frames after the preface).
// Invariants checked: feed() takes all it is given or fails; a failure of feed or
// drain_output has ended every exchange already; each exchange gets its events in
// order and ends exactly once (fail_all at the end), never after a cancel.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <string_view>
#include <vector>

#include "core/byte_queue.hpp"
#include "core/trace.hpp"
#include "fuzz_exchange.hpp"
#include "fuzz_input.hpp"
#include "http2/h2_session.hpp"

namespace {

using sluice::fuzz::check;
using sluice::fuzz::CheckingSink;
using sluice::fuzz::ConsumerAction;

// SETTINGS with no entries (the server preface), then SETTINGS with ACK.
constexpr std::string_view kServerPreface{
    "\x00\x00\x00\x04\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x04\x01\x00\x00\x00\x00",
    18};
constexpr std::size_t kMarks[] = {1024, 16 * 1024, 65535, 256 * 1024};
constexpr std::size_t kMaxExchanges = 8;

struct Exchange {
  sluice::ExchangeRequest request;
  std::unique_ptr<CheckingSink> sink;
  std::int32_t stream_id = 0;
};

class Run {
 public:
  Run(std::uint8_t config, const sluice::Trace& trace)
      : session_([] {}, trace, 1, clock_, options_for(config)), mark_(kMarks[(config >> 3) & 3]) {}

  bool start(std::uint8_t config) {
    if (!session_.status()) return false;
    const std::size_t requests = (config & 3) + 1;
    for (std::size_t i = 0; i < requests; ++i) submit(i == 0 && (config & 4) != 0);
    return drain() && deliver(kServerPreface);
  }

  // Server bytes in, then whatever the session has to send out. False once the
  // connection is dead.
  bool deliver(std::string_view bytes) {
    auto fed = session_.feed(sluice::fuzz::bytes_of(bytes));
    if (!fed) {
      note_error(fed.error());
      check_all_ended("a feed error has ended every exchange");
      return false;
    }
    check(*fed == bytes.size(), "feed takes all it is given or fails");
    return drain();
  }

  bool act(const ConsumerAction& action);

  // The transport closes: every exchange must have ended.
  void close() {
    session_.fail_all(sluice::Error(sluice::ErrorCategory::protocol, "fuzz: connection closed"));
    check_all_ended("fail_all ends every exchange");
  }

 private:
  static sluice::H2SessionOptions options_for(std::uint8_t config) {
    sluice::H2SessionOptions options;
    if ((config & 0x20) != 0) options.stream_window = 4096;
    return options;
  }

  void submit(bool with_body) {
    auto& exchange = exchanges_.emplace_back();
    exchange.request.method = with_body ? "POST" : "GET";
    exchange.request.scheme = "https";
    exchange.request.authority = "fuzz.example";
    exchange.request.target = "/";
    exchange.request.allowance = {mark_, mark_};
    if (with_body) exchange.request.body = &body_;
    exchange.sink = std::make_unique<CheckingSink>(mark_);
    auto stream_id = session_.submit(exchange.request, *exchange.sink);
    if (!stream_id) {
      exchanges_.pop_back();
      return;
    }
    exchange.stream_id = *stream_id;
  }

  bool drain() {
    for (int round = 0; round < 64; ++round) {
      sluice::ByteQueue out;
      auto drained = session_.drain_output(out);
      if (!drained) {
        note_error(drained.error());
        check_all_ended("a drain_output error has ended every exchange");
        return false;
      }
      if (out.empty()) return true;
    }
    return true;
  }

  static void note_error(const sluice::Error& error) {
    if (sluice::fuzz::debug_on())
      std::fprintf(stderr, "fuzz: session: %s\n", error.message().c_str());
  }

  void check_all_ended(const char* what) {
    for (const auto& exchange : exchanges_) check(exchange.sink->ended(), what);
  }

  // Declared before the session, so the session goes first.
  sluice::fuzz::FuzzClock clock_;
  sluice::fuzz::FixedBody body_{70000};
  std::deque<Exchange> exchanges_;
  sluice::H2Session session_;
  std::size_t mark_;
};

bool Run::act(const ConsumerAction& action) {
  using Kind = ConsumerAction::Kind;
  if (exchanges_.empty()) return true;
  Exchange& exchange = exchanges_[action.exchange % exchanges_.size()];
  CheckingSink& sink = *exchange.sink;
  switch (action.kind) {
    case Kind::none: break;
    case Kind::hold: sink.hold(); break;
    case Kind::take_all:
    case Kind::take_half: {
      const std::size_t n = action.kind == Kind::take_all ? SIZE_MAX : sink.held_bytes() / 2;
      if (sink.take(n) && !sink.ended()) session_.resume_stream(exchange.stream_id);
      break;
    }
    case Kind::cancel:
      if (!sink.ended()) {
        sink.cancelled();
        session_.cancel_stream(exchange.stream_id);
      }
      break;
    case Kind::extra:  // a PING, and time passing: streams gone quiet give credit back
      (void)session_.send_ping();
      clock_.advance(std::chrono::milliseconds(5));
      session_.on_timer();
      break;
    case Kind::submit:
      if (exchanges_.size() < kMaxExchanges && session_.available_streams() > 0) submit(false);
      break;
    case Kind::close: session_.terminate(NGHTTP2_NO_ERROR); break;
  }
  return drain();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sluice::fuzz::FuzzInput input(data, size);
  const std::uint8_t config = input.byte();
  const auto actions = sluice::fuzz::read_actions(input);
  const auto pieces = sluice::fuzz::split_pieces(input);
  const sluice::Trace trace;  // off: lines are built only when on
  Run run(config, trace);
  if (!run.start(config)) return 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (!run.deliver(pieces[i])) return 0;
    if (!actions.empty() && !run.act(actions[i % actions.size()])) return 0;
  }
  run.close();
  return 0;
}
