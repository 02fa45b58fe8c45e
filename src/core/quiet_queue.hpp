#pragma once
// QuietQueue: which of a session's streams is due to be evaluated as quiet
// (StreamCredit::quiet_deadline), and when the earliest is, without looking at every
// stream on every event. The driver asks for the next deadline after each event; with
// 10,000 streams on one connection a scan per event was the HTTP thread's largest
// cost after copying the bytes (the profile of `sluice-bench held --count 10000`).
//
// The queue is lazy. It keeps, per stream, one entry no later than the stream's
// deadline; the session notes a stream after anything that may have given it a
// deadline or moved it earlier (bytes arrived, a resume, an evaluation, which also
// learns the round trip). A deadline that moved later, or went away (a pause, credit
// given back, the stream gone), is found when its entry reaches the front: it is then
// moved back or dropped. Arrivals, the common event, only move deadlines later, so
// they cost a hash lookup. Entries a stream no longer needs are dropped at the front.
// Ownership: a member of its session; HTTP thread only.

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <unordered_map>
#include <vector>

#include "core/time_source.hpp"

namespace sluice {

class QuietQueue {
 public:
  using StreamId = std::int64_t;
  /// A stream's quiet deadline now; nullopt when it has none or is gone.
  using DueOf = std::function<std::optional<TimePoint>(StreamId)>;

  /// After anything that may have given `id` a deadline or moved it earlier; `due`
  /// is its deadline now.
  void note(StreamId id, std::optional<TimePoint> due);
  /// The earliest deadline among the streams, exact.
  std::optional<TimePoint> earliest(const DueOf& due_of);
  /// The streams due at `now`, earliest first; each leaves the queue until noted again.
  std::vector<StreamId> take_due(TimePoint now, const DueOf& due_of);
  /// Entries queued (tests: stale ones go as they reach the front).
  std::size_t size() const noexcept { return heap_.size(); }

 private:
  struct Entry {
    TimePoint at;
    StreamId id;
    bool operator>(const Entry& other) const noexcept { return at > other.at; }
  };
  // Drops or moves back front entries until the front is a stream's exact deadline.
  void settle_front(const DueOf& due_of);

  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
  std::unordered_map<StreamId, TimePoint> queued_;  // each stream's earliest entry
};

}  // namespace sluice
