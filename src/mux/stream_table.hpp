#pragma once
// StreamTable: the streams of one multiplexed connection (HTTP/2 or HTTP/3) by id,
// and what either session does with them whatever its library: hand body bytes to
// the sink and see whether its reader keeps up, give credit back by the one window
// policy (mux/stream_credit.hpp), find the streams gone quiet, resume a stream whose
// reader caught up, and sum the windows the connection window follows.
//
// A session keeps only its library's glue and tells the table, through StreamHooks,
// whether its library takes credit for a stream now, the path's round trip, and how
// a grant reaches the peer (nghttp2's WINDOW_UPDATE, ngtcp2's MAX_STREAM_DATA).
//
// A record whose sink is null is an exchange that ended while its stream lives on
// (HTTP/3 keeps it until the QUIC stream is closed both ways): the credit work
// skips it. Sinks may cancel any stream from inside an event, so the table looks a
// stream up again by id after each sink call instead of holding on to it.
// Ownership: a member of its session; HTTP thread only.

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/quiet_queue.hpp"
#include "core/time_source.hpp"
#include "core/trace.hpp"
#include "mux/mux_stream.hpp"
#include "mux/stream_credit.hpp"

namespace sluice {

/// What a session tells its StreamTable. Stream: its record type (a MuxStream with
/// a `stream_id`).
template <class Stream>
class StreamHooks {
 public:
  /// Whether credit can go to the peer for `stream` now (the library is up and the
  /// stream not reset). No evaluation happens otherwise, so none is lost.
  virtual bool can_credit(const Stream& stream) const = 0;
  /// The connection's path delay (zero: unknown, windows do not grow).
  virtual std::chrono::nanoseconds path_rtt() const = 0;
  /// Hands `grant` to the library; `held` is what the consumer has not taken.
  virtual void announce_credit(Stream& stream, const CreditGrant& grant, std::uint64_t held) = 0;

 protected:
  ~StreamHooks() = default;
};

template <class Stream>
class StreamTable {
 public:
  using Id = std::int64_t;
  using Map = std::unordered_map<Id, Stream>;

  StreamTable(StreamHooks<Stream>& hooks, TraceScope trace) : hooks_(hooks), trace_(trace) {}

  // The records.
  template <class... Args>
  Stream& add(Id id, Args&&... args) {
    using StreamId = decltype(Stream::stream_id);
    return map_.try_emplace(id, static_cast<StreamId>(id), std::forward<Args>(args)...)
        .first->second;
  }
  Stream* find(Id id) {
    auto found = map_.find(id);
    return found == map_.end() ? nullptr : &found->second;
  }
  const Stream* find(Id id) const {
    auto found = map_.find(id);
    return found == map_.end() ? nullptr : &found->second;
  }
  /// The record, while its exchange runs.
  Stream* live(Id id) {
    Stream* stream = find(id);
    return stream != nullptr && stream->sink != nullptr ? stream : nullptr;
  }
  void erase(Id id) { map_.erase(id); }
  void clear() { map_.clear(); }
  std::size_t size() const noexcept { return map_.size(); }
  bool empty() const noexcept { return map_.empty(); }
  typename Map::iterator begin() { return map_.begin(); }
  typename Map::iterator end() { return map_.end(); }
  typename Map::const_iterator begin() const { return map_.begin(); }
  typename Map::const_iterator end() const { return map_.end(); }

  // Credit.
  /// Body bytes for a live stream: to its sink, then credit on arrival (or a pause,
  /// if the reader fell its allowance behind).
  void deliver_body(Stream& stream, std::span<const std::byte> bytes, TimePoint now) {
    const Id id = stream.stream_id;
    stream.credit.on_received(bytes.size(), now);
    quiet_.note(id, stream.credit.quiet_deadline());
    stream.sink->on_body(bytes);
    Stream* still = live(id);
    if (still == nullptr) return;
    note_pause(*still, now);
    give_back_credit(*still, CreditTrigger::arrival, now);
  }
  /// The consumer took bytes (it reported, or left Paused).
  void resume(Id id, TimePoint now) {
    Stream* stream = live(id);
    if (stream == nullptr) return;
    if (stream->credit.resume_if_wanted(stream->sink->wants_body(), now) && trace_.on()) {
      trace_.stream(id, "resumed: the reader caught up");
    }
    give_back_credit(*stream, CreditTrigger::reader, now);
  }
  void give_back_credit(Stream& stream, CreditTrigger why, TimePoint now) {
    if (!hooks_.can_credit(stream)) return;
    const std::uint64_t held = stream.sink->held_bytes();
    const CreditGrant grant =
        stream.credit.evaluate(held, stream.sink->may_extend_window(), why, now, hooks_.path_rtt());
    quiet_.note(stream.stream_id, stream.credit.quiet_deadline());  // the rtt may have fallen
    if (grant.bytes > 0 || grant.resized()) hooks_.announce_credit(stream, grant, held);
    if (grant.resized())
      stream.sink->on_allowance(static_cast<std::size_t>(stream.credit.window()));
    stream.sink->report_taken_after(static_cast<std::size_t>(stream.credit.report_after(held)));
  }
  /// Gives back what the consumers of streams gone quiet took (see StreamCredit).
  void on_timer(TimePoint now) {
    // By id: a sink may cancel another stream from inside report_taken_after.
    for (const Id id : quiet_.take_due(now, due_of())) {
      if (Stream* stream = live(id)) give_back_credit(*stream, CreditTrigger::quiet, now);
    }
  }
  /// When on_timer wants to run: a stream gone quiet with credit owed.
  std::optional<TimePoint> next_deadline() const { return quiet_.earliest(due_of()); }
  /// The live streams' windows together.
  std::uint64_t live_windows() const {
    std::uint64_t total = 0;
    for (const auto& entry : map_) {
      if (entry.second.sink != nullptr) total += entry.second.credit.window();
    }
    return total;
  }
  /// Some live stream is not paused (waiting for its head, or taking body bytes), or
  /// paused only after `paused_before`.
  bool receiving_since(TimePoint paused_before) const {
    for (const auto& entry : map_) {
      const Stream& stream = entry.second;
      if (stream.sink == nullptr) continue;
      if (!stream.credit.paused() || stream.credit.paused_at() > paused_before) return true;
    }
    return false;
  }

 private:
  void note_pause(Stream& stream, TimePoint now) {
    if (!stream.credit.pause_if_unwanted(stream.sink->wants_body(), now)) return;
    if (trace_.on()) {
      trace_.stream(stream.stream_id, "paused: the reader is its allowance behind (" +
                                          std::to_string(stream.sink->held_bytes()) +
                                          " bytes held)");
    }
  }
  QuietQueue::DueOf due_of() const {
    return [this](QuietQueue::StreamId id) -> std::optional<TimePoint> {
      const Stream* stream = find(id);
      if (stream == nullptr || stream->sink == nullptr) return std::nullopt;
      return stream->credit.quiet_deadline();
    };
  }

  StreamHooks<Stream>& hooks_;
  TraceScope trace_;
  Map map_;
  // Streams with a quiet deadline; mutable: next_deadline() drops stale entries.
  mutable QuietQueue quiet_;
};

}  // namespace sluice
