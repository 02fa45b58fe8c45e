#include "body/staged_segments.hpp"

#include <algorithm>
#include <cstring>

namespace sluice {

StagedSegments::StagedSegments(std::size_t segment_size) noexcept
    : segment_size_(std::max<std::size_t>(segment_size, 1)) {}

StagedSegments::Segment StagedSegments::new_segment(std::size_t at_least) {
  if (!spares_.empty() && spares_.back().capacity >= at_least) {
    Segment reused = std::move(spares_.back());
    spares_.pop_back();
    return reused;
  }
  Segment fresh;
  const std::size_t usual =
      expected_total_ != 0 ? std::min(segment_size_, expected_total_) : segment_size_;
  fresh.capacity = std::max(at_least, usual);
  // Not value-initialised: every byte is written before it is staged.
  fresh.block.reset(new std::byte[fresh.capacity]);
  capacity_ += fresh.capacity;
  return fresh;
}

void StagedSegments::push_segment(std::size_t at_least) {
  // A body of an allowance's worth spans a handful of blocks: room for them at once
  // rather than growing one record at a time.
  if (segments_.capacity() == 0) segments_.reserve(4);
  segments_.push_back(new_segment(at_least));
}

void StagedSegments::append(std::span<const std::byte> bytes) {
  end_prepare();
  while (!bytes.empty()) {
    if (live() == 0 || segments_.back().end == segments_.back().capacity) {
      push_segment(bytes.size());
    }
    Segment& tail = segments_.back();
    const std::size_t n = std::min(bytes.size(), tail.capacity - tail.end);
    std::memcpy(tail.block.get() + tail.end, bytes.data(), n);
    tail.end += n;
    size_ += n;
    bytes = bytes.subspan(n);
  }
}

std::span<std::byte> StagedSegments::prepare(std::size_t max, std::size_t floor) {
  end_prepare();
  const std::size_t wanted = std::min(max, floor);
  if (live() == 0 || segments_.back().capacity - segments_.back().end < wanted) {
    push_segment(wanted);
  }
  Segment& tail = segments_.back();
  preparing_ = true;
  const std::size_t room = std::min(max, tail.capacity - tail.end);
  prepared_end_ = tail.end + room;
  return {tail.block.get() + tail.end, room};
}

void StagedSegments::commit(std::size_t n) noexcept {
  segments_.back().end += n;
  size_ += n;
}

bool StagedSegments::commit_in_place(std::span<const std::byte> bytes) noexcept {
  if (!preparing_ || bytes.empty()) return false;
  Segment& tail = segments_.back();
  std::byte* const room = tail.block.get() + tail.end;
  const std::byte* const room_end = tail.block.get() + prepared_end_;
  if (bytes.data() < room || bytes.data() + bytes.size() > room_end) return false;
  if (bytes.data() != room) std::memmove(room, bytes.data(), bytes.size());
  commit(bytes.size());
  return true;
}

void StagedSegments::end_prepare() noexcept {
  if (!preparing_) return;
  preparing_ = false;
  rewind_empty_tail();
}

void StagedSegments::rewind_empty_tail() noexcept {
  if (live() == 0) return;
  Segment& tail = segments_.back();
  if (tail.begin != tail.end) return;
  if (live() == 1 && tail.capacity == segment_size_) {
    tail.begin = tail.end = 0;
  } else if (live() == 1) {
    capacity_ -= tail.capacity;  // an outsized block served one large append
    drop_all_segments();
  }
}

void StagedSegments::drop_all_segments() noexcept {
  segments_.clear();
  head_ = 0;
}

void StagedSegments::clear() noexcept {
  end_prepare();
  consume(size_);
}

std::span<const std::byte> StagedSegments::front(std::size_t max) const noexcept {
  if (live() == 0) return {};
  const Segment& first = segments_[head_];
  return {first.block.get() + first.begin, std::min(max, first.end - first.begin)};
}

std::size_t StagedSegments::copy_front(std::span<std::byte> into) const noexcept {
  std::size_t copied = 0;
  for (std::size_t i = head_; i < segments_.size(); ++i) {
    const Segment& segment = segments_[i];
    if (copied == into.size()) break;
    const std::size_t n = std::min(into.size() - copied, segment.end - segment.begin);
    std::memcpy(into.data() + copied, segment.block.get() + segment.begin, n);
    copied += n;
  }
  return copied;
}

void StagedSegments::consume(std::size_t n) noexcept {
  size_ -= n;
  while (n > 0) {
    Segment& first = segments_[head_];
    const std::size_t k = std::min(n, first.end - first.begin);
    first.begin += k;
    n -= k;
    if (first.begin == first.end) retire_front();
  }
}

// A drained front block: a tail of the segment size starts over in place (appends
// write at its start again); any other is kept as a spare if it has the segment size
// and the blocks kept stay within the spare limit (one spare always), else freed (an
// outsized block served one large append). Freed blocks cost more than their free:
// glibc gives their pages back, and the next receive faults them in again.
void StagedSegments::retire_front() noexcept {
  if (live() == 1) {
    if (!preparing_) rewind_empty_tail();  // else end_prepare() does it
    return;
  }
  Segment drained = std::move(segments_[head_]);
  ++head_;
  // The drained slots at the front are dropped once they are half the vector: each
  // moves a live segment's record (not its block) at most once per such step.
  if (head_ * 2 >= segments_.size()) {
    segments_.erase(segments_.begin(), segments_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  if (drained.capacity == segment_size_ && (spares_.empty() || capacity_ <= spare_limit_)) {
    drained.begin = drained.end = 0;
    spares_.push_back(std::move(drained));
  } else {
    capacity_ -= drained.capacity;
  }
}

std::size_t StagedSegments::release_unused() noexcept {
  end_prepare();
  const std::size_t before = capacity_;
  for (const Segment& spare : spares_) capacity_ -= spare.capacity;
  spares_.clear();
  spares_.shrink_to_fit();
  if (size_ == 0) {
    for (std::size_t i = head_; i < segments_.size(); ++i) capacity_ -= segments_[i].capacity;
    drop_all_segments();
  }
  return before - capacity_;
}

}  // namespace sluice
