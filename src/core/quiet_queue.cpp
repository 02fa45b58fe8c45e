#include "core/quiet_queue.hpp"

namespace sluice {

void QuietQueue::note(StreamId id, std::optional<TimePoint> due) {
  if (!due) return;  // none now: an entry it still has is dropped at the front
  const auto found = queued_.find(id);
  if (found != queued_.end() && found->second <= *due) return;  // that entry comes first
  heap_.push(Entry{*due, id});
  queued_[id] = *due;
}

void QuietQueue::settle_front(const DueOf& due_of) {
  while (!heap_.empty()) {
    const Entry front = heap_.top();
    const auto found = queued_.find(front.id);
    if (found == queued_.end() || found->second != front.at) {
      heap_.pop();  // superseded by an earlier entry of the same stream, or taken
      continue;
    }
    const std::optional<TimePoint> due = due_of(front.id);
    if (due && *due == front.at) return;
    heap_.pop();
    if (due) {
      heap_.push(Entry{*due, front.id});
      found->second = *due;
    } else {
      queued_.erase(found);
    }
  }
}

std::optional<TimePoint> QuietQueue::earliest(const DueOf& due_of) {
  settle_front(due_of);
  if (heap_.empty()) return std::nullopt;
  return heap_.top().at;
}

std::vector<QuietQueue::StreamId> QuietQueue::take_due(TimePoint now, const DueOf& due_of) {
  std::vector<StreamId> due;
  for (settle_front(due_of); !heap_.empty() && heap_.top().at <= now; settle_front(due_of)) {
    const StreamId id = heap_.top().id;
    heap_.pop();
    queued_.erase(id);
    due.push_back(id);
  }
  return due;
}

}  // namespace sluice
